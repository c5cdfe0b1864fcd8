package frontier

import (
	"context"
	"errors"
	"testing"
	"time"
)

// paceStep is one step of a pacing script: move the clock, then act, then check.
type paceStep struct {
	advance time.Duration
	op      string // claim, pace, ended, done, crawl-delay, backoff
	claim   string // the claim's name in the script
	host    string // pace: the host to send a request to; crawl-delay, backoff: the host
	d       time.Duration
	// want: claim: the URL claimed ("" none); pace: "go" or "wait".
	want string
}

// runPace runs a script on a frontier holding /1 and /2 of every host of hosts.
func runPace(t *testing.T, cfg Config, hosts []string, steps []paceStep) {
	t.Helper()
	clk := newFakeClock()
	f := openT(t, cfg)
	f.now = clk.Now
	for _, h := range hosts {
		mustAdd(t, f, u(h, "/1"), u(h, "/2"))
	}
	claims := map[string]*Claim{}
	queued := map[string]*host{} // a claim's waiting Pace, as Pace itself keeps it across tries
	for i, s := range steps {
		clk.Advance(s.advance)
		now := clk.Now()
		cl := claims[s.claim]
		switch s.op {
		case "claim":
			c := tryClaim(t, f)
			got := ""
			if c != nil {
				got = c.URL.URL
				claims[s.claim] = c
			}
			if got != s.want {
				t.Fatalf("step %d: claimed %q, want %q", i, got, s.want)
			}
		case "pace":
			q := queued[s.claim]
			ok, _, _, err := f.tryPace(cl, s.host, &q)
			queued[s.claim] = q
			if err != nil {
				t.Fatalf("step %d: pace: %v", i, err)
			}
			got := map[bool]string{true: "go", false: "wait"}[ok]
			if got != s.want {
				t.Fatalf("step %d: %s pacing to %s: %s, want %s", i, s.claim, s.host, got, s.want)
			}
		case "ended":
			if err := f.Ended(cl, now); err != nil {
				t.Fatalf("step %d: Ended: %v", i, err)
			}
		case "done":
			mustDone(t, f, cl)
		case "crawl-delay":
			f.SetHostDelay(s.host, s.d)
		case "backoff":
			f.HostBackoff(s.host, now.Add(s.d))
		default:
			t.Fatalf("step %d: unknown op %q", i, s.op)
		}
	}
}

func TestPace(t *testing.T) {
	const a, b = "a.test", "b.test"
	tests := []struct {
		name  string
		cfg   Config
		hosts []string
		steps []paceStep
	}{
		{
			name:  "the claim's own first request goes at once",
			cfg:   Config{HostDelay: 5 * time.Second},
			hosts: []string{a},
			steps: []paceStep{
				{op: "claim", claim: "c1", want: "http://a.test/1"},
				{op: "pace", claim: "c1", host: a, want: "go"},
			},
		},
		{
			name:  "page waits for the delay after robots.txt",
			cfg:   Config{HostDelay: 5 * time.Second},
			hosts: []string{a},
			steps: []paceStep{
				{op: "claim", claim: "c1", want: "http://a.test/1"},
				{advance: time.Second, op: "ended", claim: "c1"}, // robots.txt took 1s
				{op: "pace", claim: "c1", host: a, want: "wait"},
				{advance: 4999 * time.Millisecond, op: "pace", claim: "c1", host: a, want: "wait"},
				{advance: time.Millisecond, op: "pace", claim: "c1", host: a, want: "go"},
			},
		},
		{
			name:  "crawl-delay read from robots.txt spaces robots.txt and the page",
			cfg:   Config{HostDelay: time.Second},
			hosts: []string{a},
			steps: []paceStep{
				{op: "claim", claim: "c1", want: "http://a.test/1"},
				{op: "ended", claim: "c1"},
				{op: "crawl-delay", host: a, d: 10 * time.Second},
				{advance: 9 * time.Second, op: "pace", claim: "c1", host: a, want: "wait"},
				{advance: time.Second, op: "pace", claim: "c1", host: a, want: "go"},
			},
		},
		{
			name:  "crawl-delay below the host delay",
			cfg:   Config{HostDelay: 5 * time.Second},
			hosts: []string{a},
			steps: []paceStep{
				{op: "claim", claim: "c1", want: "http://a.test/1"},
				{op: "ended", claim: "c1"},
				{op: "crawl-delay", host: a, d: time.Second},
				{advance: 4 * time.Second, op: "pace", claim: "c1", host: a, want: "wait"},
				{advance: time.Second, op: "pace", claim: "c1", host: a, want: "go"},
			},
		},
		{
			name:  "backoff after robots.txt holds the page",
			cfg:   Config{HostDelay: time.Second},
			hosts: []string{a},
			steps: []paceStep{
				{op: "claim", claim: "c1", want: "http://a.test/1"},
				{op: "ended", claim: "c1"},
				{op: "backoff", host: a, d: time.Minute},
				{advance: 59 * time.Second, op: "pace", claim: "c1", host: a, want: "wait"},
				{advance: time.Second, op: "pace", claim: "c1", host: a, want: "go"},
			},
		},
		{
			name:  "the delay runs from the reported end of the response, not from Done",
			cfg:   Config{HostDelay: 5 * time.Second},
			hosts: []string{a},
			steps: []paceStep{
				{op: "claim", claim: "c1", want: "http://a.test/1"},
				{advance: time.Second, op: "ended", claim: "c1"},
				{advance: 5 * time.Second, op: "pace", claim: "c1", host: a, want: "go"},
				{advance: time.Second, op: "ended", claim: "c1"}, // the page ended at 7s
				{advance: 3 * time.Second, op: "done", claim: "c1"},
				{advance: time.Second, op: "claim", claim: "c2", want: ""},
				{advance: time.Second, op: "claim", claim: "c2", want: "http://a.test/2"},
			},
		},
		{
			name:  "without Ended the delay runs from Done",
			cfg:   Config{HostDelay: 5 * time.Second},
			hosts: []string{a},
			steps: []paceStep{
				{op: "claim", claim: "c1", want: "http://a.test/1"},
				{advance: 3 * time.Second, op: "done", claim: "c1"},
				{advance: 4999 * time.Millisecond, op: "claim", claim: "c2", want: ""},
				{advance: time.Millisecond, op: "claim", claim: "c2", want: "http://a.test/2"},
			},
		},
		{
			name:  "robots.txt redirected to another host waits for that host's request and delay",
			cfg:   Config{HostDelay: 5 * time.Second},
			hosts: []string{a, b},
			steps: []paceStep{
				{op: "claim", claim: "ca", want: "http://a.test/1"},
				{op: "claim", claim: "cb", want: "http://b.test/1"},
				{op: "ended", claim: "ca"},                       // a's robots.txt: a redirect to b
				{op: "pace", claim: "ca", host: b, want: "wait"}, // cb's request is in progress
				{advance: 2 * time.Second, op: "ended", claim: "cb"},
				{op: "pace", claim: "ca", host: b, want: "wait"},
				{advance: 5 * time.Second, op: "pace", claim: "ca", host: b, want: "go"},
				{op: "pace", claim: "cb", host: b, want: "wait"}, // ca's request to b is in progress
				{advance: time.Second, op: "ended", claim: "ca"},
				{advance: 4 * time.Second, op: "pace", claim: "cb", host: b, want: "wait"},
				{advance: time.Second, op: "pace", claim: "cb", host: b, want: "go"},
				{op: "pace", claim: "ca", host: a, want: "go"}, // a's delay ran since its robots.txt
			},
		},
		{
			name:  "a Pace waiting for a slot holds back new claims of that host",
			cfg:   Config{HostDelay: time.Second},
			hosts: []string{a, b},
			steps: []paceStep{
				{op: "claim", claim: "ca", want: "http://a.test/1"},
				{op: "claim", claim: "cb", want: "http://b.test/1"},
				{op: "ended", claim: "ca"},
				{op: "pace", claim: "ca", host: b, want: "wait"},
				{op: "done", claim: "cb"},
				{advance: time.Second, op: "claim", claim: "cb2", want: ""}, // b/2 waits for ca
				{op: "pace", claim: "ca", host: b, want: "go"},
				{op: "ended", claim: "ca"},
				{advance: time.Second, op: "claim", claim: "cb2", want: "http://b.test/2"},
			},
		},
		{
			name:  "two claims waiting for each other's host both get through",
			cfg:   Config{HostDelay: time.Second},
			hosts: []string{a, b},
			steps: []paceStep{
				{op: "claim", claim: "ca", want: "http://a.test/1"},
				{op: "claim", claim: "cb", want: "http://b.test/1"},
				{op: "ended", claim: "ca"},
				{op: "ended", claim: "cb"},
				{op: "pace", claim: "ca", host: b, want: "wait"},
				{op: "pace", claim: "cb", host: a, want: "wait"},
				{advance: time.Second, op: "pace", claim: "ca", host: b, want: "go"},
				{op: "pace", claim: "cb", host: a, want: "go"},
			},
		},
		{
			name:  "host concurrency 2: a second claim's page waits for the first claim's robots.txt",
			cfg:   Config{HostDelay: 5 * time.Second, HostConcurrency: 2},
			hosts: []string{a},
			steps: []paceStep{
				{op: "claim", claim: "c1", want: "http://a.test/1"},
				{op: "claim", claim: "c2", want: "http://a.test/2"},
				{advance: time.Second, op: "ended", claim: "c1"},
				{op: "pace", claim: "c2", host: a, want: "wait"},
				{advance: 5 * time.Second, op: "pace", claim: "c2", host: a, want: "go"},
				{op: "pace", claim: "c1", host: a, want: "go"},
			},
		},
		{
			name:  "host concurrency 1 counts a visit from another host's claim",
			cfg:   Config{HostConcurrency: 1},
			hosts: []string{a, b},
			steps: []paceStep{
				{op: "claim", claim: "ca", want: "http://a.test/1"},
				{op: "ended", claim: "ca"},
				{op: "pace", claim: "ca", host: b, want: "go"},
				{op: "claim", claim: "cb", want: ""}, // b is being asked for ca
				{op: "ended", claim: "ca"},
				{op: "claim", claim: "cb", want: "http://b.test/1"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runPace(t, tt.cfg, tt.hosts, tt.steps)
		})
	}
}

func TestPaceBlocks(t *testing.T) {
	const delay = 100 * time.Millisecond
	f := openT(t, Config{HostDelay: delay})
	mustAdd(t, f, u("a.test", "/1"))
	ctx := t.Context()
	c, err := f.Claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ended := time.Now()
	if err := f.Ended(c, ended); err != nil {
		t.Fatal(err)
	}
	if err := f.Pace(ctx, c, "a.test"); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(ended); waited < delay {
		t.Errorf("Pace returned %v after the request ended, want >= %v", waited, delay)
	}
	mustDone(t, f, c)
}

func TestPaceErrors(t *testing.T) {
	f := openT(t, Config{HostDelay: time.Hour})
	mustAdd(t, f, u("a.test", "/1"), u("a.test", "/2"), u("b.test", "/1"))
	ctx := t.Context()
	ca := tryClaim(t, f)
	cb := tryClaim(t, f)
	if ca == nil || cb == nil || ca.URL.Host != "a.test" || cb.URL.Host != "b.test" {
		t.Fatalf("claims %v, %v; want a.test and b.test", ca, cb)
	}
	if err := f.Ended(ca, time.Now()); err != nil {
		t.Fatal(err)
	}

	// A Pace given up (its context ended) no longer holds back b's claims.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := f.Pace(short, ca, "b.test"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Pace to a busy host = %v, want context.DeadlineExceeded", err)
	}
	f.mu.Lock()
	waiting := f.hosts["b.test"].waiting
	f.mu.Unlock()
	if waiting != 0 {
		t.Errorf("b.test waiting = %d after the Pace gave up, want 0", waiting)
	}

	// Close ends a blocked Pace.
	errc := make(chan error, 1)
	go func() { errc <- f.Pace(ctx, ca, "a.test") }()
	mustDone(t, f, cb)
	if err := f.Pace(ctx, cb, "b.test"); !errors.Is(err, ErrClaimFinished) {
		t.Errorf("Pace of a finished claim = %v, want ErrClaimFinished", err)
	}
	if err := f.Ended(cb, time.Now()); !errors.Is(err, ErrClaimFinished) {
		t.Errorf("Ended of a finished claim = %v, want ErrClaimFinished", err)
	}
	if err := f.Ended(nil, time.Now()); !errors.Is(err, ErrClaimFinished) {
		t.Errorf("Ended(nil) = %v, want ErrClaimFinished", err)
	}
	time.Sleep(10 * time.Millisecond)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("blocked Pace = %v, want ErrClosed", err)
	}
	if err := f.Ended(ca, time.Now()); !errors.Is(err, ErrClosed) {
		t.Errorf("Ended after Close = %v, want ErrClosed", err)
	}
}
