package frontier

import "context"

// Shared is a frontier that the processes of one crawl share, as the crawl's configuration
// names it (package redisfront keeps one in Redis): the crawl opens it in place of its own
// frontier, and asks it what a crawl needs to know of it besides.
type Shared interface {
	// WithDefaults returns it with the defaults of a crawl of collection in the crawl
	// directory dir filled in (the crawl's name on the server, this process's name).
	WithDefaults(collection, dir string) Shared
	// ProcessName is this process's name among the crawl's processes: its WARC files' host
	// part and the key of its own counters.
	ProcessName() string
	// MaxLevels is the most priority levels it keeps (Config.Levels); 0: no bound.
	MaxLevels() int
	// Validate checks it with cfg as Open will.
	Validate(cfg Config) error
	// Open opens it with cfg, the settings every frontier takes. cfg.Dir, the crawl's state
	// directory, is locked while it is open, as the crawl's own frontier locks it, so that
	// no second process runs in the crawl directory.
	Open(ctx context.Context, cfg Config) (Store, error)
}
