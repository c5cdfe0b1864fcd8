// Package schedule follows a crawl's delay schedule (FAST's variable_delay): time slots of the
// week that set the crawl's delay between requests to a host, or suspend the crawl. The slots
// are package timeslot's; a Follower applies the slots in force to the crawl's frontier (its
// delay) and claims (suspended or not), and changes them when slots start and end.
//
// The delay of a host is, from the strongest rule down:
//  1. a suspending slot in force: no URL is claimed at all (URLs claimed before the slot began
//     finish; the crawl's claims are kept: Ctrl-C and ctl stop end the run as always);
//  2. an operator's delay for the host (politeness.host_delays, amber ctl host-delay): it
//     replaces everything below, lower or higher;
//  3. the larger of the host's robots.txt Crawl-delay (unless ignored) and the crawl's delay;
//  4. the crawl's delay: the longest delay of the slots in force, or the configured delay
//     (politeness.host_delay) when none is.
//
// Slots are checked when they start and end (and every minute, so that a clock set anew is
// followed); each start and end is an event (ActionDelaySchedule) and a log line, and the live
// status says which slot is in force (Status).
package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/timeslot"
)

// ActionDelaySchedule is the action of the event written when slots of the delay schedule
// start or end (event.type change; event.reason slot-start or slot-end; labels.slot the
// slots, labels.delay the delay in force or labels.suspend "true", labels.until when it may
// change next, RFC 3339).
const ActionDelaySchedule = "delay-schedule"

// Schedule is a delay schedule: slots of the week and their time zone (see package timeslot).
// Where slots overlap, suspend wins, then the longest delay.
type Schedule = timeslot.Schedule

// Validate returns a *chain.FieldError for the first slot that is not one (a slot without a
// time, made otherwise than with timeslot.Parse; a negative delay).
func Validate(s Schedule) error {
	for i, sl := range s.Slots {
		field := fmt.Sprintf("Slots[%d]", i)
		switch {
		case len(sl.Spans) == 0:
			return &chain.FieldError{Field: field, Err: errors.New("no time (use timeslot.Parse)")}
		case sl.Delay < 0:
			return &chain.FieldError{Field: field, Err: errors.New("negative delay")}
		}
	}
	return nil
}

// Clock is the time a Follower follows: now, and a channel that receives once d has passed.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// recheck bounds the wait between two looks at the schedule, so that a wall clock set anew
// (or a machine that slept) is followed within this.
const recheck = time.Minute

// Deps is what a Follower acts on.
type Deps struct {
	// SetDelay sets the crawl's delay between requests to a host (frontier.Store.SetDelay).
	SetDelay func(d time.Duration)
	// Suspend suspends the crawl's claims (true) or lets them go on (false).
	Suspend func(bool)
	// Base is the crawl's own delay, in force when no slot is.
	Base time.Duration
	// Events receives the slots' events; Log their lines.
	Events *report.Events
	Log    *slog.Logger
	// Clock is the time followed; nil: the machine's.
	Clock Clock
}

// Follower follows one schedule. It is safe for concurrent use.
type Follower struct {
	sched Schedule
	deps  Deps

	mu    sync.Mutex // guards state
	state timeslot.State
}

// New returns a follower of sched (Validate checked it).
func New(sched Schedule, deps Deps) *Follower {
	if deps.Clock == nil {
		deps.Clock = realClock{}
	}
	return &Follower{sched: sched, deps: deps}
}

// Start applies the slots in force now, before any URL is claimed, and then follows the
// schedule until ctx ends. It does nothing without slots. The returned function waits for the
// follower's goroutine to end (after ctx). The error is an event that could not be written.
func (f *Follower) Start(ctx context.Context) (wait func(), err error) {
	if len(f.sched.Slots) == 0 {
		return func() {}, nil
	}
	clk := f.deps.Clock
	if err := f.apply(clk.Now()); err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			wait := min(f.get().Until.Sub(clk.Now()), recheck)
			select {
			case <-ctx.Done():
				return
			case <-clk.After(max(wait, 0)):
			}
			if err := f.apply(clk.Now()); err != nil {
				f.deps.Log.Error("delay schedule", "err", err)
			}
		}
	})
	return wg.Wait, nil
}

func (f *Follower) get() timeslot.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state
}

// apply sets what the schedule says at now: the crawl's delay, the suspension of claims; a
// change is an event and a log line.
func (f *Follower) apply(now time.Time) error {
	st := f.sched.At(now)
	f.mu.Lock()
	prev := f.state
	f.state = st
	f.mu.Unlock()
	if st.Equal(prev) && !prev.Until.IsZero() {
		return nil
	}
	// A suspension takes hold before the events that say so, a resumption after them: the
	// events never show a fetch before the change that let it happen, or after the one that
	// stopped it (TestCrawlDelaySchedule saw a fetch between a suspending slot's end and the
	// next slot's start).
	if st.Suspend {
		f.deps.Suspend(true)
	} else {
		delay := f.deps.Base
		if st.Active() {
			delay = st.Delay
		}
		f.deps.SetDelay(delay)
	}
	err := f.announce(prev, st)
	if !st.Suspend {
		f.deps.Suspend(false)
	}
	return err
}

// announce writes the events and log lines of the change from prev to st.
func (f *Follower) announce(prev, st timeslot.State) error {
	if prev.Active() {
		names := f.sched.Names(prev)
		f.deps.Log.Info("delay schedule: slot ended", "slot", names)
		if err := f.deps.Events.Event(report.Event{Action: ActionDelaySchedule, Type: "change", Reason: "slot-end",
			Message: "Delay schedule: " + names + " ended", Labels: map[string]string{"slot": names}}); err != nil {
			return fmt.Errorf("write delay-schedule event: %w", err)
		}
	}
	if !st.Active() {
		if prev.Active() {
			f.deps.Log.Info("delay schedule: the crawl's own delay", "delay", f.deps.Base)
		}
		return nil
	}
	return f.started(st)
}

// started writes the event and the log line of the slots st that started.
func (f *Follower) started(st timeslot.State) error {
	names := f.sched.Names(st)
	labels := map[string]string{"slot": names, "until": st.Until.Format(time.RFC3339)}
	msg := "Delay schedule: " + names + ": "
	if st.Suspend {
		labels["suspend"] = "true"
		msg += "suspended until " + st.Until.Format(time.RFC3339)
		f.deps.Log.Info("delay schedule: crawl suspended", "slot", names, "until", st.Until)
	} else {
		labels["delay"] = st.Delay.String()
		msg += "delay " + st.Delay.String() + " until " + st.Until.Format(time.RFC3339)
		f.deps.Log.Info("delay schedule: slot started", "slot", names, "delay", st.Delay, "until", st.Until)
	}
	if err := f.deps.Events.Event(report.Event{Action: ActionDelaySchedule, Type: "change", Reason: "slot-start",
		Message: msg, Labels: labels}); err != nil {
		return fmt.Errorf("write delay-schedule event: %w", err)
	}
	return nil
}

// Status describes the slots in force for the status line and /status: whether they suspend
// the crawl, and what they are ("" when none is: the crawl's own delay). A nil Follower has
// none.
func (f *Follower) Status() (suspended bool, slot string) {
	if f == nil {
		return false, ""
	}
	st := f.get()
	if !st.Active() {
		return false, ""
	}
	var b strings.Builder
	b.WriteString(f.sched.Names(st))
	if st.Suspend {
		b.WriteString(": suspended")
	} else {
		b.WriteString(": delay " + st.Delay.String())
	}
	b.WriteString(" until " + st.Until.Format("Mon 15:04 MST"))
	return st.Suspend, b.String()
}
