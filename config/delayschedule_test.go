package config

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/timeslot"
)

// TestDelaySchedule: politeness.delay_schedule, its zone and the site bounds as YAML reads
// them, and the slots it refuses.
func TestDelaySchedule(t *testing.T) {
	type slot struct {
		Name    string
		Spans   int
		Delay   time.Duration
		Suspend bool
	}
	tests := []struct {
		name     string
		yaml     string
		want     []slot
		wantZone string
		wantErr  bool
	}{
		{"none", "politeness: {host_delay: 1s}", nil, "Local", false},
		{"days and a week stretch", `politeness:
  delay_schedule_zone: Europe/Oslo
  max_sites: 4
  max_inter_docs: 100
  delay_schedule:
    - {days: [mon, fri], from: "08:00", to: "17:00", delay: 5s}
    - {from: "Sat 00:00", to: "Mon 06:00", suspend: true}
    - {from: "22:00", to: "06:00", delay: 0s}
`, []slot{{"mon,fri 08:00-17:00", 2, 5 * time.Second, false}, {"Sat 00:00-Mon 06:00", 2, 0, true},
			{"22:00-06:00", 8, 0, false}}, "Europe/Oslo", false},
		{"UTC", `politeness: {delay_schedule_zone: UTC, delay_schedule: [{from: "Mon 09:00", to: "Mon 17:00", suspend: true}]}`,
			[]slot{{"Mon 09:00-Mon 17:00", 1, 0, true}}, "UTC", false},
		{"both delay and suspend", `politeness: {delay_schedule: [{from: "09:00", to: "17:00", delay: 1s, suspend: true}]}`, nil, "", true},
		{"neither", `politeness: {delay_schedule: [{from: "09:00", to: "17:00"}]}`, nil, "", true},
		{"negative delay", `politeness: {delay_schedule: [{from: "09:00", to: "17:00", delay: -1s}]}`, nil, "", true},
		{"bad time", `politeness: {delay_schedule: [{from: "9 o'clock", to: "17:00", delay: 1s}]}`, nil, "", true},
		{"bad day", `politeness: {delay_schedule: [{days: [someday], from: "09:00", to: "17:00", delay: 1s}]}`, nil, "", true},
		{"bad zone", `politeness: {delay_schedule_zone: Mars/Olympus, delay_schedule: [{from: "09:00", to: "17:00", delay: 1s}]}`, nil, "", true},
		{"unknown key", `politeness: {delay_schedule: [{from: "09:00", to: "17:00", delay: 1s, until: "18:00"}]}`, nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.yaml), "test.yaml")
			if tt.wantErr {
				if !errors.Is(err, ErrConfig) && !errors.Is(err, timeslot.ErrSlot) {
					t.Fatalf("Parse = %v, want an error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.Politeness.Schedule()
			if err != nil {
				t.Fatal(err)
			}
			var got []slot
			for _, sl := range s.Slots {
				got = append(got, slot{sl.Name, len(sl.Spans), sl.Delay, sl.Suspend})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("slots (-want +got):\n%s", diff)
			}
			zone := "Local"
			if s.Zone != nil {
				zone = s.Zone.String()
			}
			if zone != tt.wantZone {
				t.Errorf("zone %s, want %s", zone, tt.wantZone)
			}
		})
	}
	c, err := Parse([]byte("politeness: {max_sites: 4, max_inter_docs: 100}"), "test.yaml")
	if err != nil || c.Politeness.MaxSites != 4 || c.Politeness.MaxInterDocs != 100 {
		t.Errorf("max_sites, max_inter_docs = %+v, %v", c, err)
	}
}
