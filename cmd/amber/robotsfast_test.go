package main

import (
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/robots"
	"github.com/amber-crawler/amber/sitelimit"
)

// TestRobotsAndSiteLimitsYAML: the robots section, limits.urls_per_host and
// limits.oversize, politeness.max_host_failures and politeness.max_backoff reach the crawl,
// are written back to crawl.yaml as they ran (so a resumed crawl keeps them), and bad
// values are refused.
func TestRobotsAndSiteLimitsYAML(t *testing.T) {
	type view struct {
		Robots       robots.Config
		Sites        sitelimit.Config
		DropOversize bool
	}
	d := crawl.DefaultConfig()
	tests := []struct {
		name    string
		yaml    string
		want    view
		wantErr string
	}{
		{"defaults", "", view{Robots: d.Robots}, ""},
		{"all set", `robots:
  ttl: 1h
  timeout: 20s
  allow_on_timeout: true
  disallow_on_auth: true
  ignore_meta: true
  ignore_crawl_delay: true
limits:
  urls_per_host: 1000
  oversize: drop
politeness:
  max_host_failures: 50
  max_backoff: 10m
`, view{
			Robots: robots.Config{TTL: time.Hour, Timeout: 20 * time.Second, AllowOnTimeout: true,
				DisallowOnAuth: true, IgnoreMeta: true, IgnoreCrawlDelay: true},
			Sites:        sitelimit.Config{URLsPerHost: 1000, MaxHostFailures: 50, MaxBackoff: 10 * time.Minute},
			DropOversize: true,
		}, ""},
		{"oversize truncate", "limits:\n  oversize: truncate\n", view{Robots: d.Robots}, ""},
		{"oversize unknown", "limits:\n  oversize: skip\n", view{}, "limits.oversize"},
		{"unknown robots key", "robots:\n  ttl_seconds: 5\n", view{}, "ttl_seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSetting(t, tt.yaml, nil, tt.wantErr, tt.want, func(c crawl.Config) view { return view{c.Robots, c.Sites, c.DropOversize} })
		})
	}
}
