package crawl

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/seeds"
	"github.com/amber-crawler/amber/sitelimit"
)

// Retries (Config.Retries) say how many times a URL is tried again after a condition (FAST's
// http_errors RETRY:n): keys are as seeds.ParseRetryCondition writes them, a status code with
// X for any digit ("503", "5XX"), seeds.RetryNet, seeds.RetryTTL or seeds.RetryInt.

// statusAttempts is the number of attempts a URL whose response has status code gets: from
// the most specific condition of retries that matches it (its count + 1), else MaxAttempts
// for a 5xx or 429 and 1 for any other status.
func (c Config) statusAttempts(code int) int {
	if n, ok := matchStatus(c.Retries, code); ok {
		return n + 1
	}
	if retryStatus(code) {
		return c.MaxAttempts
	}
	return 1
}

// failureAttempts is the number of attempts a URL whose fetch failed with err gets: the count
// of its condition (failureCondition) + 1 when Retries names it, else MaxAttempts for a
// failure worth trying again (fetch.Error.Retryable; a failure that is not a *fetch.Error,
// the browser failing on the page, is) and 1 for the others (a TLS or address-guard refusal).
func (c Config) failureAttempts(err error) int {
	cond, retryable := failureCondition(err)
	if n, ok := c.Retries[cond]; ok && cond != "" {
		return n + 1
	}
	if retryable {
		return c.MaxAttempts
	}
	return 1
}

// frontierAttempts is the most attempts any URL may get: the frontier's MaxAttempts, so that
// the crawl alone decides, per condition, when a URL has had enough.
func (c Config) frontierAttempts() int {
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
		return seeds.RetryInt, true
	}
	switch fe.Kind {
	case fetch.Timeout:
		return seeds.RetryTTL, true
	case fetch.DNS, fetch.Connect, fetch.Broken, fetch.Protocol:
		return seeds.RetryNet, true
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

// validateRetries checks Config.Retries as seeds.CheckRetries does.
func validateRetries(r map[string]int) error {
	if _, err := seeds.CheckRetries(r); err != nil {
		return &FieldError{Field: "Retries", Err: err}
	}
	return nil
}

// canonicalRetries is r with its conditions as seeds.ParseRetryCondition writes them
// (validateRetries checked that they parse).
func canonicalRetries(r map[string]int) map[string]int {
	out, _ := seeds.CheckRetries(r)
	return out
}

// retryOrFail queues the claim again, after the backoff of its attempts, when it has had
// fewer than attempts attempts, and reports true; otherwise it marks it failed with status
// code. (The frontier's own limit is frontierAttempts, never lower.)
func (c *crawler) retryOrFail(cl *frontier.Claim, attempts, code int) (bool, error) {
	u := cl.URL
	if u.Attempts+1 < attempts {
		return c.front.RetryStatus(cl, time.Now().Add(c.backoff(u.Attempts)), code)
	}
	return false, c.front.Failed(cl, code)
}

// retries is the chain's step that tries a response again later: its status is retried (a
// 5xx or a 429, or as Config.Retries says) and attempts remain. Retry-After is honoured (and
// slows the whole host down). The response is then not archived.
type retries struct{ c *crawler }

func (retries) Name() string { return "retries" }

// After finishes the URL to be tried again later when its response is to be retried.
func (p retries) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	c, u, ex := p.c, r.URL(), r.Result.Exchanges[0]
	if u.Attempts+1 >= c.cfg.statusAttempts(ex.StatusCode) {
		return chain.Proceed, nil
	}
	now := time.Now()
	notBefore := now.Add(c.backoff(u.Attempts))
	if ra, ok := retryAfter(ex.Header.Get("Retry-After"), now); ok && (ex.StatusCode == 429 || ex.StatusCode == 503) {
		c.front.HostBackoff(u.Host, ra)
		if ra.After(notBefore) {
			notBefore = ra
		}
	}
	return chain.Finish(chain.Outcome{Status: ex.StatusCode, RetryAt: notBefore}), nil
}

// backoff is the wait before retry number attempts+1 of a URL (sitelimit.Backoff: RetryDelay
// doubled per earlier attempt, at most Sites.MaxBackoff when that is set).
func (c *crawler) backoff(attempts int) time.Duration {
	return sitelimit.Backoff(c.cfg.RetryDelay, c.cfg.Sites.MaxBackoff, attempts)
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
