package crawl

import (
	"time"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/retry"
	"github.com/amber-crawler/amber/sitelimit"
)

// retryPolicy is how many times the crawl tries its URLs (package retry).
func (c *Config) retryPolicy() retry.Policy {
	return retry.Policy{MaxAttempts: c.MaxAttempts, Retries: c.Retries}
}

// validateRetries checks Config.Retries as retry.Check does.
func validateRetries(r map[string]int) error {
	if _, err := retry.Check(r); err != nil {
		return &FieldError{Field: "Retries", Err: err}
	}
	return nil
}

// retryOrFail queues the claim again, after the backoff of its attempts, when it has had
// fewer than attempts attempts, and reports true; otherwise it marks it failed with status
// code. (The frontier's own limit is retry.Policy.MostAttempts, never lower.)
func (c *crawler) retryOrFail(cl *frontier.Claim, attempts, code int) (bool, error) {
	u := cl.URL
	if u.Attempts+1 < attempts {
		return c.front.RetryStatus(cl, time.Now().Add(c.backoff(u.Attempts)), code)
	}
	return false, c.front.Failed(cl, code)
}

// backoff is the wait before retry number attempts+1 of a URL (sitelimit.Backoff: RetryDelay
// doubled per earlier attempt, at most Sites.MaxBackoff when that is set).
func (c *crawler) backoff(attempts int) time.Duration {
	return sitelimit.Backoff(c.cfg.RetryDelay, c.cfg.Sites.MaxBackoff, attempts)
}
