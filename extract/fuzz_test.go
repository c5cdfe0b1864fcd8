package extract

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/hop"
)

// checkOutlinks fails t unless every outlink is an absolute URL with a host and a scheme of
// http, https or the page's own, a known hop and a context, and (URL, hop) pairs are unique.
func checkOutlinks(t *testing.T, pageURL string, links []Outlink) {
	t.Helper()
	page, err := url.Parse(pageURL)
	if err != nil {
		t.Fatalf("bad page URL %q in the fuzz seed", pageURL)
	}
	type key struct {
		url string
		hop byte
	}
	seen := map[key]bool{}
	for _, o := range links {
		u, err := url.Parse(o.URL)
		if err != nil {
			t.Fatalf("outlink %q does not parse: %v", o.URL, err)
		}
		if !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != page.Scheme) {
			t.Fatalf("outlink %q: not absolute with scheme http, https or %q", o.URL, page.Scheme)
		}
		if u.Host == "" || u.Fragment != "" || strings.ContainsAny(o.URL, " \t\n\r\x00#") {
			t.Fatalf("outlink %q: no host, or a fragment, space or control", o.URL)
		}
		for i := 0; i < len(o.URL); i++ {
			if c := o.URL[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' {
				t.Fatalf("outlink %q: byte %q must be percent-encoded", o.URL, c)
			}
		}
		if !strings.ContainsRune("LERXI", rune(o.Hop)) || o.Context == "" {
			t.Fatalf("outlink %+v: bad hop or empty context", o)
		}
		k := key{o.URL, o.Hop}
		if seen[k] {
			t.Fatalf("duplicate outlink %+v", o)
		}
		seen[k] = true
	}
}

func addFileSeeds(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzHTML(f *testing.F) {
	addFileSeeds(f, "*.html")
	for _, s := range []string{
		`<a href="x">`, `<base href="//other/"><img srcset="a 1x, b,c 2x">`,
		`<meta http-equiv=refresh content="0;url='http:\\x'">`, `<noscript><noscript><a href=/n>`,
		`<iframe srcdoc="<iframe srcdoc='&lt;a href=x&gt;'>">`, `<style>@import url(x)</style>`,
		`<div style="background:url(\2f\2f h)">`, `<form action="https:h?q">`, `<a href="%zz?%">`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, pageURL := range []string{"http://example.com/a/b.html", "https://[::1]:8443/"} {
			res, err := HTML(pageURL, body)
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			checkOutlinks(t, pageURL, res.Outlinks)
			if _, err := url.Parse(res.Base); err != nil {
				t.Fatalf("Base %q does not parse: %v", res.Base, err)
			}
			checkBound(t, pageURL, body, res.Outlinks)
		}
	})
}

// checkBound fails t unless ParseWith with a bound of 2 keeps at most 2 of the outlinks of
// all (those found without a bound), every embed of all while fewer than 2 are kept, and
// reports some dropped when it keeps fewer than all.
func checkBound(t *testing.T, pageURL string, body []byte, all []Outlink) {
	t.Helper()
	const bound = 2
	res, err := ParseWith(pageURL, "text/html", body, Options{MaxOutlinks: bound})
	if err != nil {
		t.Fatalf("ParseWith: %v", err)
	}
	checkOutlinks(t, pageURL, res.Outlinks)
	if len(res.Outlinks) > bound {
		t.Fatalf("%d outlinks kept with a bound of %d", len(res.Outlinks), bound)
	}
	if len(res.Outlinks) < len(all) && res.OutlinksDropped == 0 {
		t.Fatalf("%d of %d outlinks kept and none dropped", len(res.Outlinks), len(all))
	}
	type key struct {
		url string
		hop byte
	}
	found := map[key]bool{}
	for _, o := range all {
		found[key{o.URL, o.Hop}] = true
	}
	for _, o := range res.Outlinks {
		if !found[key{o.URL, o.Hop}] {
			t.Fatalf("bounded outlink %+v not found without a bound", o)
		}
	}
}

func FuzzCSS(f *testing.F) {
	addFileSeeds(f, "*.css")
	for _, s := range []string{
		`a{b:url(x)}`, `@import "x";`, `@import url('y')`, `url("a\"b")`, `url(a\)b)`, `/* url(x) */`,
		`image-set("a" 1x, url(b) type("c"))`, `url(\0)`, `url(\110000)`, "url(\"a\\\r\nb\")",
		`u\rl(x)`, `\75 rl(x)`, `\55 RL(x)`, `@\69mport "x";`, `\69mage-set("a")`, `url(z\`, `-\`, `1url(x)`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		const pageURL = "http://example.com/css/s.css"
		links, err := CSS(pageURL, body)
		if err != nil {
			t.Fatalf("CSS: %v", err)
		}
		checkOutlinks(t, pageURL, links)
		for _, o := range links {
			if o.Hop != hop.Embed {
				t.Fatalf("CSS outlink %+v: hop not E", o)
			}
		}
	})
}
