package config

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
)

// Subcollection is one entry of subcollections: a named part of the crawl (FAST's crawl
// subcollection, §2.2.4.33) whose own settings apply, in place of the collection's, to the
// URLs its rules take. A URL belongs to the first subcollection, in file order, whose rules
// take it; a URL no subcollection takes has the collection's settings.
//
// Settings of a URL (decided by the URL itself): fetcher, schemes, max_hops, headers, proxy,
// response_size and oversize. Settings of a host (host_delay, urls_per_host, sitemaps, and the
// headers and proxy of the host's robots.txt requests): a host belongs to the subcollection
// of the first of its URLs the crawl fetches (claims), for the whole crawl; the crawl keeps
// that choice in its state, so a resumed crawl keeps it.
//
// A key left out takes the collection's value.
type Subcollection struct {
	// Name names the subcollection in crawl.log (annotation sub:NAME) and the reports:
	// letters, digits, '.', '_' and '-'; unique.
	Name string `yaml:"name"`
	// Match and Except say which URLs the subcollection holds: a URL one Match rule takes
	// (no Match rules: every URL) and no Except rule takes. They are scope rules (as
	// scope.accept and scope.block), on the canonical URL; they only say where the
	// subcollection's settings apply, not what is crawled (scope does).
	Match  []RuleSpec `yaml:"match,omitempty"`
	Except []RuleSpec `yaml:"except,omitempty"`
	// Seeds are seeds of the crawl, as the collection's seeds are (FAST's start_uris of the
	// subcollection): they belong to the subcollection when its rules take them.
	Seeds []SeedSpec `yaml:"seeds,omitempty"`
	// Fetcher is "http" or "browser" for the subcollection's URLs (FAST's use_javascript).
	Fetcher string `yaml:"fetcher,omitempty"`
	// Schemes are the schemes its URLs may have, of http and https (FAST's allowed_schemes):
	// a URL of another scheme is left out as a block rule leaves it out.
	Schemes []string `yaml:"schemes,omitempty"`
	// MaxHops bounds the hops from the seed of its URLs, as scope.max_hops does; not more
	// than the collection's (crawlmode DEPTH:n).
	MaxHops *int `yaml:"max_hops,omitempty"`
	// Headers are sent with the requests for its URLs, in place of the collection's fields
	// of the same names (origin_headers still win). Not with the browser fetcher.
	Headers HeaderMap `yaml:"headers,omitempty"`
	// Proxy sends the requests for its URLs through this proxy (as proxy). Not with the
	// browser fetcher anywhere in the crawl.
	Proxy *ProxySpec `yaml:"proxy,omitempty"`
	// ResponseSize bounds one response of its URLs (FAST's cut_off). Not with the browser
	// fetcher.
	ResponseSize ByteSize `yaml:"response_size,omitempty"`
	// Oversize is "truncate" or "drop" for its pages cut at the response size (FAST's
	// truncate).
	Oversize string `yaml:"oversize,omitempty"`
	// HostDelay is the delay between requests to its hosts (FAST's delay): it replaces
	// politeness.host_delay and robots.txt Crawl-delay for them, as politeness.host_delays
	// does (which wins over it).
	HostDelay *time.Duration `yaml:"host_delay,omitempty"`
	// URLsPerHost is the most URLs of one of its hosts fetched (FAST's max_doc); 0: no limit.
	URLsPerHost *int64 `yaml:"urls_per_host,omitempty"`
	// Sitemaps reads the Sitemap: lines of its hosts' robots.txt (FAST's use_sitemaps), as
	// sitemaps.robots does for the collection.
	Sitemaps *bool `yaml:"sitemaps,omitempty"`
}

// AllSeeds returns the collection's seeds followed by each subcollection's, in file order.
func (c *File) AllSeeds() []SeedSpec {
	out := slices.Clip(c.Seeds)
	for _, s := range c.Subcollections {
		out = append(out, s.Seeds...)
	}
	return out
}

// SubcollectionRules is a subcollection checked, its rules parsed and its secrets resolved:
// what the crawl is configured with.
type SubcollectionRules struct {
	Subcollection
	MatchRules, ExceptRules []scope.Rule
	// Header holds Headers, checked, with canonical names and env: values resolved.
	Header http.Header
	// ProxyURL is Proxy with its credentials; nil without one.
	ProxyURL *url.URL
}

// CheckSubcollections checks the subcollections (names, rules, values) and resolves their
// headers and proxies with lookupEnv. The errors name the subcollection
// (subcollections[1] (news): ...) and never contain a secret.
func (c *File) CheckSubcollections(lookupEnv func(string) (string, bool)) ([]SubcollectionRules, error) {
	var out []SubcollectionRules
	seen := map[string]int{}
	for i, s := range c.Subcollections {
		where := fmt.Sprintf("subcollections[%d] (%s)", i, s.Name)
		r, err := s.check(where, lookupEnv)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[s.Name]; dup {
			return nil, fmt.Errorf("%w: %s: the name of subcollections[%d] too: names are unique", ErrConfig, where, j)
		}
		seen[s.Name] = i
		out = append(out, r)
	}
	return out, nil
}

// check checks one subcollection; where names it in errors.
func (s Subcollection) check(where string, lookupEnv func(string) (string, bool)) (SubcollectionRules, error) {
	r := SubcollectionRules{Subcollection: s}
	bad := func(format string, args ...any) (SubcollectionRules, error) {
		return r, fmt.Errorf("%w: %s: "+format, append([]any{ErrConfig, where}, args...)...)
	}
	if !validSubName(s.Name) {
		return bad("name %q: want letters, digits, '.', '_' and '-' (it is a crawl.log annotation, sub:NAME)", s.Name)
	}
	var err error
	if r.MatchRules, err = parseRules(s.Match, where+".match"); err != nil {
		return r, err
	}
	if r.ExceptRules, err = parseRules(s.Except, where+".except"); err != nil {
		return r, err
	}
	for j, sd := range s.Seeds {
		if err := seeds.CheckURL(sd.URL); err != nil {
			return r, fmt.Errorf("%w: %s.seeds[%d] (%s): %w", ErrConfig, where, j, sd.URL, err)
		}
	}
	switch s.Fetcher {
	case "", "http", "browser":
	default:
		return bad("fetcher %q: want http or browser", s.Fetcher)
	}
	if s.Schemes != nil && len(s.Schemes) == 0 {
		return bad("schemes: empty: give http, https or both (left out: the collection's)")
	}
	for _, sc := range s.Schemes {
		if sc != "http" && sc != "https" {
			return bad("schemes: %q: amber crawls http and https only", sc)
		}
	}
	if s.MaxHops != nil && *s.MaxHops < 0 {
		return bad("max_hops %d: must not be negative", *s.MaxHops)
	}
	switch s.Oversize {
	case "", "truncate", "drop":
	default:
		return bad("oversize %q: want truncate or drop", s.Oversize)
	}
	if s.HostDelay != nil && *s.HostDelay < 0 {
		return bad("host_delay %s: must not be negative", *s.HostDelay)
	}
	if s.URLsPerHost != nil && *s.URLsPerHost < 0 {
		return bad("urls_per_host %d: must not be negative", *s.URLsPerHost)
	}
	if r.Header, err = s.Headers.header(where+".headers", lookupEnv); err != nil {
		return r, err
	}
	if s.Proxy != nil {
		if r.ProxyURL, err = s.Proxy.URLWithCredentials(lookupEnv); err != nil {
			return r, fmt.Errorf("%s: %w", where, err)
		}
	}
	return r, nil
}

// validSubName reports whether name is a subcollection name: not empty, of letters, digits,
// '.', '_' and '-'.
func validSubName(name string) bool {
	if name == "" {
		return false
	}
	for _, ch := range name {
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', ch == '.', ch == '_', ch == '-':
		default:
			return false
		}
	}
	return true
}
