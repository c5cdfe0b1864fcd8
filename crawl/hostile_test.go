package crawl_test

import (
	"crypto/sha1"
	"encoding/base32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/hostile"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// Limits of the hostile crawls. The time limits are generous (the machine may be busy, and
// -race is slow) except in the cases that test them, which set short ones (hostileShort), so
// that each stall costs a second or two.
const (
	hostileTimeout         = 30 * time.Second
	hostileShort           = time.Second
	hostileMaxResponseSize = 16 << 20 // above the 200,000-link page (7 MB)
	hostileEndlessSize     = 4 << 20  // MaxResponseSize of the endless body's crawl
	hostileTrapHops        = 20       // Heritrix's default max-hops, for the calendar trap
	hostileParallelCrawls  = 8
)

// shortFirstByte makes a crawl wait hostileShort for a response to begin.
func shortFirstByte(c *crawl.Config) { c.Fetch.FirstByteTimeout = hostileShort }

// shortResponse makes a crawl wait 2*hostileShort for a whole response.
func shortResponse(c *crawl.Config) { c.Fetch.ResponseTimeout = 2 * hostileShort }

// hostileRun is one crawl of a case host (and of the normal host, seeded after it).
type hostileRun struct {
	dir     string
	res     crawl.Result
	err     error
	lines   []report.Line
	records []warccheck.Record // every record of every WARC file, validated
	files   []string           // the WARC files
	took    time.Duration
}

// line returns the last crawl.log line for url; a missing one is an error, and the zero Line
// is returned.
func (r *hostileRun) line(t *testing.T, url string) report.Line {
	t.Helper()
	for i := len(r.lines) - 1; i >= 0; i-- {
		if r.lines[i].URL == url {
			return r.lines[i]
		}
	}
	t.Errorf("no crawl.log line for %.200s", url)
	return report.Line{Status: status.Unattempted, Size: -1}
}

// count returns how many crawl.log lines match.
func (r *hostileRun) count(match func(report.Line) bool) int {
	n := 0
	for _, l := range r.lines {
		if match(l) {
			n++
		}
	}
	return n
}

// response returns the response record of url, or nil.
func (r *hostileRun) response(url string) *warccheck.Record {
	for i := range r.records {
		if rec := &r.records[i]; rec.Type == "response" && rec.TargetURI == url {
			return rec
		}
	}
	return nil
}

// wantLine checks the status of url's crawl.log line and that its annotations include each
// of want (an entry ending in "*" matches any annotation it starts).
func wantLine(t *testing.T, r *hostileRun, url string, code int, want ...string) report.Line {
	t.Helper()
	l := r.line(t, url)
	if l.Status != code {
		t.Errorf("%.200s: status %d, want %d (annotations %v)", url, l.Status, code, l.Annotations)
	}
	for _, w := range want {
		found := slices.ContainsFunc(l.Annotations, func(a string) bool {
			if p, ok := strings.CutSuffix(w, "*"); ok {
				return strings.HasPrefix(a, p)
			}
			return a == w
		})
		if !found {
			t.Errorf("%.200s: annotations %v, want %q among them", url, l.Annotations, w)
		}
	}
	return l
}

// wantCaptured checks that url got a 200 in crawl.log and a response record in the WARC
// (with WARC-Truncated as given, "" for a complete one).
func wantCaptured(t *testing.T, r *hostileRun, url, truncated string) {
	t.Helper()
	ann := []string{}
	if truncated != "" {
		ann = append(ann, "truncated:"+truncated)
	}
	l := wantLine(t, r, url, 200, ann...)
	if truncated == "" && slices.ContainsFunc(l.Annotations, func(a string) bool { return strings.HasPrefix(a, "truncated:") }) {
		t.Errorf("%s: annotations %v, want no truncation", url, l.Annotations)
	}
	rec := r.response(url)
	if rec == nil {
		t.Errorf("%s: no response record in the WARC files", url)
		return
	}
	if rec.HTTPStatus != 200 || rec.Truncated != truncated {
		t.Errorf("%s: WARC response status %d, WARC-Truncated %q; want 200, %q", url, rec.HTTPStatus, rec.Truncated, truncated)
	}
}

// wantFailed checks that url got a failure code in crawl.log and no response record.
func wantFailed(t *testing.T, r *hostileRun, url string, code int, want ...string) {
	t.Helper()
	wantLine(t, r, url, code, want...)
	if rec := r.response(url); rec != nil {
		t.Errorf("%s: failed with %d but has a response record (status %d)", url, code, rec.HTTPStatus)
	}
}

// hostileCase is a case host, how its crawl differs from the others, and what it must show.
type hostileCase struct {
	host string
	// reachable: the case host serves "/" and "/after" (false when robots.txt or TLS keeps the
	// whole host out).
	reachable bool
	config    func(*crawl.Config)
	check     func(t *testing.T, srv *hostile.Server, r *hostileRun)
	// warcio is the payload warcio.js reads from the response record of /case where that is
	// not the payload the record's digest covers (docs/warc.md says why); "" when they agree.
	warcio string
	// headRefused: internetarchive/gowarc's warc verify cannot read the response of /case,
	// whose HTTP head net/http refuses.
	headRefused bool
}

func hostileCases() []hostileCase {
	u := hostile.URL
	return []hostileCase{
		{host: hostile.StallHeaders, reachable: true, config: shortFirstByte, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantFailed(t, r, u(hostile.StallHeaders, "/case"), status.Timeout, "err:*")
		}},
		{host: hostile.StallBody, reachable: true, config: shortResponse, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured(t, r, u(hostile.StallBody, "/case"), "time")
			if l := r.line(t, u(hostile.StallBody, "/case")); l.Size != 100 {
				t.Errorf("/case size %d, want the 100 bytes sent", l.Size)
			}
		}},
		{host: hostile.Slow, reachable: true, config: shortResponse, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured(t, r, u(hostile.Slow, "/case"), "time")
			if l := r.line(t, u(hostile.Slow, "/case")); l.Size < 1 || l.Size > 5 {
				t.Errorf("/case size %d, want the few bytes sent at 1 byte/s within %v", l.Size, 2*hostileShort)
			}
		}},
		{host: hostile.RedirectLoop, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured302(t, r, u(hostile.RedirectLoop, "/case"), "L")
			wantCaptured302(t, r, u(hostile.RedirectLoop, "/loop"), "LR")
			for _, p := range []string{"/case", "/loop"} {
				if n := srv.Hits(hostile.Host(hostile.RedirectLoop), p); n != 1 {
					t.Errorf("%s requested %d times, want once (the loop ends at the seen URL)", p, n)
				}
			}
		}},
		{host: hostile.RedirectChain, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured302(t, r, u(hostile.RedirectChain, "/case"), "L")
			for i := 1; i < hostile.ChainLength; i++ {
				wantCaptured302(t, r, u(hostile.RedirectChain, "/hop/"+strconv.Itoa(i)), "L"+strings.Repeat("R", i))
			}
			end := u(hostile.RedirectChain, "/hop/"+strconv.Itoa(hostile.ChainLength))
			wantCaptured(t, r, end, "")
			if l := r.line(t, end); l.Hops != "L"+strings.Repeat("R", hostile.ChainLength) {
				t.Errorf("end of the chain: hops %q, want L and %d R", l.Hops, hostile.ChainLength)
			}
		}},
		{host: hostile.ShortBody, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured(t, r, u(hostile.ShortBody, "/case"), "disconnect")
			if l := r.line(t, u(hostile.ShortBody, "/case")); l.Size != 1000 {
				t.Errorf("/case size %d, want the 1000 bytes sent", l.Size)
			}
		}},
		{host: hostile.Reset, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured(t, r, u(hostile.Reset, "/case"), "disconnect")
		}},
		{host: hostile.GzipBomb, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// The wire bytes are archived whole (they are small); only the extraction of the
			// inflated payload is bounded.
			wantCaptured(t, r, u(hostile.GzipBomb, "/case"), "")
			if l, want := r.line(t, u(hostile.GzipBomb, "/case")), int64(len(hostile.Bomb(hostile.DefaultBombSize))); l.Size != want {
				t.Errorf("/case size %d, want the %d bytes on the wire", l.Size, want)
			}
		}},
		{host: hostile.Endless, reachable: true,
			config: func(c *crawl.Config) { c.Fetch.MaxResponseSize = hostileEndlessSize },
			check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
				wantCaptured(t, r, u(hostile.Endless, "/case"), "length")
				if l := r.line(t, u(hostile.Endless, "/case")); l.ContentSize() != hostileEndlessSize {
					t.Errorf("/case size %d (whole response %d), want %d in all", l.Size, l.ContentSize(), hostileEndlessSize)
				}
			}},
		{host: hostile.HugeHeader, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// Browsers refuse a header this large too (Chromium: 256 KiB).
			wantFailed(t, r, u(hostile.HugeHeader, "/case"), status.ConnectBroken, "err:*")
		}},
		{host: hostile.BadHeader, reachable: true, headRefused: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// Lines that are not header fields are ignored by browsers; the page is archived as
			// it came (and the WARC must still validate: common checks).
			wantCaptured(t, r, u(hostile.BadHeader, "/case"), "")
		}},
		{host: hostile.BadStatus, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantFailed(t, r, u(hostile.BadStatus, "/case"), status.ConnectBroken, "err:*")
		}},
		{host: hostile.HTTP09, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// No status line: not an HTTP/1.x response (browsers refuse HTTP/0.9 too, except on
			// port 80), so nothing is archived.
			wantFailed(t, r, u(hostile.HTTP09, "/case"), status.ConnectBroken, "err:*")
		}},
		// Chunked framing. The record keeps the bytes up to where the framing breaks (the line
		// that does not parse included); its payload digest is over those bytes as stored when
		// the framing breaks or ends early, over the de-chunked body when it is complete.
		{host: hostile.ChunkBadSize, reachable: true, warcio: "<p>first chunk\nzz\r\n",
			check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
				wantChunked(t, r, u(hostile.ChunkBadSize, "/case"), "unspecified", "f\r\n<p>first chunk\n\r\nzz\r\n")
			}},
		{host: hostile.ChunkBadFirstSize, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantChunked(t, r, u(hostile.ChunkBadFirstSize, "/case"), "unspecified", "zz\r\n")
		}},
		{host: hostile.ChunkLong, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantChunked(t, r, u(hostile.ChunkLong, "/case"), "unspecified", "5\r\n<p>this chunk is much longer than five bytes</p>\r\n")
		}},
		{host: hostile.ChunkUnterminated, reachable: true, warcio: "<p>first chunk\n",
			check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
				wantChunked(t, r, u(hostile.ChunkUnterminated, "/case"), "disconnect", "f\r\n<p>first chunk\n\r\n")
			}},
		{host: hostile.ChunkShort, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantChunked(t, r, u(hostile.ChunkShort, "/case"), "disconnect", "400\r\n<p>announced as 1,024 bytes, sent 41</p>\n")
		}},
		{host: hostile.ChunkExtensions, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantChunked(t, r, u(hostile.ChunkExtensions, "/case"), "", "<p>first chunk\n<p>second chunk</p>\n")
		}},
		{host: hostile.ChunkTrailers, reachable: true, warcio: "<p>first chunk\n<p>second chunk</p>\nX-Checksum: 5d41402a\r\nX-Status: complete\r\n\r\n",
			check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
				wantChunked(t, r, u(hostile.ChunkTrailers, "/case"), "", "<p>first chunk\n<p>second chunk</p>\n")
			}},
		{host: hostile.ManyLinks, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			page := u(hostile.ManyLinks, "/case")
			wantCaptured(t, r, page, "")
			// MaxOutlinks (Heritrix's 6,000) of the 200,000 links are taken, the rest are
			// counted in crawl.log and in the metadata record. The links are off the seed's
			// host, so each one taken is logged as out of scope.
			maxOut := crawl.DefaultConfig().MaxOutlinks
			dropped := strconv.Itoa(hostile.ManyLinksCount - maxOut)
			wantLine(t, r, page, 200, "outlinks-capped:"+dropped)
			if n := r.count(func(l report.Line) bool { return l.Via == page }); n != maxOut {
				t.Errorf("%d crawl.log lines found via the page, want %d", n, maxOut)
			}
			var meta *warccheck.Record
			for i := range r.records {
				if r.records[i].Type == "metadata" && r.records[i].TargetURI == page {
					meta = &r.records[i]
				}
			}
			switch {
			case meta == nil:
				t.Errorf("no metadata record for %s", page)
			case meta.Field("outlinksDropped") != dropped:
				t.Errorf("metadata record of the page: outlinksDropped %q, want %s", meta.Field("outlinksDropped"), dropped)
			}
		}},
		{host: hostile.LongURL, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured(t, r, u(hostile.LongURL, "/case"), "")
			long := u(hostile.LongURL, "/long/"+strings.Repeat("x", hostile.LongURLBytes-len("/long/")))
			// Refused by the URL length limit (Heritrix's 2,083), logged with its reason
			// (scope.ReasonTooLong), never fetched.
			wantLine(t, r, long, status.OutOfScope, "scope:url-too-long")
			if n := srv.Hits(hostile.Host(hostile.LongURL), strings.TrimPrefix(long, "http://"+hostile.Host(hostile.LongURL))); n != 0 {
				t.Errorf("the long URL was requested %d times", n)
			}
			wantCaptured(t, r, u(hostile.LongURL, "/after2"), "")
		}},
		{host: hostile.DeepNesting, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured(t, r, u(hostile.DeepNesting, "/case"), "")
			wantCaptured(t, r, u(hostile.DeepNesting, "/inner"), "")
		}},
		{host: hostile.Robots500, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// A 5xx robots.txt disallows the host for now (RFC 9309, Elastic; Heritrix would
			// allow all) and the robots.txt answer is archived.
			robots := u(hostile.Robots500, "/robots.txt")
			wantLine(t, r, robots, 500)
			if rec := r.response(robots); rec == nil || rec.HTTPStatus != 500 {
				t.Errorf("robots.txt: response record %+v, want one with status 500", rec)
			}
			wantFailed(t, r, u(hostile.Robots500, "/"), status.Robots, "robots-unavailable")
			if n := srv.Hits(hostile.Host(hostile.Robots500), "/"); n != 0 {
				t.Errorf("/ requested %d times under a failing robots.txt", n)
			}
		}},
		{host: hostile.RobotsStall, config: shortFirstByte, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantFailed(t, r, u(hostile.RobotsStall, "/robots.txt"), status.Timeout, "robots")
			wantFailed(t, r, u(hostile.RobotsStall, "/"), status.Robots, "robots-unavailable")
		}},
		{host: hostile.RobotsHuge, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// Archived whole; its first lines (Disallow: /private) are obeyed.
			wantCaptured(t, r, u(hostile.RobotsHuge, "/robots.txt"), "")
			if l := r.line(t, u(hostile.RobotsHuge, "/robots.txt")); l.Size != hostile.RobotsHugeBytes {
				t.Errorf("robots.txt size %d, want %d", l.Size, hostile.RobotsHugeBytes)
			}
			wantFailed(t, r, u(hostile.RobotsHuge, "/private"), status.Robots, "robots")
		}},
		{host: hostile.RobotsLoop, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// A robots.txt redirect chain that does not end is no robots.txt: all allowed.
			wantLine(t, r, u(hostile.RobotsLoop, "/robots.txt"), 302)
			wantLine(t, r, u(hostile.RobotsLoop, "/robots2.txt"), 302)
			wantCaptured(t, r, u(hostile.RobotsLoop, "/case"), "")
		}},
		{host: hostile.TLSStall, config: func(c *crawl.Config) { c.Fetch.ConnectTimeout = 2 * hostileShort }, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantFailed(t, r, u(hostile.TLSStall, "/robots.txt"), status.Timeout, "robots")
			wantFailed(t, r, u(hostile.TLSStall, "/"), status.Robots, "robots-unavailable")
			if srv.StallConns() == 0 {
				t.Error("no connection reached the stalling TLS port")
			}
		}},
		{host: hostile.PlainOnTLS, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantFailed(t, r, u(hostile.PlainOnTLS, "/robots.txt"), status.ConnectFailed, "robots", "err:tls*")
			// A TLS failure does not heal by retrying: the page fails as its robots.txt did.
			wantFailed(t, r, u(hostile.PlainOnTLS, "/"), status.ConnectFailed, "err:tls*")
		}},
		{host: hostile.TLSOK, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			wantCaptured(t, r, u(hostile.TLSOK, "/case"), "")
		}},
		{host: hostile.Calendar, reachable: true,
			config: func(c *crawl.Config) { c.Scope.MaxHops = ptr(hostileTrapHops) },
			check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
				months := r.count(func(l report.Line) bool {
					return l.Status == 200 && strings.Contains(l.URL, "/cal/")
				})
				if months != hostileTrapHops {
					t.Errorf("%d months fetched, want %d (one per hop)", months, hostileTrapHops)
				}
				beyond := r.count(func(l report.Line) bool {
					return l.Status == status.TooManyHops && strings.Contains(l.URL, "/cal/") &&
						slices.Contains(l.Annotations, "scope:"+scope.ReasonMaxHops)
				})
				if beyond != 1 {
					t.Errorf("%d months refused for too many hops, want 1", beyond)
				}
			}},
		{host: hostile.PathTrap, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// As Heritrix's PathologicalPathDecideRule: a segment repeated more than twice.
			wantCaptured(t, r, u(hostile.PathTrap, "/a/"), "")
			wantLine(t, r, u(hostile.PathTrap, "/a/a/"), 200)
			wantLine(t, r, u(hostile.PathTrap, "/a/a/a/"), status.OutOfScope, "scope:trap")
			if n := r.count(func(l report.Line) bool { return strings.Contains(l.URL, "/a/a/a/") }); n != 1 {
				t.Errorf("%d crawl.log lines below /a/a/a/, want its own only", n)
			}
		}},
		{host: hostile.Loopback, reachable: true, check: func(t *testing.T, srv *hostile.Server, r *hostileRun) {
			// The spellings are one URL, the one a browser reads (http://127.0.0.1:PORT/),
			// another host than the seed's: out of scope, never dialled.
			wantCaptured(t, r, u(hostile.Loopback, "/case"), "")
			want := "http://" + srv.Addr + "/"
			wantLine(t, r, want, status.OutOfScope, "scope:"+scope.ReasonOutOfScope)
			for _, l := range r.lines {
				if l.Via == u(hostile.Loopback, "/case") && l.URL != want {
					t.Errorf("crawl.log line for %s found on the page, want only %s", l.URL, want)
				}
			}
			if n := srv.HostConns("127.0.0.1"); n != 0 {
				t.Errorf("%d connections for 127.0.0.1", n)
			}
		}},
	}
}

// wantChunked checks wantCaptured and that the response record's payload digest is the
// SHA-1 of payload.
func wantChunked(t *testing.T, r *hostileRun, url, truncated, payload string) {
	t.Helper()
	wantCaptured(t, r, url, truncated)
	if rec := r.response(url); rec != nil && rec.PayloadDigest != sha1Digest(payload) {
		t.Errorf("%s: WARC-Payload-Digest %s, want %s, the SHA-1 of %q", url, rec.PayloadDigest, sha1Digest(payload), payload)
	}
}

// sha1Digest is the WARC digest of s, "sha1:BASE32".
func sha1Digest(s string) string {
	sum := sha1.Sum([]byte(s))
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

func wantCaptured302(t *testing.T, r *hostileRun, url, hops string) {
	t.Helper()
	l := wantLine(t, r, url, 302)
	if l.Hops != hops {
		t.Errorf("%s: hops %q, want %q", url, l.Hops, hops)
	}
	if rec := r.response(url); rec == nil || rec.HTTPStatus != 302 {
		t.Errorf("%s: response record %+v, want one with status 302", url, rec)
	}
}

func ptr[T any](v T) *T { return &v }

// hostileConfig is the configuration of one hostile crawl: the case host and the normal host
// as seeds, every case host mapped to the server, short time limits.
func hostileConfig(t *testing.T, srv *hostile.Server, dir string, seeds ...string) crawl.Config {
	t.Helper()
	var cts []fetch.ConnectTo
	for _, s := range srv.ConnectTo() {
		ct, err := fetch.ParseConnectTo(s)
		if err != nil {
			t.Fatal(err)
		}
		cts = append(cts, ct)
	}
	cfg := basicConfig(t, nil, dir)
	cfg.Collection = "hostile"
	cfg.Scope.Seeds = nil
	for _, s := range seeds {
		cfg.Scope.Seeds = append(cfg.Scope.Seeds, scope.Seed{URL: s, Type: scope.StandardSeed})
	}
	cfg.HostConcurrency = 1
	cfg.MaxAttempts = 1
	cfg.Fetch.ConnectTo = cts
	cfg.Fetch.ConnectTimeout = hostileTimeout
	cfg.Fetch.FirstByteTimeout = hostileTimeout
	cfg.Fetch.ResponseTimeout = hostileTimeout
	cfg.Fetch.MaxResponseSize = hostileMaxResponseSize
	cfg.Fetch.TempDir = t.TempDir()
	return cfg
}

// TestHostile crawls each case of the hostile server (internal/hostile), in parallel, one
// crawl per case seeded with the case host and then the normal host, and checks for each:
// crawl.log, the WARC records, that every WARC file validates and the CDXJ index matches, and
// that the crawl went on (the case host's /after and the normal host are captured).
func TestHostile(t *testing.T) {
	srv, err := hostile.Start(hostile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cases := hostileCases()
	runs := make([]*hostileRun, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, hostileParallelCrawls)
	root := t.TempDir()
	for i, tc := range cases {
		runs[i] = &hostileRun{dir: filepath.Join(root, tc.host)}
		cfg := hostileConfig(t, srv, runs[i].dir, hostile.URL(tc.host, "/"), hostile.URL(hostile.Normal, "/"))
		if tc.config != nil {
			tc.config(&cfg)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			runs[i].res, runs[i].err = crawl.Run(t.Context(), cfg)
			runs[i].took = time.Since(start)
		}()
	}
	wg.Wait()

	// Read and validate after every crawl ended: gowarc's readers and writers share a global
	// that only each package's own lock guards. warcio.js and warc verify read every run's
	// files in one go each.
	var files []string
	for _, r := range runs {
		r.files, _ = filepath.Glob(filepath.Join(r.dir, crawl.WARCDir, "*.warc.gz"))
		files = append(files, r.files...)
	}
	warcio := map[string][]warccheck.WarcioPayload{}
	for _, p := range warccheck.WarcioPayloads(t, files...) {
		warcio[p.File] = append(warcio[p.File], p)
	}
	ia := map[string]warccheck.IAReport{}
	iaReps, err := warccheck.RunIA(warccheck.IAPath(t), files...)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range iaReps {
		ia[rep.File] = rep
	}
	for i, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			r := runs[i]
			defer func() {
				if t.Failed() {
					for _, l := range r.lines {
						t.Logf("crawl.log: %d %d %.150s %s %v", l.Status, l.Size, l.URL, l.Hops, l.Annotations)
					}
				}
			}()
			t.Logf("crawl took %v", r.took.Round(time.Millisecond))
			if r.err != nil || r.res.End != crawl.EndFinished {
				t.Errorf("crawl: end %q, err %v; want finished, nil", r.res.End, r.err)
			}
			r.lines = crawltest.ReadCrawlLog(t, filepath.Join(r.dir, crawl.CrawlLogFile))
			checkHostileWARC(t, r)
			checkReaders(t, r, tc, warcio, ia)
			if tc.reachable {
				wantCaptured(t, r, hostile.URL(tc.host, "/after"), "")
			}
			wantCaptured(t, r, hostile.URL(hostile.Normal, "/case"), "")
			wantCaptured(t, r, hostile.URL(hostile.Normal, "/after"), "")
			tc.check(t, srv, r)
		})
	}
}

// checkHostileWARC validates every WARC file and the CDXJ index of a run, keeps its records,
// and checks that crawl.log and the WARC agree: a response record for each line with an HTTP
// status, none for a line without.
func checkHostileWARC(t *testing.T, r *hostileRun) {
	t.Helper()
	warcDir := filepath.Join(r.dir, crawl.WARCDir)
	reports, err := warccheck.ValidateDir(warcDir)
	if err != nil {
		t.Errorf("WARC files: %v", err)
	}
	for _, rep := range reports {
		if !rep.OK() {
			t.Errorf("%s: %v %v", filepath.Base(rep.Path), rep.Errors, rep.Dangling)
		}
		if !strings.HasSuffix(rep.Path, ".warc.gz") {
			t.Errorf("WARC file %s not closed", rep.Path)
		}
		r.records = append(r.records, rep.Records...)
	}
	if _, err := os.Stat(filepath.Join(r.dir, crawl.CDXJFile)); err == nil {
		if err := warccheck.CheckCDXJ(filepath.Join(r.dir, crawl.CDXJFile), warcDir); err != nil {
			t.Errorf("CDXJ: %v", err)
		}
	} else if len(r.records) > 0 {
		t.Errorf("WARC records but no index: %v", err)
	}
	for _, l := range r.lines {
		has := slices.ContainsFunc(r.records, func(rec warccheck.Record) bool {
			return (rec.Type == "response" || rec.Type == "revisit") && rec.TargetURI == l.URL
		})
		switch {
		case l.Status > 0 && !has:
			t.Errorf("%.150s: crawl.log %d but no response or revisit record", l.URL, l.Status)
		case l.Status <= 0 && has:
			t.Errorf("%.150s: crawl.log %d but a response record", l.URL, l.Status)
		}
	}
}

// checkReaders checks what warcio.js and internetarchive/gowarc's warc verify make of a run's
// WARC files. warcio.js must compute the payload digest of every response record, except for
// /case where the case says it reads another payload (and then that one). warc verify must
// find every record valid except those it cannot read: a truncated response (net/http fails
// on a body that ends before its framing says) and the case's response when its head is one
// net/http refuses.
func checkReaders(t *testing.T, r *hostileRun, tc hostileCase, warcio map[string][]warccheck.WarcioPayload, ia map[string]warccheck.IAReport) {
	t.Helper()
	byID := map[string]warccheck.Record{}
	for _, rec := range r.records {
		byID[rec.RecordID] = rec
	}
	caseURL := hostile.URL(tc.host, "/case")
	for _, f := range r.files {
		for _, p := range warcio[f] {
			switch {
			case p.TargetURI == caseURL && tc.warcio != "":
				if p.Computed != sha1Digest(tc.warcio) || p.OK() {
					t.Errorf("warcio.js: %s: record digest %s, computed %s; want it to read %q (%s)",
						p.TargetURI, p.Declared, p.Computed, tc.warcio, sha1Digest(tc.warcio))
				}
			case !p.OK():
				t.Errorf("warcio.js: %.150s: record digest %s, computed %s", p.TargetURI, p.Declared, p.Computed)
			}
		}
		rep, ok := ia[f]
		if !ok || !rep.AllRecordsRead || rep.Records == 0 {
			t.Errorf("warc verify did not read %s: %+v", f, rep)
			continue
		}
		for _, p := range rep.Problems {
			_, id, _ := strings.Cut(p, "recordID=")
			id, _, _ = strings.Cut(id, " ")
			rec, ok := byID[id]
			switch {
			case ok && rec.Truncated != "" && strings.HasPrefix(p, "failed to calculate payload digest"):
			case ok && tc.headRefused && rec.TargetURI == caseURL && strings.HasPrefix(p, "failed to read response"):
			default:
				t.Errorf("warc verify %s: %s", filepath.Base(f), p)
			}
		}
	}
}

// TestHostileLoopback: the numeric spellings of 127.0.0.1 browsers read as IPv4
// (http://2130706433:PORT/, http://0x7f.1:PORT/, ...), crawled without AllowPrivate, are one
// URL, http://127.0.0.1:PORT/, refused by the address guard (-7) and never connected to
// (rather than looked up in DNS as host names, -6).
func TestHostileLoopback(t *testing.T) {
	srv, err := hostile.Start(hostile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, port, _ := strings.Cut(srv.Addr, ":")
	var seeds []string
	for _, h := range hostile.LoopbackSpellings {
		seeds = append(seeds, "http://"+h+":"+port+"/")
	}
	cfg := hostileConfig(t, srv, t.TempDir(), seeds...)
	cfg.Fetch.AllowPrivate = false
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("crawl: end %q, err %v; want finished, nil", res.End, err)
	}
	r := &hostileRun{dir: cfg.Dir, lines: crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile))}
	checkHostileWARC(t, r)
	want := "http://" + srv.Addr + "/"
	for _, l := range r.lines {
		if l.URL != want && l.Via != want {
			t.Errorf("crawl.log line for %s (%d), want only %s and its prerequisites", l.URL, l.Status, want)
		}
		if l.Status == status.DNSFailed {
			t.Errorf("%s: DNS lookup failed (-6): the host was not read as an IPv4 address", l.URL)
		}
	}
	// The robots.txt request is refused like any other; the URL gets the refusal too, not
	// a robots.txt outcome: no request can ever be made to the address.
	wantFailed(t, r, strings.TrimSuffix(want, "/")+"/robots.txt", status.InvalidURL, "robots")
	wantFailed(t, r, want, status.InvalidURL, "blocked")
	if n := srv.Conns(); n != 0 {
		t.Errorf("%d connections to the server, want none", n)
	}
}
