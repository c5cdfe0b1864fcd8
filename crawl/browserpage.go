package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/warc"
)

// Fetchers (Config.Fetcher).
const (
	FetcherHTTP    = "http"
	FetcherBrowser = "browser"
)

// pageLike reports whether a URL is loaded as a page by the browser fetcher: seeds and URLs
// reached by a link, a redirect, a sitemap or a speculative hop. Embeds that reach the queue
// (favicons, robots) are fetched plainly.
func pageLike(hops string) bool {
	if hops == "" {
		return true
	}
	switch hops[len(hops)-1] {
	case 'L', 'R', 'M', 'X':
		return true
	}
	return false
}

// newBrowser starts the browser fetcher. Requests for resources that a block rule matches are
// refused: they are decided as embeds of the crawl's first seed (block rules bind embeds).
func (c *crawler) newBrowser(ctx context.Context) (*browser.Fetcher, error) {
	bc := c.cfg.Browser
	bc.Client = c.client
	bc.Logger = c.log
	if bc.UserAgent == "" {
		bc.UserAgent = c.cfg.Fetch.UserAgent
	}
	flavour := c.cfg.Scope.Flavour
	bc.Block = func(raw string) bool {
		u, err := scope.Canonicalize(raw, flavour)
		if err != nil {
			return false
		}
		d := c.scope.Decide(scope.Candidate{URL: u, Hops: "E"})
		return !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix)
	}
	f, err := browser.New(ctx, bc)
	if err != nil {
		return nil, fmt.Errorf("crawl: %w", err)
	}
	return f, nil
}

// processPage loads a page in the browser and records everything it fetched: each exchange
// (the page, its redirects, every subresource) as a capture with its own crawl.log line, the
// screenshot as a resource record, the page's links as outlinks and its rendered DOM as the
// search document.
func (c *crawler) processPage(ctx context.Context, worker int, cl *frontier.Claim) error {
	u := cl.URL
	var header http.Header
	if u.Via != "" {
		header = http.Header{"Referer": {u.Via}}
	}
	pg, err := c.browser.Fetch(ctx, u.URL, header)
	if err != nil {
		c.unreserve()
		if ctx.Err() != nil {
			return nil
		}
		var fe *fetch.Error
		if !errors.As(err, &fe) {
			// The browser failed twice on this page: record it as a broken connection so
			// it is retried later and reported if it keeps failing.
			err = &fetch.Error{Kind: fetch.Broken, URL: u.URL, Err: err}
		}
		return c.fetchFailed(worker, cl, err)
	}
	defer pg.Close()
	main := pg.Exchanges[0]
	if retryStatus(main.StatusCode) && u.Attempts+1 < c.cfg.MaxAttempts {
		c.unreserve()
		_, err := c.front.Retry(cl, time.Now().Add(c.backoff(u.Attempts)))
		return c.frontierErr(err)
	}

	// The seed's own redirects (followed inside the browser) widen its scope (§3.2).
	if u.Hops == "" && pg.FinalURL != "" {
		if final, err := scope.Canonicalize(pg.FinalURL, c.cfg.Scope.Flavour); err == nil && final != u.URL {
			if c.scope.PromoteRedirect(u.Seed, final, "R") {
				c.savePromotion(u.Seed, final, "R")
			}
		}
	}
	links := make([]extract.Outlink, 0, len(pg.Outlinks))
	for _, l := range pg.Outlinks {
		links = append(links, extract.Outlink{URL: l.URL, Hop: 'L', Context: l.Context})
	}
	decided := c.decide(u, links)
	for _, ex := range pg.Exchanges[1:] {
		decided.metadata = append(decided.metadata, warc.Outlink{URL: ex.URL, Hop: "E", Context: "browser"})
	}

	var mainRes warc.Result
	chain, chainHops := true, u.Hops // the page's own redirect chain, followed by the browser
	for i, ex := range pg.Exchanges {
		k := capture{hops: u.Hops, via: u.Via, seed: u.Seed, annotations: []string{"browser"}, countURL: true}
		if i == 0 {
			k.outlinks = decided.metadata
			if pg.TimedOut {
				k.fields = []warc.Field{{Name: "pageTimedOut", Value: "true"}}
				k.annotations = append(k.annotations, "page-timeout")
			}
		} else {
			prev := pg.Exchanges[i-1]
			loc, ok := resolve(prev.URL, prev.Header.Get("Location"))
			if chain && prev.StatusCode >= 300 && prev.StatusCode < 400 && ok && loc == ex.URL {
				chainHops += "R"
				k.hops, k.via = chainHops, prev.URL
			} else {
				chain = false
				k.hops, k.via = u.Hops+"E", u.URL
			}
		}
		res, err := c.record(worker, ex, k)
		if err != nil {
			return err
		}
		if i == 0 {
			mainRes = res
		}
	}
	if len(pg.Screenshot) > 0 {
		if _, err := c.warc.WriteResource("urn:screenshot:"+u.URL, "image/png", main.Started, pg.Screenshot, mainRes.RecordID); err != nil {
			return fmt.Errorf("crawl: write screenshot: %w", err)
		}
	}
	if err := c.pageSideEffects(worker, u, pg); err != nil {
		return err
	}
	if main.StatusCode >= 200 && main.StatusCode < 300 && pg.HTML != "" && !c.cfg.NoDocuments &&
		strings.Contains(mediaType(main.Header.Get("Content-Type")), "html") {
		res, err := extract.ParseDocument(u.URL, "text/html; charset=utf-8", []byte(pg.HTML), c.cfg.Documents)
		if err == nil {
			p := page{doc: res.Document, noIndex: res.NoIndex, noFollow: res.NoFollow}
			if err := c.writeDocument(u, p, main, mainRes); err != nil {
				return err
			}
		}
	}
	if err := c.enqueue(worker, u, decided); err != nil {
		return err
	}
	return c.frontierErr(c.front.Done(cl))
}

// pageSideEffects records the requests of a page that were blocked by a rule or got no
// response, so nothing the browser wanted is invisible.
func (c *crawler) pageSideEffects(worker int, u frontier.URL, pg *browser.Page) error {
	for _, b := range pg.Blocked {
		if err := c.logLine(report.Line{Status: report.StatusOutOfScope, Size: -1, URL: b, Hops: u.Hops + "E", Via: u.URL,
			Thread: worker, Seed: u.Seed, Annotations: []string{"scope:block", "browser"}}); err != nil {
			return err
		}
		info := report.URLInfo{URL: b, Hops: u.Hops + "E", Via: u.URL, Seed: u.Seed}
		if err := c.events.URLDiscoverDenied(info, report.DenyOutOfScope, "block"); err != nil {
			return fmt.Errorf("crawl: %w", err)
		}
	}
	for _, f := range pg.Failed {
		status := report.StatusConnectFailed
		var fe *fetch.Error
		if errors.As(f.Err, &fe) {
			status = fe.Status()
		}
		if err := c.logLine(report.Line{Status: status, Size: -1, URL: f.URL, Hops: u.Hops + "E", Via: u.URL,
			Thread: worker, Seed: u.Seed, Annotations: []string{"browser", "err:" + errorWord(f.Err)}}); err != nil {
			return err
		}
	}
	return nil
}
