// Package timeslot reads weekly time slots and says which are in force at a given time: the
// crawl's delay schedule (FAST's variable_delay), where a slot sets the delay between requests
// to a host, or suspends the crawl, on some days between two times of day.
//
// A slot is written in one of two forms:
//   - times of day, "09:00" to "17:00", on some days (Days; none: every day). A slot whose end
//     is not after its start runs past midnight into the next day ("22:00" to "06:00"); "24:00"
//     is the end of the day.
//   - times of the week, "Fri 18:00" to "Mon 08:00": one stretch from the first day and time to
//     the second, wrapping past Sunday when the second comes first in the week.
//
// Times are wall-clock times in the schedule's zone (Schedule.Zone; default the machine's
// local zone), minutes at most; a week starts on Monday.
package timeslot

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrSlot is wrapped by the errors of Parse.
var ErrSlot = errors.New("timeslot: invalid time slot")

const (
	day  = 24 * 60 // minutes in a day
	week = 7 * day // minutes in a week
	none = -1      // no day given
)

// Span is a stretch of the week in minutes from Monday 00:00: Start <= minute < End, with
// 0 <= Start < End <= 7*24*60.
type Span struct{ Start, End int }

// Slot is one slot of a schedule: where it is in the week, and what it sets.
type Slot struct {
	Name    string        // the slot as written ("mon,wed 09:00-17:00", "Fri 18:00-Mon 08:00"), for events
	Spans   []Span        // where the slot is in force
	Delay   time.Duration // the delay between requests to a host while it is in force
	Suspend bool          // no request at all while it is in force (Delay is then unused)
}

// Parse reads a slot from days (names such as "mon" or "Monday", any case; none: every day)
// and from and to, each "HH:MM" (also "HH" and FAST's "HH.MM"), or both "DAY HH:MM" (also
// "DAY:HH:MM", FAST's "DAY:HH.MM" and "DAY:HH") without days. Errors wrap ErrSlot.
func Parse(days []string, from, to string) (Slot, error) {
	fd, fm, err := parseTime(from, false)
	if err != nil {
		return Slot{}, err
	}
	td, tm, err := parseTime(to, true)
	if err != nil {
		return Slot{}, err
	}
	s := Slot{Name: from + "-" + to}
	if len(days) > 0 {
		s.Name = strings.Join(days, ",") + " " + s.Name
	}
	switch {
	case (fd == none) != (td == none):
		return Slot{}, fmt.Errorf("%w: %q to %q: give a day with both times or with neither", ErrSlot, from, to)
	case fd != none:
		if len(days) > 0 {
			return Slot{}, fmt.Errorf("%w: %q to %q: days with times of the week", ErrSlot, from, to)
		}
		start, end := fd*day+fm, td*day+tm
		if start == end {
			return Slot{}, fmt.Errorf("%w: %q to %q: an empty slot", ErrSlot, from, to)
		}
		s.Spans = wrap(start, end)
		return s, nil
	}
	if fm == tm {
		return Slot{}, fmt.Errorf("%w: %q to %q: an empty slot (00:00 to 24:00 is a whole day)", ErrSlot, from, to)
	}
	ds := []int{0, 1, 2, 3, 4, 5, 6}
	if len(days) > 0 {
		ds = ds[:0]
		for _, name := range days {
			d, ok := dayNumber(name)
			if !ok {
				return Slot{}, fmt.Errorf("%w: day %q (want mon, tue, wed, thu, fri, sat or sun)", ErrSlot, name)
			}
			if !slices.Contains(ds, d) {
				ds = append(ds, d)
			}
		}
	}
	for _, d := range ds {
		end := d*day + tm
		if tm <= fm {
			end += day // past midnight
		}
		s.Spans = append(s.Spans, wrap(d*day+fm, end)...)
	}
	return s, nil
}

// wrap makes the spans of the stretch from start to end (minutes of the week; end may be
// past the week's end, or before start: the stretch wraps past Sunday).
func wrap(start, end int) []Span {
	if end <= start {
		end += week
	}
	if end <= week {
		return []Span{{start, end}}
	}
	return []Span{{start, week}, {0, end - week}}
}

var dayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// dayNumber is the day of the week of a name (0 Monday), written as its first three letters or
// in full, in any case.
func dayNumber(name string) (int, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	for i, d := range dayNames {
		if len(n) >= 3 && strings.HasPrefix(d, n) && (len(n) == 3 || n == d) {
			return i, true
		}
	}
	return 0, false
}

// parseTime reads "[DAY( |:)]HH[(:|.)MM]": the day (none when absent) and the minute of the
// day. 24:00 is accepted where end is set.
func parseTime(s string, end bool) (int, int, error) {
	bad := func() (int, int, error) {
		return 0, 0, fmt.Errorf("%w: time %q (want HH:MM, or DAY HH:MM such as Mon 09:00)", ErrSlot, s)
	}
	t := strings.TrimSpace(s)
	d := none
	if len(t) > 3 && (t[3] == ' ' || t[3] == ':') {
		if n, ok := dayNumber(t[:3]); ok {
			d, t = n, strings.TrimSpace(t[4:])
		}
	}
	hh, mm, found := strings.Cut(t, ":")
	if !found {
		hh, mm, found = strings.Cut(t, ".")
	}
	if !found {
		mm = "00"
	}
	h, err1 := strconv.Atoi(hh)
	m, err2 := strconv.Atoi(mm)
	if err1 != nil || err2 != nil || len(hh) == 0 || len(hh) > 2 || len(mm) != 2 || h < 0 || m < 0 || m > 59 ||
		h > 24 || (h == 24 && (m != 0 || !end)) {
		return bad()
	}
	return d, h*60 + m, nil
}

// Schedule is a crawl's delay schedule: its slots, in a time zone.
type Schedule struct {
	Slots []Slot
	Zone  *time.Location // the zone of the slots' times; nil: time.Local
}

// State is what a schedule sets at one time.
type State struct {
	Slots   []int         // the indexes of the slots in force, in order; none: the crawl's own delay
	Suspend bool          // a slot in force suspends the crawl
	Delay   time.Duration // the longest delay of the slots in force (0 when none is, or Suspend)
	Until   time.Time     // when the slots in force may next change; zero without slots
}

// Active reports whether a slot is in force.
func (st State) Active() bool { return len(st.Slots) > 0 }

// Equal reports whether st and o set the same slots (whatever their Until).
func (st State) Equal(o State) bool {
	return slices.Equal(st.Slots, o.Slots) && st.Suspend == o.Suspend && st.Delay == o.Delay
}

// Names are the names of the slots in force, joined with "; ".
func (s Schedule) Names(st State) string {
	var names []string
	for _, i := range st.Slots {
		names = append(names, s.Slots[i].Name)
	}
	return strings.Join(names, "; ")
}

// At returns what the schedule sets at t. Where slots overlap, suspend wins, then the longest
// delay: the politer setting.
func (s Schedule) At(t time.Time) State {
	if len(s.Slots) == 0 {
		return State{}
	}
	zone := s.Zone
	if zone == nil {
		zone = time.Local
	}
	lt := t.In(zone)
	wd := (int(lt.Weekday()) + 6) % 7 // Monday 0
	// The minute of the week by the wall clock.
	pos := wd*day + lt.Hour()*60 + lt.Minute()
	var st State
	next := -1 // the first boundary after pos, in minutes of the week (may exceed a week)
	for i, sl := range s.Slots {
		in := false
		for _, sp := range sl.Spans {
			if sp.Start <= pos && pos < sp.End {
				in = true
			}
			for _, b := range []int{sp.Start, sp.End} {
				if b <= pos {
					b += week
				}
				if next < 0 || b < next {
					next = b
				}
			}
		}
		if !in {
			continue
		}
		st.Slots = append(st.Slots, i)
		if sl.Suspend {
			st.Suspend = true
		} else if sl.Delay > st.Delay {
			st.Delay = sl.Delay
		}
	}
	if st.Suspend {
		st.Delay = 0
	}
	monday := time.Date(lt.Year(), lt.Month(), lt.Day()-wd, 0, 0, 0, 0, zone)
	st.Until = time.Date(monday.Year(), monday.Month(), monday.Day()+next/day, (next%day)/60, next%60, 0, 0, zone)
	if !st.Until.After(t) {
		// A wall-clock time the zone skips (a DST gap): look again a minute on.
		st.Until = t.Truncate(time.Minute).Add(time.Minute)
	}
	return st
}
