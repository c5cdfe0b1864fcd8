package frontier

import (
	"context"
	"time"
)

// Pace blocks until hostName may be sent a request on behalf of cl, and then counts that
// request as in progress on that host until Ended (or until cl is finished). A claim may send
// one request to its own host at once, the fetch of its URL; every other request made on its
// behalf goes through Pace: a robots.txt before the page, the page after the robots.txt, a
// robots.txt redirected to another host.
//
// A host may be sent a request when:
//   - its delay has passed since its latest request ended (the larger of Config.HostDelay and
//     its SetHostDelay; the end as reported by Ended, or the time a claim finished with a
//     request still in progress), and its HostBackoff has passed;
//   - fewer than Config.HostConcurrency requests are in progress on it. A claim's own request
//     counts from the claim until it is Ended. Between two requests a claim keeps its slot
//     for claims (no other URL of its host is claimed in its place) but not for requests, so
//     a claim waiting for another host never holds up requests to its own.
//
// While Pace waits for a request slot, no new URL of that host is claimed. When cl's request
// in progress is on hostName already (its own request, not yet sent), Pace only waits for the
// delay and the backoff. A request of cl in progress on another host is taken to end now.
//
// Pace returns ctx.Err() when ctx ends, ErrClosed after Close and ErrClaimFinished for a
// finished claim.
func (f *Frontier) Pace(ctx context.Context, cl *Claim, hostName string) error {
	var timer *time.Timer
	var queuedOn *host // the host whose waiting count this call holds
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if queuedOn != nil {
			f.mu.Lock()
			f.unqueue(queuedOn)
			f.mu.Unlock()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ok, wake, wait, err := f.tryPace(cl, hostName, &queuedOn)
		if ok || err != nil {
			return err
		}
		if err := sleep(ctx, &timer, wake, wait); err != nil {
			return err
		}
	}
}

// tryPace makes one non-blocking attempt of Pace. When cl may not go yet it returns the channel
// closed on the next change and the time until host's delay has passed (-1: waiting for a slot,
// not for time); *queuedOn is then the host whose waiting count it raised.
func (f *Frontier) tryPace(cl *Claim, name string, queuedOn **host) (bool, <-chan struct{}, time.Duration, error) {
	if cl == nil || cl.f != f {
		return false, nil, 0, ErrClaimFinished
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false, nil, 0, ErrClosed
	}
	if cl.state != claimActive {
		return false, nil, 0, ErrClaimFinished
	}
	now := f.now()
	h := f.hostLocked(name)
	if cl.req != nil && cl.req != h {
		f.endRequest(cl, now, now)
	}
	needSlot := cl.req == nil
	wait := time.Duration(-1)
	blocked := needSlot && h.busy >= f.cfg.HostConcurrency
	if at := f.politeAt(h); at.After(now) {
		blocked = true
		wait = at.Sub(now)
	}
	if blocked {
		if needSlot && *queuedOn == nil {
			h.waiting++
			*queuedOn = h
			f.schedule(h, now)
		}
		return false, f.wakeChan(), wait, nil
	}
	if *queuedOn != nil {
		f.unqueue(*queuedOn)
		*queuedOn = nil
	}
	if needSlot {
		cl.req = h
		h.busy++
		f.schedule(h, now)
	}
	return true, nil, 0, nil
}

// unqueue undoes the waiting count of a Pace call. It needs f.mu held.
func (f *Frontier) unqueue(h *host) {
	h.waiting--
	f.schedule(h, f.now())
	f.broadcast()
}

// Ended records that the request cl has in progress (its own fetch, or one started by Pace)
// ended at t: the response was read to its end, or the request failed. Its host's next request
// waits for t plus the host's delay. Ended does nothing when cl has no request in progress.
// It returns ErrClosed after Close and ErrClaimFinished for a finished claim.
func (f *Frontier) Ended(cl *Claim, t time.Time) error {
	if cl == nil || cl.f != f {
		return ErrClaimFinished
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if cl.state != claimActive {
		return ErrClaimFinished
	}
	if cl.req != nil {
		f.endRequest(cl, t, f.now())
	}
	return nil
}

// endRequest ends cl's request in progress at end. It needs f.mu held and cl.req set.
func (f *Frontier) endRequest(cl *Claim, end, now time.Time) {
	h := cl.req
	cl.req = nil
	h.busy--
	if end.After(h.lastEnd) {
		h.lastEnd = end
	}
	f.schedule(h, now)
	f.broadcast()
}
