package main

import (
	"testing"

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
		wantErr string
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
`, full, ""},
		{"pri", "politeness: {priority: {levels: 2, pick: pri}}\n", crawl.Priority{Levels: 2, Pick: "pri"}, ""},
		{"none", "", crawl.Priority{}, ""},
		{"unknown pick", "politeness: {priority: {levels: 2, pick: fifo}}\n", crawl.Priority{}, "Priority.Pick"},
		{"level above levels", "politeness: {priority: {levels: 2, rules: [{level: 3, match: [host:a.example]}]}}\n", crawl.Priority{}, "Priority.Rules[0].Level"},
		{"bad rule", "politeness: {priority: {levels: 2, rules: [{level: 1, match: [\"nokind\"]}]}}\n", crawl.Priority{}, "priority.rules[0].match[0]"},
		{"unknown key", "politeness: {priority: {levels: 2, order: pri}}\n", crawl.Priority{}, "order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSetting(t, tt.yaml, nil, tt.wantErr, tt.want, func(c crawl.Config) crawl.Priority { return c.Priority })
		})
	}
}
