package main

import (
	"path/filepath"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/seeds"
)

// yamlCrawlConfig makes the crawl configuration of a config file holding one seed and yaml, as
// amber crawl --config does, and validates it: the seeds config it read and the crawl's, or
// the first error.
func yamlCrawlConfig(t *testing.T, yaml string) (*seeds.Config, crawl.Config, error) {
	t.Helper()
	tmp := t.TempDir()
	file := writeFile(t, tmp, "c.yaml", "seeds: [http://www.example.com/]\n"+yaml)
	a, err := parseCrawlArgs([]string{"--dir", filepath.Join(tmp, "crawl"), "--config", file})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := buildConfig(a)
	if err != nil {
		return cfg, crawl.Config{}, err
	}
	c, err := crawlConfig(cfg, a)
	if err == nil {
		err = c.Validate()
	}
	return cfg, c, err
}

// readBack reads the crawl.yaml c records as a resumed run does: the seeds config, and the
// crawl configuration its YAML settings make.
func readBack(t *testing.T, c crawl.Config) (*seeds.Config, crawl.Config) {
	t.Helper()
	again, err := seeds.ParseConfig(c.EffectiveConfig, "crawl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	back := crawl.DefaultConfig()
	if err := overlayYAML(&back, again); err != nil {
		t.Fatal(err)
	}
	return again, back
}
