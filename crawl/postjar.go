package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/scope"
)

// sessionJar is the crawl's cookie jar with FAST's cookie_timeout
// (Config.SessionCookieTTL): a session cookie (one without Expires or Max-Age) is kept ttl
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

func newSessionJar(jar http.CookieJar, ttl time.Duration, now func() time.Time) *sessionJar {
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

// PostPayload makes the requests for some URLs POST requests with a body (FAST's
// post_payload): the URL exactly, or with Prefix every URL that starts with it.
type PostPayload struct {
	// URL is the URL as the crawl has it (canonical, as crawl.log writes it), or with Prefix
	// the start of such URLs.
	URL    string
	Prefix bool
	// Body is sent as the request's body, Content-Type application/x-www-form-urlencoded.
	Body string
}

// payloadFor returns the payload of the URL u: the one for exactly u, else the one of the
// longest prefix of u.
func payloadFor(ps []PostPayload, u string) (PostPayload, bool) {
	var best PostPayload
	found := false
	for _, p := range ps {
		switch {
		case !p.Prefix && p.URL == u:
			return p, true
		case p.Prefix && strings.HasPrefix(u, p.URL) && (!found || len(p.URL) > len(best.URL)):
			best, found = p, true
		}
	}
	return best, found
}

// postPayloads is the chain's step that makes the request of a URL in Config.PostPayloads a
// POST with its body; its capture says so (crawl.log annotation post).
type postPayloads []PostPayload

func (postPayloads) Name() string { return "post_payloads" }

// Before makes the request a POST with the payload of its URL.
func (ps postPayloads) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	p, ok := payloadFor(ps, r.Request.URL)
	if !ok {
		return chain.Proceed, nil
	}
	req := &r.Request
	req.Method = http.MethodPost
	req.Body = []byte(p.Body)
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return chain.Proceed, nil
}

// After marks the capture of a URL requested with a POST.
func (postPayloads) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	if r.Request.Method == http.MethodPost {
		r.Captures[0].Annotate(notePost)
	}
	return chain.Proceed, nil
}

// notePost is the crawl.log annotation of a URL requested with Config.PostPayloads' body.
const notePost = "post"

// validatePostPayloads reports the first payload whose URL is not an http or https URL.
func validatePostPayloads(ps []PostPayload, f scope.Flavour) error {
	for i, p := range ps {
		u, err := url.Parse(p.URL)
		if err == nil && (u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
			err = errors.New("want an http or https URL")
		}
		if err == nil {
			_, err = scope.Canonicalize(p.URL, f)
		}
		if err != nil {
			return &FieldError{Field: fmt.Sprintf("PostPayloads[%d]", i), Err: fmt.Errorf("%q: %w", p.URL, err)}
		}
	}
	return nil
}

// canonicalPayloads returns the payloads with their URLs canonical, as the crawl's URLs are
// (validatePostPayloads checked they are URLs).
func canonicalPayloads(ps []PostPayload, f scope.Flavour) []PostPayload {
	out := slices.Clone(ps)
	for i := range out {
		if cu, err := scope.Canonicalize(out[i].URL, f); err == nil {
			out[i].URL = cu
		}
	}
	return out
}
