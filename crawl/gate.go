package crawl

import (
	"context"
	"sync"
)

// claimGate holds the workers' claims while the crawl is paused (Handle.Pause) or a slot of
// the delay schedule suspends it (the two are independent: claims go on once neither holds
// them), and makes the claims waiting in the frontier give up when either begins or the URL
// limit changes (wake).
type claimGate struct {
	mu          sync.Mutex // guards everything below
	paused      bool
	suspended   bool            // by a slot of the delay schedule
	resumed     chan struct{}   // closed when neither paused nor suspended; set while one is
	pauseCtx    context.Context // cancelled on pause and on wake: claims waiting in the frontier give up
	pauseCancel context.CancelFunc
	// claimCtx ends with claimParent (the workers' context) or with pauseCtx: made once per
	// pause epoch and shared by every claim, not made per claim.
	claimCtx    context.Context
	claimParent context.Context
	claimEpoch  context.Context // the pauseCtx claimCtx was made for
}

// newClaimGate returns an open gate.
func newClaimGate() *claimGate {
	g := &claimGate{}
	g.pauseCtx, g.pauseCancel = context.WithCancel(context.Background())
	return g
}

// claimContext waits while the crawl is paused or suspended, then returns the context a claim
// waits with: it ends with ctx, and when the crawl is paused or its limit changes (so a worker
// waiting for a URL claims none). It returns nil when ctx ended. The context is made once per
// pause epoch and worker context, and shared: a claim costs no context of its own.
func (g *claimGate) claimContext(ctx context.Context) context.Context {
	for {
		g.mu.Lock()
		if g.paused || g.suspended {
			ch := g.resumed
			g.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		if g.claimParent != ctx || g.claimEpoch != g.pauseCtx {
			cctx, cancel := context.WithCancel(ctx)
			context.AfterFunc(g.pauseCtx, cancel) // a new epoch cancels the old one's context
			g.claimCtx, g.claimParent, g.claimEpoch = cctx, ctx, g.pauseCtx
		}
		cc := g.claimCtx
		g.mu.Unlock()
		return cc
	}
}

func (g *claimGate) isPaused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.paused
}

func (g *claimGate) setPaused(p bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	closed := g.paused || g.suspended
	g.paused = p
	g.turn(closed)
}

// setSuspended suspends claims (a slot of the delay schedule), or ends the suspension, as a
// pause does.
func (g *claimGate) setSuspended(s bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	closed := g.paused || g.suspended
	g.suspended = s
	g.turn(closed)
}

// turn closes or opens the gate after paused or suspended changed; wasClosed is whether one
// of them held it before. It needs g.mu held.
func (g *claimGate) turn(wasClosed bool) {
	closed := g.paused || g.suspended
	if closed == wasClosed {
		return
	}
	if closed {
		g.resumed = make(chan struct{})
		g.pauseCancel()
		return
	}
	close(g.resumed)
	g.pauseCtx, g.pauseCancel = context.WithCancel(context.Background())
}

// wake makes the claims waiting in the frontier give up and start over, as a pause does, so
// that a worker that reserved its claim under the old URL limit reserves it again under the new.
func (g *claimGate) wake() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.paused && !g.suspended {
		g.pauseCancel()
		g.pauseCtx, g.pauseCancel = context.WithCancel(context.Background())
	}
}

// close releases the gate's context.
func (g *claimGate) close() {
	g.mu.Lock()
	g.pauseCancel()
	g.mu.Unlock()
}
