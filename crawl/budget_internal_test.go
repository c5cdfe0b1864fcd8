package crawl

import (
	"encoding/binary"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/frontier/redisfront"
)

// openTestFrontier opens a badger frontier in a fresh directory, closed when the test ends.
func openTestFrontier(t *testing.T) *frontier.Frontier {
	t.Helper()
	f, err := frontier.Open(frontier.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("open frontier: %v", err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("close frontier: %v", err)
		}
	})
	return f
}

// putBudgetCounter writes n under key in front's meta store as budget.save does.
func putBudgetCounter(t *testing.T, front frontier.Store, key string, n int64) {
	t.Helper()
	if err := front.PutMeta(key, budgetValue(n)); err != nil {
		t.Fatalf("PutMeta(%q): %v", key, err)
	}
}

// urlLimit returns a URL limit of n.
func urlLimit(n int64) func() int64 { return func() int64 { return n } }

// testShared is a shared frontier's configuration for process p1. Only its value is used:
// nothing connects to the address.
var testShared = redisfront.Shared{URL: "redis://127.0.0.1:1/0", Process: "p1"}

// budgetCounterStore is a shared frontier's store for the budget: the crawl's own frontier for the
// meta store, and crawl-wide counters kept here, failing with fail.
type budgetCounterStore struct {
	frontier.Store
	mu       sync.Mutex       // guards counters and fail
	counters map[string]int64 // the crawl's counters across its processes
	fail     error            // AddCounter's error when set
}

var _ frontier.Counters = (*budgetCounterStore)(nil)

func (s *budgetCounterStore) AddCounter(key string, delta int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return 0, s.fail
	}
	if s.counters == nil {
		s.counters = map[string]int64{}
	}
	s.counters[key] += delta
	return s.counters[key], nil
}

func (s *budgetCounterStore) setFail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = err
}

func (s *budgetCounterStore) counter(key string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counters[key]
}

// budgetCounts are a budget's figures.
type budgetCounts struct {
	Fetched, Bytes, Reserved, SharedBytes int64
	Hit                                   bool
}

func budgetCountsOf(b *budget) budgetCounts {
	return budgetCounts{b.fetched.Load(), b.bytes.Load(), b.reserved.Load(), b.sharedBytes.Load(), b.hit.Load()}
}

// TestBudgetKey: the counters' keys are the keys themselves with the crawl's own frontier,
// and KEY@PROCESS with a shared one.
func TestBudgetKey(t *testing.T) {
	front := openTestFrontier(t)
	tests := []struct {
		name   string
		cfg    Config
		key    string
		want   string
		wantPn string
	}{
		{"own frontier", Config{}, metaFetched, metaFetched, ""},
		{"own frontier, bytes", Config{}, metaBytes, metaBytes, ""},
		{"shared", Config{Shared: testShared}, metaFetched, metaFetched + "@p1", "p1"},
		{"shared, bytes", Config{Shared: testShared}, metaBytes, metaBytes + "@p1", "p1"},
		{"shared, another process", Config{Shared: redisfront.Shared{URL: testShared.URL, Process: "host-b"}}, metaBytes, metaBytes + "@host-b", "host-b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBudget(t, front, tc.cfg, nil)
			if b.process != tc.wantPn {
				t.Errorf("process = %q, want %q", b.process, tc.wantPn)
			}
			if got := b.key(tc.key); got != tc.want {
				t.Errorf("key(%q) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
}

// TestBudgetNewReadsCounters: a budget starts from the counters in the frontier's meta store,
// under its own keys (a shared process's under its name), reserving what was fetched; a
// counter missing or not 8 bytes long is 0.
func TestBudgetNewReadsCounters(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		meta map[string][]byte
		want budgetCounts
	}{
		{name: "empty"},
		{
			name: "own",
			meta: map[string][]byte{metaFetched: budgetValue(7), metaBytes: budgetValue(1 << 40)},
			want: budgetCounts{Fetched: 7, Bytes: 1 << 40, Reserved: 7},
		},
		{
			name: "own ignores a process's",
			meta: map[string][]byte{metaFetched + "@p1": budgetValue(7), metaBytes + "@p1": budgetValue(100)},
		},
		{
			name: "shared reads its process's",
			cfg:  Config{Shared: testShared},
			meta: map[string][]byte{metaFetched: budgetValue(1), metaBytes: budgetValue(2), metaFetched + "@p1": budgetValue(7), metaBytes + "@p1": budgetValue(100), metaFetched + "@p2": budgetValue(50)},
			want: budgetCounts{Fetched: 7, Bytes: 100, Reserved: 7},
		},
		{
			name: "wrong length",
			meta: map[string][]byte{metaFetched: {0, 0, 0, 7}, metaBytes: budgetValue(9)},
			want: budgetCounts{Bytes: 9},
		},
		{
			name: "empty value",
			meta: map[string][]byte{metaFetched: {}, metaBytes: budgetValue(9)},
			want: budgetCounts{Bytes: 9},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			front := openTestFrontier(t)
			for k, v := range tc.meta {
				if err := front.PutMeta(k, v); err != nil {
					t.Fatal(err)
				}
			}
			b := mustBudget(t, front, tc.cfg, nil)
			if diff := cmp.Diff(tc.want, budgetCountsOf(b)); diff != "" {
				t.Errorf("newBudget budgetCounts mismatch (-want +got):\n%s", diff)
			}
			if b.log == nil {
				t.Errorf("newBudget without a logger: log = nil, want a discarding one")
			}
		})
	}
}

// budgetValue is n as budget.save writes it.
func budgetValue(n int64) []byte {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(n))
	return v[:]
}

// TestBudgetSaveRoundTrip: save writes the counters a new budget on the same frontier (a new
// run) starts from; reservations under way are not saved, only what was fetched.
func TestBudgetSaveRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     Config
		wantKey string
	}{
		{"own", Config{}, metaFetched},
		{"shared", Config{Shared: testShared}, metaFetched + "@p1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			front := openTestFrontier(t)
			b := mustBudget(t, front, tc.cfg, nil)
			for range 3 {
				if !b.reserve() {
					t.Fatal("reserve = false without limits")
				}
			}
			b.counted(100, true)
			b.counted(50, true)
			b.counted(25, false) // a request the page made besides: bytes only
			if err := b.save(); err != nil {
				t.Fatalf("save: %v", err)
			}
			v, ok, err := front.Meta(tc.wantKey)
			if err != nil || !ok {
				t.Fatalf("Meta(%q) = ok %v, err %v; want the saved counter", tc.wantKey, ok, err)
			}
			if got := int64(binary.BigEndian.Uint64(v)); got != 2 {
				t.Errorf("saved %s = %d, want 2", tc.wantKey, got)
			}
			again := mustBudget(t, front, tc.cfg, nil)
			if diff := cmp.Diff(budgetCounts{Fetched: 2, Bytes: 175, Reserved: 2}, budgetCountsOf(again)); diff != "" {
				t.Errorf("new budget after save (-want +got):\n%s", diff)
			}
			// The next run goes on counting from there.
			again.counted(5, true)
			if err := again.save(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(budgetCounts{Fetched: 3, Bytes: 180, Reserved: 3}, budgetCountsOf(mustBudget(t, front, tc.cfg, nil))); diff != "" {
				t.Errorf("third run (-want +got):\n%s", diff)
			}
		})
	}
}

// budgetPutFailStore fails every PutMeta.
type budgetPutFailStore struct {
	frontier.Store
	err error
}

func (s budgetPutFailStore) PutMeta(string, []byte) error { return s.err }

// budgetMetaFailStore fails every read of the meta store.
type budgetMetaFailStore struct {
	frontier.Store
	err error
}

func (s budgetMetaFailStore) Meta(string) ([]byte, bool, error) { return nil, false, s.err }

// TestBudgetReadError: counters that cannot be read are an error, not 0 (which would lift the
// URL and byte limits of a resumed crawl).
func TestBudgetReadError(t *testing.T) {
	boom := errors.New("frontier: read failed")
	if b, err := newBudget(budgetMetaFailStore{Store: openTestFrontier(t), err: boom}, Config{}, nil); !errors.Is(err, boom) || b != nil {
		t.Errorf("newBudget = %v, %v; want no budget and an error wrapping %v", b, err, boom)
	}
}

// TestBudgetSaveError: a counter that cannot be written is an error that wraps the frontier's.
func TestBudgetSaveError(t *testing.T) {
	front := openTestFrontier(t)
	boom := errors.New("disk full")
	b := mustBudget(t, budgetPutFailStore{Store: front, err: boom}, Config{}, nil)
	if err := b.save(); !errors.Is(err, boom) {
		t.Errorf("save = %v, want an error wrapping %v", err, boom)
	}
}

// TestBudgetSaveClosedFrontier: a closed frontier's error comes back from save.
func TestBudgetSaveClosedFrontier(t *testing.T) {
	f, err := frontier.Open(frontier.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b := mustBudget(t, f, Config{}, nil)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.save(); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("save on a closed frontier = %v, want frontier.ErrClosed", err)
	}
}

// budgetStep is one operation on a budget, with what it should answer.
type budgetStep struct {
	op   string // "reserve", "unreserve", "url" (counted as a URL), "bytes" (counted, not a URL)
	size int64  // the response's size for url and bytes
	want bool   // reserve's answer
}

// runBudget applies the steps to b, failing on a reserve that answers otherwise.
func runBudget(t *testing.T, b *budget, steps []budgetStep) {
	t.Helper()
	for i, s := range steps {
		switch s.op {
		case "reserve":
			if got := b.reserve(); got != s.want {
				t.Fatalf("step %d: reserve = %v, want %v (%+v)", i, got, s.want, budgetCountsOf(b))
			}
		case "unreserve":
			b.unreserve()
		case "url":
			b.counted(s.size, true)
		case "bytes":
			b.counted(s.size, false)
		default:
			t.Fatalf("step %d: unknown op %q", i, s.op)
		}
	}
}

var (
	budgetReserve   = budgetStep{op: "reserve", want: true}
	budgetRefused   = budgetStep{op: "reserve", want: false}
	budgetUnreserve = budgetStep{op: "unreserve"}
)

func budgetFetched(size int64) budgetStep { return budgetStep{op: "url", size: size} }
func budgetExtra(size int64) budgetStep   { return budgetStep{op: "bytes", size: size} }

// TestBudgetLimits: reservations against the URL limit and the byte limit, with the crawl's
// own frontier; hit is set by the reservation refused, or by the bytes reaching the limit.
func TestBudgetLimits(t *testing.T) {
	tests := []struct {
		name       string
		limitURLs  func() int64
		limitBytes int64
		start      map[string]int64 // counters in the meta store before
		steps      []budgetStep
		want       budgetCounts
	}{
		{
			name:  "no limits",
			steps: []budgetStep{budgetReserve, budgetReserve, budgetReserve, budgetFetched(10), budgetUnreserve},
			want:  budgetCounts{Fetched: 1, Bytes: 10, Reserved: 2},
		},
		{
			name:      "no URL limit: 0",
			limitURLs: urlLimit(0),
			steps:     []budgetStep{budgetReserve, budgetReserve, budgetReserve},
			want:      budgetCounts{Reserved: 3},
		},
		{
			name:      "URL limit reached by reservations",
			limitURLs: urlLimit(2),
			steps:     []budgetStep{budgetReserve, budgetReserve, budgetRefused},
			want:      budgetCounts{Reserved: 2, Hit: true},
		},
		{
			name:      "unreserve gives a unit back",
			limitURLs: urlLimit(2),
			steps:     []budgetStep{budgetReserve, budgetReserve, budgetUnreserve, budgetReserve, budgetRefused},
			want:      budgetCounts{Reserved: 2, Hit: true},
		},
		{
			name:      "under the URL limit: no hit",
			limitURLs: urlLimit(3),
			steps:     []budgetStep{budgetReserve, budgetFetched(1), budgetReserve, budgetUnreserve},
			want:      budgetCounts{Fetched: 1, Bytes: 1, Reserved: 1},
		},
		{
			name:      "fetched in earlier runs count",
			limitURLs: urlLimit(3),
			start:     map[string]int64{metaFetched: 2},
			steps:     []budgetStep{budgetReserve, budgetRefused},
			want:      budgetCounts{Fetched: 2, Reserved: 3, Hit: true},
		},
		{
			name:      "a limit below what was fetched",
			limitURLs: urlLimit(1),
			start:     map[string]int64{metaFetched: 5},
			steps:     []budgetStep{budgetRefused, budgetRefused},
			want:      budgetCounts{Fetched: 5, Reserved: 5, Hit: true},
		},
		{
			name:       "bytes reach the byte limit",
			limitBytes: 100,
			steps:      []budgetStep{budgetReserve, budgetFetched(60), budgetReserve, budgetFetched(40)},
			want:       budgetCounts{Fetched: 2, Bytes: 100, Reserved: 2, Hit: true},
		},
		{
			name:       "no reservation past the byte limit",
			limitBytes: 100,
			steps:      []budgetStep{budgetReserve, budgetFetched(150), budgetRefused},
			want:       budgetCounts{Fetched: 1, Bytes: 150, Reserved: 1, Hit: true},
		},
		{
			name:       "below the byte limit",
			limitBytes: 100,
			steps:      []budgetStep{budgetReserve, budgetFetched(99), budgetReserve},
			want:       budgetCounts{Fetched: 1, Bytes: 99, Reserved: 2},
		},
		{
			name:       "bytes not of a URL count against the byte limit",
			limitBytes: 100,
			steps:      []budgetStep{budgetReserve, budgetFetched(10), budgetExtra(90), budgetRefused},
			want:       budgetCounts{Fetched: 1, Bytes: 100, Reserved: 1, Hit: true},
		},
		{
			name:       "bytes of earlier runs count",
			limitBytes: 100,
			start:      map[string]int64{metaBytes: 100},
			steps:      []budgetStep{budgetRefused},
			want:       budgetCounts{Bytes: 100, Hit: true},
		},
		{
			name:       "byte limit before the URL limit",
			limitURLs:  urlLimit(10),
			limitBytes: 5,
			steps:      []budgetStep{budgetReserve, budgetFetched(5), budgetRefused},
			want:       budgetCounts{Fetched: 1, Bytes: 5, Reserved: 1, Hit: true},
		},
		{
			name:  "counted without a URL",
			steps: []budgetStep{budgetExtra(7), budgetExtra(3)},
			want:  budgetCounts{Bytes: 10},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			front := openTestFrontier(t)
			for k, n := range tc.start {
				putBudgetCounter(t, front, k, n)
			}
			b := mustBudget(t, front, Config{LimitBytes: tc.limitBytes}, tc.limitURLs)
			if b.ctr != nil {
				t.Fatalf("the crawl's own frontier has crawl-wide counters")
			}
			runBudget(t, b, tc.steps)
			if diff := cmp.Diff(tc.want, budgetCountsOf(b)); diff != "" {
				t.Errorf("budgetCounts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBudgetURLLimitChanges: the URL limit is asked at each reservation, so one raised while
// the crawl runs lets it go on.
func TestBudgetURLLimitChanges(t *testing.T) {
	front := openTestFrontier(t)
	limit := int64(1)
	b := mustBudget(t, front, Config{}, func() int64 { return limit })
	runBudget(t, b, []budgetStep{budgetReserve, budgetRefused})
	limit = 3
	runBudget(t, b, []budgetStep{budgetReserve, budgetReserve, budgetRefused})
	limit = 0
	runBudget(t, b, []budgetStep{budgetReserve})
}

// TestBudgetShared: with a shared frontier's counters, reservations and bytes are counted on
// the server and the limits checked against the crawl-wide figures; the process keeps its own
// figures besides.
func TestBudgetShared(t *testing.T) {
	tests := []struct {
		name       string
		limitURLs  func() int64
		limitBytes int64
		server     map[string]int64 // the crawl's counters before (other processes')
		steps      []budgetStep
		want       budgetCounts
		wantServer map[string]int64
	}{
		{
			name:       "budgetCounts go to the server",
			steps:      []budgetStep{budgetReserve, budgetReserve, budgetFetched(10), budgetUnreserve, budgetExtra(5)},
			want:       budgetCounts{Fetched: 1, Bytes: 15, Reserved: 1, SharedBytes: 15},
			wantServer: map[string]int64{counterReserved: 1, counterBytes: 15},
		},
		{
			name:       "URL limit across processes",
			limitURLs:  urlLimit(5),
			server:     map[string]int64{counterReserved: 4},
			steps:      []budgetStep{budgetReserve, budgetRefused},
			want:       budgetCounts{Reserved: 1, Hit: true},
			wantServer: map[string]int64{counterReserved: 5},
		},
		{
			name:       "URL limit reached by the others",
			limitURLs:  urlLimit(5),
			server:     map[string]int64{counterReserved: 5},
			steps:      []budgetStep{budgetRefused},
			want:       budgetCounts{Hit: true},
			wantServer: map[string]int64{counterReserved: 5},
		},
		{
			name:       "byte limit across processes",
			limitBytes: 100,
			server:     map[string]int64{counterBytes: 90},
			steps:      []budgetStep{budgetReserve, budgetFetched(10)},
			want:       budgetCounts{Fetched: 1, Bytes: 10, Reserved: 1, SharedBytes: 100, Hit: true},
			wantServer: map[string]int64{counterReserved: 1, counterBytes: 100},
		},
		{
			name:       "no reservation past the crawl's byte limit",
			limitBytes: 100,
			server:     map[string]int64{counterBytes: 95},
			steps:      []budgetStep{budgetReserve, budgetFetched(10), budgetRefused},
			want:       budgetCounts{Fetched: 1, Bytes: 10, Reserved: 1, SharedBytes: 105, Hit: true},
			wantServer: map[string]int64{counterReserved: 1, counterBytes: 105},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := &budgetCounterStore{Store: openTestFrontier(t), counters: map[string]int64{}}
			for k, n := range tc.server {
				cs.counters[k] = n
			}
			b := mustBudget(t, cs, Config{Shared: testShared, LimitBytes: tc.limitBytes}, tc.limitURLs)
			if b.ctr == nil {
				t.Fatal("newBudget on a store with counters: ctr = nil")
			}
			runBudget(t, b, tc.steps)
			if diff := cmp.Diff(tc.want, budgetCountsOf(b)); diff != "" {
				t.Errorf("budgetCounts mismatch (-want +got):\n%s", diff)
			}
			got := map[string]int64{}
			for _, k := range []string{counterReserved, counterBytes} {
				if n := cs.counter(k); n != 0 {
					got[k] = n
				}
			}
			if tc.wantServer == nil {
				tc.wantServer = map[string]int64{}
			}
			if diff := cmp.Diff(tc.wantServer, got); diff != "" {
				t.Errorf("server counters mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBudgetSharedFailure: when the server cannot count, the process budgetCounts on its own: the
// URL limit against its own reservations, the byte limit against the larger of its own bytes
// and the crawl's as last known.
func TestBudgetSharedFailure(t *testing.T) {
	boom := errors.New("connection refused")

	t.Run("URL limit", func(t *testing.T) {
		cs := &budgetCounterStore{Store: openTestFrontier(t), counters: map[string]int64{counterReserved: 100}}
		b := mustBudget(t, cs, Config{Shared: testShared, Logger: slog.New(slog.DiscardHandler)}, urlLimit(2))
		cs.setFail(boom)
		// The server's 100 would refuse at once; the local count lets two through.
		runBudget(t, b, []budgetStep{budgetReserve, budgetReserve, budgetRefused})
		if diff := cmp.Diff(budgetCounts{Reserved: 2, Hit: true}, budgetCountsOf(b)); diff != "" {
			t.Errorf("budgetCounts (-want +got):\n%s", diff)
		}
		runBudget(t, b, []budgetStep{budgetUnreserve})
		if got := b.reserved.Load(); got != 1 {
			t.Errorf("reserved after unreserve = %d, want 1", got)
		}
		if got := cs.counter(counterReserved); got != 100 {
			t.Errorf("server reserved = %d, want 100 (untouched)", got)
		}
	})

	t.Run("bytes: the crawl's as last known", func(t *testing.T) {
		cs := &budgetCounterStore{Store: openTestFrontier(t), counters: map[string]int64{counterBytes: 80}}
		b := mustBudget(t, cs, Config{Shared: testShared, LimitBytes: 100}, nil)
		runBudget(t, b, []budgetStep{budgetReserve, budgetFetched(10)}) // the server says 90
		if got := b.sharedBytes.Load(); got != 90 {
			t.Fatalf("sharedBytes = %d, want 90", got)
		}
		cs.setFail(boom)
		// Locally 15, but the crawl had 90 already: 95, under the limit.
		runBudget(t, b, []budgetStep{budgetReserve, budgetFetched(5)})
		if b.hit.Load() {
			t.Errorf("hit at 95 of 100 bytes")
		}
		if got := b.bytesSoFar(); got < 90 {
			t.Errorf("bytesSoFar = %d, want at least 90 (the crawl's as last known)", got)
		}
		runBudget(t, b, []budgetStep{budgetReserve, budgetExtra(85)}) // locally 100: the limit
		if !b.hit.Load() {
			t.Errorf("hit = false with 100 bytes of 100 counted locally")
		}
		runBudget(t, b, []budgetStep{budgetRefused})
		got := budgetCountsOf(b)
		got.SharedBytes = 0 // what the server last said; not this test's business
		if diff := cmp.Diff(budgetCounts{Fetched: 2, Bytes: 100, Reserved: 3, Hit: true}, got); diff != "" {
			t.Errorf("budgetCounts (-want +got):\n%s", diff)
		}
	})

	t.Run("recovers", func(t *testing.T) {
		cs := &budgetCounterStore{Store: openTestFrontier(t), counters: map[string]int64{}}
		b := mustBudget(t, cs, Config{Shared: testShared}, urlLimit(10))
		cs.setFail(boom)
		runBudget(t, b, []budgetStep{budgetReserve, budgetFetched(1)})
		cs.setFail(nil)
		runBudget(t, b, []budgetStep{budgetReserve, budgetFetched(2)})
		// The server budgetCounts from when it answers again; the process's own figures are whole.
		if diff := cmp.Diff(budgetCounts{Fetched: 2, Bytes: 3, Reserved: 2, SharedBytes: 2}, budgetCountsOf(b)); diff != "" {
			t.Errorf("budgetCounts (-want +got):\n%s", diff)
		}
		if got := cs.counter(counterReserved); got != 1 {
			t.Errorf("server reserved = %d, want 1", got)
		}
	})
}

// TestBudgetSharedSave: a shared process saves and reads back its own figures under its name,
// not the crawl-wide ones.
func TestBudgetSharedSave(t *testing.T) {
	front := openTestFrontier(t)
	cs := &budgetCounterStore{Store: front, counters: map[string]int64{counterBytes: 1000, counterReserved: 50}}
	b := mustBudget(t, cs, Config{Shared: testShared}, nil)
	runBudget(t, b, []budgetStep{budgetReserve, budgetFetched(10)})
	if err := b.save(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := front.Meta(metaFetched); err != nil || ok {
		t.Errorf("Meta(%q) = ok %v, err %v; want nothing under the crawl's own key", metaFetched, ok, err)
	}
	again := mustBudget(t, cs, Config{Shared: testShared}, nil)
	if diff := cmp.Diff(budgetCounts{Fetched: 1, Bytes: 10, Reserved: 1}, budgetCountsOf(again)); diff != "" {
		t.Errorf("new budget of p1 (-want +got):\n%s", diff)
	}
	other := mustBudget(t, cs, Config{Shared: redisfront.Shared{URL: testShared.URL, Process: "p2"}}, nil)
	if diff := cmp.Diff(budgetCounts{}, budgetCountsOf(other)); diff != "" {
		t.Errorf("new budget of p2 (-want +got):\n%s", diff)
	}
}

// TestBudgetConcurrent: reservations from many workers never exceed the URL limit.
func TestBudgetConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store func(t *testing.T) frontier.Store
	}{
		{"own", func(t *testing.T) frontier.Store { return openTestFrontier(t) }},
		{"shared", func(t *testing.T) frontier.Store { return &budgetCounterStore{Store: openTestFrontier(t)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBudget(t, tc.store(t), Config{Shared: testShared}, urlLimit(25))
			var (
				wg sync.WaitGroup
				mu sync.Mutex
				ok int
			)
			for range 8 {
				wg.Go(func() {
					for range 10 {
						if b.reserve() {
							mu.Lock()
							ok++
							mu.Unlock()
						}
					}
				})
			}
			wg.Wait()
			if ok != 25 {
				t.Errorf("reservations granted = %d, want 25", ok)
			}
			if !b.hit.Load() {
				t.Errorf("hit = false after refusals")
			}
		})
	}
}

// mustBudget is newBudget, the test failed on an error.
func mustBudget(t *testing.T, front frontier.Store, cfg Config, limitURLs func() int64) *budget {
	t.Helper()
	b, err := newBudget(front, cfg, limitURLs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
