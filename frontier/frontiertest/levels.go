package frontiertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/frontier"
)

// RunLevels runs the conformance tests of priority levels (frontier.Config.Levels) on the
// stores open opens: those that implement levels.
func RunLevels(t *testing.T, open Opener) {
	s := suite{open: open}
	tests := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"LevelOrder", s.testLevelOrder},
		{"LevelYields", s.testLevelYields},
		{"LevelReopen", s.testLevelReopen},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.fn)
	}
}

// lu is a URL of host h, number i, at level l.
func lu(h string, i, l int) frontier.URL {
	return frontier.URL{URL: fmt.Sprintf("http://%s/%d", h, i), Host: h, Level: l}
}

// hostURLs is n URLs of host h at level l, numbered from 1.
func hostURLs(h string, n, l int) []frontier.URL {
	us := make([]frontier.URL, n)
	for i := range us {
		us[i] = lu(h, i+1, l)
	}
	return us
}

// levelOrder claims and finishes one URL at a time until the store is done, and returns the
// claims as URL@level.
func levelOrder(t *testing.T, st frontier.Store) []string {
	t.Helper()
	return claimAll(t, st, func(u frontier.URL) string { return fmt.Sprintf("%s@%d", u.URL, u.Level) })
}

// testLevelOrder: claims pick levels by Levels.Pick (pri: the best level first; rr: the
// levels in turn; wrr: in proportion to the shares), a URL without level is at the default
// one, a level above N is N; within a host, URLs come by level, then priority; with one
// level, Level changes nothing.
func (s suite) testLevelOrder(t *testing.T) {
	cat := func(uss ...[]frontier.URL) []frontier.URL {
		var all []frontier.URL
		for _, us := range uss {
			all = append(all, us...)
		}
		return all
	}
	tests := []struct {
		name   string
		levels frontier.Levels
		add    []frontier.URL
		want   []string
	}{
		{"pri", frontier.Levels{N: 3, Pick: frontier.PickPri},
			cat(hostURLs("a", 2, 3), hostURLs("b", 2, 1), hostURLs("c", 1, 2)),
			[]string{"http://b/1@1", "http://b/2@1", "http://c/1@2", "http://a/1@3", "http://a/2@3"}},
		{"rr", frontier.Levels{N: 3, Pick: frontier.PickRR},
			cat(hostURLs("a", 3, 1), hostURLs("b", 2, 2), hostURLs("c", 1, 3)),
			[]string{"http://a/1@1", "http://b/1@2", "http://c/1@3", "http://a/2@1", "http://b/2@2", "http://a/3@1"}},
		{"rr skips an empty level", frontier.Levels{N: 3, Pick: frontier.PickRR},
			cat(hostURLs("a", 3, 1), hostURLs("c", 2, 3)),
			[]string{"http://a/1@1", "http://c/1@3", "http://a/2@1", "http://c/2@3", "http://a/3@1"}},
		{"wrr 2:1", frontier.Levels{N: 2, Shares: []int{2, 1}},
			cat(hostURLs("a", 6, 1), hostURLs("b", 4, 2)),
			[]string{
				"http://a/1@1", "http://b/1@2", "http://a/2@1",
				"http://a/3@1", "http://b/2@2", "http://a/4@1",
				"http://a/5@1", "http://b/3@2", "http://a/6@1",
				"http://b/4@2",
			}},
		{"wrr 1:3", frontier.Levels{N: 2, Pick: frontier.PickWRR, Shares: []int{1, 3}},
			cat(hostURLs("a", 3, 1), hostURLs("b", 6, 2)),
			[]string{
				"http://b/1@2", "http://a/1@1", "http://b/2@2", "http://b/3@2",
				"http://b/4@2", "http://a/2@1", "http://b/5@2", "http://b/6@2",
				"http://a/3@1",
			}},
		{"wrr without shares alternates", frontier.Levels{N: 2},
			cat(hostURLs("a", 2, 1), hostURLs("b", 2, 2)),
			[]string{"http://a/1@1", "http://b/1@2", "http://a/2@1", "http://b/2@2"}},
		{"default level", frontier.Levels{N: 2, Default: 2, Pick: frontier.PickPri},
			cat(hostURLs("a", 2, 0), hostURLs("b", 1, 1)),
			[]string{"http://b/1@1", "http://a/1@2", "http://a/2@2"}},
		{"level above N", frontier.Levels{N: 2, Pick: frontier.PickPri},
			cat(hostURLs("b", 2, 9), hostURLs("c", 1, 1)),
			[]string{"http://c/1@1", "http://b/1@2", "http://b/2@2"}},
		{"within a host by level, then priority", frontier.Levels{N: 2, Pick: frontier.PickPri},
			[]frontier.URL{lu("a", 1, 2), lu("a", 2, 1), {URL: "http://a/3", Host: "a", Level: 1, Priority: -1}, {URL: "http://a/4", Host: "a", Level: 2, Priority: -1}},
			[]string{"http://a/3@1", "http://a/2@1", "http://a/4@2", "http://a/1@2"}},
		{"one level", frontier.Levels{},
			cat(hostURLs("a", 1, 2), hostURLs("b", 1, 1), []frontier.URL{lu("a", 2, 1)}),
			[]string{"http://a/1@2", "http://b/1@1", "http://a/2@1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := s.store(t, frontier.Config{Levels: tt.levels})
			mustAdd(t, st, tt.add...)
			if diff := cmp.Diff(tt.want, levelOrder(t, st)); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
		})
	}
}

// testLevelYields: politeness holds across levels: a level whose hosts are all busy, waiting
// for their delay or for a site place yields to the next.
func (s suite) testLevelYields(t *testing.T) {
	tests := []struct {
		name string
		cfg  frontier.Config
	}{
		{"busy host", frontier.Config{Levels: frontier.Levels{N: 2, Pick: frontier.PickPri}}},
		{"host delay", frontier.Config{HostDelay: time.Hour, Levels: frontier.Levels{N: 2, Pick: frontier.PickPri}}},
		{"max sites", frontier.Config{MaxSites: 1, MaxInterDocs: 1, Levels: frontier.Levels{N: 2, Pick: frontier.PickPri}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := s.store(t, tt.cfg)
			mustAdd(t, st, hostURLs("b", 2, 1)...)
			mustAdd(t, st, hostURLs("a", 1, 2)...)
			b1 := claim(t, st)
			if b1.URL.URL != "http://b/1" {
				t.Fatalf("first claim %s, want http://b/1", b1.URL.URL)
			}
			if tt.cfg.MaxSites > 0 {
				// b holds the one place, and stays the site crawled: a waits.
				noClaim(t, st, 150*time.Millisecond)
				done(t, st, b1)
				if c := claim(t, st); c.URL.URL != "http://b/2" {
					t.Fatalf("claim after b/1 = %s, want http://b/2 (b keeps its place: nobody had waited while it was claimed)", c.URL.URL)
				} else {
					done(t, st, c)
				}
				if c := claim(t, st); c.URL.URL != "http://a/1" {
					t.Fatalf("last claim %s, want http://a/1", c.URL.URL)
				}
				return
			}
			a1 := claim(t, st) // b is busy or waits for its delay: level 1 yields
			if a1.URL.URL != "http://a/1" {
				t.Fatalf("second claim %s, want http://a/1", a1.URL.URL)
			}
			done(t, st, b1)
			done(t, st, a1)
			if tt.cfg.HostDelay > 0 {
				noClaim(t, st, 100*time.Millisecond)
				return
			}
			if c := claim(t, st); c.URL.URL != "http://b/2" {
				t.Fatalf("last claim %s, want http://b/2", c.URL.URL)
			}
		})
	}
}

// testLevelReopen: the level is stored with the URL: a reopened store claims by level, and a
// URL queued before the store had levels is at the default level.
func (s suite) testLevelReopen(t *testing.T) {
	cfg := frontier.Config{Dir: t.TempDir()}
	st := s.reopen(t, cfg)
	mustAdd(t, st, lu("old", 1, 0)) // queued without levels
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.Levels = frontier.Levels{N: 3, Default: 2, Pick: frontier.PickPri}
	st = s.reopen(t, cfg)
	mustAdd(t, st, lu("c", 1, 3), lu("a", 1, 1))
	c := claim(t, st) // in flight at Close: queued again at its level
	if c.URL.URL != "http://a/1" {
		t.Fatalf("claim %s, want http://a/1", c.URL.URL)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = s.reopen(t, cfg)
	want := []string{"http://a/1@1", "http://old/1@2", "http://c/1@3"}
	if diff := cmp.Diff(want, levelOrder(t, st)); diff != "" {
		t.Errorf("claims after reopen (-want +got):\n%s", diff)
	}
}
