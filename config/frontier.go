package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// FrontierSpec puts the crawl's frontier on a Redis (or Valkey) server that several amber
// processes share, each with its own crawl directory (YAML frontier:). Empty: the crawl keeps
// its frontier in its directory.
type FrontierSpec struct {
	// Redis is the server: redis://HOST:PORT/DB, rediss:// (TLS) or unix:///PATH?db=N, or
	// env:NAME naming an environment variable that holds it. A password is accepted only
	// through env:NAME (crawl.yaml and warcinfo record this key as it is written).
	Redis string `yaml:"redis,omitempty"`
	// CrawlID names the crawl's keys on the server (default: the collection); every process
	// of the crawl gives the same.
	CrawlID string `yaml:"crawl_id,omitempty"`
	// Process names this process among the crawl's processes (default: HOSTNAME-DIRNAME).
	Process string `yaml:"process,omitempty"`
	// Lease is how long a killed process's claims stay its own before the others take them
	// (default 30s).
	Lease time.Duration `yaml:"lease,omitempty"`
}

// Server checks the frontier key and returns the server's URL with its env: reference
// resolved by lookupEnv; "" when the frontier is not shared. Errors name the key and never
// contain a password.
func (f FrontierSpec) Server(lookupEnv func(string) (string, bool)) (string, error) {
	if f.Redis == "" {
		if f.CrawlID != "" || f.Process != "" || f.Lease != 0 {
			return "", fmt.Errorf("%w: frontier: crawl_id, process and lease need frontier.redis", ErrConfig)
		}
		return "", nil
	}
	env := strings.HasPrefix(f.Redis, envPrefix)
	v, err := resolveValue(f.Redis, lookupEnv)
	if err != nil {
		return "", fmt.Errorf("%w: frontier.redis: %w", ErrConfig, err)
	}
	u, err := url.Parse(v)
	if err != nil {
		return "", fmt.Errorf("%w: frontier.redis: not a URL (want redis://HOST:PORT/DB)", ErrConfig)
	}
	switch u.Scheme {
	case "redis", "rediss", "unix":
	default:
		return "", fmt.Errorf("%w: frontier.redis: scheme %q (want redis://HOST:PORT/DB, rediss:// or unix://)", ErrConfig, u.Scheme)
	}
	if _, has := u.User.Password(); has && !env {
		return "", fmt.Errorf("%w: frontier.redis: a password in the URL would be recorded in crawl.yaml and the WARC files: put the URL in an environment variable and write env:NAME", ErrConfig)
	}
	if strings.ContainsAny(f.CrawlID, "{}") {
		return "", fmt.Errorf("%w: frontier.crawl_id: %q must not contain braces", ErrConfig, f.CrawlID)
	}
	if f.Lease < 0 {
		return "", fmt.Errorf("%w: frontier.lease: must not be negative", ErrConfig)
	}
	return v, nil
}
