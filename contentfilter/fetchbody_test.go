package contentfilter

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/warc"
)

// TestBeforeArmsFetchBody: with Types, the request of a URL asks the filter about its
// response's head (fetch.Request.FetchBody); not without Types, nor for a listing document.
func TestBeforeArmsFetchBody(t *testing.T) {
	for _, tt := range []struct {
		name    string
		types   []string
		headers bool // a header rule
		sitemap bool
		armed   bool
	}{
		{"types", []string{"text/html"}, false, false, true},
		{"no types", nil, false, false, false},
		{"header rules alone", nil, true, false, false},
		{"a sitemap file or feed", []string{"text/html"}, false, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Types: tt.types}
			if tt.headers {
				r, err := NewHeaderRule("X-Robots-Tag", "noarchive")
				if err != nil {
					t.Fatal(err)
				}
				cfg.ExcludeHeaders = []HeaderRule{r}
			}
			f := New(cfg, nil)
			r := &chain.Record{Claim: &frontier.Claim{URL: frontier.URL{URL: "http://example.com/x", Sitemap: tt.sitemap}}}
			v, err := f.Before(t.Context(), r)
			if err != nil || v.Done {
				t.Fatalf("Before: %+v, %v; want to proceed", v, err)
			}
			if armed := r.Request.FetchBody != nil; armed != tt.armed {
				t.Errorf("FetchBody set %v, want %v", armed, tt.armed)
			}
		})
	}
}

// TestFetchBody: a body is fetched unless the head's Content-Type is a type Types leaves out;
// a redirect's whatever its type, and one without a usable Content-Type (its type is sniffed
// from the body).
func TestFetchBody(t *testing.T) {
	f := New(Config{Types: []string{"text/html", "image/*"}}, nil)
	for _, tt := range []struct {
		status int
		ct     string
		want   bool
	}{
		{200, "text/html; charset=utf-8", true},
		{200, "TEXT/HTML", true},
		{200, "image/png", true},
		{200, "application/zip", false},
		{200, "text/plain", false},
		{404, "application/zip", false},
		{503, "application/octet-stream", false},
		{302, "application/octet-stream", true},
		{301, "application/zip", true},
		{200, "", true},
		{200, "; charset=utf-8", true},
	} {
		h := http.Header{}
		if tt.ct != "" {
			h.Set("Content-Type", tt.ct)
		}
		if got := f.fetchBody(tt.status, h); got != tt.want {
			t.Errorf("fetchBody(%d, %q) = %v, want %v", tt.status, tt.ct, got, tt.want)
		}
	}
}

// TestNotFetched: the capture of an exchange whose body was not fetched says so, with the
// type and the length its head declared (or unknown), in crawl.log and the metadata record;
// another's is left alone.
func TestNotFetched(t *testing.T) {
	for _, tt := range []struct {
		name   string
		ex     fetch.Exchange
		want   bool
		notes  []string
		fields []warc.Field
	}{
		{"with a Content-Length", fetch.Exchange{StatusCode: 200, Header: http.Header{"Content-Type": {"application/zip"}}, BodyNotFetched: true, NotFetchedSize: 52428800}, true,
			[]string{"type-not-fetched:application/zip", "bytes-not-fetched:52428800"},
			[]warc.Field{{Name: "notFetched", Value: "type:application/zip"}, {Name: "notFetchedBytes", Value: "52428800"}, {Name: "responseStatus", Value: "200"}}},
		{"chunked", fetch.Exchange{StatusCode: 404, Header: http.Header{"Content-Type": {"Video/MP4; codecs=x"}}, BodyNotFetched: true, NotFetchedSize: -1}, true,
			[]string{"type-not-fetched:video/mp4", "bytes-not-fetched:unknown"},
			[]warc.Field{{Name: "notFetched", Value: "type:video/mp4"}, {Name: "notFetchedBytes", Value: "unknown"}, {Name: "responseStatus", Value: "404"}}},
		{"fetched", fetch.Exchange{StatusCode: 200, Header: http.Header{"Content-Type": {"application/zip"}}}, false, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var k chain.Capture
			if got := notFetched(&tt.ex, &k); got != tt.want {
				t.Errorf("notFetched = %v, want %v", got, tt.want)
			}
			if d := cmp.Diff(tt.notes, k.Annotations); d != "" {
				t.Errorf("annotations (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.fields, k.Fields); d != "" {
				t.Errorf("metadata fields (-want +got):\n%s", d)
			}
		})
	}
}
