package main

import (
	"fmt"
	"path/filepath"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// overlayPriors sets the earlier crawls the crawl builds on: the YAML's dedup_from and
// recrawl_of, replaced by --dedup-from and --recrawl-of when given. Paths are made absolute, so
// that crawl.yaml names the same crawls whatever directory a resumed crawl is started from.
func overlayPriors(c *crawl.Config, cfg *config.File, a crawlArgs) error {
	c.DedupFrom, c.RecrawlOf = cfg.DedupFrom, cfg.RecrawlOf
	if a.set["dedup-from"] {
		c.DedupFrom = a.flags.dedupFrom
	}
	if a.set["recrawl-of"] {
		c.RecrawlOf = a.flags.recrawlOf
	}
	abs := make([]string, 0, len(c.DedupFrom))
	for _, p := range c.DedupFrom {
		ap, err := absPath(p, "--dedup-from")
		if err != nil {
			return err
		}
		abs = append(abs, ap)
	}
	c.DedupFrom = abs
	if c.RecrawlOf != "" {
		ap, err := absPath(c.RecrawlOf, "--recrawl-of")
		if err != nil {
			return err
		}
		c.RecrawlOf = ap
	}
	return nil
}

func absPath(p, flag string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%s: empty path", flag)
	}
	ap, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", flag, p, err)
	}
	return ap, nil
}
