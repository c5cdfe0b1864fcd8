package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/amber-crawler/amber/addrgate"
	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/listing"
	"github.com/amber-crawler/amber/platform"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/rewrite"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/subcoll"
	"github.com/amber-crawler/amber/warc"
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

// metaRewritten + canonical URL holds the URL as found that URLConfig.Rewrite rewrote into it:
// the first one, written before the rewritten URL is queued (a worker may claim and capture
// it at once) and read when it is captured.
const metaRewritten = "crawl/rewritten/"

// outlinks decides what a fetched URL points at (a page's links, a listing document's URLs)
// and queues the URLs in scope: each URL rewritten and canonicalised, at most MaxOutlinks of a
// page's, decided by the scope now (and a subcollection's schemes and hops, the redirect
// limit), a seed's redirect promoted, the URLs in scope added to the frontier and the others
// recorded with their reason.
type outlinks struct {
	urls    URLConfig
	flavour scope.Flavour // the scope's, for URLConfig.Fetched
	max     int           // Config.MaxOutlinks
	scope   *liveScope
	addrs   *addrgate.Gate
	// platforms leaves out the links of a recognised platform's no-content families.
	platforms *platform.Guard
	subs      *subcoll.Set
	listings  *listing.Listings
	events    *report.Events
	log       *slog.Logger
	// front is the crawl's frontier as its observers watch it (Handle.Watch).
	front func() frontier.Store
	// logLine writes a crawl.log line; refuse records a URL left out (crawler.refuse);
	// frontierErr sorts a frontier's error (crawler.frontierErr).
	logLine     func(report.Line) error
	refuse      func(worker int, page, u frontier.URL, o chain.Outcome) error
	frontierErr func(error) error
	// patch: the run is a patch crawl, whose listings queue nothing (patch.Links).
	patch bool
}

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

// Fetched returns the URL the crawl takes for an absolute URL raw found on a page, in a
// sitemap or a feed, in the scope's flavour f: rewritten (Rewrite), canonicalised
// (scope.Canonicalize), its query sorted (SortQuery). That URL is the one scope decides and
// the crawl queues, fetches and archives. from is raw when a rewrite rule changed the URL
// taken, else "". The error is the canonicalisation's: the crawl takes nothing for raw.
func (u URLConfig) Fetched(raw string, f scope.Flavour) (cu, from string, err error) {
	form := canonicalForm{flavour: f, sortQuery: u.SortQuery}
	target := raw
	if len(u.Rewrite) > 0 {
		target, _ = u.Rewrite.Apply(raw)
	}
	if cu, err = form.canonicalize(target); err != nil {
		return "", "", err
	}
	if target != raw {
		if orig, err := form.canonicalize(raw); err != nil || orig != cu {
			from = raw
		}
	}
	return cu, from, nil
}

// canonical returns the URL the crawl takes for an absolute URL found (URLConfig.Fetched);
// "" when it does not canonicalise.
func (o *outlinks) canonical(raw string) (cu, from string) {
	cu, from, err := o.urls.Fetched(raw, o.flavour)
	if err != nil {
		return "", ""
	}
	return cu, from
}

// tooManyRedirects reports whether a redirect target with hop path hops ends a chain of more
// redirects than URLConfig.MaxRedirects.
func (o *outlinks) tooManyRedirects(hops string) bool {
	n := o.urls.MaxRedirects
	return n > 0 && len(hops)-len(strings.TrimRight(hops, string(hop.Redirect))) > n
}

// rewrittenFrom returns the metadata field and the crawl.log annotation that record the URL
// as found of a rewritten URL u (URLConfig.Rewrite), nothing for another.
func (o *outlinks) rewrittenFrom(u string) ([]warc.Field, []string, error) {
	if len(o.urls.Rewrite) == 0 {
		return nil, nil, nil
	}
	v, ok, err := o.front().Meta(metaRewritten + u)
	if err != nil || !ok {
		return nil, nil, o.frontierErr(err)
	}
	return []warc.Field{{Name: "rewrittenFrom", Value: string(v)}}, []string{rewrittenNote(string(v))}, nil
}

// rewrites is the chain's step that marks the capture of a URL that a rewrite rule made
// (URLConfig.Rewrite) with the URL as found: its rewrittenFrom metadata field and crawl.log
// annotation.
type rewrites struct{ links *outlinks }

func (rewrites) Name() string { return "urls.rewrite_rules" }

// After marks the capture of the claimed URL when it is a rewritten one.
func (p rewrites) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	fields, ann, err := p.links.rewrittenFrom(r.URL().URL)
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
func (o *outlinks) decide(u frontier.URL, content chain.Content) decided {
	var d decided
	links := content.Links
	sc := decideScratches.Get().(*decideScratch)
	defer sc.release()
	canon, from := sc.strings(len(links))
	for i, l := range links {
		canon[i], from[i] = o.canonical(l.URL)
	}
	max := o.max
	if content.Listed {
		max = len(links)
	}
	keepInto(sc.kept, links, canon, max)
	d.dropped = distinctIn(sc.distinct, canon) - len(sc.kept)
	// One entry per distinct kept URL, in the order first found, sized for the page at once:
	// growing these (and d's lists) link by link was a tenth of a crawl's allocation. The
	// entries, the index of them and the maps above are the scratch of one call, reused.
	entries := slices.Grow(sc.entries[:0], len(sc.kept))
	at := sc.at
	d.metadata = make([]warc.Outlink, 0, len(links))
	for i, l := range links {
		cu := canon[i]
		if cu == "" || !sc.kept[cu] {
			continue
		}
		cand := o.decideOne(u, l, cu, content)
		cand.from = from[i]
		d.metadata = append(d.metadata, warc.Outlink{URL: cu, Hop: string(l.Hop), Context: l.Context})
		k, ok := at[cu]
		if !ok {
			k = len(entries)
			at[cu] = k
			entries = append(entries, outlinkEntry{cu: cu, in: cand.decision.In, best: cand})
		} else if cand.decision.In && !entries[k].in {
			entries[k].in, entries[k].best = true, cand
		}
		if content.Feeds || l.Feed {
			entries[k].feed = true
		}
	}
	sc.entries = entries
	d.in = make([]frontier.URL, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		if !e.in {
			d.out = append(d.out, e.best)
			continue
		}
		if e.feed || content.Files {
			e.best.url.Sitemap, e.best.url.Priority = true, -1
		}
		if e.feed {
			d.feeds = append(d.feeds, e.cu)
		}
		d.addIn(e.best)
	}
	return d
}

// outlinkEntry is decide's record of one distinct kept URL of a page.
type outlinkEntry struct {
	cu   string
	in   bool
	feed bool // found as a feed (auto-discovery)
	best decision
}

// decideScratch is what decide needs only while it runs, kept from one page to the next.
type decideScratch struct {
	canon, from []string
	kept        map[string]bool
	distinct    map[string]struct{}
	at          map[string]int
	entries     []outlinkEntry
}

var decideScratches = sync.Pool{New: func() any {
	return &decideScratch{kept: map[string]bool{}, distinct: map[string]struct{}{}, at: map[string]int{}}
}}

// maxScratchLinks bounds the links of a page whose scratch is kept for reuse.
const maxScratchLinks = 4096

// strings returns canon and from slices of n empty strings.
func (sc *decideScratch) strings(n int) (canon, from []string) {
	sc.canon = slices.Grow(sc.canon[:0], n)[:n]
	sc.from = slices.Grow(sc.from[:0], n)[:n]
	return sc.canon, sc.from
}

// release empties sc (it holds nothing of the page after) and gives it back for reuse.
func (sc *decideScratch) release() {
	if cap(sc.canon) > maxScratchLinks {
		return
	}
	clear(sc.canon[:cap(sc.canon)])
	clear(sc.from[:cap(sc.from)])
	clear(sc.entries[:cap(sc.entries)])
	clear(sc.kept)
	clear(sc.distinct)
	clear(sc.at)
	decideScratches.Put(sc)
}

// decideOne decides the link l (canonical URL cu) of u: scope, the subcollection of the link,
// the redirect limit; a redirect of a seed's chain widens the seed's scope first.
func (o *outlinks) decideOne(u frontier.URL, l extract.Outlink, cu string, content chain.Content) decision {
	hops := u.Hops + string(l.Hop)
	if l.Hop == hop.Redirect {
		o.scope.promote(u, cu, hops)
	}
	dec := o.scope.load().Decide(scope.Candidate{URL: cu, Hops: hops, Via: u.URL, ViaHopsOff: u.HopsOff, Seed: u.Seed, Addr: o.addrs.Addr(cu)})
	dec = o.subs.Decide(cu, hops, dec) // Config.Subcollections: its schemes and hops
	if dec.In {
		if reason, out := o.platforms.Decide(cu, hops); out {
			dec = scope.Decision{Reason: reason}
		}
	}
	if l.Hop == hop.Redirect && o.tooManyRedirects(hops) {
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
// aside for feed items: not in scope, out of the domains, a block rule, a crawl rule, a
// platform rule.
func ruleReason(reason string) bool {
	return reason == scope.ReasonOutOfScope || reason == scope.ReasonOutOfDomain ||
		strings.HasPrefix(reason, scope.ReasonBlockPrefix) || strings.HasPrefix(reason, scope.ReasonCrawlRulePrefix) ||
		strings.HasPrefix(reason, platform.ReasonPrefix)
}

// keepInto puts in the empty map kept the distinct canonical URLs (canon[i] of links[i]; ""
// for none) a page keeps under a cap of max: all of them when they are no more than max; else
// first those found with a hop other than hop.Link (embeds, redirects, the inferred favicon:
// what the page needs to replay, and what makes a redirect a redirect), then links, each in
// document order.
func keepInto(kept map[string]bool, links []extract.Outlink, canon []string, max int) {
	for pass := range 2 {
		for i, l := range links {
			cu := canon[i]
			if cu == "" || kept[cu] || (pass == 0 && l.Hop == hop.Link) {
				continue
			}
			if len(kept) == max {
				return
			}
			kept[cu] = true
		}
	}
}

// distinctIn returns the number of distinct non-empty strings in s, counted in the empty
// map seen.
func distinctIn(seen map[string]struct{}, s []string) int {
	for _, v := range s {
		if v != "" {
			seen[v] = struct{}{}
		}
	}
	return len(seen)
}

// annotate returns the capture of the page with the outlinks it keeps listed first in its
// metadata record and, when the cap left some out (extracted: those extraction already left
// out, see content.Reader), their number in the metadata record (outlinksDropped) and
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
func (o *outlinks) enqueue(worker int, u frontier.URL, d decided) error {
	for _, f := range d.feeds {
		if err := o.listings.MarkFeed(f); err != nil {
			return err
		}
	}
	front := o.front()
	for u, from := range d.rewritten {
		_, known, err := front.Meta(metaRewritten + u)
		if err == nil && !known {
			err = front.PutMeta(metaRewritten+u, []byte(from))
		}
		if err != nil {
			return o.frontierErr(err)
		}
	}
	if len(d.in) > 0 {
		added, err := front.AddBatch(d.in)
		if err != nil {
			return o.frontierErr(err)
		}
		var discovered []report.URLInfo
		for i, r := range added {
			n := d.in[i]
			if r.Err != nil {
				if !errors.Is(r.Err, frontier.ErrURL) {
					return o.frontierErr(r.Err)
				}
				o.log.Debug("outlink not stored", "url", n.URL, "err", r.Err)
				if err := o.logLine(report.Line{Status: status.InvalidURL, Size: -1, URL: n.URL, Hops: n.Hops,
					Via: u.URL, Thread: worker, Seed: u.Seed, Annotations: []string{"frontier:not-stored"}}); err != nil {
					return err
				}
				continue
			}
			if r.New {
				discovered = append(discovered, report.URLInfo{URL: n.URL, Hops: n.Hops, Via: n.Via, Seed: n.Seed})
			}
		}
		if err := o.events.URLsDiscovered(discovered); err != nil {
			return fmt.Errorf("write discover events: %w", err)
		}
	}
	for _, x := range d.out {
		if err := o.reject(worker, u, x); err != nil {
			return err
		}
	}
	return nil
}

// reject records a URL the page pointed at that scope (or a rule of the crawl's) kept out
// (refuse).
func (o *outlinks) reject(worker int, page frontier.URL, x decision) error {
	return o.refuse(worker, page, x.url, scopeOutcome(x.decision.Reason, x.from))
}

// queueListed decides the URLs a listing document (or robots.txt, or the configuration)
// lists, found at from, and queues those in scope (listing.Deps.Queue).
func (o *outlinks) queueListed(worker int, from frontier.URL, content chain.Content) error {
	if o.patch {
		return nil
	}
	return o.enqueue(worker, from, o.decide(from, content))
}

// canonicalSeeds are the crawl's seeds that canonicalise, in canonical form.
func (c Config) canonicalSeeds() []string {
	seeds := make([]string, 0, len(c.Scope.Seeds))
	for _, s := range c.Scope.Seeds {
		if u, err := scope.Canonicalize(s.URL, c.Scope.Flavour); err == nil {
			seeds = append(seeds, u)
		}
	}
	return seeds
}
