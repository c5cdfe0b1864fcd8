package config

import (
	"testing"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
)

func TestFormatByteSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{1e9, "1GB"}, {100 << 20, "100MiB"}, {1 << 30, "1GiB"}, {1500, "1500"}, {2e6, "2MB"}, {0, "0"},
	}
	for _, tt := range tests {
		got := FormatByteSize(tt.n)
		if got != tt.want {
			t.Errorf("FormatByteSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if back, err := ParseByteSize(got); err != nil || int64(back) != tt.n {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", got, back, err, tt.n)
		}
	}
}

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
			f := &File{Seeds: []SeedSpec{{URL: "http://a.example/"}}, Fetcher: tc.fetcher, Browser: Browser{Path: tc.path}}
			c, err := Build(f, Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if f.Browser.Path != tc.want || c.Browser.Path != tc.want {
				t.Errorf("browser.path %q, crawl's %q; want %q", f.Browser.Path, c.Browser.Path, tc.want)
			}
		})
	}
}
