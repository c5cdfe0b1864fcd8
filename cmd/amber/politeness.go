package main

import (
	"fmt"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// overlaySchedule sets the delay schedule and the site bounds of the YAML model
// (politeness.delay_schedule, delay_schedule_zone, max_sites, max_inter_docs).
func overlaySchedule(c *crawl.Config, p config.Politeness) error {
	s, err := p.Schedule()
	if err != nil {
		return fmt.Errorf("politeness: %w", err)
	}
	if len(s.Slots) > 0 {
		c.DelaySchedule = s
	}
	if p.MaxSites != 0 {
		c.MaxSites = p.MaxSites
	}
	if p.MaxInterDocs != 0 {
		c.MaxInterDocs = p.MaxInterDocs
	}
	return overlayPriority(c, p)
}

// recordSchedule keeps in the YAML model the delay schedule it was given (prev, the model's
// politeness before recordEffective rebuilt it: only the model sets a schedule) and the site
// bounds the crawl runs with.
func recordSchedule(cfg *config.File, c crawl.Config, prev config.Politeness) {
	cfg.Politeness.DelaySchedule, cfg.Politeness.DelayScheduleZone = prev.DelaySchedule, prev.DelayScheduleZone
	cfg.Politeness.MaxSites, cfg.Politeness.MaxInterDocs = c.MaxSites, c.MaxInterDocs
	cfg.Politeness.Priority = prev.Priority // only the model sets priority levels
}
