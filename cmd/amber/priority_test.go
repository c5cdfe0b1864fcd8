package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/scope"
)

// TestPriority: politeness.priority reaches the crawl's config, crawl.yaml keeps it for a
// resumed run, and invalid settings stop amber before the crawl.
func TestPriority(t *testing.T) {
	full := crawl.Priority{Levels: 3, Default: 3, Seeds: 1, Pick: "wrr", Shares: map[int]int{1: 10, 2: 5},
		Rules: []crawl.PriorityRule{
			{Level: 1, Match: []scope.Rule{{Host: "www.example.com"}, {Contains: "/news/"}}},
			{Level: 2, Match: []scope.Rule{{Regex: `.*\.pdf`, Host: "example.com"}}},
		}}
	tests := []struct {
		name    string
		yaml    string
		want    crawl.Priority
		wantErr bool
	}{
		{"full", `politeness:
  priority:
    levels: 3
    default: 3
    seeds: 1
    pick: wrr
    shares: {1: 10, 2: 5}
    rules:
      - {level: 1, match: ["host:www.example.com", {contains: /news/}]}
      - {level: 2, match: [{regex: '.*\.pdf', host: example.com}]}
`, full, false},
		{"pri", "politeness: {priority: {levels: 2, pick: pri}}\n", crawl.Priority{Levels: 2, Pick: "pri"}, false},
		{"none", "", crawl.Priority{}, false},
		{"unknown pick", "politeness: {priority: {levels: 2, pick: fifo}}\n", crawl.Priority{}, true},
		{"level above levels", "politeness: {priority: {levels: 2, rules: [{level: 3, match: [host:a.example]}]}}\n", crawl.Priority{}, true},
		{"bad rule", "politeness: {priority: {levels: 2, rules: [{level: 1, match: [\"nokind\"]}]}}\n", crawl.Priority{}, true},
		{"unknown key", "politeness: {priority: {levels: 2, order: pri}}\n", crawl.Priority{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			file := writeFile(t, tmp, "c.yaml", "seeds: [http://www.example.com/]\n"+tt.yaml)
			a, err := parseCrawlArgs([]string{"--dir", filepath.Join(tmp, "crawl"), "--config", file})
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := buildConfig(a)
			var c crawl.Config
			if err == nil {
				c, err = crawlConfig(cfg, a)
			}
			if err == nil {
				err = c.Validate()
			}
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Priority); diff != "" {
				t.Errorf("crawl config (-want +got):\n%s", diff)
			}
			_, back := readBack(t, c)
			if diff := cmp.Diff(tt.want, back.Priority); diff != "" {
				t.Errorf("crawl.yaml read back (-want +got):\n%s", diff)
			}
		})
	}
}
