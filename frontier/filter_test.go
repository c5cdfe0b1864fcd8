package frontier

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestKeyFilter(t *testing.T) {
	tests := []struct {
		name       string
		first, add int // capacity of the first segment, keys added
	}{
		{"one segment", 1 << 18, 100_000},
		{"grown", 1000, 100_000}, // 7 segments
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newKeyFilter(0)
			segs := []*filterSeg{newFilterSeg(tt.first)}
			f.segs.Store(&segs)
			for i := range tt.add {
				f.add(fmt.Appendf(nil, "u/http://h%d.test/%d", i%97, i))
			}
			for i := range tt.add {
				if k := fmt.Appendf(nil, "u/http://h%d.test/%d", i%97, i); !f.mayHold(k) {
					t.Fatalf("key %q added, not held", k)
				}
			}
			fp := 0
			for i := range tt.add {
				if f.mayHold(fmt.Appendf(nil, "u/http://other%d.test/%d", i%97, i)) {
					fp++
				}
			}
			// About 1% a segment; a few segments at most add up.
			if rate := float64(fp) / float64(tt.add); rate > 0.08 {
				t.Errorf("%d of %d keys never added are held (%.1f%%)", fp, tt.add, 100*rate)
			}
		})
	}
}

// TestKeyFilterConcurrent adds keys (and grows the filter) while other goroutines look up the
// keys already added, which must all be held.
func TestKeyFilterConcurrent(t *testing.T) {
	f := newKeyFilter(0)
	segs := []*filterSeg{newFilterSeg(64)}
	f.segs.Store(&segs)
	const n = 20_000
	added := make(chan int, n)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range added {
				if !f.mayHold(fmt.Appendf(nil, "k%d", i)) {
					t.Errorf("key %d added, not held", i)
				}
			}
		}()
	}
	for i := range n {
		f.add(fmt.Appendf(nil, "k%d", i))
		added <- i
	}
	close(added)
	wg.Wait()
}

// TestKeyFilterReopen checks that what the store holds is found after a reopen (the filter is
// rebuilt from the stored keys), with the cache of known URLs cold, and what it does not hold
// is not.
func TestKeyFilterReopen(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, f, u("a.test", "/queued"))
	if _, err := f.Reject(u("x.test", "/rejected"), "out-of-scope"); err != nil {
		t.Fatal(err)
	}
	if err := f.StoreDigest("sha1:A", "http://a.test/queued", time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := f.PutMeta("k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openT(t, Config{Dir: dir})
	tests := []struct {
		name string
		run  func() (bool, error)
		want bool
	}{
		{"queued URL is seen", func() (bool, error) { return f.Add(u("a.test", "/queued")) }, false},
		{"rejected URL is known", func() (bool, error) { return f.Reject(u("x.test", "/rejected"), "r") }, false},
		{"digest is found", func() (bool, error) { _, _, ok, err := f.LookupDigest("sha1:A"); return ok, err }, true},
		{"metadata is found", func() (bool, error) { _, ok, err := f.Meta("k"); return ok, err }, true},
		{"new URL is new", func() (bool, error) { return f.Add(u("a.test", "/new")) }, true},
		{"new digest is not found", func() (bool, error) { _, _, ok, err := f.LookupDigest("sha1:B"); return ok, err }, false},
		{"new key is not found", func() (bool, error) { _, ok, err := f.Meta("k2"); return ok, err }, false},
		{"rejected URL can be added", func() (bool, error) { return f.Add(u("x.test", "/rejected")) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forget(f)
			got, err := tt.run()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
