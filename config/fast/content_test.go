package fast

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
)

// TestConvertContent: allowed_types, uri_search_mime and exclude_headers become content's
// types, link_types and exclude_headers, FAST's defaults where the file leaves the lists out;
// a member that is not a MIME type is invalid, a pattern RE2 cannot compile refused.
func TestConvertContent(t *testing.T) {
	type note struct{ status, what string }
	defTypes := []string{"text/html", "text/plain", "application/msword", "application/msexcel", "application/pt", "application/pdf"}
	defLinks := []string{"text/html", "text/vnd.wap.xml", "text/wml", "text/x-wap.wml", "x-application/wml", "text/x-hdml"}
	tests := []struct {
		name    string
		body    string
		want    config.Content
		notes   []note
		sources map[string]string // amber key -> the start of its source
		invalid bool
	}{
		{name: "defaults", want: config.Content{Types: defTypes, LinkTypes: defLinks},
			sources: map[string]string{"content.types": "allowed_types (not in the file", "content.link_types": "uri_search_mime (not in the file"}},
		{name: "lists", body: members("allowed_types", "text/*", "application/pdf") + members("uri_search_mime", "*/*"),
			want:    config.Content{Types: []string{"text/*", "application/pdf"}, LinkTypes: []string{"*/*"}},
			notes:   []note{{"differs", "allowed_types"}, {"differs", "uri_search_mime"}},
			sources: map[string]string{"content.types": "allowed_types", "content.link_types": "uri_search_mime"}},
		{name: "headers", body: section("exclude_headers", members("x-robots-tag", "noarchive", `^none$`, "noarchive"), members("Content-Language", "^fr")),
			want: config.Content{Types: defTypes, LinkTypes: defLinks,
				ExcludeHeaders: map[string][]string{"X-Robots-Tag": {"noarchive", "^none$"}, "Content-Language": {"^fr"}}},
			notes:   []note{{"differs", "exclude_headers/x-robots-tag"}},
			sources: map[string]string{"content.exclude_headers": "exclude_headers/x-robots-tag, exclude_headers/Content-Language"}},
		{name: "header pattern not RE2", body: section("exclude_headers", members("Server", `(?!apache)`, "nginx")),
			want:  config.Content{Types: defTypes, LinkTypes: defLinks, ExcludeHeaders: map[string][]string{"Server": {"nginx"}}},
			notes: []note{{"refused", "exclude_headers/Server"}}},
		{name: "header pattern none RE2", body: section("exclude_headers", members("Server", `(a)\1`)),
			want:  config.Content{Types: defTypes, LinkTypes: defLinks},
			notes: []note{{"refused", "exclude_headers/Server"}}},
		{name: "empty list", body: `<attrib name="allowed_types" type="list-string"></attrib>`,
			want:  config.Content{LinkTypes: defLinks},
			notes: []note{{"unsupported-yet", "allowed_types"}}},
		{name: "not a type", body: members("allowed_types", "text"), invalid: true},
		{name: "partial wildcard", body: members("uri_search_mime", "text/x-*"), invalid: true},
		{name: "parameters", body: members("allowed_types", "text/html; charset=utf-8"), invalid: true},
		{name: "not a field name", body: section("exclude_headers", members("X Robots", "a")), invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{})
			if tt.invalid {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("err %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cv.File.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			for _, n := range tt.notes {
				if !hasNote(cv.Notes, n.status, n.what) {
					t.Errorf("no %s note naming %q in:\n%s", n.status, n.what, strings.Join(cv.Notes, "\n"))
				}
			}
			for key, from := range tt.sources {
				if got := cv.Sources[key]; !strings.HasPrefix(got, from) {
					t.Errorf("source of %s: %q, want it to start %q", key, got, from)
				}
			}
		})
	}
}

// TestConvertPostPayload: post_payload's attribs become post_payloads, "prefix:URI" a prefix
// and any other name an exact URI; an ftp URI is refused and a name that is no URI invalid;
// no note or error shows a body.
func TestConvertPostPayload(t *testing.T) {
	const secret = "token=s3cret"
	tests := []struct {
		name    string
		body    string
		want    []config.PostPayloadSpec
		refused bool
		invalid bool
	}{
		{name: "exact and prefix", body: section("post_payload", attrib("http://www.example.com/search", String, " q=a&amp;b=c "),
			attrib("prefix:https://www.example.com/secure/", String, secret)),
			want: []config.PostPayloadSpec{{URL: "http://www.example.com/search", Body: "q=a&b=c"}, {Prefix: "https://www.example.com/secure/", Body: secret}}},
		{name: "ftp", body: section("post_payload", attrib("prefix:ftp://ftp.example.com/", String, secret)), refused: true},
		{name: "not a URI", body: section("post_payload", attrib("prefix:/secure", String, secret)), invalid: true},
		{name: "a relative name", body: section("post_payload", attrib("secure", String, secret)), invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{})
			if tt.invalid {
				if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("err %v, want ErrInvalid without the body", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cv.File.PostPayloads); diff != "" {
				t.Errorf("post_payloads (-want +got):\n%s", diff)
			}
			if got := hasNote(cv.Notes, "refused", "post_payload/"); got != tt.refused {
				t.Errorf("refused note %v, want %v:\n%s", got, tt.refused, strings.Join(cv.Notes, "\n"))
			}
			for _, n := range cv.Notes {
				if strings.Contains(n, "s3cret") {
					t.Errorf("a note shows the body: %s", n)
				}
			}
		})
	}
}
