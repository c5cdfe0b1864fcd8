package crawl

import (
	"time"

	"github.com/amber-crawler/amber/fetch"
)

// setSubDelay makes d host's delay unless an operator gave the host one (HostDelays, amber
// ctl host-delay).
func (c *crawler) setSubDelay(host string, d time.Duration) {
	if c.h == nil {
		c.front.SetHostDelayOverride(host, d)
		return
	}
	c.h.mu.Lock()
	defer c.h.mu.Unlock()
	if _, set := c.h.hostDelays[host]; !set {
		c.front.SetHostDelayOverride(host, d)
	}
}

// hostClient is the client of host's requests that are not a URL's own (its robots.txt): the
// client of the subcollection host is bound to, or the crawl's.
func (c *crawler) hostClient(host string) *fetch.Client { return c.subs.HostClient(host, c.client) }

// sitemapsFromRobots reports whether the Sitemap: lines of host's robots.txt are read.
func (c *crawler) sitemapsFromRobots(host string) bool {
	return c.subs.SitemapsRobots(host, c.cfg.Sitemaps.Robots)
}
