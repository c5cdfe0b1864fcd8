package live

import (
	"cmp"
	"embed"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
)

//go:embed page
var pageFS embed.FS

// servePage serves the page (/) and its script and style (/live/...), from page/, and its
// data (/live.json: View, with snap's snapshot).
func servePage(mux *http.ServeMux, st *state, snap func() crawl.Snapshot) {
	mux.HandleFunc("GET /live.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(st.view(snap()))
	})
	files := func(name, typ string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, err := pageFS.ReadFile("page/" + name)
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

// state is what the live page shows beyond the Snapshot, gathered while the run goes:
// progress over time, hosts, scope reasons and the URLs in flight. It is a crawl.Observer of
// the run: told of its crawl.log lines and of what goes through its frontier; it keeps nothing
// until start is called. Its size grows with the number of hosts and scope reasons, not URLs.
type state struct {
	mu       sync.Mutex // guards everything below
	on       bool
	timeline *report.Timeline
	hosts    map[string]*hostFigures
	reasons  map[string]int64
	current  map[*frontier.Claim]claim
}

// hostFigures is one host's figures in this run.
type hostFigures struct {
	added, finished           int64 // queued in this run; claims finished (done or failed) in this run
	captured, failed, leftOut int64 // crawl.log lines by outcome; left out: scope, rules, robots.txt
}

// claim is a URL in flight.
type claim struct {
	url, host string
	since     time.Time
}

// start turns the live state on; the timeline's intervals start at the run's start.
func (s *state) start(run time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = true
	s.timeline = report.NewTimeline(run)
	s.hosts, s.reasons, s.current = map[string]*hostFigures{}, map[string]int64{}, map[*frontier.Claim]claim{}
}

// hostOf is the host a URL counts under on the live page (as in the reports: the lowercased
// name, without port).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "-"
	}
	return strings.ToLower(u.Hostname())
}

// host returns the figures of h, made on first use. s.mu must be held.
func (s *state) host(h string) *hostFigures {
	lh := s.hosts[h]
	if lh == nil {
		lh = &hostFigures{}
		s.hosts[h] = lh
	}
	return lh
}

// Line counts a crawl.log line.
func (s *state) Line(l report.Line) {
	o := report.LineOutcome(l)
	reason := report.LineReason(l)
	h := hostOf(l.URL)
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
func (s *state) Added(u string) {
	h := hostOf(u)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.host(h).added++
	}
}

// Claimed adds a claim to the URLs in flight.
func (s *state) Claimed(cl *frontier.Claim) {
	c := claim{url: cl.URL.URL, host: hostOf(cl.URL.URL), since: time.Now()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.current[cl] = c
	}
}

// Released takes a claim off the URLs in flight; finished counts it as finished for its host
// (done or failed, as opposed to queued again).
func (s *state) Released(cl *frontier.Claim, finished bool) {
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

// hostsTop is the number of hosts the live page lists.
const hostsTop = 25

// View is the live page's data, served as JSON on GET /live.json: the Snapshot, and what
// report.html shows, so far.
type View struct {
	Status crawl.Snapshot `json:"status"`
	// IntervalSeconds is the length of each of Timeline's intervals.
	IntervalSeconds float64           `json:"interval_seconds"`
	Timeline        []report.Interval `json:"timeline"`
	// Hosts are the 25 hosts with the most URLs in this run; HostCount counts all.
	Hosts     []Host   `json:"hosts"`
	HostCount int      `json:"host_count"`
	Scope     []Reason `json:"scope"`   // URLs left out in this run, by reason, most first
	Current   []URL    `json:"current"` // the URLs in flight, the longest first
}

// Host is one host's figures of this run: URLs queued (or in flight), captured, failed and
// left out (scope, rules, robots.txt); URLs is their sum.
type Host struct {
	Host     string `json:"host"`
	URLs     int64  `json:"urls"`
	Queued   int64  `json:"queued"`
	Captured int64  `json:"captured"`
	Failed   int64  `json:"failed"`
	LeftOut  int64  `json:"left_out"`
}

// Reason counts the URLs left out for one scope reason.
type Reason struct {
	Reason string `json:"reason"`
	URLs   int64  `json:"urls"`
}

// URL is a URL in flight: claimed by a worker Seconds ago.
type URL struct {
	URL     string  `json:"url"`
	Host    string  `json:"host"`
	Seconds float64 `json:"seconds"`
}

// view returns the live page's data; snap is the crawl's snapshot now.
func (s *state) view(snap crawl.Snapshot) View {
	v := View{Status: snap, Hosts: []Host{}, Scope: []Reason{}, Current: []URL{}, Timeline: []report.Interval{}}
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
		v.Hosts = append(v.Hosts, Host{Host: h, URLs: q + lh.captured + lh.failed + lh.leftOut, Queued: q,
			Captured: lh.captured, Failed: lh.failed, LeftOut: lh.leftOut})
	}
	v.HostCount = len(v.Hosts)
	slices.SortFunc(v.Hosts, func(a, b Host) int {
		if c := cmp.Compare(b.URLs, a.URLs); c != 0 {
			return c
		}
		return strings.Compare(a.Host, b.Host)
	})
	v.Hosts = v.Hosts[:min(len(v.Hosts), hostsTop)]
	for r, n := range s.reasons {
		v.Scope = append(v.Scope, Reason{Reason: r, URLs: n})
	}
	slices.SortFunc(v.Scope, func(a, b Reason) int {
		if c := cmp.Compare(b.URLs, a.URLs); c != 0 {
			return c
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	for _, c := range s.current {
		v.Current = append(v.Current, URL{URL: c.url, Host: c.host, Seconds: now.Sub(c.since).Seconds()})
	}
	slices.SortFunc(v.Current, func(a, b URL) int {
		if c := cmp.Compare(b.Seconds, a.Seconds); c != 0 {
			return c
		}
		return strings.Compare(a.URL, b.URL)
	})
	return v
}
