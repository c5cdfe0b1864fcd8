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
	frontiertest.Run(t, func(t *testing.T, cfg frontier.Config) frontier.Store {
		f, err := Open(context.Background(), Config{
			URL:             srv.URL(0),
			CrawlID:         crawlID(cfg.Dir),
			Process:         "p",
			Dir:             cfg.Dir,
			HostDelay:       cfg.HostDelay,
			HostConcurrency: cfg.HostConcurrency,
			MaxAttempts:     cfg.MaxAttempts,
			Lease:           5 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
}
