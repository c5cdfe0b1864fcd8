// Package login performs HTML form logins, as FAST's crawler configures them (a Login
// element or a logins section: preload, html_form, autofill, parameters, form, action, sites,
// ttl, relogin_if_failed), and keeps each login's state through a crawl. Every request goes
// through a function the caller gives (Do), so the crawl makes, records and archives each
// exchange of a login as it does any other: the preload, the page of the form, the submission
// with its body, and the redirects after it.
package login

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/amber-crawler/amber/fetch"
)

// Spec is one form login, checked (Validate) and with its secrets resolved.
type Spec struct {
	// Name names the login in events and logs.
	Name string
	// Preload is fetched first, for the cookies it sets; "" for none.
	Preload string
	// HTMLForm is the URL of the page holding the login form. It is fetched before the
	// submission (for its cookies, and with Autofill for its form); "" for none. Required
	// with Autofill.
	HTMLForm string
	// Autofill submits the form of the HTMLForm page as a browser would, with its hidden
	// fields and default values (a CSRF token, say), the Parameters set over them.
	// Without Autofill exactly the Parameters are submitted.
	Autofill bool
	// Form is the absolute URL the form is submitted to. With Autofill it may be "" (the
	// form's own action, resolved against its page); when set, it also picks the form of the
	// page whose action it is. Required without Autofill.
	Form string
	// Method is GET or POST. "": the form's method with Autofill, POST without.
	Method string
	// Parameters are the fields to submit (the user name and password, typically).
	Parameters []Field
	// Sites are the host names whose pages need the login (case-insensitive, without
	// port); it is made before the first page of one of them is fetched. Empty: the host of
	// Form, or of HTMLForm.
	Sites []string
	// TTL is how long a login lasts: it is made again before a page when TTL has passed
	// since the last. 0: it does not expire.
	TTL time.Duration
	// ReloginIfFailed logs in again when a page of Sites answers as if logged out
	// (Expired), then fetches the page once more; and tries a failed login again once TTL
	// has passed since it failed. Without it a failed login is not tried again.
	ReloginIfFailed bool
}

// Validate checks s.
func (s Spec) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("login %q: "+format, append([]any{s.Name}, args...)...)
	}
	if strings.TrimSpace(s.Name) == "" {
		return errors.New("login: a login needs a name")
	}
	for _, u := range []struct{ key, v string }{{"preload", s.Preload}, {"html_form", s.HTMLForm}, {"form", s.Form}} {
		if u.v == "" {
			continue
		}
		if _, err := absURL(u.v); err != nil {
			return bad("%s: %v", u.key, err)
		}
	}
	switch {
	case s.Autofill && s.HTMLForm == "":
		return bad("autofill reads the form of html_form: give html_form")
	case !s.Autofill && s.Form == "":
		return bad("without autofill, give the URL the form is submitted to (form)")
	case s.Method != "" && s.Method != http.MethodGet && s.Method != http.MethodPost:
		return bad("method %q: want GET or POST", s.Method)
	case s.TTL < 0:
		return bad("negative ttl")
	case len(s.Parameters) == 0 && !s.Autofill:
		return bad("no parameters to submit")
	}
	seen := map[string]bool{}
	for _, p := range s.Parameters {
		if p.Name == "" {
			return bad("a parameter without a name")
		}
		if seen[p.Name] {
			return bad("parameter %q given twice", p.Name)
		}
		seen[p.Name] = true
	}
	for _, h := range s.Sites {
		if h == "" || strings.ContainsAny(h, "/:@ ") {
			return bad("sites: %q is not a host name", h)
		}
	}
	return nil
}

// absURL parses an absolute http(s) URL.
func absURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL", s)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q: want an absolute http:// or https:// URL", s)
	}
	return u, nil
}

// SiteHosts returns the hosts whose pages need the login: Sites, or the host of Form (or
// HTMLForm) when it has none; lowercase.
func (s Spec) SiteHosts() []string {
	var hosts []string
	for _, h := range s.Sites {
		hosts = append(hosts, strings.ToLower(h))
	}
	if len(hosts) > 0 {
		return hosts
	}
	for _, raw := range []string{s.Form, s.HTMLForm} {
		if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
			return []string{strings.ToLower(u.Hostname())}
		}
	}
	return nil
}

// Covers reports whether the page at rawURL is on one of the login's sites.
func (s Spec) Covers(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	return slices.Contains(s.SiteHosts(), strings.ToLower(u.Hostname()))
}

// Expired reports whether a page's response says it was fetched logged out: a 401 or 403,
// or a redirect to the login form's page (HTMLForm) or its Form URL, whatever the query
// (a "?next=" back to the page, say).
func (s Spec) Expired(ex *fetch.Exchange) bool {
	switch {
	case ex.StatusCode == http.StatusUnauthorized || ex.StatusCode == http.StatusForbidden:
		return true
	case ex.StatusCode < 300 || ex.StatusCode > 399:
		return false
	}
	loc := ex.Header.Get("Location")
	if loc == "" {
		return false
	}
	base, err := url.Parse(ex.URL)
	if err != nil {
		return false
	}
	to, err := base.Parse(strings.TrimSpace(loc))
	if err != nil {
		return false
	}
	for _, f := range []string{s.HTMLForm, s.Form} {
		if f != "" && samePage(to.String(), f) {
			return true
		}
	}
	return false
}

// samePage reports whether two URLs name the same scheme, host, port and path (query and
// fragment aside).
func samePage(a, b string) bool {
	ka, oka := pageKey(a)
	kb, okb := pageKey(b)
	return oka && okb && ka == kb
}

func pageKey(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + ":" + port + path, true
}

// Steps of a login, given to Do for the crawl's records.
const (
	StepPreload  = "preload"  // the Preload page
	StepFormPage = "form"     // the HTMLForm page
	StepSubmit   = "submit"   // the submission of the form
	StepRedirect = "redirect" // a redirect followed after one of the above
)

// Do makes one request of a login and returns its exchange; step is one of the Step
// constants. Perform reads the exchange's body and closes it. An error means no exchange.
type Do func(ctx context.Context, step string, req fetch.Request) (*fetch.Exchange, error)

// Result is the outcome of a login.
type Result struct {
	// OK tells whether the login succeeded: the submission's final response (after its
	// redirects) has a status below 400 and its page shows no login form again (no form
	// with a password input and none submitted to the same URL as the one just submitted).
	OK bool
	// Reason says why it failed: "status 403", "login form shown again", "no login form
	// on the html_form page", ...; "" when OK.
	Reason string
	// Status and URL are those of the final response of the submission; 0 and "" when it
	// was not made.
	Status int
	URL    string
}

// maxRedirects is how many redirects a login follows after each of its requests.
const maxRedirects = 10

// maxPage bounds the body of a login page that is read.
const maxPage = 10 << 20

// Perform logs in as s says, making every request through do: the Preload, the HTMLForm page
// and the submission, following each one's redirects (a POST body encoded as the autofilled
// form's enctype says, application/x-www-form-urlencoded without one, or a GET with the
// fields as its query). Cookies are the client's (the crawl's
// jar). A failed login is a Result; the error is do's, when a request got no response (or
// the crawl could not record it).
func Perform(ctx context.Context, s Spec, do Do) (Result, error) {
	if s.Preload != "" {
		if _, _, err := get(ctx, do, StepPreload, s.Preload, ""); err != nil {
			return Result{}, err
		}
	}
	action, method, fields, enctype := s.Form, s.Method, s.Parameters, EnctypeURLEncoded
	referer := ""
	if s.HTMLForm != "" {
		pageURL, body, err := get(ctx, do, StepFormPage, s.HTMLForm, "")
		if err != nil {
			return Result{}, err
		}
		referer = pageURL
		if s.Autofill {
			forms, err := ParseForms(pageURL, body)
			if err != nil {
				return Result{Reason: "html_form page not parsed: " + err.Error()}, nil
			}
			f, ok := pick(forms, normalURL(s.Form), s.Parameters)
			if !ok {
				return Result{Reason: "no login form on the html_form page"}, nil
			}
			fields, enctype = f.Fill(s.Parameters), f.Enctype
			if action == "" {
				action = f.Action
			}
			if method == "" {
				method = f.Method
			}
		}
	}
	if method == "" {
		method = http.MethodPost
	}
	if _, err := absURL(action); err != nil {
		return Result{Reason: "form action: " + err.Error()}, nil
	}
	req := fetch.Request{URL: action, Method: method, Header: http.Header{}}
	if referer != "" {
		req.Header.Set("Referer", referer)
	}
	if method == http.MethodGet {
		u, _ := url.Parse(action) // checked by absURL
		u.RawQuery, u.Fragment = Encode(fields), ""
		req.URL = u.String()
	} else {
		body, ct := EncodeBody(fields, enctype) // the form's enctype with autofill
		req.Body = body
		req.Header.Set("Content-Type", ct)
		if o := origin(action); o != "" {
			req.Header.Set("Origin", o)
		}
	}
	ex, body, err := follow(ctx, do, StepSubmit, req)
	if err != nil {
		return Result{}, err
	}
	res := Result{Status: ex.status, URL: ex.url}
	switch {
	case ex.status >= 400:
		res.Reason = fmt.Sprintf("status %d", ex.status)
	case showsLoginForm(ex.url, body, req.URL):
		res.Reason = "login form shown again"
	default:
		res.OK = true
	}
	return res, nil
}

// showsLoginForm reports whether a page has a login form: a form with a password input, or
// one submitted to the URL just submitted to.
func showsLoginForm(pageURL string, body []byte, submitted string) bool {
	forms, err := ParseForms(pageURL, body)
	if err != nil {
		return false
	}
	for _, f := range forms {
		if f.HasPassword || samePage(f.Action, submitted) {
			return true
		}
	}
	return false
}

// origin is the Origin header of a request to raw: scheme://host[:port].
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// normalURL is raw with its scheme and host lowercased and without a fragment, for comparing
// with a form's resolved action; "" stays "".
func normalURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Scheme, u.Host, u.Fragment = strings.ToLower(u.Scheme), strings.ToLower(u.Host), ""
	return u.String()
}

// final is the last response of a request and its redirects.
type final struct {
	status int
	url    string
}

// get fetches a page with GET, following redirects, and returns its final URL and body.
func get(ctx context.Context, do Do, step, raw, referer string) (string, []byte, error) {
	req := fetch.Request{URL: raw}
	if referer != "" {
		req.Header = http.Header{"Referer": {referer}}
	}
	f, body, err := follow(ctx, do, step, req)
	return f.url, body, err
}

// follow makes req and follows its redirects: 307 and 308 repeat the method and body, the
// others become a GET without a body, as browsers do.
func follow(ctx context.Context, do Do, step string, req fetch.Request) (final, []byte, error) {
	for i := 0; ; i++ {
		ex, err := do(ctx, step, req)
		if err != nil {
			return final{}, nil, err
		}
		f := final{status: ex.StatusCode, url: ex.URL}
		loc := ex.Header.Get("Location")
		if ex.StatusCode < 300 || ex.StatusCode > 399 || loc == "" || i == maxRedirects {
			body := readBody(ex)
			ex.Close()
			return f, body, nil
		}
		ex.Close()
		base, err := url.Parse(ex.URL)
		if err != nil {
			return f, nil, nil
		}
		next, err := base.Parse(strings.TrimSpace(loc))
		if err != nil || (next.Scheme != "http" && next.Scheme != "https") {
			return f, nil, nil
		}
		next.Fragment = ""
		prev := req
		req = fetch.Request{URL: next.String(), Header: http.Header{"Referer": {ex.URL}}}
		if ex.StatusCode == http.StatusTemporaryRedirect || ex.StatusCode == http.StatusPermanentRedirect {
			req.Method, req.Body = prev.Method, prev.Body
			if ct := prev.Header.Get("Content-Type"); ct != "" {
				req.Header.Set("Content-Type", ct)
			}
		}
		step = StepRedirect
	}
}

// readBody reads an exchange's decoded body, up to maxPage bytes; nil when it cannot.
func readBody(ex *fetch.Exchange) []byte {
	r, err := ex.Body()
	if err != nil {
		return nil
	}
	defer r.Close()
	b, _ := io.ReadAll(io.LimitReader(r, maxPage))
	return b
}
