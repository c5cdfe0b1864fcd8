package main

import (
	"fmt"
	"os"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/config/elastic"
	"github.com/amber-crawler/amber/config/fast"
)

// loadAnyConfig reads a --config file of any kind amber takes: a FAST crawler configuration
// (fast.IsFAST: root element CrawlerConfig), read once, converted with its DomainSpecification
// fastDomain ("" when it has one), strictly or not; otherwise amber's YAML or an Elastic Open
// Crawler file (elastic.Load). A converted file also returns its conversion, whose notes say
// what amber does differently.
func loadAnyConfig(path, fastDomain string, strict bool) (*config.File, *config.Converted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	if fast.IsFAST(data) {
		_, cv, err := fast.ConvertFile(data, path, fastDomain, strict)
		if err != nil {
			return nil, nil, err
		}
		return cv.File, cv, nil
	}
	if fastDomain != "" || strict {
		return nil, nil, fmt.Errorf("--fast-domain and --strict are for FAST crawler configurations; %s is not one (no CrawlerConfig root element)", path)
	}
	return elastic.LoadData(data, path)
}
