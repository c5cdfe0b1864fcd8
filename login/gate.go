package login

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
)

// ActionLogin is the event action of a form login (an amber event): event.outcome success or
// failure, event.reason why it failed, labels.login (its name) and labels.trigger (first,
// ttl or logged-out). Never a parameter value.
const ActionLogin = "login"

// NoteLoggedOut is the crawl.log annotation of a page archived as it answered logged out,
// before it was fetched again after a new login.
const NoteLoggedOut = "logged-out"

// Gate makes a crawl's form logins, as a fetch wrapper of its chain (package chain): before a
// page of a login's sites is fetched when the login is due (first, or after its TTL), and
// again when the page answers logged out. Each request of a login is made with the crawl's
// plain client on behalf of the page's claim (paced by the frontier on its host) and archived
// like any capture: WARC records, a crawl.log line with the page's hop path and P (a
// prerequisite, as robots.txt), annotated login:STEP. The cookies it gets are in the crawl's
// jar, which the browser fetcher shares. It is safe for concurrent use.
type Gate struct {
	sessions []*Session
	env      chain.Env
	deps     Deps
}

// Deps is what a Gate needs of the crawl besides its chain.Env.
type Deps struct {
	// Client makes the login's requests.
	Client *fetch.Client
	// HostKey is the frontier's politeness key (host[:port]) of a login request's URL.
	HostKey func(rawURL string) string
	// ArchiveAside archives a fetch of the claimed URL of r that does not count (the page that
	// answered logged out): its exchanges placed as the URL's, the first annotated note.
	ArchiveAside func(r *chain.Record, res *fetch.Result, note string) error
}

// NewGate returns the gate of specs (each valid); nil without any.
func NewGate(specs []Spec, env chain.Env, deps Deps) *Gate {
	if len(specs) == 0 {
		return nil
	}
	g := &Gate{env: env, deps: deps}
	for _, s := range specs {
		g.sessions = append(g.sessions, NewSession(s, nil))
	}
	return g
}

func (*Gate) Name() string { return "logins" }

// session is the login whose sites hold raw; nil when none does.
func (g *Gate) session(raw string) *Session {
	for _, s := range g.sessions {
		if s.Spec().Covers(raw) {
			return s
		}
	}
	return nil
}

// Wrap makes the fetch of a page that a login covers log in first when the login is due, and,
// when the page then answers logged out (Spec.Expired) and the login has ReloginIfFailed, log
// in again and, when that succeeds, archive the logged-out answer (NoteLoggedOut, not
// counted) and fetch the page once more. A login that fails does not stop the page: it is
// fetched as it is. An error that must stop the crawl is a *chain.FatalError.
func (g *Gate) Wrap(next chain.Fetch) chain.Fetch {
	return func(ctx context.Context, r *chain.Record) (*fetch.Result, error) {
		s := g.session(r.URL().URL)
		if s == nil {
			return next(ctx, r)
		}
		return g.fetch(ctx, r, s, next)
	}
}

// fetch fetches r's page with the login s (see Wrap).
func (g *Gate) fetch(ctx context.Context, r *chain.Record, s *Session, next chain.Fetch) (*fetch.Result, error) {
	cl, u := r.Claim, r.URL()
	res, ran, err := s.Ensure(ctx, g.do(r.Worker, cl))
	if err := g.done(ctx, cl, s, "first", res, ran, err); err != nil {
		return nil, err
	}
	gen := s.Generation()
	page, err := next(ctx, r)
	if err != nil || !s.Spec().ReloginIfFailed || !s.Spec().Expired(page.Exchanges[0]) {
		return page, err
	}
	if eerr := g.env.Front.Ended(cl, time.Now()); eerr != nil {
		page.Close()
		return nil, &chain.FatalError{Err: fmt.Errorf("pace %s: %w", u.URL, eerr)}
	}
	retry, res, ran, err := s.Relogin(ctx, g.do(r.Worker, cl), gen)
	if err := g.done(ctx, cl, s, "logged-out", res, ran, err); err != nil {
		page.Close()
		return nil, err
	}
	if !retry {
		return page, nil // not logged in again: the page as it answered
	}
	aerr := g.deps.ArchiveAside(r, page, NoteLoggedOut)
	page.Close()
	if aerr != nil {
		return nil, &chain.FatalError{Err: aerr}
	}
	if !ran { // another worker logged in again
		if err := g.env.Front.Pace(ctx, cl, u.Host); err != nil {
			return nil, paceErr(ctx, u.URL, err)
		}
	}
	return next(ctx, r)
}

// done writes the event of a login that ran (trigger: first, logged-out), and takes the
// claim's own host back for the page. A login that failed is an event; its errors are fatal
// only when recording or pacing failed, or ctx ended.
func (g *Gate) done(ctx context.Context, cl *frontier.Claim, s *Session, trigger string, res Result, ran bool, err error) error {
	var fatal *chain.FatalError
	switch {
	case errors.As(err, &fatal):
		return err
	case ctx.Err() != nil:
		return ctx.Err()
	case !ran:
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
		ev.Outcome, ev.Reason = "failure", "no response: "+chain.ErrorWord(err)
	case !res.OK:
		ev.Outcome, ev.Reason = "failure", res.Reason
	}
	if ev.Outcome == "failure" {
		ev.Message = "Login " + name + " failed: " + ev.Reason
		g.env.Log.Warn("login failed", "login", name, "reason", ev.Reason, "url", u.URL)
	} else {
		g.env.Log.Info("logged in", "login", name, "url", u.URL)
	}
	if werr := g.env.Events.Event(ev); werr != nil {
		return &chain.FatalError{Err: fmt.Errorf("write login event: %w", werr)}
	}
	// The login's requests took the claim's request slot elsewhere: the page waits for its
	// own host again.
	if perr := g.env.Front.Pace(ctx, cl, u.Host); perr != nil {
		return paceErr(ctx, u.URL, perr)
	}
	return nil
}

// paceErr is the error of a Pace that failed: ctx's when it ended, else fatal.
func paceErr(ctx context.Context, url string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &chain.FatalError{Err: fmt.Errorf("pace %s: %w", url, err)}
}

// do is the Do of a login made for the claimed page: each request paced on its host, made
// with the crawl's plain client, and archived (hop P from the page, annotated login:STEP); a
// request without a response gets a crawl.log line with its error.
func (g *Gate) do(worker int, cl *frontier.Claim) Do {
	u := cl.URL
	k := chain.Capture{Hops: u.Hops + string(hop.Prerequisite), Via: u.URL, Seed: u.Seed}
	return func(ctx context.Context, step string, req fetch.Request) (*fetch.Exchange, error) {
		if err := g.env.Front.Pace(ctx, cl, g.deps.HostKey(req.URL)); err != nil {
			return nil, paceErr(ctx, req.URL, err)
		}
		ex, err := g.deps.Client.Do(ctx, req)
		if eerr := g.env.Front.Ended(cl, time.Now()); eerr != nil {
			if ex != nil {
				ex.Close()
			}
			return nil, paceErr(ctx, req.URL, eerr)
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
			if lerr := g.env.Lines.WriteLine(report.Line{Status: code, Size: -1, URL: req.URL, Hops: k.Hops, Via: k.Via,
				Thread: worker, Seed: k.Seed, Annotations: append(ann, "err:"+chain.ErrorWord(err))}); lerr != nil {
				return nil, &chain.FatalError{Err: lerr}
			}
			return nil, err
		}
		k := k
		k.Annotations = ann
		if _, err := g.env.Archive.Archive(worker, ex, k); err != nil {
			ex.Close()
			return nil, &chain.FatalError{Err: err}
		}
		return ex, nil
	}
}
