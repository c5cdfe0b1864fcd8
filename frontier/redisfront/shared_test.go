package redisfront

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/internal/redistest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// open opens a frontier of crawl id on srv as process, closed (if still open) when t ends.
func open(t testing.TB, srv *redistest.Server, id, process string, cfg Config) *Frontier {
	t.Helper()
	cfg.URL, cfg.CrawlID, cfg.Process = srv.URL(0), id, process
	f, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// abandon stops f as kill -9 would: no more lease renewals, connections dropped, its claims
// left in the server.
func (f *Frontier) abandon() {
	f.mu.Lock()
	f.closed = true
	f.broadcast()
	f.mu.Unlock()
	close(f.stop)
	<-f.renewed
	f.ops.Wait()
	_ = f.rdb.Close()
}

func urls(n, hosts int) []frontier.URL {
	us := make([]frontier.URL, n)
	for i := range us {
		h := fmt.Sprintf("h%d.example", i%hosts)
		us[i] = frontier.URL{URL: fmt.Sprintf("http://%s/page/%d", h, i), Host: h, Hops: "L", Via: "http://" + h + "/", Seed: "http://" + h + "/"}
	}
	return us
}

func add(t testing.TB, f *Frontier, us []frontier.URL) {
	t.Helper()
	res, err := f.AddBatch(us)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !r.New || r.Err != nil {
			t.Fatalf("AddBatch(%s) = %+v", us[i].URL, r)
		}
	}
}

// span is one claim as a worker saw it: its host, when it was handed out and when its
// response ended (by the test's clock).
type span struct {
	url, host  string
	start, end time.Time
}

// crawl claims from fs with workers goroutines each until ErrDone, holding each claim for
// hold, and returns the claims' spans.
func crawl(t *testing.T, fs []*Frontier, workers int, hold time.Duration) []span {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var spans []span
	var wg sync.WaitGroup
	errs := make(chan error, len(fs)*workers)
	for _, f := range fs {
		for range workers {
			wg.Go(func() {
				for {
					c, err := f.Claim(ctx)
					if errors.Is(err, frontier.ErrDone) {
						return
					}
					if err != nil {
						errs <- err
						return
					}
					start := time.Now()
					time.Sleep(hold)
					end := time.Now()
					if err := f.Ended(c, end); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					spans = append(spans, span{c.URL.URL, c.URL.Host, start, end})
					mu.Unlock()
					if err := f.Done(c); err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return spans
}

func TestTwoProcessesShareOneQueue(t *testing.T) {
	srv := redistest.Start(t)
	tests := []struct {
		name  string
		conc  int
		delay time.Duration
		n     int
		hosts int
	}{
		{"many hosts, concurrency 2", 2, 0, 300, 12},
		{"one host, concurrency 1, delay", 1, 40 * time.Millisecond, 8, 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{HostConcurrency: tt.conc, HostDelay: tt.delay, Lease: 5 * time.Second}
			id := fmt.Sprintf("share%d", i)
			f1, f2 := open(t, srv, id, "p1", cfg), open(t, srv, id, "p2", cfg)
			us := urls(tt.n, tt.hosts)
			add(t, f1, us[:tt.n/2])
			add(t, f2, us[tt.n/2:])
			spans := crawl(t, []*Frontier{f1, f2}, 3, time.Millisecond)

			var got, want []string
			for _, s := range spans {
				got = append(got, s.url)
			}
			for _, u := range us {
				want = append(want, u.URL)
			}
			slices.Sort(got)
			slices.Sort(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("claimed URLs (-want +got), each once:\n%s", diff)
			}
			if s, want := f2.Stats(), (frontier.Stats{Done: int64(tt.n)}); s != want {
				t.Errorf("Stats = %+v, want %+v", s, want)
			}

			// Politeness across both processes, per host: never more than conc claims at once,
			// and with concurrency 1, each claim at least delay after the previous one ended.
			byHost := map[string][]span{}
			for _, s := range spans {
				byHost[s.host] = append(byHost[s.host], s)
			}
			for h, ss := range byHost {
				sort.Slice(ss, func(i, j int) bool { return ss[i].start.Before(ss[j].start) })
				for i := range ss {
					overlap := 0
					for j := range i {
						if ss[j].end.After(ss[i].start) {
							overlap++
						}
					}
					if overlap >= tt.conc {
						t.Errorf("host %s: %s started with %d claims of the host in flight, want < %d", h, ss[i].url, overlap, tt.conc)
					}
					if tt.conc == 1 && i > 0 {
						if gap := ss[i].start.Sub(ss[i-1].end); gap < tt.delay {
							t.Errorf("host %s: %s claimed %v after the previous response ended, want >= %v", h, ss[i].url, gap, tt.delay)
						}
					}
				}
			}
		})
	}
}

func TestLeaseExpiry(t *testing.T) {
	srv := redistest.Start(t)
	tests := []struct {
		name string
		// reopen: the killed process comes back under its name (its claims return at once);
		// otherwise another process waits for the lease to expire.
		reopen bool
		lease  time.Duration
	}{
		{"another process after the lease", false, 300 * time.Millisecond},
		{"the same process restarted", true, time.Hour},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("lease%d", i)
			cfg := Config{Lease: tt.lease}
			killed := open(t, srv, id, "p1", cfg)
			us := urls(3, 3)
			add(t, killed, us)
			ctx := context.Background()
			var held []string
			for range 2 {
				c, err := killed.Claim(ctx)
				if err != nil {
					t.Fatal(err)
				}
				// A request in progress, and a Pace waiting on another host, both to be undone.
				held = append(held, c.URL.URL)
			}
			c, err := killed.Claim(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c.URL.URL)
			if c.URL.Host == us[0].Host {
				t.Fatalf("third claim %s of the first claim's host", c.URL.URL)
			}
			// us[0]'s host is held by a claim: this Pace waits, counted in the server, when
			// the process is killed.
			paced := make(chan error, 1)
			go func() { paced <- killed.Pace(ctx, c, us[0].Host) }()
			for {
				w, err := killed.rdb.HGet(ctx, killed.prefix+"h:"+us[0].Host, "w").Result()
				if err != nil && !errors.Is(err, redis.Nil) {
					t.Fatal(err)
				}
				if w == "1" {
					break
				}
				time.Sleep(time.Millisecond)
			}
			killed.abandon()
			if err := <-paced; !errors.Is(err, frontier.ErrClosed) {
				t.Fatalf("Pace of the killed process = %v, want ErrClosed", err)
			}

			process := "p2"
			if tt.reopen {
				process = "p1"
			}
			f := open(t, srv, id, process, cfg)
			if s := f.Stats(); tt.reopen && (s.Queued != 3 || s.InFlight != 0) {
				t.Errorf("Stats after the restarted process's Open = %+v, want 3 queued", s)
			}
			spans := crawl(t, []*Frontier{f}, 3, 0)
			var got []string
			for _, s := range spans {
				got = append(got, s.url)
			}
			slices.Sort(got)
			slices.Sort(held)
			if diff := cmp.Diff(held, got); diff != "" {
				t.Errorf("URLs of the killed process claimed again (-want +got):\n%s", diff)
			}
			if s, want := f.Stats(), (frontier.Stats{Done: 3}); s != want {
				t.Errorf("Stats = %+v, want %+v", s, want)
			}
		})
	}
}

// TestLostClaimReply: a claim the server made but whose reply this process never read is
// queued again by the next renewal.
func TestLostClaimReply(t *testing.T) {
	srv := redistest.Start(t)
	f := open(t, srv, "lost", "p1", Config{Lease: time.Hour})
	add(t, f, urls(1, 1))
	if _, err := f.run(context.Background(), scriptClaim).Slice(); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.InFlight != 1 {
		t.Fatalf("Stats = %+v, want 1 in flight", s)
	}
	if err := f.renew(); err != nil {
		t.Fatal(err)
	}
	if s, want := f.Stats(), (frontier.Stats{Queued: 1}); s != want {
		t.Errorf("Stats after the renewal = %+v, want %+v", s, want)
	}
	if spans := crawl(t, []*Frontier{f}, 1, 0); len(spans) != 1 {
		t.Errorf("claimed %d URLs, want 1", len(spans))
	}
}

// snapshot is what the server holds of a crawl, as a process sees it.
type snapshot struct {
	Stats   frontier.Stats
	Entries []string
	Meta    string
}

func snap(t *testing.T, f *Frontier) snapshot {
	t.Helper()
	var es []string
	if err := f.Each(func(e frontier.Entry) error {
		es = append(es, fmt.Sprintf("%s %s %d %s", e.URL.URL, e.State, e.Status, e.Reason))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(es)
	m, _, err := f.Meta("k")
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{f.Stats(), es, string(m)}
}

func TestRedisRestart(t *testing.T) {
	tests := []struct {
		name string
		sig  syscall.Signal
		wait time.Duration // since the last write, before the signal
	}{
		{"SIGTERM", syscall.SIGTERM, 0},
		{"SIGKILL after AOF fsync", syscall.SIGKILL, 1500 * time.Millisecond}, // appendfsync everysec
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t)
			f := open(t, srv, "restart", "p1", Config{HostConcurrency: 4})
			us := urls(40, 4)
			add(t, f, us)
			if _, err := f.Reject(frontier.URL{URL: "http://out/", Host: "out"}, "scope"); err != nil {
				t.Fatal(err)
			}
			if err := f.PutMeta("k", []byte("v")); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var held []*frontier.Claim
			for i := range 6 {
				c, err := f.Claim(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if i < 3 {
					if err := f.Done(c); err != nil {
						t.Fatal(err)
					}
				} else {
					held = append(held, c)
				}
			}
			before := snap(t, f)
			time.Sleep(tt.wait)
			srv.Stop(tt.sig)
			srv.Restart()
			if diff := cmp.Diff(before, snap(t, f)); diff != "" {
				t.Fatalf("after the restart (-before +after):\n%s", diff)
			}
			// The claims held across the restart are still this process's.
			for _, c := range held {
				if err := f.Done(c); err != nil {
					t.Fatalf("Done(%s) after the restart: %v", c.URL.URL, err)
				}
			}
			spans := crawl(t, []*Frontier{f}, 2, 0)
			if got, want := len(spans), len(us)-6; got != want {
				t.Errorf("claimed %d URLs after the restart, want %d", got, want)
			}
			if s, want := f.Stats(), (frontier.Stats{Done: int64(len(us)), Rejected: 1}); s != want {
				t.Errorf("Stats = %+v, want %+v", s, want)
			}
		})
	}
}

func TestOpenConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no URL", Config{CrawlID: "c"}},
		{"no crawl id", Config{URL: "redis://127.0.0.1:1/0"}},
		{"braces in crawl id", Config{URL: "redis://127.0.0.1:1/0", CrawlID: "a}b"}},
		{"negative delay", Config{URL: "redis://127.0.0.1:1/0", CrawlID: "c", HostDelay: -1}},
		{"slash in process", Config{URL: "redis://127.0.0.1:1/0", CrawlID: "c", Process: "a/b"}},
		{"bad URL", Config{URL: "http://127.0.0.1:1/0", CrawlID: "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Open(context.Background(), tt.cfg); !errors.Is(err, frontier.ErrConfig) {
				t.Errorf("Open = %v, want ErrConfig", err)
			}
		})
	}
}

func TestKeysShareHashTag(t *testing.T) {
	srv := redistest.Start(t)
	f := open(t, srv, "tag", "p1", Config{})
	add(t, f, urls(2, 2))
	if _, err := f.Claim(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.PutMeta("k", nil); err != nil {
		t.Fatal(err)
	}
	keys, err := f.rdb.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < 10 {
		t.Errorf("%d keys, want the crawl's keys: %v", len(keys), keys)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "amber:{tag}:") {
			t.Errorf("key %q outside amber:{tag}:", k)
		}
	}
}

// TestFinishSentAgain: a finish the server carried out whose reply was lost is sent again by
// go-redis (after a server restart, say); the second run of the script says the claim was
// finished, not that it is another's. A token that never finished its claim still gets 0.
func TestFinishSentAgain(t *testing.T) {
	srv := redistest.Start(t)
	f := open(t, srv, "again", "p1", Config{})
	add(t, f, urls(2, 1))
	cl, err := f.Claim(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	l, _ := f.leaseOf(cl)
	rec := record{URL: cl.URL}
	send := func(token int64) int64 {
		n, err := f.run(t.Context(), scriptFinish, cl.URL.URL, token, "d", rec.encode(), 0, 0).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tc := range []struct {
		name  string
		token int64
		want  int64
	}{
		{"first", l.token, 1},
		{"sent again", l.token, 1},
		{"another token", l.token + 1000, 0},
	} {
		if got := send(tc.token); got != tc.want {
			t.Errorf("%s: finish script = %d, want %d", tc.name, got, tc.want)
		}
	}
	if st := f.Stats(); st.Done != 1 || st.InFlight != 0 {
		t.Errorf("stats after the finish sent twice: %+v, want 1 done, none in flight", st)
	}
}

// TestHostDelayShared: a host's Crawl-delay and operator's delay set by one process are the
// delay in force in the other, each with its own crawl delay; once the server is gone,
// HostDelay falls back to the crawl's delay.
func TestHostDelayShared(t *testing.T) {
	srv := redistest.Start(t)
	a := open(t, srv, "hd", "a", Config{HostDelay: time.Second})
	b := open(t, srv, "hd", "b", Config{HostDelay: time.Second})
	a.SetHostDelay("x", 3*time.Second)
	a.SetHostDelayOverride("y", 100*time.Millisecond)
	b.SetDelay(5 * time.Second) // b's own crawl delay: above x's Crawl-delay
	got := map[string]time.Duration{
		"a x": a.HostDelay("x"), "a y": a.HostDelay("y"), "a z": a.HostDelay("z"),
		"b x": b.HostDelay("x"), "b y": b.HostDelay("y"), "b z": b.HostDelay("z"),
	}
	want := map[string]time.Duration{
		"a x": 3 * time.Second, "a y": 100 * time.Millisecond, "a z": time.Second,
		"b x": 5 * time.Second, "b y": 100 * time.Millisecond, "b z": 5 * time.Second,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("HostDelay by process and host (-want +got):\n%s", diff)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got := a.HostDelay("x"); got != time.Second {
		t.Errorf("HostDelay after Close = %v, want the crawl's delay, 1s", got)
	}
}
