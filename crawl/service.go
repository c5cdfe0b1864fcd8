package crawl

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
)

// Service runs beside each run of a crawl (Config.Services) and acts on it through the run's
// Handle: live control, the status server. A Service may serve several runs, one at a time.
type Service interface {
	// Start begins the service's work on a run: the run is open (its state, files and
	// changes of earlier runs restored) and no URL has been claimed yet. Services start in
	// the order of Config.Services; an error ends the run before it claims anything (Run
	// returns it), after the services started before it were drained and stopped.
	Start(h *Handle) error
	// Drain is called, in reverse order, when the run's workers have stopped and before its
	// end is written: the service makes no more changes through the Handle from then on.
	Drain()
	// Stop is called, in reverse order, once the run's final counters, index, end event and
	// reports are written: the Handle's figures (Snapshot) are whole, and stay readable until
	// Stop returns.
	Stop()
}

// Observer is told what goes through a run (Handle.Watch): every crawl.log line written, and
// the URLs added to, claimed from and released to the frontier. Its methods are called by the
// workers, concurrently, and must return quickly: the crawl waits for them.
type Observer interface {
	// Line is a crawl.log line written in this run.
	Line(l report.Line)
	// Added is a URL new to the frontier, queued in this run.
	Added(url string)
	// Claimed is a URL claimed by a worker.
	Claimed(cl *frontier.Claim)
	// Released is a claim given back to the frontier: finished (done, or failed for good)
	// or queued again to be tried later.
	Released(cl *frontier.Claim, finished bool)
}

// errWatch is returned by Watch when it is called outside a service's Start.
var errWatch = errors.New("crawl: Watch is called from a service's Start")

// Watch has o told what goes through the run from its first claim on (Observer). It is
// called from a Service's Start; outside it, it returns an error. A crawl watched by no
// observer pays nothing for it.
func (h *Handle) Watch(o Observer) error {
	if !h.starting {
		return errWatch
	}
	h.c.obs.add(o)
	return nil
}

// observers is the list of a run's observers. Services add to it while they start, when a
// service started before may already serve requests on other goroutines, so the list is
// replaced whole and read without a lock.
type observers struct{ p atomic.Pointer[[]Observer] }

// add appends o (from services' Start, one at a time).
func (os *observers) add(o Observer) {
	var l []Observer
	if cur := os.p.Load(); cur != nil {
		l = slices.Clone(*cur)
	}
	l = append(l, o)
	os.p.Store(&l)
}

// list is the observers added so far (none on a nil list).
func (os *observers) list() []Observer {
	if os == nil {
		return nil
	}
	if l := os.p.Load(); l != nil {
		return *l
	}
	return nil
}

// services runs the Config.Services of one run (see Service for the order of the calls).
type services struct {
	list    []Service
	started int  // how many of list started
	drained bool // Drain was called on those
}

// start starts the services in order; after an error the ones started are drained and
// stopped by drain and stop as after a run.
func (s *services) start(h *Handle) error {
	h.starting = true
	defer func() { h.starting = false }()
	for _, sv := range s.list {
		if err := sv.Start(h); err != nil {
			return err
		}
		s.started++
	}
	return nil
}

// drain drains the services started, last first; once.
func (s *services) drain() {
	if s.drained {
		return
	}
	s.drained = true
	for i := s.started - 1; i >= 0; i-- {
		s.list[i].Drain()
	}
}

// stop drains the services started if that was not done, then stops them, last first.
func (s *services) stop() {
	s.drain()
	for i := s.started - 1; i >= 0; i-- {
		s.list[i].Stop()
	}
	s.started = 0
}

// watchedStore is the crawl's frontier telling its observers of the URLs queued, claimed and
// released through it. Everything else goes to the frontier as it is. It is the crawl's
// frontier from open on, observed or not (an unobserved crawl pays an atomic load per call),
// so that the frontier is never swapped under a service that already runs.
type watchedStore struct {
	frontier.Store
	obs *observers
}

func (w *watchedStore) Add(u frontier.URL) (bool, error) {
	added, err := w.Store.Add(u)
	if added {
		for _, o := range w.obs.list() {
			o.Added(u.URL)
		}
	}
	return added, err
}

func (w *watchedStore) AddBatch(us []frontier.URL) ([]frontier.AddResult, error) {
	res, err := w.Store.AddBatch(us)
	for i, r := range res {
		if r.New && i < len(us) {
			for _, o := range w.obs.list() {
				o.Added(us[i].URL)
			}
		}
	}
	return res, err
}

func (w *watchedStore) Claim(ctx context.Context) (*frontier.Claim, error) {
	cl, err := w.Store.Claim(ctx)
	if err == nil {
		for _, o := range w.obs.list() {
			o.Claimed(cl)
		}
	}
	return cl, err
}

func (w *watchedStore) released(cl *frontier.Claim, finished bool) {
	for _, o := range w.obs.list() {
		o.Released(cl, finished)
	}
}

func (w *watchedStore) Done(c *frontier.Claim) error {
	err := w.Store.Done(c)
	if err == nil {
		w.released(c, true)
	}
	return err
}

func (w *watchedStore) Failed(c *frontier.Claim, status int) error {
	err := w.Store.Failed(c, status)
	if err == nil {
		w.released(c, true)
	}
	return err
}

func (w *watchedStore) Retry(c *frontier.Claim, notBefore time.Time) (bool, error) {
	again, err := w.Store.Retry(c, notBefore)
	if err == nil {
		w.released(c, !again)
	}
	return again, err
}

func (w *watchedStore) RetryStatus(c *frontier.Claim, notBefore time.Time, status int) (bool, error) {
	again, err := w.Store.RetryStatus(c, notBefore, status)
	if err == nil {
		w.released(c, !again)
	}
	return again, err
}
