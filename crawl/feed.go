package crawl

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
)

// FeedConfig configures RSS and Atom feeds (FAST's rss section). A feed is queued like a
// sitemap file (frontier.URL.Sitemap, claimed before its host's pages) with hop L from a seed
// or from the page that names it, and marked as a feed; it is decided by scope and robots.txt
// like any URL, fetched with the HTTP client, archived and logged (annotations feed:KIND:N,
// feed:truncated:WHY, feed:PROBLEM; event feed-read), and never a search document. The links
// of its items are candidates with hop L, via the feed, decided like links; a redirect of a
// feed is followed as a feed. A URL the crawl already knew is not queued again, so it is not
// read as a feed.
type FeedConfig struct {
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

// validate returns a *FieldError for an invalid field.
func (f FeedConfig) validate() error {
	for _, raw := range f.URLs {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &FieldError{Field: "Feeds.URLs", Err: fmt.Errorf("%q: want an absolute http or https URL", raw)}
		}
	}
	if f.Limits.MaxLinks < 0 {
		return &FieldError{Field: "Feeds.Limits.MaxLinks", Err: errors.New("must not be negative")}
	}
	if f.Limits.MaxBytes < 0 {
		return &FieldError{Field: "Feeds.Limits.MaxBytes", Err: errors.New("must not be negative")}
	}
	return nil
}

// metaFeed + canonical URL marks a URL queued as a feed (its frontier entry is marked as a
// sitemap file: the frontier has one mark for files the crawl reads for URLs).
const metaFeed = "crawl/feeds/"

// ActionFeedRead is the action of the event that records a feed read (an amber event, as
// sitemap-read): labels feed_kind, feed_links, feed_truncated.
const ActionFeedRead = "feed-read"

// Annotations of a feed's crawl.log line besides "feed:KIND:N".
const (
	feedNotFeed   = "not-a-feed" // the body is not a feed
	feedMalformed = "malformed"  // the feed breaks off; the links before the fault are used
	feedReadError = "read-error" // the body could not be read to its end
)

// feedInfo is what the crawl made of one feed.
type feedInfo struct {
	kind      string // "rss", "atom"; "" when not read as a feed
	links     int
	truncated string
	problem   string
}

// feedsOn reports whether the crawl may have feeds.
func (c *crawler) feedsOn() bool { return len(c.cfg.Feeds.URLs) > 0 || c.cfg.Feeds.AutoDiscover }

// isFeed reports whether a URL marked as a sitemap file was queued as a feed.
func (c *crawler) isFeed(u string) (bool, error) {
	if !c.feedsOn() {
		return false, nil
	}
	_, ok, err := c.front.Meta(metaFeed + u)
	return ok, c.frontierErr(err)
}

// addFeeds queues the configured feeds (Feeds.URLs), each from the first seed of its origin;
// those already seen by an earlier run are no-ops.
func (c *crawler) addFeeds() error {
	if len(c.cfg.Feeds.URLs) == 0 {
		return nil
	}
	var seeds []string
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
	for _, raw := range c.cfg.Feeds.URLs {
		s := seedOf(raw, seeds)
		if _, ok := bySeed[s]; !ok {
			order = append(order, s)
		}
		bySeed[s] = append(bySeed[s], raw)
	}
	for _, s := range order {
		from := frontier.URL{URL: s, Host: hostKey(s), Seed: s}
		d := c.decideListed(from, bySeed[s], hop.Link, true, "config/feed")
		for _, u := range d.in {
			d.feeds = append(d.feeds, u.URL)
		}
		if err := c.enqueue(0, from, d); err != nil {
			return err
		}
	}
	return nil
}

// processFeed takes a fetched feed through the rest of the pipeline, as processSitemap does a
// sitemap file: its item links are read and decided, the capture archived with what was found
// in its crawl.log line, the links in scope (or all of them, with IgnoreRules) queued, and
// the feed done.
func (c *crawler) processFeed(worker int, cl *frontier.Claim, res *fetch.Result) error {
	u := cl.URL
	caps, _ := c.captures(u, res)
	if err := c.markRewritten(u, &caps[0]); err != nil {
		return err
	}
	d, info := c.readFeed(u, res.Exchanges[0])
	caps[0].outlinks = append(d.metadata, caps[0].outlinks...)
	if ann := feedAnnotations(info); len(ann) > 0 {
		caps[0].annotations = append(slices.Clip(caps[0].annotations), ann...)
	}
	if _, err := c.recordAll(worker, u, res, caps); err != nil {
		return err
	}
	if info != (feedInfo{}) {
		if err := c.feedRead(u, info); err != nil {
			return err
		}
	}
	if err := c.enqueue(worker, u, d); err != nil {
		return err
	}
	return c.frontierErr(c.front.Done(cl))
}

// readFeed reads the item links of a feed's response and decides them; a redirect's target
// is a feed again. info is empty for a response that is neither a redirect nor a 2xx.
func (c *crawler) readFeed(u frontier.URL, ex *fetch.Exchange) (decided, feedInfo) {
	var info feedInfo
	if isRedirect(ex.StatusCode) {
		loc := ex.Header.Get("Location")
		if loc == "" {
			return decided{}, info
		}
		d := c.decideListed(u, []string{loc}, hop.Redirect, true, "header/location")
		for _, t := range d.in {
			d.feeds = append(d.feeds, t.URL)
		}
		return d, info
	}
	if ex.StatusCode < 200 || ex.StatusCode >= 300 {
		return decided{}, info
	}
	body, err := ex.Body()
	if err != nil {
		c.log.Debug("read feed", "url", u.URL, "err", err)
		info.problem = feedReadError
		return decided{}, info
	}
	defer body.Close()
	f, err := feed.Parse(body, c.cfg.Feeds.Limits)
	switch {
	case errors.Is(err, feed.ErrNotFeed):
		c.log.Debug("not a feed", "url", u.URL, "err", err)
		info.problem = feedNotFeed
		return decided{}, info
	case errors.Is(err, feed.ErrMalformed):
		c.log.Debug("malformed feed", "url", u.URL, "err", err)
		info.problem = feedMalformed
	case err != nil:
		c.log.Debug("read feed", "url", u.URL, "err", err)
		info.problem = feedReadError
	}
	if f == nil {
		return decided{}, info
	}
	info.kind, info.links, info.truncated = f.Kind.String(), len(f.Links), f.Truncated
	d := c.decideListed(u, f.Links, hop.Link, false, "feed")
	if c.cfg.Feeds.IgnoreRules {
		out := d.out[:0]
		for _, o := range d.out {
			if !ruleReason(o.decision.Reason) {
				out = append(out, o)
				continue
			}
			o.url.HopsOff = 0
			d.addIn(o)
		}
		d.out = out
	}
	return d, info
}

// ruleReason reports whether a scope reason is one of the rules FeedConfig.IgnoreRules sets
// aside for feed items: not in scope, out of the domains, a block rule, a crawl rule.
func ruleReason(reason string) bool {
	return reason == scope.ReasonOutOfScope || reason == scope.ReasonOutOfDomain ||
		strings.HasPrefix(reason, scope.ReasonBlockPrefix) || strings.HasPrefix(reason, scope.ReasonCrawlRulePrefix)
}

// feedAnnotations are the crawl.log annotations of a feed's capture: "feed:KIND:N", then
// "feed:truncated:WHY" and "feed:PROBLEM" as they apply.
func feedAnnotations(info feedInfo) []string {
	var ann []string
	if info.kind != "" {
		ann = append(ann, "feed:"+info.kind+":"+strconv.Itoa(info.links))
	}
	if info.truncated != "" {
		ann = append(ann, "feed:truncated:"+info.truncated)
	}
	if info.problem != "" {
		ann = append(ann, "feed:"+info.problem)
	}
	return ann
}

// feedRead writes the feed-read event of a feed.
func (c *crawler) feedRead(u frontier.URL, info feedInfo) error {
	outcome, msg := "success", "Read feed "+u.URL+": "
	if info.problem == feedNotFeed || info.problem == feedMalformed {
		outcome = "failure"
	}
	if info.kind == "" {
		msg += "not a feed"
	} else {
		msg += info.kind + " of " + strconv.Itoa(info.links) + " links"
	}
	labels := map[string]string{"feed_links": strconv.Itoa(info.links)}
	if info.kind != "" {
		labels["feed_kind"] = info.kind
	}
	if info.truncated != "" {
		labels["feed_truncated"] = info.truncated
	}
	ui := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
	err := c.events.Event(report.Event{Action: ActionFeedRead, Outcome: outcome, Reason: info.problem, Message: msg, URL: &ui, Labels: labels})
	if err != nil {
		return fmt.Errorf("write feed event: %w", err)
	}
	return nil
}

// feedItemLinks drops the links (hop L) of a page that a feed's item named when
// FeedConfig.SkipItemLinks says so; its embeds, redirects and favicon are kept.
func (c *crawler) feedItemLinks(u frontier.URL, links []extract.Outlink) []extract.Outlink {
	if !c.cfg.Feeds.SkipItemLinks || !c.feedsOn() || hop.Last(u.Hops) != hop.Link || u.Via == "" || u.Sitemap {
		return links
	}
	if ok, err := c.isFeed(u.Via); err != nil || !ok {
		if err != nil {
			c.log.Warn("look up feed", "url", u.Via, "err", err)
		}
		return links
	}
	kept := links[:0:0]
	for _, l := range links {
		if l.Hop != hop.Link {
			kept = append(kept, l)
		}
	}
	return kept
}
