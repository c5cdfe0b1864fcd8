package subcoll

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/scope"
)

func rules(t *testing.T, texts ...string) []scope.Rule {
	t.Helper()
	var out []scope.Rule
	for _, s := range texts {
		r, err := scope.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// testSubs are three subcollections: news (one host, but not its archive), shop (a SURT
// prefix; http only, at most 2 hops) and everything else on example.org.
func testSubs(t *testing.T) []Subcollection {
	two := 2
	return []Subcollection{
		{Name: "news", Match: rules(t, `regex:https?://news\.example\.org/.*`), Except: rules(t, "contains:/archive/")},
		{Name: "shop", Match: rules(t, "surt:http://(com,example,shop,"), Schemes: []string{"http"}, MaxHops: &two},
		{Name: "org", Match: rules(t, `regex:https?://([^/]*\.)?example\.org/.*`)},
	}
}

// TestSubcollectionOf: a URL belongs to the first subcollection whose match rules take it
// and whose except rules do not; none: the collection's (nil).
func TestSubcollectionOf(t *testing.T) {
	ss, err := New(testSubs(t), Collection{}, fetch.Config{}, chain.Env{}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	for _, tc := range []struct {
		url, want string
	}{
		{"http://news.example.org/", "news"},
		{"https://news.example.org/2026/a.html", "news"},
		{"http://news.example.org/archive/2001/", "org"}, // news' except rule: the next one takes it
		{"http://www.example.org/", "org"},
		{"http://example.org/", "org"},
		{"http://notexample.org/", ""}, // example.org's rule is not a string suffix
		{"http://shop.example.com/cart", "shop"},
		{"http://www.example.com/", ""},
	} {
		t.Run(tc.url, func(t *testing.T) {
			got := ""
			if s := ss.of(tc.url); s != nil {
				got = s.Name
			}
			if got != tc.want {
				t.Errorf("of(%s) = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
}

// TestSubcollectionAddr: a subcollection's ip rules are decided on the address of the URL's
// host (the crawl's address book), and a host without an address is not taken by them; the
// crawl refuses them with a proxy.
func TestSubcollectionAddr(t *testing.T) {
	subs := []Subcollection{
		{Name: "lan", Match: rules(t, "ip:10.0.0.0/8"), Except: rules(t, "ip:10.9.0.0-255")},
		{Name: "rest"},
	}
	addrs := map[string]string{"a.test": "10.1.2.3", "b.test": "10.9.0.7", "c.test": "192.0.2.1"}
	addr := func(u string) netip.Addr {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := netip.ParseAddr(addrs[p.Hostname()]) // unknown: the zero Addr
		return a
	}
	ss, err := New(subs, Collection{}, fetch.Config{}, chain.Env{}, Deps{Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	if !ss.NeedsAddr() {
		t.Fatal("NeedsAddr() = false with ip rules")
	}
	for _, tc := range []struct{ url, want string }{
		{"http://a.test/", "lan"},
		{"http://b.test/x", "rest"}, // the except rule's range
		{"http://c.test/", "rest"},
		{"http://unresolved.test/", "rest"},
	} {
		got := ""
		if s := ss.of(tc.url); s != nil {
			got = s.Name
		}
		if got != tc.want {
			t.Errorf("of(%s) = %q, want %q", tc.url, got, tc.want)
		}
	}

	ps, err := New(testSubs(t), Collection{}, fetch.Config{}, chain.Env{}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	if ps.NeedsAddr() {
		t.Error("NeedsAddr() = true without ip rules")
	}
}

// TestSubDecide: a subcollection's schemes and max hops narrow what scope let in; what scope
// left out stays out, and embeds of a page within the bound stay in.
func TestSubDecide(t *testing.T) {
	subs := []Subcollection{
		{Name: "deep", Match: rules(t, "contains:deep"), Schemes: []string{"https"}, MaxHops: new(2)},
	}
	for _, fl := range []scope.Flavour{scope.Standard, scope.Brozzler} {
		ss, err := New(subs, Collection{Flavour: fl}, fetch.Config{}, chain.Env{}, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		in := scope.Decision{In: true, Reason: scope.ReasonAcceptPrefix + "regex:.*"}
		for _, tc := range []struct {
			name, url, hops string
			d               scope.Decision
			want            string // the reason; "" in
		}{
			{"not in a subcollection", "http://a.example/x", "LLLL", in, ""},
			{"http left out", "http://deep.example/x", "L", in, "block:regex:http://.*"},
			{"https within the hops", "https://deep.example/x", "LL", in, ""},
			{"beyond the hops", "https://deep.example/x", "LLL", in, scope.ReasonMaxHops},
			{"an embed beyond", "https://deep.example/x.png", "LLE", scope.Decision{In: true, Reason: scope.ReasonEmbed}, ""},
			{"out stays out", "https://deep.example/x", "L", scope.Decision{Reason: scope.ReasonOutOfScope}, scope.ReasonOutOfScope},
		} {
			t.Run(string(fl)+"/"+tc.name, func(t *testing.T) {
				got := ss.Decide(tc.url, tc.hops, tc.d)
				reason := got.Reason
				if got.In {
					reason = ""
				}
				if reason != tc.want {
					t.Errorf("Decide(%s, %s) = %+v, want reason %q", tc.url, tc.hops, got, tc.want)
				}
			})
		}
		ss.Close()
	}
}

// TestSubClients: a subcollection with headers, a proxy or a response size has a client of
// its own; one without uses the crawl's.
func TestSubClients(t *testing.T) {
	proxy, _ := url.Parse("http://proxy.example:3128")
	subs := []Subcollection{
		{Name: "h", Header: http.Header{"X-A": {"1"}}},
		{Name: "p", Proxy: proxy},
		{Name: "s", MaxResponseSize: 10},
		{Name: "none", HostDelay: new(time.Second)},
	}
	ss, err := New(subs, Collection{}, fetch.Config{UserAgent: "t"}, chain.Env{}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	for _, s := range ss.list {
		if own := s.client != nil; own != (s.Name != "none") {
			t.Errorf("%s: own client %v", s.Name, own)
		}
	}
	if _, err := New(subs, Collection{}, fetch.Config{UserAgent: "t", ConnectTo: []fetch.ConnectTo{{}}}, chain.Env{}, Deps{}); err == nil {
		t.Error("a subcollection's proxy with connect_to: no error")
	}
}

// TestBindHost: a host belongs to the subcollection of its first claimed URL, and keeps it
// across runs (the frontier holds the choice); a subcollection the config no longer has
// gives way to the one the URL is in now.
func TestBindHost(t *testing.T) {
	dir := t.TempDir()
	subs := []Subcollection{
		{Name: "news", Match: rules(t, "contains:news"), Except: rules(t, "contains:/archive/"), URLsPerHost: new(int64(2)), HostDelay: new(time.Second)},
	}
	run := func(subs []Subcollection, binds [][2]string) map[string]int64 {
		t.Helper()
		front, err := frontier.Open(frontier.Config{Dir: dir, HostDelay: time.Second, HostConcurrency: 1, MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer front.Close()
		ss, err := New(subs, Collection{}, fetch.Config{}, chain.Env{Front: front}, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		got := map[string]int64{}
		for _, b := range binds {
			r := &chain.Record{Claim: frontier.NewClaim(frontier.URL{URL: b[1], Host: b[0]}, nil),
				Settings: &chain.Settings{URLsPerHost: 100}}
			if _, err := ss.Before(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			got[b[0]] = r.Settings.URLsPerHost
		}
		return got
	}
	first := run(subs, [][2]string{
		{"a.news.example", "http://a.news.example/archive/1"}, // the except rule: the collection's
		{"a.news.example", "http://a.news.example/"},          // bound already
		{"b.news.example", "http://b.news.example/"},
		{"www.example", "http://www.example/"},
	})
	want := map[string]int64{"a.news.example": 100, "b.news.example": 2, "www.example": 100}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	// A resumed crawl: the same hosts met first with other URLs keep their subcollections.
	again := run(subs, [][2]string{
		{"a.news.example", "http://a.news.example/"},
		{"b.news.example", "http://b.news.example/archive/2"},
	})
	if diff := cmp.Diff(map[string]int64{"a.news.example": 100, "b.news.example": 2}, again); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
	// The subcollection renamed: b's binding is void, and its URL decides again.
	subs[0].Name = "press"
	subs[0].URLsPerHost = new(int64(3))
	renamed := run(subs, [][2]string{{"b.news.example", "http://b.news.example/"}})
	if diff := cmp.Diff(map[string]int64{"b.news.example": 3}, renamed); diff != "" {
		t.Errorf("renamed (-want +got):\n%s", diff)
	}
}
