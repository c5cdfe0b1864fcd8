package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
)

// TestRobotsAndSiteLimitsYAML: the robots section, limits.urls_per_host and
// limits.oversize, politeness.max_host_failures and politeness.max_backoff reach the crawl,
// are written back to crawl.yaml as they ran (so a resumed crawl keeps them), and bad
// values are refused.
func TestRobotsAndSiteLimitsYAML(t *testing.T) {
	type view struct {
		Robots       crawl.RobotsConfig
		Sites        crawl.SiteLimits
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
			Robots: crawl.RobotsConfig{TTL: time.Hour, Timeout: 20 * time.Second, AllowOnTimeout: true,
				DisallowOnAuth: true, IgnoreMeta: true, IgnoreCrawlDelay: true},
			Sites:        crawl.SiteLimits{MaxURLs: 1000, MaxFailures: 50, MaxBackoff: 10 * time.Minute},
			DropOversize: true,
		}, ""},
		{"oversize truncate", "limits:\n  oversize: truncate\n", view{Robots: d.Robots}, ""},
		{"oversize unknown", "limits:\n  oversize: skip\n", view{}, "limits.oversize"},
		{"unknown robots key", "robots:\n  ttl_seconds: 5\n", view{}, "ttl_seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c, err := yamlCrawlConfig(t, tt.yaml)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := view{c.Robots, c.Sites, c.DropOversize}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("crawl config (-want +got):\n%s", diff)
			}
			// crawl.yaml, read again, gives the same settings.
			_, back := readBack(t, c)
			if diff := cmp.Diff(tt.want, view{back.Robots, back.Sites, back.DropOversize}); diff != "" {
				t.Errorf("crawl.yaml read again (-want +got):\n%s", diff)
			}
		})
	}
}
