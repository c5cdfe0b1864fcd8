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

// TestBuildDocumentsAndURLLimits checks that the keys added for Elastic's crawler files
// reach the engine: documents.exclude_tags (origins normalised, tags lower case),
// full_html, max_elastic_tag_size, max_data_attribute_size, scope.max_url_segments and
// max_url_params; and that a bad exclude_tags entry is refused.
func TestBuildDocumentsAndURLLimits(t *testing.T) {
	data := []byte(`seeds: [http://a.example/]
scope: {max_url_segments: 16, max_url_params: 32}
documents:
  exclude_tags: {"HTTPS://A.example:443": [Header, footer]}
  full_html: true
  max_elastic_tag_size: 512
  max_data_attribute_size: 256
`)
	f, err := Parse(data, "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Build(f, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := c.Documents
	if got := d.ExcludeTags["https://a.example"]; len(got) != 2 || got[0] != "header" || got[1] != "footer" {
		t.Errorf("exclude_tags %v", d.ExcludeTags)
	}
	if !d.FullHTML || d.MaxElasticTagSize != 512 || d.MaxDataAttributeSize != 256 {
		t.Errorf("documents %+v", d)
	}
	if c.Scope.MaxURLSegments != 16 || c.Scope.MaxURLParams != 32 {
		t.Errorf("scope limits %d %d", c.Scope.MaxURLSegments, c.Scope.MaxURLParams)
	}
	for _, bad := range []string{`{"a.example": [header]}`, `{"https://a.example": ["<p>"]}`} {
		f, err := Parse([]byte("seeds: [http://a.example/]\ndocuments: {exclude_tags: "+bad+"}\n"), "t.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Build(f, Options{Dir: t.TempDir()}); err == nil {
			t.Errorf("exclude_tags %s accepted", bad)
		}
	}
}
