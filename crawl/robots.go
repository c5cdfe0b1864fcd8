package crawl

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
)

// robotsTTL is how long a robots.txt is trusted before it is fetched again.
const robotsTTL = 24 * time.Hour

// maxRobotsRedirects is how many redirects of a robots.txt are followed (Elastic: 3xx follow).
const maxRobotsRedirects = 5

type robotsVerdict int

const (
	robotsAllowed robotsVerdict = iota
	robotsDisallowed
	robotsUnavailable // 5xx or no answer: disallowed for now, retried later
)

// robotsGate fetches each origin's robots.txt once (concurrent first requests wait for the one
// fetch), records it to the WARC like any capture (hop P), and answers whether a URL may be
// fetched.
type robotsGate struct {
	c     *crawler
	cache *fetch.RobotsCache

	mu      sync.Mutex               // guards pending
	pending map[string]chan struct{} // origins whose robots.txt is being fetched
}

func newRobotsGate(c *crawler) *robotsGate {
	return &robotsGate{
		c:       c,
		cache:   fetch.NewRobotsCache(robotsTTL, c.cfg.RetryDelay),
		pending: make(map[string]chan struct{}),
	}
}

// check returns the verdict for u, fetching its origin's robots.txt first if needed. An error is
// fatal (WARC or crawl.log could not be written) or ctx ended.
func (g *robotsGate) check(ctx context.Context, worker int, u frontier.URL) (robotsVerdict, error) {
	pu, err := url.Parse(u.URL)
	if err != nil {
		return robotsAllowed, nil
	}
	origin := pu.Scheme + "://" + pu.Host
	pol, err := g.policy(ctx, worker, origin, u)
	if err != nil {
		return robotsAllowed, err
	}
	switch {
	case pol.Temporary():
		return robotsUnavailable, nil
	case !pol.Allowed(pu.RequestURI()):
		return robotsDisallowed, nil
	}
	return robotsAllowed, nil
}

func (g *robotsGate) policy(ctx context.Context, worker int, origin string, u frontier.URL) (fetch.RobotsPolicy, error) {
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
		p, err := g.fetch(ctx, worker, origin, u)
		if err == nil {
			g.cache.Put(origin, p, time.Now())
			if d := p.CrawlDelay(); d > 0 {
				g.c.front.SetHostDelay(u.Host, d)
			}
		}
		g.mu.Lock()
		delete(g.pending, origin)
		g.mu.Unlock()
		close(wait)
		return p, err
	}
}

// fetch gets origin/robots.txt, following redirects, and records every response.
func (g *robotsGate) fetch(ctx context.Context, worker int, origin string, u frontier.URL) (fetch.RobotsPolicy, error) {
	c := g.c
	target := origin + "/robots.txt"
	hops := u.Hops + "P"
	via := u.URL
	for range maxRobotsRedirects + 1 {
		ex, err := c.client.Do(ctx, fetch.Request{URL: target})
		if err != nil {
			if ctx.Err() != nil {
				return fetch.RobotsPolicy{}, ctx.Err()
			}
			status := report.StatusConnectFailed
			if fe, ok := err.(*fetch.Error); ok {
				status = fe.Status()
			}
			c.log.Debug("robots.txt unavailable", "url", target, "err", err)
			if lerr := c.logLine(report.Line{Status: status, Size: -1, URL: target, Hops: hops, Via: via,
				Thread: worker, Seed: u.Seed, Annotations: []string{"robots", "err:" + errorWord(err)}}); lerr != nil {
				return fetch.RobotsPolicy{}, lerr
			}
			// No answer is treated like a 5xx: disallowed for now, asked again later.
			return fetch.ParseRobots(503, nil, c.cfg.Fetch.UserAgent), nil
		}
		body, err := g.record(worker, ex, via, hops, u.Seed)
		if err != nil {
			return fetch.RobotsPolicy{}, err
		}
		if ex.StatusCode >= 300 && ex.StatusCode < 400 {
			loc, ok := resolve(target, ex.Header.Get("Location"))
			if !ok || ex.Header.Get("Location") == "" {
				break
			}
			via, target, hops = target, loc, hops+"R"
			continue
		}
		return fetch.ParseRobots(ex.StatusCode, body, c.cfg.Fetch.UserAgent), nil
	}
	// A redirect chain that does not end: no usable robots.txt, so everything is allowed
	// (Elastic's reference treats an unusable robots.txt like a missing one).
	return fetch.ParseRobots(404, nil, c.cfg.Fetch.UserAgent), nil
}

// record archives one robots.txt exchange, logs it, closes it, and returns its decoded body.
func (g *robotsGate) record(worker int, ex *fetch.Exchange, via, hops, seed string) ([]byte, error) {
	defer ex.Close()
	body, _ := readBody(ex)
	_, err := g.c.record(worker, ex, capture{hops: hops, via: via, seed: seed})
	return body, err
}
