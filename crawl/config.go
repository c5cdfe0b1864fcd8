// Package crawl runs a crawl: the worker pool and the per-URL pipeline that takes a URL from the
// frontier through robots.txt, the fetcher, the WARC writer, link extraction and scope back to
// the frontier, and records every outcome in crawl.log.
package crawl

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/scope"
)

// ErrConfig is wrapped by configuration errors found by New.
var ErrConfig = errors.New("crawl: invalid config")

// Config is everything one crawl needs. The zero value of a field means its documented default.
type Config struct {
	// Dir is the crawl directory (design §3). Required.
	Dir string
	// Collection names the crawl in warcinfo. Default "amber".
	Collection string
	// Operator and Description go into warcinfo.
	Operator, Description string
	// Software names the crawler in warcinfo. Default "amber".
	Software string
	// EffectiveConfig is the YAML written to crawl.yaml and into warcinfo.
	EffectiveConfig []byte

	// Scope is the scope configuration, seeds included. Scope.Seeds are the crawl's seeds.
	Scope scope.Config

	// Workers is the number of URLs fetched at once. Default 8.
	Workers int
	// HostDelay is the pause between two fetches on one host. Zero is allowed (no pause).
	HostDelay time.Duration
	// HostConcurrency is the most requests open to one host at once. Default 1.
	HostConcurrency int
	// MaxAttempts is how often a URL is tried on network errors and 5xx. Default 3.
	MaxAttempts int
	// RetryDelay is the wait before the first retry, doubled for each later one. Default 10s.
	RetryDelay time.Duration
	// IgnoreRobots skips robots.txt.
	IgnoreRobots bool

	// LimitURLs stops the crawl after this many URLs were fetched (all runs together); 0: none.
	LimitURLs int64
	// LimitBytes stops the crawl after this many response bytes (all runs together); 0: none.
	LimitBytes int64
	// TimeLimit stops this run after the duration; 0: none.
	TimeLimit time.Duration

	// Fetcher is FetcherHTTP (default) or FetcherBrowser: pages loaded in headless Chromium,
	// every request recorded through the same HTTP client.
	Fetcher string
	// Browser configures the browser fetcher (Client, Block and Logger are set by the crawl).
	Browser browser.Config

	// Fetch configures the HTTP client (user agent, address guard, timeouts, size limit).
	Fetch fetch.Config

	// WARCPrefix starts WARC file names. Default: Collection.
	WARCPrefix string
	// WARCMaxSize rotates WARC files at this size. Default 1e9.
	WARCMaxSize int64

	// Documents configures the search documents written to documents.jsonl (limits, content
	// hash fields, binary types); zero values are the Elastic reference's defaults.
	Documents extract.DocConfig
	// NoDocuments turns the search-document stream off.
	NoDocuments bool
	// NoDocumentDedup writes a document for every page, duplicates included.
	NoDocumentDedup bool

	// ProgressEvery is how often a progress line is logged. Default 5s; negative: never.
	ProgressEvery time.Duration
	// LiveStatus, when set (a terminal), gets a status line rewritten every second instead of
	// logged progress lines.
	LiveStatus io.Writer
	// StatusAddr, when set, serves Prometheus metrics on /metrics and a JSON snapshot on
	// /status at this address (e.g. 127.0.0.1:9090).
	StatusAddr string

	// Logger receives operational messages. Default: discard.
	Logger *slog.Logger
}

func (c *Config) setDefaults() error {
	if c.Dir == "" {
		return fmt.Errorf("%w: no crawl directory", ErrConfig)
	}
	if len(c.Scope.Seeds) == 0 {
		return fmt.Errorf("%w: no seeds", ErrConfig)
	}
	if c.Collection == "" {
		c.Collection = "amber"
	}
	switch c.Fetcher {
	case "":
		c.Fetcher = FetcherHTTP
	case FetcherHTTP, FetcherBrowser:
	default:
		return fmt.Errorf("%w: fetcher %q: want %s or %s", ErrConfig, c.Fetcher, FetcherHTTP, FetcherBrowser)
	}
	if c.Software == "" {
		c.Software = "amber"
	}
	if c.Workers <= 0 {
		c.Workers = 8
	}
	if c.HostConcurrency <= 0 {
		c.HostConcurrency = 1
	}
	if c.HostDelay < 0 {
		return fmt.Errorf("%w: negative host delay", ErrConfig)
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = 10 * time.Second
	}
	if c.WARCPrefix == "" {
		c.WARCPrefix = c.Collection
	}
	if c.WARCMaxSize <= 0 {
		c.WARCMaxSize = 1e9
	}
	if c.ProgressEvery == 0 {
		c.ProgressEvery = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}
