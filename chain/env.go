package chain

import (
	"context"
	"log/slog"
	"time"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// Env is what a processor may use of the crawl it runs in. The crawl makes one and hands it
// to each policy's constructor; a policy keeps the parts it needs.
type Env struct {
	// Log receives operational messages.
	Log *slog.Logger
	// Events is the crawl's events.jsonl.
	Events *report.Events
	// Lines writes crawl.log lines (and counts them for the run's figures).
	Lines Lines
	// Front is the frontier's politeness and metadata.
	Front Frontier
	// Archive writes an exchange a processor made itself (a robots.txt, a login step) as the
	// crawl writes its own: WARC records, CDXJ line, events and crawl.log line.
	Archive Archiver
}

// Lines writes crawl.log lines.
type Lines interface {
	// WriteLine writes l (a zero Time is now). An error stops the crawl.
	WriteLine(l report.Line) error
}

// Archiver archives one exchange of a worker with its place in the crawl, closing nothing.
type Archiver interface {
	Archive(worker int, ex *fetch.Exchange, k Capture) (warc.Result, error)
}

// Frontier is the part of the frontier processors use: the politeness of hosts and the
// crawl's metadata (frontier.Store has it all; its docs say what each method does).
type Frontier interface {
	Pace(ctx context.Context, cl *frontier.Claim, host string) error
	Ended(cl *frontier.Claim, t time.Time) error
	HostBackoff(host string, t time.Time)
	SetHostDelay(host string, d time.Duration)
	SetHostDelayOverride(host string, d time.Duration)
	SetDelay(d time.Duration)

	Meta(key string) (value []byte, ok bool, err error)
	PutMeta(key string, value []byte) error
	ScanMeta(prefix string, fn func(key string, value []byte) error) error
}

// The fetchers of a crawl (its fetcher setting, a subcollection's).
const (
	FetcherHTTP    = "http"    // the plain HTTP fetcher: one exchange per URL
	FetcherBrowser = "browser" // pages loaded in headless Chromium, every request through the HTTP client
)

// Settings are the settings in force for one URL: the collection's, or those of the
// subcollection its rules and its host's binding give it. The crawl resolves them once per
// claimed URL, before any processor looks (Record.Settings); nothing below asks again.
type Settings struct {
	// Subcollection names the URL's subcollection; "" for the collection.
	Subcollection string
	// Render loads the URL in the browser when a browser would navigate to it.
	Render bool
	// Client makes the URL's requests.
	Client *fetch.Client
	// DropOversize drops a page cut at the response size (limits.oversize: drop).
	DropOversize bool

	// HostClient makes the requests of the URL's host that are not the URL's own (its
	// robots.txt): the client of the subcollection the host is bound to.
	HostClient *fetch.Client
	// URLsPerHost is the most URLs of the host fetched (0: no limit).
	URLsPerHost int64
	// SitemapsRobots reads the Sitemap: lines of the host's robots.txt.
	SitemapsRobots bool
}

// FieldError reports an invalid field of a policy's configuration; Field names it as written
// in Go ("URLsPerHost"). The crawl reports it as its own configuration's field.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }
