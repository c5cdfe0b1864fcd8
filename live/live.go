// Package live is the status server of a running crawl (amber crawl --status-addr), a
// crawl.Service: Prometheus metrics on /metrics, the run's Snapshot as JSON on /status, Go's
// profiles under /debug/pprof/ (net/http/pprof's handlers on the server's own mux, never
// http.DefaultServeMux), the live page on / with its data on /live.json (View), and live
// control on POST /control, carried out by package ctl as a request on the control socket is.
// It answers from the run's start until the run's final counters and reports are written, so
// a last scrape sees the whole run.
//
// The live page polls /live.json every second and shows what report.html shows, so far: the
// figures, a chart of fetched and queued since the page opened, the run's timeline, hosts,
// status codes, URLs left out by reason, the URLs in flight. It steers the crawl with POST
// /control: ctl.Request in, ctl.Response out, recorded with "http:" and the client's address
// as the user.
//
// /control takes a request only with the header ControlHeader: 1, which a form or a simple
// request from another site cannot send (a cross-site fetch with it needs a CORS preflight the
// server never grants), and with an Origin, when there is one, of the server itself. On a
// loopback address the Host must name the loopback (localhost or a loopback IP), so a page whose
// name is made to resolve to 127.0.0.1 (DNS rebinding) gets nothing. On any other address
// (0.0.0.0 included) the request also needs the token written to TokenFile at start, in the
// header TokenHeader; the page sends the one it was opened with (/?token=...).
package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/pprof"
	"slices"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
)

// Config configures a status server.
type Config struct {
	// Addr is the address to listen at, host:port (127.0.0.1:9090; :9090 is every address,
	// which needs the token for /control). Required.
	Addr string
	// Control carries out the requests of POST /control: the crawl's live control, which
	// records them. Nil: /control answers 503.
	Control *ctl.Service
}

// Server is the status server, a crawl.Service. It may serve several runs, one at a time.
type Server struct {
	cfg  Config
	stop func() // shuts down what Start started
}

var _ crawl.Service = (*Server)(nil)

// New returns a status server; it listens when the run starts it.
func New(cfg Config) (*Server, error) {
	if cfg.Addr == "" {
		return nil, errors.New("live: no address")
	}
	return &Server{cfg: cfg}, nil
}

// Start listens at the server's address, watches the run h for the live page, and serves.
func (s *Server) Start(h *crawl.Handle) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("start status server: %w", err)
	}
	cc, err := newControl(h, s.cfg.Control, ln.Addr())
	if err != nil {
		ln.Close()
		return fmt.Errorf("start status server: %w", err)
	}
	st := &state{}
	// The live page's hosts and URLs in flight: what goes through the run from now on.
	st.start(h.Snapshot().Started)
	if err := h.Watch(st); err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	servePage(mux, st, h.Snapshot)
	mux.Handle("/control", cc)
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		writeMetrics(w, h.Snapshot())
	})
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(h.Snapshot())
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index) // also serves the named profiles: heap, goroutine, allocs...
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	h.Log().Info("status server listening", "addr", ln.Addr().String())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.Log().Warn("status server", "err", err)
		}
	}()
	s.stop = func() {
		sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
		srv.Shutdown(sctx)
		scancel()
		<-done
	}
	return nil
}

// Drain does nothing: the server answers until Stop (/control answers 503 once the live
// control drained).
func (s *Server) Drain() {}

// Stop shuts the server down; requests under way get up to 2 seconds to finish.
func (s *Server) Stop() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// writeMetrics writes the snapshot in Prometheus' text exposition format. Rates are left to
// Prometheus (rate() of the counters).
func writeMetrics(w io.Writer, s crawl.Snapshot) {
	head := func(name, help, typ string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	head("amber_urls_fetched_total", "Exchanges archived (responses received), all runs.", "counter")
	fmt.Fprintf(w, "amber_urls_fetched_total %d\n", s.Fetched)
	head("amber_bytes_total", "Raw response bytes downloaded, all runs.", "counter")
	fmt.Fprintf(w, "amber_bytes_total %d\n", s.Bytes)
	head("amber_start_time_seconds", "When this run started, in seconds since the Unix epoch.", "gauge")
	fmt.Fprintf(w, "amber_start_time_seconds %d\n", s.Started.Unix())
	head("amber_crawl_log_lines_total", "crawl.log lines written in this run, by status code (HTTP or Heritrix's negative codes).", "counter")
	for _, k := range slices.Sorted(maps.Keys(s.Statuses)) {
		fmt.Fprintf(w, "amber_crawl_log_lines_total{code=%q} %d\n", k, s.Statuses[k])
	}
	head("amber_urls_total", "URLs finished in this run, by outcome.", "counter")
	for _, o := range []report.Outcome{report.OutcomeCaptured, report.OutcomeFailed, report.OutcomeOutOfScope, report.OutcomeBlocked, report.OutcomeRobots} {
		fmt.Fprintf(w, "amber_urls_total{outcome=%q} %d\n", o, s.Outcomes[o.String()])
	}
	head("amber_frontier_urls", "URLs known to the frontier by state.", "gauge")
	for _, st := range []struct {
		state status.State
		n     int64
	}{{status.Queued, s.Frontier.Queued}, {status.Inflight, s.Frontier.InFlight}, {status.Done, s.Frontier.Done},
		{status.Failed, s.Frontier.Failed}, {status.Rejected, s.Frontier.Rejected}} {
		fmt.Fprintf(w, "amber_frontier_urls{state=%q} %d\n", st.state, st.n)
	}
}
