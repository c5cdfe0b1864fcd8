package frontier

import (
	"fmt"
	"testing"
)

func TestKnownCache(t *testing.T) {
	// One set of knownWays entries, so that the fifth URL evicts the least recently used.
	type step struct {
		op       string // "add", "reject" (add as rejected) or "lookup"
		url      string
		known    bool // lookup: want
		rejected bool // lookup: want
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"unknown", []step{{op: "lookup", url: "a"}}},
		{"added", []step{{op: "add", url: "a"}, {op: "lookup", url: "a", known: true}, {op: "lookup", url: "b"}}},
		{"rejected", []step{{op: "reject", url: "a"}, {op: "lookup", url: "a", known: true, rejected: true}}},
		{"rejected then added", []step{
			{op: "reject", url: "a"}, {op: "add", url: "a"}, {op: "lookup", url: "a", known: true},
		}},
		{"least recently used goes", []step{
			{op: "add", url: "a"}, {op: "add", url: "b"}, {op: "add", url: "c"}, {op: "add", url: "d"},
			{op: "add", url: "e"},
			{op: "lookup", url: "a"},
			{op: "lookup", url: "b", known: true}, {op: "lookup", url: "e", known: true},
		}},
		{"a look-up keeps an entry", []step{
			{op: "add", url: "a"}, {op: "add", url: "b"}, {op: "add", url: "c"}, {op: "add", url: "d"},
			{op: "lookup", url: "a", known: true},
			{op: "add", url: "e"},
			{op: "lookup", url: "b"},
			{op: "lookup", url: "a", known: true}, {op: "lookup", url: "c", known: true},
		}},
		{"adding again keeps one entry", []step{
			{op: "add", url: "a"}, {op: "add", url: "a"}, {op: "add", url: "a"}, {op: "add", url: "b"},
			{op: "add", url: "c"}, {op: "add", url: "d"},
			{op: "lookup", url: "a", known: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKnownCache(knownWays)
			for i, s := range tt.steps {
				key := k.key(s.url)
				switch s.op {
				case "add", "reject":
					k.add(key, s.op == "reject")
				case "lookup":
					known, rejected := k.lookup(key)
					if known != s.known || rejected != s.rejected {
						t.Errorf("step %d: lookup(%s) = %v, %v; want %v, %v", i, s.url, known, rejected, s.known, s.rejected)
					}
				}
			}
		})
	}
}

// TestKnownCacheHolds checks that a full cache finds most of what it was last given.
func TestKnownCacheHolds(t *testing.T) {
	k := newKnownCache(1 << 10)
	for i := range 1 << 12 {
		k.add(k.key(fmt.Sprint(i)), false)
	}
	found := 0
	for i := 3 << 10; i < 1<<12; i++ {
		if known, _ := k.lookup(k.key(fmt.Sprint(i))); known {
			found++
		}
	}
	if found < 1<<9 {
		t.Errorf("found %d of the last %d URLs added to a cache of %d", found, 1<<10, 1<<10)
	}
	for i := 1 << 12; i < 1<<13; i++ {
		if known, _ := k.lookup(k.key(fmt.Sprint(i))); known {
			t.Errorf("URL %d never added is known", i)
		}
	}
}
