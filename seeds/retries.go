package seeds

import (
	"fmt"
	"strings"
)

// The retry conditions that are not HTTP status codes (FAST's http_errors names).
const (
	RetryNet = "net" // no response: DNS, connect, a connection broken before the header
	RetryTTL = "ttl" // no response in time (connect, first byte or header timeout)
	RetryInt = "int" // amber's own failure (the browser could not load the page)
)

// ParseRetryCondition checks one condition of politeness.retries and returns it in its
// canonical form: an HTTP status code of three characters, each a digit or an X standing
// for any digit ("503", "5XX", "50X"; x is read as X), the first a digit from 1 to 5; or
// net, ttl or int (any case, returned lowercase).
func ParseRetryCondition(s string) (string, error) {
	low := strings.ToLower(strings.TrimSpace(s))
	switch low {
	case RetryNet, RetryTTL, RetryInt:
		return low, nil
	}
	up := strings.ToUpper(strings.TrimSpace(s))
	if len(up) != 3 || up[0] < '1' || up[0] > '5' {
		return "", fmt.Errorf("%w: retries: %q: want a status code like 503 or 5XX, or net, ttl, int", ErrConfig, s)
	}
	for i := 1; i < 3; i++ {
		if c := up[i]; c != 'X' && (c < '0' || c > '9') {
			return "", fmt.Errorf("%w: retries: %q: want a status code like 503 or 5XX, or net, ttl, int", ErrConfig, s)
		}
	}
	return up, nil
}

// CheckRetries checks politeness.retries: every condition parses (ParseRetryCondition), no
// two name the same condition ("5xx" and "5XX"), and no count is negative. It returns the
// map with canonical conditions (nil for an empty one).
func CheckRetries(r map[string]int) (map[string]int, error) {
	if len(r) == 0 {
		return nil, nil
	}
	out := make(map[string]int, len(r))
	for cond, n := range r {
		c, err := ParseRetryCondition(cond)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, fmt.Errorf("%w: retries: %s: %d: must not be negative", ErrConfig, cond, n)
		}
		if _, dup := out[c]; dup {
			return nil, fmt.Errorf("%w: retries: %s: given twice", ErrConfig, c)
		}
		out[c] = n
	}
	return out, nil
}
