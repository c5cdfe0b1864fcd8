package main

import (
	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// applySharedFlags puts --frontier, --crawl-id and --process into the config's frontier key.
func applySharedFlags(cfg *config.File, a crawlArgs) {
	f, set := a.flags, a.set
	if set["frontier"] {
		cfg.Frontier.Redis = f.frontier
	}
	if set["crawl-id"] {
		cfg.Frontier.CrawlID = f.crawlID
	}
	if set["process"] {
		cfg.Frontier.Process = f.process
	}
}

// overlayShared sets the crawl's shared frontier from the config's frontier key.
func overlayShared(c *crawl.Config, cfg *config.File, lookupEnv func(string) (string, bool)) error {
	server, err := cfg.Frontier.Server(lookupEnv)
	if err != nil || server == "" {
		return err
	}
	c.Shared = crawl.SharedFrontier{URL: server, CrawlID: cfg.Frontier.CrawlID, Process: cfg.Frontier.Process, Lease: cfg.Frontier.Lease}
	return nil
}
