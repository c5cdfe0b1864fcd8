package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
)

// ContentConfig says which responses the crawl reads (FAST's allowed_types, uri_search_mime
// and exclude_headers). It never keeps a response out of the archive: a response's type and
// header fields are known only once it has been fetched, and an archive keeps what it
// fetched. What it decides is whether the crawl uses a response: follows its links and
// writes its search document. It applies to a URL's own response (with the browser fetcher,
// the page's document at the end of its redirects), not to the embeds a browser loads with
// a page, nor to robots.txt, sitemaps and feeds; and not to a redirect (3xx), whose target is
// followed whatever its type and fields.
type ContentConfig struct {
	// Types are the MIME types of the responses the crawl uses, each "type/subtype" (any
	// case) with "*" standing for a whole field ("text/*", "*/*"): a response of another type
	// (its Content-Type; without one, the type sniffed from its first 512 bytes) is archived
	// as it came, but its links are not followed and it has no search document; its crawl.log
	// line says type-excluded:TYPE, its metadata record "excluded: type:TYPE", and a
	// content-excluded event is written. Default none: every type.
	Types []string
	// LinkTypes are the MIME types (written as Types) of the responses whose links the crawl
	// follows: a response amber would read links from (HTML, XHTML or CSS; a page the browser
	// rendered) of another type gives none (not its embeds either; a Location or Refresh
	// header is still followed), and its crawl.log line says links-not-searched:TYPE; its
	// search document is written. amber reads links from HTML, XHTML and CSS only: another
	// type listed here gives none. Default none: every type amber reads.
	LinkTypes []string
	// ExcludeHeaders exclude responses by their header fields: a response with a field
	// that a rule names, one of whose values its pattern matches (anywhere in the value;
	// anchor with ^ and $), is treated as a type Types leaves out, with the crawl.log
	// annotation header-excluded:NAME and the metadata record "excluded: header:NAME". A
	// response without the field is not excluded by its rules. Default none.
	ExcludeHeaders []HeaderRule
}

// HeaderRule excludes the responses whose header field Name has a value Pattern matches
// (ContentConfig.ExcludeHeaders). Make one with NewHeaderRule.
type HeaderRule struct {
	Name    string // the field name, canonical (http.CanonicalHeaderKey)
	Pattern *regexp.Regexp
}

// NewHeaderRule returns the rule excluding the responses whose field name has a value that
// the regular expression pattern (Go's syntax, RE2) matches.
func NewHeaderRule(name, pattern string) (HeaderRule, error) {
	if !httpguts.ValidHeaderFieldName(name) {
		return HeaderRule{}, fmt.Errorf("%w: %q is not a header field name", ErrConfig, name)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return HeaderRule{}, fmt.Errorf("%w: header %s: %w", ErrConfig, name, err)
	}
	return HeaderRule{Name: http.CanonicalHeaderKey(name), Pattern: re}, nil
}

// Crawl.log annotations and metadata of the content filter (ContentConfig).
const (
	noteTypeExcluded   = "type-excluded:"      // + the response's type
	noteHeaderExcluded = "header-excluded:"    // + the field's name
	noteLinksNotRead   = "links-not-searched:" // + the response's type
	// ActionContentExcluded is the event of a response ContentConfig excluded: archived, not
	// used. Its reason is "type-excluded" or "header-excluded", its labels the type or the
	// field's name.
	ActionContentExcluded = "content-excluded"
)

// validate reports the first MIME type that is not "type/subtype" (a field either "*" or
// without one), or a header rule not made by NewHeaderRule.
func (c ContentConfig) validate() error {
	for _, f := range []struct {
		name  string
		types []string
	}{{"Content.Types", c.Types}, {"Content.LinkTypes", c.LinkTypes}} {
		for _, t := range f.types {
			if err := validMIMEPattern(t); err != nil {
				return &FieldError{Field: f.name, Err: err}
			}
		}
	}
	for i, r := range c.ExcludeHeaders {
		if r.Pattern == nil || !httpguts.ValidHeaderFieldName(r.Name) {
			return &FieldError{Field: fmt.Sprintf("Content.ExcludeHeaders[%d]", i), Err: errors.New("not made by NewHeaderRule")}
		}
	}
	return nil
}

func validMIMEPattern(p string) error {
	typ, sub, ok := strings.Cut(p, "/")
	if !ok || !validMIMEField(typ) || !validMIMEField(sub) {
		return fmt.Errorf("%q: want type/subtype, a field * or without *", p)
	}
	return nil
}

func validMIMEField(f string) bool {
	if f == "*" {
		return true
	}
	return f != "" && !strings.Contains(f, "*") && httpguts.ValidHeaderFieldName(f)
}

// MatchType reports whether the MIME type mt (without parameters) is one of patterns, whose
// "*" fields match any field (FAST's wildcards of allowed_types and uri_search_mime).
func MatchType(patterns []string, mt string) bool {
	typ, sub, _ := strings.Cut(strings.ToLower(mt), "/")
	return slices.ContainsFunc(patterns, func(p string) bool {
		pt, ps, _ := strings.Cut(strings.ToLower(p), "/")
		return (pt == "*" || pt == typ) && (ps == "*" || ps == sub)
	})
}

// contentFilter is the chain's content filter (Config.Content, Config.DropOversize): a
// response it drops or excludes is archived, but not read (no links, no search document), and
// its capture says why.
type contentFilter struct {
	cfg    ContentConfig
	events *report.Events
}

func (contentFilter) Name() string { return "content" }

// After marks the content of the page unread when it was cut at the response size limit and
// the URL's settings drop such pages (dropOversize), or when Types or ExcludeHeaders leave it
// out.
func (f contentFilter) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	if r.Content.Unread || r.Content.Listed {
		return chain.Proceed, nil
	}
	ex, k := r.Exchange(), &r.Captures[r.Doc]
	if r.Settings.DropOversize && dropOversize(ex, k) || f.excluded(ex, k) {
		r.Content.Unread = true
	}
	return chain.Proceed, nil
}

// excluded reports whether ex, the content of a URL's response, is left unused by
// ContentConfig: of a type Types leaves out, or with a field ExcludeHeaders names. Its capture
// k is then marked so (crawl.log annotation, metadata record field).
func (f contentFilter) excluded(ex *fetch.Exchange, k *chain.Capture) bool {
	cc := f.cfg
	if (len(cc.Types) == 0 && len(cc.ExcludeHeaders) == 0) || isRedirect(ex.StatusCode) {
		return false
	}
	var field, note string
	if len(cc.Types) > 0 {
		if mt := responseType(ex); !MatchType(cc.Types, mt) {
			field, note = "type:"+mt, noteTypeExcluded+mt
		}
	}
	if note == "" {
		name, ok := excludedBy(cc.ExcludeHeaders, ex.Header)
		if !ok {
			return false
		}
		field, note = "header:"+name, noteHeaderExcluded+name
	}
	k.AddField("excluded", field)
	k.Annotate(note)
	return true
}

// excludedBy returns the name of the first rule's field one of whose values h has and its
// pattern matches.
func excludedBy(rules []HeaderRule, h http.Header) (string, bool) {
	for _, r := range rules {
		for _, v := range h.Values(r.Name) {
			if r.Pattern.MatchString(v) {
				return r.Name, true
			}
		}
	}
	return "", false
}

// responseType is the MIME type of a response: its Content-Type's, or without one the type
// sniffed from the first 512 bytes of its decoded body (as extraction reads it).
func responseType(ex *fetch.Exchange) string {
	if mt := mediaType(ex.Header.Get("Content-Type")); mt != "" {
		return mt
	}
	var head []byte
	if r, err := ex.Body(); err == nil {
		head, _ = io.ReadAll(io.LimitReader(r, 512))
		r.Close()
	}
	return mediaType(http.DetectContentType(head))
}

// linkTypes is the step of the content filter after the content is read: the links of a
// response whose type is not one of ContentConfig.LinkTypes are taken out, and its capture
// marked so (links-not-searched:TYPE). A Location or Refresh header's target stays: it is not
// a link found in the content.
type linkTypes struct{ types []string }

func (linkTypes) Name() string { return "content.link_types" }

// After takes the links out of the content read from the page's exchange when its type is
// not one of the types.
func (l linkTypes) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	ex := r.Exchange()
	if len(l.types) == 0 || r.Content.Unread || r.Content.Listed || isRedirect(ex.StatusCode) {
		return chain.Proceed, nil
	}
	mt := responseType(ex)
	if MatchType(l.types, mt) || !(r.Result.Render != nil || isParsable(mt)) {
		return chain.Proceed, nil
	}
	r.Content.Links = slices.DeleteFunc(r.Content.Links, func(o extract.Outlink) bool {
		return o.Context != "header/location" && o.Context != "header/refresh"
	})
	r.Content.Dropped = 0
	r.Captures[r.Doc].Annotate(noteLinksNotRead + mt)
	return chain.Proceed, nil
}

// Recorded writes the content-excluded event of the page's capture when After excluded it.
func (f contentFilter) Recorded(r *chain.Record) error {
	u, docURL := r.URL(), r.DocURL()
	for _, a := range r.Captures[r.Doc].Annotations {
		reason, label, msg := "type-excluded", "type", "of type %s, which content.types leaves out"
		what, ok := strings.CutPrefix(a, noteTypeExcluded)
		if !ok {
			reason, label, msg = "header-excluded", "header", "with a %s field that content.exclude_headers excludes"
			if what, ok = strings.CutPrefix(a, noteHeaderExcluded); !ok {
				continue
			}
		}
		info := report.URLInfo{URL: docURL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
		if err := f.events.Event(report.Event{Action: ActionContentExcluded, Type: "denied", Outcome: "success",
			Reason: reason, URL: &info, Labels: map[string]string{label: what},
			Message: docURL + ": archived, " + fmt.Sprintf(msg, what) + "; its links are not followed and it has no search document"}); err != nil {
			return fmt.Errorf("write content event: %w", err)
		}
	}
	return nil
}

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
