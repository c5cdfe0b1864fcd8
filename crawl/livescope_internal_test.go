package crawl

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/post"
	"github.com/amber-crawler/amber/scope"
)

// TestCanonicalFormCanonicalize: the crawl's canonical form is the flavour's, with the query
// sorted only when asked; what does not canonicalise is an error of scope's.
func TestCanonicalFormCanonicalize(t *testing.T) {
	tests := []struct {
		name    string
		form    canonicalForm
		raw     string
		want    string
		wantErr bool
	}{
		{"standard", canonicalForm{}, "HTTP://Example.COM:80/a//b?b=2&a=1#frag", "http://example.com/a//b?b=2&a=1", false},
		{"standard named", canonicalForm{flavour: scope.Standard}, "http://example.com/./x/../y", "http://example.com/y", false},
		{"sorted", canonicalForm{sortQuery: true}, "HTTP://Example.COM/a//b?b=2&a=1#frag", "http://example.com/a//b?a=1&b=2", false},
		{"sorted, semicolons", canonicalForm{sortQuery: true}, "http://example.com/?c=3;b=2&a=1", "http://example.com/?a=1;b=2&c=3", false},
		{"sorted, no query", canonicalForm{sortQuery: true}, "http://example.com/p", "http://example.com/p", false},
		{"sorted, same names keep their order", canonicalForm{sortQuery: true}, "http://example.com/?b=2&a=9&a=1", "http://example.com/?a=9&a=1&b=2", false},
		{"brozzler", canonicalForm{flavour: scope.Brozzler}, "http://example.com/a//b?b=2&a=1", "http://example.com/a/b?b=2&a=1", false},
		{"brozzler sorted", canonicalForm{flavour: scope.Brozzler, sortQuery: true}, "http://example.com/a//b?b=2&a=1", "http://example.com/a/b?a=1&b=2", false},
		{"relative", canonicalForm{sortQuery: true}, "/a?b=2&a=1", "", true},
		{"no host", canonicalForm{}, "http:///a", "", true},
		{"bad port", canonicalForm{sortQuery: true}, "http://example.com:99999/?b&a", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.form.canonicalize(tc.raw)
			if tc.wantErr {
				if !errors.Is(err, scope.ErrURL) {
					t.Errorf("canonicalize(%q) = %q, %v; want an error wrapping scope.ErrURL", tc.raw, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("canonicalize(%q): %v", tc.raw, err)
			}
			if got != tc.want {
				t.Errorf("canonicalize(%q) = %q, want %q", tc.raw, got, tc.want)
			}
			if again, err := tc.form.canonicalize(got); err != nil || again != got {
				t.Errorf("canonicalize(%q) = %q, %v; want it unchanged (idempotent)", got, again, err)
			}
		})
	}
}

// Seeds of the live-scope tests: a, which redirects to b's /x/ (not in a's scope).
const (
	seedA    = "http://a.example/"
	targetB  = "http://b.example/x/"
	inTarget = "http://b.example/x/page" // under the promoted target
	besideB  = "http://b.example/y/page" // on the target's host, not under it
)

// newTestScope builds the scope of the seeds in flavour f.
func newTestScope(t *testing.T, f scope.Flavour, seeds ...string) *scope.Scope {
	t.Helper()
	cfg := scope.Config{Flavour: f}
	for _, s := range seeds {
		cfg.Seeds = append(cfg.Seeds, scope.Seed{URL: s})
	}
	sc, err := scope.New(cfg)
	if err != nil {
		t.Fatalf("scope.New: %v", err)
	}
	return sc
}

// newLiveScope returns the live scope of a crawl on front that starts with sc.
func newLiveScope(front frontier.Store, sc *scope.Scope, form canonicalForm) *liveScope {
	s := &liveScope{front: front, form: form, log: slog.New(slog.DiscardHandler)}
	s.cur.Store(sc)
	return s
}

// inScope reports whether the scope now takes u as a link of a page on seedA's redirect
// chain (hops "RL"), found on targetB, far off any seed's scope.
func inScope(s *liveScope, u string) bool {
	return s.load().Decide(scope.Candidate{URL: u, Hops: "RL", Via: targetB, ViaHopsOff: 1000, Seed: seedA}).In
}

// promoted returns the promotions kept in front: target -> "seed\x00hops".
func promoted(t *testing.T, front frontier.Store) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := front.ScanMeta(metaPromoted, func(k string, v []byte) error {
		got[k[len(metaPromoted):]] = string(v)
		return nil
	})
	if err != nil {
		t.Fatalf("ScanMeta: %v", err)
	}
	return got
}

// TestLiveScopePromote: a redirect on a seed's own redirect chain widens the seed's scope to
// its target (canonical in the crawl's form) and is kept in the frontier; a redirect off the
// chain, to the URL itself, or to what does not canonicalise changes nothing.
func TestLiveScopePromote(t *testing.T) {
	seed := frontier.URL{URL: seedA, Seed: seedA}
	tests := []struct {
		name    string
		flavour scope.Flavour
		form    canonicalForm
		u       frontier.URL
		target  string
		hops    string
		want    map[string]string // the promotions kept
		wantIn  []string          // in scope after
		wantOut []string          // still out
	}{
		{
			name: "seed's redirect", u: seed, target: targetB, hops: "R",
			want:    map[string]string{targetB: seedA + "\x00R"},
			wantIn:  []string{targetB, inTarget},
			wantOut: []string{besideB},
		},
		{
			name: "the target canonicalised", u: seed, target: "HTTP://B.Example:80/x/#top", hops: "R",
			want:   map[string]string{targetB: seedA + "\x00R"},
			wantIn: []string{inTarget},
		},
		{
			name: "the target's query sorted", form: canonicalForm{sortQuery: true}, u: seed,
			target: "http://b.example/x/?z=1&a=2", hops: "R",
			want:   map[string]string{"http://b.example/x/?a=2&z=1": seedA + "\x00R"},
			wantIn: []string{inTarget},
		},
		{
			name: "further down the chain", u: frontier.URL{URL: "http://a.example/moved", Hops: "R", Seed: seedA},
			target: targetB, hops: "RR",
			want:   map[string]string{targetB: seedA + "\x00RR"},
			wantIn: []string{inTarget},
		},
		{
			name: "brozzler", flavour: scope.Brozzler, u: seed, target: targetB, hops: "R",
			want:    map[string]string{targetB: seedA + "\x00R"},
			wantIn:  []string{inTarget},
			wantOut: []string{besideB},
		},
		{
			name: "off the chain: a link's redirect", u: frontier.URL{URL: "http://a.example/page", Hops: "L", Seed: seedA},
			target: targetB, hops: "LR",
			wantOut: []string{inTarget},
		},
		{
			name: "off the chain: after a link", u: frontier.URL{URL: "http://a.example/page", Hops: "RL", Seed: seedA},
			target: targetB, hops: "RLR",
			wantOut: []string{inTarget},
		},
		{
			// The URL's own hops decide, whatever hops the target is given.
			name: "off the chain: the URL's hops decide", u: frontier.URL{URL: "http://a.example/page", Hops: "L", Seed: seedA},
			target: targetB, hops: "R",
			wantOut: []string{inTarget},
		},
		{
			name: "off the chain: an embed", u: frontier.URL{URL: "http://a.example/i.png", Hops: "E", Seed: seedA},
			target: targetB, hops: "ER",
			wantOut: []string{inTarget},
		},
		{
			name: "self-redirect", u: seed, target: "HTTP://A.EXAMPLE:80/#x", hops: "R",
		},
		{
			name: "self-redirect, sorted", form: canonicalForm{sortQuery: true},
			u:      frontier.URL{URL: "http://a.example/?a=1&b=2", Seed: seedA},
			target: "http://a.example/?b=2&a=1", hops: "R",
		},
		{
			name: "target does not canonicalise", u: seed, target: "http://1.2.3.4.5/", hops: "R",
		},
		{
			name: "target relative", u: seed, target: "/x/", hops: "R",
		},
		{
			// Standard flavour: a chain of 5 redirects or more promotes nothing (§3.1).
			name: "chain too long", u: frontier.URL{URL: "http://a.example/4", Hops: "RRRR", Seed: seedA},
			target: targetB, hops: "RRRRR",
			wantOut: []string{inTarget},
		},
		{
			name: "not a seed's", u: frontier.URL{URL: "http://c.example/", Seed: "http://c.example/"},
			target: targetB, hops: "R",
			wantOut: []string{inTarget},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			front := openTestFrontier(t)
			s := newLiveScope(front, newTestScope(t, tc.flavour, seedA), tc.form)
			for _, u := range tc.wantIn {
				if inScope(s, u) {
					t.Fatalf("%s in scope before the promotion", u)
				}
			}
			s.promote(tc.u, tc.target, tc.hops)
			if tc.want == nil {
				tc.want = map[string]string{}
			}
			if diff := cmp.Diff(tc.want, promoted(t, front)); diff != "" {
				t.Errorf("promotions kept mismatch (-want +got):\n%s", diff)
			}
			for _, u := range tc.wantIn {
				if !inScope(s, u) {
					t.Errorf("%s out of scope after the promotion", u)
				}
			}
			for _, u := range tc.wantOut {
				if inScope(s, u) {
					t.Errorf("%s in scope after the promotion", u)
				}
			}
			// Nothing kept, nothing to replay: a new run's scope is as the seeds make it.
			if len(tc.want) == 0 {
				again := newLiveScope(front, newTestScope(t, tc.flavour, seedA), tc.form)
				if err := again.restore(); err != nil {
					t.Fatal(err)
				}
				for _, u := range append(tc.wantOut, inTarget) {
					if inScope(again, u) {
						t.Errorf("new run: %s in scope", u)
					}
				}
			}
		})
	}
}

// TestLiveScopePromoteTwice: a promotion already made is not made or kept again.
func TestLiveScopePromoteTwice(t *testing.T) {
	front := &metaCountStore{Store: openTestFrontier(t)}
	s := newLiveScope(front, newTestScope(t, "", seedA), canonicalForm{})
	seed := frontier.URL{URL: seedA, Seed: seedA}
	s.promote(seed, targetB, "R")
	s.promote(seed, targetB, "R")
	s.promote(seed, "http://B.example/x/#again", "R")
	if front.puts != 1 {
		t.Errorf("PutMeta called %d times, want 1", front.puts)
	}
}

// metaCountStore counts the meta writes to a frontier.
type metaCountStore struct {
	frontier.Store
	puts int
}

func (s *metaCountStore) PutMeta(key string, value []byte) error {
	s.puts++
	return s.Store.PutMeta(key, value)
}

// TestLiveScopeNewRun: the promotions of a run are replayed by the next one, on the same
// frontier, by restore and by every scope set, in each flavour.
func TestLiveScopeNewRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flavour scope.Flavour
		form    canonicalForm
		target  string
		kept    string // the target as kept
	}{
		{"standard", scope.Standard, canonicalForm{}, targetB, targetB},
		{"standard, sorted query", scope.Standard, canonicalForm{sortQuery: true}, "http://b.example/x/?b=1&a=2", "http://b.example/x/?a=2&b=1"},
		{"brozzler", scope.Brozzler, canonicalForm{flavour: scope.Brozzler}, "http://b.example//x/", targetB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			front := openTestFrontier(t)
			first := newLiveScope(front, newTestScope(t, tc.flavour, seedA), tc.form)
			first.promote(frontier.URL{URL: seedA, Seed: seedA}, tc.target, "R")
			if !inScope(first, inTarget) {
				t.Fatalf("first run: %s out of scope after the promotion", inTarget)
			}
			if diff := cmp.Diff(map[string]string{tc.kept: seedA + "\x00R"}, promoted(t, front)); diff != "" {
				t.Fatalf("promotions kept (-want +got):\n%s", diff)
			}

			// A new run starts from the seeds, then restores what earlier runs promoted.
			next := newLiveScope(front, newTestScope(t, tc.flavour, seedA), tc.form)
			if inScope(next, inTarget) {
				t.Fatalf("new run: %s in scope before restore", inTarget)
			}
			if err := next.restore(); err != nil {
				t.Fatalf("restore: %v", err)
			}
			if !inScope(next, inTarget) {
				t.Errorf("new run: %s out of scope after restore", inTarget)
			}
			if inScope(next, besideB) {
				t.Errorf("new run: %s in scope after restore", besideB)
			}

			// A scope swapped in (add-seed, block) gets the promotions too.
			swapped := newTestScope(t, tc.flavour, seedA, "http://c.example/")
			if err := next.set(swapped); err != nil {
				t.Fatalf("set: %v", err)
			}
			if next.load() != swapped {
				t.Fatalf("set did not make the scope the crawl's")
			}
			if !inScope(next, inTarget) {
				t.Errorf("swapped scope: %s out of scope", inTarget)
			}

			// A new run's scope set before any restore has them too.
			third := newLiveScope(front, newTestScope(t, tc.flavour, "http://c.example/"), tc.form)
			if err := third.set(newTestScope(t, tc.flavour, seedA)); err != nil {
				t.Fatalf("set: %v", err)
			}
			if !inScope(third, inTarget) {
				t.Errorf("set on a new run: %s out of scope", inTarget)
			}
		})
	}
}

// TestLiveScopeReplayKept: set and restore apply the promotions as the frontier keeps them
// (a value written by an earlier version, say), each with its own seed and hops.
func TestLiveScopeReplayKept(t *testing.T) {
	const seedC = "http://c.example/"
	tests := []struct {
		name  string
		kept  map[string]string // target -> "seed\x00hops"
		in    []scope.Candidate
		out   []scope.Candidate
		seeds []string
	}{
		{
			name:  "one",
			seeds: []string{seedA},
			kept:  map[string]string{targetB: seedA + "\x00R"},
			in:    []scope.Candidate{{URL: inTarget, Hops: "RL", Seed: seedA}},
			out:   []scope.Candidate{{URL: besideB, Hops: "RL", Seed: seedA}},
		},
		{
			name:  "two seeds",
			seeds: []string{seedA, seedC},
			kept:  map[string]string{targetB: seedA + "\x00R", "http://d.example/z/": seedC + "\x00RR"},
			in: []scope.Candidate{
				{URL: inTarget, Hops: "RL", Seed: seedA},
				{URL: "http://d.example/z/1", Hops: "RRL", Seed: seedC},
			},
			out: []scope.Candidate{{URL: "http://d.example/other", Hops: "RRL", Seed: seedC}},
		},
		{
			name:  "a seed no longer in the crawl",
			seeds: []string{seedC},
			kept:  map[string]string{targetB: seedA + "\x00R"},
			out:   []scope.Candidate{{URL: inTarget, Hops: "RL", Seed: seedC}},
		},
		{
			name:  "hops that are not a redirect chain",
			seeds: []string{seedA},
			kept:  map[string]string{targetB: seedA + "\x00L"},
			out:   []scope.Candidate{{URL: inTarget, Hops: "RL", Seed: seedA}},
		},
		{
			name:  "no separator",
			seeds: []string{seedA},
			kept:  map[string]string{targetB: seedA},
			out:   []scope.Candidate{{URL: inTarget, Hops: "RL", Seed: seedA}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			front := openTestFrontier(t)
			for k, v := range tc.kept {
				if err := front.PutMeta(metaPromoted+k, []byte(v)); err != nil {
					t.Fatal(err)
				}
			}
			for _, how := range []string{"restore", "set"} {
				t.Run(how, func(t *testing.T) {
					s := newLiveScope(front, newTestScope(t, "", tc.seeds...), canonicalForm{})
					var err error
					if how == "restore" {
						err = s.restore()
					} else {
						err = s.set(newTestScope(t, "", tc.seeds...))
					}
					if err != nil {
						t.Fatalf("%s: %v", how, err)
					}
					for _, c := range tc.in {
						if d := s.load().Decide(c); !d.In {
							t.Errorf("Decide(%s from %s) = %+v, want in", c.URL, c.Seed, d)
						}
					}
					for _, c := range tc.out {
						if d := s.load().Decide(c); d.In {
							t.Errorf("Decide(%s from %s) = %+v, want out", c.URL, c.Seed, d)
						}
					}
				})
			}
		})
	}
}

// scanFailStore fails every ScanMeta.
type scanFailStore struct {
	frontier.Store
	err error
}

func (s scanFailStore) ScanMeta(string, func(string, []byte) error) error { return s.err }

// TestLiveScopeReplayError: a frontier that cannot be read fails set and restore with its
// error, and set leaves the scope as it was.
func TestLiveScopeReplayError(t *testing.T) {
	boom := errors.New("read error")
	old := newTestScope(t, "", seedA)
	s := newLiveScope(scanFailStore{Store: openTestFrontier(t), err: boom}, old, canonicalForm{})
	if err := s.restore(); !errors.Is(err, boom) {
		t.Errorf("restore = %v, want an error wrapping %v", err, boom)
	}
	if err := s.set(newTestScope(t, "", seedA, "http://c.example/")); !errors.Is(err, boom) {
		t.Errorf("set = %v, want an error wrapping %v", err, boom)
	}
	if s.load() != old {
		t.Errorf("set with an error swapped the scope in")
	}
}

// TestLiveScopePromoteSaveError: a promotion the frontier cannot keep still widens the scope
// of this run.
func TestLiveScopePromoteSaveError(t *testing.T) {
	front := budgetPutFailStore{Store: openTestFrontier(t), err: errors.New("disk full")}
	s := newLiveScope(front, newTestScope(t, "", seedA), canonicalForm{})
	s.promote(frontier.URL{URL: seedA, Seed: seedA}, targetB, "R")
	if !inScope(s, inTarget) {
		t.Errorf("%s out of scope after a promotion not kept", inTarget)
	}
}

// TestCanonicalFormPostPayloads: a post payload's URL is compared with the crawl's canonical
// URL (docs/fast.md, post_payload), so with URLConfig.SortQuery a payload written with its
// query unsorted still makes a POST of the URL as the crawl has it once found on a page.
func TestCanonicalFormPostPayloads(t *testing.T) {
	const link = "http://example.com/search?q=archives&b=1" // as written in the payload and found on a page
	cfg := Config{URLs: URLConfig{SortQuery: true}, PostPayloads: []PostPayload{{URL: link, Body: "x=1"}}}
	cfg.derive()
	form := canonicalForm{flavour: cfg.Scope.Flavour, sortQuery: cfg.URLs.SortQuery}
	cu, err := form.canonicalize(link)
	if err != nil {
		t.Fatal(err)
	}
	r := &chain.Record{Claim: &frontier.Claim{URL: frontier.URL{URL: cu, Hops: "L"}}, Request: fetch.Request{URL: cu}}
	if _, err := post.Payloads(cfg.PostPayloads).Before(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if r.Request.Method != http.MethodPost {
		t.Errorf("payload URL %s (derived: %s), link fetched as %s: method %q, want POST",
			link, cfg.PostPayloads[0].URL, cu, r.Request.Method)
	}
}
