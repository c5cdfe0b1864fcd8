package crawl_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// startFunc is a Service that runs a function at Start and does nothing else.
type startFunc func(h *crawl.Handle) error

func (f startFunc) Start(h *crawl.Handle) error { return f(h) }
func (startFunc) Drain()                        {}
func (startFunc) Stop()                         {}

// TestHandleChanges makes the Handle's changes one after the other, as live control makes
// them, at the start of a run: each row is a change, whether the crawl refuses it
// (ErrRefused: the asker's mistake), and what the Handle says afterwards. The run then crawls
// with the changes in force: the seed added is crawled, the limit counts.
func TestHandleChanges(t *testing.T) {
	site := startBasic(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.HostDelays = map[string]time.Duration{"www.example.com": 0}
	rule := func(s string) scope.Rule {
		r, err := scope.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	type state struct {
		Paused     bool
		Limit      int64
		Block      []string
		HostDelays map[string]time.Duration
	}
	tests := []struct {
		name    string
		change  func(h *crawl.Handle) error
		refused bool
		want    state
	}{
		{"pause", func(h *crawl.Handle) error { h.Pause(true); return nil }, false,
			state{true, 0, nil, map[string]time.Duration{"www.example.com": 0}}},
		{"resume", func(h *crawl.Handle) error { h.Pause(false); return nil }, false,
			state{false, 0, nil, map[string]time.Duration{"www.example.com": 0}}},
		{"limit", func(h *crawl.Handle) error { return h.SetLimit(1000) }, false,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0}}},
		{"negative limit", func(h *crawl.Handle) error { return h.SetLimit(-1) }, true,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0}}},
		{"host delay", func(h *crawl.Handle) error { return h.SetHostDelay("cdn.example.net", 2*time.Millisecond) }, false,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": 2 * time.Millisecond}}},
		{"host delay replaced", func(h *crawl.Handle) error { return h.SetHostDelay("cdn.example.net", time.Millisecond) }, false,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"no host", func(h *crawl.Handle) error { return h.SetHostDelay("", time.Second) }, true,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"negative delay", func(h *crawl.Handle) error { return h.SetHostDelay("a.test", -time.Second) }, true,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"block", func(h *crawl.Handle) error { return h.Block(rule("contains:/nothing/")) }, false,
			state{false, 1000, []string{"contains:/nothing/"}, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"block twice", func(h *crawl.Handle) error { return h.Block(rule("contains:/nothing/")) }, true,
			state{false, 1000, []string{"contains:/nothing/"}, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"unblock what is not blocked", func(h *crawl.Handle) error { return h.Unblock(rule("contains:/other/")) }, true,
			state{false, 1000, []string{"contains:/nothing/"}, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"unblock", func(h *crawl.Handle) error { return h.Unblock(rule("contains:/nothing/")) }, false,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"add seed", func(h *crawl.Handle) error { return h.AddSeed("http://other.example.org/") }, false,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"add seed twice, another spelling", func(h *crawl.Handle) error { return h.AddSeed("HTTP://Other.Example.org:80/") }, true,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"add a seed of the config", func(h *crawl.Handle) error { return h.AddSeed("http://www.example.com/") }, true,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
		{"add a seed that is no URL", func(h *crawl.Handle) error { return h.AddSeed("http://[::1") }, true,
			state{false, 1000, nil, map[string]time.Duration{"www.example.com": 0, "cdn.example.net": time.Millisecond}}},
	}
	var ran bool
	cfg.Services = []crawl.Service{startFunc(func(h *crawl.Handle) error {
		ran = true
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.change(h)
				if tt.refused != errors.Is(err, crawl.ErrRefused) || (!tt.refused && err != nil) {
					t.Errorf("err = %v, want refused %v", err, tt.refused)
				}
				got := state{Paused: h.Snapshot().Paused, Limit: h.Limit(), HostDelays: h.HostDelays()}
				for _, r := range h.BlockRules() {
					got.Block = append(got.Block, r.String())
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("after the change (-want +got):\n%s", diff)
				}
			})
		}
		return nil
	})}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished || !ran {
		t.Fatalf("run: end %q, err %v, services ran %v", res.End, err, ran)
	}
	lines := map[string]int{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		lines[l.URL] = l.Status
	}
	if s, ok := lines["http://other.example.org/"]; !ok || s == status.OutOfScope {
		t.Errorf("the seed added: crawl.log status %d (logged %v), want it crawled", s, ok)
	}
}

// TestHandleBlockRefusesQueued: a block rule made through the Handle refuses, when its turn
// comes, a URL queued before the rule, and the refusal is kept for a later run whose
// configuration has the rule.
func TestHandleBlockRefusesQueued(t *testing.T) {
	site := startBasic(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Workers = 1
	var once sync.Once
	cfg.Services = []crawl.Service{&observerService{line: func(h *crawl.Handle, l report.Line) {
		if l.URL == "http://www.example.com/" {
			// about.html is queued now, not yet claimed: one worker is busy here.
			once.Do(func() {
				if err := h.Block(mustRule(t, "contains:/about")); err != nil {
					t.Errorf("block: %v", err)
				}
			})
		}
	}}}
	if _, err := crawl.Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		if l.URL == "http://www.example.com/about.html" {
			got = fmt.Sprint(l.Status, " ", strings.Join(l.Annotations, ","))
		}
	}
	if want := fmt.Sprint(status.OutOfScope, " scope:block:contains:/about"); got != want {
		t.Errorf("about.html: crawl.log %q, want %q", got, want)
	}
}

func mustRule(t *testing.T, s string) scope.Rule {
	t.Helper()
	r, err := scope.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// observerService watches the run and calls line for each crawl.log line; it counts what
// goes through the frontier.
type observerService struct {
	h    *crawl.Handle
	line func(h *crawl.Handle, l report.Line)

	mu                        sync.Mutex
	lines, added              int
	claimed, released, before int
	finished                  int
	inFlight                  map[*frontier.Claim]bool
}

func (s *observerService) Start(h *crawl.Handle) error {
	s.h, s.inFlight = h, map[*frontier.Claim]bool{}
	return h.Watch(s)
}
func (*observerService) Drain() {}
func (*observerService) Stop()  {}

func (s *observerService) Line(l report.Line) {
	s.mu.Lock()
	s.lines++
	s.mu.Unlock()
	if s.line != nil {
		s.line(s.h, l)
	}
}

func (s *observerService) Added(string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.added++
}

func (s *observerService) Claimed(cl *frontier.Claim) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claimed++
	s.inFlight[cl] = true
}

func (s *observerService) Released(cl *frontier.Claim, finished bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.inFlight[cl] {
		s.before++ // released but never claimed through the watched frontier
	}
	delete(s.inFlight, cl)
	s.released++
	if finished {
		s.finished++
	}
}

// TestServiceObserver: an observer is told every crawl.log line of the run, every URL added
// and every claim, each claim released once; Watch outside Start is refused.
func TestServiceObserver(t *testing.T) {
	site := startBasic(t)
	cfg := basicConfig(t, site, t.TempDir())
	obs := &observerService{}
	var late *crawl.Handle
	cfg.Services = []crawl.Service{obs, startFunc(func(h *crawl.Handle) error { late = h; return nil })}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	lines := crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile))
	if obs.lines != len(lines) || obs.claimed == 0 || obs.released != obs.claimed || obs.before != 0 || len(obs.inFlight) != 0 {
		t.Errorf("observer: %d lines (crawl.log %d), %d claimed, %d released (%d never claimed), %d in flight",
			obs.lines, len(lines), obs.claimed, obs.released, obs.before, len(obs.inFlight))
	}
	if int64(obs.added) != res.Stats.Done+res.Stats.Failed+res.Stats.Queued+res.Stats.InFlight {
		t.Errorf("observer: %d added, frontier %+v", obs.added, res.Stats)
	}
	if err := late.Watch(obs); err == nil {
		t.Error("Watch after Start: no error")
	}
}

// recorder is a Service that records its calls, and what the crawl directory held at each.
type recorder struct {
	name  string
	fail  error // Start's error
	calls *[]string
	mu    *sync.Mutex
	dir   string
	h     *crawl.Handle
	final int64 // Snapshot().Fetched at Stop
}

func (r *recorder) note(call string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.calls = append(*r.calls, call+" "+r.name)
}

func (r *recorder) Start(h *crawl.Handle) error {
	r.h = h
	r.note("start")
	return r.fail
}

func (r *recorder) Drain() {
	ended := hasEvent(r.dir, report.ActionCrawlEnd)
	r.note(fmt.Sprintf("drain(ended %v)", ended))
}

func (r *recorder) Stop() {
	_, err := os.Stat(filepath.Join(r.dir, crawl.ReportsDir, "report.html"))
	r.final = r.h.Snapshot().Fetched
	r.note(fmt.Sprintf("stop(ended %v, reports %v)", hasEvent(r.dir, report.ActionCrawlEnd), err == nil))
}

// hasEvent reports whether the crawl directory's events.jsonl has an event of action.
func hasEvent(dir, action string) bool {
	b, _ := os.ReadFile(filepath.Join(dir, crawl.EventsFile))
	return strings.Contains(string(b), `"event.action":"`+action+`"`)
}

// TestServiceOrder: services start in order before the first claim; they are drained in
// reverse order before the run's end is written, and stopped in reverse order after it and
// the reports; a service that fails to start ends the run with its error, and those started
// before it are drained and stopped.
func TestServiceOrder(t *testing.T) {
	site := startBasic(t)
	errNo := errors.New("no")
	tests := []struct {
		name    string
		fails   string // the service whose Start fails
		want    []string
		wantErr error
	}{
		{"all start", "", []string{"start a", "start b", "start c",
			"drain(ended false) c", "drain(ended false) b", "drain(ended false) a",
			"stop(ended true, reports true) c", "stop(ended true, reports true) b", "stop(ended true, reports true) a"}, nil},
		{"second fails", "b", []string{"start a", "start b", "drain(ended false) a", "stop(ended true, reports true) a"}, errNo},
		{"first fails", "a", []string{"start a"}, errNo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := basicConfig(t, site, t.TempDir())
			var calls []string
			var mu sync.Mutex
			var rs []*recorder
			for _, n := range []string{"a", "b", "c"} {
				r := &recorder{name: n, calls: &calls, mu: &mu, dir: cfg.Dir}
				if n == tt.fails {
					r.fail = errNo
				}
				rs = append(rs, r)
				cfg.Services = append(cfg.Services, r)
			}
			res, err := crawl.Run(t.Context(), cfg)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("run: %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if tt.wantErr == nil {
				if rs[0].final != res.Fetched || res.Fetched == 0 {
					t.Errorf("Snapshot at Stop: %d fetched, the run's result %d", rs[0].final, res.Fetched)
				}
			} else if slices.Contains(calls, "start c") {
				t.Error("a service started after one failed")
			}
		})
	}
}
