package crawl

import (
	"context"
	"fmt"
	"strings"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/scope"
)

// Fetchers (Config.Fetcher).
const (
	FetcherHTTP    = chain.FetcherHTTP
	FetcherBrowser = chain.FetcherBrowser
)

// newBrowser starts the browser fetcher. A request of a page that a block rule matches is
// refused with the rule's reason: it is decided as an embed of the crawl's first seed (block
// rules bind embeds), and recorded as a refused outlink would be. The browser shares the
// crawl's cookie jar (Config.Fetch.Jar) with the plain fetcher.
func (c *crawler) newBrowser(ctx context.Context) (*browser.Fetcher, error) {
	bc := c.cfg.Browser
	bc.Client = c.client
	bc.Logger = c.log
	if bc.Jar == nil {
		bc.Jar = c.cfg.Fetch.Jar
	}
	if bc.UserAgent == "" {
		bc.UserAgent = c.cfg.Fetch.UserAgent
	}
	bc.Block = func(raw string) string {
		u, err := scope.Canonicalize(raw, c.cfg.Scope.Flavour)
		if err != nil {
			return ""
		}
		d := c.scope.Load().Decide(scope.Candidate{URL: u, Hops: string(hop.Embed)})
		if !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix) {
			return d.Reason
		}
		return c.subs.Blocked(u) // the schemes of its subcollection
	}
	f, err := browser.New(ctx, bc)
	if err != nil {
		return nil, fmt.Errorf("start browser: %w", err)
	}
	return f, nil
}
