package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/amber-crawler/amber/frontier"
)

// Snapshot is the state of a running crawl, as served on /status and printed as progress.
type Snapshot struct {
	Collection string         `json:"collection"`
	Dir        string         `json:"dir"`
	Started    time.Time      `json:"started"`
	Elapsed    float64        `json:"elapsed_seconds"`
	Fetched    int64          `json:"urls_fetched"`
	Bytes      int64          `json:"bytes"`
	Rate       float64        `json:"urls_per_second"` // fetched in this run / elapsed
	Frontier   frontier.Stats `json:"frontier"`
}

func (c *crawler) snapshot(start time.Time, startFetched int64) Snapshot {
	el := time.Since(start)
	n := c.fetched.Load()
	rate := 0.0
	if el > 0 {
		rate = float64(n-startFetched) / el.Seconds()
	}
	return Snapshot{
		Collection: c.cfg.Collection, Dir: c.cfg.Dir, Started: start.UTC(), Elapsed: el.Seconds(),
		Fetched: n, Bytes: c.bytes.Load(), Rate: rate, Frontier: c.front.Stats(),
	}
}

// statusLine is the one-line progress summary.
func (s Snapshot) statusLine() string {
	return fmt.Sprintf("%d fetched, %d queued, %d in flight, %d failed, %d out of scope | %.1f URLs/s | %s | %s",
		s.Fetched, s.Frontier.Queued, s.Frontier.InFlight, s.Frontier.Failed, s.Frontier.Rejected, s.Rate,
		humanBytes(s.Bytes), (time.Duration(s.Elapsed) * time.Second).Round(time.Second))
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// writeMetrics writes the snapshot in Prometheus' text exposition format.
func (s Snapshot) writeMetrics(w io.Writer) {
	p := func(name, help, typ string, v float64, labels string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s%s %g\n", name, help, name, typ, name, labels, v)
	}
	p("amber_urls_fetched_total", "URLs fetched (responses received), all runs.", "counter", float64(s.Fetched), "")
	p("amber_bytes_total", "Raw response bytes downloaded, all runs.", "counter", float64(s.Bytes), "")
	p("amber_crawl_elapsed_seconds", "Seconds since this run started.", "gauge", s.Elapsed, "")
	p("amber_fetch_rate", "URLs fetched per second in this run.", "gauge", s.Rate, "")
	fmt.Fprintf(w, "# HELP amber_frontier_urls URLs known to the frontier by state.\n# TYPE amber_frontier_urls gauge\n")
	for _, st := range []struct {
		state string
		n     int64
	}{{"queued", s.Frontier.Queued}, {"inflight", s.Frontier.InFlight}, {"done", s.Frontier.Done},
		{"failed", s.Frontier.Failed}, {"rejected", s.Frontier.Rejected}} {
		fmt.Fprintf(w, "amber_frontier_urls{state=%q} %d\n", st.state, st.n)
	}
}

// startStatus starts the progress output and, with StatusAddr, the status server. It returns
// a function that stops both.
func (c *crawler) startStatus(ctx context.Context) (func(), error) {
	start := time.Now()
	startFetched := c.fetched.Load()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var srv *http.Server
	if c.cfg.StatusAddr != "" {
		ln, err := net.Listen("tcp", c.cfg.StatusAddr)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("crawl: status server: %w", err)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			c.snapshot(start, startFetched).writeMetrics(w)
		})
		mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			enc.Encode(c.snapshot(start, startFetched))
		})
		srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		c.log.Info("status server listening", "addr", ln.Addr().String())
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				c.log.Warn("status server", "err", err)
			}
		}()
	}
	if c.cfg.ProgressEvery >= 0 || c.cfg.LiveStatus != nil {
		every := c.cfg.ProgressEvery
		if c.cfg.LiveStatus != nil {
			every = time.Second
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(every)
			defer t.Stop()
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
				if c.cfg.LiveStatus != nil {
					fmt.Fprintf(c.cfg.LiveStatus, "\r\033[K%s", s.statusLine())
				} else {
					c.log.Info("progress", "status", s.statusLine())
				}
				if err := c.saveCounters(); err != nil {
					c.log.Warn("save counters", "err", err)
				}
			}
		}()
	}
	return func() {
		cancel()
		if srv != nil {
			sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
			srv.Shutdown(sctx)
			scancel()
		}
		wg.Wait()
	}, nil
}
