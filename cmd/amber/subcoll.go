package main

import (
	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/subcoll"
)

// overlaySubcollections sets the crawl's subcollections from cfg's, their header and proxy
// secrets read with lookupEnv.
func overlaySubcollections(c *crawl.Config, cfg *config.File, lookupEnv func(string) (string, bool)) error {
	subs, err := cfg.CheckSubcollections(lookupEnv)
	if err != nil {
		return err
	}
	c.Subcollections = nil
	for _, s := range subs {
		cs := subcoll.Subcollection{
			Name: s.Name, Match: s.MatchRules, Except: s.ExceptRules, Fetcher: s.Fetcher, Schemes: s.Schemes,
			MaxHops: s.MaxHops, Header: s.Header, Proxy: s.ProxyURL, MaxResponseSize: int64(s.ResponseSize),
			HostDelay: s.HostDelay, MaxURLs: s.URLsPerHost, SitemapsRobots: s.Sitemaps,
		}
		if s.Oversize != "" {
			drop := s.Oversize == "drop"
			cs.DropOversize = &drop
		}
		c.Subcollections = append(c.Subcollections, cs)
	}
	return nil
}
