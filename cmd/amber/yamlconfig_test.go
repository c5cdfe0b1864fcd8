package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// yamlCrawlConfig makes the crawl configuration of a config file holding one seed and yaml,
// with the command-line flags given, as amber crawl --config does, and validates it: the
// seeds config it read and the crawl's, or the first error.
func yamlCrawlConfig(t *testing.T, yaml string, flags ...string) (*config.File, crawl.Config, error) {
	t.Helper()
	tmp := t.TempDir()
	file := writeFile(t, tmp, "c.yaml", "seeds: [http://www.example.com/]\n"+yaml)
	a, err := parseCrawlArgs(append([]string{"--dir", filepath.Join(tmp, "crawl"), "--config", file}, flags...))
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
func readBack(t *testing.T, c crawl.Config) (*config.File, crawl.Config) {
	t.Helper()
	again, err := config.Parse(c.EffectiveConfig, "crawl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Parse(c.EffectiveConfig, "crawl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	back, err := config.Build(f, config.Options{Dir: c.Dir})
	if err != nil {
		t.Fatal(err)
	}
	return again, back
}

// checkSetting checks what yaml and flags (see yamlCrawlConfig) make of one setting: with
// wantErr "", no error, and see gives want from the crawl configuration and again from the
// crawl.yaml it records, read back as a resumed run reads it; else an error that contains
// wantErr. It returns the crawl configuration (the zero Config after an error).
func checkSetting[T any](t *testing.T, yaml string, flags []string, wantErr string, want T, see func(crawl.Config) T) crawl.Config {
	t.Helper()
	_, c, err := yamlCrawlConfig(t, yaml, flags...)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want one naming %s", err, wantErr)
		}
		return crawl.Config{}
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, see(c)); diff != "" {
		t.Errorf("crawl config (-want +got):\n%s", diff)
	}
	_, back := readBack(t, c)
	if diff := cmp.Diff(want, see(back)); diff != "" {
		t.Errorf("crawl.yaml read back (-want +got):\n%s", diff)
	}
	return c
}
