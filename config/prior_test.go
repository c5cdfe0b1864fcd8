package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadConfigPriors: dedup_from and recrawl_of paths are read relative to the config file,
// absolute ones as they are, and survive Marshal (crawl.yaml) unchanged.
func TestLoadConfigPriors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, yaml    string
		wantDedup     []string
		wantRecrawlOf string
	}{
		{
			name:          "relative",
			yaml:          "dedup_from: [crawls/a, ../b.wacz]\nrecrawl_of: crawls/a\n",
			wantDedup:     []string{filepath.Join(dir, "crawls/a"), filepath.Join(filepath.Dir(dir), "b.wacz")},
			wantRecrawlOf: filepath.Join(dir, "crawls/a"),
		},
		{
			name:          "absolute",
			yaml:          "dedup_from: [/srv/crawls/a/indexes/index.cdxj]\nrecrawl_of: /srv/a.wacz\n",
			wantDedup:     []string{"/srv/crawls/a/indexes/index.cdxj"},
			wantRecrawlOf: "/srv/a.wacz",
		},
		{name: "none", yaml: "collection: x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".yaml")
			if err := os.WriteFile(p, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.wantDedup, c.DedupFrom); d != "" {
				t.Errorf("dedup_from (-want +got):\n%s", d)
			}
			if c.RecrawlOf != tc.wantRecrawlOf {
				t.Errorf("recrawl_of = %q, want %q", c.RecrawlOf, tc.wantRecrawlOf)
			}
			out, err := c.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			again, err := Parse(out, "crawl.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.DedupFrom, again.DedupFrom); d != "" || again.RecrawlOf != c.RecrawlOf {
				t.Errorf("after Marshal: dedup_from %v recrawl_of %q (-before +after):\n%s", again.DedupFrom, again.RecrawlOf, d)
			}
		})
	}
}
