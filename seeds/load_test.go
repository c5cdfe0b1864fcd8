package seeds

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body string
		elastic    bool
		flavour    string
		seeds      int
		err        error
	}{
		{"amber", "seeds: [http://a.example/]\nworkers: 2\n", false, "", 1, nil},
		{"elastic", "domains:\n  - url: https://b.example\n    seed_urls: [https://b.example/start]\nmax_crawl_depth: 2\n", true, "elastic", 1, nil},
		{"elastic-unknown-key", "domains:\n  - url: https://b.example\nschedule: daily\n", false, "", 0, ErrElasticConfig},
		{"amber-unknown-key", "seeds: [http://a.example/]\nwrokers: 2\n", false, "", 0, ErrConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cv, err := Load(write(tc.name+".yml", tc.body))
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (cv != nil) != tc.elastic {
				t.Errorf("converted %v, want %v", cv != nil, tc.elastic)
			}
			if c.Scope.Flavour != tc.flavour || len(c.Seeds) != tc.seeds {
				t.Errorf("flavour %q seeds %d, want %q %d", c.Scope.Flavour, len(c.Seeds), tc.flavour, tc.seeds)
			}
		})
	}
	if _, _, err := Load(filepath.Join(dir, "missing.yml")); err == nil {
		t.Error("missing file: no error")
	}
}
