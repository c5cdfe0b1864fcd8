package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter parses a Retry-After header value, seconds or an HTTP date, into the time it
// names; a time more than a day after now is a day after now. false for an empty or
// unparsable value.
func RetryAfter(v string, now time.Time) (time.Time, bool) {
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
