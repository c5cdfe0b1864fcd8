package crawl

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/warc"
)

// decision is what scope said about one distinct outlink of a page.
type decision struct {
	url      frontier.URL
	decision scope.Decision
}

// decided is the outcome of scoping a page's outlinks.
type decided struct {
	in       []frontier.URL // distinct canonical URLs to queue
	out      []decision     // distinct canonical URLs left out (none of their variants was in)
	metadata []warc.Outlink // the outlinks of the URLs kept, for the metadata record
	dropped  int            // distinct canonical URLs left out by MaxOutlinks
}

// decide canonicalises and scopes the outlinks of a page, at most MaxOutlinks distinct
// canonical URLs of them (keep says which). A URL found with several hop letters on one page
// is queued if any of them is in scope (an image also linked with <a> is still an embed), and
// rejected only when none is.
func (c *crawler) decide(u frontier.URL, links []extract.Outlink) decided {
	var d decided
	canon := make([]string, len(links))
	for i, l := range links {
		if cu, err := scope.Canonicalize(l.URL, c.cfg.Scope.Flavour); err == nil {
			canon[i] = cu
		}
	}
	kept := keep(links, canon, c.cfg.MaxOutlinks)
	d.dropped = distinct(canon) - len(kept)
	type entry struct {
		in   bool
		best decision
	}
	order := []string{}
	byURL := map[string]*entry{}
	for i, l := range links {
		cu := canon[i]
		if cu == "" || !kept[cu] {
			continue
		}
		hops := u.Hops + string(l.Hop)
		d.metadata = append(d.metadata, warc.Outlink{URL: cu, Hop: string(l.Hop), Context: l.Context})
		if l.Hop == hop.Redirect {
			c.promote(u, cu, hops)
		}
		dec := c.scope.Load().Decide(scope.Candidate{URL: cu, Hops: hops, Via: u.URL, ViaHopsOff: u.HopsOff, Seed: u.Seed})
		cand := decision{
			url:      frontier.URL{URL: cu, Host: hostKey(cu), Hops: hops, Via: u.URL, Seed: u.Seed, HopsOff: dec.HopsOff},
			decision: dec,
		}
		e, ok := byURL[cu]
		if !ok {
			byURL[cu] = &entry{in: dec.In, best: cand}
			order = append(order, cu)
			continue
		}
		if dec.In && !e.in {
			e.in, e.best = true, cand
		}
	}
	for _, cu := range order {
		e := byURL[cu]
		if e.in {
			d.in = append(d.in, e.best.url)
		} else {
			d.out = append(d.out, e.best)
		}
	}
	return d
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
func (d decided) annotate(k capture, extracted int) capture {
	k.outlinks = append(d.metadata, k.outlinks...)
	if n := d.dropped + extracted; n > 0 {
		k.fields = append(k.fields, warc.Field{Name: "outlinksDropped", Value: strconv.Itoa(n)})
		// The annotations may share their array with the fetch's other captures.
		k.annotations = append(slices.Clip(k.annotations), "outlinks-capped:"+strconv.Itoa(n))
	}
	return k
}

// enqueue adds the in-scope outlinks to the frontier and records each newly rejected URL once.
// An outlink the frontier cannot store is that URL's failure (crawl.log status.InvalidURL,
// annotation frontier:not-stored), not the crawl's.
func (c *crawler) enqueue(worker int, u frontier.URL, d decided) error {
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

// reject records a URL the page pointed at and scope (or a block rule) kept out: in the
// frontier, so it is reported and never queued later, and, the first time, in crawl.log and
// events. Outlinks and the sub-requests a browser was refused go through here alike.
func (c *crawler) reject(worker int, page frontier.URL, o decision) error {
	first, err := c.front.Reject(o.url, o.decision.Reason)
	switch {
	case errors.Is(err, frontier.ErrURL):
		// Too big to remember: logged each time a page points at it, never fatal.
		first = true
	case err != nil:
		return c.frontierErr(err)
	}
	if !first {
		return nil
	}
	code := status.OutOfScope
	if o.decision.Reason == scope.ReasonMaxHops || o.decision.Reason == scope.ReasonMaxDepth {
		code = status.TooManyHops
	}
	if err := c.logLine(report.Line{Status: code, Size: -1, URL: o.url.URL, Hops: o.url.Hops, Via: page.URL,
		Thread: worker, Seed: page.Seed, Annotations: []string{"scope:" + o.decision.Reason}}); err != nil {
		return err
	}
	info := report.URLInfo{URL: o.url.URL, Hops: o.url.Hops, Via: page.URL, Seed: page.Seed}
	if err := c.events.URLDiscoverDenied(info, report.DenyOutOfScope, o.decision.Reason); err != nil {
		return fmt.Errorf("write discover event: %w", err)
	}
	return nil
}

// promote widens a seed's scope to the target of its own redirect chain (spec/scope.md §3.2)
// and keeps the promotion for later runs.
func (c *crawler) promote(u frontier.URL, target, hops string) {
	if !hop.IsRedirectChain(u.Hops) {
		return
	}
	cu, err := scope.Canonicalize(target, c.cfg.Scope.Flavour)
	if err != nil || cu == u.URL {
		return
	}
	// Under control's lock: a scope that control swaps in replays the promotions saved, and
	// must not miss one made meanwhile.
	c.ctl.mu.Lock()
	defer c.ctl.mu.Unlock()
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
