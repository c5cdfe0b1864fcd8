package listing

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/sitemap"
)

// TestReadListing: a body read as a sitemap file and as a feed is classified the same way for
// both (not of the kind, malformed, unreadable), what was read before a fault is kept, and
// the crawl.log annotation of the problem is named for the kind.
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

	// The two kinds, each read with its parser.
	kinds := []struct {
		l    kind
		read func(*slog.Logger, frontier.URL, *fetch.Exchange) (chain.Content, bool, docInfo)
	}{
		{sitemapKind, func(log *slog.Logger, u frontier.URL, ex *fetch.Exchange) (chain.Content, bool, docInfo) {
			d, res, info := readDoc(log, u, ex, sitemapKind, sitemap.Parse, sitemap.Limits{})
			return d, res != nil, info
		}},
		{feedKind, func(log *slog.Logger, u frontier.URL, ex *fetch.Exchange) (chain.Content, bool, docInfo) {
			d, res, info := readDoc(log, u, ex, feedKind, feed.Parse, feed.Limits{})
			return d, res != nil, info
		}},
	}
	type outcome struct {
		Res bool     // something was read
		Ann []string // the annotations of what readListing returned
	}
	tests := []struct {
		name   string
		path   string
		closed bool       // the exchange is closed before it is read: its body cannot be read
		want   [2]outcome // read as a sitemap file, as a feed
	}{
		{name: "urlset", path: "/urlset.xml", want: [2]outcome{{Res: true}, {Ann: []string{"feed:not-a-feed"}}}},
		{name: "urlset breaks off", path: "/broken.xml", want: [2]outcome{{Res: true, Ann: []string{"sitemap:malformed"}}, {Ann: []string{"feed:not-a-feed"}}}},
		{name: "html page", path: "/page.html", want: [2]outcome{{Ann: []string{"sitemap:not-a-sitemap"}}, {Ann: []string{"feed:not-a-feed"}}}},
		{name: "rss", path: "/rss.xml", want: [2]outcome{{Ann: []string{"sitemap:not-a-sitemap"}}, {Res: true}}},
		{name: "rss breaks off", path: "/broken-rss.xml", want: [2]outcome{{Ann: []string{"sitemap:not-a-sitemap"}}, {Res: true, Ann: []string{"feed:malformed"}}}},
		{name: "body unreadable", path: "/rss.xml", closed: true, want: [2]outcome{{Ann: []string{"sitemap:read-error"}}, {Ann: []string{"feed:read-error"}}}},
		{name: "404", path: "/missing"},
		{name: "redirect without a Location", path: "/moved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, k := range kinds {
				ex, err := client.Do(context.Background(), fetch.Request{URL: srv.URL + tt.path})
				if err != nil {
					t.Fatal(err)
				}
				if tt.closed {
					ex.Close()
				}
				d, res, info := k.read(slog.New(slog.DiscardHandler), frontier.URL{URL: srv.URL + tt.path}, ex)
				ex.Close()
				got := outcome{Res: res, Ann: annotations(k.l, info)}
				if diff := cmp.Diff(tt.want[i], got); diff != "" {
					t.Errorf("read as a %s (-want +got):\n%s", k.l.name, diff)
				}
				if len(d.Links) != 0 {
					t.Errorf("read as a %s: decided %+v, want nothing", k.l.name, d)
				}
			}
		})
	}
}
