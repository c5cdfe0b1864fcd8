package main

import (
	"github.com/amber-crawler/amber/config"
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
