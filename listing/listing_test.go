package listing_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/listing"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/sitemap"
)

// TestValidate: the invalid fields of Sitemaps and Feeds are named as written in Go.
func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		field string // "" for valid
	}{
		{"sitemaps: zero", listing.Sitemaps{}.Validate(), ""},
		{"sitemaps: valid", listing.Sitemaps{Robots: true, URLs: []string{"http://a.example/s.xml", "https://b.example/s.xml.gz"},
			Limits: sitemap.Limits{MaxURLs: 10, MaxBytes: 1 << 20}}.Validate(), ""},
		{"sitemaps: relative URL", listing.Sitemaps{URLs: []string{"/sitemap.xml"}}.Validate(), "URLs"},
		{"sitemaps: ftp URL", listing.Sitemaps{URLs: []string{"http://a.example/s.xml", "ftp://a.example/s.xml"}}.Validate(), "URLs"},
		{"sitemaps: no host", listing.Sitemaps{URLs: []string{"http:///s.xml"}}.Validate(), "URLs"},
		{"sitemaps: unparsable URL", listing.Sitemaps{URLs: []string{"http://a b/"}}.Validate(), "URLs"},
		{"sitemaps: negative MaxURLs", listing.Sitemaps{Limits: sitemap.Limits{MaxURLs: -1}}.Validate(), "Limits.MaxURLs"},
		{"sitemaps: negative MaxBytes", listing.Sitemaps{Limits: sitemap.Limits{MaxBytes: -1}}.Validate(), "Limits.MaxBytes"},
		{"feeds: zero", listing.Feeds{}.Validate(), ""},
		{"feeds: valid", listing.Feeds{URLs: []string{"https://a.example/feed.xml"}, Limits: feed.Limits{MaxLinks: 5}, AutoDiscover: true}.Validate(), ""},
		{"feeds: relative URL", listing.Feeds{URLs: []string{"feed.xml"}}.Validate(), "URLs"},
		{"feeds: mailto URL", listing.Feeds{URLs: []string{"mailto:a@b.example"}}.Validate(), "URLs"},
		{"feeds: negative MaxLinks", listing.Feeds{Limits: feed.Limits{MaxLinks: -1}}.Validate(), "Limits.MaxLinks"},
		{"feeds: negative MaxBytes", listing.Feeds{Limits: feed.Limits{MaxBytes: -1}}.Validate(), "Limits.MaxBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fe *chain.FieldError
			switch {
			case tt.field == "" && tt.err != nil:
				t.Errorf("Validate() = %v, want nil", tt.err)
			case tt.field != "" && (!errors.As(tt.err, &fe) || fe.Field != tt.field):
				t.Errorf("Validate() = %v, want a *chain.FieldError for %s", tt.err, tt.field)
			}
		})
	}
}

// TestListed: the URLs listed, resolved against the base, each with the hop and context
// given; those that do not parse are left out.
func TestListed(t *testing.T) {
	tests := []struct {
		name   string
		listed []string
		files  bool
		want   chain.Content
	}{
		{"none", nil, false, chain.Content{Listed: true}},
		{"absolute and relative", []string{"http://b.example/x", "/root", "rel?q=1", " spaced.html "}, true, chain.Content{Listed: true, Files: true,
			Links: []extract.Outlink{
				{URL: "http://b.example/x", Hop: hop.Sitemap, Context: "ctx"},
				{URL: "http://a.example/root", Hop: hop.Sitemap, Context: "ctx"},
				{URL: "http://a.example/dir/rel?q=1", Hop: hop.Sitemap, Context: "ctx"},
				{URL: "http://a.example/dir/spaced.html", Hop: hop.Sitemap, Context: "ctx"},
			}}},
		{"unparsable dropped", []string{"http://a b/", "%zz", "http://b.example/ok"}, false, chain.Content{Listed: true,
			Links: []extract.Outlink{{URL: "http://b.example/ok", Hop: hop.Sitemap, Context: "ctx"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := listing.Listed("http://a.example/dir/doc.xml", tt.listed, hop.Sitemap, "ctx", tt.files)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Listed (-want +got):\n%s", diff)
			}
		})
	}
}

// queued is one call of Deps.Queue.
type queued struct {
	Worker  int
	From    frontier.URL
	Content chain.Content
}

// queue records the calls of Deps.Queue, failing with err when set.
type queue struct {
	mu    sync.Mutex // guards calls
	calls []queued
	err   error
}

func (q *queue) add(worker int, from frontier.URL, content chain.Content) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls = append(q.calls, queued{worker, from, content})
	return q.err
}

func (q *queue) take() []queued {
	q.mu.Lock()
	defer q.mu.Unlock()
	c := q.calls
	q.calls = nil
	return c
}

func openFront(t *testing.T, dir string) *frontier.Frontier {
	t.Helper()
	f, err := frontier.Open(frontier.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// openEvents opens an events log in the test's directory; path is where it is.
func openEvents(t *testing.T) (*report.Events, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	ev, err := report.OpenEvents(path, report.EventsConfig{CrawlID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.Close() })
	return ev, path
}

// eventKeys are the fields of the listing events the tests compare.
var eventKeys = []string{"event.action", "event.outcome", "event.reason", "url.full", "crawler.url.hops",
	"crawler.sitemap.kind", "crawler.sitemap.urls.count", "crawler.sitemap.truncated",
	"labels.feed_kind", "labels.feed_links", "labels.feed_truncated"}

// readEvents returns the compared fields of the events of path.
func readEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var es []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		if e["message"] == nil {
			t.Errorf("event without a message: %v", e)
		}
		kept := map[string]any{}
		for _, k := range eventKeys {
			if v, ok := e[k]; ok {
				kept[k] = v
			}
		}
		es = append(es, kept)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return es
}

func env(f chain.Frontier, ev *report.Events) chain.Env {
	return chain.Env{Log: slog.New(slog.DiscardHandler), Events: ev, Front: f}
}

// docSite serves listing documents.
func docSite(t *testing.T) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := srv.URL
		switch r.URL.Path {
		case "/urlset.xml":
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/a.html</loc></url><url><loc>%s/b.html</loc></url></urlset>`, s, s)
		case "/index.xml":
			fmt.Fprintf(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/urlset.xml</loc></sitemap></sitemapindex>`, s)
		case "/list.txt":
			fmt.Fprintf(w, "%s/1.html\n%s/2.html\n%s/3.html\n", s, s, s)
		case "/page.html":
			fmt.Fprint(w, `<!DOCTYPE html><html><body><a href="/x">x</a></body></html>`)
		case "/rss.xml":
			fmt.Fprintf(w, `<rss version="2.0"><channel><title>t</title><item><link>%s/post/1</link></item><item><link>%s/post/2</link></item></channel></rss>`, s, s)
		case "/moved.xml":
			http.Redirect(w, r, "/urlset.xml", http.StatusMovedPermanently)
		case "/moved-feed":
			http.Redirect(w, r, "/rss.xml", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newClient(t *testing.T) *fetch.Client {
	t.Helper()
	c, err := fetch.NewClient(fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func hostKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// fetchRecord fetches u and returns its record as the crawl hands it to the After hooks.
func fetchRecord(t *testing.T, c *fetch.Client, u frontier.URL) *chain.Record {
	t.Helper()
	ex, err := c.Do(t.Context(), fetch.Request{URL: u.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return &chain.Record{Claim: frontier.NewClaim(u, nil), Result: &fetch.Result{Exchanges: []*fetch.Exchange{ex}},
		Captures: []chain.Capture{{Hops: u.Hops, Via: u.Via, Seed: u.Seed}}}
}

// TestAfter: a claimed listing document is read in place of a page: the URLs it lists are its
// content (Listed; Files for an index's sitemaps and a redirect's target, Feeds for a feed's
// redirect, IgnoreRules for a feed's items with Feeds.IgnoreRules), what was found annotates
// its capture, and Recorded writes its sitemap-read or feed-read event.
func TestAfter(t *testing.T) {
	srv := docSite(t)
	s := srv.URL
	client := newClient(t)
	front := openFront(t, t.TempDir())
	feedsOn := listing.Feeds{URLs: []string{s + "/rss.xml"}}
	link := func(u string, h byte, ctx string) extract.Outlink {
		return extract.Outlink{URL: u, Hop: h, Context: ctx}
	}
	ev := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name     string
		path     string
		hops     string
		notFile  bool // the URL is not marked as a listing document
		feed     bool // marked as a feed
		sitemaps listing.Sitemaps
		feeds    listing.Feeds
		want     chain.Content
		notes    []string
		event    map[string]any // nil: none
	}{
		{name: "not a listing document", path: "/urlset.xml", hops: "L", notFile: true, want: chain.Content{Links: []extract.Outlink{link("http://x.example/", hop.Link, "a/@href")}}},
		{name: "urlset", path: "/urlset.xml", hops: "M",
			want:  chain.Content{Listed: true, Links: []extract.Outlink{link(s+"/a.html", hop.Sitemap, "sitemap"), link(s+"/b.html", hop.Sitemap, "sitemap")}},
			notes: []string{"sitemap:urlset:2"},
			event: ev("event.action", report.ActionSitemapRead, "event.outcome", "success", "crawler.sitemap.kind", "urlset", "crawler.sitemap.urls.count", 2.0)},
		{name: "index", path: "/index.xml", hops: "PM",
			want:  chain.Content{Listed: true, Files: true, Links: []extract.Outlink{link(s+"/urlset.xml", hop.Sitemap, "sitemapindex")}},
			notes: []string{"sitemap:index:1"},
			event: ev("event.action", report.ActionSitemapRead, "event.outcome", "success", "crawler.sitemap.kind", "index", "crawler.sitemap.urls.count", 1.0)},
		{name: "index listed by an index", path: "/index.xml", hops: "MM",
			want:  chain.Content{Listed: true},
			notes: []string{"sitemap:index:1", "sitemap:nested-index"},
			event: ev("event.action", report.ActionSitemapRead, "event.outcome", "success", "event.reason", "nested-index",
				"crawler.sitemap.kind", "index", "crawler.sitemap.urls.count", 1.0)},
		{name: "text, truncated", path: "/list.txt", hops: "M", sitemaps: listing.Sitemaps{Limits: sitemap.Limits{MaxURLs: 2}},
			want:  chain.Content{Listed: true, Links: []extract.Outlink{link(s+"/1.html", hop.Sitemap, "sitemap"), link(s+"/2.html", hop.Sitemap, "sitemap")}},
			notes: []string{"sitemap:text:2", "sitemap:truncated:max-urls"},
			event: ev("event.action", report.ActionSitemapRead, "event.outcome", "success", "crawler.sitemap.kind", "text",
				"crawler.sitemap.urls.count", 2.0, "crawler.sitemap.truncated", "max-urls")},
		{name: "not a sitemap", path: "/page.html", hops: "M",
			want:  chain.Content{Listed: true},
			notes: []string{"sitemap:not-a-sitemap"},
			event: ev("event.action", report.ActionSitemapRead, "event.outcome", "failure", "event.reason", "not-a-sitemap", "crawler.sitemap.urls.count", 0.0)},
		{name: "sitemap redirected", path: "/moved.xml", hops: "PM",
			want: chain.Content{Listed: true, Files: true, Links: []extract.Outlink{link(s+"/urlset.xml", hop.Redirect, "header/location")}}},
		{name: "sitemap missing", path: "/missing.xml", hops: "M", want: chain.Content{Listed: true}},
		{name: "feed", path: "/rss.xml", hops: "L", feed: true, feeds: feedsOn,
			want:  chain.Content{Listed: true, Links: []extract.Outlink{link(s+"/post/1", hop.Link, "feed"), link(s+"/post/2", hop.Link, "feed")}},
			notes: []string{"feed:rss:2"},
			event: ev("event.action", listing.ActionFeedRead, "event.outcome", "success", "labels.feed_kind", "rss", "labels.feed_links", "2")},
		{name: "feed, truncated, its rules ignored", path: "/rss.xml", hops: "L", feed: true,
			feeds: listing.Feeds{AutoDiscover: true, IgnoreRules: true, Limits: feed.Limits{MaxLinks: 1}},
			want:  chain.Content{Listed: true, IgnoreRules: true, Links: []extract.Outlink{link(s+"/post/1", hop.Link, "feed")}},
			notes: []string{"feed:rss:1", "feed:truncated:max-links"},
			event: ev("event.action", listing.ActionFeedRead, "event.outcome", "success", "labels.feed_kind", "rss", "labels.feed_links", "1",
				"labels.feed_truncated", "max-links")},
		{name: "feed redirected", path: "/moved-feed", hops: "L", feed: true, feeds: feedsOn,
			want: chain.Content{Listed: true, Files: true, Feeds: true, Links: []extract.Outlink{link(s+"/rss.xml", hop.Redirect, "header/location")}}},
		{name: "not a feed", path: "/page.html", hops: "L", feed: true, feeds: feedsOn,
			want:  chain.Content{Listed: true},
			notes: []string{"feed:not-a-feed"},
			event: ev("event.action", listing.ActionFeedRead, "event.outcome", "failure", "event.reason", "not-a-feed", "labels.feed_links", "0")},
		{name: "feed missing", path: "/missing.xml", hops: "L", feed: true, feeds: feedsOn, want: chain.Content{Listed: true}},
		{name: "marked as a feed, feeds off: a sitemap", path: "/rss.xml", hops: "L", feed: true,
			want:  chain.Content{Listed: true},
			notes: []string{"sitemap:not-a-sitemap"},
			event: ev("event.action", report.ActionSitemapRead, "event.outcome", "failure", "event.reason", "not-a-sitemap", "crawler.sitemap.urls.count", 0.0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, path := openEvents(t)
			l := listing.New(tt.sitemaps, tt.feeds, env(front, events), listing.Deps{})
			u := frontier.URL{URL: s + tt.path, Host: hostKey(s), Hops: tt.hops, Via: s + "/", Seed: s + "/", Sitemap: !tt.notFile}
			if tt.feed {
				if err := l.MarkFeed(u.URL); err != nil {
					t.Fatal(err)
				}
			}
			r := fetchRecord(t, client, u)
			if tt.notFile {
				r.Content = tt.want // what the page's extraction found, untouched
			}
			v, err := l.After(t.Context(), r)
			if err != nil || v.Done {
				t.Fatalf("After = %+v, %v; want Proceed", v, err)
			}
			if diff := cmp.Diff(tt.want, r.Content, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.notes, r.Captures[0].Annotations, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if err := l.Recorded(r); err != nil {
				t.Fatal(err)
			}
			l.Release(r)
			var want []map[string]any
			if tt.event != nil {
				tt.event["url.full"], tt.event["crawler.url.hops"] = u.URL, u.Hops
				want = append(want, tt.event)
			}
			if diff := cmp.Diff(want, readEvents(t, path), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReleaseForgets: a document released without being recorded (its records not written)
// has no event, even if Recorded is called for it later.
func TestReleaseForgets(t *testing.T) {
	srv := docSite(t)
	events, path := openEvents(t)
	l := listing.New(listing.Sitemaps{}, listing.Feeds{}, env(openFront(t, t.TempDir()), events), listing.Deps{})
	r := fetchRecord(t, newClient(t), frontier.URL{URL: srv.URL + "/urlset.xml", Host: hostKey(srv.URL), Hops: "M", Sitemap: true})
	if _, err := l.After(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	l.Release(r)
	if err := l.Recorded(r); err != nil {
		t.Fatal(err)
	}
	if es := readEvents(t, path); len(es) != 0 {
		t.Errorf("events %v, want none", es)
	}
}

// TestRecordedEventFails: an event that cannot be written stops the crawl.
func TestRecordedEventFails(t *testing.T) {
	srv := docSite(t)
	client := newClient(t)
	front := openFront(t, t.TempDir())
	for _, tt := range []struct {
		name, path string
		feeds      listing.Feeds
	}{
		{"sitemap", "/urlset.xml", listing.Feeds{}},
		{"feed", "/rss.xml", listing.Feeds{AutoDiscover: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			events, _ := openEvents(t)
			l := listing.New(listing.Sitemaps{}, tt.feeds, env(front, events), listing.Deps{})
			u := frontier.URL{URL: srv.URL + tt.path, Host: hostKey(srv.URL), Hops: "M", Sitemap: true}
			if err := l.MarkFeed(u.URL); err != nil {
				t.Fatal(err)
			}
			r := fetchRecord(t, client, u)
			if _, err := l.After(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			events.Close()
			if err := l.Recorded(r); !errors.Is(err, report.ErrEventsClosed) {
				t.Errorf("Recorded with the events log closed = %v, want %v", err, report.ErrEventsClosed)
			}
		})
	}
}

// TestStart: the configured sitemaps and feeds are queued from the first seed of their origin,
// or from the first seed, those of one seed together; nothing without seeds.
func TestStart(t *testing.T) {
	seeds := []string{"http://a.example/", "http://b.example/", "https://b.example/"}
	from := func(s string) frontier.URL { return frontier.URL{URL: s, Host: hostKey(s), Seed: s} }
	links := func(h byte, ctx string, urls ...string) []extract.Outlink {
		var ls []extract.Outlink
		for _, u := range urls {
			ls = append(ls, extract.Outlink{URL: u, Hop: h, Context: ctx})
		}
		return ls
	}
	tests := []struct {
		name     string
		seeds    []string
		sitemaps []string
		feeds    []string
		want     []queued
	}{
		{name: "nothing configured", seeds: seeds},
		{name: "no seeds", sitemaps: []string{"http://a.example/s.xml"}, feeds: []string{"http://a.example/f.xml"}},
		{name: "by origin", seeds: seeds,
			sitemaps: []string{"http://b.example/1.xml", "http://c.example/s.xml", "https://b.example/s.xml", "http://b.example/2.xml"},
			feeds:    []string{"https://b.example/feed", "http://a.example/feed"},
			want: []queued{
				{From: from("http://b.example/"), Content: chain.Content{Listed: true, Files: true,
					Links: links(hop.Sitemap, "config", "http://b.example/1.xml", "http://b.example/2.xml")}},
				{From: from("http://a.example/"), Content: chain.Content{Listed: true, Files: true,
					Links: links(hop.Sitemap, "config", "http://c.example/s.xml")}},
				{From: from("https://b.example/"), Content: chain.Content{Listed: true, Files: true,
					Links: links(hop.Sitemap, "config", "https://b.example/s.xml")}},
				{From: from("https://b.example/"), Content: chain.Content{Listed: true, Files: true, Feeds: true,
					Links: links(hop.Link, "config/feed", "https://b.example/feed")}},
				{From: from("http://a.example/"), Content: chain.Content{Listed: true, Files: true, Feeds: true,
					Links: links(hop.Link, "config/feed", "http://a.example/feed")}},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &queue{}
			l := listing.New(listing.Sitemaps{URLs: tt.sitemaps}, listing.Feeds{URLs: tt.feeds}, env(nil, nil), listing.Deps{Queue: q.add})
			if err := l.Start(tt.seeds); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, q.take(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("queued (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStartOrigin: a configured document is queued from the seed of its origin however its URL
// is written (the seeds are canonical; the configuration's URLs are not).
func TestStartOrigin(t *testing.T) {
	seeds := []string{"http://a.example/", "http://b.example/"}
	for _, raw := range []string{"http://b.example/s.xml", "http://B.Example/s.xml", "http://b.example:80/s.xml", "HTTP://b.example/s.xml"} {
		t.Run(raw, func(t *testing.T) {
			q := &queue{}
			l := listing.New(listing.Sitemaps{URLs: []string{raw}}, listing.Feeds{}, env(nil, nil), listing.Deps{Queue: q.add})
			if err := l.Start(seeds); err != nil {
				t.Fatal(err)
			}
			got := q.take()
			if len(got) != 1 {
				t.Fatalf("queued %+v, want one call", got)
			}
			if got[0].From.URL != "http://b.example/" {
				t.Errorf("%s queued from %s, want the seed of its origin http://b.example/", raw, got[0].From.URL)
			}
		})
	}
}

// TestStartQueueFails: the queue's error is returned.
func TestStartQueueFails(t *testing.T) {
	boom := errors.New("frontier: disk full")
	for _, tt := range []struct {
		name            string
		sitemaps, feeds []string
	}{
		{"sitemaps", []string{"http://a.example/s.xml"}, nil},
		{"feeds", nil, []string{"http://a.example/f.xml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := &queue{err: boom}
			l := listing.New(listing.Sitemaps{URLs: tt.sitemaps}, listing.Feeds{URLs: tt.feeds}, env(nil, nil), listing.Deps{Queue: q.add})
			if err := l.Start([]string{"http://a.example/"}); !errors.Is(err, boom) {
				t.Errorf("Start = %v, want %v", err, boom)
			}
		})
	}
}

// TestRobotsSitemaps: the Sitemap: lines of a robots.txt are queued from it once per origin
// and crawl (a resumed crawl included), when its host's settings read them.
func TestRobotsSitemaps(t *testing.T) {
	dir := t.TempDir()
	front := openFront(t, dir)
	q := &queue{}
	l := listing.New(listing.Sitemaps{Robots: true}, listing.Feeds{}, env(front, nil), listing.Deps{Queue: q.add,
		RobotsSitemaps: func(host string) bool { return host != "off.example" }})
	robots := func(origin string) frontier.URL {
		return frontier.URL{URL: origin + "/robots.txt", Host: hostKey(origin), Hops: "P", Via: origin + "/", Seed: origin + "/"}
	}
	listed := []string{"/sitemap.xml", "http://cdn.example/s.xml"}
	steps := []struct {
		name   string
		origin string
		listed []string
		want   []queued
	}{
		{"first", "http://a.example", listed, []queued{{Worker: 3, From: robots("http://a.example"), Content: listing.Listed("http://a.example/robots.txt", listed, hop.Sitemap, "robots", true)}}},
		{"again", "http://a.example", listed, nil},
		{"another scheme: another origin", "https://a.example", listed[:1], []queued{{Worker: 3, From: robots("https://a.example"),
			Content: listing.Listed("https://a.example/robots.txt", listed[:1], hop.Sitemap, "robots", true)}}},
		{"none listed", "http://b.example", nil, nil},
		{"listed later", "http://b.example", listed[1:], []queued{{Worker: 3, From: robots("http://b.example"),
			Content: listing.Listed("http://b.example/robots.txt", listed[1:], hop.Sitemap, "robots", true)}}},
		{"host's settings off", "http://off.example", listed, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := l.RobotsSitemaps(3, st.origin, robots(st.origin), st.listed); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(st.want, q.take(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("queued (-want +got):\n%s", diff)
			}
		})
	}
	if got := listing.Listed("http://a.example/robots.txt", listed, hop.Sitemap, "robots", true).Links[0].URL; got != "http://a.example/sitemap.xml" {
		t.Errorf("a relative Sitemap: line resolves to %s, want against the robots.txt", got)
	}

	// A resumed crawl: the origins read are the frontier's.
	if err := front.Close(); err != nil {
		t.Fatal(err)
	}
	front = openFront(t, dir)
	resumed := listing.New(listing.Sitemaps{Robots: true}, listing.Feeds{}, env(front, nil), listing.Deps{Queue: q.add})
	for _, origin := range []string{"http://a.example", "https://a.example", "http://b.example"} {
		if err := resumed.RobotsSitemaps(1, origin, robots(origin), listed); err != nil {
			t.Fatal(err)
		}
	}
	if got := q.take(); len(got) != 0 {
		t.Errorf("resumed: queued %+v again, want nothing", got)
	}
	// Without Deps.RobotsSitemaps, Sitemaps.Robots decides for every host.
	for _, on := range []bool{false, true} {
		l := listing.New(listing.Sitemaps{Robots: on}, listing.Feeds{}, env(openFront(t, t.TempDir()), nil), listing.Deps{Queue: q.add})
		if err := l.RobotsSitemaps(1, "http://c.example", robots("http://c.example"), listed); err != nil {
			t.Fatal(err)
		}
		if got := len(q.take()); got != map[bool]int{false: 0, true: 1}[on] {
			t.Errorf("Sitemaps.Robots %v: %d calls, want %v", on, got, on)
		}
	}
}

// TestRobotsSitemapsQueueFails: an origin whose sitemaps could not be queued is not marked
// read: the next robots.txt of it queues them.
func TestRobotsSitemapsQueueFails(t *testing.T) {
	boom := errors.New("frontier: disk full")
	q := &queue{err: boom}
	l := listing.New(listing.Sitemaps{Robots: true}, listing.Feeds{}, env(openFront(t, t.TempDir()), nil), listing.Deps{Queue: q.add})
	u := frontier.URL{URL: "http://a.example/robots.txt", Host: "a.example", Hops: "P"}
	if err := l.RobotsSitemaps(1, "http://a.example", u, []string{"/s.xml"}); !errors.Is(err, boom) {
		t.Fatalf("RobotsSitemaps = %v, want %v", err, boom)
	}
	q.err = nil
	q.take()
	if err := l.RobotsSitemaps(1, "http://a.example", u, []string{"/s.xml"}); err != nil {
		t.Fatal(err)
	}
	if got := len(q.take()); got != 1 {
		t.Errorf("%d calls after a failed one, want 1", got)
	}
}

// TestPages: a page's feed links stay feeds only with AutoDiscover, and the links (not the
// embeds) of a page a feed's item named are dropped with SkipItemLinks.
func TestPages(t *testing.T) {
	front := openFront(t, t.TempDir())
	const feedURL = "http://a.example/feed.xml"
	links := func() []extract.Outlink {
		return []extract.Outlink{
			{URL: "http://a.example/next", Hop: hop.Link},
			{URL: "http://a.example/other.rss", Hop: hop.Link, Feed: true},
			{URL: "http://a.example/i.png", Hop: hop.Embed},
			{URL: "http://a.example/moved", Hop: hop.Redirect},
		}
	}
	all := []string{"http://a.example/next", "http://a.example/other.rss (feed)", "http://a.example/i.png", "http://a.example/moved"}
	noFeed := []string{"http://a.example/next", "http://a.example/other.rss", "http://a.example/i.png", "http://a.example/moved"}
	skipped := []string{"http://a.example/i.png", "http://a.example/moved"}
	item := frontier.URL{URL: "http://a.example/post/1", Host: "a.example", Hops: "L", Via: feedURL}
	tests := []struct {
		name   string
		feeds  listing.Feeds
		u      frontier.URL
		listed bool
		want   []string
	}{
		{"feeds off", listing.Feeds{}, item, false, noFeed},
		{"auto-discovery", listing.Feeds{AutoDiscover: true}, item, false, all},
		{"a feed's item, its links followed", listing.Feeds{URLs: []string{feedURL}}, item, false, noFeed},
		{"a feed's item, its links skipped", listing.Feeds{URLs: []string{feedURL}, SkipItemLinks: true}, item, false, skipped},
		{"skipped, auto-discovery", listing.Feeds{AutoDiscover: true, SkipItemLinks: true}, item, false, skipped},
		{"a page linked from a page", listing.Feeds{URLs: []string{feedURL}, SkipItemLinks: true},
			frontier.URL{URL: "http://a.example/2", Hops: "L", Via: "http://a.example/"}, false, noFeed},
		{"an embed of a feed's item", listing.Feeds{URLs: []string{feedURL}, SkipItemLinks: true},
			frontier.URL{URL: "http://a.example/frame", Hops: "LE", Via: feedURL}, false, noFeed},
		{"a feed's redirect target (a listing document)", listing.Feeds{URLs: []string{feedURL}, SkipItemLinks: true},
			frontier.URL{URL: "http://a.example/feed2.xml", Hops: "L", Via: feedURL, Sitemap: true}, false, noFeed},
		{"a seed", listing.Feeds{URLs: []string{feedURL}, SkipItemLinks: true}, frontier.URL{URL: "http://a.example/"}, false, noFeed},
		{"listed content untouched", listing.Feeds{}, item, true, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := listing.New(listing.Sitemaps{}, tt.feeds, env(front, nil), listing.Deps{})
			if err := l.MarkFeed(feedURL); err != nil {
				t.Fatal(err)
			}
			p := l.Pages()
			r := &chain.Record{Claim: frontier.NewClaim(tt.u, nil), Content: chain.Content{Links: links(), Listed: tt.listed}}
			v, err := p.(chain.After).After(t.Context(), r)
			if err != nil || v.Done {
				t.Fatalf("After = %+v, %v; want Proceed", v, err)
			}
			var got []string
			for _, o := range r.Content.Links {
				s := o.URL
				if o.Feed {
					s += " (feed)"
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
		})
	}
}

// failingMeta is a frontier whose metadata cannot be read or written.
type failingMeta struct {
	*frontier.Frontier
	err error
}

func (f failingMeta) Meta(string) ([]byte, bool, error) { return nil, false, f.err }
func (f failingMeta) PutMeta(string, []byte) error      { return f.err }

// TestMetaErrors: crawl state that cannot be read or written stops the crawl where it is
// needed (a listing document, the robots.txt sitemaps, a feed's mark); a page whose via cannot
// be looked up keeps its links.
func TestMetaErrors(t *testing.T) {
	boom := errors.New("frontier: disk gone")
	front := failingMeta{openFront(t, t.TempDir()), boom}
	q := &queue{}
	l := listing.New(listing.Sitemaps{Robots: true}, listing.Feeds{AutoDiscover: true, SkipItemLinks: true}, env(front, nil), listing.Deps{Queue: q.add})
	if err := l.MarkFeed("http://a.example/f.xml"); !errors.Is(err, boom) {
		t.Errorf("MarkFeed = %v, want %v", err, boom)
	}
	u := frontier.URL{URL: "http://a.example/robots.txt", Host: "a.example", Hops: "P"}
	if err := l.RobotsSitemaps(1, "http://a.example", u, []string{"/s.xml"}); !errors.Is(err, boom) {
		t.Errorf("RobotsSitemaps = %v, want %v", err, boom)
	}
	if got := q.take(); len(got) != 0 {
		t.Errorf("queued %+v with the crawl state unreadable, want nothing", got)
	}
	doc := &chain.Record{Claim: frontier.NewClaim(frontier.URL{URL: "http://a.example/s.xml", Hops: "M", Sitemap: true}, nil)}
	if _, err := l.After(t.Context(), doc); !errors.Is(err, boom) {
		t.Errorf("After of a listing document = %v, want %v", err, boom)
	}
	page := &chain.Record{Claim: frontier.NewClaim(frontier.URL{URL: "http://a.example/p", Hops: "L", Via: "http://a.example/f.xml"}, nil),
		Content: chain.Content{Links: []extract.Outlink{{URL: "http://a.example/next", Hop: hop.Link}}}}
	if v, err := l.Pages().(chain.After).After(t.Context(), page); err != nil || v.Done || len(page.Content.Links) != 1 {
		t.Errorf("Pages.After = %+v, %v, links %v; want Proceed with the link kept", v, err, page.Content.Links)
	}
}
