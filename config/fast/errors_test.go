package fast

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fastDefaultRetries are the retries of FAST's http_errors defaults (§2.2.4.12).
var fastDefaultRetries = map[string]int{"4XX": 0, "5XX": 0, "int": 0, "net": 1, "ttl": 0}

// TestHTTPErrors: http_errors becomes politeness.retries (RETRY:n, none without RETRY),
// FAST's defaults fill the conditions the file leaves out, DELETE and KEEP are noted as
// ignored, and a value or name amber cannot read is an error or a note.
func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    map[string]int
		ignored string // a note that starts "ignored: " and holds this
		noted   string // a note that starts "unsupported-yet: " and holds this
		invalid bool
	}{
		{name: "none: FAST's defaults", body: "", want: fastDefaultRetries},
		{name: "§3.8", body: section("http_errors", attrib("408", String, " KEEP "), attrib("4xx", String, " DELETE "),
			attrib("5xx", String, " DELETE:10, RETRY:3 "), attrib("ttl", String, " DELETE:3 "), attrib("net", String, " DELETE:3 "),
			attrib("int", String, " KEEP ")),
			want:    map[string]int{"408": 0, "4XX": 0, "5XX": 3, "ttl": 0, "net": 0, "int": 0},
			ignored: "http_errors/408=KEEP, http_errors/4xx=DELETE, http_errors/5xx=DELETE:10, RETRY:3"},
		{name: "retry only", body: section("http_errors", attrib("503", String, "RETRY:5"), attrib("net", String, "retry")),
			want: map[string]int{"503": 5, "4XX": 0, "5XX": 0, "int": 0, "net": 1, "ttl": 0}},
		{name: "wildcards", body: section("http_errors", attrib("50X", String, "RETRY:2")),
			want: map[string]int{"50X": 2, "4XX": 0, "5XX": 0, "int": 0, "net": 1, "ttl": 0}},
		{name: "not a condition", body: section("http_errors", attrib("dns", String, "RETRY:2")),
			want: fastDefaultRetries, noted: "http_errors/dns=RETRY:2"},
		{name: "unknown action", body: section("http_errors", attrib("5xx", String, "IGNORE")), invalid: true},
		{name: "negative", body: section("http_errors", attrib("5xx", String, "RETRY:-1")), invalid: true},
		{name: "twice", body: section("http_errors", attrib("5xx", String, "RETRY:1, RETRY:2")), invalid: true},
		{name: "one condition twice", body: section("http_errors", attrib("5xx", String, "RETRY:1"), attrib("5XX", String, "RETRY:2")), invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{})
			if tt.invalid {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("Convert: %v; want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cv.File.Politeness.Retries); diff != "" {
				t.Errorf("retries (-want +got):\n%s", diff)
			}
			for _, w := range []struct{ prefix, holds string }{{"ignored: ", tt.ignored}, {"unsupported-yet: ", tt.noted}} {
				found := false
				for _, n := range cv.Notes {
					found = found || strings.HasPrefix(n, w.prefix) && strings.Contains(n, "http_errors")
					if w.holds != "" && strings.HasPrefix(n, w.prefix) && !strings.Contains(n, w.holds) {
						t.Errorf("note %q, want it to name %s", n, w.holds)
					}
				}
				if found != (w.holds != "") {
					t.Errorf("a %snote about http_errors: %v, want %v; notes:\n%s", w.prefix, found, w.holds != "", strings.Join(cv.Notes, "\n"))
				}
			}
		})
	}
}

// TestClientCertConvert: cert_file and key_file become network.client_cert and client_key,
// a relative path read from the XML file's directory; one without the other is noted, and an
// error with Strict.
func TestClientCertConvert(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name              string
		body              string
		wantCert, wantKey string
		noted             bool
	}{
		{"both", attrib("cert_file", String, "/etc/amber/c.pem") + attrib("key_file", String, "k.pem"),
			"/etc/amber/c.pem", filepath.Join(dir, "k.pem"), false},
		{"certificate only", attrib("cert_file", String, "/etc/amber/c.pem"), "", "", true},
		{"key only", attrib("key_file", String, "/etc/amber/k.pem"), "", "", true},
		{"neither", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{BaseDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			n := cv.File.Network
			if n.ClientCert != tt.wantCert || n.ClientKey != tt.wantKey {
				t.Errorf("client_cert, client_key = %q, %q; want %q, %q", n.ClientCert, n.ClientKey, tt.wantCert, tt.wantKey)
			}
			noted := false
			for _, note := range cv.Notes {
				noted = noted || strings.HasPrefix(note, "unsupported-yet: ") && strings.Contains(note, "_file")
			}
			if noted != tt.noted {
				t.Errorf("noted %v, want %v: %q", noted, tt.noted, cv.Notes)
			}
			_, err = convert(t, startURI+tt.body, ConvertOptions{BaseDir: dir, Strict: true})
			if tt.noted != errors.Is(err, ErrNotMapped) {
				t.Errorf("strict: %v; want ErrNotMapped: %v", err, tt.noted)
			}
		})
	}
}

// TestSlacks: disk_free_slack and max_doc_slack change nothing when their limit is off
// (FAST's default) or they are 0; a slack beyond a limit that is set is unsupported-yet.
func TestSlacks(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		noted string // "": no note about the slack
	}{
		{"max_doc off", section("limits", attrib("max_doc", Integer, "0"), attrib("max_doc_slack", Integer, "1000")), ""},
		{"max_doc_slack alone", section("limits", attrib("max_doc_slack", Integer, "1000")), ""},
		{"max_doc_slack 0", section("limits", attrib("max_doc", Integer, "50"), attrib("max_doc_slack", Integer, "0")), ""},
		{"max_doc_slack beyond max_doc", section("limits", attrib("max_doc", Integer, "50"), attrib("max_doc_slack", Integer, "10")), "limits/max_doc_slack=10"},
		{"disk_free off", section("limits", attrib("disk_free", Integer, "0"), attrib("disk_free_slack", Integer, "3")), ""},
		{"disk_free_slack alone", section("limits", attrib("disk_free_slack", Integer, "3")), ""},
		{"disk_free_slack beyond disk_free", section("limits", attrib("disk_free", Integer, "10"), attrib("disk_free_slack", Integer, "3")), "limits/disk_free_slack=3"},
		{"disk_free_slack 0", section("limits", attrib("disk_free", Integer, "10"), attrib("disk_free_slack", Integer, "0")), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, n := range cv.Notes {
				if strings.Contains(n, "_slack") {
					got = n
				}
			}
			if tt.noted == "" {
				if got != "" {
					t.Errorf("note %q, want none about the slack", got)
				}
				return
			}
			if !strings.HasPrefix(got, "unsupported-yet: ") || !strings.Contains(got, tt.noted) {
				t.Errorf("note %q, want an unsupported-yet note naming %s", got, tt.noted)
			}
		})
	}
}
