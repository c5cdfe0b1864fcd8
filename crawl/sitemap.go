package crawl

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/sitemap"
	"github.com/amber-crawler/amber/warc"
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
	for _, raw := range s.URLs {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &FieldError{Field: "Sitemaps.URLs", Err: fmt.Errorf("%q: want an absolute http or https URL", raw)}
		}
	}
	if s.Limits.MaxURLs < 0 {
		return &FieldError{Field: "Sitemaps.Limits.MaxURLs", Err: errors.New("must not be negative")}
	}
	if s.Limits.MaxBytes < 0 {
		return &FieldError{Field: "Sitemaps.Limits.MaxBytes", Err: errors.New("must not be negative")}
	}
	return nil
}

// metaRobotsSitemaps + origin records that the Sitemap: lines of the origin's robots.txt were
// read: a robots.txt fetched again (after robotsTTL, or in a resumed crawl) queues none.
const metaRobotsSitemaps = "crawl/sitemaps/robots/"

// Annotations of a sitemap file's crawl.log line besides "sitemap:KIND:N" (the kind and the
// number of URLs read).
const (
	sitemapNotSitemap  = "not-a-sitemap" // the body is not a sitemap (an HTML page, say)
	sitemapMalformed   = "malformed"     // the sitemap breaks off; the URLs before the fault are used
	sitemapReadError   = "read-error"    // the body could not be read to its end; the URLs before are used
	sitemapNestedIndex = "nested-index"  // an index listed by an index: its sitemaps are not followed
)

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
	if len(c.cfg.Sitemaps.URLs) == 0 {
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
	// The files of one seed are decided and queued together.
	bySeed := map[string][]string{}
	var order []string
	for _, raw := range c.cfg.Sitemaps.URLs {
		s := seedOf(raw, seeds)
		if _, ok := bySeed[s]; !ok {
			order = append(order, s)
		}
		bySeed[s] = append(bySeed[s], raw)
	}
	for _, s := range order {
		from := frontier.URL{URL: s, Host: hostKey(s), Seed: s}
		if err := c.enqueue(0, from, c.decideListed(from, bySeed[s], hop.Sitemap, true, "config")); err != nil {
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
	if !c.cfg.Sitemaps.Robots || len(listed) == 0 {
		return nil
	}
	key := metaRobotsSitemaps + origin
	if _, seen, err := c.front.Meta(key); err != nil {
		return c.frontierErr(err)
	} else if seen {
		return nil
	}
	if err := c.enqueue(worker, robots, c.decideListed(robots, listed, hop.Sitemap, true, "robots")); err != nil {
		return err
	}
	// After the files are queued: a kill in between reads the lines again, and the frontier's
	// seen set makes that harmless.
	return c.frontierErr(c.front.PutMeta(key, nil))
}

// decideListed canonicalises and scopes the URLs listed by from (a robots.txt, a seed, a
// sitemap file), each with step appended to from's hop path. files marks them as sitemap
// files, claimed before the pages of their host. Duplicates count once; what does not
// canonicalise is dropped. context goes in the metadata record's outlinks.
func (c *crawler) decideListed(from frontier.URL, listed []string, step byte, files bool, context string) decided {
	var d decided
	hops := from.Hops + string(step)
	seen := make(map[string]struct{}, len(listed))
	for _, raw := range listed {
		abs, ok := resolve(from.URL, raw)
		if !ok {
			continue
		}
		cu, orig := c.canonical(abs)
		if cu == "" {
			continue
		}
		if _, dup := seen[cu]; dup {
			continue
		}
		seen[cu] = struct{}{}
		dec := c.scope.Load().Decide(scope.Candidate{URL: cu, Hops: hops, Via: from.URL, ViaHopsOff: from.HopsOff, Seed: from.Seed})
		fu := frontier.URL{URL: cu, Host: hostKey(cu), Hops: hops, Via: from.URL, Seed: from.Seed, HopsOff: dec.HopsOff}
		if files {
			fu.Sitemap, fu.Priority = true, -1
		}
		d.metadata = append(d.metadata, warc.Outlink{URL: cu, Hop: string(step), Context: context})
		if step == hop.Redirect && c.tooManyRedirects(hops) {
			dec = scope.Decision{Reason: reasonMaxRedirects}
		}
		if dec.In {
			d.addIn(decision{url: fu, from: orig})
		} else {
			d.out = append(d.out, decision{url: fu, decision: dec, from: orig})
		}
	}
	return d
}

// processSitemap takes a fetched sitemap file through the rest of the pipeline: its URLs are
// read and decided, the capture is archived with what was found in its crawl.log line, the
// URLs in scope are queued, and the file is done. A redirect is followed as a sitemap file.
// A feed (a file marked as one, crawl/feed.go) goes to processFeed instead.
func (c *crawler) processSitemap(worker int, cl *frontier.Claim, res *fetch.Result) error {
	u := cl.URL
	if isFeed, err := c.isFeed(u.URL); err != nil || isFeed {
		if err != nil {
			return err
		}
		return c.processFeed(worker, cl, res)
	}
	ex := res.Exchanges[0]
	caps, _ := c.captures(u, res)
	if err := c.markRewritten(u, &caps[0]); err != nil {
		return err
	}
	d, info := c.readSitemap(u, ex)
	caps[0].outlinks = append(d.metadata, caps[0].outlinks...)
	if ann := sitemapAnnotations(info); len(ann) > 0 {
		caps[0].annotations = append(slices.Clip(caps[0].annotations), ann...)
	}
	if _, err := c.recordAll(worker, u, res, caps); err != nil {
		return err
	}
	if info != (report.SitemapInfo{}) {
		if err := c.events.SitemapRead(report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}, info); err != nil {
			return fmt.Errorf("write sitemap event: %w", err)
		}
	}
	if err := c.enqueue(worker, u, d); err != nil {
		return err
	}
	return c.frontierErr(c.front.Done(cl))
}

// readSitemap reads the URLs of a sitemap file's response and decides them: the target of a
// redirect (a sitemap file too), the sitemaps of an index (unless the index is itself listed
// by a sitemap), the pages of a urlset or text file. info is empty for a response that is
// neither a redirect nor a 2xx.
func (c *crawler) readSitemap(u frontier.URL, ex *fetch.Exchange) (decided, report.SitemapInfo) {
	var info report.SitemapInfo
	if isRedirect(ex.StatusCode) {
		if loc := ex.Header.Get("Location"); loc != "" {
			return c.decideListed(u, []string{loc}, hop.Redirect, true, "header/location"), info
		}
		return decided{}, info
	}
	if ex.StatusCode < 200 || ex.StatusCode >= 300 {
		return decided{}, info
	}
	body, err := ex.Body()
	if err != nil {
		c.log.Debug("read sitemap", "url", u.URL, "err", err)
		info.Problem = sitemapReadError
		return decided{}, info
	}
	defer body.Close()
	sm, err := sitemap.Parse(body, c.cfg.Sitemaps.Limits)
	switch {
	case errors.Is(err, sitemap.ErrNotSitemap):
		c.log.Debug("not a sitemap", "url", u.URL, "err", err)
		info.Problem = sitemapNotSitemap
		return decided{}, info
	case errors.Is(err, sitemap.ErrMalformed):
		c.log.Debug("malformed sitemap", "url", u.URL, "err", err)
		info.Problem = sitemapMalformed
	case err != nil:
		c.log.Debug("read sitemap", "url", u.URL, "err", err)
		info.Problem = sitemapReadError
	}
	if sm == nil {
		return decided{}, info
	}
	info.Kind, info.URLs, info.Truncated = sm.Kind.String(), len(sm.URLs), sm.Truncated
	if sm.Truncated != "" {
		c.log.Info("sitemap truncated", "url", u.URL, "reason", sm.Truncated, "urls", len(sm.URLs))
	}
	if sm.Kind != sitemap.Index {
		return c.decideListed(u, sm.URLs, hop.Sitemap, false, "sitemap"), info
	}
	if report.FromSitemap(u.Hops) {
		// Index depth 1: an index listed by an index is archived, not followed.
		c.log.Info("sitemap index listed by a sitemap index not followed", "url", u.URL, "via", u.Via)
		info.Problem = sitemapNestedIndex
		return decided{}, info
	}
	return c.decideListed(u, sm.URLs, hop.Sitemap, true, "sitemapindex"), info
}

// sitemapAnnotations are the crawl.log annotations of a sitemap file's capture:
// "sitemap:KIND:N", then "sitemap:truncated:WHY" and "sitemap:PROBLEM" as they apply.
func sitemapAnnotations(info report.SitemapInfo) []string {
	var ann []string
	if info.Kind != "" {
		ann = append(ann, "sitemap:"+info.Kind+":"+strconv.Itoa(info.URLs))
	}
	if info.Truncated != "" {
		ann = append(ann, "sitemap:truncated:"+info.Truncated)
	}
	if info.Problem != "" {
		ann = append(ann, "sitemap:"+info.Problem)
	}
	return ann
}
