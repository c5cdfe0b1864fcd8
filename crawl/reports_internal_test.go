package crawl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/frontier"
)

// TestPutLines: lists of any length are recorded in the crawl's metadata and read back whole
// (6,000 seeds took half a megabyte, past the frontier's largest entry); a shorter list of a
// later run replaces a longer one, and a list recorded in one entry, as crawls did before,
// reads back as it was.
func TestPutLines(t *testing.T) {
	front, err := frontier.Open(frontier.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = front.Close() })
	meta := func(key string) string {
		v, _, err := front.Meta(key)
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	lines := func(n int) []string {
		var ls []string
		for i := range n {
			ls = append(ls, fmt.Sprintf("http://site%d.example/some/fairly/long/path/%06d/index.html standard", i%7, i))
		}
		return ls
	}
	long := strings.Repeat("x", 3*linesChunk)
	tests := []struct {
		name  string
		lines []string
	}{
		{"6,000 seeds", lines(6000)}, // 498 KB
		{"fewer, after more", lines(1000)},
		{"one", lines(1)},
		{"a line longer than a chunk", []string{"a", long, "b"}},
		{"none", nil},
		{"some again", lines(3000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := putLines(front, metaSeeds, tt.lines); err != nil {
				t.Fatal(err)
			}
			if got, want := readLines(meta, metaSeeds), strings.Join(tt.lines, "\n"); got != want {
				t.Errorf("read %d bytes, %d lines; want %d bytes, %d lines", len(got), strings.Count(got, "\n")+1, len(want), len(tt.lines))
			}
			for i := 0; ; i++ {
				k := metaSeeds
				if i > 0 {
					k = fmt.Sprintf("%s/%d", metaSeeds, i)
				}
				v := meta(k)
				if len(v) > linesChunk && !strings.Contains(v, long) {
					t.Errorf("entry %s holds %d bytes, over %d", k, len(v), linesChunk)
				}
				if i > 0 && v == "" {
					break
				}
			}
		})
	}

	t.Run("one entry, as before", func(t *testing.T) {
		old := "http://a.example/ standard\nhttp://b.example/ one-page"
		if err := front.PutMeta(metaSeeds, []byte(old)); err != nil {
			t.Fatal(err)
		}
		if err := front.PutMeta(metaSeeds+"/1", nil); err != nil { // as an old store has no key/1
			t.Fatal(err)
		}
		if got := readLines(meta, metaSeeds); got != old {
			t.Errorf("read %q, want %q", got, old)
		}
	})
}
