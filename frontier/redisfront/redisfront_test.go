package redisfront

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/frontier/frontiertest"
	"github.com/amber-crawler/amber/internal/redistest"
)

// crawlID names a crawl after a test directory: one store per directory.
func crawlID(dir string) string {
	return strings.NewReplacer("{", "_", "}", "_").Replace(dir)
}

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	frontiertest.Run(t, opener(srv))
}

// TestConformanceLevels runs the conformance tests of priority levels.
func TestConformanceLevels(t *testing.T) {
	srv := redistest.Start(t)
	frontiertest.RunLevels(t, opener(srv))
}

// opener opens the frontier of a conformance test in srv.
func opener(srv *redistest.Server) frontiertest.Opener {
	return func(t *testing.T, cfg frontier.Config) frontier.Store {
		f, err := Open(context.Background(), Config{
			URL:             srv.URL(0),
			CrawlID:         crawlID(cfg.Dir),
			Process:         "p",
			Dir:             cfg.Dir,
			HostDelay:       cfg.HostDelay,
			HostConcurrency: cfg.HostConcurrency,
			MaxAttempts:     cfg.MaxAttempts,
			MaxSites:        cfg.MaxSites,
			MaxInterDocs:    cfg.MaxInterDocs,
			Levels:          cfg.Levels,
			Lease:           5 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
}

// TestAddCounter: two processes' additions to one counter add up, a fresh counter starts at 0,
// and counters are kept per crawl id.
func TestAddCounter(t *testing.T) {
	srv := redistest.Start(t)
	open := func(id, proc string) *Frontier {
		f, err := Open(t.Context(), Config{URL: srv.URL(0), CrawlID: id, Process: proc})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b, other := open("c1", "a"), open("c1", "b"), open("c2", "a")
	var _ frontier.Counters = a
	steps := []struct {
		f     *Frontier
		key   string
		delta int64
		want  int64
	}{
		{a, "reserved", 1, 1},
		{b, "reserved", 1, 2},
		{a, "reserved", -1, 1},
		{b, "bytes", 500, 500},
		{a, "bytes", 250, 750},
		{other, "reserved", 1, 1},
		{other, "bytes", 0, 0},
	}
	for i, s := range steps {
		got, err := s.f.AddCounter(s.key, s.delta)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got != s.want {
			t.Errorf("step %d: AddCounter(%q, %d) = %d, want %d", i, s.key, s.delta, got, s.want)
		}
	}
}
