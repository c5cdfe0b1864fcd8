package main

import (
	"fmt"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// overlayPriority sets the crawl's priority levels from the YAML model (politeness.priority).
func overlayPriority(c *crawl.Config, p config.Politeness) error {
	if p.Priority == nil {
		return nil
	}
	rules, err := p.Priority.Parsed()
	if err != nil {
		return fmt.Errorf("politeness: %w", err)
	}
	pr := crawl.Priority{Levels: p.Priority.Levels, Default: p.Priority.Default, Seeds: p.Priority.Seeds,
		Pick: p.Priority.Pick, Shares: p.Priority.Shares}
	for i, r := range p.Priority.Rules {
		pr.Rules = append(pr.Rules, crawl.PriorityRule{Level: r.Level, Match: rules[i]})
	}
	c.Priority = pr
	return nil
}
