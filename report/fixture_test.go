package report

import (
	"time"

	"github.com/amber-crawler/amber/status"
)

// fixture is a realistic small crawl: a seed that redirects, a one-page+ seed with a
// one-hop-off page, a seed whose DNS fails and one never reached; on the site a robots.txt
// disallow, a 404, a duplicate payload, a block rule, a page beyond max hops, URLs left
// queued at a limit; links out of scope to several hosts (one on a port, one partly in scope,
// one logged in crawl.log as -5000).
func fixture() Input {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	const (
		seed1 = "http://example.com/"
		www   = "https://www.example.com/"
		seed2 = "https://docs.example.org/guide/"
		seed3 = "http://down.example.net/"
		seed4 = "http://slow.example.com/"
		about = "https://www.example.com/about.html"
	)
	line := func(ms, status int, size int64, u, hops, via, mime, seed string, ann ...string) Line {
		l := Line{Time: at(ms), Status: status, Size: size, URL: u, Hops: hops, Via: via, MIME: mime,
			Thread: ms % 7, Seed: seed, Annotations: ann}
		if status > 0 {
			l.FetchStart = at(ms - 40)
			l.FetchDur = 35 * time.Millisecond
			l.Digest = "sha1:" + fakeDigest(u)
			// The content size adds the status line and headers to the body (Size).
			l.Extra = map[string]any{"warcFilename": "demo-20260301100000000-00000-host.warc.gz", "warcFileOffset": float64(ms * 10),
				ExtraContentSize: float64(size + 200)}
		}
		return l
	}
	lines := []Line{
		line(1000, 200, 120, "http://example.com/robots.txt", "P", seed1, "text/plain", seed1),
		line(1200, 301, 0, seed1, "", "", "text/html", seed1),
		line(1500, 200, 310, "https://www.example.com/robots.txt", "RP", www, "text/plain; charset=utf-8", seed1),
		line(1800, 200, 5120, www, "R", seed1, "text/html; charset=utf-8", seed1),
		line(2100, 200, 2048, "https://www.example.com/style.css", "RE", www, "text/css", seed1),
		line(2300, 200, 40960, "https://www.example.com/logo.png", "RE", www, "image/png", seed1),
		line(2400, 200, 81920, "https://cdn.example.com/hero.jpg", "RE", www, "image/jpeg", seed1),
		line(2600, 200, 3072, about, "RL", www, "text/html", seed1),
		line(2700, 200, 3072, "https://www.example.com/copy-of-about.html", "RL", www, "text/html", seed1, "duplicate:digest"),
		line(2900, status.Robots, -1, "https://www.example.com/private/secret.html", "RL", www, "unknown", seed1, "robots"),
		line(3000, 404, 512, "https://www.example.com/missing.html", "RL", www, "text/html", seed1),
		line(3100, status.OutOfScope, -1, "http://ads.example.biz/track/pixel.html", "RLL", about, "unknown", seed1, "scope:out-of-scope"),
		line(3200, status.DNSFailed, -1, seed3, "", "", "unknown", seed3),
		line(3300, 200, 7000, seed2, "", "", "text/html", seed2),
		line(3400, 200, 6000, "https://docs.example.org/api/", "L", seed2, "text/html", seed2),
		line(3500, 304, 0, "https://www.example.com/news.html", "RL", www, "text/html", seed1),
	}
	done := func(u string, code int, hops, via, seed string) URLState {
		return URLState{URL: u, State: status.Done, Status: code, Hops: hops, Via: via, Seed: seed}
	}
	rejected := func(u, reason, hops, via, seed string) URLState {
		return URLState{URL: u, State: status.Rejected, Reason: reason, Hops: hops, Via: via, Seed: seed}
	}
	urls := []URLState{
		done(seed1, 301, "", "", seed1),
		done(www, 200, "R", seed1, seed1),
		done(about, 200, "RL", www, seed1),
		done("https://www.example.com/private/secret.html", status.Robots, "RL", www, seed1),
		{URL: seed3, State: status.Failed, Status: status.DNSFailed, Seed: seed3},
		{URL: seed4, State: status.Queued, Seed: seed4},
		{URL: "https://www.example.com/deep/page1.html", State: status.Queued, Hops: "RLL", Via: about, Seed: seed1},
		{URL: "https://www.example.com/deep/page2.html", State: status.Inflight, Hops: "RLL", Via: about, Seed: seed1},
		rejected("https://www.example.com/login?next=/", "block:contains:/login", "RL", www, seed1),
		rejected("https://www.example.com/a/b/c/d.html", "max-hops", "RLLLL", "https://www.example.com/a/b/c/", seed1),
		rejected("https://other.example.org/docs/intro.html", "out-of-scope", "RLL", about, seed1),
		rejected("https://other.example.org/docs/sub/more.html", "out-of-scope", "RLL", about, seed1),
		rejected("http://news.example.net/2026/story.html", "out-of-scope", "RLL", about, seed1),
		rejected("http://news.example.net/about/", "out-of-scope", "RLL", about, seed1),
		rejected("https://twitter.com/share?u=https%3A%2F%2Fwww.example.com%2F", "out-of-scope", "RL", www, seed1),
		rejected("http://intranet.example.com:8080/app/page.html", "out-of-scope", "RLL", about, seed1),
		rejected("http://intranet.example.com:8080/app/list.html", "out-of-scope", "RLL", about, seed1),
		rejected("https://docs.example.org/other/x.html", "out-of-scope", "LL", "https://docs.example.org/api/", seed2),
		rejected("https://docs.example.org/other/y/z.html", "out-of-scope", "LL", "https://docs.example.org/api/", seed2),
		rejected("https://docs.example.org/admin/", "block:regex:^https://docs\\.example\\.org/admin/.*$", "LL", "https://docs.example.org/api/", seed2),
	}
	return Input{
		Collection: "demo",
		Started:    t0,
		Ended:      t0.Add(2*time.Minute + 5250*time.Millisecond),
		EndReason:  "limit:documents",
		Seeds: []SeedInfo{
			{URL: seed1, Type: "standard"},
			{URL: seed2, Type: "one-page+"},
			{URL: seed3, Type: "standard"},
			{URL: seed4, Type: "standard"},
		},
		Lines: lines,
		URLs:  urls,
	}
}

// fakeDigest returns a stable base32-looking digest for a URL.
func fakeDigest(u string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var h uint32 = 2166136261
	for i := 0; i < len(u); i++ {
		h = (h ^ uint32(u[i])) * 16777619
	}
	b := make([]byte, 32)
	for i := range b {
		h = h*1664525 + 1013904223
		b[i] = alphabet[h>>27]
	}
	return string(b)
}
