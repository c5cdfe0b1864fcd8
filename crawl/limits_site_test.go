package crawl

import (
	"errors"
	"testing"
	"time"

	"github.com/amber-crawler/amber/robots"
	"github.com/amber-crawler/amber/sitelimit"
)

// TestValidateRobotsAndSites: the fields of Config.Robots and Config.Sites that Validate
// refuses, each named.
func TestValidateRobotsAndSites(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		field  string // "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"all set", func(c *Config) {
			c.Robots = robots.Config{TTL: time.Minute, Timeout: time.Second, AllowOnTimeout: true, DisallowOnAuth: true, IgnoreMeta: true, IgnoreCrawlDelay: true}
			c.Sites = sitelimit.Config{URLsPerHost: 10, MaxHostFailures: 5, MaxBackoff: time.Minute}
			c.DropOversize = true
		}, ""},
		{"zero robots TTL", func(c *Config) { c.Robots.TTL = 0 }, "Robots.TTL"},
		{"negative robots TTL", func(c *Config) { c.Robots.TTL = -time.Second }, "Robots.TTL"},
		{"negative robots timeout", func(c *Config) { c.Robots.Timeout = -time.Second }, "Robots.Timeout"},
		{"negative URLs per host", func(c *Config) { c.Sites.URLsPerHost = -1 }, "Sites.URLsPerHost"},
		{"negative failures", func(c *Config) { c.Sites.MaxHostFailures = -1 }, "Sites.MaxHostFailures"},
		{"negative backoff", func(c *Config) { c.Sites.MaxBackoff = -time.Second }, "Sites.MaxBackoff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig()
			tt.modify(&c)
			err := c.Validate()
			var fe *FieldError
			switch {
			case tt.field == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.field == "":
			case !errors.As(err, &fe) || !errors.Is(err, ErrConfig):
				t.Fatalf("Validate() = %v, want a *FieldError", err)
			case fe.Field != tt.field:
				t.Errorf("Field = %q, want %q", fe.Field, tt.field)
			}
		})
	}
}
