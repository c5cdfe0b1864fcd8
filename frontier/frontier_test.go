package frontier

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/amber-crawler/amber/status"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeClock is an injectable clock for politeness tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openT(t testing.TB, cfg Config) *Frontier {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	f, err := Open(cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return f
}

// tryClaim claims without blocking; nil when nothing is claimable now.
func tryClaim(t testing.TB, f *Frontier) *Claim {
	t.Helper()
	c, _, _, err := f.poll()
	if err != nil && !errors.Is(err, ErrDone) {
		t.Fatalf("poll: %v", err)
	}
	return c
}

func mustAdd(t testing.TB, f *Frontier, us ...URL) {
	t.Helper()
	for _, u := range us {
		if _, err := f.Add(u); err != nil {
			t.Fatalf("Add(%s): %v", u.URL, err)
		}
	}
}

func mustDone(t testing.TB, f *Frontier, c *Claim) {
	t.Helper()
	if err := f.Done(c); err != nil {
		t.Fatalf("Done(%s): %v", c.URL.URL, err)
	}
}

func u(host, path string) URL {
	return URL{URL: "http://" + host + path, Host: host}
}

// forget empties the cache of known URLs, so that what follows reads the store.
func forget(f *Frontier) {
	f.mu.Lock()
	f.known = newKnownCache(knownSize)
	f.mu.Unlock()
}

// cacheModes are the ways the tests that add and reject run: with the cache of known URLs
// (warm), and with it emptied before every step (cold), so that the answers come from the
// store.
var cacheModes = []struct {
	name string
	cold bool
}{{"warm", false}, {"cold", true}}

func TestAddSeen(t *testing.T) {
	for _, mode := range cacheModes {
		t.Run(mode.name, func(t *testing.T) { testAddSeen(t, mode.cold) })
	}
}

func testAddSeen(t *testing.T, cold bool) {
	f := openT(t, Config{})
	tests := []struct {
		name string
		add  URL
		want bool
	}{
		{"new", u("a.test", "/1"), true},
		{"seen", u("a.test", "/1"), false},
		{"other path", u("a.test", "/2"), true},
		{"same URL other fields", URL{URL: "http://a.test/1", Host: "b.test", Hops: "L", Priority: -1}, false},
		{"other host", u("b.test", "/1"), true},
		{"empty host", URL{URL: "dns:a.test"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if cold {
				forget(f)
			}
			got, err := f.Add(tt.add)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Add(%+v) = %v, want %v", tt.add, got, tt.want)
			}
		})
	}
	if _, err := f.Add(URL{}); !errors.Is(err, ErrURL) {
		t.Errorf("Add(empty) error = %v, want ErrURL", err)
	}
	if diff := cmp.Diff(Stats{Queued: 4}, f.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestAddBatch(t *testing.T) {
	long := string(make([]byte, 600))
	tests := []struct {
		name  string
		pre   []URL
		batch []URL
		want  []bool
	}{
		{"empty", nil, nil, []bool{}},
		{"all new", nil, []URL{u("a", "/1"), u("a", "/2"), u("b", "/1")}, []bool{true, true, true}},
		{"repeat within batch", nil, []URL{u("a", "/1"), u("a", "/1"), u("a", "/2")}, []bool{true, false, true}},
		{"some seen", []URL{u("a", "/1")}, []URL{u("a", "/1"), u("a", "/2")}, []bool{false, true}},
		{"many chunks", nil, func() []URL {
			var us []URL
			for i := range 5000 {
				us = append(us, URL{URL: fmt.Sprintf("http://h%d/%d", i%7, i), Host: fmt.Sprintf("h%d", i%7), Via: long})
			}
			return us
		}(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openT(t, Config{})
			mustAdd(t, f, tt.pre...)
			res, err := f.AddBatch(tt.batch)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]bool, len(res))
			for i, r := range res {
				if r.Err != nil {
					t.Errorf("AddBatch result %d: %v", i, r.Err)
				}
				got[i] = r.New
			}
			want := tt.want
			if want == nil {
				want = make([]bool, len(tt.batch))
				for i := range want {
					want[i] = true
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("AddBatch (-want +got):\n%s", diff)
			}
			n := 0
			for _, b := range got {
				if b {
					n++
				}
			}
			if q := f.Stats().Queued; q != int64(n+len(tt.pre)) {
				t.Errorf("Stats.Queued = %d, want %d", q, n+len(tt.pre))
			}
			// Every queued URL is claimable exactly once.
			seen := map[string]bool{}
			for c := tryClaim(t, f); c != nil; c = tryClaim(t, f) {
				if seen[c.URL.URL] {
					t.Fatalf("claimed %s twice", c.URL.URL)
				}
				seen[c.URL.URL] = true
				mustDone(t, f, c)
			}
			if len(seen) != n+len(tt.pre) {
				t.Errorf("claimed %d URLs, want %d", len(seen), n+len(tt.pre))
			}
		})
	}
}

// step is one action of an ordering scenario: add URLs, or claim (and finish) n URLs.
type step struct {
	add   []URL
	claim int
}

func p(path string, prio int) URL {
	x := u("h", path)
	x.Priority = prio
	return x
}

func TestOrder(t *testing.T) {
	var hundred []URL
	var hundredWant []string
	for i := range 100 {
		hundred = append(hundred, p(fmt.Sprintf("/%03d", i), 0))
		hundredWant = append(hundredWant, fmt.Sprintf("/%03d", i))
	}
	var prioBurst []URL
	var prioBurstWant []string
	for i := range 10 {
		prioBurst = append(prioBurst, p(fmt.Sprintf("/p%02d", i), -1))
		prioBurstWant = append(prioBurstWant, fmt.Sprintf("/p%02d", i))
	}
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{
			name:  "FIFO",
			steps: []step{{add: []URL{p("/a", 0), p("/b", 0), p("/c", 0)}}, {claim: 3}},
			want:  []string{"/a", "/b", "/c"},
		},
		{
			name:  "priority first",
			steps: []step{{add: []URL{p("/a", 0), p("/b", 5), p("/c", 0), p("/s", -1)}}, {claim: 4}},
			want:  []string{"/s", "/a", "/c", "/b"},
		},
		{
			name:  "FIFO beyond the read-ahead",
			steps: []step{{add: hundred}, {claim: 100}},
			want:  hundredWant,
		},
		{
			name: "priority added after the read-ahead was loaded",
			steps: []step{
				{add: hundred[:3]}, {claim: 2},
				{add: []URL{p("/pre", -1)}}, {claim: 2},
			},
			want: []string{"/000", "/001", "/pre", "/002"},
		},
		{
			name: "priority burst larger than the read-ahead",
			steps: []step{
				{add: hundred[:10]}, {claim: 1},
				{add: prioBurst}, {claim: 19},
			},
			want: append(append([]string{"/000"}, prioBurstWant...), hundredWant[1:10]...),
		},
		{
			name: "added while draining",
			steps: []step{
				{add: hundred[:5]}, {claim: 4},
				{add: hundred[5:10]}, {claim: 6},
			},
			want: hundredWant[:10],
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openT(t, Config{})
			f.readAhead = 3
			var got []string
			for _, s := range tt.steps {
				mustAdd(t, f, s.add...)
				for range s.claim {
					c := tryClaim(t, f)
					if c == nil {
						t.Fatalf("nothing to claim after %v", got)
					}
					got = append(got, c.URL.URL[len("http://h"):])
					mustDone(t, f, c)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("claim order (-want +got):\n%s", diff)
			}
			if c := tryClaim(t, f); c != nil {
				t.Errorf("extra claim %s", c.URL.URL)
			}
		})
	}
}

func TestHostConcurrency(t *testing.T) {
	const perHost, limit, workers = 40, 3, 8
	hosts := []string{"a.test", "b.test"}
	f := openT(t, Config{HostConcurrency: limit})
	var us []URL
	for i := range perHost {
		for _, h := range hosts {
			us = append(us, u(h, fmt.Sprintf("/%d", i)))
		}
	}
	if _, err := f.AddBatch(us); err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		active  = map[string]int{}
		maxSeen = map[string]int{}
		claimed = map[string]int{}
	)
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := f.Claim(ctx)
				if errors.Is(err, ErrDone) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				active[c.URL.Host]++
				maxSeen[c.URL.Host] = max(maxSeen[c.URL.Host], active[c.URL.Host])
				claimed[c.URL.URL]++
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				active[c.URL.Host]--
				mu.Unlock()
				if err := f.Done(c); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if maxSeen[h] > limit {
			t.Errorf("host %s had %d in flight, limit %d", h, maxSeen[h], limit)
		}
	}
	if len(claimed) != len(us) {
		t.Errorf("claimed %d distinct URLs, want %d", len(claimed), len(us))
	}
	for k, n := range claimed {
		if n != 1 {
			t.Errorf("%s claimed %d times", k, n)
		}
	}
	if diff := cmp.Diff(Stats{Done: int64(len(us))}, f.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestManyHostsInParallel(t *testing.T) {
	f := openT(t, Config{HostDelay: time.Hour})
	for i := range 5 {
		h := fmt.Sprintf("h%d.test", i)
		mustAdd(t, f, u(h, "/1"), u(h, "/2"))
	}
	got := map[string]bool{}
	for range 5 {
		c := tryClaim(t, f)
		if c == nil {
			t.Fatalf("only %d hosts claimable, want 5", len(got))
		}
		if got[c.URL.Host] {
			t.Fatalf("host %s claimed twice at concurrency 1", c.URL.Host)
		}
		got[c.URL.Host] = true
	}
	if c := tryClaim(t, f); c != nil {
		t.Errorf("claimed %s with every host busy", c.URL.URL)
	}
}

func TestPoliteness(t *testing.T) {
	const host, noClaim = "a.test", "-"
	type action struct {
		advance time.Duration                    // move the clock first
		do      func(f *Frontier, now time.Time) // then act
		want    string                           // then claim: the path expected ("" none, noClaim: don't try)
		hold    time.Duration                    // the claim's fetch takes this long before Done
	}
	setDelay := func(d time.Duration) func(*Frontier, time.Time) {
		return func(f *Frontier, _ time.Time) { f.SetHostDelay(host, d) }
	}
	backoff := func(d time.Duration) func(*Frontier, time.Time) {
		return func(f *Frontier, now time.Time) { f.HostBackoff(host, now.Add(d)) }
	}
	override := func(d time.Duration) func(*Frontier, time.Time) {
		return func(f *Frontier, _ time.Time) { f.SetHostDelayOverride(host, d) }
	}
	tests := []struct {
		name  string
		delay time.Duration
		steps []action
	}{
		{
			name:  "no delay",
			steps: []action{{want: "/1"}, {want: "/2"}, {want: "/3"}},
		},
		{
			name:  "delay from the end of the fetch",
			delay: 5 * time.Second,
			steps: []action{
				{want: "/1", hold: 10 * time.Second},
				{advance: 4 * time.Second, want: ""},
				{advance: time.Second, want: "/2"},
				{want: ""},
			},
		},
		{
			name:  "crawl-delay raises the delay",
			delay: 5 * time.Second,
			steps: []action{
				{do: setDelay(20 * time.Second), want: "/1"},
				{advance: 19 * time.Second, want: ""},
				{advance: time.Second, want: "/2"},
			},
		},
		{
			name:  "crawl-delay set after the fetch ended",
			delay: 5 * time.Second,
			steps: []action{
				{want: "/1"},
				{advance: 4 * time.Second, do: setDelay(10 * time.Second), want: ""},
				{advance: 5 * time.Second, want: ""},
				{advance: time.Second, want: "/2"},
			},
		},
		{
			name:  "operator's delay below the configured delay and crawl-delay",
			delay: 5 * time.Second,
			steps: []action{
				{do: setDelay(20 * time.Second), want: "/1"},
				{advance: time.Second, do: override(2 * time.Second), want: ""},
				{advance: time.Second, want: "/2"},
			},
		},
		{
			name:  "operator's delay above the configured delay, then removed",
			delay: 5 * time.Second,
			steps: []action{
				{do: override(30 * time.Second), want: "/1"},
				{advance: 29 * time.Second, want: ""},
				{advance: time.Second, want: "/2"},
				{do: override(-1), advance: 4 * time.Second, want: ""},
				{advance: time.Second, want: "/3"},
			},
		},
		{
			name:  "crawl-delay never below the configured delay",
			delay: 5 * time.Second,
			steps: []action{
				{do: setDelay(time.Second), want: "/1"},
				{advance: 4 * time.Second, want: ""},
				{advance: time.Second, want: "/2"},
			},
		},
		{
			name: "backoff",
			steps: []action{
				{do: backoff(30 * time.Second), want: ""},
				{advance: 29 * time.Second, want: ""},
				{do: backoff(time.Second), want: ""}, // earlier: no effect
				{advance: time.Second, want: "/1"},
				{want: "/2"},
			},
		},
		{
			name:  "backoff during a fetch",
			delay: time.Second,
			steps: []action{
				{want: "/1", hold: time.Second},
				{do: backoff(time.Minute), want: ""},
				{advance: 59 * time.Second, want: ""},
				{advance: time.Second, want: "/2"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			f := openT(t, Config{HostDelay: tt.delay})
			f.now = clk.Now
			mustAdd(t, f, u(host, "/1"), u(host, "/2"), u(host, "/3"))
			for i, s := range tt.steps {
				clk.Advance(s.advance)
				if s.do != nil {
					s.do(f, clk.Now())
				}
				if s.want == noClaim {
					continue
				}
				c := tryClaim(t, f)
				got := ""
				if c != nil {
					got = c.URL.URL[len("http://"+host):]
					clk.Advance(s.hold)
					mustDone(t, f, c)
				}
				if got != s.want {
					t.Fatalf("step %d: claimed %q, want %q", i, got, s.want)
				}
			}
		})
	}
}

func TestPolitenessIsPerHost(t *testing.T) {
	clk := newFakeClock()
	f := openT(t, Config{HostDelay: time.Minute})
	f.now = clk.Now
	mustAdd(t, f, u("a.test", "/1"), u("a.test", "/2"), u("b.test", "/1"), u("c.test", "/1"))
	f.HostBackoff("c.test", clk.Now().Add(time.Hour))
	f.SetHostDelay("b.test", time.Hour)
	var got []string
	for c := tryClaim(t, f); c != nil; c = tryClaim(t, f) {
		got = append(got, c.URL.URL)
		mustDone(t, f, c)
	}
	want := []string{"http://a.test/1", "http://b.test/1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	clk.Advance(time.Minute)
	if c := tryClaim(t, f); c == nil || c.URL.URL != "http://a.test/2" {
		t.Errorf("claim after a minute = %v, want a.test/2", c)
	}
}

func TestHostDelayWallClock(t *testing.T) {
	const delay = 100 * time.Millisecond
	f := openT(t, Config{HostDelay: delay})
	mustAdd(t, f, u("a.test", "/1"), u("a.test", "/2"))
	ctx := t.Context()
	c, err := f.Claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a fetch that takes a while: the delay starts at its end
	ended := time.Now()
	mustDone(t, f, c)
	c, err = f.Claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(ended); waited < delay {
		t.Errorf("second claim %v after the first fetch ended, want >= %v", waited, delay)
	}
	mustDone(t, f, c)
	if _, err := f.Claim(ctx); !errors.Is(err, ErrDone) {
		t.Errorf("Claim = %v, want ErrDone", err)
	}
}

func TestRetry(t *testing.T) {
	clk := newFakeClock()
	f := openT(t, Config{MaxAttempts: 3})
	f.now = clk.Now
	mustAdd(t, f, u("a.test", "/1"))

	type round struct {
		attempts int
		requeued bool
	}
	for i, w := range []round{{0, true}, {1, true}, {2, false}} {
		c := tryClaim(t, f)
		if c == nil {
			t.Fatalf("attempt %d: nothing claimable", i)
		}
		if c.URL.Attempts != w.attempts {
			t.Errorf("attempt %d: Attempts = %d, want %d", i, c.URL.Attempts, w.attempts)
		}
		ok, err := f.RetryStatus(c, clk.Now().Add(10*time.Second), -2)
		if err != nil {
			t.Fatal(err)
		}
		if ok != w.requeued {
			t.Fatalf("attempt %d: Retry = %v, want %v", i, ok, w.requeued)
		}
		if !ok {
			break
		}
		clk.Advance(9 * time.Second)
		if c := tryClaim(t, f); c != nil {
			t.Fatalf("attempt %d: claimed %s before its retry time", i, c.URL.URL)
		}
		clk.Advance(time.Second)
	}
	if diff := cmp.Diff(Stats{Failed: 1}, f.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	var got []Entry
	if err := f.Each(func(e Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Entry{{URL: URL{URL: "http://a.test/1", Host: "a.test", Attempts: 3}, State: status.Failed, Status: -2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
	if _, err := f.Claim(t.Context()); !errors.Is(err, ErrDone) {
		t.Errorf("Claim = %v, want ErrDone", err)
	}
}

func TestRetryDoesNotHoldBackTheHost(t *testing.T) {
	clk := newFakeClock()
	f := openT(t, Config{})
	f.now = clk.Now
	mustAdd(t, f, u("a.test", "/1"))
	c := tryClaim(t, f)
	if ok, err := f.Retry(c, clk.Now().Add(time.Hour)); err != nil || !ok {
		t.Fatalf("Retry = %v, %v", ok, err)
	}
	mustAdd(t, f, u("a.test", "/2"))
	c = tryClaim(t, f)
	if c == nil || c.URL.URL != "http://a.test/2" {
		t.Fatalf("claim = %v, want /2 while /1 waits for its retry time", c)
	}
	mustDone(t, f, c)
	if c := tryClaim(t, f); c != nil {
		t.Fatalf("claimed %s before its retry time", c.URL.URL)
	}
	clk.Advance(time.Hour)
	if c := tryClaim(t, f); c == nil || c.URL.URL != "http://a.test/1" || c.URL.Attempts != 1 {
		t.Fatalf("claim = %+v, want /1 with 1 attempt", c)
	}
}

func TestClaimFinishTwice(t *testing.T) {
	f := openT(t, Config{})
	mustAdd(t, f, u("a.test", "/1"))
	c := tryClaim(t, f)
	mustDone(t, f, c)
	tests := []struct {
		name string
		fn   func() error
	}{
		{"Done", func() error { return f.Done(c) }},
		{"Failed", func() error { return f.Failed(c, -2) }},
		{"Retry", func() error { _, err := f.Retry(c, time.Time{}); return err }},
		{"nil", func() error { return f.Done(nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.fn(); !errors.Is(err, ErrClaimFinished) {
				t.Errorf("error = %v, want ErrClaimFinished", err)
			}
		})
	}
	if diff := cmp.Diff(Stats{Done: 1}, f.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestClaimBlocksUntilWorkOrDone(t *testing.T) {
	f := openT(t, Config{})
	ctx := t.Context()
	if _, err := f.Claim(ctx); !errors.Is(err, ErrDone) {
		t.Fatalf("Claim on an empty frontier = %v, want ErrDone", err)
	}
	mustAdd(t, f, u("a.test", "/1"))
	first, err := f.Claim(ctx)
	if err != nil {
		t.Fatal(err)
	}

	type result struct {
		c   *Claim
		err error
	}
	claim := func() chan result {
		ch := make(chan result, 1)
		go func() {
			c, err := f.Claim(ctx)
			ch <- result{c, err}
		}()
		return ch
	}
	// Nothing queued but /1 in flight: the claimer waits, and gets what is added meanwhile.
	waiting := claim()
	time.Sleep(20 * time.Millisecond)
	mustAdd(t, f, u("b.test", "/2"))
	r := <-waiting
	if r.err != nil || r.c.URL.URL != "http://b.test/2" {
		t.Fatalf("blocked Claim = %+v, %v; want /2", r.c, r.err)
	}
	// Two in flight, nothing queued: ErrDone only once the last one is done.
	waiting = claim()
	mustDone(t, f, first)
	select {
	case r := <-waiting:
		t.Fatalf("Claim returned %+v, %v with a URL still in flight", r.c, r.err)
	case <-time.After(20 * time.Millisecond):
	}
	mustDone(t, f, r.c)
	if r := <-waiting; !errors.Is(r.err, ErrDone) {
		t.Fatalf("Claim = %+v, %v; want ErrDone", r.c, r.err)
	}
}

func TestClaimContext(t *testing.T) {
	f := openT(t, Config{})
	mustAdd(t, f, u("a.test", "/1"), u("a.test", "/2"))
	c := tryClaim(t, f) // the host is busy from now on

	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.Claim(canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("Claim(canceled) = %v, want context.Canceled", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if _, err := f.Claim(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Claim = %v, want context.DeadlineExceeded", err)
	}
	mustDone(t, f, c)
}

func TestCloseUnblocksClaim(t *testing.T) {
	f := openT(t, Config{})
	mustAdd(t, f, u("a.test", "/1"), u("a.test", "/2"))
	tryClaim(t, f)
	errc := make(chan error, 1)
	go func() {
		_, err := f.Claim(t.Context())
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("blocked Claim = %v, want ErrClosed", err)
	}
	if err := f.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
	if _, err := f.Add(u("a.test", "/3")); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
}

func TestReject(t *testing.T) {
	for _, mode := range cacheModes {
		t.Run(mode.name, func(t *testing.T) { testReject(t, mode.cold) })
	}
}

func testReject(t *testing.T, cold bool) {
	f := openT(t, Config{})
	mustAdd(t, f, u("a.test", "/queued"))
	tests := []struct {
		name   string
		op     string // "reject" or "add"
		url    URL
		reason string
		want   bool
		stats  Stats
	}{
		{"first rejection", "reject", u("x.test", "/1"), "out-of-scope", true, Stats{Queued: 1, Rejected: 1}},
		{"second rejection", "reject", u("x.test", "/1"), "max-hops", false, Stats{Queued: 1, Rejected: 1}},
		{"queued URL is not rejected", "reject", u("a.test", "/queued"), "out-of-scope", false, Stats{Queued: 1, Rejected: 1}},
		{"rejected URL can be added", "add", u("x.test", "/1"), "", true, Stats{Queued: 2}},
		{"added URL stays seen", "add", u("x.test", "/1"), "", false, Stats{Queued: 2}},
		{"rejected after being added", "reject", u("x.test", "/1"), "block:x", false, Stats{Queued: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if cold {
				forget(f)
			}
			var got bool
			var err error
			if tt.op == "reject" {
				got, err = f.Reject(tt.url, tt.reason)
			} else {
				got, err = f.Add(tt.url)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s = %v, want %v", tt.op, got, tt.want)
			}
			if diff := cmp.Diff(tt.stats, f.Stats()); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
		})
	}
}

func collect(t *testing.T, f *Frontier) []Entry {
	t.Helper()
	var got []Entry
	if err := f.Each(func(e Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// populate leaves a frontier with URLs in every state: /1 done, /2 failed, /3 in flight,
// /4 and /5 queued, x.test/r rejected.
func populate(t *testing.T, f *Frontier) *Claim {
	t.Helper()
	mustAdd(t, f,
		URL{URL: "http://a.test/1", Host: "a.test", Hops: "", Seed: "http://a.test/1", Priority: -1},
		URL{URL: "http://a.test/2", Host: "a.test", Hops: "L", Via: "http://a.test/1", Seed: "http://a.test/1"},
		URL{URL: "http://a.test/3", Host: "a.test", Hops: "LE", Via: "http://a.test/2", Seed: "http://a.test/1", HopsOff: 1},
		u("a.test", "/4"), u("a.test", "/5"))
	if _, err := f.Reject(URL{URL: "http://x.test/r", Host: "x.test", Hops: "L", Via: "http://a.test/1"}, "out-of-scope"); err != nil {
		t.Fatal(err)
	}
	mustDone(t, f, tryClaim(t, f))
	if err := f.Failed(tryClaim(t, f), -6); err != nil {
		t.Fatal(err)
	}
	return tryClaim(t, f)
}

func TestEach(t *testing.T) {
	f := openT(t, Config{HostConcurrency: 2})
	populate(t, f)
	want := []Entry{
		{URL: URL{URL: "http://a.test/1", Host: "a.test", Seed: "http://a.test/1", Priority: -1}, State: status.Done},
		{URL: URL{URL: "http://a.test/2", Host: "a.test", Hops: "L", Via: "http://a.test/1", Seed: "http://a.test/1"}, State: status.Failed, Status: -6},
		{URL: URL{URL: "http://a.test/3", Host: "a.test", Hops: "LE", Via: "http://a.test/2", Seed: "http://a.test/1", HopsOff: 1}, State: status.Inflight},
		{URL: u("a.test", "/4"), State: status.Queued},
		{URL: u("a.test", "/5"), State: status.Queued},
		{URL: URL{URL: "http://x.test/r", Host: "x.test", Hops: "L", Via: "http://a.test/1"}, State: status.Rejected, Reason: "out-of-scope"},
	}
	if diff := cmp.Diff(want, collect(t, f)); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Stats{Queued: 2, InFlight: 1, Done: 1, Failed: 1, Rejected: 1}, f.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	stop := errors.New("stop")
	n := 0
	if err := f.Each(func(Entry) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("Each stopping = %v after %d calls, want stop after 1", err, n)
	}
}

// checkResumed checks a frontier reopened after populate (cleanly or not): the in-flight /3 is
// queued again at its place, nothing is lost, the seen set is intact.
func checkResumed(t *testing.T, f *Frontier) {
	t.Helper()
	if diff := cmp.Diff(Stats{Queued: 3, Done: 1, Failed: 1, Rejected: 1}, f.Stats()); diff != "" {
		t.Errorf("Stats after reopen (-want +got):\n%s", diff)
	}
	states := map[string]status.State{}
	for _, e := range collect(t, f) {
		states[e.URL.URL] = e.State
	}
	wantStates := map[string]status.State{
		"http://a.test/1": status.Done, "http://a.test/2": status.Failed, "http://a.test/3": status.Queued,
		"http://a.test/4": status.Queued, "http://a.test/5": status.Queued, "http://x.test/r": status.Rejected,
	}
	if diff := cmp.Diff(wantStates, states); diff != "" {
		t.Errorf("states after reopen (-want +got):\n%s", diff)
	}
	for _, x := range []string{"/1", "/2", "/3", "/4", "/5"} {
		if added, err := f.Add(u("a.test", x)); err != nil || added {
			t.Errorf("Add(%s) after reopen = %v, %v; want seen", x, added, err)
		}
	}
	if first, err := f.Reject(u("x.test", "/r"), "again"); err != nil || first {
		t.Errorf("Reject(/r) after reopen = %v, %v; want not first", first, err)
	}
	var got []string
	for c := tryClaim(t, f); c != nil; c = tryClaim(t, f) {
		got = append(got, c.URL.URL)
		mustDone(t, f, c)
	}
	want := []string{"http://a.test/3", "http://a.test/4", "http://a.test/5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims after reopen (-want +got):\n%s", diff)
	}
	// Sequence numbers continue: a new URL goes after the old ones.
	mustAdd(t, f, u("a.test", "/6"))
	if c := tryClaim(t, f); c == nil || c.URL.URL != "http://a.test/6" {
		t.Errorf("claim = %v, want /6", c)
	}
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	populate(t, f)
	if err := f.StoreDigest("sha1:AAA", "http://a.test/1", time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if err := f.PutMeta("finished", []byte("no")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openT(t, Config{Dir: dir})
	checkResumed(t, f)
	uri, date, ok, err := f.LookupDigest("sha1:AAA")
	if err != nil || !ok || uri != "http://a.test/1" || !date.Equal(time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC)) {
		t.Errorf("LookupDigest after reopen = %q, %v, %v, %v", uri, date, ok, err)
	}
	if v, ok, err := f.Meta("finished"); err != nil || !ok || string(v) != "no" {
		t.Errorf("Meta after reopen = %q, %v, %v", v, ok, err)
	}
}

// TestSitemapMark: the mark of a sitemap file is kept through Claim, a reopen (the claim in
// flight goes back to the queue) and Each; other URLs have none.
func TestSitemapMark(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sm := URL{URL: "http://a.test/sitemap.xml", Host: "a.test", Hops: "PM", Priority: -1, Sitemap: true}
	page := URL{URL: "http://a.test/page", Host: "a.test", Hops: "PMM"}
	mustAdd(t, f, sm, page)
	c := tryClaim(t, f)
	if c == nil || c.URL.URL != sm.URL || !c.URL.Sitemap {
		t.Fatalf("first claim = %+v, want the sitemap file, marked", c)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openT(t, Config{Dir: dir})
	got := map[string]bool{}
	for range 2 {
		c := tryClaim(t, f)
		if c == nil {
			t.Fatal("nothing to claim after reopen")
		}
		got[c.URL.URL] = c.URL.Sitemap
		mustDone(t, f, c)
	}
	want := map[string]bool{sm.URL: true, page.URL: false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims after reopen (-want +got):\n%s", diff)
	}
	each := map[string]bool{}
	if err := f.Each(func(e Entry) error { each[e.URL.URL] = e.URL.Sitemap; return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, each); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
}

// crashChild runs the test named test of this binary in a child process with env set to dir,
// and returns what the child printed on stdout. The child works on the store in dir and exits
// with status 1 without closing it (a crash); t fails unless it did.
func crashChild(t *testing.T, test, env, dir string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child: %v\n%s%s", err, out, stderr.Bytes())
	}
	return out
}

const crashEnv = "AMBER_FRONTIER_CRASH_DIR"

// TestCrash simulates a crash: a child process (this test binary) opens the frontier, works,
// and exits without Close; the parent reopens the directory.
func TestCrash(t *testing.T) {
	if dir := os.Getenv(crashEnv); dir != "" {
		f, err := Open(Config{Dir: dir})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		populate(t, f)
		os.Exit(1) // no Close, no Sync
	}
	dir := t.TempDir()
	crashChild(t, "TestCrash", crashEnv, dir)
	f := openT(t, Config{Dir: dir})
	checkResumed(t, f)
}

const largerLogsEnv = "AMBER_FRONTIER_LARGER_LOGS_DIR"

// largerLogsURLs is the number of URLs TestReopenLargerLogs adds: their log, about 3.4 MB, is
// more than a memtable of memTableSize holds and less than one of twice that.
const largerLogsURLs = 3400

// TestReopenLargerLogs: a store that a crash left with a memtable log written with larger
// memtables (an older amber's) opens, and keeps every URL. Badger replays a log into a
// memtable of the size it opens the store with, and ended the process when the log's writes
// did not fit ("Arena too small").
func TestReopenLargerLogs(t *testing.T) {
	via := "http://a.test/" + strings.Repeat("v", 400)
	if dir := os.Getenv(largerLogsEnv); dir != "" {
		f, err := Open(Config{Dir: dir, memTable: largeMemTableSize})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		for i := range largerLogsURLs {
			if _, err := f.Add(URL{URL: fmt.Sprintf("http://a.test/%d", i), Host: "a.test", Hops: "L", Via: via}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
		}
		os.Exit(1) // no Close, no Sync
	}
	dir := t.TempDir()
	crashChild(t, "TestReopenLargerLogs", largerLogsEnv, dir)
	logs := func() map[string]int64 {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int64{}
		for _, e := range es {
			if strings.HasSuffix(e.Name(), ".mem") {
				fi, err := e.Info()
				if err != nil {
					t.Fatal(err)
				}
				sizes[e.Name()] = fi.Size()
			}
		}
		return sizes
	}
	if sizes := logs(); !slices.Contains(slices.Collect(maps.Values(sizes)), 2*largeMemTableSize) {
		t.Fatalf("logs left %v, want one of %d bytes", sizes, 2*largeMemTableSize)
	}
	f := openT(t, Config{Dir: dir, memTable: memTableSize})
	if got := f.Stats(); got.Queued != largerLogsURLs {
		t.Errorf("Stats after reopen = %+v, want %d queued", got, largerLogsURLs)
	}
	for name, size := range logs() {
		if size != 2*memTableSize {
			t.Errorf("log %s of %d bytes after reopen, want %d", name, size, 2*memTableSize)
		}
	}
}

// TestMemTableFor: the larger memtables where the memory limit leaves room for their
// builders, and without a limit.
func TestMemTableFor(t *testing.T) {
	tests := []struct {
		limit, want int64
	}{
		{64 << 20, memTableSize},
		{96 << 20, memTableSize}, // a crawl's default
		{largeMemTableLimit - 1, memTableSize},
		{largeMemTableLimit, largeMemTableSize},
		{1 << 30, largeMemTableSize},
		{math.MaxInt64, largeMemTableSize}, // none
	}
	for _, tt := range tests {
		if got := memTableFor(tt.limit); got != tt.want {
			t.Errorf("memTableFor(%d) = %d, want %d", tt.limit, got, tt.want)
		}
	}
}

// TestCheckLogs: the memtable size the logs a store holds need to be replayed (0: the one it
// opens with), and the empty logs deleted.
func TestCheckLogs(t *testing.T) {
	const m = memTableSize
	tests := []struct {
		name  string
		sizes []int64
		want  int64
	}{
		{"none", nil, 0},
		{"as created", []int64{2 * m, 2 * m}, 0},
		{"empty", []int64{0, 2 * m}, 0},
		{"of larger memtables", []int64{2 * m, 4 * m}, 8 * m},
		{"cut by a replay, larger", []int64{3*m/2 + 123}, 3*m + 246},
		{"cut by a replay, small", []int64{m / 2}, 0},
		{"cut, and larger ones", []int64{5 * m, 16 * m, 2 * m}, 32 * m},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, size := range tt.sizes {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d.mem", i+1)), nil, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(filepath.Join(dir, fmt.Sprintf("%05d.mem", i+1)), size); err != nil {
					t.Fatal(err)
				}
			}
			got, err := checkLogs(dir, memTableSize)
			if err != nil || got != tt.want {
				t.Errorf("checkLogs = %d, %v; want %d", got, err, tt.want)
			}
			for i, size := range tt.sizes {
				_, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%05d.mem", i+1)))
				if gone := errors.Is(err, os.ErrNotExist); gone != (size == 0) {
					t.Errorf("log %d of %d bytes: gone %v", i+1, size, gone)
				}
			}
		})
	}
}

func TestDigest(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	d1 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	d2 := d1.Add(time.Hour)
	if err := f.StoreDigest("sha1:X", "http://a.test/first", d1); err != nil {
		t.Fatal(err)
	}
	if err := f.StoreDigest("sha1:X", "http://a.test/second", d2); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openT(t, Config{Dir: dir})
	type lookup struct {
		URI  string
		Date time.Time
		OK   bool
	}
	tests := []struct {
		digest string
		want   lookup
	}{
		{"sha1:X", lookup{"http://a.test/first", d1, true}},
		{"sha1:Y", lookup{}},
		{"", lookup{}},
	}
	for _, tt := range tests {
		t.Run(tt.digest, func(t *testing.T) {
			var got lookup
			var err error
			got.URI, got.Date, got.OK, err = f.LookupDigest(tt.digest)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LookupDigest (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMeta(t *testing.T) {
	f := openT(t, Config{})
	for k, v := range map[string]string{"seed/b": "2", "seed/a": "1", "seeds": "x", "count": "7", "empty": ""} {
		if err := f.PutMeta(k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.PutMeta("count", []byte("8")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"seed/", []string{"seed/a=1", "seed/b=2"}},
		{"seed", []string{"seed/a=1", "seed/b=2", "seeds=x"}},
		{"", []string{"count=8", "empty=", "seed/a=1", "seed/b=2", "seeds=x"}},
		{"zzz", nil},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			var got []string
			err := f.ScanMeta(tt.prefix, func(k string, v []byte) error {
				got = append(got, k+"="+string(v))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ScanMeta (-want +got):\n%s", diff)
			}
		})
	}
	if v, ok, err := f.Meta("empty"); err != nil || !ok || len(v) != 0 {
		t.Errorf("Meta(empty) = %q, %v, %v; want present and empty", v, ok, err)
	}
	if _, ok, err := f.Meta("missing"); err != nil || ok {
		t.Errorf("Meta(missing) = %v, %v; want absent", ok, err)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	tests := []record{
		{},
		{URL: URL{URL: "http://a.test/ü?x=1", Host: "a.test:8080", Hops: "LLRE", Via: "http://a.test/", Seed: "http://a.test/",
			HopsOff: 2, Attempts: 1, Priority: -5}, Status: -6, Reason: "max-hops", NotBefore: 1 << 60, Seq: 1 << 40},
		{URL: URL{URL: "http://a.test/sitemap.xml", Host: "a.test", Hops: "PM", Via: "http://a.test/robots.txt",
			Seed: "http://a.test/", Priority: -1, Sitemap: true}, Seq: 7},
	}
	for i, want := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			b := want.encode()
			got, err := decodeRecord(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			for n := range len(b) {
				if _, err := decodeRecord(b[:n]); err == nil {
					t.Errorf("decodeRecord of %d/%d bytes: no error", n, len(b))
				}
			}
		})
	}
}

func TestOpenConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no dir", Config{}},
		{"negative delay", Config{Dir: t.TempDir(), HostDelay: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Open(tt.cfg); !errors.Is(err, ErrConfig) {
				t.Errorf("Open = %v, want ErrConfig", err)
			}
		})
	}
}

// TestConcurrentCrawl runs workers that claim, add outlinks (some seen, some high priority),
// retry and finish concurrently, with a tiny read-ahead, and checks that every URL is finished
// exactly once and the counters agree.
func TestConcurrentCrawl(t *testing.T) {
	// The cache of known URLs and the read-ahead budget as Open makes them, and then a cache of
	// 8 URLs, which forgets most, and a budget that makes every load a small one.
	for _, tt := range []struct{ known, budget int }{{knownSize, readAheadBudget}, {8, 2}} {
		t.Run(fmt.Sprintf("known=%d/budget=%d", tt.known, tt.budget), func(t *testing.T) {
			testConcurrentCrawl(t, tt.known, tt.budget)
		})
	}
}

func testConcurrentCrawl(t *testing.T, knownSize, budget int) {
	const workers, hosts, fanout, limit, rejects = 8, 13, 3, 1500, 40
	f := openT(t, Config{HostConcurrency: 2, MaxAttempts: 2})
	f.readAhead = 3
	f.known = newKnownCache(knownSize)
	f.budget = budget
	mustAdd(t, f, URL{URL: "http://h0/0", Host: "h0"})
	var (
		mu       sync.Mutex
		next     = 1
		finished = map[string]int{}
		retried  = map[string]bool{}
		claims   int
		rejected int // Reject calls that returned true
	)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := f.Claim(t.Context())
				if errors.Is(err, ErrDone) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				var outs []URL
				mk := func(n int) URL {
					h := fmt.Sprintf("h%d", n%hosts)
					return URL{URL: fmt.Sprintf("http://%s/%d", h, n), Host: h, Priority: -(n % 3)}
				}
				for i := 0; i < fanout && next < limit; i++ {
					n := next
					next++
					if (n+w)%5 == 0 {
						// Rediscover an earlier URL as well (already seen). It must come in
						// addition to a new one: replacing it could leave every in-flight
						// claim with nothing new, and the crawl would rightly end early.
						outs = append(outs, mk(n/2))
					}
					outs = append(outs, mk(n))
				}
				retry := !retried[c.URL.URL] && len(c.URL.URL)%4 == 0
				retried[c.URL.URL] = true
				out := fmt.Sprintf("http://out.test/%d", claims%rejects)
				claims++
				mu.Unlock()
				if _, err := f.AddBatch(outs); err != nil {
					errs <- err
					return
				}
				first, err := f.Reject(URL{URL: out, Host: "out.test"}, "out-of-scope")
				if err != nil {
					errs <- err
					return
				}
				if first {
					mu.Lock()
					rejected++
					mu.Unlock()
				}
				if retry {
					if _, err := f.Retry(c, time.Time{}); err != nil {
						errs <- err
						return
					}
					continue
				}
				mu.Lock()
				finished[c.URL.URL]++
				mu.Unlock()
				if err := f.Done(c); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(finished) != limit {
		t.Errorf("finished %d URLs, want %d", len(finished), limit)
	}
	for k, n := range finished {
		if n != 1 {
			t.Errorf("%s finished %d times", k, n)
		}
	}
	if rejected != rejects {
		t.Errorf("Reject returned true %d times, want %d", rejected, rejects)
	}
	f.mu.Lock()
	buffered := 0
	for _, h := range f.hosts {
		buffered += len(h.buf)
	}
	if buffered != f.buffered {
		t.Errorf("buffered = %d, want %d (the hosts' buffers)", f.buffered, buffered)
	}
	f.mu.Unlock()
	if diff := cmp.Diff(Stats{Done: limit, Rejected: rejects}, f.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

// TestLoadRaces drives the interleavings of a host's read-ahead load with concurrent Adds and
// finishes deterministically, through the test hook.
func TestLoadRaces(t *testing.T) {
	claimAll := func(t *testing.T, f *Frontier) []string {
		var got []string
		for c := tryClaim(t, f); c != nil; c = tryClaim(t, f) {
			got = append(got, c.URL.URL[len("http://h"):])
			mustDone(t, f, c)
		}
		return got
	}
	newF := func(t *testing.T, conc int) *Frontier {
		f := openT(t, Config{HostConcurrency: conc})
		f.readAhead = 3
		return f
	}

	t.Run("add committed before the load, registered after it", func(t *testing.T) {
		f := newF(t, 1)
		mustAdd(t, f, p("/1", 0))
		var first *Claim
		f.hook = func(point string) {
			if point == "added" && first == nil {
				first = tryClaim(t, f) // loads /1 and the committed, unregistered /2
			}
		}
		mustAdd(t, f, p("/2", 0))
		f.hook = nil
		if first == nil || first.URL.URL != "http://h/1" {
			t.Fatalf("first claim = %v, want /1", first)
		}
		mustDone(t, f, first)
		if diff := cmp.Diff([]string{"/2"}, claimAll(t, f)); diff != "" {
			t.Errorf("claims (-want +got):\n%s", diff)
		}
	})

	t.Run("add committed and registered during the load", func(t *testing.T) {
		f := newF(t, 1)
		mustAdd(t, f, p("/low", 5))
		f.hook = func(point string) {
			if point == "loaded" {
				f.hook = nil
				mustAdd(t, f, p("/high", 0)) // after the load's snapshot, before its cursor
			}
		}
		if diff := cmp.Diff([]string{"/high", "/low"}, claimAll(t, f)); diff != "" {
			t.Errorf("claims (-want +got):\n%s", diff)
		}
	})

	t.Run("add committed before the load, registered during it", func(t *testing.T) {
		f := newF(t, 1)
		mustAdd(t, f, p("/1", 0))
		proceed, registered, atHook := make(chan struct{}), make(chan struct{}), make(chan struct{})
		f.hook = func(point string) {
			if point == "added" {
				close(atHook)
				<-proceed
			}
		}
		go func() {
			defer close(registered)
			mustAdd(t, f, p("/2", 0))
		}()
		<-atHook
		f.hook = func(point string) {
			if point == "loaded" {
				close(proceed)
				<-registered
			}
		}
		c := tryClaim(t, f)
		f.hook = nil
		mustDone(t, f, c)
		got := append([]string{c.URL.URL[len("http://h"):]}, claimAll(t, f)...)
		if diff := cmp.Diff([]string{"/1", "/2"}, got); diff != "" {
			t.Errorf("claims (-want +got):\n%s", diff)
		}
	})

	// Priority adds beyond the read-ahead trim the buffer, moving the cursor below URLs in
	// flight; the next load must not hand those out again, nor ones finished meanwhile.
	for _, finishDuringLoad := range []bool{false, true} {
		t.Run(fmt.Sprintf("trim below in-flight URLs, finish during load %v", finishDuringLoad), func(t *testing.T) {
			f := newF(t, 2)
			mustAdd(t, f, p("/1", 0), p("/2", 0), p("/3", 0), p("/4", 0), p("/5", 0))
			c1, c2 := tryClaim(t, f), tryClaim(t, f)
			if c1.URL.URL != "http://h/1" || c2.URL.URL != "http://h/2" {
				t.Fatalf("claims = %s, %s", c1.URL.URL, c2.URL.URL)
			}
			mustAdd(t, f, p("/x1", -1), p("/x2", -1), p("/x3", -1))
			mustDone(t, f, c1)
			var got []string
			for range 3 {
				c := tryClaim(t, f)
				got = append(got, c.URL.URL[len("http://h"):])
				mustDone(t, f, c)
			}
			if finishDuringLoad {
				f.hook = func(point string) {
					if point == "loaded" {
						f.hook = nil
						mustDone(t, f, c2)
					}
				}
			}
			got = append(got, claimAll(t, f)...)
			if !finishDuringLoad {
				mustDone(t, f, c2)
			}
			if diff := cmp.Diff([]string{"/x1", "/x2", "/x3", "/3", "/4", "/5"}, got); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(Stats{Done: 8}, f.Stats()); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenLocked: a store another process (here: another Frontier) has open is ErrLocked,
// and opens again once it is closed.
func TestOpenLocked(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Config{Dir: dir}); !errors.Is(err, ErrLocked) {
		t.Errorf("second Open = %v, want ErrLocked", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	g, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatalf("Open after Close = %v", err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Config{Dir: filepath.Join(dir, "missing", "\x00")}); err == nil || errors.Is(err, ErrLocked) {
		t.Errorf("Open of a bad directory = %v, want an error that is not ErrLocked", err)
	}
}

// TestFirstClaimLoadsOneHost checks that a claim on a reopened frontier, where every host has
// entries only in the store, loads the host first in line and takes from it, rather than
// loading every host behind it first.
func TestFirstClaimLoadsOneHost(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		mustAdd(t, f, u(fmt.Sprintf("h%d.test", i), "/1"), u(fmt.Sprintf("h%d.test", i), "/2"))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f = openT(t, Config{Dir: dir})
	loads := 0
	f.hook = func(point string) {
		if point == "loaded" {
			loads++
		}
	}
	for i := range 3 {
		if c := tryClaim(t, f); c == nil {
			t.Fatalf("claim %d: nothing", i)
		}
		if loads != i+1 {
			t.Errorf("after claim %d: %d loads, want %d", i, loads, i+1)
		}
	}
}

// TestEmptyLog checks that a store reopens after a crash that left an empty memtable log
// (badger deletes a flushed memtable's log by truncating it, then removing it), and that the
// logs of a store open in another process are left alone.
func TestEmptyLog(t *testing.T) {
	t.Run("crash", func(t *testing.T) {
		dir := t.TempDir()
		crashChild(t, "TestCrash", crashEnv, dir)
		if err := os.WriteFile(filepath.Join(dir, "00000.mem"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		f := openT(t, Config{Dir: dir})
		checkResumed(t, f)
	})
	t.Run("locked", func(t *testing.T) {
		dir := t.TempDir()
		openT(t, Config{Dir: dir})
		empty := filepath.Join(dir, "00000.mem")
		if err := os.WriteFile(empty, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(Config{Dir: dir}); !errors.Is(err, ErrLocked) {
			t.Errorf("second Open = %v, want ErrLocked", err)
		}
		if _, err := os.Stat(empty); err != nil {
			t.Errorf("the empty log of a store open elsewhere: %v", err)
		}
		if err := os.Remove(empty); err != nil { // before the Close of openT
			t.Fatal(err)
		}
	})
}
