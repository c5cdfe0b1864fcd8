package crawl

import (
	"context"
	"fmt"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/chain"
)

// Fetchers (Config.Fetcher).
const (
	FetcherHTTP    = chain.FetcherHTTP
	FetcherBrowser = chain.FetcherBrowser
)

// newBrowser starts the browser fetcher. The requests of a page are decided per page
// (fetch.Request.Admit: subrequests.go). The browser shares the crawl's cookie jar
// (Config.Fetch.Jar) with the plain fetcher.
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
	f, err := browser.New(ctx, bc)
	if err != nil {
		return nil, fmt.Errorf("start browser: %w", err)
	}
	return f, nil
}
