package crawl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// Sub-requests: the requests a fetcher makes of its own for a claimed URL (a browser's
// subresources and the redirects it follows). Each is decided before it is sent as the
// plain fetcher's URLs are when they are claimed: the scope's block rules and its
// subcollection's schemes, then every chain.Admitter (robots.txt, the per-site limits). A
// refused one is not requested, and is recorded as a URL refused before its fetch is: in the
// frontier (never queued later), crawl.log and events, with its own outcome (-5000
// scope:block:RULE, -9998 robots, -5000 scope:max-doc, ...). What they are exempt from, and
// why, is in the README: the host's delay between requests and retries, because a page loads
// all at once in the browser, as in a reader's.

// subRequests is what the crawl decided about the sub-requests of one claimed URL.
type subRequests struct {
	mu      sync.Mutex               // guards refused and err
	refused map[string]chain.Outcome // by the request's URL as the fetcher gave it
	err     error                    // a failure that must stop the crawl (a record not written)
}

// admission returns the fetch.Request.Admit of the claimed URL of r: it decides each
// sub-request (admit) and keeps the outcome of those it refuses, for recordRefused.
func (c *crawler) admission(r *chain.Record) (fetch.Admit, *subRequests) {
	subs := &subRequests{refused: map[string]chain.Outcome{}}
	page := r.URL()
	return func(ctx context.Context, raw string) string {
		cu, err := scope.Canonicalize(raw, c.cfg.Scope.Flavour)
		if err != nil {
			return "" // the fetch says what is wrong with it
		}
		sub := frontier.URL{URL: cu, Host: hostKey(cu), Hops: page.Hops + string(hop.Embed), Via: page.URL, Seed: page.Seed}
		v, err := c.admit(ctx, r, sub)
		subs.mu.Lock()
		defer subs.mu.Unlock()
		switch {
		case err != nil && ctx.Err() == nil:
			subs.err = errors.Join(subs.err, err)
			return "error"
		case err != nil || !v.Done || v.Failure != nil:
			return ""
		}
		subs.refused[raw] = v.Outcome
		return refusalReason(v.Outcome)
	}, subs
}

// admit decides one sub-request sub of r: the scope's block rules (which bind embeds) and its
// subcollection's schemes, then each chain.Admitter in chain order.
func (c *crawler) admit(ctx context.Context, r *chain.Record, sub frontier.URL) (chain.Verdict, error) {
	d := c.scope.Load().Decide(scope.Candidate{URL: sub.URL, Hops: string(hop.Embed)})
	if !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix) {
		return chain.Finish(scopeOutcome(d.Reason, "")), nil
	}
	if reason := c.subs.Blocked(sub.URL); reason != "" {
		return chain.Finish(scopeOutcome(reason, "")), nil
	}
	for _, a := range c.chain.admitters {
		if v, err := a.Admit(ctx, r, sub); err != nil || v.Done {
			return v, err
		}
	}
	return chain.Proceed, nil
}

// scopeOutcome is the outcome of a URL scope (or a rule of the crawl's) left out for reason:
// -5000 (-4001 beyond a hop or redirect limit), scope:REASON, a url-discover-denied event;
// from, when a rewrite rule made the URL, is recorded as its URL as found.
func scopeOutcome(reason, from string) chain.Outcome {
	code := status.OutOfScope
	switch reason {
	case scope.ReasonMaxHops, scope.ReasonMaxDepth, reasonMaxRedirects:
		code = status.TooManyHops
	}
	ann := []string{"scope:" + reason}
	if from != "" {
		ann = append(ann, rewrittenNote(from))
	}
	return chain.Outcome{Status: code, Annotations: ann, Denied: report.DenyOutOfScope, ScopeReason: reason}
}

// refusalReason is the reason a refused URL is remembered by in the frontier (and reported):
// its scope reason, else its denial ("robots"), else its first annotation.
func refusalReason(o chain.Outcome) string {
	switch {
	case o.ScopeReason != "":
		return o.ScopeReason
	case o.Denied != "":
		return o.Denied
	case len(o.Annotations) > 0:
		return o.Annotations[0]
	}
	return "refused"
}

// refuse records a URL u that page pointed at (an outlink, a sub-request) and the crawl kept
// out with outcome o: in the frontier, so it is reported and never queued later, and, the
// first time, in crawl.log and events.
func (c *crawler) refuse(worker int, page, u frontier.URL, o chain.Outcome) error {
	first, err := c.front.Reject(u, refusalReason(o))
	switch {
	case errors.Is(err, frontier.ErrURL):
		// Too big to remember: logged each time a page points at it, never fatal.
		first = true
	case err != nil:
		return c.frontierErr(err)
	}
	if !first {
		return nil
	}
	info := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: page.URL, Seed: page.Seed}
	if o.FetchEvent {
		if err := c.events.URLFetch(info, o.Status, 0, 0); err != nil {
			return fmt.Errorf("write fetch event: %w", err)
		}
	}
	if err := c.logLine(report.Line{Status: o.Status, Size: -1, URL: u.URL, Hops: u.Hops, Via: page.URL,
		Thread: worker, Seed: page.Seed, Annotations: o.Annotations}); err != nil {
		return err
	}
	if o.Denied != "" {
		if err := c.events.URLDiscoverDenied(info, o.Denied, o.ScopeReason); err != nil {
			return fmt.Errorf("write %s event: %w", o.Denied, err)
		}
	}
	return nil
}

// recordRefused records the sub-requests of a fetch that were refused (subs: with the
// outcome admit gave; a refusal the fetcher made itself, with its reason as a block rule's)
// or that got no response, so nothing the page wanted is invisible.
func (c *crawler) recordRefused(worker int, u frontier.URL, res *fetch.Result, subs *subRequests) error {
	embedHops := u.Hops + string(hop.Embed)
	for _, b := range res.Blocked {
		o, ok := subs.outcome(b.URL)
		if !ok {
			o = scopeOutcome(b.Reason, "")
		}
		sub := frontier.URL{URL: b.URL, Host: hostKey(b.URL), Hops: embedHops, Via: u.URL, Seed: u.Seed}
		if err := c.refuse(worker, u, sub, o); err != nil {
			return err
		}
	}
	for _, f := range res.Failed {
		var ref *chain.Refusal
		if errors.As(f.Err, &ref) { // a policy refused its address
			sub := frontier.URL{URL: f.URL, Host: hostKey(f.URL), Hops: embedHops, Via: u.URL, Seed: u.Seed}
			if err := c.refuse(worker, u, sub, scopeOutcome(ref.Reason, "")); err != nil {
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
			Thread: worker, Seed: u.Seed, Annotations: annotations(res, "err:"+chain.ErrorWord(f.Err))}); err != nil {
			return err
		}
	}
	return nil
}

// outcome is the outcome admit gave a refused request of the URL raw; false when it did not
// refuse it. A nil *subRequests refused nothing.
func (s *subRequests) outcome(raw string) (chain.Outcome, bool) {
	if s == nil {
		return chain.Outcome{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.refused[raw]
	return o, ok
}

// failure is the failure admit met that must stop the crawl; nil from a nil *subRequests.
func (s *subRequests) failure() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
