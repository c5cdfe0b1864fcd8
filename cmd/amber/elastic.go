package main

import (
	"fmt"
	"io"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/seeds"
)

// This file holds what the Elastic crawler's model added to `amber crawl` (issue 12): the
// flags for domains, crawl rules, depth and sitemaps, the sitemap and extraction-rule parts of
// the YAML model, and reading an Elastic Open Crawler file given to --config.

// applyDomainFlags puts --domain, --crawl-rule, --max-crawl-depth and --sitemap into cfg.
// --crawl-rule adds a rule after the existing ones of every domain; without any domain it
// makes the seeds' origins domains first (as the elastic flavour does for a crawl without
// domains), so that the rule has somewhere to go.
func applyDomainFlags(cfg *config.File, a crawlArgs) error {
	f := a.flags
	for _, d := range f.domains {
		o, err := config.Origin(d)
		if err != nil {
			return fmt.Errorf("--domain: %w", err)
		}
		cfg.Scope.Domains = append(cfg.Scope.Domains, config.DomainSpec{URL: o})
	}
	if len(f.crawlRules) > 0 && len(cfg.Scope.Domains) == 0 {
		origins, err := cfg.SeedOrigins()
		if err != nil {
			return err
		}
		for _, o := range origins {
			cfg.Scope.Domains = append(cfg.Scope.Domains, config.DomainSpec{URL: o})
		}
	}
	for _, r := range f.crawlRules {
		spec, err := config.ParseCrawlRule(r)
		if err != nil {
			return fmt.Errorf("--crawl-rule: %w", err)
		}
		for i := range cfg.Scope.Domains {
			cfg.Scope.Domains[i].CrawlRules = append(cfg.Scope.Domains[i].CrawlRules, spec)
		}
	}
	if a.set["max-crawl-depth"] {
		if f.maxCrawlDepth < 1 {
			return fmt.Errorf("--max-crawl-depth %d: must be at least 1 (seeds have depth 1)", f.maxCrawlDepth)
		}
		n := f.maxCrawlDepth
		cfg.Scope.MaxCrawlDepth = &n
	}
	for _, u := range f.sitemaps {
		if err := seeds.CheckURL(u); err != nil {
			return fmt.Errorf("--sitemap: %w", err)
		}
		cfg.Sitemaps.URLs = append(cfg.Sitemaps.URLs, u)
	}
	if a.set["sitemaps-robots"] {
		on := f.sitemapsRobots
		cfg.Sitemaps.Robots = &on
	}
	return nil
}

// printConversion tells the user that --config was converted from another crawler's
// format (Elastic Open Crawler, FAST), and what amber does differently for it.
func printConversion(w io.Writer, path string, cv *config.Converted) {
	if cv == nil {
		return
	}
	fmt.Fprintf(w, "amber: %s is another crawler's config; crawling it as converted to amber's (see 'amber config convert %s')\n", path, path)
	for _, n := range cv.Notes {
		fmt.Fprintf(w, "amber: note: %s\n", n)
	}
}
