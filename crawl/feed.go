package crawl

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/chain"
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
	return validateListing("Feeds", f.URLs, "MaxLinks", f.Limits.MaxLinks, f.Limits.MaxBytes)
}

// metaFeed + canonical URL marks a URL queued as a feed (its frontier entry is marked as a
// sitemap file: the frontier has one mark for files the crawl reads for URLs).
const metaFeed = "crawl/feeds/"

// ActionFeedRead is the action of the event that records a feed read (an amber event, as
// sitemap-read): labels feed_kind, feed_links, feed_truncated.
const ActionFeedRead = "feed-read"

// feedNotFeed is the problem of a body that is not a feed (its crawl.log line's annotation
// "feed:not-a-feed", besides "feed:KIND:N", listingMalformed and listingReadError).
const feedNotFeed = "not-a-feed"

// feedListing is a feed.
var feedListing = listing{name: "feed", notA: feedNotFeed, not: feed.ErrNotFeed, malformed: feed.ErrMalformed, feeds: true}

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
	return c.addConfigured(c.cfg.Feeds.URLs, func(from frontier.URL, listed []string) chain.Content {
		content := listedContent(from.URL, listed, hop.Link, "config/feed", true)
		content.Feeds = true
		return content
	})
}

// readFeed reads the item links of a feed's response as its content; a redirect's target is a
// feed again. Items out of scope by a rule are queued all the same with IgnoreRules. info is
// empty for a response that is neither a redirect nor a 2xx.
func (c *crawler) readFeed(u frontier.URL, ex *fetch.Exchange) (chain.Content, listingInfo) {
	d, f, info := readListing(c, u, ex, feedListing, feed.Parse, c.cfg.Feeds.Limits)
	if f == nil {
		return d, info
	}
	info.kind, info.listed, info.truncated = f.Kind.String(), len(f.Links), f.Truncated
	d = listedContent(u.URL, f.Links, hop.Link, "feed", false)
	d.IgnoreRules = c.cfg.Feeds.IgnoreRules
	return d, info
}

// ruleReason reports whether a scope reason is one of the rules FeedConfig.IgnoreRules sets
// aside for feed items: not in scope, out of the domains, a block rule, a crawl rule.
func ruleReason(reason string) bool {
	return reason == scope.ReasonOutOfScope || reason == scope.ReasonOutOfDomain ||
		strings.HasPrefix(reason, scope.ReasonBlockPrefix) || strings.HasPrefix(reason, scope.ReasonCrawlRulePrefix)
}

// feedRead writes the feed-read event of a feed.
func (c *crawler) feedRead(u frontier.URL, info listingInfo) error {
	outcome, msg := "success", "Read feed "+u.URL+": "
	if info.problem == feedNotFeed || info.problem == listingMalformed {
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
	err := c.events.Event(report.Event{Action: ActionFeedRead, Outcome: outcome, Reason: info.problem, Message: msg, URL: &ui, Labels: labels})
	if err != nil {
		return fmt.Errorf("write feed event: %w", err)
	}
	return nil
}

// feedItems is the chain's step that drops the links (hop L) of a page that a feed's item
// named when FeedConfig.SkipItemLinks says so; its embeds, redirects and favicon are kept.
type feedItems struct{ c *crawler }

func (feedItems) Name() string { return "feeds.follow_links" }

// After drops the links of a feed item's page.
func (f feedItems) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	c, u := f.c, r.URL()
	if hop.Last(u.Hops) != hop.Link || u.Via == "" || u.Sitemap || len(r.Content.Links) == 0 {
		return chain.Proceed, nil
	}
	if ok, err := c.isFeed(u.Via); err != nil || !ok {
		if err != nil {
			c.log.Warn("look up feed", "url", u.Via, "err", err)
		}
		return chain.Proceed, nil
	}
	r.Content.Links = slices.DeleteFunc(r.Content.Links, func(l extract.Outlink) bool { return l.Hop == hop.Link })
	return chain.Proceed, nil
}
