package crawl

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/amber-crawler/amber/diskspace"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
)

// Snapshot is the state of a running crawl, as served on /status and printed as progress.
// Fetched and Bytes count every exchange archived over all runs of the crawl (for the browser
// fetcher that includes each page's subresources); Frontier counts URLs by their state now.
type Snapshot struct {
	Collection string         `json:"collection"`
	Dir        string         `json:"dir"`
	Started    time.Time      `json:"started"` // when this run started
	Elapsed    float64        `json:"elapsed_seconds"`
	Fetched    int64          `json:"urls_fetched"`
	Bytes      int64          `json:"bytes"`
	Rate       float64        `json:"urls_per_second"` // fetched in this run / elapsed
	Frontier   frontier.Stats `json:"frontier"`
	// Statuses counts crawl.log lines of this run by status code (HTTP or Heritrix's negative
	// codes); Outcomes counts them by outcome (report.LineOutcome, as report.html counts).
	Statuses map[string]int64 `json:"statuses"`
	Outcomes map[string]int64 `json:"outcomes"`
	// Paused says the crawl is paused (amber ctl pause): no URL is claimed until it resumes.
	Paused bool `json:"paused"`
	// Suspended says a slot of the delay schedule suspends the crawl: no URL is claimed until
	// it ends. DelaySlot names the slots in force, what they set and until when ("" when
	// none is: the crawl's own delay).
	Suspended bool   `json:"suspended,omitempty"`
	DelaySlot string `json:"delay_slot,omitempty"`
}

// tally counts crawl.log lines by status code and by outcome, for the Snapshot, and passes
// them on to the run's observers (Handle.Watch).
type tally struct {
	mu       sync.Mutex // guards the maps
	statuses map[int]int64
	outcomes map[string]int64
	obs      *observers // the run's observers (Handle.Watch)
}

func (t *tally) add(l report.Line) {
	o := report.LineOutcome(l).String()
	t.mu.Lock()
	if t.statuses == nil {
		t.statuses, t.outcomes = map[int]int64{}, map[string]int64{}
	}
	t.statuses[l.Status]++
	t.outcomes[o]++
	t.mu.Unlock()
	for _, o := range t.obs.list() {
		o.Line(l)
	}
}

func (t *tally) copy() (map[string]int64, map[string]int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, oc := make(map[string]int64, len(t.statuses)), make(map[string]int64, len(t.outcomes))
	for k, v := range t.statuses {
		st[strconv.Itoa(k)] = v
	}
	maps.Copy(oc, t.outcomes)
	return st, oc
}

func (c *crawler) snapshot(start time.Time, startFetched int64) Snapshot {
	el := time.Since(start)
	n := c.budget.fetched.Load()
	rate := 0.0
	if el > 0 {
		rate = float64(n-startFetched) / el.Seconds()
	}
	st, oc := c.tally.copy()
	suspended, slot := c.sched.Status()
	return Snapshot{
		Suspended: suspended, DelaySlot: slot,
		Collection: c.cfg.Collection, Dir: c.cfg.Dir, Started: start.UTC(), Elapsed: el.Seconds(),
		Fetched: n, Bytes: c.budget.bytes.Load(), Rate: rate, Frontier: c.front.Stats(),
		Statuses: st, Outcomes: oc, Paused: c.h != nil && c.h.gate.isPaused(),
	}
}

// statusLine is the one-line progress summary.
func (s Snapshot) statusLine() string {
	paused := ""
	if s.Paused {
		paused = "PAUSED | "
	}
	if s.DelaySlot != "" {
		paused += "schedule " + s.DelaySlot + " | "
	}
	if s.Frontier.Sites > 0 || s.Frontier.SitesWaiting > 0 {
		paused += fmt.Sprintf("%d sites, %d waiting | ", s.Frontier.Sites, s.Frontier.SitesWaiting)
	}
	return paused + fmt.Sprintf("%d fetched, %d queued, %d in flight, %d failed, %d out of scope | %.1f URLs/s | %s | %s",
		s.Fetched, s.Frontier.Queued, s.Frontier.InFlight, s.Frontier.Failed, s.Frontier.Rejected, s.Rate,
		humanBytes(s.Bytes), (time.Duration(s.Elapsed)*time.Second).Round(time.Second))
}

func humanBytes(n int64) string { return diskspace.HumanSize(n) }

// startProgress starts the run's housekeeping ticker: every Config.ProgressEvery (5s when
// progress is off) it saves the counters and syncs the frontier to disk, and it shows progress:
// a status line rewritten every second on a terminal (Config.LiveStatus), or a logged line. The
// returned function stops it; on a terminal it leaves the last status line in place, ended by
// a newline.
func (c *crawler) startProgress(ctx context.Context, start time.Time, startFetched int64) func() {
	every := c.cfg.ProgressEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	if c.cfg.LiveStatus != nil {
		every = time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		lastSync := time.Now()
		for {
			select {
			case <-ctx.Done():
				if c.cfg.LiveStatus != nil {
					fmt.Fprintf(c.cfg.LiveStatus, "\r\033[K%s\n", c.snapshot(start, startFetched).statusLine())
				}
				return
			case <-t.C:
			}
			s := c.snapshot(start, startFetched)
			switch {
			case c.cfg.LiveStatus != nil:
				fmt.Fprintf(c.cfg.LiveStatus, "\r\033[K%s", s.statusLine())
			case c.cfg.ProgressEvery > 0:
				c.log.Info("progress", "status", s.statusLine())
			}
			if err := c.budget.save(); err != nil {
				c.log.Warn("save counters", "err", err)
			}
			// The frontier's doc: writes between syncs survive a killed process but not a
			// power loss; sync every few seconds.
			if time.Since(lastSync) >= 5*time.Second {
				lastSync = time.Now()
				if err := c.front.Sync(); err != nil {
					c.log.Warn("sync frontier", "err", err)
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
