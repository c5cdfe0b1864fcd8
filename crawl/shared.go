package crawl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/frontier/redisfront"
)

// SharedFrontier puts the crawl's frontier in Redis (or Valkey), where several amber
// processes, each with its own crawl directory, work on one crawl: one queue and seen set,
// claims with leases (the URLs of a killed process come back when its lease expires),
// politeness per host across all of them, one digest index (revisits across processes), the
// crawl's metadata (seeds, control changes, limits) and counters. Each process writes its own
// WARC files, CDXJ index, crawl.log, events and reports in its own directory; amber report
// and amber wacz merge several directories.
type SharedFrontier struct {
	// URL is the server: redis://[[USER]:PASSWORD@]HOST:PORT/DB. Empty: the crawl keeps its
	// frontier in its own directory (D/state, badger).
	URL string
	// CrawlID names the crawl's keys on the server, so that several crawls share one. Default:
	// the collection.
	CrawlID string
	// Process names this process among the crawl's processes (its claims' leases, its WARC
	// file names). A process restarted under the same name takes its earlier claims back at
	// once. Default: HOSTNAME-DIRNAME (the host name and the crawl directory's name), which is
	// unique as long as each process has its own directory and no two machines share a name.
	Process string
	// Lease is how long the claims of a process that stopped (kill -9, lost network) stay
	// its own before other processes take them. Default 30s.
	Lease time.Duration
}

// on reports whether the crawl's frontier is shared.
func (s SharedFrontier) on() bool { return s.URL != "" }

// withDefaults returns s with its CrawlID and Process defaults for a crawl of collection in
// dir (Config.derive sets them once; the rest of the crawl reads the fields).
func (s SharedFrontier) withDefaults(collection, dir string) SharedFrontier {
	if s.CrawlID == "" {
		s.CrawlID = collection
	}
	if s.Process == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "localhost"
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		s.Process = host + "-" + filepath.Base(abs)
	}
	return s
}

// validateShared checks Shared as its frontier will (redisfront.Config.Validate): an empty
// Collection with no crawl id, braces, a negative lease, a URL go-redis cannot parse.
func (c Config) validateShared() error {
	s := c.Shared
	if !s.on() {
		if s.CrawlID != "" || s.Process != "" || s.Lease != 0 {
			return &FieldError{Field: "Shared", Err: fmt.Errorf("crawl id, process or lease without a frontier URL")}
		}
		return nil
	}
	if err := c.sharedConfig().Validate(); err != nil {
		return &FieldError{Field: "Shared", Err: err}
	}
	return nil
}

// sharedConfig is the configuration of the crawl's shared frontier.
func (c Config) sharedConfig() redisfront.Config {
	s := c.Shared.withDefaults(c.Collection, c.Dir)
	return redisfront.Config{
		URL:             s.URL,
		CrawlID:         s.CrawlID,
		Process:         s.Process,
		Dir:             c.Dir,
		HostDelay:       c.HostDelay,
		HostConcurrency: c.HostConcurrency,
		MaxAttempts:     c.retryPolicy().MostAttempts(),
		MaxSites:        c.MaxSites,
		MaxInterDocs:    c.MaxInterDocs,
		Levels:          c.Priority.LevelsConfig(),
		Lease:           c.Shared.Lease,
	}
}

// openFrontier opens the crawl's frontier: the shared one in Redis, with the crawl
// directory's state directory locked (as badger locks it) so that no second process runs in
// the directory and amber wacz and amber report see a running crawl; or badger's in D/state.
func openFrontier(ctx context.Context, cfg Config) (frontier.Store, error) {
	state := filepath.Join(cfg.Dir, StateDir)
	if !cfg.Shared.on() {
		f, err := frontier.Open(frontier.Config{
			Dir:             state,
			HostDelay:       cfg.HostDelay,
			HostConcurrency: cfg.HostConcurrency,
			MaxSites:        cfg.MaxSites,
			MaxInterDocs:    cfg.MaxInterDocs,
			MaxAttempts:     cfg.retryPolicy().MostAttempts(),
			Levels:          cfg.Priority.LevelsConfig(),
		})
		if err != nil {
			return nil, err
		}
		front, err := frontier.WithPriority(f, cfg.Priority, cfg.Scope.Flavour, cfg.Scope.MaxURLLength)
		if err != nil {
			_ = f.Close()
		}
		return front, err
	}
	unlock, err := lockDir(state)
	if err != nil {
		return nil, err
	}
	f, err := redisfront.Open(ctx, cfg.sharedConfig())
	if err != nil {
		unlock()
		return nil, err
	}
	front, err := frontier.WithPriority(unlockingStore{f, unlock}, cfg.Priority, cfg.Scope.Flavour, cfg.Scope.MaxURLLength)
	if err != nil {
		_ = front.Close()
	}
	return front, err
}

// unlockingStore releases the crawl directory's lock when its frontier is closed.
type unlockingStore struct {
	*redisfront.Frontier
	unlock func()
}

func (s unlockingStore) Close() error {
	defer s.unlock()
	return s.Frontier.Close()
}

// warcHostname is the host part of the crawl's WARC file names: the process's name when the
// frontier is shared (processes on one machine write apart), else "" (the writer's default,
// the host name).
func (c Config) warcHostname() string {
	if !c.Shared.on() {
		return ""
	}
	return c.Shared.Process
}
