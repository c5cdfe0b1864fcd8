package extract

import (
	"testing"
)

// simpleBases are bases of every kind resolveSimple must get right: ports, IPv6, a path and a
// query of their own, user information and a scheme it leaves to resolve.
var simpleBases = []string{
	"http://example.com/dir/page.html?x=1#f",
	"https://EXAMPLE.com:8443/",
	"http://127.0.0.1:8080/a/b/",
	"http://[::1]:9000/x",
	"http://user:pw@example.com/",
	"ftp://example.com/",
	"http://xn--bcher-kva.example/",
}

// TestResolveSimple checks that resolveSimple, where it answers, gives what parsing gives
// (resolveParsed), and that it answers for the references it is for.
func TestResolveSimple(t *testing.T) {
	refs := []struct {
		ref    string
		simple bool // on an http(s) base without user information
	}{
		{"/p/1.html", true},
		{"/", true},
		{"/img/3.png", true},
		{"/search?q=x&n=2", true},
		{"/a?", true},
		{"/a:b;c=d@e,f+g$h", true},
		{"/~user/-_.x", true},
		{"/a?b?c", false},
		{"/a/./b", false},
		{"/a/../b", false},
		{"/..", false},
		{"/.well-known/x", false},
		{"/a//b", false},
		{"//host/x", false},
		{"/a%20b", false},
		{"/a#frag", false},
		{"/a b", false},
		{"/é", false},
		{"/a\\b", false},
		{"/a!b", false},
		{"/q?a=\"x\"", false},
		{"p/1.html", false},
		{"http://example.com/", false},
	}
	for _, base := range simpleBases {
		r, err := newResolver(base, "")
		if err != nil {
			t.Fatal(err)
		}
		special := r.origin != ""
		for _, tc := range refs {
			got, ok := r.resolveSimple(tc.ref)
			if ok != (tc.simple && special) {
				t.Errorf("base %s: resolveSimple(%q) ok = %v, want %v", base, tc.ref, ok, tc.simple && special)
			}
			if !ok {
				continue
			}
			want, wok := r.resolveParsed(tc.ref)
			if !wok || got != want {
				t.Errorf("base %s: resolveSimple(%q) = %q; resolveParsed = %q, %v", base, tc.ref, got, want, wok)
			}
		}
	}
}

func FuzzResolveSimple(f *testing.F) {
	for _, s := range []string{"/p/1.html", "/search?q=x&n=2", "/a?", "/a:b;c=d@e,f+g$h", "/x/y/z.css"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, ref string, b uint8) {
		base := simpleBases[int(b)%len(simpleBases)]
		r, err := newResolver(base, "")
		if err != nil {
			t.Fatal(err)
		}
		got, ok := r.resolveSimple(ref)
		if !ok {
			return
		}
		if want, wok := r.resolveParsed(ref); !wok || got != want {
			t.Fatalf("base %s: resolveSimple(%q) = %q; resolveParsed = %q, %v", base, ref, got, want, wok)
		}
	})
}
