package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
)

// TestPriorConfig: --dedup-from and --recrawl-of, and the YAML keys they replace, reach the
// crawl as absolute paths, are recorded in crawl.yaml, and a crawl resumed from its crawl.yaml
// alone gets them again.
func TestPriorConfig(t *testing.T) {
	tmp := t.TempDir()
	t.Chdir(tmp)
	cfgFile := writeFile(t, mkdir(t, filepath.Join(tmp, "conf")), "c.yaml", "seeds: [https://a.example/]\ndedup_from: [old/one, /srv/two.wacz]\nrecrawl_of: old/one\n")
	for _, tc := range []struct {
		name          string
		args          []string
		wantDedup     []string
		wantRecrawlOf string
	}{
		{"none", []string{"https://a.example/"}, []string{}, ""},
		{"flags", []string{"https://a.example/", "--dedup-from", "a", "--dedup-from", "/srv/b/indexes/index.cdxj", "--recrawl-of", "a.wacz"},
			[]string{filepath.Join(tmp, "a"), "/srv/b/indexes/index.cdxj"}, filepath.Join(tmp, "a.wacz")},
		{"config", []string{"--config", cfgFile},
			[]string{filepath.Join(tmp, "conf/old/one"), "/srv/two.wacz"}, filepath.Join(tmp, "conf/old/one")},
		{"flags over config", []string{"--config", cfgFile, "--dedup-from", "x", "--recrawl-of", "y"},
			[]string{filepath.Join(tmp, "x")}, filepath.Join(tmp, "y")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(tmp, "crawl-"+tc.name)
			c := mustCrawlConfig(t, append([]string{"--dir", dir}, tc.args...))
			if d := cmp.Diff(tc.wantDedup, c.DedupFrom); d != "" {
				t.Errorf("DedupFrom (-want +got):\n%s", d)
			}
			if c.RecrawlOf != tc.wantRecrawlOf {
				t.Errorf("RecrawlOf = %q, want %q", c.RecrawlOf, tc.wantRecrawlOf)
			}
			writeFile(t, mkdir(t, dir), crawl.ConfigFile, string(c.EffectiveConfig))
			// Resumed from another directory, with crawl.yaml alone.
			t.Chdir(os.TempDir())
			resumed := mustCrawlConfig(t, []string{"--dir", dir})
			t.Chdir(tmp)
			if d := cmp.Diff(c.DedupFrom, resumed.DedupFrom); d != "" || resumed.RecrawlOf != c.RecrawlOf {
				t.Errorf("resumed: DedupFrom %v, RecrawlOf %q (-first +resumed):\n%s", resumed.DedupFrom, resumed.RecrawlOf, d)
			}
			if !bytes.Equal(c.EffectiveConfig, resumed.EffectiveConfig) {
				t.Errorf("crawl.yaml changed on resume:\n%s\n---\n%s", c.EffectiveConfig, resumed.EffectiveConfig)
			}
		})
	}
}
