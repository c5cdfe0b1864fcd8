package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/sitelimit"
	"github.com/amber-crawler/amber/status"
)

// RobotsConfig configures robots.txt and robots meta tags, when the crawl obeys them
// (Config.IgnoreRobots false); with IgnoreRobots none of it applies. The zero value, but for
// TTL, is amber's behaviour without these settings.
type RobotsConfig struct {
	// TTL is how long a host's robots.txt is trusted: the first URL of the host claimed after
	// that fetches it again (and archives it again, hop P) and obeys the new one (FAST's
	// robots_ttl). A robots.txt that could not be had (5xx, 429, no answer) is asked again
	// after RetryDelay instead. The cache is the run's: a resumed crawl fetches each
	// robots.txt again. Default 24h (DefaultConfig); must be positive.
	TTL time.Duration
	// Timeout, when positive, bounds the whole robots.txt request, from connecting to the
	// last byte (FAST's robots_timeout); the network timeouts of every request
	// (Fetch.ConnectTimeout, FirstByteTimeout, ResponseTimeout) bound it too, so it can only
	// shorten them. A body still arriving then is kept, truncated, and read as it is. Default
	// 0: only the network timeouts. Negative is invalid.
	Timeout time.Duration
	// AllowOnTimeout: a robots.txt request that times out (no response within the timeouts,
	// crawl.log status -4) allows the whole host, for TTL, as a missing robots.txt does
	// (FAST's robots_tout_ignore). Its crawl.log line says so (robots:timeout-allows-all).
	// Default false: a host whose robots.txt does not answer is treated as a 5xx, every URL of
	// it disallowed for now and tried again later (RetryDelay), up to MaxAttempts, then left
	// with status -9998 and annotation robots-unavailable.
	AllowOnTimeout bool
	// DisallowOnAuth: a robots.txt answered 401 or 403 disallows the whole host for TTL (its
	// URLs get status -9998), as FAST does with robots_auth_ignore=no. Default false: a
	// robots.txt answered with any 4xx, 401 and 403 included, allows all (RFC 9309
	// §2.3.1.3, FAST's default robots_auth_ignore=yes).
	DisallowOnAuth bool
	// IgnoreMeta does not obey <meta name=robots>: noindex no longer keeps a page out of documents.jsonl, nofollow no longer keeps its
	// links out of the crawl (FAST's check_meta_robots=no). rel=nofollow on single links is
	// still obeyed. Default false: obeyed.
	IgnoreMeta bool
	// IgnoreCrawlDelay does not obey robots.txt Crawl-delay: a host is paced by HostDelay
	// (and HostDelays) only (FAST's obey_robots_delay=no). Default false: a Crawl-delay,
	// at most fetch.MaxCrawlDelay, raises the host's delay.
	IgnoreCrawlDelay bool
}

// validate returns a *FieldError for an invalid field.
func (r RobotsConfig) validate() error {
	switch {
	case r.TTL <= 0:
		return &FieldError{Field: "Robots.TTL", Err: errors.New("must be positive")}
	case r.Timeout < 0:
		return &FieldError{Field: "Robots.Timeout", Err: errors.New("must not be negative")}
	}
	return nil
}

// maxRobotsRedirects is how many redirects of a robots.txt are followed (Elastic: 3xx follow).
const maxRobotsRedirects = 5

type robotsVerdict int

const (
	robotsAllowed robotsVerdict = iota
	robotsDisallowed
	robotsUnavailable // 5xx or no answer: disallowed for now, retried later
	robotsFailed      // robots.txt cannot be fetched and the page cannot either (address refused, invalid URL)
)

// robotsGate fetches each origin's robots.txt once (concurrent first requests wait for the one
// fetch), records it to the WARC like any capture (hop P), and answers whether a URL may be
// fetched. Every robots.txt request is a request to its host like any other: it is paced by
// the frontier (host delay, Crawl-delay, Retry-After backoff, host concurrency), a redirect to
// another host included, and the page waits for the delay after it.
type robotsGate struct {
	c     *crawler
	cache *fetch.RobotsCache

	mu       sync.Mutex               // guards pending and failures
	pending  map[string]chan struct{} // origins whose robots.txt is being fetched
	failures map[string]*fetch.Error  // origins whose robots.txt failed in a way retrying cannot mend
}

func newRobotsGate(c *crawler) *robotsGate {
	return &robotsGate{
		c:        c,
		cache:    fetch.NewRobotsCache(c.cfg.Robots.TTL, c.cfg.RetryDelay),
		pending:  make(map[string]chan struct{}),
		failures: make(map[string]*fetch.Error),
	}
}

func (*robotsGate) Name() string { return "robots" }

// Before checks robots.txt for the claimed URL, fetching its origin's robots.txt first if
// needed, and paces the URL's request once it may be fetched: the host's delay after the
// robots.txt response (frontier.Pace). A URL robots.txt disallows is finished (-9998); one
// whose robots.txt is unavailable (5xx, no answer) is tried again later; one whose
// robots.txt cannot be fetched in a way retrying cannot mend (its address refused) fails as
// its fetch would (Heritrix fails a URL with its prerequisite).
func (g *robotsGate) Before(ctx context.Context, r *chain.Record) (chain.Verdict, error) {
	verdict, ferr, err := g.check(ctx, r.Worker, r.Claim)
	if err != nil {
		return chain.Verdict{}, err
	}
	u := r.URL()
	switch verdict {
	case robotsFailed:
		return chain.Fail(ferr), nil
	case robotsDisallowed:
		return chain.Finish(chain.Outcome{Status: status.Robots, Annotations: []string{"robots"}, Denied: report.DenyRobots}), nil
	case robotsUnavailable:
		// robots.txt answered 5xx or not at all: disallow for now, try again later.
		return chain.Finish(chain.Outcome{Status: status.Robots, Attempts: g.c.cfg.MaxAttempts,
			Annotations: []string{"robots-unavailable", chain.AttemptsNote(u.Attempts + 1)}}), nil
	}
	return chain.Proceed, nil
}

// check returns the verdict for the claimed URL, fetching its origin's robots.txt first if
// needed. When the URL may be fetched, check returns once its host may be sent the request
// (frontier.Pace): the host's delay after the robots.txt response has passed. With
// robotsFailed it also returns the robots.txt fetch's failure, which is the page's too (the
// same host cannot be reached: Heritrix fails the URL with its prerequisite). Any other error
// is fatal (WARC, crawl.log or frontier could not be written) or ctx ended.
func (g *robotsGate) check(ctx context.Context, worker int, cl *frontier.Claim) (robotsVerdict, *fetch.Error, error) {
	u := cl.URL
	verdict := robotsAllowed
	if pu, err := url.Parse(u.URL); err == nil {
		origin := pu.Scheme + "://" + pu.Host
		pol, err := g.policy(ctx, worker, origin, cl)
		if err != nil {
			return robotsAllowed, nil, err
		}
		switch {
		case pol.Temporary():
			if fe := g.failure(origin); fe != nil {
				return robotsFailed, fe, nil
			}
			verdict = robotsUnavailable
		case !pol.Allowed(pu.RequestURI()):
			verdict = robotsDisallowed
		}
	}
	if verdict != robotsAllowed {
		return verdict, nil, nil
	}
	if err := g.c.front.Pace(ctx, cl, u.Host); err != nil {
		return robotsAllowed, nil, fmt.Errorf("pace %s: %w", u.URL, err)
	}
	return robotsAllowed, nil, nil
}

// failure is the lasting failure of an origin's last robots.txt fetch, nil if none.
func (g *robotsGate) failure(origin string) *fetch.Error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failures[origin]
}

// setFailure records (fe non-nil) or clears the lasting failure of an origin's robots.txt.
func (g *robotsGate) setFailure(origin string, fe *fetch.Error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if fe == nil {
		delete(g.failures, origin)
		return
	}
	g.failures[origin] = fe
}

func (g *robotsGate) policy(ctx context.Context, worker int, origin string, cl *frontier.Claim) (fetch.RobotsPolicy, error) {
	for {
		if p, ok := g.cache.Get(origin, time.Now()); ok {
			return p, nil
		}
		g.mu.Lock()
		wait, busy := g.pending[origin]
		if !busy {
			wait = make(chan struct{})
			g.pending[origin] = wait
		}
		g.mu.Unlock()
		if busy {
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return fetch.RobotsPolicy{}, ctx.Err()
			}
		}
		p, err := g.fetch(ctx, worker, origin, cl)
		if err == nil {
			g.cache.Put(origin, p, time.Now())
			// A robots.txt fetched again (Robots.TTL) may have dropped its Crawl-delay: the
			// host's delay follows the latest one. Robots.IgnoreCrawlDelay leaves it alone.
			if !p.Temporary() && !g.c.cfg.Robots.IgnoreCrawlDelay {
				g.c.front.SetHostDelay(cl.URL.Host, p.CrawlDelay())
			}
		}
		g.mu.Lock()
		delete(g.pending, origin)
		g.mu.Unlock()
		close(wait)
		return p, err
	}
}

// fetch gets origin/robots.txt, following redirects, and records every response. Each request
// is paced by the frontier on the host it goes to.
func (g *robotsGate) fetch(ctx context.Context, worker int, origin string, cl *frontier.Claim) (fetch.RobotsPolicy, error) {
	c := g.c
	u := cl.URL
	target := origin + "/robots.txt"
	hops := u.Hops + string(hop.Prerequisite)
	via := u.URL
	host := u.Host
	for range maxRobotsRedirects + 1 {
		if err := c.front.Pace(ctx, cl, host); err != nil {
			return fetch.RobotsPolicy{}, fmt.Errorf("pace %s: %w", target, err)
		}
		ex, err := g.do(ctx, target)
		if eerr := c.front.Ended(cl, time.Now()); eerr != nil {
			if ex != nil {
				ex.Close()
			}
			return fetch.RobotsPolicy{}, fmt.Errorf("pace %s: %w", target, eerr)
		}
		if err != nil {
			if ctx.Err() != nil {
				return fetch.RobotsPolicy{}, ctx.Err()
			}
			code := status.ConnectFailed
			var fe *fetch.Error
			if errors.As(err, &fe) {
				code = fe.Status()
				if !fe.Retryable() && target == origin+"/robots.txt" {
					// The origin itself cannot be fetched (its address is refused, say):
					// its pages fail the same way, not as robots-unavailable.
					g.setFailure(origin, fe)
				}
			}
			if hc, ok := sitelimit.HostFailure(err); ok {
				if err := c.sites.Failure(host, hc, u); err != nil {
					return fetch.RobotsPolicy{}, err
				}
			}
			c.log.Debug("robots.txt unavailable", "url", target, "err", err)
			ann := []string{"robots", "err:" + errorWord(err)}
			// Robots.AllowOnTimeout: a robots.txt that times out allows all, as a missing one.
			allow := code == status.Timeout && c.cfg.Robots.AllowOnTimeout
			if allow {
				ann = append(ann, robotsTimeoutAllows)
			}
			if lerr := c.logLine(report.Line{Status: code, Size: -1, URL: target, Hops: hops, Via: via,
				Thread: worker, Seed: u.Seed, Annotations: ann}); lerr != nil {
				return fetch.RobotsPolicy{}, lerr
			}
			if allow {
				return fetch.RobotsPolicy{}, nil
			}
			// No answer is treated like a 5xx: disallowed for now, asked again later.
			return fetch.ParseRobots(503, nil, c.cfg.Fetch.UserAgent), nil
		}
		g.setFailure(origin, nil)
		c.sites.Answered(host)
		g.backOff(target, ex)
		body, err := g.record(worker, ex, via, hops, u.Seed)
		if err != nil {
			return fetch.RobotsPolicy{}, err
		}
		if ex.StatusCode >= 300 && ex.StatusCode < 400 {
			loc, ok := resolve(target, ex.Header.Get("Location"))
			if !ok || ex.Header.Get("Location") == "" {
				break
			}
			via, target, hops = target, loc, hops+string(hop.Redirect)
			host = g.hostOf(target)
			continue
		}
		pol := fetch.ParseRobotsWith(ex.StatusCode, body, c.cfg.Fetch.UserAgent,
			fetch.RobotsRules{AuthDisallows: c.cfg.Robots.DisallowOnAuth})
		robots := frontier.URL{URL: target, Host: host, Hops: hops, Via: via, Seed: u.Seed, HopsOff: u.HopsOff}
		if err := c.robotsSitemaps(worker, origin, robots, pol.Sitemaps()); err != nil {
			return fetch.RobotsPolicy{}, err
		}
		return pol, nil
	}
	// A redirect chain that does not end: no usable robots.txt, so everything is allowed
	// (Elastic's reference treats an unusable robots.txt like a missing one).
	return fetch.ParseRobots(404, nil, c.cfg.Fetch.UserAgent), nil
}

// robotsTimeoutAllows is the crawl.log annotation of a robots.txt request that timed out and
// so allows all (RobotsConfig.AllowOnTimeout).
const robotsTimeoutAllows = "robots:timeout-allows-all"

// do sends one robots.txt request, within RobotsConfig.Timeout when one is set. A request
// that runs out of that time fails as a timeout (or, with its body still arriving, is kept
// truncated), as one that runs out of the network timeouts does.
func (g *robotsGate) do(ctx context.Context, target string) (*fetch.Exchange, error) {
	if t := g.c.cfg.Robots.Timeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	return g.c.hostClient(g.hostOf(target)).Do(ctx, fetch.Request{URL: target}) // the host's subcollection's
}

// hostOf is the frontier's politeness key of a robots.txt URL: the host of its canonical form,
// as the frontier's URLs have it.
func (g *robotsGate) hostOf(raw string) string {
	if cu, err := scope.Canonicalize(raw, g.c.cfg.Scope.Flavour); err == nil {
		return hostKey(cu)
	}
	return strings.ToLower(hostKey(raw))
}

// backOff slows the host of a robots.txt down when it answered 429 or 503 with Retry-After, as
// for any other response.
func (g *robotsGate) backOff(target string, ex *fetch.Exchange) {
	if ex.StatusCode != 429 && ex.StatusCode != 503 {
		return
	}
	if ra, ok := retryAfter(ex.Header.Get("Retry-After"), time.Now()); ok {
		g.c.front.HostBackoff(g.hostOf(target), ra)
	}
}

// record archives one robots.txt exchange, logs it, closes it, and returns its decoded body.
func (g *robotsGate) record(worker int, ex *fetch.Exchange, via, hops, seed string) ([]byte, error) {
	defer ex.Close()
	body, _ := readBody(ex)
	_, err := g.c.record(worker, ex, chain.Capture{Hops: hops, Via: via, Seed: seed})
	return body, err
}

// robotsMeta is the chain's step that obeys a page's robots meta and rel=nofollow once its
// content is read: links robots meta nofollow or rel=nofollow forbid following are taken out
// (and recorded as denied), and robots meta noindex drops the search document (the page is
// archived all the same). Embeds are kept: they are part of the page, not links to follow.
// With RobotsConfig.IgnoreMeta robots meta is not obeyed; rel=nofollow still is.
type robotsMeta struct{ ignoreMeta bool }

func (robotsMeta) Name() string { return "robots meta" }

// After takes the forbidden links out of the content and its document when noindex says so.
func (m robotsMeta) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	p := &r.Content
	noFollow := p.NoFollow && !m.ignoreMeta
	if p.NoIndex && !m.ignoreMeta {
		p.Document = nil
	}
	var kept []extract.Outlink
	for _, l := range p.Links {
		if l.Hop == hop.Link && (noFollow || l.NoFollow) {
			p.Denied = append(p.Denied, l.URL)
			continue
		}
		kept = append(kept, l)
	}
	p.Links, p.DeniedReason = kept, report.DenyNofollow
	return chain.Proceed, nil
}
