package crawl

import (
	"context"
	"errors"
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
	d := c.scope.load().Decide(scope.Candidate{URL: sub.URL, Hops: string(hop.Embed)})
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
