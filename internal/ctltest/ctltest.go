// Package ctltest holds helpers shared by the tests of live control and of the status server:
// a site whose pages can be held (so a crawl keeps running while a test steers it), a crawl
// configuration of it, and a run started in the background once its control socket answers.
package ctltest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/scope"
)

// Site serves a few hosts (all on one 127.0.0.1 listener, told apart by Host) and counts
// every request. A page with a gate answers only once its gate is closed (or the request is
// cancelled).
type Site struct {
	Srv   *httptest.Server
	Pages map[string][]string // host+path -> links

	mu    sync.Mutex
	hits  map[string][]time.Time // host+path -> when each request came
	gates map[string]chan struct{}
}

// StartSite starts the site until the test ends: a.test (/, /p1, /later, two calendar pages
// blocked by the tests), b.test, c.test (three pages), new.test, d.test and slow.test.
func StartSite(t *testing.T) *Site {
	s := &Site{
		Pages: map[string][]string{
			"a.test/":           {"/p1", "/calendar/1", "/later"},
			"a.test/p1":         nil,
			"a.test/later":      {"/calendar/2"},
			"new.test/":         nil,
			"b.test/":           {"/calendar/5"},
			"b.test/calendar/5": nil,
			"c.test/":           {"/1", "/2", "/3"},
			"c.test/1":          nil, "c.test/2": nil, "c.test/3": nil,
			"slow.test/": nil,
			"d.test/":    nil,
		},
		hits:  map[string][]time.Time{},
		gates: map[string]chan struct{}{},
	}
	s.Srv = httptest.NewServer(s)
	t.Cleanup(s.Srv.Close)
	return s
}

func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Host + r.URL.Path
	s.mu.Lock()
	s.hits[key] = append(s.hits[key], time.Now())
	gate := s.gates[key]
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	links, ok := s.Pages[key]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprint(w, "<html><body>")
	for _, l := range links {
		fmt.Fprintf(w, `<a href="%s">%s</a>`, l, l)
	}
	fmt.Fprint(w, "</body></html>")
}

// Gate holds requests for key (host+path) until the returned channel is closed.
func (s *Site) Gate(key string) chan struct{} {
	ch := make(chan struct{})
	s.mu.Lock()
	s.gates[key] = ch
	s.mu.Unlock()
	return ch
}

// Count is the number of requests for key (host+path) so far.
func (s *Site) Count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hits[key])
}

// Total is the number of requests so far.
func (s *Site) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hits {
		n += len(h)
	}
	return n
}

// Times are the times of the requests for keys, in order.
func (s *Site) Times(keys ...string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ts []time.Time
	for _, k := range keys {
		ts = append(ts, s.hits[k]...)
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	return ts
}

// Addr is the site's host:port.
func (s *Site) Addr() string { return s.Srv.Listener.Addr().String() }

// Config is a crawl into dir of the server at addr (host:port: every host name is sent
// there), seeded with a.test/ and slow.test/ (Site's), with no delay between requests and one
// at a time per host.
func Config(t *testing.T, addr, dir string) crawl.Config {
	t.Helper()
	ct, err := fetch.ParseConnectTo("::" + addr)
	if err != nil {
		t.Fatal(err)
	}
	cfg := crawl.DefaultConfig()
	cfg.Dir = dir
	cfg.Collection = "test"
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://a.test/"}, {URL: "http://slow.test/"}}}
	cfg.Workers = 4
	cfg.HostDelay = 0
	cfg.HostConcurrency = 1
	cfg.MaxAttempts = 2
	cfg.RetryDelay = 10 * time.Millisecond
	cfg.ProgressEvery = -1
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true, ConnectTo: []fetch.ConnectTo{ct}}
	return cfg
}

// WaitFor polls cond until it holds; it fails the test after a generous deadline (a hung
// crawl, not a slow one).
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Result is how a run started by Start ended.
type Result struct {
	Res crawl.Result
	Err error
}

// Start runs the crawl cfg (whose Services have a ctl.Service) in the background and returns
// once its control socket answers; the channel receives the run's result.
func Start(t *testing.T, cfg crawl.Config) chan Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() {
		res, err := crawl.Run(context.Background(), cfg)
		done <- Result{res, err}
	}()
	WaitFor(t, "the control socket", func() bool {
		_, err := ctl.Send(t.Context(), cfg.Dir, ctl.Request{Command: ctl.CmdStatus})
		return err == nil
	})
	return done
}
