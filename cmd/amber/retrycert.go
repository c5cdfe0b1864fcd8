package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/retry"
)

// overlayRetriesAndCert sets politeness.retries and network.client_cert/client_key, then
// the flags --retry COND=N (each replacing the config's count of that condition) and
// --client-cert, --client-key. The files are made absolute, so that crawl.yaml names them
// wherever it is read from.
func overlayRetriesAndCert(c *crawl.Config, cfg *config.File, a crawlArgs) error {
	c.Retries = maps.Clone(cfg.Politeness.Retries)
	for _, r := range a.flags.retries {
		cond, num, ok := strings.Cut(r, "=")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if !ok || err != nil || n < 0 {
			return fmt.Errorf("--retry %q: want CONDITION=N (e.g. 5xx=3, net=1), N a count from 0", r)
		}
		canon, err := retry.ParseCondition(cond)
		if err != nil {
			return fmt.Errorf("--retry: %w", err)
		}
		if c.Retries == nil {
			c.Retries = map[string]int{}
		}
		c.Retries[canon] = n
	}
	c.ClientCert, c.ClientKey = cfg.Network.ClientCert, cfg.Network.ClientKey
	if a.set["client-cert"] {
		c.ClientCert = a.flags.clientCert
	}
	if a.set["client-key"] {
		c.ClientKey = a.flags.clientKey
	}
	for _, p := range []*string{&c.ClientCert, &c.ClientKey} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return fmt.Errorf("client certificate: %w", err)
		}
		*p = abs
	}
	return nil
}

// recordRetriesAndCert writes the retries and the client certificate files the crawl runs
// with into the YAML model (crawl.yaml).
func recordRetriesAndCert(cfg *config.File, c crawl.Config) {
	cfg.Politeness.Retries = maps.Clone(c.Retries)
	cfg.Network.ClientCert, cfg.Network.ClientKey = c.ClientCert, c.ClientKey
}
