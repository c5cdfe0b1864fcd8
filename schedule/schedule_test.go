package schedule_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/schedule"
	"github.com/amber-crawler/amber/timeslot"
)

// monday is a Monday, midnight UTC.
var monday = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

func at(days, hours, minutes int) time.Time {
	return monday.Add(time.Duration(days)*24*time.Hour + time.Duration(hours)*time.Hour + time.Duration(minutes)*time.Minute)
}

func slot(t *testing.T, days []string, from, to string, delay time.Duration, suspend bool) timeslot.Slot {
	t.Helper()
	s, err := timeslot.Parse(days, from, to)
	if err != nil {
		t.Fatal(err)
	}
	s.Delay, s.Suspend = delay, suspend
	return s
}

// TestValidate: the first slot that is not one is named.
func TestValidate(t *testing.T) {
	ok := slot(t, nil, "09:00", "17:00", time.Second, false)
	negative := ok
	negative.Delay = -time.Second
	tests := []struct {
		name  string
		sched schedule.Schedule
		field string // "" for valid
	}{
		{"no slots", schedule.Schedule{}, ""},
		{"valid", schedule.Schedule{Slots: []timeslot.Slot{ok, slot(t, nil, "Fri 18:00", "Mon 08:00", 0, true)}}, ""},
		{"a slot without time", schedule.Schedule{Slots: []timeslot.Slot{{Name: "x", Delay: time.Second}}}, "Slots[0]"},
		{"a negative delay", schedule.Schedule{Slots: []timeslot.Slot{ok, negative}}, "Slots[1]"},
		{"the first of two", schedule.Schedule{Slots: []timeslot.Slot{ok, {}, negative}}, "Slots[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schedule.Validate(tt.sched)
			var fe *chain.FieldError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field):
				t.Errorf("Validate() = %v, want a *chain.FieldError for %s", err, tt.field)
			}
		})
	}
}

// fakeClock is a clock that moves only when the test moves it; armed receives each time the
// follower waits on it.
type fakeClock struct {
	armed chan struct{}

	mu    sync.Mutex // guards now and waits
	now   time.Time
	waits []fakeWait
}

type fakeWait struct {
	at time.Time
	ch chan time.Time
}

func newClock(now time.Time) *fakeClock {
	return &fakeClock{now: now, armed: make(chan struct{}, 100)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
	} else {
		c.waits = append(c.waits, fakeWait{at: c.now.Add(d), ch: ch})
	}
	c.armed <- struct{}{}
	return ch
}

// set moves the clock to t and fires the waits that are due.
func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	kept := c.waits[:0]
	for _, w := range c.waits {
		if w.at.After(t) {
			kept = append(kept, w)
			continue
		}
		w.ch <- t
	}
	c.waits = kept
}

// waitArmed waits until the follower waits on the clock again: what it did before is done.
func (c *fakeClock) waitArmed(t *testing.T) {
	t.Helper()
	select {
	case <-c.armed:
	case <-time.After(time.Minute): // a guard, not a measure: the follower should be at once
		t.Fatal("the follower did not wait on the clock")
	}
}

// calls records what the follower set, in order: "delay D" and "suspend B".
type calls struct {
	mu sync.Mutex // guards got
	// got are the calls since the last take.
	got []string
}

func (c *calls) setDelay(d time.Duration) { c.add("delay " + d.String()) }
func (c *calls) suspend(s bool)           { c.add(fmt.Sprint("suspend ", s)) }

func (c *calls) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, s)
}

func (c *calls) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.got
	c.got = nil
	return got
}

// eventLog reads the events of a file, each new one once.
type eventLog struct {
	path string
	seen int
}

// take returns the events written since the last take, each as "REASON SLOT [suspend|delay
// D] until UNTIL", and checks the fields every delay-schedule event has.
func (l *eventLog) take(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		if e["event.action"] != schedule.ActionDelaySchedule || e["event.type"] != "change" || e["message"] == nil {
			t.Errorf("event %v: want action %s, type change and a message", e, schedule.ActionDelaySchedule)
		}
		s := fmt.Sprint(e["event.reason"], " ", e["labels.slot"])
		if e["labels.suspend"] == "true" {
			s += " suspend"
		}
		if d, ok := e["labels.delay"]; ok {
			s += fmt.Sprint(" delay ", d)
		}
		if u, ok := e["labels.until"]; ok {
			s += fmt.Sprint(" until ", u)
		}
		all = append(all, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	got := all[l.seen:]
	l.seen = len(all)
	return got
}

// follower is a Follower of sched on a fake clock at now, with its recorders.
type follower struct {
	f      *schedule.Follower
	clk    *fakeClock
	calls  *calls
	events *eventLog
}

func newFollower(t *testing.T, sched schedule.Schedule, now time.Time) *follower {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	ev, err := report.OpenEvents(path, report.EventsConfig{CrawlID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	fl := &follower{clk: newClock(now), calls: &calls{}, events: &eventLog{path: path}}
	fl.f = schedule.New(sched, schedule.Deps{SetDelay: fl.calls.setDelay, Suspend: fl.calls.suspend, Base: 2 * time.Second,
		Events: ev, Log: slog.New(slog.DiscardHandler), Clock: fl.clk})
	return fl
}

// start starts the follower until the end of the test.
func (fl *follower) start(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	wait, err := fl.f.Start(ctx)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		wait()
	})
}

// status is Status as one string.
func (fl *follower) status() string {
	suspended, s := fl.f.Status()
	if suspended {
		return "suspended: " + s
	}
	return s
}

// weekSchedule: Monday's working hours suspend the crawl; its evening has a delay of 10ms; a
// whole-Wednesday slot of 1s overlaps a Wednesday noon slot of 5s.
func weekSchedule(t *testing.T) schedule.Schedule {
	return schedule.Schedule{Zone: time.UTC, Slots: []timeslot.Slot{
		slot(t, nil, "Mon 09:00", "Mon 17:00", 0, true),
		slot(t, []string{"mon"}, "17:00", "23:00", 10*time.Millisecond, false),
		slot(t, []string{"wed"}, "00:00", "24:00", time.Second, false),
		slot(t, []string{"wed"}, "12:00", "13:00", 5*time.Second, false),
	}}
}

// TestStart: Start applies the slots in force at once, before it returns: the delay (the
// longest of the slots, or the crawl's own), the suspension, and a slot-start event.
func TestStart(t *testing.T) {
	tests := []struct {
		name   string
		now    time.Time
		calls  []string
		events []string
		status string
	}{
		{"no slot in force", at(0, 8, 0), []string{"delay 2s", "suspend false"}, nil, ""},
		{"suspended", at(0, 10, 0), []string{"suspend true"},
			[]string{"slot-start Mon 09:00-Mon 17:00 suspend until 2026-11-23T17:00:00Z"},
			"suspended: Mon 09:00-Mon 17:00: suspended until Mon 17:00 UTC"},
		{"a delay", at(0, 18, 30), []string{"delay 10ms", "suspend false"},
			[]string{"slot-start mon 17:00-23:00 delay 10ms until 2026-11-23T23:00:00Z"},
			"mon 17:00-23:00: delay 10ms until Mon 23:00 UTC"},
		{"overlapping: the longest delay", at(2, 12, 30), []string{"delay 5s", "suspend false"},
			[]string{"slot-start wed 00:00-24:00; wed 12:00-13:00 delay 5s until 2026-11-25T13:00:00Z"},
			"wed 00:00-24:00; wed 12:00-13:00: delay 5s until Wed 13:00 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fl := newFollower(t, weekSchedule(t), tt.now)
			fl.start(t)
			if diff := cmp.Diff(tt.calls, fl.calls.take(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.events, fl.events.take(t), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if got := fl.status(); got != tt.status {
				t.Errorf("Status = %q, want %q", got, tt.status)
			}
		})
	}
}

// TestFollow: the follower follows the slots as they start and end (and as the clock is set
// anew): each change sets the delay and the suspension and writes the events of the slots
// that ended and started; a look with nothing changed does nothing.
func TestFollow(t *testing.T) {
	fl := newFollower(t, weekSchedule(t), at(0, 8, 0))
	fl.start(t)
	fl.clk.waitArmed(t) // the follower's first wait
	fl.calls.take()
	steps := []struct {
		name   string
		now    time.Time
		calls  []string
		events []string
		status string
	}{
		{"a minute later: nothing changed", at(0, 8, 1), nil, nil, ""},
		{"working hours: suspended", at(0, 9, 0), []string{"suspend true"},
			[]string{"slot-start Mon 09:00-Mon 17:00 suspend until 2026-11-23T17:00:00Z"},
			"suspended: Mon 09:00-Mon 17:00: suspended until Mon 17:00 UTC"},
		{"still suspended", at(0, 9, 30), nil, nil, "suspended: Mon 09:00-Mon 17:00: suspended until Mon 17:00 UTC"},
		{"evening: suspension off, a delay", at(0, 17, 0), []string{"delay 10ms", "suspend false"},
			[]string{"slot-end Mon 09:00-Mon 17:00", "slot-start mon 17:00-23:00 delay 10ms until 2026-11-23T23:00:00Z"},
			"mon 17:00-23:00: delay 10ms until Mon 23:00 UTC"},
		{"night: the crawl's own delay", at(0, 23, 0), []string{"delay 2s", "suspend false"},
			[]string{"slot-end mon 17:00-23:00"}, ""},
		{"the clock set to Wednesday noon", at(2, 12, 10), []string{"delay 5s", "suspend false"},
			[]string{"slot-start wed 00:00-24:00; wed 12:00-13:00 delay 5s until 2026-11-25T13:00:00Z"},
			"wed 00:00-24:00; wed 12:00-13:00: delay 5s until Wed 13:00 UTC"},
		{"one of two ends", at(2, 13, 0), []string{"delay 1s", "suspend false"},
			[]string{"slot-end wed 00:00-24:00; wed 12:00-13:00", "slot-start wed 00:00-24:00 delay 1s until 2026-11-26T00:00:00Z"},
			"wed 00:00-24:00: delay 1s until Thu 00:00 UTC"},
		{"Thursday", at(3, 0, 0), []string{"delay 2s", "suspend false"}, []string{"slot-end wed 00:00-24:00"}, ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			fl.clk.set(st.now)
			fl.clk.waitArmed(t)
			if diff := cmp.Diff(st.calls, fl.calls.take(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(st.events, fl.events.take(t), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if got := fl.status(); got != st.status {
				t.Errorf("Status = %q, want %q", got, st.status)
			}
		})
	}
}

// TestNoSlots: a schedule without slots starts nothing: no delay set, no suspension, no event,
// no wait on the clock, and no slot in the status.
func TestNoSlots(t *testing.T) {
	fl := newFollower(t, schedule.Schedule{Zone: time.UTC}, at(0, 10, 0))
	fl.start(t)
	if got := fl.calls.take(); len(got) != 0 {
		t.Errorf("calls %v, want none", got)
	}
	if got := fl.events.take(t); len(got) != 0 {
		t.Errorf("events %v, want none", got)
	}
	select {
	case <-fl.clk.armed:
		t.Error("the follower waits on the clock without slots")
	default:
	}
	if got := fl.status(); got != "" {
		t.Errorf("Status = %q, want none", got)
	}
}

// TestStatusNil: a nil Follower has no slot in force.
func TestStatusNil(t *testing.T) {
	var f *schedule.Follower
	if suspended, s := f.Status(); suspended || s != "" {
		t.Errorf("Status() = %v, %q; want false, \"\"", suspended, s)
	}
}

// TestStartEventFails: an event that cannot be written fails Start.
func TestStartEventFails(t *testing.T) {
	ev, err := report.OpenEvents(filepath.Join(t.TempDir(), "events.jsonl"), report.EventsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ev.Close()
	var c calls
	f := schedule.New(weekSchedule(t), schedule.Deps{SetDelay: c.setDelay, Suspend: c.suspend, Events: ev,
		Log: slog.New(slog.DiscardHandler), Clock: newClock(at(0, 10, 0))})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if _, err := f.Start(ctx); !errors.Is(err, report.ErrEventsClosed) {
		t.Errorf("Start = %v, want %v", err, report.ErrEventsClosed)
	}
}

// TestMachineClock: without a Clock the follower follows the machine's.
func TestMachineClock(t *testing.T) {
	always := slot(t, nil, "00:00", "24:00", time.Second, false) // every day, all day
	var c calls
	ev, err := report.OpenEvents(filepath.Join(t.TempDir(), "events.jsonl"), report.EventsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	f := schedule.New(schedule.Schedule{Zone: time.UTC, Slots: []timeslot.Slot{always}},
		schedule.Deps{SetDelay: c.setDelay, Suspend: c.suspend, Events: ev, Log: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(t.Context())
	wait, err := f.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	wait()
	if diff := cmp.Diff([]string{"delay 1s", "suspend false"}, c.take()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if suspended, s := f.Status(); suspended || !strings.HasPrefix(s, "00:00-24:00: delay 1s until ") {
		t.Errorf("Status() = %v, %q; want the all-day slot's delay", suspended, s)
	}
}
