package config

import (
	"fmt"
	"time"

	"github.com/amber-crawler/amber/timeslot"
)

// DelaySlot is one slot of politeness.delay_schedule (FAST's variable_delay): from and to are
// times of day ("09:00", "17:30", "24:00"; a slot whose end is not after its start runs past
// midnight) on the days listed (mon ... sun; none: every day), or both times of the week
// ("Fri 18:00", "Mon 08:00") without days. A slot sets either a delay or suspend.
type DelaySlot struct {
	Days []string `yaml:"days,omitempty,flow"`
	From string   `yaml:"from"`
	To   string   `yaml:"to"`
	// Delay is the delay between requests to a host while the slot is in force, in place
	// of host_delay (robots.txt Crawl-delay still raises it; host_delays still replace it).
	Delay *time.Duration `yaml:"delay,omitempty"`
	// Suspend fetches nothing while the slot is in force.
	Suspend bool `yaml:"suspend,omitempty"`
}

// Schedule builds the delay schedule of politeness.delay_schedule, in
// politeness.delay_schedule_zone (an IANA zone name such as Europe/Oslo, or UTC; empty: the
// machine's local zone). Errors name the slot.
func (p Politeness) Schedule() (timeslot.Schedule, error) {
	var s timeslot.Schedule
	if p.DelayScheduleZone != "" {
		z, err := time.LoadLocation(p.DelayScheduleZone)
		if err != nil {
			return s, fmt.Errorf("%w: delay_schedule_zone %q: %v", ErrConfig, p.DelayScheduleZone, err)
		}
		s.Zone = z
	}
	for i, d := range p.DelaySchedule {
		where := fmt.Sprintf("delay_schedule[%d]", i)
		sl, err := timeslot.Parse(d.Days, d.From, d.To)
		if err != nil {
			return s, fmt.Errorf("%w: %s: %w", ErrConfig, where, err)
		}
		switch {
		case d.Suspend == (d.Delay != nil):
			return s, fmt.Errorf("%w: %s (%s): want one of delay and suspend", ErrConfig, where, sl.Name)
		case d.Delay != nil && *d.Delay < 0:
			return s, fmt.Errorf("%w: %s (%s): negative delay", ErrConfig, where, sl.Name)
		case d.Delay != nil:
			sl.Delay = *d.Delay
		}
		sl.Suspend = d.Suspend
		s.Slots = append(s.Slots, sl)
	}
	return s, nil
}
