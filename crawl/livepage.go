package crawl

import (
	"cmp"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
)

// The live page of the status server: GET / is a page that polls /live.json (LiveView) every
// second and shows what report.html shows, so far (the figures, a chart of fetched and queued
// since the page opened, the run's timeline, hosts, status codes, URLs left out by reason, the
// URLs in flight), and steers the crawl with POST /control,
// the control socket's requests over HTTP (ControlRequest in, ControlResponse out), carried out
// by the same code and recorded the same way, with "http:" and the client's address as the
// user.
//
// /control takes a request only with the header ControlHeader: 1, which a form or a simple
// request from another site cannot send (a cross-site fetch with it needs a CORS preflight the
// server never grants), and with an Origin, when there is one, of the server itself. On a
// loopback address the Host must name the loopback (localhost or a loopback IP), so a page whose
// name is made to resolve to 127.0.0.1 (DNS rebinding) gets nothing. On any other address
// (0.0.0.0 included) the request also needs the token written to StatusTokenFile at start, in
// the header TokenHeader; the page sends the one it was opened with (/?token=...).

// StatusTokenFile holds the token /control asks for when the status server is bound to an
// address that is not a loopback one (mode 0600, written at every start).
const StatusTokenFile = crawldir.StatusTokenFile

// The headers of a /control request.
const (
	ControlHeader = "X-Amber-Control" // required, "1"
	TokenHeader   = "X-Amber-Token"   // the token, when the server is not on loopback
)

//go:embed livepage
var livePageFS embed.FS

// liveControl answers /control.
type liveControl struct {
	ctl   *control
	token string // "" on loopback: no token asked
}

// newLiveControl makes the /control handler for a server listening at addr. Off loopback it
// makes a token and writes it to StatusTokenFile.
func newLiveControl(h *Handle, ctl *control, addr net.Addr) (*liveControl, error) {
	lc := &liveControl{ctl: ctl}
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return lc, nil
	}
	b := make([]byte, 24)
	rand.Read(b)
	lc.token = fmt.Sprintf("%x", b)
	path := filepath.Join(h.Dir(), StatusTokenFile)
	os.Remove(path) // a token file left by another user's crawl would keep its owner and mode
	if err := os.WriteFile(path, []byte(lc.token+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write status token: %w", err)
	}
	h.Log().Info("status server is not on loopback: /control needs the token", "path", path,
		"page", fmt.Sprintf("http://%s/?token=(the token in %s)", addr, StatusTokenFile))
	return lc, nil
}

// errForbidden is the answer to a /control request refused by its headers.
var errForbidden = errors.New("forbidden")

// allow checks a request's headers (see the package comment on the live page).
func (lc *liveControl) allow(r *http.Request) error {
	if r.Header.Get(ControlHeader) != "1" {
		return fmt.Errorf("%w: no %s: 1 header", errForbidden, ControlHeader)
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return fmt.Errorf("%w: origin %q is not this server", errForbidden, o)
	}
	if lc.token == "" {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("%w: host %q is not a loopback name", errForbidden, r.Host)
		}
		return nil
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), []byte(lc.token)) != 1 {
		return fmt.Errorf("%w: no valid %s header (the token is in %s)", errForbidden, TokenHeader, StatusTokenFile)
	}
	return nil
}

func (lc *liveControl) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	answer := func(code int, res ControlResponse) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(res)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		answer(http.StatusMethodNotAllowed, ControlResponse{Error: "POST a JSON request"})
		return
	}
	if err := lc.allow(r); err != nil {
		lc.ctl.h.Log().Warn("status server: control request refused", "remote", r.RemoteAddr, "err", err)
		answer(http.StatusForbidden, ControlResponse{Error: err.Error()})
		return
	}
	lc.ctl.connMu.Lock()
	started, closed := lc.ctl.started, lc.ctl.closed
	lc.ctl.connMu.Unlock()
	switch {
	case closed:
		answer(http.StatusServiceUnavailable, ControlResponse{Error: "the run is ending: no more changes"})
		return
	case !started:
		// The status server starts a moment before the crawl's control does.
		answer(http.StatusServiceUnavailable, ControlResponse{Error: "the run is starting: try again in a moment"})
		return
	}
	var req ControlRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	if err := dec.Decode(&req); err != nil {
		answer(http.StatusBadRequest, ControlResponse{Error: "request is not a JSON object: " + err.Error(), BadRequest: true})
		return
	}
	res := lc.ctl.do("http:"+r.RemoteAddr, req)
	code := http.StatusOK
	switch {
	case res.BadRequest:
		code = http.StatusBadRequest
	case !res.OK:
		code = http.StatusInternalServerError
	}
	answer(code, res)
}

// serveLivePage serves the page (/) and its script and style (/live/...), from livepage/, and
// its data (/live.json: LiveView, with snap's snapshot).
func serveLivePage(mux *http.ServeMux, live *liveState, snap func() Snapshot) {
	mux.HandleFunc("GET /live.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(live.view(snap()))
	})
	files := func(name, typ string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, err := livePageFS.ReadFile("livepage/" + name)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			h := w.Header()
			h.Set("Content-Type", typ)
			h.Set("Cache-Control", "no-store")
			// Same-origin everything, no inline script, and never in a frame (the buttons
			// steer the crawl: no clickjacking).
			h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'none'")
			h.Set("X-Frame-Options", "DENY")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "no-referrer")
			w.Write(b)
		}
	}
	mux.HandleFunc("GET /{$}", files("index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /live/live.js", files("live.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /live/live.css", files("live.css", "text/css; charset=utf-8"))
}

// liveState is what the live page shows beyond the Snapshot, gathered while the run goes:
// progress over time, hosts, scope reasons and the URLs in flight. It is an Observer of the
// run: told of its crawl.log lines and of what goes through its frontier; it keeps nothing
// until start is called. Its size grows with the number of hosts and scope reasons, not URLs.
type liveState struct {
	mu       sync.Mutex // guards everything below
	on       bool
	timeline *report.Timeline
	hosts    map[string]*liveHost
	reasons  map[string]int64
	current  map[*frontier.Claim]liveClaim
}

// liveHost is one host's figures in this run.
type liveHost struct {
	added, finished           int64 // queued in this run; claims finished (done or failed) in this run
	captured, failed, leftOut int64 // crawl.log lines by outcome; left out: scope, rules, robots.txt
}

// liveClaim is a URL in flight.
type liveClaim struct {
	url, host string
	since     time.Time
}

// start turns the live state on; the timeline's intervals start at the run's start.
func (s *liveState) start(run time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = true
	s.timeline = report.NewTimeline(run)
	s.hosts, s.reasons, s.current = map[string]*liveHost{}, map[string]int64{}, map[*frontier.Claim]liveClaim{}
}

// liveHostOf is the host a URL counts under on the live page (as in the reports: the lowercased
// name, without port).
func liveHostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "-"
	}
	return strings.ToLower(u.Hostname())
}

// host returns the figures of h, made on first use. s.mu must be held.
func (s *liveState) host(h string) *liveHost {
	lh := s.hosts[h]
	if lh == nil {
		lh = &liveHost{}
		s.hosts[h] = lh
	}
	return lh
}

// Line counts a crawl.log line.
func (s *liveState) Line(l report.Line) {
	o := report.LineOutcome(l)
	reason := report.LineReason(l)
	h := liveHostOf(l.URL)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		return
	}
	s.timeline.Add(l)
	lh := s.host(h)
	switch o {
	case report.OutcomeCaptured:
		lh.captured++
	case report.OutcomeFailed:
		lh.failed++
	case report.OutcomeRobots:
		lh.leftOut++
		s.reasons["robots"]++
	case report.OutcomeBlocked, report.OutcomeOutOfScope:
		lh.leftOut++
		if reason == "" {
			reason = o.String()
		}
		s.reasons[reason]++
	}
}

// Added counts a URL queued for its host.
func (s *liveState) Added(u string) {
	h := liveHostOf(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.host(h).added++
	}
}

// Claimed adds a claim to the URLs in flight.
func (s *liveState) Claimed(cl *frontier.Claim) {
	c := liveClaim{url: cl.URL.URL, host: liveHostOf(cl.URL.URL), since: time.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.current[cl] = c
	}
}

// Released takes a claim off the URLs in flight; finished counts it as finished for its host
// (done or failed, as opposed to queued again).
func (s *liveState) Released(cl *frontier.Claim, finished bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.current[cl]
	if !ok {
		return
	}
	delete(s.current, cl)
	if finished {
		s.host(c.host).finished++
	}
}

// liveHostsTop is the number of hosts the live page lists.
const liveHostsTop = 25

// LiveView is the live page's data, served as JSON on GET /live.json: the Snapshot, and what
// report.html shows, so far.
type LiveView struct {
	Status Snapshot `json:"status"`
	// IntervalSeconds is the length of each of Timeline's intervals.
	IntervalSeconds float64           `json:"interval_seconds"`
	Timeline        []report.Interval `json:"timeline"`
	// Hosts are the liveHostsTop hosts with the most URLs in this run; HostCount counts all.
	Hosts     []LiveHost   `json:"hosts"`
	HostCount int          `json:"host_count"`
	Scope     []LiveReason `json:"scope"`   // URLs left out in this run, by reason, most first
	Current   []LiveURL    `json:"current"` // the URLs in flight, the longest first
}

// LiveHost is one host's figures of this run: URLs queued (or in flight), captured, failed and
// left out (scope, rules, robots.txt); URLs is their sum.
type LiveHost struct {
	Host     string `json:"host"`
	URLs     int64  `json:"urls"`
	Queued   int64  `json:"queued"`
	Captured int64  `json:"captured"`
	Failed   int64  `json:"failed"`
	LeftOut  int64  `json:"left_out"`
}

// LiveReason counts the URLs left out for one scope reason.
type LiveReason struct {
	Reason string `json:"reason"`
	URLs   int64  `json:"urls"`
}

// LiveURL is a URL in flight: claimed by a worker Seconds ago.
type LiveURL struct {
	URL     string  `json:"url"`
	Host    string  `json:"host"`
	Seconds float64 `json:"seconds"`
}

// view returns the live page's data; snap is the crawl's snapshot now.
func (s *liveState) view(snap Snapshot) LiveView {
	v := LiveView{Status: snap, Hosts: []LiveHost{}, Scope: []LiveReason{}, Current: []LiveURL{}, Timeline: []report.Interval{}}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		return v
	}
	w, ivs := s.timeline.Intervals()
	v.IntervalSeconds = w.Seconds()
	if ivs != nil {
		v.Timeline = ivs
	}
	for h, lh := range s.hosts {
		q := max(lh.added-lh.finished, 0)
		v.Hosts = append(v.Hosts, LiveHost{Host: h, URLs: q + lh.captured + lh.failed + lh.leftOut, Queued: q,
			Captured: lh.captured, Failed: lh.failed, LeftOut: lh.leftOut})
	}
	v.HostCount = len(v.Hosts)
	slices.SortFunc(v.Hosts, func(a, b LiveHost) int {
		if c := cmp.Compare(b.URLs, a.URLs); c != 0 {
			return c
		}
		return strings.Compare(a.Host, b.Host)
	})
	v.Hosts = v.Hosts[:min(len(v.Hosts), liveHostsTop)]
	for r, n := range s.reasons {
		v.Scope = append(v.Scope, LiveReason{Reason: r, URLs: n})
	}
	slices.SortFunc(v.Scope, func(a, b LiveReason) int {
		if c := cmp.Compare(b.URLs, a.URLs); c != 0 {
			return c
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	for _, c := range s.current {
		v.Current = append(v.Current, LiveURL{URL: c.url, Host: c.host, Seconds: now.Sub(c.since).Seconds()})
	}
	slices.SortFunc(v.Current, func(a, b LiveURL) int {
		if c := cmp.Compare(b.Seconds, a.Seconds); c != 0 {
			return c
		}
		return strings.Compare(a.URL, b.URL)
	})
	return v
}
