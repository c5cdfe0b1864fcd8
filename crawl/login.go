package crawl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/login"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
)

// ActionLogin is the event action of a form login (an amber event): event.outcome success or
// failure, event.reason why it failed, labels.login (its name) and labels.trigger (first,
// ttl or logged-out). Never a parameter value.
const ActionLogin = "login"

// loginGate makes the crawl's form logins (Config.Logins): before a page of a login's sites is
// fetched when the login is due, and again when the page answers logged out. Each request of
// a login is made with the plain client on behalf of the page's claim (paced by the frontier
// on its host) and recorded like any capture: WARC records, a crawl.log line with the page's
// hop path and P (a prerequisite, as robots.txt), annotated login:STEP. The cookies it gets
// are in the crawl's jar, which the browser fetcher shares.
type loginGate struct {
	c        *crawler
	sessions []*login.Session
}

// newLoginGate returns the gate of Config.Logins; nil without logins.
func newLoginGate(c *crawler) *loginGate {
	if len(c.cfg.Logins) == 0 {
		return nil
	}
	g := &loginGate{c: c}
	for _, s := range c.cfg.Logins {
		g.sessions = append(g.sessions, login.NewSession(s, nil))
	}
	return g
}

// session is the login whose sites hold raw; nil when none does.
func (g *loginGate) session(raw string) *login.Session {
	if g == nil {
		return nil
	}
	for _, s := range g.sessions {
		if s.Spec().Covers(raw) {
			return s
		}
	}
	return nil
}

func (*loginGate) Name() string { return "logins" }

// Wrap makes the fetch of a page that a login covers log in first when the login is due, and,
// when the page then answers logged out (login.Spec.Expired) and the login has
// ReloginIfFailed, log in again and, when that succeeds, archive the logged-out answer
// (annotated logged-out, not counted) and fetch the page once more. A login that fails does
// not stop the page: it is fetched as it is. An error that must stop the crawl is a
// *chain.FatalError.
func (g *loginGate) Wrap(next chain.Fetch) chain.Fetch {
	return func(ctx context.Context, r *chain.Record) (*fetch.Result, error) {
		s := g.session(r.URL().URL)
		if s == nil {
			return next(ctx, r)
		}
		return g.fetch(ctx, r, s, next)
	}
}

// fetch fetches r's page with the login s (see Wrap).
func (g *loginGate) fetch(ctx context.Context, r *chain.Record, s *login.Session, next chain.Fetch) (*fetch.Result, error) {
	c, cl, worker, u := g.c, r.Claim, r.Worker, r.URL()
	res, ran, err := s.Ensure(ctx, c.loginDo(worker, cl))
	if err := c.loginDone(ctx, worker, cl, s, "first", res, ran, err); err != nil {
		return nil, err
	}
	gen := s.Generation()
	page, err := next(ctx, r)
	if err != nil || !s.Spec().ReloginIfFailed || !s.Spec().Expired(page.Exchanges[0]) {
		return page, err
	}
	if eerr := c.front.Ended(cl, time.Now()); eerr != nil {
		page.Close()
		return nil, &chain.FatalError{Err: fmt.Errorf("pace %s: %w", u.URL, eerr)}
	}
	retry, res, ran, err := s.Relogin(ctx, c.loginDo(worker, cl), gen)
	if err := c.loginDone(ctx, worker, cl, s, "logged-out", res, ran, err); err != nil {
		page.Close()
		return nil, err
	}
	if !retry {
		return page, nil // not logged in again: the page as it answered
	}
	loggedOut := &chain.Record{Claim: cl, Result: page}
	captures(loggedOut)
	loggedOut.Captures[0].Annotations = append(loggedOut.Captures[0].Annotations, "logged-out")
	for i := range loggedOut.Captures {
		loggedOut.Captures[i].CountURL = false // the page is fetched again, and counted then
	}
	_, rerr := c.recordAll(worker, u, page, loggedOut.Captures)
	page.Close()
	if rerr != nil {
		return nil, &chain.FatalError{Err: rerr}
	}
	if !ran { // another worker logged in again
		if err := c.front.Pace(ctx, cl, u.Host); err != nil {
			return nil, c.paceErr(ctx, u.URL, err)
		}
	}
	return next(ctx, r)
}

// loginDone writes the event of a login that ran, and takes the claim's own host back for
// the page. A login that failed is an event; its errors are fatal only when recording or
// pacing failed, or ctx ended.
func (c *crawler) loginDone(ctx context.Context, worker int, cl *frontier.Claim, s *login.Session, trigger string, res login.Result, ran bool, err error) error {
	var fatal *chain.FatalError
	if errors.As(err, &fatal) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !ran {
		return nil
	}
	if trigger == "first" && s.Generation() > 1 {
		trigger = "ttl"
	}
	u := cl.URL
	name := s.Spec().Name
	ev := report.Event{Action: ActionLogin, Outcome: "success", Message: "Logged in: " + name,
		URL:    &report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed},
		Labels: map[string]string{"login": name, "trigger": trigger}}
	switch {
	case err != nil:
		ev.Outcome, ev.Reason = "failure", "no response: "+errorWord(err)
	case !res.OK:
		ev.Outcome, ev.Reason = "failure", res.Reason
	}
	if ev.Outcome == "failure" {
		ev.Message = "Login " + name + " failed: " + ev.Reason
		c.log.Warn("login failed", "login", name, "reason", ev.Reason, "url", u.URL)
	} else {
		c.log.Info("logged in", "login", name, "url", u.URL)
	}
	if werr := c.events.Event(ev); werr != nil {
		return &chain.FatalError{Err: fmt.Errorf("write login event: %w", werr)}
	}
	// The login's requests took the claim's request slot elsewhere: the page waits for its
	// own host again.
	if perr := c.front.Pace(ctx, cl, u.Host); perr != nil {
		return c.paceErr(ctx, u.URL, perr)
	}
	return nil
}

// paceErr is the error of a Pace that failed: ctx's when it ended, else fatal.
func (c *crawler) paceErr(ctx context.Context, url string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &chain.FatalError{Err: fmt.Errorf("pace %s: %w", url, err)}
}

// loginDo is the login.Do of a login made for the claimed page: each request paced on its
// host, made with the plain client, and recorded (hop P from the page, annotated
// login:STEP); a request without a response gets a crawl.log line with its error.
func (c *crawler) loginDo(worker int, cl *frontier.Claim) login.Do {
	u := cl.URL
	k := chain.Capture{Hops: u.Hops + string(hop.Prerequisite), Via: u.URL, Seed: u.Seed}
	return func(ctx context.Context, step string, req fetch.Request) (*fetch.Exchange, error) {
		if err := c.front.Pace(ctx, cl, c.politeKey(req.URL)); err != nil {
			return nil, c.paceErr(ctx, req.URL, err)
		}
		ex, err := c.client.Do(ctx, req)
		if eerr := c.front.Ended(cl, time.Now()); eerr != nil {
			if ex != nil {
				ex.Close()
			}
			return nil, c.paceErr(ctx, req.URL, eerr)
		}
		ann := []string{"login:" + step}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			code := status.ConnectFailed
			var fe *fetch.Error
			if errors.As(err, &fe) {
				code = fe.Status()
			}
			if lerr := c.logLine(report.Line{Status: code, Size: -1, URL: req.URL, Hops: k.Hops, Via: k.Via,
				Thread: worker, Seed: k.Seed, Annotations: append(ann, "err:"+errorWord(err))}); lerr != nil {
				return nil, &chain.FatalError{Err: lerr}
			}
			return nil, err
		}
		k := k
		k.Annotations = ann
		if _, err := c.record(worker, ex, k); err != nil {
			ex.Close()
			return nil, &chain.FatalError{Err: err}
		}
		return ex, nil
	}
}

// recordChallenge archives the 401 that an exchange answered (fetch.Exchange.Challenge, a
// realm of Config.Fetch.Auth) before the exchange itself: at the same place in the crawl,
// annotated auth-challenge, not counted as a URL.
func (c *crawler) recordChallenge(worker int, ex *fetch.Exchange, k chain.Capture) error {
	if ex.Challenge == nil {
		return nil
	}
	k.Annotate("auth-challenge")
	k.Outlinks, k.Fields, k.NotModified, k.CountURL = nil, nil, nil, false
	_, err := c.record(worker, ex.Challenge, k)
	return err
}
