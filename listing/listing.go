// Package listing reads the documents a crawl reads for the URLs they list, sitemap files
// and RSS or Atom feeds (spec/elastic.md §3; FAST's rss section), as processors of the
// crawl's chain (package chain). A listing document is a URL marked as a sitemap file
// (frontier.URL.Sitemap, claimed before its host's pages), a feed one marked besides
// (MarkFeed); it is fetched with the HTTP client, archived and logged like any URL, and its
// content is the URLs it lists, which the crawl decides and queues as a page's links. The
// documents of the configuration and the Sitemap: lines of robots.txt are queued through
// Deps.Queue. The parsers are packages sitemap and feed.
package listing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"sync"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/sitemap"
	"github.com/amber-crawler/amber/weburl"
)

// Sitemaps configures sitemaps (spec/elastic.md §3). A sitemap file is queued with hop M
// and marked (frontier.URL.Sitemap); it is decided by scope and robots.txt like any URL,
// fetched with the HTTP client (also in a browser crawl: it is not a page), archived and
// logged, and never a search document. Each URL it lists is a candidate with hop M, decided
// like a link; the sitemaps a sitemap index lists are sitemap files again, but an index
// listed by an index is not followed. A URL the crawl already knew (a page linked before it
// was listed as a sitemap) is not queued again, so it is not read as a sitemap.
type Sitemaps struct {
	// Robots queues the sitemap files listed by the Sitemap: lines of every robots.txt the
	// crawl fetches, read once per origin and crawl; their hop path is the robots.txt's
	// followed by M. Robots.txt is not fetched at all when the crawl ignores it. A host may have
	// its own setting (its subcollection's: chain.Settings.SitemapsRobots). Default false.
	Robots bool
	// URLs are sitemap files queued when the crawl starts (absolute http or https URLs), each
	// with hop path M from the first seed of its origin, or from the first seed. Default none.
	URLs []string
	// Limits bound what one sitemap file may list: the URLs beyond MaxURLs and the bytes
	// beyond MaxBytes (uncompressed) are not read, and the file's crawl.log line says so.
	// Default sitemap.DefaultLimits() (50,000 URLs, 50 MiB, the sitemaps.org limits); a zero
	// field is that limit; negative is invalid.
	Limits sitemap.Limits
}

// Validate returns a *chain.FieldError for an invalid field.
func (s Sitemaps) Validate() error {
	return validate(s.URLs, "MaxURLs", s.Limits.MaxURLs, s.Limits.MaxBytes)
}

// Feeds configures RSS and Atom feeds (FAST's rss section). A feed is queued like a
// sitemap file (frontier.URL.Sitemap, claimed before its host's pages) with hop L from a seed
// or from the page that names it, and marked as a feed; it is decided by scope and robots.txt
// like any URL, fetched with the HTTP client, archived and logged (annotations feed:KIND:N,
// feed:truncated:WHY, feed:PROBLEM; event feed-read), and never a search document. The links
// of its items are candidates with hop L, via the feed, decided like links; a redirect of a
// feed is followed as a feed. A URL the crawl already knew is not queued again, so it is not
// read as a feed.
type Feeds struct {
	// URLs are feeds queued when the crawl starts (absolute http or https URLs; FAST's
	// rss start_uris), each from the first seed of its origin, or from the first seed.
	// Default none.
	URLs []string
	// Limits bound what one feed may list (feed.Limits): MaxLinks is FAST's max_link_count,
	// the first items' links in the feed's order (its newest); MaxBytes bounds the document.
	// Default feed.DefaultLimits() (128 links, 10 MiB); a zero field is that limit; negative
	// is invalid.
	Limits feed.Limits
	// SkipItemLinks captures the pages a feed's items name without following their links
	// (FAST's follow_links no): their embeds, redirects and inferred favicon are queued,
	// their links are not. Default false: their links are decided as any page's.
	SkipItemLinks bool
	// IgnoreRules queues the items of a feed that the scope's rules leave out (FAST's
	// ignore_rules): an item out of scope (out-of-scope, out-of-domain), blocked by a rule or
	// denied by a crawl rule is queued all the same. The scheme, the URL length, hop and
	// trap checks, robots.txt and nofollow still apply. Default false.
	IgnoreRules bool
	// AutoDiscover reads as a feed each <link rel=alternate> of an RSS or Atom type that a
	// crawled page names (extract.Outlink.Feed) and scope lets in (FAST's auto_discover).
	// Default false.
	AutoDiscover bool
}

// Validate returns a *chain.FieldError for an invalid field.
func (f Feeds) Validate() error {
	return validate(f.URLs, "MaxLinks", f.Limits.MaxLinks, f.Limits.MaxBytes)
}

// validate returns a *chain.FieldError for an invalid field of the configuration of a kind of
// listing document: a URL of urls that is not an absolute http or https URL, a negative limit
// on the URLs one document lists (the field count, named countField: "MaxURLs") or on its
// bytes.
func validate(urls []string, countField string, count int, maxBytes int64) error {
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &chain.FieldError{Field: "URLs", Err: fmt.Errorf("%q: want an absolute http or https URL", raw)}
		}
	}
	if count < 0 {
		return &chain.FieldError{Field: "Limits." + countField, Err: errors.New("must not be negative")}
	}
	if maxBytes < 0 {
		return &chain.FieldError{Field: "Limits.MaxBytes", Err: errors.New("must not be negative")}
	}
	return nil
}

// metaRobotsSitemaps + origin records that the Sitemap: lines of the origin's robots.txt were
// read: a robots.txt fetched again (after robotsTTL, or in a resumed crawl) queues none.
const metaRobotsSitemaps = "crawl/sitemaps/robots/"

// Annotations of a sitemap file's crawl.log line besides "sitemap:KIND:N" (the kind and the
// number of URLs read), problemMalformed and problemReadError.
const (
	problemNotSitemap  = "not-a-sitemap" // the body is not a sitemap (an HTML page, say)
	problemNestedIndex = "nested-index"  // an index listed by an index: its sitemaps are not followed
)

// Problems of a listing document (a sitemap file, a feed): annotations of its crawl.log line
// ("sitemap:malformed", "feed:read-error") and reasons of its event.
const (
	problemMalformed = "malformed"  // the document breaks off; the URLs before the fault are used
	problemReadError = "read-error" // the body could not be read to its end; the URLs before are used
)

// kind is one kind of listing document, a file the crawl reads for the URLs it lists: a
// sitemap file or a feed.
type kind struct {
	name      string // "sitemap", "feed": the prefix of its annotations, the noun of its log lines
	notA      string // the problem of a body of another kind: "not-a-sitemap"
	not       error  // the parser's error for a body of another kind
	malformed error  // the parser's error for a document that breaks off
	feeds     bool   // the target of a redirect is queued as a feed
}

// sitemapKind is a sitemap file.
var sitemapKind = kind{name: "sitemap", notA: problemNotSitemap, not: sitemap.ErrNotSitemap, malformed: sitemap.ErrMalformed}

// docInfo is what the crawl made of one listing document.
type docInfo struct {
	kind      string // as the parser names it ("urlset", "rss"); "" when it was not read
	listed    int    // the URLs it listed that were read, before scope decided on them
	truncated string // why the rest was not read (the parser's Result.Truncated); "" if nothing was left
	problem   string // why it was not used as it is (problemMalformed, listing.notA); "" if nothing
}

// metaFeed + canonical URL marks a URL queued as a feed (its frontier entry is marked as a
// sitemap file: the frontier has one mark for files the crawl reads for URLs).
const metaFeed = "crawl/feeds/"

// ActionFeedRead is the action of the event that records a feed read (an amber event, as
// sitemap-read): labels feed_kind, feed_links, feed_truncated.
const ActionFeedRead = "feed-read"

// problemNotFeed is the problem of a body that is not a feed (its crawl.log line's annotation
// "feed:not-a-feed", besides "feed:KIND:N", problemMalformed and problemReadError).
const problemNotFeed = "not-a-feed"

// feedKind is a feed.
var feedKind = kind{name: "feed", notA: problemNotFeed, not: feed.ErrNotFeed, malformed: feed.ErrMalformed, feeds: true}

// Deps is what Listings needs of the crawl besides its chain.Env.
type Deps struct {
	// Queue decides the URLs content lists, found at from, and queues those in scope, as the
	// crawl decides and queues a page's links (worker is crawl.log's thread).
	Queue func(worker int, from frontier.URL, content chain.Content) error
	// RobotsSitemaps reports whether the Sitemap: lines of host's robots.txt are read (the
	// host's settings); nil: Sitemaps.Robots for every host.
	RobotsSitemaps func(host string) bool
}

// Listings reads the crawl's listing documents. It is safe for concurrent use.
type Listings struct {
	sitemaps Sitemaps
	feeds    Feeds
	env      chain.Env
	deps     Deps
	pending  sync.Map // *frontier.Claim -> read: what After read, for Recorded
}

// New returns the listing documents of a crawl with sitemaps and feeds.
func New(sitemaps Sitemaps, feeds Feeds, env chain.Env, deps Deps) *Listings {
	if deps.RobotsSitemaps == nil {
		deps.RobotsSitemaps = func(string) bool { return sitemaps.Robots }
	}
	return &Listings{sitemaps: sitemaps, feeds: feeds, env: env, deps: deps}
}

// read is what After read of a listing document.
type read struct {
	kind kind
	info docInfo
}

func (*Listings) Name() string { return "listings" }

// After reads the listing document of a claimed sitemap file in place of a page: the URLs it
// lists are its content (decided as listed URLs), what was found is in its crawl.log line
// (annotations), and an event records it (Recorded).
func (l *Listings) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	u := r.URL()
	if !u.Sitemap {
		return chain.Proceed, nil
	}
	isFeed, err := l.isFeed(u.URL)
	if err != nil {
		return chain.Verdict{}, err
	}
	k, readDoc := sitemapKind, l.readSitemap
	if isFeed {
		k, readDoc = feedKind, l.readFeed
	}
	content, in := readDoc(u, r.Exchange())
	r.Content = content
	r.Content.Listed = true
	if ann := annotations(k, in); len(ann) > 0 {
		r.Captures[0].Annotate(ann...)
	}
	l.pending.Store(r.Claim, read{kind: k, info: in})
	return chain.Proceed, nil
}

// Recorded writes the event of what After read of a 2xx response. A redirect writes none: its
// target is read as a document of its own, with its own event.
func (l *Listings) Recorded(r *chain.Record) error {
	v, ok := l.pending.LoadAndDelete(r.Claim)
	if !ok {
		return nil
	}
	rd := v.(read)
	switch {
	case rd.info == (docInfo{}):
		return nil
	case rd.kind.feeds:
		return l.feedRead(r.URL(), rd.info)
	}
	si := report.SitemapInfo{Kind: rd.info.kind, URLs: rd.info.listed, Truncated: rd.info.truncated, Problem: rd.info.problem}
	if err := l.env.Events.SitemapRead(r.Info(), si); err != nil {
		return fmt.Errorf("write sitemap event: %w", err)
	}
	return nil
}

// Release forgets what After read of a document that was not recorded.
func (l *Listings) Release(r *chain.Record) { l.pending.Delete(r.Claim) }

// Start queues the listing documents of the configuration (Sitemaps.URLs, Feeds.URLs), each
// from the first of the crawl's seeds (canonical URLs) with its origin, or from the first
// seed; those already seen by an earlier run are no-ops.
func (l *Listings) Start(seeds []string) error {
	if err := l.queueConfigured(seeds, l.sitemaps.URLs, func(from frontier.URL, listed []string) chain.Content {
		return Listed(from.URL, listed, hop.Sitemap, "config", true)
	}); err != nil {
		return err
	}
	return l.queueConfigured(seeds, l.feeds.URLs, func(from frontier.URL, listed []string) chain.Content {
		content := Listed(from.URL, listed, hop.Link, "config/feed", true)
		content.Feeds = true
		return content
	})
}

// queueConfigured queues the listing documents urls of the configuration, those of one seed
// decided together, from the first seed of their origin, or from the first seed; none when
// there are no seeds.
func (l *Listings) queueConfigured(seeds, urls []string, list func(from frontier.URL, listed []string) chain.Content) error {
	if len(urls) == 0 || len(seeds) == 0 {
		return nil
	}
	bySeed := map[string][]string{}
	var order []string
	for _, raw := range urls {
		s := seedOf(raw, seeds)
		if _, ok := bySeed[s]; !ok {
			order = append(order, s)
		}
		bySeed[s] = append(bySeed[s], raw)
	}
	for _, s := range order {
		from := frontier.URL{URL: s, Host: hostOf(s), Seed: s}
		if err := l.deps.Queue(0, from, list(from, bySeed[s])); err != nil {
			return err
		}
	}
	return nil
}

// hostOf is the host[:port] of a canonical URL.
func hostOf(canonical string) string {
	u, err := url.Parse(canonical)
	if err != nil {
		return ""
	}
	return u.Host
}

// seedOf returns the first of the canonical seeds with the origin of raw, else the first.
// Origins compare as weburl.Origin writes them: a configured URL's host in another case, or
// with its scheme's default port, is still its seed's.
func seedOf(raw string, seeds []string) string {
	if o, ok := originOf(raw); ok {
		for _, s := range seeds {
			if so, ok := originOf(s); ok && so == o {
				return s
			}
		}
	}
	return seeds[0]
}

// originOf is the origin of an http(s) URL as weburl.Origin writes it.
func originOf(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	o, err := weburl.Origin(u.Scheme + "://" + u.Host)
	return o, err == nil
}

// RobotsSitemaps queues the sitemap files a robots.txt of origin lists, once per origin and
// crawl, when its host's settings read them. robots is the robots.txt as captured: its URL,
// hop path and seed.
func (l *Listings) RobotsSitemaps(worker int, origin string, robots frontier.URL, listed []string) error {
	if !l.deps.RobotsSitemaps(robots.Host) || len(listed) == 0 {
		return nil
	}
	key := metaRobotsSitemaps + origin
	if _, seen, err := l.env.Front.Meta(key); err != nil {
		return fmt.Errorf("listing: read crawl state: %w", err)
	} else if seen {
		return nil
	}
	if err := l.deps.Queue(worker, robots, Listed(robots.URL, listed, hop.Sitemap, "robots", true)); err != nil {
		return err
	}
	// After the files are queued: a kill in between reads the lines again, and the frontier's
	// seen set makes that harmless.
	if err := l.env.Front.PutMeta(key, nil); err != nil {
		return fmt.Errorf("listing: record robots.txt sitemaps: %w", err)
	}
	return nil
}

// MarkFeed marks the canonical URL u, about to be queued as a listing document, as a feed. A
// feed is marked before it is queued: a kill in between leaves a mark on a URL not queued,
// which is harmless, where the other order would read a feed as a sitemap.
func (l *Listings) MarkFeed(u string) error {
	if err := l.env.Front.PutMeta(metaFeed+u, nil); err != nil {
		return fmt.Errorf("listing: mark feed: %w", err)
	}
	return nil
}

// feedsOn reports whether the crawl may have feeds.
func (l *Listings) feedsOn() bool { return len(l.feeds.URLs) > 0 || l.feeds.AutoDiscover }

// isFeed reports whether a URL marked as a sitemap file was queued as a feed.
func (l *Listings) isFeed(u string) (bool, error) {
	if !l.feedsOn() {
		return false, nil
	}
	_, ok, err := l.env.Front.Meta(metaFeed + u)
	if err != nil {
		return false, fmt.Errorf("listing: read crawl state: %w", err)
	}
	return ok, nil
}

// Listed is the content of a listing document (or of a robots.txt's Sitemap: lines,
// or of the configuration) that lists the URLs listed, each resolved against base, with hop
// step and context (for the metadata record). files marks them as listing documents
// themselves (sitemap files, feeds), claimed before the pages of their host.
func Listed(base string, listed []string, step byte, context string, files bool) chain.Content {
	content := chain.Content{Listed: true, Files: files, Links: make([]extract.Outlink, 0, len(listed))}
	for _, raw := range listed {
		if abs, ok := weburl.Resolve(base, raw); ok {
			content.Links = append(content.Links, extract.Outlink{URL: abs, Hop: step, Context: context})
		}
	}
	return content
}

// readDoc reads the response ex of a listing document of kind l with parse and limits.
// The target of a redirect is decided as a document of the same kind (d), with an empty info;
// a response that is neither a redirect nor a 2xx gives nothing. Else res is what parse read of the body (nil
// when it read nothing) and info.problem what was wrong with it: problemReadError, l.notA,
// problemMalformed, or "" for nothing; the rest of info is the caller's to fill from res.
func readDoc[L, R any](log *slog.Logger, u frontier.URL, ex *fetch.Exchange, l kind, parse func(io.Reader, L) (*R, error), limits L) (d chain.Content, res *R, info docInfo) {
	if ex.StatusCode >= 300 && ex.StatusCode < 400 {
		loc := ex.Header.Get("Location")
		if loc == "" {
			return chain.Content{}, nil, info
		}
		d := Listed(u.URL, []string{loc}, hop.Redirect, "header/location", true)
		d.Feeds = l.feeds
		return d, nil, info
	}
	if ex.StatusCode < 200 || ex.StatusCode >= 300 {
		return chain.Content{}, nil, info
	}
	body, err := ex.Body()
	if err != nil {
		log.Debug("read "+l.name, "url", u.URL, "err", err)
		info.problem = problemReadError
		return chain.Content{}, nil, info
	}
	defer body.Close()
	res, err = parse(body, limits)
	switch {
	case errors.Is(err, l.not):
		log.Debug("not a "+l.name, "url", u.URL, "err", err)
		info.problem = l.notA
		return chain.Content{}, nil, info
	case errors.Is(err, l.malformed):
		log.Debug("malformed "+l.name, "url", u.URL, "err", err)
		info.problem = problemMalformed
	case err != nil:
		log.Debug("read "+l.name, "url", u.URL, "err", err)
		info.problem = problemReadError
	}
	return chain.Content{}, res, info
}

// readSitemap reads the URLs of a sitemap file's response and decides them: the target of a
// redirect (a sitemap file too), the sitemaps of an index (unless the index is itself listed
// by a sitemap), the pages of a urlset or text file. info is empty for a response that is not
// a 2xx.
func (l *Listings) readSitemap(u frontier.URL, ex *fetch.Exchange) (chain.Content, docInfo) {
	d, sm, info := readDoc(l.env.Log, u, ex, sitemapKind, sitemap.Parse, l.sitemaps.Limits)
	if sm == nil {
		return d, info
	}
	info.kind, info.listed, info.truncated = sm.Kind.String(), len(sm.URLs), sm.Truncated
	if sm.Truncated != "" {
		l.env.Log.Info("sitemap truncated", "url", u.URL, "reason", sm.Truncated, "urls", len(sm.URLs))
	}
	if sm.Kind != sitemap.Index {
		return Listed(u.URL, sm.URLs, hop.Sitemap, "sitemap", false), info
	}
	if report.FromSitemap(u.Hops) {
		// Index depth 1: an index listed by an index is archived, not followed.
		l.env.Log.Info("sitemap index listed by a sitemap index not followed", "url", u.URL, "via", u.Via)
		info.problem = problemNestedIndex
		return chain.Content{}, info
	}
	return Listed(u.URL, sm.URLs, hop.Sitemap, "sitemapindex", true), info
}

// readFeed reads the item links of a feed's response as its content; a redirect's target is a
// feed again. Items out of scope by a rule are queued all the same with IgnoreRules. info is
// empty for a response that is not a 2xx.
func (l *Listings) readFeed(u frontier.URL, ex *fetch.Exchange) (chain.Content, docInfo) {
	d, f, info := readDoc(l.env.Log, u, ex, feedKind, feed.Parse, l.feeds.Limits)
	if f == nil {
		return d, info
	}
	info.kind, info.listed, info.truncated = f.Kind.String(), len(f.Links), f.Truncated
	d = Listed(u.URL, f.Links, hop.Link, "feed", false)
	d.IgnoreRules = l.feeds.IgnoreRules
	return d, info
}

// feedRead writes the feed-read event of a feed.
func (l *Listings) feedRead(u frontier.URL, info docInfo) error {
	outcome, msg := "success", "Read feed "+u.URL+": "
	if info.problem == problemNotFeed || info.problem == problemMalformed {
		outcome = "failure"
	}
	if info.kind == "" {
		msg += "not a feed"
	} else {
		msg += info.kind + " of " + strconv.Itoa(info.listed) + " links"
	}
	labels := map[string]string{"feed_links": strconv.Itoa(info.listed)}
	if info.kind != "" {
		labels["feed_kind"] = info.kind
	}
	if info.truncated != "" {
		labels["feed_truncated"] = info.truncated
	}
	ui := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
	err := l.env.Events.Event(report.Event{Action: ActionFeedRead, Outcome: outcome, Reason: info.problem, Message: msg, URL: &ui, Labels: labels})
	if err != nil {
		return fmt.Errorf("write feed event: %w", err)
	}
	return nil
}

// Pages returns the chain's step for the pages of a crawl with feeds, once a page is read: a
// page's feeds (<link rel=alternate> of an RSS or Atom type) are feeds only with
// Feeds.AutoDiscover, and the links of a page a feed's item named are not followed with
// Feeds.SkipItemLinks (its embeds, redirects and favicon are).
func (l *Listings) Pages() chain.Processor { return pages{l} }

type pages struct{ l *Listings }

func (pages) Name() string { return "feeds" }

// After takes out what the feeds' settings leave out of a page's links.
func (p pages) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	l, u, links := p.l, r.URL(), r.Content.Links
	if r.Content.Listed || len(links) == 0 {
		return chain.Proceed, nil
	}
	if !l.feeds.AutoDiscover {
		for i := range links {
			links[i].Feed = false
		}
	}
	if !l.feeds.SkipItemLinks || hop.Last(u.Hops) != hop.Link || u.Via == "" || u.Sitemap {
		return chain.Proceed, nil
	}
	if ok, err := l.isFeed(u.Via); err != nil || !ok {
		if err != nil {
			l.env.Log.Warn("look up feed", "url", u.Via, "err", err)
		}
		return chain.Proceed, nil
	}
	r.Content.Links = slices.DeleteFunc(links, func(o extract.Outlink) bool { return o.Hop == hop.Link })
	return chain.Proceed, nil
}

// listingAnnotations are the crawl.log annotations of the capture of a listing document of
// kind l: "NAME:KIND:N", then "NAME:truncated:WHY" and "NAME:PROBLEM" as they apply, NAME
// being l.name ("sitemap:urlset:12", "feed:malformed").
func annotations(l kind, info docInfo) []string {
	var ann []string
	if info.kind != "" {
		ann = append(ann, l.name+":"+info.kind+":"+strconv.Itoa(info.listed))
	}
	if info.truncated != "" {
		ann = append(ann, l.name+":truncated:"+info.truncated)
	}
	if info.problem != "" {
		ann = append(ann, l.name+":"+info.problem)
	}
	return ann
}
