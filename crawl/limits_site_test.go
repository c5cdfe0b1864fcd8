package crawl

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/status"
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
			c.Robots = RobotsConfig{TTL: time.Minute, Timeout: time.Second, AllowOnTimeout: true, DisallowOnAuth: true, IgnoreMeta: true, IgnoreCrawlDelay: true}
			c.Sites = SiteLimits{MaxURLs: 10, MaxFailures: 5, MaxBackoff: time.Minute}
			c.DropOversize = true
		}, ""},
		{"zero robots TTL", func(c *Config) { c.Robots.TTL = 0 }, "Robots.TTL"},
		{"negative robots TTL", func(c *Config) { c.Robots.TTL = -time.Second }, "Robots.TTL"},
		{"negative robots timeout", func(c *Config) { c.Robots.Timeout = -time.Second }, "Robots.Timeout"},
		{"negative URLs per host", func(c *Config) { c.Sites.MaxURLs = -1 }, "Sites.MaxURLs"},
		{"negative failures", func(c *Config) { c.Sites.MaxFailures = -1 }, "Sites.MaxFailures"},
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

// TestBackoffCap: retry delays double from RetryDelay, cut to SiteLimits.MaxBackoff when set.
func TestBackoffCap(t *testing.T) {
	tests := []struct {
		max      time.Duration
		attempts int
		want     time.Duration
	}{
		{0, 0, 10 * time.Second},
		{0, 3, 80 * time.Second},
		{0, 20, 10 * time.Second << 10}, // doubled at most ten times
		{time.Minute, 0, 10 * time.Second},
		{time.Minute, 2, 40 * time.Second},
		{time.Minute, 3, time.Minute},
		{time.Minute, 20, time.Minute},
		{time.Second, 0, time.Second}, // below RetryDelay: the cap wins from the first retry
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("max=%v/attempts=%d", tt.max, tt.attempts), func(t *testing.T) {
			c := &crawler{cfg: Config{RetryDelay: 10 * time.Second, Sites: SiteLimits{MaxBackoff: tt.max}}}
			if got := c.backoff(tt.attempts); got != tt.want {
				t.Errorf("backoff(%d) = %v, want %v", tt.attempts, got, tt.want)
			}
		})
	}
}

// TestHostFailure: what counts against a host (SiteLimits.MaxFailures), with its status.
func TestHostFailure(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		ok   bool
	}{
		{"dns", &fetch.Error{Kind: fetch.DNS}, status.DNSFailed, true},
		{"connect", &fetch.Error{Kind: fetch.Connect}, status.ConnectFailed, true},
		{"timeout", &fetch.Error{Kind: fetch.Timeout}, status.Timeout, true},
		{"tls", &fetch.Error{Kind: fetch.TLS}, status.ConnectFailed, true},
		{"broken", &fetch.Error{Kind: fetch.Broken}, status.ConnectBroken, true},
		{"protocol", &fetch.Error{Kind: fetch.Protocol}, status.ConnectBroken, true},
		{"wrapped timeout", fmt.Errorf("page: %w", &fetch.Error{Kind: fetch.Timeout}), status.Timeout, true},
		{"browser failure", errors.New("browser: page crashed"), status.ConnectBroken, true},
		{"address refused by the guard", &fetch.Error{Kind: fetch.Blocked}, 0, false},
		{"invalid URL", &fetch.Error{Kind: fetch.InvalidURL}, 0, false},
		{"cancelled", &fetch.Error{Kind: fetch.Canceled}, 0, false},
		{"proxy refused", &fetch.Error{Kind: fetch.ProxyAuth}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, ok := hostFailure(tt.err)
			if code != tt.code || ok != tt.ok {
				t.Errorf("hostFailure = %d, %v; want %d, %v", code, ok, tt.code, tt.ok)
			}
		})
	}
}

// TestRelNoFollowOnly: the main frame's robots meta nofollow is taken out of a rendered
// page's links; rel=nofollow and links of other frames keep theirs.
func TestRelNoFollowOnly(t *testing.T) {
	link := func(u string, nf bool) extract.Outlink {
		return extract.Outlink{URL: u, Hop: hop.Link, Context: "a/@href", NoFollow: nf}
	}
	rendered := []extract.Outlink{
		link("http://e.com/a", true),     // meta nofollow only
		link("http://e.com/rel", true),   // rel=nofollow in the main frame
		link("http://e.com/frame", true), // only in another frame
		link("http://e.com/b", false),
	}
	parsed := []extract.Outlink{
		link("http://e.com/a", false),
		link("http://e.com/rel", true),
		link("http://e.com/b", false),
		{URL: "http://e.com/img.png", Hop: hop.Embed, Context: "img/@src"},
	}
	want := []extract.Outlink{
		link("http://e.com/a", false),
		link("http://e.com/rel", true),
		link("http://e.com/frame", true),
		link("http://e.com/b", false),
	}
	got := relNoFollowOnly(rendered, parsed)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("relNoFollowOnly (-want +got):\n%s", diff)
	}
	if !rendered[0].NoFollow {
		t.Error("relNoFollowOnly changed its argument")
	}
}
