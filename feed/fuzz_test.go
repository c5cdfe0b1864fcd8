package feed

import (
	"errors"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{rss2, atom, rdf, gz(atom), "", "<html>", "<rss><channel><item><link>x", "http://e.com/"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, doc string, maxLinks int) {
		limits := Limits{MaxLinks: maxLinks % 50, MaxBytes: 1 << 16}
		res, err := Parse(strings.NewReader(doc), limits)
		if errors.Is(err, ErrNotFeed) {
			if res != nil {
				t.Fatalf("result with ErrNotFeed: %+v", res)
			}
			return
		}
		if res == nil {
			t.Fatalf("nil result, error %v", err)
		}
		if n := limits.withDefaults().MaxLinks; len(res.Links) > n {
			t.Fatalf("%d links, limit %d", len(res.Links), n)
		}
		if res.Kind != RSS && res.Kind != Atom {
			t.Fatalf("kind %v", res.Kind)
		}
		for _, l := range res.Links {
			if l == "" || strings.TrimSpace(l) != l {
				t.Fatalf("link %q not trimmed", l)
			}
		}
	})
}
