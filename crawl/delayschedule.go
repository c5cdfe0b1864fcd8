package crawl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/timeslot"
)

// The delay schedule (Config.DelaySchedule, FAST's variable_delay): time slots of the week that
// set the crawl's delay between requests to a host, or suspend the crawl.
//
// The delay of a host is, from the strongest rule down:
//  1. a suspending slot in force: no URL is claimed at all (URLs claimed before the slot began
//     finish; the crawl's claims are kept: Ctrl-C and ctl stop end the run as always);
//  2. an operator's delay for the host (politeness.host_delays, amber ctl host-delay): it
//     replaces everything below, lower or higher;
//  3. the larger of the host's robots.txt Crawl-delay (unless ignored) and the crawl's delay;
//  4. the crawl's delay: the longest delay of the slots in force, or HostDelay when none is.
//
// Slots are checked when they start and end (and every minute, so that a clock set anew is
// followed); each start and end is an event (ActionDelaySchedule) and a log line, and the live
// status says which slot is in force.

// ActionDelaySchedule is the action of the event written when slots of the delay schedule
// start or end (event.type change; event.reason slot-start or slot-end; labels.slot the
// slots, labels.delay the delay in force or labels.suspend "true", labels.until when it may
// change next, RFC 3339).
const ActionDelaySchedule = "delay-schedule"

// DelaySchedule is Config.DelaySchedule: slots of the week and their time zone (see package
// timeslot). Where slots overlap, suspend wins, then the longest delay.
type DelaySchedule = timeslot.Schedule

// Clock is the time of the delay schedule (Config.Clock): now, and a channel that receives
// once d has passed.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// recheck bounds the schedule's wait, so that a wall clock set anew (or a machine that slept)
// is followed within this.
const recheck = time.Minute

// validateDelaySchedule checks Config.DelaySchedule, MaxSites and MaxInterDocs.
func (c Config) validateDelaySchedule() error {
	for i, s := range c.DelaySchedule.Slots {
		field := fmt.Sprintf("DelaySchedule.Slots[%d]", i)
		switch {
		case len(s.Spans) == 0:
			return &FieldError{Field: field, Err: errors.New("no time (use timeslot.Parse)")}
		case s.Delay < 0:
			return &FieldError{Field: field, Err: errors.New("negative delay")}
		}
	}
	if c.MaxSites < 0 {
		return &FieldError{Field: "MaxSites", Err: errors.New("must not be negative")}
	}
	if c.MaxInterDocs < 0 {
		return &FieldError{Field: "MaxInterDocs", Err: errors.New("must not be negative")}
	}
	return nil
}

// delayState is what the delay schedule sets now, for the live status.
type delayState struct {
	mu    sync.Mutex // guards state
	state timeslot.State
}

func (d *delayState) get() timeslot.State {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state
}

// startDelaySchedule applies the slots in force now, before any URL is claimed, and then
// follows the schedule until ctx ends. It does nothing without slots. The returned function
// waits for the schedule's goroutine to end (after ctx).
func (c *crawler) startDelaySchedule(ctx context.Context) (wait func(), err error) {
	sched := c.cfg.DelaySchedule
	if len(sched.Slots) == 0 {
		return func() {}, nil
	}
	clk := c.cfg.Clock
	if clk == nil {
		clk = realClock{}
	}
	if err := c.applyDelaySchedule(clk.Now()); err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			wait := min(c.delays.get().Until.Sub(clk.Now()), recheck)
			select {
			case <-ctx.Done():
				return
			case <-clk.After(max(wait, 0)):
			}
			if err := c.applyDelaySchedule(clk.Now()); err != nil {
				c.log.Error("delay schedule", "err", err)
			}
		}
	})
	return wg.Wait, nil
}

// applyDelaySchedule sets what the schedule says at now: the frontier's delay, the suspension
// of claims; a change is an event and a log line.
func (c *crawler) applyDelaySchedule(now time.Time) error {
	sched := c.cfg.DelaySchedule
	st := sched.At(now)
	c.delays.mu.Lock()
	prev := c.delays.state
	c.delays.state = st
	c.delays.mu.Unlock()
	if st.Equal(prev) && !prev.Until.IsZero() {
		return nil
	}
	if !st.Suspend {
		delay := c.cfg.HostDelay
		if st.Active() {
			delay = st.Delay
		}
		c.front.SetDelay(delay)
	}
	c.ctl.setSuspended(st.Suspend)
	if prev.Active() {
		names := sched.Names(prev)
		c.log.Info("delay schedule: slot ended", "slot", names)
		if err := c.events.Event(report.Event{Action: ActionDelaySchedule, Type: "change", Reason: "slot-end",
			Message: "Delay schedule: " + names + " ended", Labels: map[string]string{"slot": names}}); err != nil {
			return fmt.Errorf("write delay-schedule event: %w", err)
		}
	}
	if !st.Active() {
		if prev.Active() {
			c.log.Info("delay schedule: the crawl's own delay", "delay", c.cfg.HostDelay)
		}
		return nil
	}
	names := sched.Names(st)
	labels := map[string]string{"slot": names, "until": st.Until.Format(time.RFC3339)}
	msg := "Delay schedule: " + names + ": "
	if st.Suspend {
		labels["suspend"] = "true"
		msg += "suspended until " + st.Until.Format(time.RFC3339)
		c.log.Info("delay schedule: crawl suspended", "slot", names, "until", st.Until)
	} else {
		labels["delay"] = st.Delay.String()
		msg += "delay " + st.Delay.String() + " until " + st.Until.Format(time.RFC3339)
		c.log.Info("delay schedule: slot started", "slot", names, "delay", st.Delay, "until", st.Until)
	}
	if err := c.events.Event(report.Event{Action: ActionDelaySchedule, Type: "change", Reason: "slot-start",
		Message: msg, Labels: labels}); err != nil {
		return fmt.Errorf("write delay-schedule event: %w", err)
	}
	return nil
}

// delayStatus describes the slots in force for the status line and /status: "" when none is.
func (c *crawler) delayStatus() (suspended bool, slot string) {
	st := c.delays.get()
	if !st.Active() {
		return false, ""
	}
	var b strings.Builder
	b.WriteString(c.cfg.DelaySchedule.Names(st))
	if st.Suspend {
		b.WriteString(": suspended")
	} else {
		b.WriteString(": delay " + st.Delay.String())
	}
	b.WriteString(" until " + st.Until.Format("Mon 15:04 MST"))
	return st.Suspend, b.String()
}
