// Package chain is the interface between the crawl and its policies, the way Heritrix runs
// a CrawlURI through processor chains: every claimed URL is one Record that the crawl runs
// through an ordered list of processors, the same list for both fetchers. A processor is a
// policy (robots.txt, per-site limits, the address gate, subcollections, the content filter,
// sitemaps and feeds, ...) in a package of its own; it implements one or more of the hooks
// below and acts on the crawl only through the narrow environment it was built with (Env),
// never through the crawl itself.
//
// The order of a URL's path (the crawl's chain.go writes it down):
//
//	Before   each processor in order, until one finishes the URL
//	fetch    the fetcher, wrapped by the FetchWrappers in order; each request the fetcher
//	         makes of its own (a browser's subresources) asked of the Admitters first
//	After    each processor in order, once the fetch answered
//	         the crawl: outlink decisions, WARC records, the search document
//	Recorded each processor in order, once the records are written
//	finish   the Outcome written (crawl.log, events, frontier), in one place
//	Release  each processor, whatever happened (reservations given back)
package chain

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/novelty"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// Processor is one step of the chain. Name names it in the chain's list and in errors; a
// processor implements one or more of Before, After, Recorded, Releaser and FetchWrapper.
type Processor interface {
	Name() string
}

// Before is asked about a claimed URL before it is fetched, in chain order. Proceed lets the
// next processor look; a finishing verdict ends the URL there, unfetched. An error stops the
// crawl (a file or the frontier could not be written).
type Before interface {
	Processor
	Before(ctx context.Context, r *Record) (Verdict, error)
}

// After is asked about a fetched URL once the fetch answered (Record.Result is set), in chain
// order: it may mark the captures, read the content, add or drop links, or finish the URL
// (whose exchanges are then not archived: a response to try again later).
type After interface {
	Processor
	After(ctx context.Context, r *Record) (Verdict, error)
}

// Recorded is told, in chain order, that the record's exchanges were archived (Record.Records
// is set): the place for what must follow the records (events about the capture).
type Recorded interface {
	Processor
	Recorded(r *Record) error
}

// Failer is asked about a URL whose own fetch got no response at all (err: DNS, refused,
// reset, timeout, TLS), in chain order: it may count the failure, or finish the URL with an
// outcome of its own. The crawl's own outcome (a Refusal's, or tried again while attempts
// remain, then logged with the error) applies when none finishes it.
type Failer interface {
	Processor
	Failed(ctx context.Context, r *Record, err error) (Verdict, error)
}

// Releaser is told that the URL is finished, whatever became of it: the place to give back
// what Before reserved for it (Record.Responded says whether the URL got a response that
// counts). It is called once per Record, after everything else, and must not fail.
type Releaser interface {
	Processor
	Release(r *Record)
}

// Admitter is asked, in chain order, about each request a fetcher makes of its own for a
// claimed URL, before it is sent: a browser's subresources and the redirects it follows (a
// plain fetch makes none). sub is the request's URL in the crawl: canonical, an embed of the
// page (its hops the page's and E), via the page. Proceed lets the next one look; a finishing
// verdict refuses the request, which is then not made and is recorded with the verdict's
// outcome, as a URL refused before its fetch is (a Fail verdict lets it go: its fetch fails
// the same way and is recorded then). An error is fatal or ctx's.
type Admitter interface {
	Processor
	Admit(ctx context.Context, r *Record, sub frontier.URL) (Verdict, error)
}

// Fetch fetches a record's request: the Result of its exchanges, or the error of a fetch that
// got no response at all.
type Fetch func(ctx context.Context, r *Record) (*fetch.Result, error)

// FetchWrapper wraps the fetch of every URL (a login before the page, a wait for the page's
// address): Wrap returns the fetch that does its work around next.
type FetchWrapper interface {
	Processor
	Wrap(next Fetch) Fetch
}

// Verdict is what a hook says about a URL: proceed, finish it with an Outcome, or (a Before
// hook) fail it as a fetch that got no response.
type Verdict struct {
	// Done ends the URL's way through the chain with Outcome.
	Done    bool
	Outcome Outcome
	// Failure, with Done, ends the URL as a fetch that failed with this error does (the
	// Failer hooks and the crawl's retries): a prerequisite that cannot be had (the
	// robots.txt of an address the guard refuses) fails the URL itself.
	Failure error
}

// Proceed lets the next processor look at the URL.
var Proceed = Verdict{}

// Finish ends the URL with o.
func Finish(o Outcome) Verdict { return Verdict{Done: true, Outcome: o} }

// Fail ends the URL as a fetch that got no response, with err.
func Fail(err error) Verdict { return Verdict{Done: true, Failure: err} }

// Abandon ends the claim unfinished (Outcome.Abandon): the crawl is stopping.
var Abandon = Verdict{Done: true, Outcome: Outcome{Abandon: true}}

// Outcome is how a URL ends when a processor (or the fetch) finishes it before it is
// archived: what the crawl writes to crawl.log, events and the frontier, in one place.
type Outcome struct {
	// Status is the crawl.log status, and the frontier's for a failed URL: an HTTP status or
	// one of Heritrix's negative codes (package status).
	Status int
	// Annotations are the crawl.log line's annotations (column 12).
	Annotations []string
	// Denied, when set, writes a url-discover-denied event with this reason (report.Deny*)
	// and ScopeReason (a scope reason, for DenyOutOfScope).
	Denied, ScopeReason string
	// FetchEvent writes a url-fetch event of the attempt, whether or not it is tried again:
	// a fetch that got no response.
	FetchEvent bool
	// Attempts, when positive, is how many attempts the URL gets under this outcome: while
	// it has had fewer it goes back to the queue after its backoff, and nothing but the
	// events is written; the last one is failed and logged.
	Attempts int
	// RetryAt, when set, puts the URL back in the queue until then, written nowhere: a
	// response the crawl tries again (a 503 with Retry-After, say).
	RetryAt time.Time
	// Abandon ends the claim without finishing it: the crawl is stopping, and the URL goes
	// back to the queue on the next run. Nothing is written.
	Abandon bool
}

// Record is one claimed URL on its way through the chain.
type Record struct {
	// Claim is the frontier's claim of the URL; Claim.URL is the URL, its hops and seed.
	Claim *frontier.Claim
	// Worker is the number of the worker that took it (crawl.log's thread column).
	Worker int
	// Settings are the settings in force for the URL, resolved once before any processor
	// looks (its subcollection's over the collection's).
	Settings *Settings

	// Request is what the fetch sends: the URL, a Referer, and what processors add (a POST
	// body, conditional headers).
	Request fetch.Request
	// NotModified is the earlier capture the request was made conditional on: a 304 is
	// written as a revisit of it.
	NotModified *warc.Original
	// Earlier is that earlier capture read back from the earlier crawl, when the crawl reads
	// its content (a page, a style sheet): a 304 has no content, so the crawl reads Earlier's
	// in its place (Shown), and finds the links and search document a 200 with it would have
	// had. The processor that sets it closes it when the URL is finished.
	Earlier *fetch.Exchange
	// Notes are crawl.log annotations of the URL's own capture that processors give before
	// there are captures (a POST, a wait for the address); they go on Captures[0].
	Notes []string

	// Result is what the fetch returned; nil before the fetch.
	Result *fetch.Result
	// Responded says the URL got a response that counts (it is archived and counted against
	// the limits): set once the After hooks let it through.
	Responded bool
	// Captures place each exchange of Result in the crawl, index for index; Doc is the index
	// of the exchange whose content the page shows (the end of a browser's redirect chain).
	Captures []Capture
	Doc      int
	// Content is what was read from the content of Captures[Doc]'s exchange.
	Content Content
	// Records are the WARC records of each exchange, set once they are written; an exchange
	// the crawl held already (Capture.Once) has a Result with Held set and no records.
	Records []warc.Result
}

// URL returns the claimed URL.
func (r *Record) URL() frontier.URL { return r.Claim.URL }

// Info is the URL of the record as events name it.
func (r *Record) Info() report.URLInfo {
	u := r.Claim.URL
	return report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
}

// Exchange returns the exchange whose content the page shows (Captures[Doc]'s); nil before
// the fetch.
func (r *Record) Exchange() *fetch.Exchange {
	if r.Result == nil {
		return nil
	}
	return r.Result.Exchanges[r.Doc]
}

// Shown returns the exchange whose content the crawl reads for the page: Earlier when the
// page's exchange is a 304 that stands for it, else the page's exchange (Exchange); nil
// before the fetch.
func (r *Record) Shown() *fetch.Exchange {
	ex := r.Exchange()
	if r.Earlier != nil && ex != nil && ex.StatusCode == http.StatusNotModified {
		return r.Earlier
	}
	return ex
}

// Rendered reports whether the URL's fetch loads it in the browser: its settings render, and
// a browser would navigate to it (not a sitemap file, nor a POST). The crawl's fetch decides
// by it.
func (r *Record) Rendered() bool {
	u := r.URL()
	return r.Settings != nil && r.Settings.Render && !u.Sitemap && hop.Navigates(u.Hops) && r.Request.Method != http.MethodPost
}

// DocURL is the URL of the content the page shows: the claimed URL, or the end of the
// redirect chain a browser followed to it.
func (r *Record) DocURL() string {
	if r.Doc > 0 {
		return r.Result.Exchanges[r.Doc].URL
	}
	return r.Claim.URL.URL
}

// AttemptsNote is the crawl.log annotation of a URL's n-th attempt, Heritrix's "3t".
func AttemptsNote(n int) string { return strconv.Itoa(n) + "t" }

// Content is what the crawl read from a fetched URL's content (Record.Shown's).
type Content struct {
	// Unread says the content is not read (a 304 without Record.Earlier, a page dropped or
	// excluded): no links, no document.
	Unread bool
	// Links are the URLs it points at, as found, before scope decides them.
	Links []extract.Outlink
	// Dropped counts the distinct links extraction left out (its cap).
	Dropped int
	// Document is the search document; nil when none is due.
	Document *extract.Document
	// NoFollow and NoIndex are the page's robots meta.
	NoFollow, NoIndex bool
	// Generator is the page's <meta name=generator> ("MediaWiki 1.39.17"); "" without one.
	Generator string
	// Listed marks the content of a listing document (a sitemap file, a feed): Links are the
	// URLs it lists, decided as such (no outlink cap), and the page has no document.
	Listed bool
	// Files says the URLs listed are listing documents themselves (a sitemap index's
	// sitemaps, the target of a listing document's redirect), read before the pages of their
	// host; Feeds that they are feeds. IgnoreRules queues those the scope's rules leave out
	// all the same (a feed's items with feeds.ignore_rules).
	Files, Feeds, IgnoreRules bool
	// Denied are the links a processor took out of Links that the crawl records as denied
	// (nofollow): each gets a url-discover-denied event with DeniedReason.
	Denied       []string
	DeniedReason string
}

// Capture says where an exchange sits in the crawl, for its WARC records and crawl.log line.
type Capture struct {
	Hops, Via, Seed string
	// Outlinks are listed in the capture's metadata record.
	Outlinks []warc.Outlink
	// Fields are the metadata record's lines besides the exchange's own.
	Fields []warc.Field
	// Annotations are the crawl.log annotations besides those of duplicates and truncation.
	Annotations []string
	// CountURL counts the exchange as a URL fetched (robots.txt and login steps do not).
	CountURL bool
	// NotModified is the earlier capture the request was made conditional on: a 304 is then
	// written as a server-not-modified revisit of it.
	NotModified *warc.Original
	// Once archives the exchange only if the crawl does not hold it yet (warc.Capture.Once:
	// the same URL with the same status and payload): a resource a rendered page loaded that
	// the crawl holds already is neither written nor logged nor counted again; the page's
	// metadata record still lists it.
	Once bool
	// Type is the media type crawl.log gives the capture when its response has no
	// Content-Type: a 304's revisit has the type of the earlier capture it stands for.
	Type string
	// Text is how much of the page's text was new to the crawl (package novelty), for its
	// crawl.log line; nil when it was not measured (not a page with a search document).
	Text *novelty.Measure
}

// Annotate adds crawl.log annotations to the capture. The captures of one fetch may share
// their annotations' array: the capture gets a copy of its own first.
func (k *Capture) Annotate(notes ...string) {
	k.Annotations = append(slices.Clip(k.Annotations), notes...)
}

// AddField adds a line to the capture's metadata record (a copy of the fields first, as
// Annotate).
func (k *Capture) AddField(name, value string) {
	k.Fields = append(slices.Clip(k.Fields), warc.Field{Name: name, Value: value})
}

// Refusal is the error of a request that a policy refused before it was sent (the address
// it was about to go to, say): the URL is not fetched, and ends with Outcome, as a URL the
// policy refused before the fetch would. A sub-request a browser was refused this way is
// recorded as a refused link is, with Outcome's reason.
type Refusal struct {
	Outcome Outcome
	// Reason says why, for the error's text and for a sub-request's record (a scope reason).
	Reason string
}

func (e *Refusal) Error() string { return "chain: request refused: " + e.Reason }

// FatalError wraps an error returned through the fetch that must stop the crawl (a login's
// records could not be written), as opposed to a fetch that got no response.
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

// ErrorWord is a fetch error in one token, for a crawl.log annotation ("err:" + it): the
// error's words joined by "_" (a *fetch.Error's underlying error's).
func ErrorWord(err error) string {
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Err != nil {
		err = fe.Err
	}
	return strings.Join(strings.Fields(err.Error()), "_")
}
