package crawl

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/subcoll"
)

// TestValidateSubcollections: what the crawl refuses, each with its field.
func TestValidateSubcollections(t *testing.T) {
	proxy, _ := url.Parse("http://proxy.example:3128")
	for _, tc := range []struct {
		name    string
		fetcher string
		hops    *int
		flavour scope.Flavour
		subs    []subcoll.Subcollection
		field   string // "" valid
	}{
		{name: "valid", subs: []subcoll.Subcollection{{Name: "a.b_c-1", Header: http.Header{"X": {"1"}}}, {Name: "b", Fetcher: FetcherBrowser}}},
		{name: "no name", subs: []subcoll.Subcollection{{}}, field: "Subcollections[0]"},
		{name: "name with space", subs: []subcoll.Subcollection{{Name: "a b"}}, field: "Subcollections[0]"},
		{name: "names twice", subs: []subcoll.Subcollection{{Name: "a"}, {Name: "a"}}, field: "Subcollections[1]"},
		{name: "fetcher", subs: []subcoll.Subcollection{{Name: "a", Fetcher: "chrome"}}, field: "Subcollections[0]"},
		{name: "scheme", subs: []subcoll.Subcollection{{Name: "a", Schemes: []string{"ftp"}}}, field: "Subcollections[0]"},
		{name: "no schemes", subs: []subcoll.Subcollection{{Name: "a", Schemes: []string{}}}, field: "Subcollections[0]"},
		{name: "hops beyond the collection's", hops: new(3), subs: []subcoll.Subcollection{{Name: "a", MaxHops: new(4)}}, field: "Subcollections[0]"},
		{name: "hops within the collection's", hops: new(3), subs: []subcoll.Subcollection{{Name: "a", MaxHops: new(3)}}},
		{name: "hops with elastic", flavour: scope.Elastic, subs: []subcoll.Subcollection{{Name: "a", MaxHops: new(3)}}, field: "Subcollections[0]"},
		{name: "negative delay", subs: []subcoll.Subcollection{{Name: "a", HostDelay: new(-time.Second)}}, field: "Subcollections[0]"},
		{name: "headers rendered", subs: []subcoll.Subcollection{{Name: "a", Fetcher: FetcherBrowser, Header: http.Header{"X": {"1"}}}}, field: "Subcollections[0]"},
		{name: "size in a browser crawl", fetcher: FetcherBrowser, subs: []subcoll.Subcollection{{Name: "a", MaxResponseSize: 10}}, field: "Subcollections[0]"},
		{name: "size with http in a browser crawl", fetcher: FetcherBrowser, subs: []subcoll.Subcollection{{Name: "a", Fetcher: FetcherHTTP, MaxResponseSize: 10}}},
		{name: "proxy with a browser elsewhere", subs: []subcoll.Subcollection{{Name: "a", Proxy: proxy}, {Name: "b", Fetcher: FetcherBrowser}}, field: "Subcollections[0]"},
		{name: "proxy in an http crawl", subs: []subcoll.Subcollection{{Name: "a", Proxy: proxy}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Dir = t.TempDir()
			cfg.Scope = scope.Config{Flavour: tc.flavour, MaxHops: tc.hops, Seeds: []scope.Seed{{URL: "http://a.example/"}}}
			if tc.fetcher != "" {
				cfg.Fetcher = tc.fetcher
			}
			cfg.Subcollections = tc.subs
			err := cfg.Validate()
			var fe *FieldError
			switch {
			case tc.field == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tc.field != "" && !errors.As(err, &fe):
				t.Errorf("Validate = %v, want a *FieldError for %s", err, tc.field)
			case tc.field != "" && fe.Field != tc.field:
				t.Errorf("Validate: field %s (%v), want %s", fe.Field, err, tc.field)
			}
		})
	}
}

// TestSubcollectionAddrProxy: the crawl refuses a subcollection's ip rules with a proxy.
func TestSubcollectionAddrProxy(t *testing.T) {
	r, err := scope.ParseRule("ip:10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Subcollections = []subcoll.Subcollection{{Name: "lan", Match: []scope.Rule{r}}}
	cfg.Dir = t.TempDir()
	cfg.Scope.Seeds = []scope.Seed{{URL: "http://a.test/"}}
	cfg.Fetch.Proxy = &url.URL{Scheme: "http", Host: "127.0.0.1:1"}
	_, err = Run(t.Context(), cfg)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Subcollections" {
		t.Errorf("Run with a proxy and subcollection ip rules: err %v, want a FieldError on Subcollections", err)
	}
}
