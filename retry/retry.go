// Package retry decides how many times a crawl tries a URL again (politeness.max_attempts and
// FAST's http_errors RETRY:n, politeness.retries): per condition, a status code with X for
// any digit ("503", "5XX"), net (no response: DNS, connect, broken connection), ttl (a
// timeout) or int (the browser could not load the page), the most specific condition winning.
// Its Later is the chain's step (package chain) that puts a URL whose response is to be tried
// again back in the queue, Retry-After honoured.
package retry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
)

// ErrConfig is wrapped by the errors of ParseCondition and Check.
var ErrConfig = errors.New("retry: invalid retries")

// The retry conditions that are not HTTP status codes (FAST's http_errors names).
const (
	Net = "net" // no response: DNS, connect, a connection broken before the header
	TTL = "ttl" // no response in time (connect, first byte or header timeout)
	Int = "int" // amber's own failure (the browser could not load the page)
)

// ParseCondition checks one condition of politeness.retries and returns it in its
// canonical form: an HTTP status code of three characters, each a digit or an X standing
// for any digit ("503", "5XX", "50X"; x is read as X), the first a digit from 1 to 5; or
// net, ttl or int (any case, returned lowercase).
func ParseCondition(s string) (string, error) {
	low := strings.ToLower(strings.TrimSpace(s))
	switch low {
	case Net, TTL, Int:
		return low, nil
	}
	up := strings.ToUpper(strings.TrimSpace(s))
	if len(up) != 3 || up[0] < '1' || up[0] > '5' {
		return "", fmt.Errorf("%w: %q: want a status code like 503 or 5XX, or net, ttl, int", ErrConfig, s)
	}
	for i := 1; i < 3; i++ {
		if c := up[i]; c != 'X' && (c < '0' || c > '9') {
			return "", fmt.Errorf("%w: %q: want a status code like 503 or 5XX, or net, ttl, int", ErrConfig, s)
		}
	}
	return up, nil
}

// Check checks politeness.retries: every condition parses (ParseCondition), no
// two name the same condition ("5xx" and "5XX"), and no count is negative. It returns the
// map with canonical conditions (nil for an empty one).
func Check(r map[string]int) (map[string]int, error) {
	if len(r) == 0 {
		return nil, nil
	}
	out := make(map[string]int, len(r))
	for cond, n := range r {
		c, err := ParseCondition(cond)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, fmt.Errorf("%w: %s: %d: must not be negative", ErrConfig, cond, n)
		}
		if _, dup := out[c]; dup {
			return nil, fmt.Errorf("%w: %s: given twice", ErrConfig, c)
		}
		out[c] = n
	}
	return out, nil
}

// Policy is how many times URLs are tried.
type Policy struct {
	// MaxAttempts is how often a URL is tried on network errors and 5xx (and 429) when no
	// condition of Retries names them; at least 1.
	MaxAttempts int
	// Retries, {condition: n}, say how many times a URL is tried again after a condition, as
	// Check returns them (canonical). What no condition names keeps MaxAttempts (network
	// errors, 5xx and 429 retried, other statuses not). 0: not retried.
	Retries map[string]int
}

// StatusAttempts is the number of attempts a URL whose response has status code gets: from
// the most specific condition of Retries that matches it (its count + 1), else MaxAttempts
// for a 5xx or 429 and 1 for any other status.
func (c Policy) StatusAttempts(code int) int {
	if n, ok := matchStatus(c.Retries, code); ok {
		return n + 1
	}
	if Retried(code) {
		return c.MaxAttempts
	}
	return 1
}

// FailureAttempts is the number of attempts a URL whose fetch failed with err gets: the count
// of its condition (failureCondition) + 1 when Retries names it, else MaxAttempts for a
// failure worth trying again (fetch.Error.Retryable; a failure that is not a *fetch.Error,
// the browser failing on the page, is) and 1 for the others (a TLS or address-guard refusal).
func (c Policy) FailureAttempts(err error) int {
	cond, retryable := failureCondition(err)
	if n, ok := c.Retries[cond]; ok && cond != "" {
		return n + 1
	}
	if retryable {
		return c.MaxAttempts
	}
	return 1
}

// MostAttempts is the most attempts any URL may get (the frontier's MaxAttempts, so that the
// crawl alone decides, per condition, when a URL has had enough).
func (c Policy) MostAttempts() int {
	n := c.MaxAttempts
	for _, r := range c.Retries {
		n = max(n, r+1)
	}
	return n
}

// failureCondition is the retry condition of a fetch that got no response: ttl for a
// timeout, net for a DNS, connect, broken-connection or protocol failure, int for a failure
// that is not a *fetch.Error (amber's browser could not load the page), "" for the others
// (TLS, blocked, invalid URL, proxy authentication, canceled), which no condition names. It
// also reports whether the failure is worth trying again without a condition for it.
func failureCondition(err error) (string, bool) {
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		return Int, true
	}
	switch fe.Kind {
	case fetch.Timeout:
		return TTL, true
	case fetch.DNS, fetch.Connect, fetch.Broken, fetch.Protocol:
		return Net, true
	}
	return "", fe.Retryable()
}

// matchStatus returns the count of the most specific status condition of retries that
// matches code: the one with the fewest X, and of those the one whose first X comes latest
// ("50X" before "5X3").
func matchStatus(retries map[string]int, code int) (int, bool) {
	s := strconv.Itoa(code)
	best, n, found := "", 0, false
	for cond, r := range retries {
		if len(cond) != 3 || len(s) != 3 || !statusMatches(cond, s) {
			continue
		}
		if !found || moreSpecific(cond, best) {
			best, n, found = cond, r, true
		}
	}
	return n, found
}

func statusMatches(cond, code string) bool {
	for i := range 3 {
		if cond[i] != 'X' && cond[i] != code[i] {
			return false
		}
	}
	return true
}

// moreSpecific reports whether status condition a is more specific than b (two conditions
// that match the same code, so equal where both are digits).
func moreSpecific(a, b string) bool {
	xa, xb := 0, 0
	for i := range 3 {
		if a[i] == 'X' {
			xa++
		}
		if b[i] == 'X' {
			xb++
		}
	}
	if xa != xb {
		return xa < xb
	}
	for i := range 3 {
		if (a[i] == 'X') != (b[i] == 'X') {
			return b[i] == 'X'
		}
	}
	return false
}

// Retried reports whether a response of status code is tried again without a condition for
// it: a 5xx or a 429.
func Retried(code int) bool { return code >= 500 || code == 429 }

// Later is the chain's step that tries a response again later: its status is retried
// (Policy.StatusAttempts) and attempts remain. Retry-After of a 429 or 503 is honoured, and
// slows the whole host down. The response is then not archived.
type Later struct {
	Policy Policy
	// Backoff is the wait before retry number attempts+1 of a URL.
	Backoff func(attempts int) time.Duration
	// HostBackoff stops requests to host before t (frontier.Store.HostBackoff).
	HostBackoff func(host string, t time.Time)
}

func (Later) Name() string { return "retries" }

// After finishes the URL to be tried again later when its response is to be retried.
func (l Later) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	u, ex := r.URL(), r.Result.Exchanges[0]
	if u.Attempts+1 >= l.Policy.StatusAttempts(ex.StatusCode) {
		return chain.Proceed, nil
	}
	now := time.Now()
	notBefore := now.Add(l.Backoff(u.Attempts))
	if ra, ok := fetch.RetryAfter(ex.Header.Get("Retry-After"), now); ok && (ex.StatusCode == 429 || ex.StatusCode == 503) {
		l.HostBackoff(u.Host, ra)
		if ra.After(notBefore) {
			notBefore = ra
		}
	}
	return chain.Finish(chain.Outcome{Status: ex.StatusCode, RetryAt: notBefore}), nil
}
