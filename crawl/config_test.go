package crawl

import (
	"errors"
	"testing"
	"time"

	"github.com/amber-crawler/amber/frontier/redisfront"
	"github.com/amber-crawler/amber/scope"
)

// validConfig is DefaultConfig with the two fields that have no default.
func validConfig() Config {
	c := DefaultConfig()
	c.Dir = "/tmp/crawl"
	c.Scope.Seeds = []scope.Seed{{URL: "http://www.example.com/", Type: scope.StandardSeed}}
	return c
}

func TestDefaultConfigIsValidOnceDirAndSeedsAreSet(t *testing.T) {
	if err := validConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig + Dir + seeds: %v", err)
	}
	// Without them, the first missing field is named.
	var fe *FieldError
	if err := DefaultConfig().Validate(); !errors.As(err, &fe) || fe.Field != "Dir" {
		t.Fatalf("DefaultConfig().Validate() = %v, want a FieldError for Dir", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		field  string // "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"zero host delay is no pause", func(c *Config) { c.HostDelay = 0 }, ""},
		{"limits set", func(c *Config) { c.LimitURLs, c.LimitBytes, c.TimeLimit = 10, 1e6, time.Hour }, ""},
		{"browser fetcher", func(c *Config) { c.Fetcher = FetcherBrowser }, ""},
		{"explicit prefix", func(c *Config) { c.WARCPrefix = "museum-2026" }, ""},
		{"progress never", func(c *Config) { c.ProgressEvery = -1 }, ""},
		{"no dir", func(c *Config) { c.Dir = "" }, "Dir"},
		{"shared frontier", func(c *Config) { c.Shared = redisfront.Shared{URL: "redis://127.0.0.1:6379/0", Lease: time.Second} }, ""},
		{"shared, crawl id without URL", func(c *Config) { c.Shared = redisfront.Shared{CrawlID: "x"} }, "Shared"},
		{"shared, braces in crawl id", func(c *Config) { c.Shared = redisfront.Shared{URL: "redis://127.0.0.1:6379/0", CrawlID: "a{b}"} }, "Shared"},
		{"shared, negative lease", func(c *Config) { c.Shared = redisfront.Shared{URL: "redis://127.0.0.1:6379/0", Lease: -1} }, "Shared"},
		{"shared, not a redis URL", func(c *Config) { c.Shared = redisfront.Shared{URL: "http://127.0.0.1:6379/"} }, "Shared"},
		{"shared, slash in process", func(c *Config) { c.Shared = redisfront.Shared{URL: "redis://127.0.0.1:6379/0", Process: "a/b"} }, "Shared"},
		{"no seeds", func(c *Config) { c.Scope.Seeds = nil }, "Scope.Seeds"},
		{"no collection", func(c *Config) { c.Collection = "" }, "Collection"},
		{"collection with slash", func(c *Config) { c.Collection = "a/b" }, "Collection"},
		{"no software", func(c *Config) { c.Software = "" }, "Software"},
		{"zero workers", func(c *Config) { c.Workers = 0 }, "Workers"},
		{"negative workers", func(c *Config) { c.Workers = -1 }, "Workers"},
		{"negative host delay", func(c *Config) { c.HostDelay = -time.Second }, "HostDelay"},
		{"zero host concurrency", func(c *Config) { c.HostConcurrency = 0 }, "HostConcurrency"},
		{"zero attempts", func(c *Config) { c.MaxAttempts = 0 }, "MaxAttempts"},
		{"zero retry delay", func(c *Config) { c.RetryDelay = 0 }, "RetryDelay"},
		{"negative URL limit", func(c *Config) { c.LimitURLs = -1 }, "LimitURLs"},
		{"negative byte limit", func(c *Config) { c.LimitBytes = -1 }, "LimitBytes"},
		{"negative time limit", func(c *Config) { c.TimeLimit = -time.Second }, "TimeLimit"},
		{"empty fetcher", func(c *Config) { c.Fetcher = "" }, "Fetcher"},
		{"unknown fetcher", func(c *Config) { c.Fetcher = "wget" }, "Fetcher"},
		{"blank user agent", func(c *Config) { c.Fetch.UserAgent = "  " }, "Fetch.UserAgent"},
		{"prefix with slash", func(c *Config) { c.WARCPrefix = "../evil" }, "WARCPrefix"},
		{"prefix with backslash", func(c *Config) { c.WARCPrefix = `a\b` }, "WARCPrefix"},
		{"zero WARC size", func(c *Config) { c.WARCMaxSize = 0 }, "WARCMaxSize"},
		{"zero outlink cap", func(c *Config) { c.MaxOutlinks = 0 }, "MaxOutlinks"},
		{"zero progress interval", func(c *Config) { c.ProgressEvery = 0 }, "ProgressEvery"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig()
			tt.modify(&c)
			err := c.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() = %v, want a *FieldError", err)
			}
			if fe.Field != tt.field {
				t.Errorf("Field = %q, want %q", fe.Field, tt.field)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("%v does not match ErrConfig", err)
			}
		})
	}
}

// TestDerive: a valid Config gets its derived values and nothing else; Validate does not
// default a zero field.
func TestDerive(t *testing.T) {
	c := DefaultConfig()
	c.Dir, c.Collection = "/tmp/crawl", "museum"
	c.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://www.example.com/"}}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.derive()
	if c.WARCPrefix != "museum" || c.Logger == nil {
		t.Errorf("derived: WARCPrefix %q, Logger %v; want museum, a logger", c.WARCPrefix, c.Logger)
	}
	zero := c
	zero.Workers = 0
	var fe *FieldError
	if err := zero.Validate(); !errors.As(err, &fe) || fe.Field != "Workers" {
		t.Errorf("Validate with Workers 0 = %v, want a FieldError for Workers (zero is not defaulted)", err)
	}
}

func TestFieldErrorMessage(t *testing.T) {
	err := error(&FieldError{Field: "Workers", Err: errors.New("must be positive")})
	if got, want := err.Error(), "crawl: invalid config: Workers: must be positive"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
