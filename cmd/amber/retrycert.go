package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/retry"
)

// applyRetryFlags applies --retry COND=N (each replacing the config's count of that
// condition), --client-cert and --client-key.
func applyRetryFlags(cfg *config.File, a crawlArgs) error {
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
		if cfg.Politeness.Retries == nil {
			cfg.Politeness.Retries = map[string]int{}
		}
		cfg.Politeness.Retries[canon] = n
	}
	setFlag(a.set, "client-cert", &cfg.Network.ClientCert, a.flags.clientCert)
	setFlag(a.set, "client-key", &cfg.Network.ClientKey, a.flags.clientKey)
	return nil
}
