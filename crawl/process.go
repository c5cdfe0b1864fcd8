package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
)

// process takes one claimed URL through the chain (chain.go), the same for both fetchers,
// and writes where it ended. It returns an error only when the crawl must stop (the WARC or
// the frontier cannot be written).
func (c *crawler) process(ctx context.Context, worker int, cl *frontier.Claim) error {
	u := cl.URL
	r := &chain.Record{Claim: cl, Worker: worker, Settings: c.settings, Request: fetch.Request{URL: u.URL}}
	if u.Via != "" {
		r.Request.Header = http.Header{"Referer": {u.Via}}
	}
	var subs *subRequests
	if c.browser != nil {
		r.Request.Admit, subs = c.admission(r)
	}
	defer c.release(r)
	v, err := c.walk(ctx, r)
	switch {
	case err == nil && subs.failure() != nil:
		return subs.failure()
	case err != nil && ctx.Err() != nil:
		return nil // shutting down: the claim goes back to the queue on the next run
	case err != nil:
		return err
	case !v.Done:
		return c.capture(r, subs)
	case v.Failure != nil:
		v = c.failure(r, v.Failure)
	}
	return c.finish(r, v.Outcome)
}

// walk takes r through the Before hooks, the fetch and the After hooks. A verdict that is not
// Done means the URL got a response to archive.
func (c *crawler) walk(ctx context.Context, r *chain.Record) (chain.Verdict, error) {
	for _, p := range c.chain.before {
		if v, err := p.Before(ctx, r); err != nil || v.Done {
			return v, err
		}
	}
	res, err := c.chain.fetch(ctx, r)
	// The host's delay runs from the end of the response, not from when the page is done.
	if eerr := c.front.Ended(r.Claim, time.Now()); eerr != nil {
		if res != nil {
			res.Close()
		}
		return chain.Verdict{}, c.frontierErr(eerr)
	}
	if err != nil {
		return c.fetchFailed(ctx, r, err)
	}
	r.Result = res
	captures(r)
	for _, p := range c.chain.after {
		if v, err := p.After(ctx, r); err != nil || v.Done {
			return v, err
		}
	}
	r.Responded = true
	return chain.Proceed, nil
}

// release ends r: its response closed, and every processor told (reservations given back
// unless the URL got a response); the URL limit's reservation too.
func (c *crawler) release(r *chain.Record) {
	if r.Result != nil {
		r.Result.Close()
	}
	for _, p := range c.chain.releasers {
		p.Release(r)
	}
	if !r.Responded {
		c.budget.unreserve()
	}
}

// fetchFailed is the verdict on a URL whose fetch got no response: abandoned when the crawl
// is stopping, an error when the fetch's was one that stops the crawl, else a Failer's or a
// failure (failure).
func (c *crawler) fetchFailed(ctx context.Context, r *chain.Record, err error) (chain.Verdict, error) {
	var fatal *chain.FatalError
	switch {
	case ctx.Err() != nil:
		return chain.Abandon, nil
	case errors.As(err, &fatal):
		return chain.Verdict{}, fatal.Err
	}
	for _, p := range c.chain.failers {
		if v, ferr := p.Failed(ctx, r, err); ferr != nil || v.Done {
			return v, ferr
		}
	}
	return chain.Fail(err), nil
}

// failure is the outcome of a URL that got no response (its fetch's, or its robots.txt's):
// a Refusal's, or tried again while attempts remain and then logged with the error. A
// failure that is not a *fetch.Error (the browser failed twice on the page) counts as a
// broken connection.
func (c *crawler) failure(r *chain.Record, err error) chain.Verdict {
	var ref *chain.Refusal
	if errors.As(err, &ref) {
		return chain.Finish(ref.Outcome)
	}
	u := r.URL()
	attempts := c.cfg.retryPolicy().FailureAttempts(err) // before a browser's failure is made a broken connection: it is int
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		fe = &fetch.Error{Kind: fetch.Broken, URL: u.URL, Err: err}
		err = fe
	}
	c.log.Debug("fetch failed", "url", u.URL, "err", err, "attempt", u.Attempts+1)
	ann := []string{chain.AttemptsNote(u.Attempts + 1)}
	if fe.Kind == fetch.Blocked {
		ann = append(ann, fe.Kind.String()) // the address guard refused the host's address
	}
	return chain.Finish(chain.Outcome{Status: fe.Status(), FetchEvent: true, Attempts: attempts,
		Annotations: append(ann, "err:"+chain.ErrorWord(err))})
}

// finish writes how a URL ended that was not archived (chain.Outcome): the fetch event, the
// frontier (tried again, or failed), the crawl.log line and the denied event.
func (c *crawler) finish(r *chain.Record, o chain.Outcome) error {
	cl, u := r.Claim, r.URL()
	switch {
	case o.Abandon:
		return nil
	case !o.RetryAt.IsZero():
		c.log.Debug("retry later", "url", u.URL, "status", o.Status, "attempt", u.Attempts+1)
		_, err := c.front.Retry(cl, o.RetryAt)
		return c.frontierErr(err)
	}
	if o.FetchEvent {
		if err := c.events.URLFetch(r.Info(), o.Status, 0, 0); err != nil {
			return fmt.Errorf("write fetch event: %w", err)
		}
	}
	if o.Attempts > 0 {
		if retried, err := c.retryOrFail(cl, o.Attempts, o.Status); err != nil || retried {
			return c.frontierErr(err)
		}
	} else if err := c.front.Failed(cl, o.Status); err != nil {
		return c.frontierErr(err)
	}
	if err := c.rec.WriteLine(report.Line{Status: o.Status, Size: -1, URL: u.URL, Hops: u.Hops, Via: u.Via,
		Thread: r.Worker, Seed: u.Seed, Annotations: o.Annotations}); err != nil {
		return err
	}
	if o.Denied != "" {
		if err := c.events.URLDiscoverDenied(r.Info(), o.Denied, o.ScopeReason); err != nil {
			return fmt.Errorf("write %s event: %w", o.Denied, err)
		}
	}
	return nil
}

// capture archives a URL that got a response: its outlinks decided, every exchange written
// (and the sub-requests a browser was refused), its search document, the Recorded hooks, its
// denied links, and its outlinks queued before the URL is done, so that a kill between the
// two refetches the page and never loses what it linked to.
func (c *crawler) capture(r *chain.Record, subs *subRequests) error {
	u := r.URL()
	c.promoteChain(r)
	decided := c.links.decide(u, r.Content)
	r.Captures[0] = decided.annotate(r.Captures[0], r.Content.Dropped)
	recs, err := c.rec.archiveAll(r.Worker, u, r.Result, r.Captures)
	if err != nil {
		return err
	}
	r.Records = recs
	if err := c.rec.refused(r.Worker, u, r.Result, subs); err != nil {
		return err
	}
	if err := c.rec.document(r); err != nil {
		return err
	}
	for _, p := range c.chain.recorded {
		if err := p.Recorded(r); err != nil {
			return err
		}
	}
	for _, d := range r.Content.Denied {
		info := report.URLInfo{URL: d, Hops: u.Hops + string(hop.Link), Via: u.URL, Seed: u.Seed}
		if err := c.events.URLDiscoverDenied(info, r.Content.DeniedReason, ""); err != nil {
			return fmt.Errorf("write %s event: %w", r.Content.DeniedReason, err)
		}
	}
	if err := c.links.enqueue(r.Worker, u, decided); err != nil {
		return err
	}
	return c.frontierErr(c.front.Done(r.Claim))
}

// fetchURL is the fetch at the heart of the chain: the URL's request with its fetcher. With
// the browser fetcher, URLs a browser navigates to (seeds, links, redirects, sitemap entries)
// are loaded as pages; everything else (sitemap files too, and URLs requested with a POST),
// and everything with the plain fetcher, is one HTTP exchange of the URL's client.
func (c *crawler) fetchURL(ctx context.Context, r *chain.Record) (*fetch.Result, error) {
	if c.browser != nil && r.Rendered() {
		return c.browser.Fetch(ctx, r.Request)
	}
	return r.Settings.Client.Fetch(ctx, r.Request)
}

// annotations are a capture's crawl.log annotations: "browser" for what the browser fetched,
// then the given ones.
func annotations(res *fetch.Result, more ...string) []string {
	ann := []string{}
	if res.Render != nil {
		ann = append(ann, "browser")
	}
	return append(ann, more...)
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
	if c.cfg.Shared != nil && errors.Is(err, frontier.ErrClaimFinished) {
		c.log.Warn("a claim's lease expired: another process of the crawl has its URL", "err", err)
		return nil
	}
	return fmt.Errorf("update frontier: %w", err)
}
