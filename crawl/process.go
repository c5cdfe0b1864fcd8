package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/warc"
)

// process takes one claimed URL through the pipeline, the same for both fetchers: robots.txt,
// the fetch, retries, the records of every exchange the fetch made, the page's links through
// nofollow and scope into the frontier, the search document, and the URL marked done. It
// returns an error only when the crawl must stop (the WARC or the frontier cannot be written).
func (c *crawler) process(ctx context.Context, worker int, cl *frontier.Claim) error {
	u := cl.URL
	// Queued before an operator blocked it (ctl block): refused now, not fetched.
	if refused, err := c.refuseBlocked(worker, cl); refused || err != nil {
		return err
	}
	if err := c.bindHost(u); err != nil { // its subcollection's settings (subcoll.go)
		c.unreserve()
		return err
	}
	// A given-up host, or one that had its URLs (SiteLimits), is not asked for more.
	slot, refused, err := c.sites.claim(worker, cl)
	if refused || err != nil {
		return err
	}
	defer slot.release() // unless the URL got a response (keep)
	if proceed, err := c.obeyRobots(ctx, worker, cl); !proceed || err != nil {
		return err
	}
	req := fetch.Request{URL: u.URL}
	if u.Via != "" {
		req.Header = http.Header{"Referer": {u.Via}}
	}
	posted := c.withPayload(&req) // Config.PostPayloads
	orig, err := c.conditional(&req, u)
	if err != nil {
		c.unreserve()
		return fmt.Errorf("look up earlier capture: %w", err)
	}
	pass := c.addrs.enter(ctx, u)                 // Config.PerIP waits; the address check knows u (ipgate.go)
	res, err := c.fetchPage(ctx, worker, cl, req) // with the form logins (login.go)
	pass.leave()
	// The host's delay runs from the end of the response, not from when the page is done.
	if eerr := c.front.Ended(cl, time.Now()); eerr != nil {
		if res != nil {
			res.Close()
		}
		c.unreserve()
		if ctx.Err() != nil {
			return nil
		}
		return c.frontierErr(eerr)
	}
	if err != nil {
		c.unreserve()
		if ctx.Err() != nil {
			return nil // shutting down: the claim goes back to the queue on the next run
		}
		if fatal := loginFatal(err); fatal != nil {
			return fatal
		}
		if err := c.sites.countFailure(u, err); err != nil {
			return err
		}
		return c.fetchFailed(worker, cl, err)
	}
	defer res.Close()
	c.sites.answered(u.Host)
	if retried, err := c.retryLater(cl, res.Exchanges[0]); retried || err != nil {
		return err
	}
	if err := slot.keep(); err != nil {
		return err
	}
	if u.Sitemap {
		return c.processSitemap(worker, cl, res)
	}

	caps, doc := c.captures(u, res)
	pass.note(&caps[0]) // ip-wait:ADDRESS (ipgate.go)
	c.noteSubs(res, caps)
	if posted {
		notePosted(&caps[0])
	}
	if err := c.markRewritten(u, &caps[0]); err != nil {
		return err
	}
	var pg page
	switch {
	case orig != nil && res.Exchanges[0].StatusCode == 304:
		// Not modified since the earlier capture: a revisit of it, and no body to find
		// links in (as Heritrix, which extracts nothing from a 304).
		caps[0].notModified = orig
	case c.dropOversize(res.Exchanges[doc], &caps[doc]):
		// Cut at the response size limit and Config.DropOversize: archived as it was cut,
		// but neither its links nor its search document are used.
	case c.excluded(res.Exchanges[doc], &caps[doc]):
		// Of a type or with a header field Config.Content leaves out: archived, but neither
		// its links nor its search document are used (contentfilter.go).
	default:
		pg = c.analyse(u, res, doc)
		c.searchLinks(&pg, res.Exchanges[doc], res.Render != nil, &caps[doc])
	}
	links, denied := c.obeyNofollow(pg)
	decided := c.decide(u, links)
	caps[0] = decided.annotate(caps[0], pg.dropped)
	recs, err := c.recordAll(worker, u, res, caps)
	if err != nil {
		return err
	}
	if err := c.recordRefused(worker, u, res); err != nil {
		return err
	}
	docURL := u.URL
	if doc > 0 {
		docURL = res.Exchanges[doc].URL
	}
	if err := c.writeDocument(u, docURL, pg, res.Exchanges[doc], recs[doc]); err != nil {
		return err
	}
	if err := c.contentEvent(u, docURL, caps[doc]); err != nil {
		return err
	}
	for _, d := range denied {
		info := report.URLInfo{URL: d, Hops: u.Hops + string(hop.Link), Via: u.URL, Seed: u.Seed}
		if err := c.events.URLDiscoverDenied(info, report.DenyNofollow, ""); err != nil {
			return fmt.Errorf("write nofollow event: %w", err)
		}
	}
	// The outlinks are in the frontier before the page is done: a kill between the two
	// refetches the page, and never loses what it linked to.
	if err := c.enqueue(worker, u, decided); err != nil {
		return err
	}
	return c.frontierErr(c.front.Done(cl))
}

// fetcherFor picks the fetcher of a URL: with the browser fetcher, URLs a browser navigates
// to (seeds, links, redirects, sitemap entries) are loaded as pages; everything else (sitemap
// files too, and URLs requested with a POST, Config.PostPayloads), and everything with the
// plain fetcher, is one HTTP exchange.
func (c *crawler) fetcherFor(u frontier.URL) fetch.Fetcher {
	sub := c.subOf(u.URL) // Config.Subcollections: its fetcher and client
	if c.renders(sub) && !u.Sitemap && hop.Navigates(u.Hops) && !c.posts(u.URL) {
		return c.browser
	}
	return c.clientOf(sub)
}

// obeyRobots checks robots.txt for the claimed URL and records a URL it keeps out. It reports
// whether to go on and fetch the URL.
func (c *crawler) obeyRobots(ctx context.Context, worker int, cl *frontier.Claim) (bool, error) {
	if c.cfg.IgnoreRobots {
		return true, nil
	}
	u := cl.URL
	verdict, ferr, err := c.robots.check(ctx, worker, cl)
	if err != nil {
		c.unreserve()
		if ctx.Err() != nil {
			return false, nil // shutting down: the claim goes back to the queue on the next run
		}
		return false, err
	}
	switch verdict {
	case robotsFailed:
		c.unreserve()
		return false, c.fetchFailed(worker, cl, ferr)
	case robotsDisallowed:
		c.unreserve()
		if err := c.logLine(report.Line{Status: status.Robots, Size: -1, URL: u.URL, Hops: u.Hops, Via: u.Via,
			Thread: worker, Seed: u.Seed, Annotations: []string{"robots"}}); err != nil {
			return false, err
		}
		info := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
		if err := c.events.URLDiscoverDenied(info, report.DenyRobots, ""); err != nil {
			return false, fmt.Errorf("write robots event: %w", err)
		}
		return false, c.frontierErr(c.front.Failed(cl, status.Robots))
	case robotsUnavailable:
		// robots.txt answered 5xx or not at all: disallow for now, try again later.
		c.unreserve()
		retried, err := c.retryOrFail(cl, c.cfg.MaxAttempts, status.Robots)
		if err != nil {
			return false, c.frontierErr(err)
		}
		if !retried {
			return false, c.logLine(report.Line{Status: status.Robots, Size: -1, URL: u.URL, Hops: u.Hops, Via: u.Via,
				Thread: worker, Seed: u.Seed, Annotations: []string{"robots-unavailable", attemptsNote(u.Attempts + 1)}})
		}
		return false, nil
	}
	return true, nil
}

// retryLater puts the claim back in the queue when its response's status is retried (a 5xx
// or a 429, or as Config.Retries says) and attempts remain, honouring Retry-After (which
// also slows the whole host down). It reports whether the URL was put back; its exchanges
// are then not archived.
func (c *crawler) retryLater(cl *frontier.Claim, ex *fetch.Exchange) (bool, error) {
	u := cl.URL
	if u.Attempts+1 >= c.cfg.statusAttempts(ex.StatusCode) {
		return false, nil
	}
	c.unreserve()
	now := time.Now()
	notBefore := now.Add(c.backoff(u.Attempts))
	if ra, ok := retryAfter(ex.Header.Get("Retry-After"), now); ok && (ex.StatusCode == 429 || ex.StatusCode == 503) {
		c.front.HostBackoff(u.Host, ra)
		if ra.After(notBefore) {
			notBefore = ra
		}
	}
	c.log.Debug("retry later", "url", u.URL, "status", ex.StatusCode, "attempt", u.Attempts+1)
	_, err := c.front.Retry(cl, notBefore)
	return true, c.frontierErr(err)
}

// fetchFailed records a fetch that got no response: retried while attempts remain, else logged.
// A failure that is not a *fetch.Error (the browser failed twice on the page) counts as a
// broken connection, so it is retried later and reported if it keeps failing.
func (c *crawler) fetchFailed(worker int, cl *frontier.Claim, err error) error {
	if refused, rerr := c.addrRefused(worker, cl, err); refused {
		return rerr // an ip rule kept its address out (ipgate.go)
	}
	u := cl.URL
	attempts := c.cfg.failureAttempts(err) // before a browser's failure is made a broken connection: it is int
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		fe = &fetch.Error{Kind: fetch.Broken, URL: u.URL, Err: err}
		err = fe
	}
	code := fe.Status()
	c.log.Debug("fetch failed", "url", u.URL, "err", err, "attempt", u.Attempts+1)
	if eerr := c.events.URLFetch(report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}, code, 0, 0); eerr != nil {
		return fmt.Errorf("write fetch event: %w", eerr)
	}
	retried, rerr := c.retryOrFail(cl, attempts, code)
	if rerr != nil {
		return c.frontierErr(rerr)
	}
	if retried {
		return nil
	}
	ann := []string{attemptsNote(u.Attempts + 1)}
	if fe.Kind == fetch.Blocked {
		ann = append(ann, fe.Kind.String()) // the address guard refused the host's address
	}
	return c.logLine(report.Line{Status: code, Size: -1, URL: u.URL, Hops: u.Hops, Via: u.Via, Thread: worker,
		Seed: u.Seed, Annotations: append(ann, "err:"+errorWord(err))})
}

// recordRefused records the sub-requests of a fetch that a block rule refused or that got no
// response, so nothing the page wanted is invisible. A refused one is logged as its rule
// decided, exactly as a refused outlink is.
func (c *crawler) recordRefused(worker int, u frontier.URL, res *fetch.Result) error {
	embedHops := u.Hops + string(hop.Embed)
	for _, b := range res.Blocked {
		rej := decision{url: frontier.URL{URL: b.URL, Host: hostKey(b.URL), Hops: embedHops, Via: u.URL, Seed: u.Seed}}
		rej.decision.Reason = b.Reason
		if err := c.reject(worker, u, rej); err != nil {
			return err
		}
	}
	for _, f := range res.Failed {
		if refused, err := c.subAddrRefused(worker, u, f.URL, f.Err); refused {
			if err != nil {
				return err
			}
			continue
		}
		code := status.ConnectFailed
		var fe *fetch.Error
		if errors.As(f.Err, &fe) {
			code = fe.Status()
		}
		if err := c.logLine(report.Line{Status: code, Size: -1, URL: f.URL, Hops: embedHops, Via: u.URL,
			Thread: worker, Seed: u.Seed, Annotations: c.annotations(res, "err:"+errorWord(f.Err))}); err != nil {
			return err
		}
	}
	return nil
}

// annotations are a capture's crawl.log annotations: "browser" for what the browser fetched,
// then the given ones.
func (c *crawler) annotations(res *fetch.Result, more ...string) []string {
	ann := []string{}
	if res.Render != nil {
		ann = append(ann, "browser")
	}
	return append(ann, more...)
}

// errorWord is a one-token description of a fetch error for crawl.log annotations.
func errorWord(err error) string {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		if fe.Err != nil {
			return strings.Join(strings.Fields(fe.Err.Error()), "_")
		}
	}
	return strings.Join(strings.Fields(err.Error()), "_")
}

func attemptsNote(n int) string { return strconv.Itoa(n) + "t" }

// backoff is the wait before retry number attempts+1: RetryDelay doubled per earlier attempt,
// at most SiteLimits.MaxBackoff when that is set.
func (c *crawler) backoff(attempts int) time.Duration {
	d := c.cfg.RetryDelay
	for range min(attempts, 10) {
		d *= 2
	}
	if m := c.cfg.Sites.MaxBackoff; m > 0 {
		d = min(d, m)
	}
	return d
}

func retryStatus(code int) bool { return code >= 500 || code == 429 }

// retryAfter parses a Retry-After header: seconds or an HTTP date. Values beyond a day are capped.
func retryAfter(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	var t time.Time
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		t = now.Add(time.Duration(n) * time.Second)
	} else if d, err := http.ParseTime(v); err == nil {
		t = d
	} else {
		return time.Time{}, false
	}
	if limit := now.Add(24 * time.Hour); t.After(limit) {
		t = limit
	}
	return t, true
}

// frontierErr is the crawl's error for a frontier change that failed. A shared frontier takes
// a claim back when its lease expired (this process was cut off from the server, or stopped,
// for longer than the lease): another process has the URL then, and this one goes on with
// the next, what it archived kept (the URL may be captured twice). With the crawl's own
// frontier a claim finished twice is a fault.
func (c *crawler) frontierErr(err error) error {
	if err == nil {
		return nil
	}
	if c.cfg.Shared.on() && errors.Is(err, frontier.ErrClaimFinished) {
		c.log.Warn("a claim's lease expired: another process of the crawl has its URL", "err", err)
		return nil
	}
	return fmt.Errorf("update frontier: %w", err)
}

func (c *crawler) logLine(l report.Line) error {
	if l.Time.IsZero() {
		l.Time = time.Now()
	}
	if err := c.clog.Write(l); err != nil {
		return fmt.Errorf("write crawl.log: %w", err)
	}
	c.tally.add(l)
	return nil
}

// recordAll archives every exchange of a fetch with its capture, and the screenshot of a
// rendered page; it returns the records of each exchange.
func (c *crawler) recordAll(worker int, u frontier.URL, res *fetch.Result, caps []capture) ([]warc.Result, error) {
	recs := make([]warc.Result, 0, len(res.Exchanges))
	for i, ex := range res.Exchanges {
		r, err := c.record(worker, ex, caps[i])
		if err != nil {
			return recs, err
		}
		recs = append(recs, r)
	}
	// A page answered 304 rendered nothing: its screenshot is of an empty page.
	if res.Render != nil && len(res.Render.Screenshot) > 0 && caps[0].notModified == nil {
		if _, err := c.warc.WriteResource("urn:screenshot:"+u.URL, "image/png", res.Exchanges[0].Started, res.Render.Screenshot, recs[0].RecordID); err != nil {
			return recs, fmt.Errorf("write screenshot: %w", err)
		}
	}
	return recs, nil
}
