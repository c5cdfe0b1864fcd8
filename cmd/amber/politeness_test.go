package main

import (
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
)

// TestScheduleAndSites: politeness.delay_schedule, delay_schedule_zone, max_sites and
// max_inter_docs reach the crawl's config, the flags --max-sites and --max-inter-docs override
// them, and crawl.yaml keeps them for a resumed run.
func TestScheduleAndSites(t *testing.T) {
	const yaml = `politeness:
  delay_schedule_zone: UTC
  max_sites: 4
  max_inter_docs: 50
  delay_schedule:
    - {days: [wed], from: "09:00", to: "19:00", delay: 20s}
    - {from: "Mon 09:00", to: "Mon 17:00", suspend: true}
`
	type want struct {
		Slots                  []string
		Zone                   string
		MaxSites, MaxInterDocs int
	}
	sched := []string{"wed 09:00-19:00 delay 20s", "Mon 09:00-Mon 17:00 suspend"}
	tests := []struct {
		name    string
		yaml    string
		flags   []string
		want    want
		wantErr string
	}{
		{"yaml", yaml, nil, want{sched, "UTC", 4, 50}, ""},
		{"flags win", yaml, []string{"--max-sites", "2", "--max-inter-docs", "10"}, want{sched, "UTC", 2, 10}, ""},
		{"flags alone", "", []string{"--max-sites", "128"}, want{nil, "", 128, 0}, ""},
		{"negative flag", "", []string{"--max-sites", "-1"}, want{}, "MaxSites"},
		{"bad slot", "politeness: {delay_schedule: [{from: \"25:00\", to: \"17:00\", delay: 1s}]}", nil, want{}, "delay_schedule[0]"},
	}
	describe := func(c crawl.Config) want {
		w := want{MaxSites: c.MaxSites, MaxInterDocs: c.MaxInterDocs}
		for _, s := range c.DelaySchedule.Slots {
			d := " delay " + s.Delay.String()
			if s.Suspend {
				d = " suspend"
			}
			w.Slots = append(w.Slots, s.Name+d)
		}
		if c.DelaySchedule.Zone != nil {
			w.Zone = c.DelaySchedule.Zone.String()
		}
		return w
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkSetting(t, tt.yaml, tt.flags, tt.wantErr, tt.want, describe)
			if len(c.DelaySchedule.Slots) > 0 {
				// The §3.7 Monday slot suspends at 10:00 UTC.
				if st := c.DelaySchedule.At(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)); !st.Suspend {
					t.Errorf("At(Monday 10:00 UTC) = %+v, want suspended", st)
				}
			}
		})
	}
}
