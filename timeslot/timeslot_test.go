package timeslot

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	const mon, tue, sun = 0, day, 6 * day
	tests := []struct {
		name     string
		days     []string
		from, to string
		want     []Span
		wantErr  bool
	}{
		{"every day", nil, "09:00", "17:00", []Span{
			{mon + 540, mon + 1020}, {tue + 540, tue + 1020}, {2*day + 540, 2*day + 1020}, {3*day + 540, 3*day + 1020},
			{4*day + 540, 4*day + 1020}, {5*day + 540, 5*day + 1020}, {sun + 540, sun + 1020}}, false},
		{"days", []string{"Mon", "tuesday", "mon"}, "9", "17.30", []Span{{mon + 540, mon + 1050}, {tue + 540, tue + 1050}}, false},
		{"past midnight", []string{"mon"}, "22:00", "06:00", []Span{{mon + 1320, tue + 360}}, false},
		{"past midnight on Sunday wraps to Monday", []string{"sun"}, "22:00", "06:00", []Span{{sun + 1320, week}, {0, 360}}, false},
		{"whole day", []string{"sat"}, "00:00", "24:00", []Span{{5 * day, 6 * day}}, false},
		{"FAST form", nil, "Wed:09", "Wed:19", []Span{{2*day + 540, 2*day + 1140}}, false},
		{"FAST form with minutes", nil, "Mon:21.00", "Mon:22.30", []Span{{1260, 1350}}, false},
		{"week form across the weekend", nil, "Fri 18:00", "Mon 08:00", []Span{{4*day + 1080, week}, {0, 480}}, false},
		{"week form, to the end of Sunday", nil, "Sat 00:00", "Sun 24:00", []Span{{5 * day, week}}, false},
		{"empty", nil, "08:00", "08:00", nil, true},
		{"empty week form", nil, "Mon 08:00", "Mon 08:00", nil, true},
		{"day on one side only", nil, "Mon 08:00", "17:00", nil, true},
		{"days with the week form", []string{"mon"}, "Mon 08:00", "Mon 17:00", nil, true},
		{"unknown day", []string{"mo"}, "08:00", "17:00", nil, true},
		{"not a day", []string{"monk"}, "08:00", "17:00", nil, true},
		{"hour 25", nil, "08:00", "25:00", nil, true},
		{"minute 60", nil, "08:60", "17:00", nil, true},
		{"24:00 as a start", nil, "24:00", "08:00", nil, true},
		{"24:30", nil, "08:00", "24:30", nil, true},
		{"garbage", nil, "eight", "17:00", nil, true},
		{"one-digit minutes", nil, "08:0", "17:00", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.days, tt.from, tt.to)
			if tt.wantErr {
				if !errors.Is(err, ErrSlot) {
					t.Fatalf("Parse = %+v, %v; want an error wrapping ErrSlot", s, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.Spans); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
		})
	}
}

func mustParse(t *testing.T, days []string, from, to string, delay time.Duration, suspend bool) Slot {
	t.Helper()
	s, err := Parse(days, from, to)
	if err != nil {
		t.Fatal(err)
	}
	s.Delay, s.Suspend = delay, suspend
	return s
}

func TestAt(t *testing.T) {
	oslo, err := time.LoadLocation("Europe/Oslo")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	// §3.7 of the FAST specification: Wednesday 09-19 a delay of 20s, Monday 09-17 suspended;
	// with a night slot past midnight and an overlapping one.
	sched := Schedule{Zone: time.UTC, Slots: []Slot{
		mustParse(t, nil, "Wed:09", "Wed:19", 20*time.Second, false),
		mustParse(t, nil, "Mon:09", "Mon:17", 0, true),
		mustParse(t, []string{"fri"}, "22:00", "06:00", 2*time.Second, false),
		mustParse(t, []string{"wed"}, "18:00", "20:00", 30*time.Second, false),
		mustParse(t, []string{"wed"}, "18:30", "19:00", 0, true),
	}}
	at := func(d time.Weekday, hh, mm int) time.Time {
		// The week of Monday 23 November 2026.
		return time.Date(2026, 11, 23+(int(d)+6)%7, hh, mm, 0, 0, time.UTC)
	}
	tests := []struct {
		name string
		t    time.Time
		want State
	}{
		{"Monday before the suspension", at(time.Monday, 8, 59), State{Until: at(time.Monday, 9, 0)}},
		{"Monday suspended", at(time.Monday, 9, 0), State{Slots: []int{1}, Suspend: true, Until: at(time.Monday, 17, 0)}},
		{"Monday after", at(time.Monday, 17, 0), State{Until: at(time.Wednesday, 9, 0)}},
		{"Wednesday slot", at(time.Wednesday, 12, 0), State{Slots: []int{0}, Delay: 20 * time.Second, Until: at(time.Wednesday, 18, 0)}},
		{"overlap: the longest delay", at(time.Wednesday, 18, 10), State{Slots: []int{0, 3}, Delay: 30 * time.Second, Until: at(time.Wednesday, 18, 30)}},
		{"overlap: suspend wins", at(time.Wednesday, 18, 45), State{Slots: []int{0, 3, 4}, Suspend: true, Until: at(time.Wednesday, 19, 0)}},
		{"after the Wednesday slot, the later one goes on", at(time.Wednesday, 19, 30), State{Slots: []int{3}, Delay: 30 * time.Second, Until: at(time.Wednesday, 20, 0)}},
		{"Friday night", at(time.Friday, 23, 0), State{Slots: []int{2}, Delay: 2 * time.Second, Until: at(time.Saturday, 6, 0)}},
		{"Saturday morning: past midnight", at(time.Saturday, 5, 59), State{Slots: []int{2}, Delay: 2 * time.Second, Until: at(time.Saturday, 6, 0)}},
		{"Sunday: next is Monday's", at(time.Sunday, 12, 0), State{Until: at(time.Monday, 9, 0).AddDate(0, 0, 7)}},
		{"another zone's clock", time.Date(2026, 11, 23, 10, 0, 0, 0, oslo), State{Slots: []int{1}, Suspend: true, Until: at(time.Monday, 17, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sched.At(tt.t)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("At(%v) (-want +got):\n%s", tt.t, diff)
			}
		})
	}
	// The same slots in Oslo's time: Monday 09:00 in Oslo is 08:00 UTC.
	sched.Zone = oslo
	if got := sched.At(at(time.Monday, 8, 30)); !got.Suspend {
		t.Errorf("At(Monday 08:30 UTC) in Oslo's time = %+v, want suspended (09:30 in Oslo)", got)
	}
	if got := (Schedule{}).At(at(time.Monday, 9, 0)); got.Active() || !got.Until.IsZero() {
		t.Errorf("At of an empty schedule = %+v, want nothing", got)
	}
}

// TestAtDST: a slot's end on the day the clocks change is the wall-clock time of that day.
func TestAtDST(t *testing.T) {
	oslo, err := time.LoadLocation("Europe/Oslo")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	sched := Schedule{Zone: oslo, Slots: []Slot{mustParse(t, []string{"sun"}, "01:00", "05:00", time.Second, false)}}
	// 29 March 2026: clocks go from 02:00 to 03:00 in Oslo.
	got := sched.At(time.Date(2026, 3, 29, 1, 30, 0, 0, oslo))
	if want := time.Date(2026, 3, 29, 5, 0, 0, 0, oslo); !got.Until.Equal(want) || got.Delay != time.Second {
		t.Errorf("At = %+v, want a delay of 1s until %v", got, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("mon", "09:00", "17:00")
	f.Add("", "Fri 18:00", "Mon 08:00")
	f.Add("", "Wed:09", "Wed:19")
	f.Fuzz(func(t *testing.T, d, from, to string) {
		var days []string
		if d != "" {
			days = []string{d}
		}
		s, err := Parse(days, from, to)
		if err != nil {
			return
		}
		for _, sp := range s.Spans {
			if sp.Start < 0 || sp.Start >= sp.End || sp.End > week {
				t.Fatalf("Parse(%q, %q, %q): span %+v", d, from, to, sp)
			}
		}
		sched := Schedule{Zone: time.UTC, Slots: []Slot{s}}
		now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		if st := sched.At(now); !st.Until.After(now) {
			t.Fatalf("Until %v not after %v", st.Until, now)
		}
	})
}
