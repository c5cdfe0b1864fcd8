package config

import (
	"fmt"

	"github.com/amber-crawler/amber/scope"
)

// Priority sets priority levels of the crawl's queue (politeness.priority; FAST's
// workqueue_priority; crawl.Priority has the details): every queued URL has a level, 1 (the
// highest) to levels, and claims choose among the levels by pick.
type Priority struct {
	// Levels is the number of levels; 0 or 1: one level (no priority levels).
	Levels int `yaml:"levels"`
	// Default is the level of a URL no rule takes (FAST's default). Default: 1.
	Default int `yaml:"default,omitempty"`
	// Seeds is the level of the seeds (FAST's start_uri_pri). Default: 1.
	Seeds int `yaml:"seeds,omitempty"`
	// Pick is how claims choose a level (FAST's pop_scheme): wrr (the default) in proportion
	// to shares, rr the levels in turn, pri the best level with a URL that can be fetched now.
	Pick string `yaml:"pick,omitempty"`
	// Shares are the weights of the levels under wrr, {level: share}; a level without one
	// has 1.
	Shares map[int]int `yaml:"shares,omitempty"`
	// Rules give levels to URLs: the first rule one of whose match rules (scope rules, as
	// written in scope.block) takes a URL gives it its level.
	Rules []PriorityRule `yaml:"rules,omitempty"`
}

// PriorityRule is one rule of Priority.Rules.
type PriorityRule struct {
	Level int        `yaml:"level"`
	Match []RuleSpec `yaml:"match"`
}

// Parsed returns the rules' match rules parsed, one list per rule; errors wrap ErrConfig and
// name the rule.
func (p Priority) Parsed() ([][]scope.Rule, error) {
	out := make([][]scope.Rule, len(p.Rules))
	for i, r := range p.Rules {
		rs, err := parseRules(r.Match, fmt.Sprintf("politeness.priority.rules[%d].match", i))
		if err != nil {
			return nil, err
		}
		out[i] = rs
	}
	return out, nil
}
