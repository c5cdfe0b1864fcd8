package crawl

import (
	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/content"
	"github.com/amber-crawler/amber/contentfilter"
	"github.com/amber-crawler/amber/patch"
	"github.com/amber-crawler/amber/post"
	"github.com/amber-crawler/amber/retry"
	"github.com/amber-crawler/amber/robots"
)

// processors is the chain every claimed URL goes through, in order: the order of the README's
// "What amber does". A processor the crawl does not need (no subcollections, robots.txt
// ignored, no logins) is left out; each one's hooks run where it stands.
func (c *crawler) processors() []chain.Processor {
	cfg := &c.cfg
	var ps []chain.Processor
	add := func(on bool, p chain.Processor) {
		if on {
			ps = append(ps, p)
		}
	}
	later := retry.Later{Policy: cfg.retryPolicy(), Backoff: c.backoff, HostBackoff: c.front.HostBackoff}
	add(true, blockRefuser{c.h})                                                 // block rules added while the crawl runs (ctl block)
	add(!cfg.Platforms.Off, c.platforms)                                         // platform rules of hosts recognised since the URL was queued
	add(c.subs != nil, c.subs)                                                   // the URL's subcollection: its settings
	add(true, c.sites)                                                           // per-site limits: given-up hosts, URLs per host
	add(!cfg.IgnoreRobots, c.robots)                                             // robots.txt
	add(len(cfg.PostPayloads) > 0, post.Payloads(cfg.PostPayloads))              // a POST body for the URL
	add(c.recrawl != nil, c.recrawl)                                             // a conditional request; a 304 a revisit, its content read back
	add(true, c.addrs)                                                           // around the fetch: the address's turn, the ip rules
	add(c.logins != nil, c.logins)                                               // around the fetch: a form login first
	add(true, later)                                                             // a response to try again later
	add(len(cfg.URLs.Rewrite) > 0, rewrites{c.links})                            // the URL as found, when a rule rewrote it
	add(true, c.listings)                                                        // a sitemap file or a feed: the URLs it lists
	add(true, contentfilter.New(cfg.Content, c.events))                          // a type left out: its body not fetched; a page dropped or excluded: not read
	add(true, c.reader)                                                          // the content read: links, search document
	add(true, content.NewNovelty())                                              // how much of the page's text is new
	add(!cfg.Platforms.Off, c.platforms.Recognizer())                            // the platform of the page's host
	add(len(cfg.Content.LinkTypes) > 0, contentfilter.NewLinkTypes(cfg.Content)) // link types
	add(!cfg.IgnoreRobots, robots.NewMeta(cfg.Robots))                           // robots meta and rel=nofollow
	add(true, c.listings.Pages())                                                // a page's feeds; a feed item's links
	add(c.patch, patch.Links{})                                                  // a patch crawl: redirects only
	return ps
}

// hooks are the crawl's processors sorted by hook, each list in chain order.
type hooks struct {
	before    []chain.Before
	after     []chain.After
	failers   []chain.Failer
	admitters []chain.Admitter
	recorded  []chain.Recorded
	releasers []chain.Releaser
	fetch     chain.Fetch // the fetch, wrapped by the FetchWrappers in chain order
}

// newHooks sorts ps by hook; fetch is the fetch the wrappers wrap.
func newHooks(ps []chain.Processor, fetch chain.Fetch) hooks {
	h := hooks{fetch: fetch}
	var wrappers []chain.FetchWrapper
	for _, p := range ps {
		if b, ok := p.(chain.Before); ok {
			h.before = append(h.before, b)
		}
		if w, ok := p.(chain.FetchWrapper); ok {
			wrappers = append(wrappers, w)
		}
		if a, ok := p.(chain.After); ok {
			h.after = append(h.after, a)
		}
		if a, ok := p.(chain.Admitter); ok {
			h.admitters = append(h.admitters, a)
		}
		if f, ok := p.(chain.Failer); ok {
			h.failers = append(h.failers, f)
		}
		if r, ok := p.(chain.Recorded); ok {
			h.recorded = append(h.recorded, r)
		}
		if r, ok := p.(chain.Releaser); ok {
			h.releasers = append(h.releasers, r)
		}
	}
	// The first wrapper is the outermost: it runs before and after all the others.
	for i := len(wrappers) - 1; i >= 0; i-- {
		h.fetch = wrappers[i].Wrap(h.fetch)
	}
	return h
}
