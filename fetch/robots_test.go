package fetch

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseRobots(t *testing.T) {
	const ua = "Mozilla/5.0 (compatible; amber/1.0; +https://example.org/bot)"
	const body = `# comment
User-agent: *
Disallow: /private
Allow: /private/ok
Crawl-delay: 2

User-agent: amber
Disallow: /no-amber
Disallow: /*.pdf$
Crawl-delay: 1.5

Sitemap: https://example.org/sitemap.xml
`
	type check struct {
		path  string
		allow bool
	}
	tests := []struct {
		name      string
		status    int
		body      string
		ua        string
		checks    []check
		delay     time.Duration
		temporary bool
		sitemaps  []string
	}{
		{
			name: "2xx obeys the amber group", status: 200, body: body, ua: ua,
			checks: []check{{"/private", true}, {"/no-amber", false}, {"/no-amber?x=1", false},
				{"/a.pdf", false}, {"/a.pdf?x", true}, {"/", true}, {"", true}},
			delay: 1500 * time.Millisecond, sitemaps: []string{"https://example.org/sitemap.xml"},
		},
		{
			name: "other agents get the star group", status: 200, body: body, ua: "otherbot/2.0",
			checks: []check{{"/private", false}, {"/private/ok", true}, {"/no-amber", true}},
			delay:  2 * time.Second, sitemaps: []string{"https://example.org/sitemap.xml"},
		},
		{
			name: "generic browser tokens do not select a group", status: 200, ua: "Mozilla/5.0 Chrome/120",
			body:   "User-agent: mozilla\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n",
			checks: []check{{"/", true}, {"/x", false}},
		},
		{
			name: "empty body allows all", status: 200, body: "", ua: ua,
			checks: []check{{"/", true}},
		},
		{
			name: "disallow all", status: 204, body: "User-agent: *\nDisallow: /\n", ua: ua,
			checks: []check{{"/", false}, {"/a", false}},
		},
		{
			name: "bad crawl-delay is ignored, rules kept", status: 200, ua: ua,
			body:   "Disallow: /orphan\nUser-agent: *\nCrawl-delay: soon\nDisallow: /x\n",
			checks: []check{{"/x", false}, {"/orphan", true}},
		},
		{
			name: "huge crawl-delay capped", status: 200, ua: ua,
			body:   "User-agent: *\nCrawl-delay: 100000\n",
			checks: []check{{"/", true}}, delay: MaxCrawlDelay,
		},
		{name: "404 allows all", status: 404, body: "User-agent: *\nDisallow: /\n", ua: ua, checks: []check{{"/", true}}},
		{name: "401 allows all", status: 401, ua: ua, checks: []check{{"/a", true}}},
		{name: "unresolved 3xx allows all", status: 301, ua: ua, checks: []check{{"/a", true}}},
		{name: "500 disallows all for now", status: 500, ua: ua, checks: []check{{"/", false}}, temporary: true},
		{name: "503 disallows all for now", status: 503, ua: ua, checks: []check{{"/a", false}}, temporary: true},
		{name: "429 is temporary", status: 429, ua: ua, checks: []check{{"/a", false}}, temporary: true},
		{name: "no response is temporary", status: -2, ua: ua, checks: []check{{"/a", false}}, temporary: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ParseRobots(tt.status, []byte(tt.body), tt.ua)
			var got []check
			for _, c := range tt.checks {
				got = append(got, check{c.path, p.Allowed(c.path)})
			}
			if diff := cmp.Diff(tt.checks, got, cmp.AllowUnexported(check{})); diff != "" {
				t.Errorf("Allowed (-want +got):\n%s", diff)
			}
			if p.CrawlDelay() != tt.delay || p.Temporary() != tt.temporary {
				t.Errorf("delay %v temporary %v, want %v %v", p.CrawlDelay(), p.Temporary(), tt.delay, tt.temporary)
			}
			if diff := cmp.Diff(tt.sitemaps, p.Sitemaps()); diff != "" {
				t.Errorf("sitemaps (-want +got):\n%s", diff)
			}
		})
	}
	if !(RobotsPolicy{}).Allowed("/x") {
		t.Errorf("zero RobotsPolicy must allow all")
	}
}

func TestRobotsCache(t *testing.T) {
	c := NewRobotsCache(time.Hour, time.Minute)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := ParseRobots(200, []byte("User-agent: *\nDisallow: /x\n"), "amber")
	tmp := ParseRobots(503, nil, "amber")
	c.Put("http://a.test:80", ok, t0)
	c.Put("http://b.test:80", tmp, t0)
	tests := []struct {
		key   string
		at    time.Duration
		found bool
		allow bool // Allowed("/x") of the found policy
	}{
		{"http://a.test:80", 0, true, false},
		{"http://a.test:80", 59 * time.Minute, true, false},
		{"http://b.test:80", 30 * time.Second, true, false},
		{"http://b.test:80", time.Minute, false, true},
		{"http://a.test:80", time.Hour, false, true},
		{"http://c.test:80", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.key+"@"+tt.at.String(), func(t *testing.T) {
			p, found := c.Get(tt.key, t0.Add(tt.at))
			if found != tt.found || p.Allowed("/x") != tt.allow {
				t.Errorf("found %v allow %v, want %v %v", found, p.Allowed("/x"), tt.found, tt.allow)
			}
		})
	}
}

func TestRobotsCacheConcurrent(t *testing.T) {
	c := NewRobotsCache(0, 0)
	now := time.Now()
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 2000 {
				key := string(rune('a'+g)) + string(rune('a'+i%7))
				c.Put(key, RobotsPolicy{}, now)
				c.Get(key, now.Add(time.Duration(i)*time.Second))
			}
		}()
	}
	for range 4 {
		<-done
	}
}

// TestParseRobotsWith: RobotsRules.AuthDisallows turns a 401 or 403, and only those, into a
// lasting disallow-all; without it every 4xx allows all (RFC 9309).
func TestParseRobotsWith(t *testing.T) {
	const ua = "amber/1.0"
	tests := []struct {
		name      string
		status    int
		rules     RobotsRules
		allow     bool
		temporary bool
	}{
		{"401 allows all by default", 401, RobotsRules{}, true, false},
		{"403 allows all by default", 403, RobotsRules{}, true, false},
		{"401 disallows with AuthDisallows", 401, RobotsRules{AuthDisallows: true}, false, false},
		{"403 disallows with AuthDisallows", 403, RobotsRules{AuthDisallows: true}, false, false},
		{"404 still allows with AuthDisallows", 404, RobotsRules{AuthDisallows: true}, true, false},
		{"407 (proxy auth) still allows with AuthDisallows", 407, RobotsRules{AuthDisallows: true}, true, false},
		{"410 still allows with AuthDisallows", 410, RobotsRules{AuthDisallows: true}, true, false},
		{"429 stays temporary with AuthDisallows", 429, RobotsRules{AuthDisallows: true}, false, true},
		{"503 stays temporary with AuthDisallows", 503, RobotsRules{AuthDisallows: true}, false, true},
		{"200 reads the body with AuthDisallows", 200, RobotsRules{AuthDisallows: true}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ParseRobotsWith(tt.status, []byte("User-agent: *\nDisallow: /private\n"), ua, tt.rules)
			if got := p.Allowed("/page"); got != tt.allow {
				t.Errorf("Allowed(/page) = %v, want %v", got, tt.allow)
			}
			if got := p.Temporary(); got != tt.temporary {
				t.Errorf("Temporary() = %v, want %v", got, tt.temporary)
			}
			if tt.rules == (RobotsRules{}) {
				if q := ParseRobots(tt.status, []byte("User-agent: *\nDisallow: /private\n"), ua); q.Allowed("/page") != p.Allowed("/page") || q.Temporary() != p.Temporary() {
					t.Errorf("ParseRobotsWith with no rules differs from ParseRobots")
				}
			}
		})
	}
}
