package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
		wantErr bool
	}{
		{"yaml", yaml, nil, want{sched, "UTC", 4, 50}, false},
		{"flags win", yaml, []string{"--max-sites", "2", "--max-inter-docs", "10"}, want{sched, "UTC", 2, 10}, false},
		{"flags alone", "", []string{"--max-sites", "128"}, want{nil, "", 128, 0}, false},
		{"negative flag", "", []string{"--max-sites", "-1"}, want{}, true},
		{"bad slot", "politeness: {delay_schedule: [{from: \"25:00\", to: \"17:00\", delay: 1s}]}", nil, want{}, true},
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
			tmp := t.TempDir()
			file := writeFile(t, tmp, "c.yaml", "seeds: [http://www.example.com/]\n"+tt.yaml)
			a, err := parseCrawlArgs(append([]string{"--dir", filepath.Join(tmp, "crawl"), "--config", file}, tt.flags...))
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
			if diff := cmp.Diff(tt.want, describe(c)); diff != "" {
				t.Errorf("crawl config (-want +got):\n%s", diff)
			}
			_, back := readBack(t, c)
			if diff := cmp.Diff(tt.want, describe(back)); diff != "" {
				t.Errorf("crawl.yaml read back (-want +got):\n%s", diff)
			}
			if len(c.DelaySchedule.Slots) > 0 {
				// The §3.7 Monday slot suspends at 10:00 UTC.
				if st := c.DelaySchedule.At(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)); !st.Suspend {
					t.Errorf("At(Monday 10:00 UTC) = %+v, want suspended", st)
				}
			}
		})
	}
}
