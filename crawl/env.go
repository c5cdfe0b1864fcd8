package crawl

import (
	"github.com/amber-crawler/amber/chain"
)

// env is what the crawl's processors may use of it (chain.Env): its log and events, crawl.log,
// the frontier's politeness and metadata, and the archiving of their own exchanges.
func (c *crawler) env() chain.Env {
	return chain.Env{Log: c.log, Events: c.events, Lines: c.rec, Front: c.front, Archive: c.rec}
}
