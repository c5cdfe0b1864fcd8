package fetch

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// sessionJar is a cookie jar with FAST's cookie_timeout (crawl.Config.SessionCookieTTL): a session cookie (one without Expires or Max-Age) is kept ttl
// from when it was first set with its value, and then expires from the jar; a cookie with
// its own expiry keeps it. Setting a session cookie again with the same value (the browser
// fetcher copies Chromium's cookies back after each page) does not renew it; a new value
// does.
type sessionJar struct {
	http.CookieJar
	ttl time.Duration
	now func() time.Time

	mu   sync.Mutex               // guards seen
	seen map[string]sessionCookie // by domain|path|name
}

type sessionCookie struct {
	value   string
	expires time.Time
}

// NewSessionJar wraps jar so that a session cookie expires ttl after a site first set it with
// its value (see sessionJar); now is the clock.
func NewSessionJar(jar http.CookieJar, ttl time.Duration, now func() time.Time) http.CookieJar {
	return &sessionJar{CookieJar: jar, ttl: ttl, now: now, seen: map[string]sessionCookie{}}
}

// SetCookies stores cookies as the underlying jar does, a session cookie with an expiry ttl
// after it was first set with its value.
func (j *sessionJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	now := j.now()
	out := make([]*http.Cookie, 0, len(cookies))
	j.mu.Lock()
	for _, c := range cookies {
		if c.MaxAge != 0 || !c.Expires.IsZero() {
			out = append(out, c)
			continue
		}
		key := cookieKey(u, c)
		s, ok := j.seen[key]
		if !ok || s.value != c.Value {
			s = sessionCookie{value: c.Value, expires: now.Add(j.ttl)}
			j.seen[key] = s
		}
		cc := *c
		cc.Expires = s.expires
		out = append(out, &cc)
	}
	j.mu.Unlock()
	j.CookieJar.SetCookies(u, out)
}

// cookieKey is what identifies a cookie in a jar (RFC 6265 §5.3): its domain (the request's
// host for a host-only cookie), path (the default path when it has none) and name.
func cookieKey(u *url.URL, c *http.Cookie) string {
	domain := strings.ToLower(strings.TrimPrefix(c.Domain, "."))
	if domain == "" {
		domain = strings.ToLower(u.Hostname())
	}
	p := c.Path
	if !strings.HasPrefix(p, "/") {
		p = u.Path
		if i := strings.LastIndex(p, "/"); i > 0 {
			p = p[:i]
		} else {
			p = "/"
		}
	}
	return domain + "|" + p + "|" + c.Name
}
