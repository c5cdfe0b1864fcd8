package addrgate_test

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/addrgate"
	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/scope"
)

// resolver maps a.example and b.example to 127.0.0.1 and c.example to 127.0.0.3, literal
// addresses: no DNS server is asked.
func resolver(t *testing.T) *fetch.Resolver {
	t.Helper()
	var cts []fetch.ConnectTo
	for _, m := range []string{"a.example::127.0.0.1:", "b.example::127.0.0.1:", "c.example::127.0.0.3:"} {
		ct, err := fetch.ParseConnectTo(m)
		if err != nil {
			t.Fatal(err)
		}
		cts = append(cts, ct)
	}
	return fetch.NewResolver(cts, time.Second)
}

// delays records the hosts Deps.Delay is asked about and answers with the delay of each.
type delays struct {
	mu    sync.Mutex // guards asked
	asked []string
	of    map[string]time.Duration
}

func (d *delays) delay(host string) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, host)
	return d.of[host]
}

func (d *delays) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	a := d.asked
	d.asked = nil
	return a
}

func newGate(t *testing.T, cfg addrgate.Config, d *delays, sc *scope.Scope) *addrgate.Gate {
	t.Helper()
	if sc == nil {
		var err error
		if sc, err = scope.New(scope.Config{Seeds: []scope.Seed{{URL: "http://a.example/"}}}); err != nil {
			t.Fatal(err)
		}
	}
	return addrgate.New(cfg, addrgate.Deps{Resolver: resolver(t), Scope: func() *scope.Scope { return sc },
		Canonical: func(raw string) (string, error) { return scope.Canonicalize(raw, scope.Standard) },
		Delay:     d.delay, Log: slog.New(slog.DiscardHandler)})
}

func record(raw string) *chain.Record {
	u, _ := url.Parse(raw)
	return &chain.Record{Claim: frontier.NewClaim(frontier.URL{URL: raw, Host: u.Host, Hops: "L", Via: "http://a.example/", Seed: "http://a.example/"}, nil)}
}

// watched is a context that says when the gate first waits on it: the gate asks for its Done
// channel only once its request must wait for the address.
type watched struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func watch(ctx context.Context) *watched { return &watched{Context: ctx, waiting: make(chan struct{})} }

func (w *watched) Done() <-chan struct{} {
	w.once.Do(func() { close(w.waiting) })
	return w.Context.Done()
}

// fetched is what a wrapped fetch saw when it was called.
type fetched struct {
	url      string
	canceled bool // its context had ended: the gate held it until then
}

// fetcher is a fetch that records its calls and, for the URLs in hold, blocks until released.
type fetcher struct {
	mu    sync.Mutex // guards calls
	calls []fetched
	hold  map[string]chan struct{} // URL -> closed to let its fetch end
	in    chan string              // receives each URL as its fetch starts
}

func newFetcher(hold ...string) *fetcher {
	f := &fetcher{hold: map[string]chan struct{}{}, in: make(chan string, 16)}
	for _, u := range hold {
		f.hold[u] = make(chan struct{})
	}
	return f
}

func (f *fetcher) fetch(ctx context.Context, r *chain.Record) (*fetch.Result, error) {
	u := r.URL().URL
	f.mu.Lock()
	f.calls = append(f.calls, fetched{url: u, canceled: ctx.Err() != nil})
	f.mu.Unlock()
	f.in <- u
	if h, ok := f.hold[u]; ok {
		<-h
	}
	return &fetch.Result{Exchanges: []*fetch.Exchange{{URL: u}}}, nil
}

func (f *fetcher) called() []fetched {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fetched(nil), f.calls...)
}

// guard is how long a test waits for what must happen at once before it gives up (a failure,
// not a measure).
const guard = time.Minute

func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("%s did not happen", what)
	}
	var zero T
	return zero
}

// wrapAsync runs g's wrapped fetch of r in a goroutine; the returned channel is closed when it
// returned.
func wrapAsync(ctx context.Context, g *addrgate.Gate, f *fetcher, r *chain.Record) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Wrap(f.fetch)(ctx, r)
	}()
	return done
}

// TestPerIPDelay: with PerIP, a request to an address waits the delay in force for the host
// of the address's last request (Deps.Delay of that host) after it ended, whatever its own
// host; a request to another address, or a host without an address, does not wait.
func TestPerIPDelay(t *testing.T) {
	d := &delays{of: map[string]time.Duration{"a.example": time.Hour}}
	g := newGate(t, addrgate.Config{PerIP: true}, d, nil)
	f := newFetcher()
	first := record("http://a.example/1")
	if _, err := g.Wrap(f.fetch)(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.example"}, d.take()); diff != "" {
		t.Errorf("delays asked (-want +got):\n%s", diff)
	}

	// b.example, on a.example's address, waits an hour: until its context ends.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := watch(ctx)
	second := record("http://b.example/1")
	done := wrapAsync(w, g, f, second)
	await(t, w.waiting, "b.example's wait for its address")
	// Meanwhile another address, and a URL without one, go at once.
	other, nowhere := record("http://c.example/1"), record("http:///no-host")
	for _, r := range []*chain.Record{other, nowhere} {
		if _, err := g.Wrap(f.fetch)(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	await(t, done, "b.example's fetch")

	want := []fetched{{url: first.URL().URL}, {url: other.URL().URL}, {url: nowhere.URL().URL}, {url: second.URL().URL, canceled: true}}
	if diff := cmp.Diff(want, f.called(), cmp.AllowUnexported(fetched{})); diff != "" {
		t.Errorf("fetches (-want +got):\n%s", diff)
	}
	for _, r := range []*chain.Record{first, second, other, nowhere} {
		if len(r.Notes) != 0 {
			t.Errorf("%s: notes %v, want none (it did not get a turn after waiting)", r.URL().URL, r.Notes)
		}
	}
}

// TestPerIPWaitNote: a request that waited for another host's request on its address, and
// then got its turn, is noted ip-wait:ADDRESS.
func TestPerIPWaitNote(t *testing.T) {
	d := &delays{}
	g := newGate(t, addrgate.Config{PerIP: true, Concurrency: 1}, d, nil)
	f := newFetcher("http://a.example/1")
	first, second := record("http://a.example/1"), record("http://b.example/1")
	firstDone := wrapAsync(t.Context(), g, f, first)
	await(t, f.in, "a.example's fetch")
	w := watch(t.Context())
	secondDone := wrapAsync(w, g, f, second)
	await(t, w.waiting, "b.example's wait for its address")
	close(f.hold[first.URL().URL])
	await(t, firstDone, "a.example's fetch")
	await(t, secondDone, "b.example's fetch")
	if diff := cmp.Diff([]string{"ip-wait:127.0.0.1"}, second.Notes); diff != "" {
		t.Errorf("notes of the request that waited (-want +got):\n%s", diff)
	}
	if len(first.Notes) != 0 {
		t.Errorf("notes of the first request %v, want none", first.Notes)
	}
	want := []fetched{{url: first.URL().URL}, {url: second.URL().URL}}
	if diff := cmp.Diff(want, f.called(), cmp.AllowUnexported(fetched{})); diff != "" {
		t.Errorf("fetches (-want +got):\n%s", diff)
	}
}

// TestPerIPConcurrency: an address takes Concurrency requests at once; the next waits for one
// of them to end.
func TestPerIPConcurrency(t *testing.T) {
	g := newGate(t, addrgate.Config{PerIP: true, Concurrency: 2}, &delays{}, nil)
	one, two, three := "http://a.example/1", "http://b.example/2", "http://a.example/3"
	f := newFetcher(one, two)
	r1, r2, r3 := record(one), record(two), record(three)
	done1 := wrapAsync(t.Context(), g, f, r1)
	done2 := wrapAsync(t.Context(), g, f, r2)
	got := map[string]bool{await(t, f.in, "a first fetch"): true, await(t, f.in, "a second fetch"): true}
	if !got[one] || !got[two] {
		t.Fatalf("fetches under way %v, want %s and %s together", got, one, two)
	}
	w := watch(t.Context())
	done3 := wrapAsync(w, g, f, r3)
	await(t, w.waiting, "the third request's wait")
	close(f.hold[two])
	await(t, done2, "the second fetch")
	if u := await(t, f.in, "the third fetch"); u != three {
		t.Errorf("fetch %s started, want %s", u, three)
	}
	await(t, done3, "the third fetch")
	close(f.hold[one])
	await(t, done1, "the first fetch")
	for _, tt := range []struct {
		r    *chain.Record
		want []string
	}{{r1, nil}, {r2, nil}, {r3, []string{"ip-wait:127.0.0.1"}}} {
		if diff := cmp.Diff(tt.want, tt.r.Notes, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: notes (-want +got):\n%s", tt.r.URL().URL, diff)
		}
	}
}

// TestWrapWithoutPerIP: without PerIP nothing waits, even with a delay in force, and no note
// is given.
func TestWrapWithoutPerIP(t *testing.T) {
	d := &delays{of: map[string]time.Duration{"a.example": time.Hour, "b.example": time.Hour}}
	g := newGate(t, addrgate.Config{}, d, nil)
	f := newFetcher()
	for _, raw := range []string{"http://a.example/1", "http://b.example/1", "http://a.example/2"} {
		r := record(raw)
		if _, err := g.Wrap(f.fetch)(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if len(r.Notes) != 0 {
			t.Errorf("%s: notes %v, want none", raw, r.Notes)
		}
	}
	if got := len(f.called()); got != 3 {
		t.Errorf("%d fetches, want 3", got)
	}
	if asked := d.take(); len(asked) != 0 {
		t.Errorf("delays asked of %v without PerIP, want none", asked)
	}
}

// TestWrapRegisters: while its fetch is under way, a claimed URL is decided by Check as it was
// found (here: out of the accepted address mask), and afterwards as any other request (an
// embed, which accept rules do not bind).
func TestWrapRegisters(t *testing.T) {
	rule, err := scope.ParseRule("ip:10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scope.New(scope.Config{Seeds: []scope.Seed{{URL: "http://seed.example/"}}, Accept: []scope.Rule{rule}})
	if err != nil {
		t.Fatal(err)
	}
	for _, perIP := range []bool{false, true} {
		g := newGate(t, addrgate.Config{PerIP: perIP}, &delays{}, sc)
		r := record("http://a.example/x")
		addr := netip.MustParseAddr("11.1.1.1")
		var during error
		if _, err := g.Wrap(func(ctx context.Context, r *chain.Record) (*fetch.Result, error) {
			during = g.Check(r.URL().URL, addr)
			return &fetch.Result{}, nil
		})(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		var ref *chain.Refusal
		if !errors.As(during, &ref) || ref.Reason != scope.ReasonAddress {
			t.Errorf("PerIP %v: Check during the fetch = %v, want a refusal %s", perIP, during, scope.ReasonAddress)
		}
		if after := g.Check(r.URL().URL, addr); after != nil {
			t.Errorf("PerIP %v: Check after the fetch = %v, want nil (an embed)", perIP, after)
		}
	}
}

// TestAddr: the address of a URL for the scope's ip rules: none when the scope has none (or
// for a nil gate), the resolver's first otherwise, the zero Addr for a host without one.
func TestAddr(t *testing.T) {
	rule, err := scope.ParseRule("ip:127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	withIP, err := scope.New(scope.Config{Seeds: []scope.Seed{{URL: "http://a.example/"}}, Accept: []scope.Rule{rule}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		g    *addrgate.Gate
		url  string
		want netip.Addr
	}{
		{"nil gate", nil, "http://a.example/", netip.Addr{}},
		{"no ip rules", newGate(t, addrgate.Config{}, &delays{}, nil), "http://a.example/", netip.Addr{}},
		{"ip rules", newGate(t, addrgate.Config{}, &delays{}, withIP), "http://c.example/x", netip.MustParseAddr("127.0.0.3")},
		{"an address", newGate(t, addrgate.Config{}, &delays{}, withIP), "http://192.0.2.7:8080/", netip.MustParseAddr("192.0.2.7")},
		{"no host", newGate(t, addrgate.Config{}, &delays{}, withIP), "http:///x", netip.Addr{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.g.Addr(tt.url); got != tt.want {
				t.Errorf("Addr(%s) = %v, want %v", tt.url, got, tt.want)
			}
		})
	}
}
