// Package frontiertest is the conformance suite of frontier.Store: the contract every
// implementation keeps (the badger *frontier.Frontier and the Redis one), as tests that each
// implementation's own tests run with Run.
package frontiertest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/status"
)

// Opener opens the store that cfg.Dir names, with cfg's politeness settings: the same Dir is
// the same store (Run reopens stores that way). Run gives every test a Dir of its own, made
// by t.TempDir; an implementation that keeps nothing there uses it only as the store's name.
// Run closes the stores it opens.
type Opener func(t *testing.T, cfg frontier.Config) frontier.Store

// Run runs the conformance tests on the stores open opens.
func Run(t *testing.T, open Opener) {
	s := suite{open: open}
	tests := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"AddSeen", s.testAddSeen},
		{"Reject", s.testReject},
		{"PriorityOrder", s.testPriorityOrder},
		{"HostConcurrency", s.testHostConcurrency},
		{"HostDelay", s.testHostDelay},
		{"Pace", s.testPace},
		{"HostBackoffAndOverride", s.testHostBackoffAndOverride},
		{"SetDelay", s.testSetDelay},
		{"HostDelayInForce", s.testHostDelayInForce},
		{"MaxSites", s.testMaxSites},
		{"MaxInterDocs", s.testMaxInterDocs},
		{"Retry", s.testRetry},
		{"RetryNotBefore", s.testRetryNotBefore},
		{"EachStats", s.testEachStats},
		{"Meta", s.testMeta},
		{"Digests", s.testDigests},
		{"Held", s.testHeld},
		{"Priors", s.testPriors},
		{"Done", s.testDone},
		{"ClaimErrors", s.testClaimErrors},
		{"Reopen", s.testReopen},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.fn)
	}
}

type suite struct{ open Opener }

// store opens a fresh store for t, closed when t ends.
func (s suite) store(t *testing.T, cfg frontier.Config) frontier.Store {
	t.Helper()
	cfg.Dir = t.TempDir()
	return s.reopen(t, cfg)
}

// reopen opens the store of cfg.Dir, closed when t ends.
func (s suite) reopen(t *testing.T, cfg frontier.Config) frontier.Store {
	t.Helper()
	st := s.open(t, cfg)
	t.Cleanup(func() {
		if err := st.Close(); err != nil && !errors.Is(err, frontier.ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return st
}

func u(url, host string) frontier.URL { return frontier.URL{URL: url, Host: host} }

func mustAdd(t *testing.T, st frontier.Store, us ...frontier.URL) {
	t.Helper()
	res, err := st.AddBatch(us)
	if err != nil {
		t.Fatalf("AddBatch: %v", err)
	}
	for i, r := range res {
		if r.Err != nil || !r.New {
			t.Fatalf("AddBatch(%s) = %+v, want new", us[i].URL, r)
		}
	}
}

// claim claims with a generous deadline: a claim that should come and does not is a failure.
func claim(t *testing.T, st frontier.Store) *frontier.Claim {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := st.Claim(ctx)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return c
}

// noClaim checks that no claim is handed out within d (a claim that should not come).
func noClaim(t *testing.T, st frontier.Store, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	c, err := st.Claim(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		url := ""
		if c != nil {
			url = c.URL.URL
		}
		t.Fatalf("Claim = %q, %v; want nothing (context.DeadlineExceeded)", url, err)
	}
}

func done(t *testing.T, st frontier.Store, c *frontier.Claim) {
	t.Helper()
	if err := st.Done(c); err != nil {
		t.Fatalf("Done(%s): %v", c.URL.URL, err)
	}
}

// entries returns Each's entries sorted by URL.
func entries(t *testing.T, st frontier.Store) []frontier.Entry {
	t.Helper()
	var es []frontier.Entry
	if err := st.Each(func(e frontier.Entry) error {
		es = append(es, e)
		return nil
	}); err != nil {
		t.Fatalf("Each: %v", err)
	}
	slices.SortFunc(es, func(a, b frontier.Entry) int { return strings.Compare(a.URL.URL, b.URL.URL) })
	return es
}

func (s suite) testAddSeen(t *testing.T) {
	st := s.store(t, frontier.Config{})
	if ok, err := st.Reject(u("http://a/rej", "a"), "out of scope"); err != nil || !ok {
		t.Fatalf("Reject = %v, %v", ok, err)
	}
	mustAdd(t, st, u("http://a/1", "a"))
	tests := []struct {
		name    string
		url     frontier.URL
		wantNew bool
		wantErr error
	}{
		{"new", u("http://a/2", "a"), true, nil},
		{"queued", u("http://a/1", "a"), false, nil},
		{"same URL, other host", u("http://a/1", "b"), false, nil},
		{"prefix of a known URL", u("http://a/", "a"), true, nil},
		{"rejected before", u("http://a/rej", "a"), true, nil},
		{"added twice", u("http://a/rej", "a"), false, nil},
		{"empty URL", u("", "a"), false, frontier.ErrURL},
		{"too large", frontier.URL{URL: "http://a/big", Host: "a", Via: strings.Repeat("v", frontier.MaxRecordSize)}, false, frontier.ErrURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.Add(tt.url)
			if got != tt.wantNew || !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Errorf("Add(%.40q) = %v, %v; want %v, %v", tt.url.URL, got, err, tt.wantNew, tt.wantErr)
			}
		})
	}
	res, err := st.AddBatch([]frontier.URL{u("http://b/1", "b"), u("", "b"), u("http://b/1", "b"), u("http://a/1", "a")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprintf("%v %v", r.New, errors.Is(r.Err, frontier.ErrURL)))
	}
	if diff := cmp.Diff([]string{"true false", "false true", "false false", "false false"}, got); diff != "" {
		t.Errorf("AddBatch results (-want +got):\n%s", diff)
	}
	if got, want := st.Stats(), (frontier.Stats{Queued: 5}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

func (s suite) testReject(t *testing.T) {
	st := s.store(t, frontier.Config{})
	mustAdd(t, st, u("http://a/q", "a"))
	tests := []struct {
		url, reason string
		want        bool
	}{
		{"http://a/x", "out of scope", true},
		{"http://a/x", "blocked", false}, // rejected before: the first reason stays
		{"http://a/q", "blocked", false}, // queued
		{"http://a/y", "robots.txt", true},
	}
	for _, tt := range tests {
		if got, err := st.Reject(u(tt.url, "a"), tt.reason); err != nil || got != tt.want {
			t.Errorf("Reject(%s, %s) = %v, %v; want %v", tt.url, tt.reason, got, err, tt.want)
		}
	}
	if _, err := st.Reject(u("", "a"), "x"); !errors.Is(err, frontier.ErrURL) {
		t.Errorf("Reject(empty URL) error = %v, want ErrURL", err)
	}
	want := []frontier.Entry{
		{URL: u("http://a/q", "a"), State: status.Queued},
		{URL: u("http://a/x", "a"), State: status.Rejected, Reason: "out of scope"},
		{URL: u("http://a/y", "a"), State: status.Rejected, Reason: "robots.txt"},
	}
	if diff := cmp.Diff(want, entries(t, st)); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
	if got, want := st.Stats(), (frontier.Stats{Queued: 1, Rejected: 2}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	mustAdd(t, st, u("http://a/x", "a"))
	if got, want := st.Stats(), (frontier.Stats{Queued: 2, Rejected: 1}); got != want {
		t.Errorf("Stats after adding a rejected URL = %+v, want %+v", got, want)
	}
}

func (s suite) testPriorityOrder(t *testing.T) {
	st := s.store(t, frontier.Config{})
	us := []frontier.URL{
		{URL: "http://a/1", Host: "a"},
		{URL: "http://a/2", Host: "a", Priority: 1},
		{URL: "http://a/seed", Host: "a", Priority: -1, Hops: "", Seed: "http://a/seed"},
		{URL: "http://a/3", Host: "a"},
		{URL: "http://a/robots", Host: "a", Priority: -2},
		{URL: "http://a/4", Host: "a", Priority: 1, Hops: "LL", Via: "http://a/3", HopsOff: 1, Sitemap: true},
	}
	mustAdd(t, st, us...)
	var got []string
	for range us {
		c := claim(t, st)
		got = append(got, c.URL.URL)
		if c.URL.URL == "http://a/4" {
			if diff := cmp.Diff(us[5], c.URL); diff != "" {
				t.Errorf("claimed URL (-want +got):\n%s", diff)
			}
		}
		done(t, st, c)
	}
	want := []string{"http://a/robots", "http://a/seed", "http://a/1", "http://a/3", "http://a/2", "http://a/4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claim order (-want +got):\n%s", diff)
	}
}

func (s suite) testHostConcurrency(t *testing.T) {
	tests := []struct {
		conc int
	}{{1}, {2}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.conc), func(t *testing.T) {
			st := s.store(t, frontier.Config{HostConcurrency: tt.conc})
			for i := range 4 {
				mustAdd(t, st, u(fmt.Sprintf("http://a/%d", i), "a"))
			}
			mustAdd(t, st, u("http://b/0", "b"))
			var held []*frontier.Claim
			for len(held) < tt.conc+1 {
				held = append(held, claim(t, st))
			}
			hosts := map[string]int{}
			for _, c := range held {
				hosts[c.URL.Host]++
			}
			if want := map[string]int{"a": tt.conc, "b": 1}; !cmp.Equal(hosts, want) {
				t.Fatalf("claims by host %v, want %v", hosts, want)
			}
			noClaim(t, st, 150*time.Millisecond)
			done(t, st, held[0])
			c := claim(t, st)
			if c.URL.Host != "a" {
				t.Errorf("claim after a Done = %s, want one of host a", c.URL.URL)
			}
			if got := st.Stats(); got.InFlight != int64(tt.conc)+1 {
				t.Errorf("Stats.InFlight = %d, want %d", got.InFlight, tt.conc+1)
			}
		})
	}
}

func (s suite) testHostDelay(t *testing.T) {
	const delay = 150 * time.Millisecond
	tests := []struct {
		name  string
		ended bool // Ended before Done; else the end is the Done
	}{{"Ended", true}, {"Done", false}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := s.store(t, frontier.Config{HostDelay: delay})
			mustAdd(t, st, u("http://a/1", "a"), u("http://a/2", "a"), u("http://a/3", "a"))
			c := claim(t, st)
			var end time.Time
			for range 2 {
				end = time.Now()
				if tt.ended {
					if err := st.Ended(c, end); err != nil {
						t.Fatal(err)
					}
				}
				done(t, st, c)
				c = claim(t, st)
				if gap := time.Since(end); gap < delay {
					t.Errorf("%s claimed %v after the previous response ended, want >= %v", c.URL.URL, gap, delay)
				}
			}
		})
	}
}

func (s suite) testPace(t *testing.T) {
	const delay = 100 * time.Millisecond
	st := s.store(t, frontier.Config{HostDelay: delay})
	mustAdd(t, st, u("http://a/1", "a"), u("http://b/1", "b"))
	c := claim(t, st)
	other := "b"
	if c.URL.Host == "b" {
		other = "a"
	}
	ctx := context.Background()
	// The robots.txt of the claim's own host first: its own request slot, at once.
	if err := st.Pace(ctx, c, c.URL.Host); err != nil {
		t.Fatal(err)
	}
	robotsEnd := time.Now()
	if err := st.Ended(c, robotsEnd); err != nil {
		t.Fatal(err)
	}
	// The page after its robots.txt: the host's delay after the robots.txt ended.
	if err := st.Pace(ctx, c, c.URL.Host); err != nil {
		t.Fatal(err)
	}
	if gap := time.Since(robotsEnd); gap < delay {
		t.Errorf("page paced %v after its robots.txt ended, want >= %v", gap, delay)
	}
	// A request to the other host takes its slot: the other host's URL is not claimed meanwhile.
	if err := st.Pace(ctx, c, other); err != nil {
		t.Fatal(err)
	}
	noClaim(t, st, 150*time.Millisecond)
	otherEnd := time.Now()
	if err := st.Ended(c, otherEnd); err != nil {
		t.Fatal(err)
	}
	c2 := claim(t, st)
	if c2.URL.Host != other {
		t.Fatalf("claimed %s, want the URL of host %s", c2.URL.URL, other)
	}
	if gap := time.Since(otherEnd); gap < delay {
		t.Errorf("%s claimed %v after the paced request to it ended, want >= %v", c2.URL.URL, gap, delay)
	}
	done(t, st, c)
	done(t, st, c2)
	if err := st.Pace(ctx, c, other); !errors.Is(err, frontier.ErrClaimFinished) {
		t.Errorf("Pace of a finished claim = %v, want ErrClaimFinished", err)
	}
	if err := st.Ended(c, time.Now()); !errors.Is(err, frontier.ErrClaimFinished) {
		t.Errorf("Ended of a finished claim = %v, want ErrClaimFinished", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	mustAdd(t, st, u("http://a/2", "a"))
	c3 := claim(t, st)
	if err := st.Pace(cctx, c3, "b"); !errors.Is(err, context.Canceled) {
		t.Errorf("Pace with a cancelled context = %v, want context.Canceled", err)
	}
	done(t, st, c3)
}

func (s suite) testHostBackoffAndOverride(t *testing.T) {
	st := s.store(t, frontier.Config{HostDelay: time.Hour})
	mustAdd(t, st, u("http://a/1", "a"), u("http://a/2", "a"), u("http://a/3", "a"))
	until := time.Now().Add(150 * time.Millisecond)
	st.HostBackoff("a", until)
	st.HostBackoff("a", time.Now()) // earlier: does not shorten it
	c := claim(t, st)
	if now := time.Now(); now.Before(until) {
		t.Errorf("claimed %v before the backoff ended", until.Sub(now))
	}
	if err := st.Ended(c, time.Now()); err != nil {
		t.Fatal(err)
	}
	done(t, st, c)
	noClaim(t, st, 100*time.Millisecond) // an hour's delay
	st.SetHostDelayOverride("a", 0)
	done(t, st, claim(t, st))
	st.SetHostDelayOverride("a", -1) // back to the hour
	noClaim(t, st, 100*time.Millisecond)
}

func (s suite) testRetry(t *testing.T) {
	st := s.store(t, frontier.Config{MaxAttempts: 3})
	mustAdd(t, st, u("http://a/1", "a"), u("http://a/2", "a"))
	c := claim(t, st) // a/1
	if ok, err := st.Retry(c, time.Time{}); err != nil || !ok {
		t.Fatalf("Retry = %v, %v; want true", ok, err)
	}
	if _, err := st.Retry(c, time.Time{}); !errors.Is(err, frontier.ErrClaimFinished) {
		t.Errorf("second Retry of one claim = %v, want ErrClaimFinished", err)
	}
	c2 := claim(t, st)
	if c2.URL.URL != "http://a/2" {
		t.Errorf("claim after a Retry = %s, want http://a/2 (a retry goes to the end)", c2.URL.URL)
	}
	done(t, st, c2)
	var attempts []int
	for {
		c = claim(t, st)
		attempts = append(attempts, c.URL.Attempts)
		ok, err := st.RetryStatus(c, time.Time{}, -2)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
	}
	if diff := cmp.Diff([]int{1, 2}, attempts); diff != "" {
		t.Errorf("attempts of the claims (-want +got):\n%s", diff)
	}
	mustAdd(t, st, u("http://a/3", "a"))
	c = claim(t, st)
	if err := st.Failed(c, -6); err != nil {
		t.Fatal(err)
	}
	want := []frontier.Entry{
		{URL: frontier.URL{URL: "http://a/1", Host: "a", Attempts: 3}, State: status.Failed, Status: -2},
		{URL: u("http://a/2", "a"), State: status.Done},
		{URL: u("http://a/3", "a"), State: status.Failed, Status: -6},
	}
	if diff := cmp.Diff(want, entries(t, st)); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
	if got, want := st.Stats(), (frontier.Stats{Done: 1, Failed: 2}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

func (s suite) testRetryNotBefore(t *testing.T) {
	st := s.store(t, frontier.Config{})
	mustAdd(t, st, u("http://a/1", "a"))
	c := claim(t, st)
	nb := time.Now().Add(150 * time.Millisecond)
	if ok, err := st.Retry(c, nb); err != nil || !ok {
		t.Fatalf("Retry = %v, %v", ok, err)
	}
	if got := st.Stats(); got.Queued != 1 || got.InFlight != 0 {
		t.Errorf("Stats after Retry = %+v, want 1 queued", got)
	}
	c = claim(t, st)
	if now := time.Now(); now.Before(nb) {
		t.Errorf("retry claimed %v before its not-before", nb.Sub(now))
	}
	done(t, st, c)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := st.Claim(ctx); !errors.Is(err, frontier.ErrDone) {
		t.Errorf("Claim at the end = %v, want ErrDone", err)
	}
}

func (s suite) testEachStats(t *testing.T) {
	st := s.store(t, frontier.Config{HostConcurrency: 4})
	mustAdd(t, st, u("http://a/done", "a"), u("http://a/failed", "a"), u("http://a/inflight", "a"), u("http://a/queued", "a"))
	if _, err := st.Reject(u("http://a/rejected", "a"), "scope"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c := claim(t, st)
		switch c.URL.URL {
		case "http://a/done":
			done(t, st, c)
		case "http://a/failed":
			if err := st.Failed(c, -1); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []frontier.Entry{
		{URL: u("http://a/done", "a"), State: status.Done},
		{URL: u("http://a/failed", "a"), State: status.Failed, Status: -1},
		{URL: u("http://a/inflight", "a"), State: status.Inflight},
		{URL: u("http://a/queued", "a"), State: status.Queued},
		{URL: u("http://a/rejected", "a"), State: status.Rejected, Reason: "scope"},
	}
	if diff := cmp.Diff(want, entries(t, st)); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
	if got, want := st.Stats(), (frontier.Stats{Queued: 1, InFlight: 1, Done: 1, Failed: 1, Rejected: 1}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	stop := errors.New("stop")
	n := 0
	if err := st.Each(func(frontier.Entry) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("Each with fn failing = %v after %d calls, want fn's error after 1", err, n)
	}
}

func (s suite) testMeta(t *testing.T) {
	st := s.store(t, frontier.Config{})
	puts := []struct{ key, value string }{
		{"control/block/b", "1"},
		{"control/block/a", "1"},
		{"control/blocked", "x"},
		{"control/block/a", ""}, // replaced
		{"seeds", "http://a/"},
		{"control/block/" + strings.Repeat("k", 300), "long"},
	}
	for _, p := range puts {
		if err := st.PutMeta(p.key, []byte(p.value)); err != nil {
			t.Fatalf("PutMeta(%s): %v", p.key, err)
		}
	}
	if err := st.PutMeta("big", make([]byte, frontier.MaxRecordSize)); !errors.Is(err, frontier.ErrMeta) {
		t.Errorf("PutMeta(too large) = %v, want ErrMeta", err)
	}
	tests := []struct {
		key    string
		want   string
		wantOK bool
	}{
		{"seeds", "http://a/", true},
		{"control/block/a", "", true},
		{"missing", "", false},
		{"big", "", false},
	}
	for _, tt := range tests {
		v, ok, err := st.Meta(tt.key)
		if err != nil || ok != tt.wantOK || string(v) != tt.want {
			t.Errorf("Meta(%s) = %q, %v, %v; want %q, %v", tt.key, v, ok, err, tt.want, tt.wantOK)
		}
	}
	scans := []struct {
		prefix string
		want   []string
	}{
		{"control/block/", []string{"control/block/a=", "control/block/b=1", "control/block/" + strings.Repeat("k", 300) + "=long"}},
		{"control/", []string{"control/block/a=", "control/block/b=1", "control/block/" + strings.Repeat("k", 300) + "=long", "control/blocked=x"}},
		{"nothing/", nil},
	}
	for _, sc := range scans {
		var got []string
		if err := st.ScanMeta(sc.prefix, func(k string, v []byte) error {
			got = append(got, k+"="+string(v))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(sc.want, got); diff != "" {
			t.Errorf("ScanMeta(%s) (-want +got):\n%s", sc.prefix, diff)
		}
	}
}

func (s suite) testDigests(t *testing.T) {
	st := s.store(t, frontier.Config{})
	d1 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	if err := st.StoreDigest("sha1:AAA", "http://a/1", d1); err != nil {
		t.Fatal(err)
	}
	if err := st.StoreDigest("sha1:AAA", "http://a/2", d1.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		digest string
		uri    string
		date   time.Time
		ok     bool
	}{
		{"sha1:AAA", "http://a/1", d1, true}, // the first capture stays
		{"sha1:BBB", "", time.Time{}, false},
	}
	for _, tt := range tests {
		uri, date, ok, err := st.LookupDigest(tt.digest)
		if err != nil || uri != tt.uri || !date.Equal(tt.date) || ok != tt.ok {
			t.Errorf("LookupDigest(%s) = %s, %v, %v, %v; want %s, %v, %v", tt.digest, uri, date, ok, err, tt.uri, tt.date, tt.ok)
		}
	}
}

// testHeld: a held capture is found by its key alone, after a reopen too; keys differing in
// one byte, a prefix of a key, and keys longer than a key part stored verbatim (the long form
// of the badger store) are told apart.
func (s suite) testHeld(t *testing.T) {
	cfg := frontier.Config{Dir: t.TempDir()}
	st := s.reopen(t, cfg)
	long := "sha1:AAA 200 http://a/" + strings.Repeat("x", 600)
	stored := []string{"sha1:AAA 200 http://a/1", long}
	for _, k := range append(stored, stored[0]) { // storing twice is a no-op
		if err := st.StoreHeld(k); err != nil {
			t.Fatalf("StoreHeld(%.40s): %v", k, err)
		}
	}
	check := func(st frontier.Store, when string) {
		t.Helper()
		for _, tt := range []struct {
			key  string
			want bool
		}{
			{stored[0], true},
			{long, true},
			{"sha1:AAA 200 http://a/2", false},
			{"sha1:AAB 200 http://a/1", false},
			{"sha1:AAA 404 http://a/1", false},
			{"sha1:AAA 200 http://a/", false},
			{long[:len(long)-1] + "y", false}, // same first bytes as a long key
			{long + "x", false},
		} {
			if got, err := st.LookupHeld(tt.key); err != nil || got != tt.want {
				t.Errorf("%s: LookupHeld(%.60s…) = %v, %v; want %v", when, tt.key, got, err, tt.want)
			}
		}
	}
	check(st, "open")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	check(s.reopen(t, cfg), "after reopen")
}

func (s suite) testPriors(t *testing.T) {
	st := s.store(t, frontier.Config{})
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	if err := st.StorePriorDigests([]frontier.Prior{
		{Key: "sha1:X", URI: "http://a/old", Date: t0},
		{Key: "sha1:X", URI: "http://a/last", Date: t0.Add(time.Hour)}, // the last given is kept
	}); err != nil {
		t.Fatal(err)
	}
	uri, date, ok, err := st.PriorDigest("sha1:X")
	if err != nil || !ok || uri != "http://a/last" || !date.Equal(t0.Add(time.Hour)) {
		t.Errorf("PriorDigest = %s, %v, %v, %v; want http://a/last", uri, date, ok, err)
	}
	if _, _, ok, err := st.PriorDigest("sha1:Y"); ok || err != nil {
		t.Errorf("PriorDigest(unknown) = %v, %v", ok, err)
	}
	later := frontier.Prior{Key: "http://a/", URI: "http://a/", Date: t0, Captured: t0.Add(2 * time.Hour), Digest: "sha1:X", ETag: `"e"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT", Mime: "text/css"}
	ps := []frontier.Prior{
		{Key: "http://a/", URI: "http://a/", Date: t0, Captured: t0.Add(time.Hour)},
		later,
		{Key: "http://a/", URI: "http://a/earlier", Date: t0, Captured: t0}, // earlier: not kept
		{Key: "http://b/", URI: "http://b/first", Date: t0, Captured: t0},
		{Key: "http://b/", URI: "http://b/second", Date: t0, Captured: t0}, // same time: the first stays
	}
	if err := st.StorePriorURLs(ps); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url  string
		want frontier.Prior
		ok   bool
	}{
		{"http://a/", later, true},
		{"http://b/", ps[3], true},
		{"http://c/", frontier.Prior{}, false},
	}
	for _, tt := range tests {
		got, ok, err := st.PriorURL(tt.url)
		if err != nil || ok != tt.ok {
			t.Errorf("PriorURL(%s) ok = %v, %v; want %v", tt.url, ok, err, tt.ok)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("PriorURL(%s) (-want +got):\n%s", tt.url, diff)
		}
	}
	big := frontier.Prior{Key: "http://big/", URI: strings.Repeat("u", frontier.MaxRecordSize)}
	if err := st.StorePriorURLs([]frontier.Prior{big}); !errors.Is(err, frontier.ErrURL) {
		t.Errorf("StorePriorURLs(too large) = %v, want ErrURL", err)
	}
}

func (s suite) testDone(t *testing.T) {
	st := s.store(t, frontier.Config{HostConcurrency: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := st.Claim(ctx); !errors.Is(err, frontier.ErrDone) {
		t.Fatalf("Claim on an empty store = %v, want ErrDone", err)
	}
	mustAdd(t, st, u("http://a/1", "a"))
	c := claim(t, st)
	// Nothing queued, one in flight: its outlinks may still come, so Claim waits.
	noClaim(t, st, 100*time.Millisecond)
	mustAdd(t, st, u("http://a/2", "a"))
	done(t, st, c)
	c = claim(t, st)
	if err := st.Failed(c, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx); !errors.Is(err, frontier.ErrDone) {
		t.Errorf("Claim with everything finished = %v, want ErrDone", err)
	}
}

func (s suite) testClaimErrors(t *testing.T) {
	st := s.store(t, frontier.Config{})
	mustAdd(t, st, u("http://a/1", "a"), u("http://a/2", "a"))
	c := claim(t, st)
	done(t, st, c)
	if err := st.Done(c); !errors.Is(err, frontier.ErrClaimFinished) {
		t.Errorf("Done twice = %v, want ErrClaimFinished", err)
	}
	if err := st.Failed(c, -1); !errors.Is(err, frontier.ErrClaimFinished) {
		t.Errorf("Failed after Done = %v, want ErrClaimFinished", err)
	}
	foreign := frontier.NewClaim(u("http://a/2", "a"), nil)
	if err := st.Done(foreign); !errors.Is(err, frontier.ErrClaimFinished) {
		t.Errorf("Done of another store's claim = %v, want ErrClaimFinished", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := st.Claim(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Claim with a cancelled context = %v, want context.Canceled", err)
	}
	c = claim(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Close":   st.Close(),
		"Done":    st.Done(c),
		"Sync":    st.Sync(),
		"PutMeta": st.PutMeta("k", nil),
	} {
		if !errors.Is(err, frontier.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	if _, err := st.Add(u("http://a/3", "a")); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
	if _, err := st.Claim(context.Background()); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("Claim after Close = %v, want ErrClosed", err)
	}
}

func (s suite) testReopen(t *testing.T) {
	cfg := frontier.Config{Dir: t.TempDir(), HostConcurrency: 2}
	st := s.reopen(t, cfg)
	mustAdd(t, st, u("http://a/1", "a"), u("http://a/2", "a"), u("http://a/3", "a"))
	if _, err := st.Reject(u("http://a/x", "a"), "scope"); err != nil {
		t.Fatal(err)
	}
	c1 := claim(t, st)
	done(t, st, c1)
	c2 := claim(t, st) // left in flight
	if err := st.PutMeta("k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := st.StoreDigest("sha1:D", "http://a/1", time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = s.reopen(t, cfg)
	if got, want := st.Stats(), (frontier.Stats{Queued: 2, Done: 1, Rejected: 1}); got != want {
		t.Errorf("Stats after reopen = %+v, want %+v (the claim left in flight queued again)", got, want)
	}
	if v, ok, err := st.Meta("k"); err != nil || !ok || string(v) != "v" {
		t.Errorf("Meta after reopen = %q, %v, %v", v, ok, err)
	}
	if uri, _, ok, err := st.LookupDigest("sha1:D"); err != nil || !ok || uri != "http://a/1" {
		t.Errorf("LookupDigest after reopen = %s, %v, %v", uri, ok, err)
	}
	if ok, err := st.Add(u(c1.URL.URL, "a")); err != nil || ok {
		t.Errorf("Add(done URL) after reopen = %v, %v; want false", ok, err)
	}
	var got []string
	for range 2 {
		c := claim(t, st)
		got = append(got, c.URL.URL)
		done(t, st, c)
	}
	slices.Sort(got)
	want := []string{c2.URL.URL, "http://a/3"}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("claims after reopen (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := st.Claim(ctx); !errors.Is(err, frontier.ErrDone) {
		t.Errorf("Claim at the end = %v, want ErrDone", err)
	}
}

// testSetDelay: SetDelay replaces Config.HostDelay at once, for hosts already waiting for it;
// a robots Crawl-delay still raises it, an operator's delay still replaces it.
func (s suite) testSetDelay(t *testing.T) {
	st := s.store(t, frontier.Config{HostDelay: time.Hour})
	mustAdd(t, st, u("http://a/1", "a"), u("http://a/2", "a"), u("http://a/3", "a"), u("http://a/4", "a"))
	finish := func(c *frontier.Claim) {
		t.Helper()
		if err := st.Ended(c, time.Now()); err != nil {
			t.Fatal(err)
		}
		done(t, st, c)
	}
	finish(claim(t, st))
	noClaim(t, st, 100*time.Millisecond) // an hour's delay
	st.SetDelay(0)                       // the host waits no more
	finish(claim(t, st))
	st.SetHostDelay("a", time.Hour) // Crawl-delay: above the new delay
	noClaim(t, st, 100*time.Millisecond)
	st.SetHostDelayOverride("a", 0) // the operator's delay: in place of both
	finish(claim(t, st))
	st.SetHostDelayOverride("a", -1)
	st.SetHostDelay("a", 0)
	st.SetDelay(time.Hour)
	noClaim(t, st, 100*time.Millisecond)
	st.SetDelay(0)
	finish(claim(t, st))
}

// testHostDelayInForce: HostDelay reports the delay a host's requests are spaced by: the
// operator's when set, lower or higher, else the larger of the host's Crawl-delay and the
// crawl's delay, SetDelay's once set. A setting for one host leaves the others at the crawl's
// delay, known to the store (b has a queued URL) or not (c).
func (s suite) testHostDelayInForce(t *testing.T) {
	const crawl = 2 * time.Second
	tests := []struct {
		name  string
		set   func(st frontier.Store)
		want  time.Duration // a's
		other time.Duration // b's and c's
	}{
		{"no setting", func(frontier.Store) {}, crawl, crawl},
		{"SetDelay", func(st frontier.Store) { st.SetDelay(3 * time.Second) }, 3 * time.Second, 3 * time.Second},
		{"SetDelay to zero", func(st frontier.Store) { st.SetDelay(0) }, 0, 0},
		{"Crawl-delay above", func(st frontier.Store) { st.SetHostDelay("a", 5*time.Second) }, 5 * time.Second, crawl},
		{"Crawl-delay below", func(st frontier.Store) { st.SetHostDelay("a", time.Second) }, crawl, crawl},
		{"Crawl-delay below, then SetDelay below it", func(st frontier.Store) {
			st.SetHostDelay("a", time.Second)
			st.SetDelay(500 * time.Millisecond)
		}, time.Second, 500 * time.Millisecond},
		{"override lower", func(st frontier.Store) {
			st.SetHostDelay("a", 5*time.Second)
			st.SetHostDelayOverride("a", 250*time.Millisecond)
		}, 250 * time.Millisecond, crawl},
		{"override zero", func(st frontier.Store) { st.SetHostDelayOverride("a", 0) }, 0, crawl},
		{"override higher", func(st frontier.Store) {
			st.SetHostDelay("a", 5*time.Second)
			st.SetHostDelayOverride("a", time.Hour)
		}, time.Hour, crawl},
		{"override kept through SetDelay", func(st frontier.Store) {
			st.SetHostDelayOverride("a", 250*time.Millisecond)
			st.SetDelay(time.Minute)
		}, 250 * time.Millisecond, time.Minute},
		{"override removed", func(st frontier.Store) {
			st.SetHostDelay("a", 5*time.Second)
			st.SetHostDelayOverride("a", time.Hour)
			st.SetHostDelayOverride("a", -1)
		}, 5 * time.Second, crawl},
		{"override removed, Crawl-delay below", func(st frontier.Store) {
			st.SetHostDelay("a", time.Second)
			st.SetHostDelayOverride("a", 250*time.Millisecond)
			st.SetHostDelayOverride("a", -1)
		}, crawl, crawl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := s.store(t, frontier.Config{HostDelay: crawl})
			mustAdd(t, st, u("http://a/1", "a"), u("http://b/1", "b"))
			tt.set(st)
			got := map[string]time.Duration{"a": st.HostDelay("a"), "b": st.HostDelay("b"), "c": st.HostDelay("c")}
			want := map[string]time.Duration{"a": tt.want, "b": tt.other, "c": tt.other}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("HostDelay by host (-want +got):\n%s", diff)
			}
		})
	}
}

// claimOrder claims and finishes one URL at a time until the store is done, and returns the
// URLs in claim order.
func claimOrder(t *testing.T, st frontier.Store) []string {
	t.Helper()
	return claimAll(t, st, func(u frontier.URL) string { return u.URL })
}

// claimAll claims and finishes one URL at a time until the store is done, and returns what
// name says of each claim's URL, in claim order.
func claimAll(t *testing.T, st frontier.Store, name func(frontier.URL) string) []string {
	t.Helper()
	var got []string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := st.Claim(ctx)
		cancel()
		if errors.Is(err, frontier.ErrDone) {
			return got
		}
		if err != nil {
			t.Fatalf("Claim after %v: %v", got, err)
		}
		got = append(got, name(c.URL))
		done(t, st, c)
	}
}

// testMaxSites: at most MaxSites hosts are crawled at once; a host keeps its place until its
// queue is empty and its claims are finished, then the first host that waited takes it.
func (s suite) testMaxSites(t *testing.T) {
	st := s.store(t, frontier.Config{MaxSites: 2})
	mustAdd(t, st, u("http://a/1", "a"), u("http://a/2", "a"), u("http://b/1", "b"), u("http://c/1", "c"), u("http://d/1", "d"))
	a1, b1 := claim(t, st), claim(t, st)
	if a1.URL.URL != "http://a/1" || b1.URL.URL != "http://b/1" {
		t.Fatalf("first claims %s, %s; want http://a/1, http://b/1", a1.URL.URL, b1.URL.URL)
	}
	noClaim(t, st, 150*time.Millisecond) // c and d wait for a place
	if got := st.Stats(); got.Sites != 2 || got.SitesWaiting != 2 {
		t.Errorf("Stats = %+v; want Sites 2, SitesWaiting 2", got)
	}
	done(t, st, a1) // a keeps its place: a/2 is queued
	steps := []struct {
		want   string
		finish *frontier.Claim // finished after the claim
	}{
		{"http://a/2", b1}, // b's queue is empty: c takes its place
		{"http://c/1", nil},
	}
	var held []*frontier.Claim
	for _, step := range steps {
		c := claim(t, st)
		if c.URL.URL != step.want {
			t.Fatalf("claimed %s, want %s", c.URL.URL, step.want)
		}
		held = append(held, c)
		if step.finish != nil {
			done(t, st, step.finish)
		}
	}
	noClaim(t, st, 150*time.Millisecond) // d waits: a and c hold the places
	done(t, st, held[0])                 // a is done: d takes its place
	if c := claim(t, st); c.URL.URL != "http://d/1" {
		t.Fatalf("claimed %s, want http://d/1", c.URL.URL)
	} else {
		done(t, st, c)
	}
	done(t, st, held[1])
	if got := st.Stats(); got.Sites != 0 || got.SitesWaiting != 0 || got.Done != 5 {
		t.Errorf("Stats at the end = %+v; want Done 5, no sites", got)
	}
	if got := claimOrder(t, st); len(got) != 0 {
		t.Errorf("claims at the end: %v", got)
	}
}

// testMaxInterDocs: a host that had MaxInterDocs claims while another waits goes back behind
// it (interleaving); without a waiting host it keeps its place.
func (s suite) testMaxInterDocs(t *testing.T) {
	tests := []struct {
		name     string
		cfg      frontier.Config
		hosts    map[string]int // URLs per host, added a first
		want     []string
		wantLast frontier.Stats
	}{
		{"interleaved", frontier.Config{MaxSites: 1, MaxInterDocs: 2}, map[string]int{"a": 5, "b": 3},
			[]string{"http://a/1", "http://a/2", "http://b/1", "http://b/2", "http://a/3", "http://a/4", "http://b/3", "http://a/5"},
			frontier.Stats{Done: 8}},
		{"nobody waits", frontier.Config{MaxSites: 2, MaxInterDocs: 1}, map[string]int{"a": 3},
			[]string{"http://a/1", "http://a/2", "http://a/3"}, frontier.Stats{Done: 3}},
		{"one site at a time", frontier.Config{MaxSites: 1}, map[string]int{"a": 3, "b": 2},
			[]string{"http://a/1", "http://a/2", "http://a/3", "http://b/1", "http://b/2"}, frontier.Stats{Done: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := s.store(t, tt.cfg)
			var us []frontier.URL
			for _, h := range slices.Sorted(maps.Keys(tt.hosts)) {
				for i := range tt.hosts[h] {
					us = append(us, u(fmt.Sprintf("http://%s/%d", h, i+1), h))
				}
			}
			mustAdd(t, st, us...)
			if diff := cmp.Diff(tt.want, claimOrder(t, st)); diff != "" {
				t.Errorf("claim order (-want +got):\n%s", diff)
			}
			if got := st.Stats(); got != tt.wantLast {
				t.Errorf("Stats at the end = %+v, want %+v", got, tt.wantLast)
			}
		})
	}
}
