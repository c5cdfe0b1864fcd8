package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"sync"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/sitemap"
)

// SitemapConfig configures sitemaps (spec/elastic.md §3). A sitemap file is queued with hop M
// and marked (frontier.URL.Sitemap); it is decided by scope and robots.txt like any URL,
// fetched with the HTTP client (also in a browser crawl: it is not a page), archived and
// logged, and never a search document. Each URL it lists is a candidate with hop M, decided
// like a link; the sitemaps a sitemap index lists are sitemap files again, but an index
// listed by an index is not followed. A URL the crawl already knew (a page linked before it
// was listed as a sitemap) is not queued again, so it is not read as a sitemap.
type SitemapConfig struct {
	// Robots queues the sitemap files listed by the Sitemap: lines of every robots.txt the
	// crawl fetches, read once per origin and crawl; their hop path is the robots.txt's
	// followed by M. Robots.txt is not fetched at all with IgnoreRobots. Default false.
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

// validate returns a *FieldError for an invalid field.
func (s SitemapConfig) validate() error {
	return validateListing("Sitemaps", s.URLs, "MaxURLs", s.Limits.MaxURLs, s.Limits.MaxBytes)
}

// validateListing returns a *FieldError for an invalid field of the configuration of a kind
// of listing document, section ("Sitemaps", "Feeds"): a URL of urls that is not an absolute
// http or https URL, a negative limit on the URLs one document lists (the field count, named
// countField: "MaxURLs") or on its bytes.
func validateListing(section string, urls []string, countField string, count int, maxBytes int64) error {
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &FieldError{Field: section + ".URLs", Err: fmt.Errorf("%q: want an absolute http or https URL", raw)}
		}
	}
	if count < 0 {
		return &FieldError{Field: section + ".Limits." + countField, Err: errors.New("must not be negative")}
	}
	if maxBytes < 0 {
		return &FieldError{Field: section + ".Limits.MaxBytes", Err: errors.New("must not be negative")}
	}
	return nil
}

// metaRobotsSitemaps + origin records that the Sitemap: lines of the origin's robots.txt were
// read: a robots.txt fetched again (after robotsTTL, or in a resumed crawl) queues none.
const metaRobotsSitemaps = "crawl/sitemaps/robots/"

// Annotations of a sitemap file's crawl.log line besides "sitemap:KIND:N" (the kind and the
// number of URLs read), listingMalformed and listingReadError.
const (
	sitemapNotSitemap  = "not-a-sitemap" // the body is not a sitemap (an HTML page, say)
	sitemapNestedIndex = "nested-index"  // an index listed by an index: its sitemaps are not followed
)

// Problems of a listing document (a sitemap file, a feed): annotations of its crawl.log line
// ("sitemap:malformed", "feed:read-error") and reasons of its event.
const (
	listingMalformed = "malformed"  // the document breaks off; the URLs before the fault are used
	listingReadError = "read-error" // the body could not be read to its end; the URLs before are used
)

// listing is one kind of listing document, a file the crawl reads for the URLs it lists: a
// sitemap file or a feed.
type listing struct {
	name      string // "sitemap", "feed": the prefix of its annotations, the noun of its log lines
	notA      string // the problem of a body of another kind: "not-a-sitemap"
	not       error  // the parser's error for a body of another kind
	malformed error  // the parser's error for a document that breaks off
	feeds     bool   // the target of a redirect is queued as a feed
}

// sitemapListing is a sitemap file.
var sitemapListing = listing{name: "sitemap", notA: sitemapNotSitemap, not: sitemap.ErrNotSitemap, malformed: sitemap.ErrMalformed}

// listingInfo is what the crawl made of one listing document.
type listingInfo struct {
	kind      string // as the parser names it ("urlset", "rss"); "" when it was not read
	listed    int    // the URLs it listed that were read, before scope decided on them
	truncated string // why the rest was not read (the parser's Result.Truncated); "" if nothing was left
	problem   string // why it was not used as it is (listingMalformed, listing.notA); "" if nothing
}

// addSitemaps queues the configured sitemap files (Sitemaps.URLs) and feeds (Feeds.URLs,
// addFeeds); those already seen by an earlier run are no-ops.
func (c *crawler) addSitemaps() error {
	if err := c.addSitemapFiles(); err != nil {
		return err
	}
	return c.addFeeds()
}

// addSitemapFiles queues the configured sitemap files.
func (c *crawler) addSitemapFiles() error {
	return c.addConfigured(c.cfg.Sitemaps.URLs, func(from frontier.URL, listed []string) chain.Content {
		return listedContent(from.URL, listed, hop.Sitemap, "config", true)
	})
}

// addConfigured queues the listing documents of the configuration (sitemap files, feeds),
// those of one seed decided together by decide, from the first seed of their origin, or from
// the first seed; none when no seed canonicalises.
func (c *crawler) addConfigured(urls []string, list func(from frontier.URL, listed []string) chain.Content) error {
	if len(urls) == 0 {
		return nil
	}
	seeds := make([]string, 0, len(c.cfg.Scope.Seeds))
	for _, s := range c.cfg.Scope.Seeds {
		if u, err := scope.Canonicalize(s.URL, c.cfg.Scope.Flavour); err == nil {
			seeds = append(seeds, u)
		}
	}
	if len(seeds) == 0 {
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
		from := frontier.URL{URL: s, Host: hostKey(s), Seed: s}
		if err := c.enqueue(0, from, c.decide(from, list(from, bySeed[s]))); err != nil {
			return err
		}
	}
	return nil
}

// seedOf returns the first of the canonical seeds with the origin of raw, else the first.
func seedOf(raw string, seeds []string) string {
	if u, err := url.Parse(raw); err == nil {
		for _, s := range seeds {
			if su, err := url.Parse(s); err == nil && su.Scheme == u.Scheme && su.Host == u.Host {
				return s
			}
		}
	}
	return seeds[0]
}

// robotsSitemaps queues the sitemap files a robots.txt of origin lists, once per origin and
// crawl. robots is the robots.txt as captured: its URL, hop path and seed.
func (c *crawler) robotsSitemaps(worker int, origin string, robots frontier.URL, listed []string) error {
	if !c.sitemapsFromRobots(robots.Host) || len(listed) == 0 {
		return nil
	}
	key := metaRobotsSitemaps + origin
	if _, seen, err := c.front.Meta(key); err != nil {
		return c.frontierErr(err)
	} else if seen {
		return nil
	}
	content := listedContent(robots.URL, listed, hop.Sitemap, "robots", true)
	if err := c.enqueue(worker, robots, c.decide(robots, content)); err != nil {
		return err
	}
	// After the files are queued: a kill in between reads the lines again, and the frontier's
	// seen set makes that harmless.
	return c.frontierErr(c.front.PutMeta(key, nil))
}

// listedContent is the content of a listing document (or of a robots.txt's Sitemap: lines,
// or of the configuration) that lists the URLs listed, each resolved against base, with hop
// step and context (for the metadata record). files marks them as listing documents
// themselves (sitemap files, feeds), claimed before the pages of their host.
func listedContent(base string, listed []string, step byte, context string, files bool) chain.Content {
	content := chain.Content{Listed: true, Files: files, Links: make([]extract.Outlink, 0, len(listed))}
	for _, raw := range listed {
		if abs, ok := resolve(base, raw); ok {
			content.Links = append(content.Links, extract.Outlink{URL: abs, Hop: step, Context: context})
		}
	}
	return content
}

// listings is the chain's step that reads a fetched listing document (a URL marked as a
// sitemap file: a sitemap, or a feed, crawl/feed.go) in place of a page: the URLs it lists
// are its content (decided as listed URLs), what was found is in its crawl.log line
// (listingAnnotations), and an event records it (Recorded).
type listings struct {
	c       *crawler
	pending *sync.Map // *frontier.Claim -> listingRead: what After read, for Recorded
}

// listingRead is what After read of a listing document.
type listingRead struct {
	kind listing
	info listingInfo
}

// Recorded writes the event of what was read (unless the response was neither a redirect
// nor a 2xx).
func (l listings) Recorded(r *chain.Record) error {
	v, ok := l.pending.LoadAndDelete(r.Claim)
	if !ok {
		return nil
	}
	read := v.(listingRead)
	if read.info == (listingInfo{}) {
		return nil
	}
	if read.kind.feeds {
		return l.c.feedRead(r.URL(), read.info)
	}
	return l.c.sitemapRead(r.URL(), read.info)
}

// Release forgets what After read of a document that was not recorded.
func (l listings) Release(r *chain.Record) { l.pending.Delete(r.Claim) }

func (listings) Name() string { return "listings" }

// After reads the listing document of a claimed sitemap file.
func (l listings) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	c, u := l.c, r.URL()
	if !u.Sitemap {
		return chain.Proceed, nil
	}
	isFeed, err := c.isFeed(u.URL)
	if err != nil {
		return chain.Verdict{}, err
	}
	kind, read := sitemapListing, c.readSitemap
	if isFeed {
		kind, read = feedListing, c.readFeed
	}
	content, info := read(u, r.Exchange())
	r.Content = content
	r.Content.Listed = true
	if ann := listingAnnotations(kind, info); len(ann) > 0 {
		r.Captures[0].Annotate(ann...)
	}
	l.pending.Store(r.Claim, listingRead{kind: kind, info: info})
	return chain.Proceed, nil
}

// readListing reads the response ex of a listing document of kind l with parse and limits.
// The target of a redirect is decided as a document of the same kind (d); a response that is
// neither a redirect nor a 2xx gives nothing. Else res is what parse read of the body (nil
// when it read nothing) and info.problem what was wrong with it: listingReadError, l.notA,
// listingMalformed, or "" for nothing; the rest of info is the caller's to fill from res.
func readListing[L, R any](c *crawler, u frontier.URL, ex *fetch.Exchange, l listing, parse func(io.Reader, L) (*R, error), limits L) (d chain.Content, res *R, info listingInfo) {
	if isRedirect(ex.StatusCode) {
		loc := ex.Header.Get("Location")
		if loc == "" {
			return chain.Content{}, nil, info
		}
		d := listedContent(u.URL, []string{loc}, hop.Redirect, "header/location", true)
		d.Feeds = l.feeds
		return d, nil, info
	}
	if ex.StatusCode < 200 || ex.StatusCode >= 300 {
		return chain.Content{}, nil, info
	}
	body, err := ex.Body()
	if err != nil {
		c.log.Debug("read "+l.name, "url", u.URL, "err", err)
		info.problem = listingReadError
		return chain.Content{}, nil, info
	}
	defer body.Close()
	res, err = parse(body, limits)
	switch {
	case errors.Is(err, l.not):
		c.log.Debug("not a "+l.name, "url", u.URL, "err", err)
		info.problem = l.notA
		return chain.Content{}, nil, info
	case errors.Is(err, l.malformed):
		c.log.Debug("malformed "+l.name, "url", u.URL, "err", err)
		info.problem = listingMalformed
	case err != nil:
		c.log.Debug("read "+l.name, "url", u.URL, "err", err)
		info.problem = listingReadError
	}
	return chain.Content{}, res, info
}

// readSitemap reads the URLs of a sitemap file's response and decides them: the target of a
// redirect (a sitemap file too), the sitemaps of an index (unless the index is itself listed
// by a sitemap), the pages of a urlset or text file. info is empty for a response that is
// neither a redirect nor a 2xx.
func (c *crawler) readSitemap(u frontier.URL, ex *fetch.Exchange) (chain.Content, listingInfo) {
	d, sm, info := readListing(c, u, ex, sitemapListing, sitemap.Parse, c.cfg.Sitemaps.Limits)
	if sm == nil {
		return d, info
	}
	info.kind, info.listed, info.truncated = sm.Kind.String(), len(sm.URLs), sm.Truncated
	if sm.Truncated != "" {
		c.log.Info("sitemap truncated", "url", u.URL, "reason", sm.Truncated, "urls", len(sm.URLs))
	}
	if sm.Kind != sitemap.Index {
		return listedContent(u.URL, sm.URLs, hop.Sitemap, "sitemap", false), info
	}
	if report.FromSitemap(u.Hops) {
		// Index depth 1: an index listed by an index is archived, not followed.
		c.log.Info("sitemap index listed by a sitemap index not followed", "url", u.URL, "via", u.Via)
		info.problem = sitemapNestedIndex
		return chain.Content{}, info
	}
	return listedContent(u.URL, sm.URLs, hop.Sitemap, "sitemapindex", true), info
}

// sitemapRead writes the sitemap-read event of a sitemap file.
func (c *crawler) sitemapRead(u frontier.URL, info listingInfo) error {
	si := report.SitemapInfo{Kind: info.kind, URLs: info.listed, Truncated: info.truncated, Problem: info.problem}
	if err := c.events.SitemapRead(report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}, si); err != nil {
		return fmt.Errorf("write sitemap event: %w", err)
	}
	return nil
}

// listingAnnotations are the crawl.log annotations of the capture of a listing document of
// kind l: "NAME:KIND:N", then "NAME:truncated:WHY" and "NAME:PROBLEM" as they apply, NAME
// being l.name ("sitemap:urlset:12", "feed:malformed").
func listingAnnotations(l listing, info listingInfo) []string {
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
