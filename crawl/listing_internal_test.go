package crawl

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/sitemap"
)

// TestReadListing: a sitemap file's or a feed's body is classified (not of its kind,
// malformed, unreadable) the same way for both, with the result read before a fault kept.
func TestReadListing(t *testing.T) {
	bodies := map[string]string{
		"/urlset.xml":     `<urlset><url><loc>http://a.example/1</loc></url></urlset>`,
		"/broken.xml":     `<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.exa`,
		"/page.html":      `<!DOCTYPE html><html><body>a page</body></html>`,
		"/rss.xml":        `<rss><channel><item><link>http://a.example/1</link></item></channel></rss>`,
		"/broken-rss.xml": `<rss><channel><item><link>http://a.example/1</link></item><item><link>x`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch body, ok := bodies[r.URL.Path]; {
		case ok:
			w.Write([]byte(body))
		case r.URL.Path == "/moved":
			w.WriteHeader(http.StatusFound) // no Location
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	client, err := fetch.NewClient(fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	readSitemap := func(c *crawler, u frontier.URL, ex *fetch.Exchange) (decided, bool, listingInfo) {
		d, res, info := readListing(c, u, ex, sitemapListing, sitemap.Parse, sitemap.Limits{})
		return d, res != nil, info
	}
	readFeed := func(c *crawler, u frontier.URL, ex *fetch.Exchange) (decided, bool, listingInfo) {
		d, res, info := readListing(c, u, ex, feedListing, feed.Parse, feed.Limits{})
		return d, res != nil, info
	}
	tests := []struct {
		name    string
		read    func(*crawler, frontier.URL, *fetch.Exchange) (decided, bool, listingInfo)
		path    string
		closed  bool // the exchange is closed before it is read: its body cannot be read
		wantRes bool
		want    string // info.problem
	}{
		{name: "sitemap", read: readSitemap, path: "/urlset.xml", wantRes: true},
		{name: "sitemap breaks off", read: readSitemap, path: "/broken.xml", wantRes: true, want: "malformed"},
		{name: "page as a sitemap", read: readSitemap, path: "/page.html", want: "not-a-sitemap"},
		{name: "feed as a sitemap", read: readSitemap, path: "/rss.xml", want: "not-a-sitemap"},
		{name: "sitemap unreadable", read: readSitemap, path: "/urlset.xml", closed: true, want: "read-error"},
		{name: "sitemap 404", read: readSitemap, path: "/missing"},
		{name: "sitemap redirect without a Location", read: readSitemap, path: "/moved"},
		{name: "feed", read: readFeed, path: "/rss.xml", wantRes: true},
		{name: "feed breaks off", read: readFeed, path: "/broken-rss.xml", wantRes: true, want: "malformed"},
		{name: "page as a feed", read: readFeed, path: "/page.html", want: "not-a-feed"},
		{name: "sitemap as a feed", read: readFeed, path: "/urlset.xml", want: "not-a-feed"},
		{name: "feed unreadable", read: readFeed, path: "/rss.xml", closed: true, want: "read-error"},
		{name: "feed 404", read: readFeed, path: "/missing"},
		{name: "feed redirect without a Location", read: readFeed, path: "/moved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, err := client.Do(context.Background(), fetch.Request{URL: srv.URL + tt.path})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			if tt.closed {
				ex.Close()
			}
			c := &crawler{log: slog.New(slog.DiscardHandler)}
			d, gotRes, info := tt.read(c, frontier.URL{URL: srv.URL + tt.path}, ex)
			if gotRes != tt.wantRes {
				t.Errorf("result: got %v, want %v", gotRes, tt.wantRes)
			}
			if want := (listingInfo{problem: tt.want}); info != want {
				t.Errorf("info: got %+v, want %+v", info, want)
			}
			if len(d.in) != 0 || len(d.out) != 0 || len(d.metadata) != 0 {
				t.Errorf("decided something: %+v", d)
			}
		})
	}
}

// TestListingAnnotations: the crawl.log annotations of a sitemap file and of a feed.
func TestListingAnnotations(t *testing.T) {
	tests := []struct {
		name string
		l    listing
		info listingInfo
		want []string
	}{
		{name: "nothing read", l: sitemapListing, info: listingInfo{}, want: nil},
		{name: "urlset", l: sitemapListing, info: listingInfo{kind: "urlset", listed: 3}, want: []string{"sitemap:urlset:3"}},
		{name: "empty urlset", l: sitemapListing, info: listingInfo{kind: "urlset"}, want: []string{"sitemap:urlset:0"}},
		{name: "truncated", l: sitemapListing, info: listingInfo{kind: "text", listed: 2, truncated: sitemap.TruncatedURLs}, want: []string{"sitemap:text:2", "sitemap:truncated:max-urls"}},
		{name: "not a sitemap", l: sitemapListing, info: listingInfo{problem: sitemapNotSitemap}, want: []string{"sitemap:not-a-sitemap"}},
		{name: "nested index", l: sitemapListing, info: listingInfo{kind: "index", listed: 1, problem: sitemapNestedIndex}, want: []string{"sitemap:index:1", "sitemap:nested-index"}},
		{name: "malformed sitemap", l: sitemapListing, info: listingInfo{kind: "urlset", listed: 1, truncated: sitemap.TruncatedBytes, problem: listingMalformed}, want: []string{"sitemap:urlset:1", "sitemap:truncated:max-bytes", "sitemap:malformed"}},
		{name: "sitemap read error", l: sitemapListing, info: listingInfo{problem: listingReadError}, want: []string{"sitemap:read-error"}},
		{name: "rss", l: feedListing, info: listingInfo{kind: "rss", listed: 3}, want: []string{"feed:rss:3"}},
		{name: "atom truncated", l: feedListing, info: listingInfo{kind: "atom", listed: 128, truncated: feed.TruncatedLinks}, want: []string{"feed:atom:128", "feed:truncated:max-links"}},
		{name: "not a feed", l: feedListing, info: listingInfo{problem: feedNotFeed}, want: []string{"feed:not-a-feed"}},
		{name: "malformed feed", l: feedListing, info: listingInfo{kind: "rss", listed: 1, problem: listingMalformed}, want: []string{"feed:rss:1", "feed:malformed"}},
		{name: "feed read error", l: feedListing, info: listingInfo{problem: listingReadError}, want: []string{"feed:read-error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, listingAnnotations(tt.l, tt.info)); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}
