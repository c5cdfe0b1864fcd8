package fetch

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// MaxRobotsBytes is how much of a robots.txt body ParseRobots reads (Google's limit, RFC
// 9309 §2.5); the rest is ignored.
const MaxRobotsBytes = 500 << 10

// MaxCrawlDelay caps the Crawl-delay a robots.txt can impose.
const MaxCrawlDelay = 10 * time.Minute

// RobotsPolicy is what a robots.txt says to one user agent. The zero value allows all.
type RobotsPolicy struct {
	disallowAll bool
	temporary   bool
	group       *robotstxt.Group // nil: allow all
	delay       time.Duration
	sitemaps    []string
}

// ParseRobots builds the policy for userAgent from a robots.txt fetch outcome, following
// Elastic's web crawler: 2xx obeys the body; 4xx (permanent error) allows all; 5xx
// (temporary error) disallows all with Temporary()==true so that it is fetched again soon.
// 429 Too Many Requests counts as a temporary error, as for Google. A 3xx is followed by the
// caller (up to 5 redirects); passed here, an unresolved 3xx allows all. Any other status
// (0 or negative for "no response", 1xx, >= 600) is a temporary disallow-all.
//
// The group applied is the most specific one naming a product token of userAgent ("amber"
// for "Mozilla/5.0 (compatible; amber/1.0; +https://...)"), else "*". Lines the parser
// cannot read (an unparsable Crawl-delay, a rule before any User-agent) are ignored, and
// only the first MaxRobotsBytes of the body are read.
func ParseRobots(status int, body []byte, userAgent string) RobotsPolicy {
	return ParseRobotsWith(status, body, userAgent, RobotsRules{})
}

// RobotsRules changes how ParseRobotsWith reads a robots.txt fetch outcome. The zero value
// is ParseRobots's reading.
type RobotsRules struct {
	// AuthDisallows makes a 401 or 403 answer disallow all, permanently (FAST's
	// robots_auth_ignore=no: a site whose robots.txt needs authentication is not crawled),
	// where RFC 9309 §2.3.1.3 and ParseRobots read every 4xx as allowing all.
	AuthDisallows bool
}

// ParseRobotsWith is ParseRobots with rules: see RobotsRules for what each changes.
func ParseRobotsWith(status int, body []byte, userAgent string, rules RobotsRules) RobotsPolicy {
	switch {
	case status >= 200 && status < 300:
	case status >= 300 && status < 400:
		return RobotsPolicy{}
	case status == 429:
		return RobotsPolicy{disallowAll: true, temporary: true}
	case (status == 401 || status == 403) && rules.AuthDisallows:
		return RobotsPolicy{disallowAll: true}
	case status >= 400 && status < 500:
		return RobotsPolicy{}
	default:
		return RobotsPolicy{disallowAll: true, temporary: true}
	}
	if len(body) > MaxRobotsBytes {
		body = body[:MaxRobotsBytes]
	}
	data, err := robotstxt.FromBytes(body)
	if err != nil {
		data, err = robotstxt.FromBytes(sanitizeRobots(body))
		if err != nil {
			return RobotsPolicy{}
		}
	}
	g := findGroup(data, userAgent)
	p := RobotsPolicy{group: g, sitemaps: data.Sitemaps}
	if g != nil {
		p.delay = min(g.CrawlDelay, MaxCrawlDelay)
		if g.CrawlDelay < 0 { // a huge value overflowed the conversion
			p.delay = MaxCrawlDelay
		}
	}
	return p
}

// genericTokens are product tokens that name browsers rather than crawlers.
var genericTokens = map[string]bool{
	"mozilla": true, "compatible": true, "applewebkit": true, "khtml": true, "like": true,
	"gecko": true, "chrome": true, "safari": true, "headlesschrome": true, "firefox": true,
	"windows": true, "linux": true, "macintosh": true, "x11": true, "edg": true,
}

// findGroup returns the group for the most specific product token of ua, else the "*"
// group (nil when there is none).
func findGroup(data *robotstxt.RobotsData, ua string) *robotstxt.Group {
	fallback := data.FindGroup("")
	for _, tok := range strings.FieldsFunc(ua, func(r rune) bool {
		return r == ' ' || r == ';' || r == '(' || r == ')' || r == ',' || r == '+'
	}) {
		name, _, _ := strings.Cut(tok, "/")
		if name == "" || genericTokens[strings.ToLower(name)] {
			continue
		}
		if g := data.FindGroup(name); g != fallback {
			return g
		}
	}
	return fallback
}

// sanitizeRobots drops the lines robotstxt rejects (and with them the whole file): a
// non-numeric or out-of-range Crawl-delay, and rules before the first User-agent.
func sanitizeRobots(body []byte) []byte {
	var out bytes.Buffer
	seenAgent := false
	for _, line := range bytes.Split(body, []byte("\n")) {
		content := line
		if i := bytes.IndexByte(content, '#'); i >= 0 {
			content = content[:i]
		}
		key, value, _ := bytes.Cut(content, []byte(":"))
		k := strings.ToLower(strings.TrimSpace(string(key)))
		v := strings.TrimSpace(string(value))
		switch k {
		case "user-agent", "useragent":
			seenAgent = true
		case "allow", "disallow":
			if !seenAgent {
				continue
			}
		case "crawl-delay", "crawldelay":
			f, err := strconv.ParseFloat(v, 64)
			if !seenAgent || err != nil || f < 0 || f > MaxCrawlDelay.Seconds() {
				continue
			}
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// Allowed reports whether the path (with its query, "" meaning "/") may be fetched.
func (p RobotsPolicy) Allowed(pathAndQuery string) bool {
	if p.disallowAll {
		return false
	}
	if p.group == nil {
		return true
	}
	if pathAndQuery == "" {
		pathAndQuery = "/"
	}
	return p.group.Test(pathAndQuery)
}

// CrawlDelay returns the Crawl-delay of the applicable group (0 when none), at most
// MaxCrawlDelay.
func (p RobotsPolicy) CrawlDelay() time.Duration { return p.delay }

// Temporary reports whether the policy is the disallow-all of a temporary error (5xx, 429,
// no response): fetch robots.txt again after a while.
func (p RobotsPolicy) Temporary() bool { return p.temporary }

// Sitemaps returns the Sitemap URLs the robots.txt lists, as written.
func (p RobotsPolicy) Sitemaps() []string { return append([]string(nil), p.sitemaps...) }

// RobotsCache holds robots policies per host key ("scheme://host:port"). It is safe for
// concurrent use; entries expire.
type RobotsCache struct {
	ttl, temporaryTTL time.Duration

	mu      sync.Mutex // guards entries and puts
	entries map[string]robotsEntry
	puts    int
}

type robotsEntry struct {
	policy  RobotsPolicy
	expires time.Time
}

// NewRobotsCache returns a cache that keeps a policy for ttl (default 24h when <= 0), and a
// Temporary one for temporaryTTL (default 10m when <= 0).
func NewRobotsCache(ttl time.Duration, temporaryTTL time.Duration) *RobotsCache {
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	if temporaryTTL <= 0 {
		temporaryTTL = 10 * time.Minute
	}
	return &RobotsCache{ttl: ttl, temporaryTTL: temporaryTTL, entries: map[string]robotsEntry{}}
}

// Get returns the policy stored for key unless it has expired at now.
func (c *RobotsCache) Get(key string, now time.Time) (RobotsPolicy, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return RobotsPolicy{}, false
	}
	if !now.Before(e.expires) {
		delete(c.entries, key)
		return RobotsPolicy{}, false
	}
	return e.policy, true
}

// Put stores p for key as of now, replacing any previous entry.
func (c *RobotsCache) Put(key string, p RobotsPolicy, now time.Time) {
	ttl := c.ttl
	if p.Temporary() {
		ttl = c.temporaryTTL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = robotsEntry{policy: p, expires: now.Add(ttl)}
	c.puts++
	if c.puts%1024 == 0 {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
	}
}
