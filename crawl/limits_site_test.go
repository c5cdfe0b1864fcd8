package crawl

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/hop"
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
			c.Sites = sitelimit.Config{MaxURLs: 10, MaxFailures: 5, MaxBackoff: time.Minute}
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
