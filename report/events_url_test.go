package report

import (
	"net/url"
	"testing"
)

// viaNetURL is splitURL without its fast path.
func viaNetURL(s string) (urlParts, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return urlParts{}, false
	}
	p := urlParts{scheme: u.Scheme, host: u.Hostname(), port: u.Port(), path: u.EscapedPath(), query: u.RawQuery}
	if p.path == "" {
		p.path = "/"
	}
	return p, true
}

var splitURLSeeds = []string{
	"http://127.0.0.1:8080/p/1.html",
	"https://example.com/a/b?z=1&a=2",
	"http://example.com",
	"http://example.com?q",
	"http://EXAMPLE.com/",
	"http://example.com/a!b'c(d)*e;f=g:h@i$j&k+l,m",
	"http://example.com/a%20b",
	"http://example.com/a b",
	"http://user@example.com/",
	"http://[::1]:80/x",
	"http://example.com:/x",
	"http://example.com:x/",
	"http://example.com/#frag",
	"http://example.com/p?a=1?b=2",
	"https://ex-ample.co.uk/~x/",
	"mailto:x@example.com",
}

func TestSplitPlainURLMatchesNetURL(t *testing.T) {
	for _, s := range splitURLSeeds {
		checkSplit(t, s)
	}
	for _, s := range []string{"http://127.0.0.1:8080/p/1.html", "https://example.com/a/b?z=1&a=2"} {
		if _, ok := splitPlainURL(s); !ok {
			t.Errorf("splitPlainURL(%q) did not answer", s)
		}
	}
}

func checkSplit(t *testing.T, s string) {
	t.Helper()
	got, ok := splitPlainURL(s)
	if !ok {
		return
	}
	want, wok := viaNetURL(s)
	if !wok || got != want {
		t.Errorf("splitPlainURL(%q) = %+v, net/url gives %+v (ok %v)", s, got, want, wok)
	}
}

func FuzzSplitPlainURL(f *testing.F) {
	for _, s := range splitURLSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkSplit(t, s) })
}
