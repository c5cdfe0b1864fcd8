package warc

import (
	"regexp"
	"strings"
	"testing"
)

var wwwPrefix = regexp.MustCompile(`^(https?://)www\d*\.`)

var cdxKeySeeds = []string{
	"http://127.0.0.1:8080/p/1.html",
	"https://example.com/a/b?z=1&a=2",
	"http://www.example.com",
	"http://www2.Example.COM:80/x?",
	"http://example.com:0443/",
	"http://user@example.com/",
	"http://example.com/a/./b/../c",
	"http://example.com/%2e%2E/x",
	"http://example.com/a b",
	"http://xn--nxasmq6b.com/",
	"http://0x7f.1/",
	"http://127.1/",
	"http://1.2.3.04/",
	"http://256.1.1.1/",
	"http://example.com./",
	"http://example..com/",
	"http://[::1]:80/",
	"http://example.com/?q='x'",
	"http://example.com/path'/x",
	"http://example.com/a\\b",
	"http://example.com:65536/",
	"http://example.com:99999/",
	"http://example.com#frag",
	"http://a.b-c.d/~x/(y)*;z=1,2:3@4!$+",
	"HTTP://EXAMPLE.com/",
	"http://wwwx.example.com/",
	"http:/example.com/",
}

// TestCDXKeyPlainMatchesWHATWG: wherever the plain path answers, it answers what the WHATWG
// path does, and it does answer for the URLs a crawl mostly writes.
func TestCDXKeyPlainMatchesWHATWG(t *testing.T) {
	for _, u := range cdxKeySeeds {
		checkPlain(t, u)
	}
	for _, u := range []string{"http://127.0.0.1:8080/p/1.html", "https://example.com/a/b?z=1&a=2", "http://example.com"} {
		if _, ok := cdxKeyPlain(strings.ToLower(u)); !ok {
			t.Errorf("cdxKeyPlain(%q) did not answer", u)
		}
	}
}

func checkPlain(t *testing.T, u string) {
	t.Helper()
	if got, want := stripWWW(u), wwwPrefix.ReplaceAllString(u, "$1"); got != want {
		t.Fatalf("stripWWW(%q) = %q, regexp gives %q", u, got, want)
	}
	s := stripWWW(u)
	lower := strings.ToLower(s)
	got, ok := cdxKeyPlain(lower)
	if !ok {
		return
	}
	if want := cdxKeyWHATWG(s, lower); got != want {
		t.Errorf("cdxKeyPlain(%q) = %q, WHATWG parse gives %q", lower, got, want)
	}
}

func FuzzCDXKeyPlain(f *testing.F) {
	for _, u := range cdxKeySeeds {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, u string) {
		if !strings.HasPrefix(u, "http:") && !strings.HasPrefix(u, "https:") {
			u = "http://" + u
		}
		checkPlain(t, u)
	})
}
