package crawl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/rewrite"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/warc"
	"github.com/amber-crawler/amber/weburl"
)

// URLConfig configures what the crawl does to each URL a page, a sitemap or a feed points at
// before scope decides it, and how far redirects are followed. Seeds are taken as given.
type URLConfig struct {
	// Rewrite are rewrite rules (FAST's rewrite_rules, package rewrite), applied in order to
	// each absolute URL found, before it is canonicalised: the rewritten URL is the one
	// decided, queued, fetched and archived. The URL as found is recorded in the metadata
	// record of the rewritten URL's capture (rewrittenFrom) and in crawl.log annotations
	// (rewritten-from:URL, with "%", "," and white space percent-encoded), on the capture's
	// line or on the line that says why it was not fetched. Default none.
	Rewrite rewrite.Rules
	// SortQuery sorts the query parameters of each URL found by name (weburl.SortQuery;
	// FAST's sort_query_params) as part of its canonical form: the sorted URL is the one
	// queued, fetched and archived, and spellings that differ only in the order of their
	// parameters are one URL. Default false.
	SortQuery bool
	// RefreshRedirectMax, when set, is the longest delay in seconds of a <meta
	// http-equiv=refresh> that is a redirect (hop R, decided as a redirect is); the target
	// of a longer one is a link (hop L). Negative: every meta refresh is a link (FAST's
	// html_redir_is_redir no; html_redir_threshold is the number). Refresh headers are always
	// redirects. Default nil: every meta refresh is a redirect, as Heritrix.
	RefreshRedirectMax *int
	// MaxRedirects, when positive, is the longest chain of redirects the crawl follows from
	// a URL (counted along the hop path: the R steps that end it): the target of one more
	// redirect is not queued, and its crawl.log line has status -4001 and annotation
	// scope:max-redirects. The browser fetcher follows the redirects of a page load itself,
	// as Chromium does. Default 0: no limit. Negative is invalid.
	MaxRedirects int
}

// validate returns a *FieldError for an invalid field.
func (u URLConfig) validate() error {
	if u.MaxRedirects < 0 {
		return &FieldError{Field: "URLs.MaxRedirects", Err: errors.New("must not be negative")}
	}
	return nil
}

// reasonMaxRedirects is the reason of a redirect target beyond URLConfig.MaxRedirects.
const reasonMaxRedirects = "max-redirects"

// metaRewritten + canonical URL holds the URL as found that URLConfig.Rewrite rewrote into it,
// written when the rewritten URL is first queued and read when it is captured.
const metaRewritten = "crawl/rewritten/"

// decision is what scope said about one distinct outlink of a page.
type decision struct {
	url      frontier.URL
	decision scope.Decision
	from     string // the URL as found, when URLConfig.Rewrite rewrote it into url.URL
}

// decided is the outcome of scoping a page's outlinks.
type decided struct {
	in       []frontier.URL // distinct canonical URLs to queue
	out      []decision     // distinct canonical URLs left out (none of their variants was in)
	metadata []warc.Outlink // the outlinks of the URLs kept, for the metadata record
	dropped  int            // distinct canonical URLs left out by MaxOutlinks
	// rewritten maps the URLs of in that URLConfig.Rewrite made to the URL as found.
	rewritten map[string]string
	// feeds are the URLs of in that are feeds (crawl/feed.go), marked before they are queued.
	feeds []string
}

// canonical returns the URL the crawl takes for an absolute URL found on a page, in a
// sitemap or a feed: rewritten (URLConfig.Rewrite), canonicalised, its query sorted
// (URLConfig.SortQuery); "" when it does not canonicalise. from is raw when a rewrite rule
// changed the URL taken, else "".
func (c *crawler) canonical(raw string) (cu, from string) {
	target := raw
	if len(c.cfg.URLs.Rewrite) > 0 {
		target, _ = c.cfg.URLs.Rewrite.Apply(raw)
	}
	cu, err := c.canonicalize(target)
	if err != nil {
		return "", ""
	}
	if target != raw {
		if orig, err := c.canonicalize(raw); err != nil || orig != cu {
			from = raw
		}
	}
	return cu, from
}

// canonicalize is scope.Canonicalize in the crawl's flavour, with the query sorted when
// URLConfig.SortQuery says so.
func (c *crawler) canonicalize(raw string) (string, error) {
	cu, err := scope.Canonicalize(raw, c.cfg.Scope.Flavour)
	if err != nil {
		return "", err
	}
	if c.cfg.URLs.SortQuery {
		cu = weburl.SortQuery(cu)
	}
	return cu, nil
}

// tooManyRedirects reports whether a redirect target with hop path hops ends a chain of more
// redirects than URLConfig.MaxRedirects.
func (c *crawler) tooManyRedirects(hops string) bool {
	n := c.cfg.URLs.MaxRedirects
	return n > 0 && len(hops)-len(strings.TrimRight(hops, string(hop.Redirect))) > n
}

// rewrittenFrom returns the metadata field and the crawl.log annotation that record the URL
// as found of a rewritten URL u (URLConfig.Rewrite), nothing for another.
func (c *crawler) rewrittenFrom(u string) ([]warc.Field, []string, error) {
	if len(c.cfg.URLs.Rewrite) == 0 {
		return nil, nil, nil
	}
	v, ok, err := c.front.Meta(metaRewritten + u)
	if err != nil || !ok {
		return nil, nil, c.frontierErr(err)
	}
	return []warc.Field{{Name: "rewrittenFrom", Value: string(v)}}, []string{rewrittenNote(string(v))}, nil
}

// rewrites is the chain's step that marks the capture of a URL that a rewrite rule made
// (URLConfig.Rewrite) with the URL as found: its rewrittenFrom metadata field and crawl.log
// annotation.
type rewrites struct{ c *crawler }

func (rewrites) Name() string { return "urls.rewrite_rules" }

// After marks the capture of the claimed URL when it is a rewritten one.
func (p rewrites) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	fields, ann, err := p.c.rewrittenFrom(r.URL().URL)
	if err != nil || fields == nil {
		return chain.Proceed, err
	}
	k := &r.Captures[0]
	k.Fields = append(slices.Clip(k.Fields), fields...)
	k.Annotate(ann...)
	return chain.Proceed, nil
}

// rewrittenNote is the crawl.log annotation of a URL rewritten from the URL as found, from:
// one token of the annotations column.
func rewrittenNote(from string) string {
	var b strings.Builder
	b.WriteString("rewritten-from:")
	for i := 0; i < len(from); i++ {
		switch ch := from[i]; {
		case ch == '%' || ch == ',' || ch <= ' ' || ch == 0x7f:
			fmt.Fprintf(&b, "%%%02X", ch)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// decide canonicalises and scopes what a fetched URL points at (its content's links), at
// most MaxOutlinks distinct canonical URLs of a page's (keep says which; a listing document's
// are all kept). A URL found with several hop letters on one page is queued if any of them is
// in scope (an image also linked with <a> is still an embed), and rejected only when none is.
// The URLs a listing document lists that are listing documents themselves (Content.Files)
// are marked as such, feeds too (Content.Feeds; a page's auto-discovered feeds with
// listing.Feeds.AutoDiscover), and a feed's items out of scope by a rule are queued all the same
// with Content.IgnoreRules.
func (c *crawler) decide(u frontier.URL, content chain.Content) decided {
	var d decided
	links := content.Links
	canon := make([]string, len(links))
	from := make([]string, len(links))
	for i, l := range links {
		canon[i], from[i] = c.canonical(l.URL)
	}
	max := c.cfg.MaxOutlinks
	if content.Listed {
		max = len(links)
	}
	kept := keep(links, canon, max)
	d.dropped = distinct(canon) - len(kept)
	type entry struct {
		in   bool
		best decision
	}
	order := []string{}
	byURL := map[string]*entry{}
	feeds := map[string]bool{} // found as a feed (auto-discovery)
	for i, l := range links {
		cu := canon[i]
		if cu == "" || !kept[cu] {
			continue
		}
		cand := c.decideOne(u, l, cu, content)
		cand.from = from[i]
		d.metadata = append(d.metadata, warc.Outlink{URL: cu, Hop: string(l.Hop), Context: l.Context})
		if content.Feeds || l.Feed {
			feeds[cu] = true
		}
		e, ok := byURL[cu]
		if !ok {
			byURL[cu] = &entry{in: cand.decision.In, best: cand}
			order = append(order, cu)
			continue
		}
		if cand.decision.In && !e.in {
			e.in, e.best = true, cand
		}
	}
	for _, cu := range order {
		e := byURL[cu]
		if !e.in {
			d.out = append(d.out, e.best)
			continue
		}
		if feeds[cu] || content.Files {
			e.best.url.Sitemap, e.best.url.Priority = true, -1
		}
		if feeds[cu] {
			d.feeds = append(d.feeds, cu)
		}
		d.addIn(e.best)
	}
	return d
}

// decideOne decides the link l (canonical URL cu) of u: scope, the subcollection of the link,
// the redirect limit; a redirect of a seed's chain widens the seed's scope first.
func (c *crawler) decideOne(u frontier.URL, l extract.Outlink, cu string, content chain.Content) decision {
	hops := u.Hops + string(l.Hop)
	if l.Hop == hop.Redirect {
		c.promote(u, cu, hops)
	}
	dec := c.scope.Load().Decide(scope.Candidate{URL: cu, Hops: hops, Via: u.URL, ViaHopsOff: u.HopsOff, Seed: u.Seed, Addr: c.addrs.Addr(cu)})
	dec = c.subs.Decide(cu, hops, dec) // Config.Subcollections: its schemes and hops
	if l.Hop == hop.Redirect && c.tooManyRedirects(hops) {
		dec = scope.Decision{Reason: reasonMaxRedirects}
	}
	if !dec.In && content.IgnoreRules && ruleReason(dec.Reason) {
		dec = scope.Decision{In: true, Reason: dec.Reason} // listing.Feeds.IgnoreRules
	}
	return decision{
		url:      frontier.URL{URL: cu, Host: hostKey(cu), Hops: hops, Via: u.URL, Seed: u.Seed, HopsOff: dec.HopsOff},
		decision: dec,
	}
}

// addIn adds an in-scope URL to queue, with the URL as found when it was rewritten.
func (d *decided) addIn(x decision) {
	d.in = append(d.in, x.url)
	if x.from != "" {
		if d.rewritten == nil {
			d.rewritten = map[string]string{}
		}
		d.rewritten[x.url.URL] = x.from
	}
}

// ruleReason reports whether a scope reason is one of the rules listing.Feeds.IgnoreRules sets
// aside for feed items: not in scope, out of the domains, a block rule, a crawl rule.
func ruleReason(reason string) bool {
	return reason == scope.ReasonOutOfScope || reason == scope.ReasonOutOfDomain ||
		strings.HasPrefix(reason, scope.ReasonBlockPrefix) || strings.HasPrefix(reason, scope.ReasonCrawlRulePrefix)
}

// keep returns the distinct canonical URLs (canon[i] of links[i]; "" for none) a page keeps
// under a cap of max: all of them when they are no more than max; else first those found with
// a hop other than hop.Link (embeds, redirects, the inferred favicon: what the page needs to
// replay, and what makes a redirect a redirect), then links, each in document order.
func keep(links []extract.Outlink, canon []string, max int) map[string]bool {
	kept := map[string]bool{}
	for pass := range 2 {
		for i, l := range links {
			cu := canon[i]
			if cu == "" || kept[cu] || (pass == 0 && l.Hop == hop.Link) {
				continue
			}
			if len(kept) == max {
				return kept
			}
			kept[cu] = true
		}
	}
	return kept
}

// distinct returns the number of distinct non-empty strings in s.
func distinct(s []string) int {
	seen := make(map[string]struct{}, len(s))
	for _, v := range s {
		if v != "" {
			seen[v] = struct{}{}
		}
	}
	return len(seen)
}

// annotate returns the capture of the page with the outlinks it keeps listed first in its
// metadata record and, when the cap left some out (extracted: those extraction already left
// out, see crawler.extractLimit), their number in the metadata record (outlinksDropped) and
// in crawl.log (outlinks-capped:N).
func (d decided) annotate(k chain.Capture, extracted int) chain.Capture {
	k.Outlinks = append(d.metadata, k.Outlinks...)
	if n := d.dropped + extracted; n > 0 {
		k.AddField("outlinksDropped", strconv.Itoa(n))
		k.Annotate("outlinks-capped:" + strconv.Itoa(n))
	}
	return k
}

// enqueue adds the in-scope outlinks to the frontier and records each newly rejected URL once.
// An outlink the frontier cannot store is that URL's failure (crawl.log status.InvalidURL,
// annotation frontier:not-stored), not the crawl's.
func (c *crawler) enqueue(worker int, u frontier.URL, d decided) error {
	for _, f := range d.feeds {
		if err := c.listings.MarkFeed(f); err != nil {
			return err
		}
	}
	if len(d.in) > 0 {
		added, err := c.front.AddBatch(d.in)
		if err != nil {
			return c.frontierErr(err)
		}
		var discovered []report.URLInfo
		for i, r := range added {
			n := d.in[i]
			if r.Err != nil {
				if !errors.Is(r.Err, frontier.ErrURL) {
					return c.frontierErr(r.Err)
				}
				c.log.Debug("outlink not stored", "url", n.URL, "err", r.Err)
				if err := c.logLine(report.Line{Status: status.InvalidURL, Size: -1, URL: n.URL, Hops: n.Hops,
					Via: u.URL, Thread: worker, Seed: u.Seed, Annotations: []string{"frontier:not-stored"}}); err != nil {
					return err
				}
				continue
			}
			if r.New {
				discovered = append(discovered, report.URLInfo{URL: n.URL, Hops: n.Hops, Via: n.Via, Seed: n.Seed})
				if from, ok := d.rewritten[n.URL]; ok {
					if err := c.front.PutMeta(metaRewritten+n.URL, []byte(from)); err != nil {
						return c.frontierErr(err)
					}
				}
			}
		}
		if err := c.events.URLsDiscovered(discovered); err != nil {
			return fmt.Errorf("write discover events: %w", err)
		}
	}
	for _, o := range d.out {
		if err := c.reject(worker, u, o); err != nil {
			return err
		}
	}
	return nil
}

// reject records a URL the page pointed at that scope (or a rule of the crawl's) kept out
// (refuse).
func (c *crawler) reject(worker int, page frontier.URL, o decision) error {
	return c.refuse(worker, page, o.url, scopeOutcome(o.decision.Reason, o.from))
}

// promote widens a seed's scope to the target of its own redirect chain (spec/scope.md §3.2)
// and keeps the promotion for later runs.
func (c *crawler) promote(u frontier.URL, target, hops string) {
	if !hop.IsRedirectChain(u.Hops) {
		return
	}
	cu, err := c.canonicalize(target)
	if err != nil || cu == u.URL {
		return
	}
	// Under the Handle's lock: a scope it swaps in replays the promotions saved, and must not
	// miss one made meanwhile.
	c.h.mu.Lock()
	defer c.h.mu.Unlock()
	if !c.scope.Load().PromoteRedirect(u.Seed, cu, hops) {
		return
	}
	if err := c.front.PutMeta(metaPromoted+cu, []byte(u.Seed+"\x00"+hops)); err != nil {
		c.log.Warn("save seed redirect", "url", cu, "err", err)
	}
	c.log.Info("seed redirect promoted to seed", "url", cu, "seed", u.Seed)
}

// restorePromotions re-applies the seed redirects seen by earlier runs.
func (c *crawler) restorePromotions() error {
	err := c.front.ScanMeta(metaPromoted, func(key string, v []byte) error {
		seed, hops, _ := strings.Cut(string(v), "\x00")
		c.scope.Load().PromoteRedirect(seed, strings.TrimPrefix(key, metaPromoted), hops)
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore seed redirects: %w", err)
	}
	return nil
}

// queueListed decides the URLs a listing document (or robots.txt, or the configuration)
// lists, found at from, and queues those in scope (listing.Deps.Queue).
func (c *crawler) queueListed(worker int, from frontier.URL, content chain.Content) error {
	return c.enqueue(worker, from, c.decide(from, content))
}

// canonicalSeeds are the crawl's seeds that canonicalise, in canonical form.
func (c *crawler) canonicalSeeds() []string {
	seeds := make([]string, 0, len(c.cfg.Scope.Seeds))
	for _, s := range c.cfg.Scope.Seeds {
		if u, err := scope.Canonicalize(s.URL, c.cfg.Scope.Flavour); err == nil {
			seeds = append(seeds, u)
		}
	}
	return seeds
}
