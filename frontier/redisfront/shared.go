package redisfront

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/amber-crawler/amber/frontier"
)

// Shared puts a crawl's frontier in Redis (or Valkey), where several amber processes, each
// with its own crawl directory, work on one crawl (frontier.Shared; crawl.Config.Shared): one
// queue and seen set, claims with leases (the URLs of a killed process come back when its
// lease expires), politeness per host across all of them, one digest index (revisits across
// processes), the crawl's metadata (seeds, control changes, limits) and counters. Each process
// writes its own WARC files, CDXJ index, crawl.log, events and reports in its own directory;
// amber report and amber wacz merge several directories.
type Shared struct {
	// URL is the server: redis://[[USER]:PASSWORD@]HOST:PORT/DB. Required.
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

var _ frontier.Shared = Shared{}

// WithDefaults returns s with its CrawlID and Process defaults for a crawl of collection in
// dir.
func (s Shared) WithDefaults(collection, dir string) frontier.Shared {
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

// ProcessName is s.Process.
func (s Shared) ProcessName() string { return s.Process }

// MaxLevels is MaxLevels.
func (Shared) MaxLevels() int { return MaxLevels }

// Validate checks s with cfg as Open will (Config.Validate): an empty URL or crawl id, braces,
// a negative lease, a URL go-redis cannot parse.
func (s Shared) Validate(cfg frontier.Config) error { return s.config(cfg).Validate() }

// Open opens the crawl's frontier on the server with the crawl directory's state directory
// (cfg.Dir) locked, as badger locks it, so that no second process runs in the directory and
// amber wacz and amber report see a running crawl. Space reports the filesystem of the crawl
// directory, cfg.Dir's parent.
func (s Shared) Open(ctx context.Context, cfg frontier.Config) (frontier.Store, error) {
	unlock, err := lockDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	f, err := Open(ctx, s.config(cfg))
	if err != nil {
		unlock()
		return nil, err
	}
	return unlockingStore{f, unlock}, nil
}

// config is the Config of s for a crawl whose frontier settings are cfg.
func (s Shared) config(cfg frontier.Config) Config {
	return Config{
		URL:             s.URL,
		CrawlID:         s.CrawlID,
		Process:         s.Process,
		Dir:             filepath.Dir(cfg.Dir),
		HostDelay:       cfg.HostDelay,
		HostConcurrency: cfg.HostConcurrency,
		MaxAttempts:     cfg.MaxAttempts,
		MaxSites:        cfg.MaxSites,
		MaxInterDocs:    cfg.MaxInterDocs,
		Levels:          cfg.Levels,
		Lease:           s.Lease,
	}
}

// unlockingStore releases the crawl directory's lock when its frontier is closed.
type unlockingStore struct {
	*Frontier
	unlock func()
}

func (s unlockingStore) Close() error {
	defer s.unlock()
	return s.Frontier.Close()
}
