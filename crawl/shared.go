package crawl

import (
	"context"
	"path/filepath"

	"github.com/amber-crawler/amber/frontier"
)

// frontierConfig is the configuration of the crawl's frontier, its own or a shared one.
func (c Config) frontierConfig() frontier.Config {
	return frontier.Config{
		Dir:             filepath.Join(c.Dir, StateDir),
		HostDelay:       c.HostDelay,
		HostConcurrency: c.HostConcurrency,
		MaxSites:        c.MaxSites,
		MaxInterDocs:    c.MaxInterDocs,
		MaxAttempts:     c.retryPolicy().MostAttempts(),
		Levels:          c.Priority.LevelsConfig(),
	}
}

// validateShared checks Shared as it will be opened.
func (c Config) validateShared() error {
	if c.Shared == nil {
		return nil
	}
	if err := c.Shared.WithDefaults(c.Collection, c.Dir).Validate(c.frontierConfig()); err != nil {
		return &FieldError{Field: "Shared", Err: err}
	}
	return nil
}

// openFrontier opens the crawl's frontier, the shared one (Config.Shared) or its own in
// D/state (badger), with its priority levels (frontier.WithPriority).
func openFrontier(ctx context.Context, cfg Config) (frontier.Store, error) {
	var f frontier.Store
	var err error
	if cfg.Shared != nil {
		f, err = cfg.Shared.Open(ctx, cfg.frontierConfig())
	} else {
		f, err = frontier.Open(cfg.frontierConfig())
	}
	if err != nil {
		return nil, err
	}
	front, err := frontier.WithPriority(f, cfg.Priority, cfg.Scope.Flavour, cfg.Scope.MaxURLLength)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return front, nil
}

// warcHostname is the host part of the crawl's WARC file names: the process's name when the
// frontier is shared (processes on one machine write apart), else "" (the writer's default,
// the host name).
func (c Config) warcHostname() string {
	if c.Shared == nil {
		return ""
	}
	return c.Shared.ProcessName()
}
