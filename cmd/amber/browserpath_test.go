package main

import (
	"testing"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// TestRecordBrowserPath: crawl.yaml (and warcinfo) name the Chromium a browser crawl runs,
// the one chosen or else the default New picks (the headless shell where installed).
func TestRecordBrowserPath(t *testing.T) {
	for _, tc := range []struct {
		name, fetcher, path, want string
	}{
		{"default", crawl.FetcherBrowser, "", browser.DefaultPath()},
		{"chosen", crawl.FetcherBrowser, "/opt/chromium/chrome", "/opt/chromium/chrome"},
		{"plain fetcher", crawl.FetcherHTTP, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := crawl.DefaultConfig()
			c.Fetcher = tc.fetcher
			c.Browser.Path = tc.path
			var cfg config.File
			recordEffective(&cfg, c)
			if cfg.Browser.Path != tc.want {
				t.Errorf("browser.path %q, want %q", cfg.Browser.Path, tc.want)
			}
		})
	}
}
