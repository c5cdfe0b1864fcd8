// Package robots obeys robots.txt and robots meta tags in a crawl, as processors of its chain
// (package chain). Gate fetches each origin's robots.txt once (concurrent first requests wait
// for the one fetch), archives it like any capture (hop P), and refuses the URLs it
// disallows before they are fetched; Meta, once a page is read, takes out the links its
// robots meta nofollow or rel=nofollow forbid following and its search document when robots
// meta says noindex. The parsing and the cache of robots.txt are package fetch's.
package robots

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/weburl"
)

// Config configures robots.txt and robots meta tags when the crawl obeys them; a crawl that
// ignores robots.txt has neither Gate nor Meta. The zero value, but for TTL, is amber's
// behaviour without these settings.
type Config struct {
	// TTL is how long a host's robots.txt is trusted: the first URL of the host claimed after
	// that fetches it again (and archives it again, hop P) and obeys the new one (FAST's
	// robots_ttl). A robots.txt that could not be had (5xx, 429, no answer) is asked again
	// after the crawl's retry delay instead. The cache is the run's: a resumed crawl fetches
	// each robots.txt again. Default 24h (crawl.DefaultConfig); must be positive.
	TTL time.Duration
	// Timeout, when positive, bounds the whole robots.txt request, from connecting to the
	// last byte (FAST's robots_timeout); the network timeouts of every request bound it too,
	// so it can only shorten them. A body still arriving then is kept, truncated, and read as
	// it is. Default 0: only the network timeouts. Negative is invalid.
	Timeout time.Duration
	// AllowOnTimeout: a robots.txt request that times out (no response within the timeouts,
	// crawl.log status -4) allows the whole host, for TTL, as a missing robots.txt does
	// (FAST's robots_tout_ignore). Its crawl.log line says so (robots:timeout-allows-all).
	// Default false: a host whose robots.txt does not answer is treated as a 5xx, every URL of
	// it disallowed for now and tried again later (the crawl's retry delay), up to its
	// attempts, then left with status -9998 and annotation robots-unavailable.
	AllowOnTimeout bool
	// DisallowOnAuth: a robots.txt answered 401 or 403 disallows the whole host for TTL (its
	// URLs get status -9998), as FAST does with robots_auth_ignore=no. Default false: a
	// robots.txt answered with any 4xx, 401 and 403 included, allows all (RFC 9309
	// §2.3.1.3, FAST's default robots_auth_ignore=yes).
	DisallowOnAuth bool
	// IgnoreMeta does not obey <meta name=robots>: noindex no longer keeps a page out of
	// documents.jsonl, nofollow no longer keeps its links out of the crawl (FAST's
	// check_meta_robots=no). rel=nofollow on single links is still obeyed. Default false:
	// obeyed.
	IgnoreMeta bool
	// IgnoreCrawlDelay does not obey robots.txt Crawl-delay: a host is paced by the crawl's
	// delays only (FAST's obey_robots_delay=no). Default false: a Crawl-delay, at most
	// fetch.MaxCrawlDelay, raises the host's delay.
	IgnoreCrawlDelay bool
}

// Validate returns a *chain.FieldError for an invalid field.
func (c Config) Validate() error {
	switch {
	case c.TTL <= 0:
		return &chain.FieldError{Field: "TTL", Err: errors.New("must be positive")}
	case c.Timeout < 0:
		return &chain.FieldError{Field: "Timeout", Err: errors.New("must not be negative")}
	}
	return nil
}

// Crawl.log annotations of robots.txt.
const (
	// NoteTimeoutAllows is the annotation of a robots.txt request that timed out and so
	// allows all (Config.AllowOnTimeout).
	NoteTimeoutAllows = "robots:timeout-allows-all"
	// NoteUnavailable is the annotation of a URL left because its robots.txt could not be
	// had, attempt after attempt.
	NoteUnavailable = "robots-unavailable"
)

// maxRedirects is how many redirects of a robots.txt are followed (Elastic: 3xx follow).
const maxRedirects = 5

// maxBody bounds the part of a robots.txt that is read (RFC 9309 asks for at least 500 KiB).
const maxBody = 8 << 20

// Hosts is told of the answers and failures of the robots.txt requests made to each host
// (sitelimit.Limiter: a host that does not answer is paused, then given up). Failure's err
// is the request's, u the URL it was made for; an error it returns stops the crawl.
type Hosts interface {
	Failure(host string, err error, u frontier.URL) error
	Answered(host string)
}

// Deps is what a Gate needs of the crawl besides its chain.Env.
type Deps struct {
	// UserAgent is the crawl's User-Agent: the robots.txt group obeyed is the one that names
	// it.
	UserAgent string
	// Attempts is how many times a URL whose robots.txt could not be had is tried.
	Attempts int
	// RetryDelay is how long a robots.txt that could not be had is trusted to be missing.
	RetryDelay time.Duration
	// HostKey is the frontier's politeness key (host[:port]) of a robots.txt URL.
	HostKey func(rawURL string) string
	// Client makes the requests to host that are not a URL's own (its subcollection's).
	Client func(host string) *fetch.Client
	// Hosts is told of each request's answer or failure; nil: nobody.
	Hosts Hosts
	// Sitemaps receives the Sitemap: lines of each robots.txt read (robots is the robots.txt
	// as captured, origin whose it is); nil: they are not read.
	Sitemaps func(worker int, origin string, robots frontier.URL, listed []string) error
}

// Gate is the chain's robots.txt processor. It is safe for concurrent use.
type Gate struct {
	cfg   Config
	env   chain.Env
	deps  Deps
	cache *fetch.RobotsCache

	mu       sync.Mutex               // guards pending and failures
	pending  map[string]chan struct{} // origins whose robots.txt is being fetched
	failures map[string]*fetch.Error  // origins whose robots.txt failed in a way retrying cannot mend
}

// New returns the robots.txt processor of cfg.
func New(cfg Config, env chain.Env, deps Deps) *Gate {
	return &Gate{cfg: cfg, env: env, deps: deps, cache: fetch.NewRobotsCache(cfg.TTL, deps.RetryDelay),
		pending: map[string]chan struct{}{}, failures: map[string]*fetch.Error{}}
}

func (*Gate) Name() string { return "robots" }

// Before checks robots.txt for the claimed URL, fetching its origin's robots.txt first if
// needed (every robots.txt request is paced by the frontier as any request to its host, a
// redirect to another host included), and then paces the URL's own request: the host's delay
// after the robots.txt response (frontier.Pace). A URL robots.txt disallows is finished
// (-9998); one whose robots.txt is unavailable (5xx, no answer) is tried again later; one
// whose robots.txt cannot be fetched in a way retrying cannot mend (its address refused)
// fails as its fetch would (Heritrix fails a URL with its prerequisite).
func (g *Gate) Before(ctx context.Context, r *chain.Record) (chain.Verdict, error) {
	u := r.URL()
	v, err := g.Check(ctx, r.Worker, r.Claim, u)
	if err != nil || v.Done {
		return v, err
	}
	if err := g.env.Front.Pace(ctx, r.Claim, u.Host); err != nil {
		return chain.Verdict{}, fmt.Errorf("pace %s: %w", u.URL, err)
	}
	return chain.Proceed, nil
}

// Admit checks robots.txt for a request the fetcher of a claimed URL makes of its own (a
// subresource a browser loads with a page, a redirect it follows), as Before checks a claimed
// URL's: it is refused when robots.txt disallows it (-9998 robots) or cannot be had (-9998
// robots-unavailable: a subresource is not tried again later). Its origin's robots.txt is
// fetched, archived and cached as for a claimed URL, but not paced: a page's requests go out
// as the browser makes them. A robots.txt that cannot be fetched lets the request go (its
// fetch fails the same way).
func (g *Gate) Admit(ctx context.Context, r *chain.Record, sub frontier.URL) (chain.Verdict, error) {
	v, err := g.Check(ctx, r.Worker, nil, sub)
	if err != nil || !v.Done || v.Failure != nil {
		return chain.Proceed, err
	}
	if v.Outcome.Attempts > 0 {
		v.Outcome.Attempts, v.Outcome.Annotations = 0, []string{NoteUnavailable}
	}
	return v, nil
}

// Check returns the verdict of robots.txt on u, fetching its origin's robots.txt first when
// it is not known: Proceed, or a finishing verdict (see Before). The robots.txt requests are
// made on behalf of cl and paced on their hosts, or, with a nil cl (a subresource a browser
// loads with a page, which is not paced), sent at once. An error is fatal (a record could not
// be written) or ctx's.
func (g *Gate) Check(ctx context.Context, worker int, cl *frontier.Claim, u frontier.URL) (chain.Verdict, error) {
	pu, err := url.Parse(u.URL)
	if err != nil {
		return chain.Proceed, nil
	}
	origin := pu.Scheme + "://" + pu.Host
	pol, err := g.policy(ctx, worker, origin, cl, u)
	switch {
	case err != nil:
		return chain.Verdict{}, err
	case pol.Temporary():
		if fe := g.failure(origin); fe != nil {
			return chain.Fail(fe), nil
		}
		// robots.txt answered 5xx or not at all: disallow for now, try again later.
		return chain.Finish(chain.Outcome{Status: status.Robots, Attempts: g.deps.Attempts,
			Annotations: []string{NoteUnavailable, chain.AttemptsNote(u.Attempts + 1)}}), nil
	case !pol.Allowed(pu.RequestURI()):
		return chain.Finish(chain.Outcome{Status: status.Robots, Annotations: []string{"robots"}, Denied: report.DenyRobots}), nil
	}
	return chain.Proceed, nil
}

// failure is the lasting failure of an origin's last robots.txt fetch, nil if none.
func (g *Gate) failure(origin string) *fetch.Error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failures[origin]
}

// setFailure records (fe non-nil) or clears the lasting failure of an origin's robots.txt.
func (g *Gate) setFailure(origin string, fe *fetch.Error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if fe == nil {
		delete(g.failures, origin)
		return
	}
	g.failures[origin] = fe
}

// policy returns origin's robots.txt policy: the cached one, or the one fetch gets (which
// other callers for the origin wait for).
func (g *Gate) policy(ctx context.Context, worker int, origin string, cl *frontier.Claim, u frontier.URL) (fetch.RobotsPolicy, error) {
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
		p, err := g.fetch(ctx, worker, origin, cl, u)
		if err == nil {
			g.cache.Put(origin, p, time.Now())
			// A robots.txt fetched again (TTL) may have dropped its Crawl-delay: the host's
			// delay follows the latest one. IgnoreCrawlDelay leaves it alone.
			if !p.Temporary() && !g.cfg.IgnoreCrawlDelay {
				g.env.Front.SetHostDelay(u.Host, p.CrawlDelay())
			}
		}
		g.mu.Lock()
		delete(g.pending, origin)
		g.mu.Unlock()
		close(wait)
		return p, err
	}
}

// request is one robots.txt request of a fetch: where it goes and its place in the crawl.
type request struct {
	target, host, hops, via string
}

// fetch gets origin/robots.txt for u, following redirects, and archives every response.
func (g *Gate) fetch(ctx context.Context, worker int, origin string, cl *frontier.Claim, u frontier.URL) (fetch.RobotsPolicy, error) {
	req := request{target: origin + "/robots.txt", host: u.Host, hops: u.Hops + string(hop.Prerequisite), via: u.URL}
	for range maxRedirects + 1 {
		ex, err := g.do(ctx, cl, req)
		var pe *paceError
		switch {
		case errors.As(err, &pe):
			return fetch.RobotsPolicy{}, pe.err
		case err != nil && ctx.Err() != nil:
			return fetch.RobotsPolicy{}, ctx.Err()
		case err != nil:
			return g.unavailable(worker, origin, u, req, err)
		}
		g.setFailure(origin, nil)
		if g.deps.Hosts != nil {
			g.deps.Hosts.Answered(req.host)
		}
		g.backOff(req.host, ex)
		body, err := g.record(worker, ex, req, u.Seed)
		if err != nil {
			return fetch.RobotsPolicy{}, err
		}
		if loc := ex.Header.Get("Location"); ex.StatusCode >= 300 && ex.StatusCode < 400 {
			next, ok := weburl.Resolve(req.target, loc)
			if !ok || loc == "" {
				break
			}
			req = request{target: next, host: g.deps.HostKey(next), hops: req.hops + string(hop.Redirect), via: req.target}
			continue
		}
		pol := fetch.ParseRobotsWith(ex.StatusCode, body, g.deps.UserAgent, fetch.RobotsRules{AuthDisallows: g.cfg.DisallowOnAuth})
		if g.deps.Sitemaps != nil {
			robots := frontier.URL{URL: req.target, Host: req.host, Hops: req.hops, Via: req.via, Seed: u.Seed, HopsOff: u.HopsOff}
			if err := g.deps.Sitemaps(worker, origin, robots, pol.Sitemaps()); err != nil {
				return fetch.RobotsPolicy{}, err
			}
		}
		return pol, nil
	}
	// A redirect chain that does not end: no usable robots.txt, so everything is allowed
	// (Elastic's reference treats an unusable robots.txt like a missing one).
	return fetch.ParseRobots(404, nil, g.deps.UserAgent), nil
}

// paceError is the frontier's error pacing a robots.txt request (Pace before it, Ended after
// it): the crawl's failure, not the host's, so it is neither counted against the host nor
// logged as the request's.
type paceError struct{ err error }

func (e *paceError) Error() string { return e.err.Error() }

// do sends one robots.txt request, paced on its host on behalf of cl (when there is one) and
// within Config.Timeout when one is set. A request that runs out of that time fails as a
// timeout (or, with its body still arriving, is kept truncated), as one that runs out of the
// network timeouts does. The frontier's error pacing it comes back as a *paceError.
func (g *Gate) do(ctx context.Context, cl *frontier.Claim, req request) (*fetch.Exchange, error) {
	if cl != nil {
		if err := g.env.Front.Pace(ctx, cl, req.host); err != nil {
			return nil, &paceError{fmt.Errorf("pace %s: %w", req.target, err)}
		}
	}
	rctx := ctx
	if t := g.cfg.Timeout; t > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	ex, err := g.deps.Client(req.host).Do(rctx, fetch.Request{URL: req.target})
	if cl != nil {
		if eerr := g.env.Front.Ended(cl, time.Now()); eerr != nil {
			if ex != nil {
				ex.Close()
			}
			return nil, &paceError{fmt.Errorf("pace %s: %w", req.target, eerr)}
		}
	}
	return ex, err
}

// unavailable is the policy of an origin whose robots.txt request req got no response (err):
// its failure counted against its host and logged; it allows all when it timed out and
// Config.AllowOnTimeout says so, else it is treated as a 5xx (disallowed for now, asked again
// later). A failure retrying cannot mend of the origin's own robots.txt (its address refused,
// say) is the failure of its pages too, until a later fetch of it ends otherwise.
func (g *Gate) unavailable(worker int, origin string, u frontier.URL, req request, err error) (fetch.RobotsPolicy, error) {
	code := status.ConnectFailed
	var fe *fetch.Error
	if errors.As(err, &fe) {
		code = fe.Status()
	}
	if req.target == origin+"/robots.txt" {
		if fe != nil && !fe.Retryable() {
			g.setFailure(origin, fe)
		} else {
			g.setFailure(origin, nil)
		}
	}
	if g.deps.Hosts != nil {
		if err := g.deps.Hosts.Failure(req.host, err, u); err != nil {
			return fetch.RobotsPolicy{}, err
		}
	}
	g.env.Log.Debug("robots.txt unavailable", "url", req.target, "err", err)
	ann := []string{"robots", "err:" + chain.ErrorWord(err)}
	allow := code == status.Timeout && g.cfg.AllowOnTimeout
	if allow {
		ann = append(ann, NoteTimeoutAllows)
	}
	if lerr := g.env.Lines.WriteLine(report.Line{Status: code, Size: -1, URL: req.target, Hops: req.hops, Via: req.via,
		Thread: worker, Seed: u.Seed, Annotations: ann}); lerr != nil {
		return fetch.RobotsPolicy{}, lerr
	}
	if allow {
		return fetch.RobotsPolicy{}, nil
	}
	return fetch.ParseRobots(503, nil, g.deps.UserAgent), nil
}

// backOff slows host down when its robots.txt answered 429 or 503 with Retry-After, as for
// any other response.
func (g *Gate) backOff(host string, ex *fetch.Exchange) {
	if ex.StatusCode != 429 && ex.StatusCode != 503 {
		return
	}
	if ra, ok := fetch.RetryAfter(ex.Header.Get("Retry-After"), time.Now()); ok {
		g.env.Front.HostBackoff(host, ra)
	}
}

// record archives one robots.txt exchange, logs it, closes it, and returns its decoded body.
func (g *Gate) record(worker int, ex *fetch.Exchange, req request, seed string) ([]byte, error) {
	defer ex.Close()
	body, _ := ex.ReadBody(maxBody)
	_, err := g.env.Archive.Archive(worker, ex, chain.Capture{Hops: req.hops, Via: req.via, Seed: seed})
	return body, err
}

// Meta is the chain's step that obeys a page's robots meta and rel=nofollow once its content
// is read: the links robots meta nofollow or rel=nofollow forbid following are taken out (and
// recorded as denied, report.DenyNofollow), and robots meta noindex drops the search document
// (the page is archived all the same). Embeds are kept: they are part of the page, not links
// to follow. With Config.IgnoreMeta robots meta is not obeyed; rel=nofollow still is.
type Meta struct{ ignoreMeta bool }

// NewMeta returns the robots meta step of cfg.
func NewMeta(cfg Config) Meta { return Meta{ignoreMeta: cfg.IgnoreMeta} }

func (Meta) Name() string { return "robots meta" }

// After takes the forbidden links out of the content, and its document when noindex says so.
func (m Meta) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	p := &r.Content
	noFollow := p.NoFollow && !m.ignoreMeta
	if p.NoIndex && !m.ignoreMeta {
		p.Document = nil
	}
	denied := func(l extract.Outlink) bool { return l.Hop == hop.Link && (noFollow || l.NoFollow) }
	first := slices.IndexFunc(p.Links, denied)
	if first < 0 {
		// Most pages deny nothing: their links stay as they are, not copied.
		p.DeniedReason = report.DenyNofollow
		return chain.Proceed, nil
	}
	kept := slices.Clip(p.Links[:first])
	for _, l := range p.Links[first:] {
		if denied(l) {
			p.Denied = append(p.Denied, l.URL)
			continue
		}
		kept = append(kept, l)
	}
	p.Links, p.DeniedReason = kept, report.DenyNofollow
	return chain.Proceed, nil
}
