package config

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/net/http/httpguts"

	"github.com/amber-crawler/amber/weburl"
)

// How amber reaches sites (spec/elastic.md §5): credentials per origin, configured request
// headers, a proxy and the crawl's cookie jar, as written in amber's YAML (File.Auth,
// File.Headers, File.OriginHeaders, File.Proxy, File.Cookies) and resolved for the
// fetcher by File.Access.

// redacted is how a secret is written back (crawl.yaml, warcinfo, fmt).
const redacted = "***"

// envPrefix starts a Secret (or a header value) read from the environment.
const envPrefix = "env:"

// Secret is a credential as written in a config: the value itself, or "env:NAME", read from
// the environment variable NAME when the crawl starts, so that the file holds no secret (as
// CI systems and containers pass secrets). A Secret is written back (YAML, fmt) as "***"
// when it holds the value itself, and as its env:NAME reference otherwise: crawl.yaml and
// warcinfo never hold a secret, and a crawl resumed from crawl.yaml needs the secrets written
// as values given again (its env: references are read again).
type Secret string

// String is "***" for a value, the reference for env:NAME, "" for no secret.
func (s Secret) String() string {
	if _, ok := s.Env(); ok || s == "" {
		return string(s)
	}
	return redacted
}

// GoString is String: %#v does not show the secret either.
func (s Secret) GoString() string { return s.String() }

// MarshalYAML writes String.
func (s Secret) MarshalYAML() (any, error) { return s.String(), nil }

// Env returns NAME when s is "env:NAME".
func (s Secret) Env() (string, bool) {
	return strings.CutPrefix(string(s), envPrefix)
}

// Resolve returns the secret: the value of the environment variable for env:NAME (looked up
// with lookupEnv, os.LookupEnv in amber), s itself otherwise. An unset variable, a bad
// variable name, and "***" (a secret crawl.yaml did not record) are errors; the errors never
// contain a secret.
func (s Secret) Resolve(lookupEnv func(string) (string, bool)) (string, error) {
	return resolveValue(string(s), lookupEnv)
}

// resolveValue resolves a Secret or a header value.
func resolveValue(v string, lookupEnv func(string) (string, bool)) (string, error) {
	if v == redacted {
		return "", fmt.Errorf("%s: the value was not recorded (crawl.yaml writes secrets as %s): give it again in --config or by flag, or write it as env:NAME", redacted, redacted)
	}
	name, ok := strings.CutPrefix(v, envPrefix)
	if !ok {
		return v, nil
	}
	if !validEnvName(name) {
		return "", fmt.Errorf("%q: not an environment variable name (letters, digits, _)", v)
	}
	if lookupEnv == nil {
		return "", fmt.Errorf("%s: no environment to read it from", v)
	}
	val, set := lookupEnv(name)
	if !set {
		return "", fmt.Errorf("%s: environment variable %s is not set", v, name)
	}
	return val, nil
}

func validEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// Auth types (AuthSpec.Type).
const (
	AuthBasic = "basic"
	AuthRaw   = "raw"
)

// authRefused are the authentication schemes FAST's passwd knows that amber cannot answer,
// with the reason.
var authRefused = map[string]string{
	"digest": "amber answers Basic challenges only; Digest is not supported",
	"ntlm":   "amber answers Basic challenges only; NTLM is not supported",
	"ntlmv1": "amber answers Basic challenges only; NTLMv1 is not supported",
	"ntlmv2": "amber answers Basic challenges only; NTLMv2 is not supported",
}

// AuthSpec is one entry of auth: an Authorization credential for one origin, for the URLs
// under a prefix, and/or for a realm (FAST's passwd: a URI prefix or a realm).
type AuthSpec struct {
	// Origin is "https://host[:port]" (or http, with http_auth_allowed): the credential is
	// sent on every request to exactly that origin.
	Origin string `yaml:"origin,omitempty"`
	// Prefix, in place of origin, is a URL prefix, "https://host[:port]/path": the
	// credential is sent on the requests whose URL starts with it (a string prefix of the
	// path and query); where several entries cover a URL, the longest prefix wins.
	Prefix string `yaml:"prefix,omitempty"`
	// Realm keeps a basic credential back until a server answers 401 with a Basic challenge
	// naming this realm (exactly, case included) for a URL the entry covers (its origin or
	// prefix; with neither, any URL of the crawl): the request is then sent again with it,
	// both exchanges archived, and it is sent ahead in that URL's directory from then on.
	Realm string `yaml:"realm,omitempty"`
	// Type is basic (Username, Password) or raw (Value).
	Type     string `yaml:"type"`
	Username string `yaml:"username,omitempty"`
	Password Secret `yaml:"password,omitempty"`
	// Value is the whole Authorization value of raw ("Bearer abc").
	Value Secret `yaml:"value,omitempty"`
}

// ProxySpec is the proxy every request goes through. In YAML it is a URL string
// ("http://user:password@proxy.example.org:3128") or a map with url, username and password;
// a password written in the URL is kept in Password (so it is written back as ***).
type ProxySpec struct {
	// URL is "http://host[:port]" or "https://host[:port]", without user info.
	URL      string `yaml:"url"`
	Username string `yaml:"username,omitempty"`
	Password Secret `yaml:"password,omitempty"`
}

// ParseProxy reads a proxy URL, "scheme://[user[:password]@]host[:port]", moving its user info
// into Username and Password. Its errors never contain the password.
func ParseProxy(raw string) (*ProxySpec, error) {
	p := &ProxySpec{URL: raw}
	if !strings.Contains(raw, "@") {
		return p, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		// url.Parse's error quotes the URL, password and all.
		return nil, fmt.Errorf("%w: proxy: not a URL of the form scheme://user:password@host:port", ErrConfig)
	}
	p.Username = u.User.Username()
	if pw, ok := u.User.Password(); ok {
		p.Password = Secret(pw)
	}
	u.User = nil
	p.URL = u.String()
	return p, nil
}

// UnmarshalYAML accepts a URL string as well as the map form.
func (p *ProxySpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		q, err := ParseProxy(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		*p = *q
		return nil
	}
	type plain ProxySpec
	var q plain
	if err := n.Decode(&q); err != nil {
		return err
	}
	if strings.Contains(q.URL, "@") {
		if q.Username != "" || q.Password != "" {
			return fmt.Errorf("line %d: %w: proxy: give the credentials in url or in username and password, not both", n.Line, ErrConfig)
		}
		r, err := ParseProxy(q.URL)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		*p = *r
		return nil
	}
	*p = ProxySpec(q)
	return nil
}

// URLWithCredentials checks the proxy and returns its URL with the credentials (the password
// resolved as Secret.Resolve does). The errors never contain the password.
func (p *ProxySpec) URLWithCredentials(lookupEnv func(string) (string, bool)) (*url.URL, error) {
	bad := func(why string) (*url.URL, error) {
		return nil, fmt.Errorf("%w: proxy %q: %s", ErrConfig, p.URL, why)
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		return bad("not a URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("want an http:// or https:// URL")
	case u.Hostname() == "":
		return bad("no host")
	case u.User != nil:
		return bad("user info in url and in username")
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return bad("want scheme://host[:port] only")
	}
	if p.Username == "" && p.Password != "" {
		return bad("a password without a username")
	}
	if strings.Contains(p.Username, ":") {
		return bad("the username contains ':'")
	}
	if p.Username != "" {
		pw, err := p.Password.Resolve(lookupEnv)
		if err != nil {
			return nil, fmt.Errorf("%w: proxy.password: %w", ErrConfig, err)
		}
		u.User = url.UserPassword(p.Username, pw)
	}
	return u, nil
}

// HeaderMap is a set of request header fields, {Name: value}. A value may be written as
// env:NAME (read from the environment, as a Secret). Written back (crawl.yaml), the value of
// a Cookie field is *** unless it is an env: reference; other values are written as they
// are (they are in every request record of the WARC files anyway).
type HeaderMap map[string]string

// MarshalYAML writes the fields with Cookie values redacted.
func (h HeaderMap) MarshalYAML() (any, error) {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if http.CanonicalHeaderKey(k) == "Cookie" && !strings.HasPrefix(v, envPrefix) && v != "" {
			v = redacted
		}
		out[k] = v
	}
	return out, nil
}

// header checks the fields and resolves their values (where names them in errors).
func (h HeaderMap) header(where string, lookupEnv func(string) (string, bool)) (http.Header, error) {
	if len(h) == 0 {
		return nil, nil
	}
	out := http.Header{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		ck := http.CanonicalHeaderKey(k)
		switch {
		case !httpguts.ValidHeaderFieldName(k):
			return nil, fmt.Errorf("%w: %s: %q is not a header name", ErrConfig, where, k)
		case ck == "Authorization":
			return nil, fmt.Errorf("%w: %s: Authorization: give credentials in auth (type raw for a whole Authorization value), which sends them to their origin only", ErrConfig, where)
		case ck == "Proxy-Authorization":
			return nil, fmt.Errorf("%w: %s: Proxy-Authorization: give the proxy's username and password in proxy", ErrConfig, where)
		case out[ck] != nil:
			return nil, fmt.Errorf("%w: %s: %s given twice (in different cases)", ErrConfig, where, ck)
		}
		v, err := resolveValue(h[k], lookupEnv)
		if err != nil {
			return nil, fmt.Errorf("%w: %s.%s: %w", ErrConfig, where, k, err)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("%w: %s.%s: the value has line breaks", ErrConfig, where, k)
		}
		out[ck] = []string{v}
	}
	return out, nil
}

// Access is how the crawl reaches sites, checked and with its secrets resolved: what the
// fetchers are configured with (fetch.Config's Auth, HTTPAuthAllowed, Header, OriginHeader,
// Proxy and Jar).
type Access struct {
	// Auth has one credential per origin, in the config's order.
	Auth []Credential
	// HTTPAuthAllowed lets credentials go over plain http.
	HTTPAuthAllowed bool
	// Header goes with every request; OriginHeader with the requests to one origin (keyed
	// by the origin as ElasticOrigin writes it). Names are canonical.
	Header       http.Header
	OriginHeader map[string]http.Header
	// Proxy is the proxy's URL with its credentials; nil: no proxy.
	Proxy *url.URL
	// Cookies keeps the cookies sites set for the crawl's later requests.
	Cookies bool
}

// Credential is a resolved auth entry.
type Credential struct {
	Origin   string // as ElasticOrigin writes it: https://example.com, https://example.com:8443; "" with Prefix or Realm alone
	Prefix   string // a URL prefix, as written, in place of Origin
	Realm    string // sent in answer to a Basic challenge for this realm
	Type     string // AuthBasic or AuthRaw
	Username string // basic
	Password string // basic
	Value    string // raw: the whole Authorization value
}

// Access checks the auth, http_auth_allowed, headers, origin_headers, proxy and cookies keys
// and resolves their secrets with lookupEnv (os.LookupEnv in amber). The errors name the key
// (auth[1] (https://example.com): ...) and never contain a secret.
func (c *File) Access(lookupEnv func(string) (string, bool)) (Access, error) {
	a := Access{HTTPAuthAllowed: c.HTTPAuthAllowed, Cookies: c.Cookies == nil || *c.Cookies}
	seen := map[[3]string]int{}
	for i, s := range c.Auth {
		cr, err := s.credential(lookupEnv)
		if err != nil {
			return a, fmt.Errorf("%w: auth[%d]%s: %w", ErrConfig, i, s.note(), err)
		}
		key := [3]string{cr.Origin, cr.Prefix, cr.Realm}
		if j, dup := seen[key]; dup {
			what := "the origin of auth[%d] too: one credential per origin"
			if cr.Origin == "" {
				what = "the prefix and realm of auth[%d] too: one credential for each"
			}
			shown := AuthSpec{Origin: cr.Origin, Prefix: cr.Prefix, Realm: cr.Realm}
			return a, fmt.Errorf("%w: auth[%d]%s: "+what, ErrConfig, i, shown.note(), j)
		}
		seen[key] = i
		a.Auth = append(a.Auth, cr)
	}
	var err error
	if a.Header, err = c.Headers.header("headers", lookupEnv); err != nil {
		return a, err
	}
	for _, o := range slices.Sorted(maps.Keys(c.OriginHeaders)) {
		key, err := checkOrigin(o)
		if err != nil {
			return a, fmt.Errorf("%w: origin_headers: %w", ErrConfig, err)
		}
		if _, dup := a.OriginHeader[key]; dup {
			return a, fmt.Errorf("%w: origin_headers: %s given twice", ErrConfig, key)
		}
		h, err := c.OriginHeaders[o].header("origin_headers."+o, lookupEnv)
		if err != nil {
			return a, err
		}
		if a.OriginHeader == nil {
			a.OriginHeader = map[string]http.Header{}
		}
		a.OriginHeader[key] = h
	}
	if c.Proxy != nil {
		if a.Proxy, err = c.Proxy.URLWithCredentials(lookupEnv); err != nil {
			return a, err
		}
	}
	return a, nil
}

// note names the entry in an error: its origin or prefix and realm, " (https://a.test realm
// "r")", without anything that may hold user info.
func (s AuthSpec) note() string {
	var parts []string
	for _, u := range []string{s.Origin, s.Prefix} {
		if n := originNote(u); n != "" {
			parts = append(parts, n[2:len(n)-1])
		}
	}
	if s.Realm != "" {
		parts = append(parts, "realm "+strconv.Quote(s.Realm))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, " ") + ")"
}

// originNote is " (ORIGIN)" for an error about an auth entry, or "" when there is none (or
// it holds user info, which may be a password).
func originNote(o string) string {
	if o == "" || strings.Contains(o, "@") {
		return ""
	}
	return " (" + o + ")"
}

// Origin returns the origin (scheme://host[:port], lowercase, the default port left out) of
// an absolute http or https URL; its error does not quote a URL with user info (a password may
// be in it).
func Origin(raw string) (string, error) {
	o, err := weburl.Origin(raw)
	if err != nil {
		if strings.Contains(raw, "@") {
			return "", err // user info may hold a password: not quoted
		}
		return "", fmt.Errorf("%q: %w", raw, err)
	}
	return o, nil
}

// checkOrigin is Origin for the origins of auth and origin_headers, whose errors do
// not quote an origin with user info (a password may be in it).
func checkOrigin(o string) (string, error) {
	if strings.Contains(o, "@") {
		return "", errors.New("an origin is scheme, host and port only, without user info")
	}
	return Origin(o)
}

// checkPrefix checks an auth prefix: an absolute http or https URL with a host, without
// user info (its errors do not quote a prefix that has some) or fragment.
func checkPrefix(p string) error {
	if strings.Contains(p, "@") {
		return errors.New("a prefix is a URL without user info")
	}
	u, err := url.Parse(p)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL", p)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: want an http:// or https:// URL", p)
	case u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%q: no host", p)
	case u.Fragment != "":
		return fmt.Errorf("%q: a prefix has no fragment", p)
	}
	return nil
}

// credential checks s and resolves its secret.
func (s AuthSpec) credential(lookupEnv func(string) (string, bool)) (Credential, error) {
	cr := Credential{Type: s.Type, Realm: s.Realm}
	switch {
	case s.Origin != "" && s.Prefix != "":
		return cr, errors.New("give origin or prefix, not both")
	case s.Origin != "":
		o, err := checkOrigin(s.Origin)
		if err != nil {
			return Credential{}, fmt.Errorf("origin: %w", err)
		}
		cr.Origin = o
	case s.Prefix != "":
		if err := checkPrefix(s.Prefix); err != nil {
			return Credential{}, fmt.Errorf("prefix: %w", err)
		}
		cr.Prefix = s.Prefix
	case s.Realm == "":
		return cr, errors.New("want origin, prefix or realm")
	}
	if strings.ContainsAny(s.Realm, "\r\n\x00") {
		return cr, errors.New("the realm has line breaks")
	}
	if why, ok := authRefused[strings.ToLower(s.Type)]; ok {
		return cr, fmt.Errorf("type %q: want basic or raw (%s)", s.Type, why)
	}
	var err error
	switch s.Type {
	case AuthBasic:
		switch {
		case s.Username == "":
			return cr, fmt.Errorf("basic wants a username")
		case strings.Contains(s.Username, ":"):
			return cr, fmt.Errorf("the username contains ':'")
		case s.Value != "":
			return cr, fmt.Errorf("basic takes username and password, not value")
		}
		cr.Username = s.Username
		if cr.Password, err = s.Password.Resolve(lookupEnv); err != nil {
			return cr, fmt.Errorf("password: %w", err)
		}
	case AuthRaw:
		if s.Realm != "" {
			return cr, fmt.Errorf("a realm answers a Basic challenge: it takes type basic, not raw")
		}
		if s.Username != "" || s.Password != "" {
			return cr, fmt.Errorf("raw takes value (the whole Authorization value), not username or password")
		}
		if cr.Value, err = s.Value.Resolve(lookupEnv); err != nil {
			return cr, fmt.Errorf("value: %w", err)
		}
		if strings.TrimSpace(cr.Value) == "" {
			return cr, fmt.Errorf("raw wants a value (the whole Authorization value, e.g. Bearer TOKEN)")
		}
	default:
		return cr, fmt.Errorf("type %q: want basic or raw", s.Type)
	}
	return cr, nil
}
