package sitelimit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/sitelimit"
	"github.com/amber-crawler/amber/status"
)

// TestConfigValidate: the invalid fields are named as written in Go.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		cfg   sitelimit.Config
		field string // "" for valid
	}{
		{"zero", sitelimit.Config{}, ""},
		{"all set", sitelimit.Config{URLsPerHost: 10, MaxHostFailures: 3, MaxBackoff: time.Minute}, ""},
		{"negative URLsPerHost", sitelimit.Config{URLsPerHost: -1}, "URLsPerHost"},
		{"negative MaxHostFailures", sitelimit.Config{MaxHostFailures: -1}, "MaxHostFailures"},
		{"negative MaxBackoff", sitelimit.Config{MaxBackoff: -time.Second}, "MaxBackoff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			var fe *chain.FieldError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field):
				t.Errorf("Validate() = %v, want a *chain.FieldError for %s", err, tt.field)
			}
		})
	}
}

func hostKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// openFront opens the crawl's own frontier in dir, closed at the end of the test.
func openFront(t *testing.T, dir string) *frontier.Frontier {
	t.Helper()
	f, err := frontier.Open(frontier.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// openEvents opens an events log in the test's directory; path is where it is.
func openEvents(t *testing.T) (ev *report.Events, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "events.jsonl")
	ev, err := report.OpenEvents(path, report.EventsConfig{CrawlID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	return ev, path
}

// readEvents returns the events of path, one JSON object a line.
func readEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var es []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		es = append(es, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return es
}

// limiterOpts are a test limiter's settings besides its Config.
type limiterOpts struct {
	front    chain.Frontier
	counters frontier.Counters
	events   *report.Events
	retry    time.Duration
	maxURLs  map[string]int64 // the MaxURLs of the hosts of sub-requests
}

func newLimiter(cfg sitelimit.Config, o limiterOpts) *sitelimit.Limiter {
	env := chain.Env{Log: slog.New(slog.DiscardHandler), Events: o.events, Front: o.front}
	return sitelimit.New(cfg, env, o.counters, o.retry, sitelimit.Deps{HostKey: hostKey,
		URLsPerHost: func(sub frontier.URL) int64 { return o.maxURLs[sub.Host] }})
}

// record returns a record of the claimed URL raw whose settings allow max URLs of its host,
// with the exchanges of urls once fetched (none: not fetched).
func record(raw string, max int64, urls ...string) *chain.Record {
	u := frontier.URL{URL: raw, Host: hostKey(raw), Hops: "L", Via: "http://seed.example/", Seed: "http://seed.example/"}
	r := &chain.Record{Claim: frontier.NewClaim(u, nil), Settings: &chain.Settings{URLsPerHost: max}}
	if len(urls) > 0 {
		r.Result = &fetch.Result{}
		for _, x := range urls {
			r.Result.Exchanges = append(r.Result.Exchanges, &fetch.Exchange{URL: x})
		}
	}
	return r
}

// fetched runs r through the limiter as the crawl runs a URL that got a response: Before,
// After, Recorded, Release. It returns Before's verdict; a refused URL goes no further.
func fetched(t *testing.T, l *sitelimit.Limiter, r *chain.Record) chain.Verdict {
	t.Helper()
	v, err := l.Before(t.Context(), r)
	if err != nil {
		t.Fatalf("Before(%s): %v", r.URL().URL, err)
	}
	if v.Done {
		l.Release(r)
		return v
	}
	if r.Result == nil {
		r.Result = &fetch.Result{Exchanges: []*fetch.Exchange{{URL: r.URL().URL}}}
	}
	if _, err := l.After(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if err := l.Recorded(r); err != nil {
		t.Fatalf("Recorded(%s): %v", r.URL().URL, err)
	}
	l.Release(r)
	return v
}

var maxDoc = chain.Finish(chain.Outcome{Status: status.OutOfScope, Annotations: []string{"scope:" + sitelimit.ReasonMaxDoc},
	Denied: report.DenyOutOfScope, ScopeReason: sitelimit.ReasonMaxDoc})

var verdictOpts = []cmp.Option{cmpopts.EquateErrors(), cmpopts.EquateEmpty()}

// TestURLsPerHost: a host's URLs are reserved before their fetch, refused past the limit in force
// for the URL (its settings), given back when they got no response and kept once recorded,
// durably: a new Limiter on the same store (a resumed crawl) goes on from the count.
func TestURLsPerHost(t *testing.T) {
	dir := t.TempDir()
	f := openFront(t, dir)
	l := newLimiter(sitelimit.Config{}, limiterOpts{front: f})

	// Two URLs under way take the host's two places.
	a, b := record("http://a.example/1", 2), record("http://a.example/2", 2)
	for _, r := range []*chain.Record{a, b} {
		if v, err := l.Before(t.Context(), r); err != nil || v.Done {
			t.Fatalf("Before(%s) = %+v, %v; want Proceed", r.URL().URL, v, err)
		}
	}
	c := record("http://a.example/3", 2)
	if v, err := l.Before(t.Context(), c); err != nil || cmp.Diff(maxDoc, v, verdictOpts...) != "" {
		t.Errorf("Before(3) with both places reserved = %+v, %v; want %+v", v, err, maxDoc)
	}
	l.Release(c) // a refused URL reserved nothing
	// Another host, and a URL whose settings set no limit, are not bound.
	if v := fetched(t, l, record("http://b.example/1", 2)); v.Done {
		t.Errorf("another host refused: %+v", v)
	}
	if v := fetched(t, l, record("http://a.example/unbound", 0)); v.Done {
		t.Errorf("a URL without a limit refused: %+v", v)
	}
	// b got no response: its place is given back, and taken by d.
	l.Release(b)
	d := record("http://a.example/4", 2)
	if v, err := l.Before(t.Context(), d); err != nil || v.Done {
		t.Fatalf("Before(4) after a place was given back = %+v, %v; want Proceed", v, err)
	}
	// a and d got responses: the host has had its two URLs.
	for _, r := range []*chain.Record{a, d} {
		r.Result = &fetch.Result{Exchanges: []*fetch.Exchange{{URL: r.URL().URL}}}
		if err := l.Recorded(r); err != nil {
			t.Fatal(err)
		}
		l.Release(r)
	}
	if v := fetched(t, l, record("http://a.example/5", 2)); cmp.Diff(maxDoc, v, verdictOpts...) != "" {
		t.Errorf("Before(5) after two URLs fetched = %+v, want max-doc", v)
	}
	// A URL whose settings allow more (its subcollection's) is let in.
	if v := fetched(t, l, record("http://a.example/6", 3)); v.Done {
		t.Errorf("Before(6) with a limit of 3 = %+v, want Proceed", v)
	}

	// A resumed crawl: the counts are the frontier's.
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openFront(t, dir)
	resumed := newLimiter(sitelimit.Config{}, limiterOpts{front: f})
	tests := []struct {
		name string
		max  int64
		want chain.Verdict
	}{
		{"limit reached", 3, maxDoc},
		{"limit raised", 4, chain.Proceed},
		{"another host", 1, chain.Proceed},
	}
	for _, tt := range tests {
		t.Run("resumed/"+tt.name, func(t *testing.T) {
			u := "http://a.example/next"
			if tt.name == "another host" {
				u = "http://c.example/1"
			}
			r := record(u, tt.max)
			v, err := resumed.Before(t.Context(), r)
			if err != nil {
				t.Fatal(err)
			}
			resumed.Release(r)
			if diff := cmp.Diff(tt.want, v, verdictOpts...); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

// memCounters is a shared frontier's counters, in memory; it fails with err when set.
type memCounters struct {
	mu  sync.Mutex // guards m
	m   map[string]int64
	err error
}

func (c *memCounters) AddCounter(key string, delta int64) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	c.m[key] += delta
	return c.m[key], nil
}

func (c *memCounters) get(key string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

// TestMaxURLsShared: with a shared frontier the reservations are its counter's: taken before
// the fetch, given back on refusal and release, kept (as they are) once recorded; the
// frontier's metadata is not written.
func TestMaxURLsShared(t *testing.T) {
	ctr := &memCounters{m: map[string]int64{}}
	f := openFront(t, t.TempDir())
	l := newLimiter(sitelimit.Config{}, limiterOpts{front: f, counters: ctr, maxURLs: map[string]int64{"cdn.example": 1}})
	const key = "site/a.example"

	a, b := record("http://a.example/1", 2), record("http://a.example/2", 2)
	for _, r := range []*chain.Record{a, b} {
		if v, err := l.Before(t.Context(), r); err != nil || v.Done {
			t.Fatalf("Before(%s) = %+v, %v; want Proceed", r.URL().URL, v, err)
		}
	}
	steps := []struct {
		name string
		do   func() chain.Verdict
		want chain.Verdict
		n    int64 // the counter after the step
	}{
		{"two reserved", func() chain.Verdict { return chain.Proceed }, chain.Proceed, 2},
		{"third refused, given back", func() chain.Verdict {
			r := record("http://a.example/3", 2)
			v, _ := l.Before(t.Context(), r)
			l.Release(r)
			return v
		}, maxDoc, 2},
		{"one without a response given back", func() chain.Verdict { l.Release(b); return chain.Proceed }, chain.Proceed, 1},
		{"one recorded kept", func() chain.Verdict {
			a.Result = &fetch.Result{Exchanges: []*fetch.Exchange{{URL: a.URL().URL}}}
			if err := l.Recorded(a); err != nil {
				t.Fatal(err)
			}
			l.Release(a)
			return chain.Proceed
		}, chain.Proceed, 1},
		{"one more fetched", func() chain.Verdict { return fetched(t, l, record("http://a.example/4", 2)) }, chain.Proceed, 2},
		{"limit reached", func() chain.Verdict { return fetched(t, l, record("http://a.example/5", 2)) }, maxDoc, 2},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if diff := cmp.Diff(st.want, st.do(), verdictOpts...); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if got := ctr.get(key); got != st.n {
				t.Errorf("counter %s = %d, want %d", key, got, st.n)
			}
		})
	}
	// Sub-requests: one of cdn.example's, the other refused; the one archived is kept.
	page := record("http://b.example/", 0, "http://b.example/", "http://cdn.example/x.css")
	sub := frontier.URL{URL: "http://cdn.example/x.css", Host: "cdn.example"}
	if v, err := l.Admit(t.Context(), page, sub); err != nil || v.Done {
		t.Fatalf("Admit = %+v, %v; want Proceed", v, err)
	}
	if v, err := l.Admit(t.Context(), page, frontier.URL{URL: "http://cdn.example/y.css", Host: "cdn.example"}); err != nil || cmp.Diff(maxDoc, v, verdictOpts...) != "" {
		t.Errorf("second Admit = %+v, %v; want max-doc", v, err)
	}
	if err := l.Recorded(page); err != nil {
		t.Fatal(err)
	}
	l.Release(page)
	if got := ctr.get("site/cdn.example"); got != 1 {
		t.Errorf("counter of cdn.example = %d, want 1", got)
	}
	// The counts are the server's, not this frontier's.
	if err := f.ScanMeta("", func(key string, _ []byte) error {
		t.Errorf("metadata %s written with a shared frontier", key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A counter that cannot be had stops the crawl.
	ctr.err = errors.New("redis: connection refused")
	if _, err := l.Before(t.Context(), record("http://a.example/6", 9)); !errors.Is(err, ctr.err) {
		t.Errorf("Before with the counters down = %v, want their error", err)
	}
}

// TestAdmit: each sub-request of a host with a limit reserves one of its URLs; Recorded keeps
// one for each exchange of the host in the Result beyond the first (the claimed URL's own),
// and Release gives the rest back; a fetch that recorded nothing gives them all back.
func TestAdmit(t *testing.T) {
	f := openFront(t, t.TempDir())
	l := newLimiter(sitelimit.Config{}, limiterOpts{front: f, maxURLs: map[string]int64{"cdn.example": 3, "a.example": 2}})
	sub := func(raw string) frontier.URL { return frontier.URL{URL: raw, Host: hostKey(raw), Hops: "E"} }

	// A page of a.example (no limit of its own) loads three of cdn.example's files and one of
	// its own host's, but only two of the cdn's and its own were archived (with a file of a
	// host without a limit, which reserved nothing).
	page := record("http://a.example/", 0, "http://a.example/", "http://cdn.example/1.css", "http://free.example/x.js",
		"http://a.example/i.png", "http://cdn.example/2.js")
	for _, s := range []string{"http://cdn.example/1.css", "http://cdn.example/2.js", "http://cdn.example/3.png", "http://a.example/i.png"} {
		if v, err := l.Admit(t.Context(), page, sub(s)); err != nil || v.Done {
			t.Fatalf("Admit(%s) = %+v, %v; want Proceed", s, v, err)
		}
	}
	if v, err := l.Admit(t.Context(), page, sub("http://cdn.example/4.png")); err != nil || cmp.Diff(maxDoc, v, verdictOpts...) != "" {
		t.Errorf("Admit of a fourth file of the cdn = %+v, %v; want max-doc", v, err)
	}
	if v, err := l.Admit(t.Context(), page, sub("http://free.example/x.js")); err != nil || v.Done {
		t.Errorf("Admit of a host without a limit = %+v, %v; want Proceed", v, err)
	}
	if err := l.Recorded(page); err != nil {
		t.Fatal(err)
	}
	l.Release(page)

	// A page that got no response gives its reservations back.
	lost := record("http://b.example/", 0)
	if v, err := l.Admit(t.Context(), lost, sub("http://cdn.example/5.css")); err != nil || v.Done {
		t.Fatalf("Admit for the lost page = %+v, %v; want Proceed", v, err)
	}
	l.Release(lost)

	// The cdn has had two of its three URLs, a.example one of its two: what is left of each.
	tests := []struct {
		host string
		left int
	}{
		{"cdn.example", 1},
		{"a.example", 1},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			r := record("http://"+tt.host+"/next", 0)
			got := 0
			for i := range 5 {
				v, err := l.Admit(t.Context(), r, sub(fmt.Sprintf("http://%s/more/%d", tt.host, i)))
				if err != nil {
					t.Fatal(err)
				}
				if v.Done {
					break
				}
				got++
			}
			l.Release(r)
			if got != tt.left {
				t.Errorf("%d more sub-requests admitted, want %d", got, tt.left)
			}
		})
	}
}

// kindErr is a failed request of kind k.
func kindErr(k fetch.ErrorKind) error {
	return &fetch.Error{Kind: k, URL: "http://down.example/x", Err: errors.New("no")}
}

// TestMaxHostFailures: a host is given up once more than MaxHostFailures of its requests in a row got
// no response through its fault; its later URLs (and sub-requests) end with the status of its
// last failure, and one event says so. A failure not the host's is not counted.
func TestMaxHostFailures(t *testing.T) {
	tests := []struct {
		name string
		errs []error
		want int // the status given-up URLs get; 0: not given up
	}{
		{"dns", []error{kindErr(fetch.DNS), kindErr(fetch.DNS)}, status.DNSFailed},
		{"connect", []error{kindErr(fetch.Connect), kindErr(fetch.Connect)}, status.ConnectFailed},
		{"timeout", []error{kindErr(fetch.Timeout), kindErr(fetch.Timeout)}, status.Timeout},
		{"tls", []error{kindErr(fetch.TLS), kindErr(fetch.TLS)}, status.ConnectFailed},
		{"broken", []error{kindErr(fetch.Broken), kindErr(fetch.Broken)}, status.ConnectBroken},
		{"protocol", []error{kindErr(fetch.Protocol), kindErr(fetch.Protocol)}, status.ConnectBroken},
		{"browser failure", []error{errors.New("page crashed"), errors.New("page crashed")}, status.ConnectBroken},
		{"the last failure's status", []error{kindErr(fetch.DNS), kindErr(fetch.Timeout)}, status.Timeout},
		{"one is not enough", []error{kindErr(fetch.Connect)}, 0},
		{"address refused: not the host's", []error{kindErr(fetch.Blocked), kindErr(fetch.Blocked)}, 0},
		{"invalid URL: not the host's", []error{kindErr(fetch.InvalidURL), kindErr(fetch.InvalidURL)}, 0},
		{"cancelled: not the host's", []error{kindErr(fetch.Canceled), kindErr(fetch.Canceled)}, 0},
		{"proxy: not the host's", []error{kindErr(fetch.ProxyAuth), kindErr(fetch.ProxyAuth)}, 0},
		{"not the host's between: still in a row", []error{kindErr(fetch.Connect), kindErr(fetch.Blocked), kindErr(fetch.DNS)}, status.DNSFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, path := openEvents(t)
			l := newLimiter(sitelimit.Config{MaxHostFailures: 1}, limiterOpts{front: openFront(t, t.TempDir()), events: ev})
			for i, err := range tt.errs {
				r := record(fmt.Sprintf("http://down.example/%d", i), 0)
				if v, ferr := l.Failed(t.Context(), r, err); ferr != nil || v.Done {
					t.Fatalf("Failed = %+v, %v; want Proceed", v, ferr)
				}
			}
			want := chain.Proceed
			if tt.want != 0 {
				want = chain.Finish(chain.Outcome{Status: tt.want, Annotations: []string{sitelimit.NoteGivenUp}, FetchEvent: true})
			}
			v, err := l.Before(t.Context(), record("http://down.example/later", 0))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, v, verdictOpts...); diff != "" {
				t.Errorf("Before (-want +got):\n%s", diff)
			}
			sv, err := l.Admit(t.Context(), record("http://up.example/", 0), frontier.URL{URL: "http://down.example/x.css", Host: "down.example"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, sv, verdictOpts...); diff != "" {
				t.Errorf("Admit (-want +got):\n%s", diff)
			}
			if v, err := l.Before(t.Context(), record("http://up.example/", 0)); err != nil || v.Done {
				t.Errorf("another host: %+v, %v; want Proceed", v, err)
			}
			n := 0
			if tt.want != 0 {
				n = 1
			}
			if got := len(readEvents(t, path)); got != n {
				t.Errorf("%d events, want %d", got, n)
			}
		})
	}
}

// TestGivenUpEvent: the event of a host given up, written once however many failures follow.
func TestGivenUpEvent(t *testing.T) {
	ev, path := openEvents(t)
	l := newLimiter(sitelimit.Config{MaxHostFailures: 2}, limiterOpts{front: openFront(t, t.TempDir()), events: ev})
	u := frontier.URL{URL: "http://down.example/robots.txt", Hops: "LP", Via: "http://down.example/", Seed: "http://seed.example/"}
	for range 5 {
		if err := l.Failure("down.example", kindErr(fetch.Connect), u); err != nil {
			t.Fatal(err)
		}
	}
	es := readEvents(t, path)
	if len(es) != 1 {
		t.Fatalf("%d events, want 1: %v", len(es), es)
	}
	e := es[0]
	want := map[string]any{
		"event.action":    sitelimit.ActionGivenUp,
		"event.outcome":   "failure",
		"event.reason":    "max-host-failures",
		"labels.host":     "down.example",
		"labels.failures": "3",
		"url.full":        u.URL,
		"crawler.url.via": u.Via,
	}
	got := map[string]any{}
	for k := range want {
		got[k] = e[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Error("event without a message")
	}
}

// TestAnsweredResets: an answer ends a host's run of failures, through After or Answered (a
// robots.txt that answered).
func TestAnsweredResets(t *testing.T) {
	tests := []struct {
		name   string
		answer func(l *sitelimit.Limiter) error
	}{
		{"After", func(l *sitelimit.Limiter) error {
			_, err := l.After(context.Background(), record("http://down.example/ok", 0, "http://down.example/ok"))
			return err
		}},
		{"Answered", func(l *sitelimit.Limiter) error { l.Answered("down.example"); return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, path := openEvents(t)
			l := newLimiter(sitelimit.Config{MaxHostFailures: 2}, limiterOpts{front: openFront(t, t.TempDir()), events: ev})
			fail := func(n int) {
				for range n {
					if err := l.Failure("down.example", kindErr(fetch.Timeout), frontier.URL{URL: "http://down.example/"}); err != nil {
						t.Fatal(err)
					}
				}
			}
			fail(2)
			if err := tt.answer(l); err != nil {
				t.Fatal(err)
			}
			fail(2)
			if v, err := l.Before(t.Context(), record("http://down.example/x", 0)); err != nil || v.Done {
				t.Errorf("Before after 2+2 failures with an answer between = %+v, %v; want Proceed", v, err)
			}
			fail(1) // three in a row now
			if v, err := l.Before(t.Context(), record("http://down.example/x", 0)); err != nil || !v.Done {
				t.Errorf("Before after three failures in a row = %+v, %v; want the host given up", v, err)
			}
			if n := len(readEvents(t, path)); n != 1 {
				t.Errorf("%d events, want 1", n)
			}
		})
	}
}

// TestGivenUpEventFails: an event that cannot be written stops the crawl.
func TestGivenUpEventFails(t *testing.T) {
	ev, _ := openEvents(t)
	ev.Close()
	l := newLimiter(sitelimit.Config{MaxHostFailures: 1}, limiterOpts{front: openFront(t, t.TempDir()), events: ev})
	var err error
	for range 2 {
		err = l.Failure("down.example", kindErr(fetch.DNS), frontier.URL{URL: "http://down.example/"})
	}
	if !errors.Is(err, report.ErrEventsClosed) {
		t.Errorf("Failure with the events log closed = %v, want %v", err, report.ErrEventsClosed)
	}
}

// TestMaxBackoff: with MaxBackoff, a failure through the host's fault pauses the host in the
// frontier (no URL of it is claimed before the pause ends); without it, or for a failure that
// is not the host's, it is not paused.
func TestMaxBackoff(t *testing.T) {
	tests := []struct {
		name   string
		cfg    sitelimit.Config
		err    error
		paused bool
	}{
		{"paused", sitelimit.Config{MaxBackoff: 2 * time.Hour}, kindErr(fetch.Connect), true},
		{"no MaxBackoff", sitelimit.Config{}, kindErr(fetch.Connect), false},
		{"not the host's failure", sitelimit.Config{MaxBackoff: 2 * time.Hour}, kindErr(fetch.Blocked), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openFront(t, t.TempDir())
			l := newLimiter(tt.cfg, limiterOpts{front: f, retry: time.Hour})
			u := frontier.URL{URL: "http://down.example/", Host: "down.example"}
			if err := l.Failure(u.Host, tt.err, u); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Add(u); err != nil {
				t.Fatal(err)
			}
			wait := time.Minute // a host not paused is claimed at once
			if tt.paused {
				wait = 200 * time.Millisecond // a paused one is paused for an hour
			}
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			cl, err := f.Claim(ctx)
			if paused := errors.Is(err, context.DeadlineExceeded); paused != tt.paused {
				t.Errorf("Claim = %v, %v; host paused: %v, want %v", cl, err, paused, tt.paused)
			}
		})
	}
}

// failingMeta is a frontier whose metadata cannot be read or written.
type failingMeta struct {
	*frontier.Frontier
	err error
}

func (f failingMeta) Meta(string) ([]byte, bool, error) { return nil, false, f.err }
func (f failingMeta) PutMeta(string, []byte) error      { return f.err }

// TestCountErrors: a count that cannot be read or written stops the crawl.
func TestCountErrors(t *testing.T) {
	boom := errors.New("frontier: disk gone")
	f := openFront(t, t.TempDir())
	l := newLimiter(sitelimit.Config{}, limiterOpts{front: failingMeta{f, boom}})
	if _, err := l.Before(t.Context(), record("http://a.example/", 1)); !errors.Is(err, boom) {
		t.Errorf("Before with the count unreadable = %v, want %v", err, boom)
	}
	// Read from the real frontier, written to the failing one.
	w := newLimiter(sitelimit.Config{}, limiterOpts{front: failingPut{f, boom}})
	r := record("http://a.example/", 1, "http://a.example/")
	if v, err := w.Before(t.Context(), r); err != nil || v.Done {
		t.Fatalf("Before = %+v, %v; want Proceed", v, err)
	}
	if err := w.Recorded(r); !errors.Is(err, boom) {
		t.Errorf("Recorded with the count unwritable = %v, want %v", err, boom)
	}
}

// failingPut is a frontier whose metadata cannot be written.
type failingPut struct {
	*frontier.Frontier
	err error
}

func (f failingPut) PutMeta(string, []byte) error { return f.err }
