package fetch

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/amber-crawler/amber/weburl"
)

// OriginAuth is one Authorization credential of Config.Auth: for an origin, for the URLs
// under a prefix, and/or for a realm.
type OriginAuth struct {
	// Origin is "scheme://host[:port]" (http or https; a trailing "/" is allowed, nothing
	// else after the authority). The host is read as a request URL's host is (IDN names in
	// punycode, numeric IPv4 spellings as the address) and an omitted port is the scheme's
	// default, so "https://Example.com" and "https://example.com:443/" are the same origin.
	// The credential goes to every URL of the origin: it is the prefix "origin/".
	Origin string
	// Prefix, in place of Origin, gives the credential to the URLs that start with it,
	// "scheme://host[:port]/path[?query]" (as FAST's passwd names a URI: every URL at its
	// level or deeper). Scheme, host and port are read as Origin's; the path and query are
	// compared, as a string prefix, with the request target the client sends (escaped as
	// it is sent), so "https://a.test/priv" covers /priv, /private/ and /priv/x. Where
	// several entries cover a URL the longest prefix wins (an Origin entry is the shortest).
	Prefix string
	// Realm, when set, keeps the credential back until a response 401 challenges for it:
	// a WWW-Authenticate Basic challenge whose realm is Realm (compared exactly). Do then
	// sends the request once more with the credential (Exchange.Challenge holds the 401),
	// and from then on sends it ahead on the requests to the directory of the challenged
	// URL on its origin and below (RFC 7617 §2.2). With Origin or Prefix, only the URLs
	// they cover are answered; without, the URLs of any origin whose server names the
	// realm (FAST's passwd by realm). A realm credential is Basic. Digest and NTLM
	// challenges are never answered.
	Realm string
	// Basic sends "Authorization: Basic base64(Username:Password)" (RFC 7617). The user
	// name may not contain ':'.
	Basic *BasicAuth
	// Raw is the whole Authorization value ("Bearer abc", "Token xyz"). Exactly one of
	// Basic and Raw is set.
	Raw string
}

// BasicAuth is a user name and password for HTTP Basic authentication.
type BasicAuth struct {
	Username string
	Password string
}

// header returns the Authorization value of a.
func (a OriginAuth) header() string {
	if a.Basic != nil {
		return basicValue(a.Basic.Username, a.Basic.Password)
	}
	return a.Raw
}

func basicValue(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// validate checks a's credential; its errors never contain the credential.
func (a OriginAuth) validate() error {
	switch {
	case a.Basic != nil && a.Raw != "":
		return errors.New("both Basic and Raw are set")
	case a.Basic == nil && a.Raw == "":
		return errors.New("neither Basic nor Raw is set")
	case a.Basic != nil && strings.Contains(a.Basic.Username, ":"):
		return errors.New("the user name of Basic contains ':'")
	case a.Basic != nil && !validHeaderValue(a.Basic.Username+a.Basic.Password):
		return errors.New("the credentials of Basic contain control characters")
	case a.Raw != "" && (!validHeaderValue(a.Raw) || strings.TrimSpace(a.Raw) != a.Raw):
		return errors.New("the Raw value has control characters or surrounding white space")
	case a.Realm != "" && a.Basic == nil:
		return errors.New("a Realm credential answers a Basic challenge: it wants Basic, not Raw")
	case a.Realm != "" && !validHeaderValue(a.Realm):
		return errors.New("the Realm has control characters")
	}
	return nil
}

// parseOrigin reads "scheme://host[:port]" as OriginAuth.Origin describes and returns the
// origin key requests are matched with ("https://example.com:443").
func parseOrigin(s string) (string, error) {
	u, err := parseAuthURL("origin", s)
	if err != nil {
		return "", err
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery {
		return "", fmt.Errorf("origin %q: want scheme://host[:port] only", redactUserinfo(s))
	}
	key, _, err := urlKey(u)
	if err != nil {
		return "", fmt.Errorf("origin %q: %w", redactUserinfo(s), err)
	}
	return key, nil
}

// parsePrefix reads OriginAuth.Prefix: the origin key and the request-target prefix.
func parsePrefix(s string) (origin, target string, err error) {
	u, err := parseAuthURL("prefix", s)
	if err != nil {
		return "", "", err
	}
	if origin, target, err = urlKey(u); err != nil {
		return "", "", fmt.Errorf("prefix %q: %w", redactUserinfo(s), err)
	}
	return origin, target, nil
}

// parseAuthURL parses the URL of an Origin or Prefix, refusing user info, opaque URLs and
// fragments; its errors never show a password.
func parseAuthURL(what, s string) (*url.URL, error) {
	shown := redactUserinfo(s) // a password written into the URL stays out of errors
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%s %q: %w", what, shown, err)
	}
	if u.User != nil || u.Opaque != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s %q: want scheme://host[:port][/path] without user info or fragment", what, shown)
	}
	return u, nil
}

// urlKey returns the origin key of u and its request target as the client sends it (path,
// "/" when empty, and escaped query).
func urlKey(u *url.URL) (origin, target string, err error) {
	scheme, host, port, err := originParts(u)
	if err != nil {
		return "", "", err
	}
	return originKey(scheme, host, port), requestTarget(u), nil
}

// requestTarget is the origin-form request target of u, as the request line carries it.
func requestTarget(u *url.URL) string {
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.ForceQuery || u.RawQuery != "" {
		path += "?" + weburl.EscapeQuery(u.RawQuery)
	}
	return path
}

// originParts returns the normalised scheme (http or https), host (weburl.Host: lowercase
// ASCII, unbracketed) and port (the scheme's default when u has none) of u. Its errors
// name what is wrong without a sentinel; callers wrap them.
func originParts(u *url.URL) (scheme, host, port string, err error) {
	scheme = strings.ToLower(u.Scheme)
	defPort := ""
	switch scheme {
	case "http":
		defPort = "80"
	case "https":
		defPort = "443"
	default:
		return "", "", "", fmt.Errorf("scheme %q", u.Scheme)
	}
	host = u.Hostname()
	if host == "" {
		return "", "", "", errors.New("empty host")
	}
	// weburl.Host also refuses the characters that could split the request or the Host
	// header (controls, space, '/', '\', '@', ...).
	if host, err = weburl.Host(host); err != nil {
		return "", "", "", err
	}
	port = u.Port()
	if port == "" {
		port = defPort
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", "", fmt.Errorf("port %q", port)
	}
	return scheme, host, port, nil
}

// originKey is the key of an origin in the per-origin tables.
func originKey(scheme, host, port string) string {
	return scheme + "://" + bracket(host) + ":" + port
}

// authEntry is one credential of the table: the URLs it covers and its Authorization value.
type authEntry struct {
	origin string // origin key; "" for any origin (a realm entry without Origin or Prefix)
	prefix string // request-target prefix; "/" for an Origin entry
	realm  string // "" for a credential sent ahead
	value  string // the Authorization value
}

// covers reports whether e covers the request target of an origin.
func (e authEntry) covers(origin, target string) bool {
	return (e.origin == "" || e.origin == origin) && strings.HasPrefix(target, e.prefix)
}

// authTable holds the credentials of Config.Auth and the protection spaces learnt from the
// challenges they answered. It is safe for concurrent use.
type authTable struct {
	ahead  []authEntry // sent ahead on the URLs they cover
	realms []authEntry // sent in answer to a challenge for their realm

	mu     sync.Mutex  // guards learnt
	learnt []authEntry // protection spaces of answered challenges: origin, directory, value
}

// newAuthTable checks auth and builds its table; nil when there are no credentials.
func newAuthTable(auth []OriginAuth) (*authTable, error) {
	if len(auth) == 0 {
		return nil, nil
	}
	t := &authTable{}
	seen := map[[3]string]int{}
	for i, a := range auth {
		var e authEntry
		var err error
		switch {
		case a.Origin != "" && a.Prefix != "":
			return nil, fmt.Errorf("%w: Auth[%d]: both Origin and Prefix are set", ErrConfig, i)
		case a.Origin != "":
			e.origin, err = parseOrigin(a.Origin)
			e.prefix = "/"
		case a.Prefix != "":
			e.origin, e.prefix, err = parsePrefix(a.Prefix)
		case a.Realm == "":
			return nil, fmt.Errorf("%w: Auth[%d]: none of Origin, Prefix and Realm is set", ErrConfig, i)
		default:
			e.prefix = "/"
		}
		if err != nil {
			return nil, fmt.Errorf("%w: Auth[%d]: %w", ErrConfig, i, err)
		}
		where := e.origin + strings.TrimSuffix(e.prefix, "/")
		if a.Realm != "" {
			where = strings.TrimSpace(where + " realm " + strconv.Quote(a.Realm))
		}
		if err := a.validate(); err != nil {
			return nil, fmt.Errorf("%w: Auth[%d] (%s): %w", ErrConfig, i, where, err)
		}
		key := [3]string{e.origin, e.prefix, a.Realm}
		if j, dup := seen[key]; dup {
			return nil, fmt.Errorf("%w: Auth[%d] (%s): listed twice (Auth[%d])", ErrConfig, i, where, j)
		}
		seen[key] = i
		e.realm, e.value = a.Realm, a.header()
		if e.realm == "" {
			t.ahead = append(t.ahead, e)
		} else {
			t.realms = append(t.realms, e)
		}
	}
	return t, nil
}

// ahead returns the Authorization value to send ahead on a request: the configured entry or
// learnt protection space with the longest prefix covering it (a learnt one wins a tie), ""
// when none does.
func (t *authTable) aheadValue(origin, target string) string {
	if t == nil {
		return ""
	}
	best, bestLen := "", -1
	for _, e := range t.ahead {
		if e.covers(origin, target) && len(e.prefix) > bestLen {
			best, bestLen = e.value, len(e.prefix)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.learnt {
		if e.covers(origin, target) && len(e.prefix) >= bestLen {
			best, bestLen = e.value, len(e.prefix)
		}
	}
	return best
}

// answer returns the Authorization value of the realm credential that answers a 401 with
// the given WWW-Authenticate fields on a request target of an origin: the entry of a realm
// the Basic challenges name that covers the URL, the longest prefix first.
func (t *authTable) answer(origin, target string, challenges []string) (string, bool) {
	if t == nil || len(t.realms) == 0 {
		return "", false
	}
	realms := basicRealms(challenges)
	best, bestLen := "", -1
	for _, e := range t.realms {
		if realms[e.realm] && e.covers(origin, target) && len(e.prefix) > bestLen {
			best, bestLen = e.value, len(e.prefix)
		}
	}
	return best, bestLen >= 0
}

// learn records the protection space of an answered challenge: the directory of the request
// target (its path up to the last '/') on its origin, where value is then sent ahead.
func (t *authTable) learn(origin, target, value string) {
	path, _, _ := strings.Cut(target, "?")
	dir := path[:strings.LastIndexByte(path, '/')+1]
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, e := range t.learnt {
		if e.origin == origin && e.prefix == dir {
			t.learnt[i].value = value
			return
		}
	}
	t.learnt = append(t.learnt, authEntry{origin: origin, prefix: dir, value: value})
}

// basicRealms returns the realms of the Basic challenges of WWW-Authenticate field values
// (RFC 9110 §11.6.1: challenges and their auth-params separated by commas, quoted strings
// with backslash escapes). Other schemes' challenges are skipped.
func basicRealms(values []string) map[string]bool {
	realms := map[string]bool{}
	for _, v := range values {
		scheme := ""
		p := challengeParser{s: v}
		for {
			p.skip(", \t")
			if p.done() {
				break
			}
			tok := p.token()
			if tok == "" {
				p.i++ // a stray character: step over it
				continue
			}
			save := p.i
			p.skip(" \t")
			if p.peek() != '=' {
				p.i = save
				scheme = strings.ToLower(tok) // a new challenge
				continue
			}
			p.i++
			if p.peek() == '=' { // token68 padding ("abc=="): not a parameter
				p.skip("=")
				continue
			}
			p.skip(" \t")
			val := p.value()
			if scheme == "basic" && strings.EqualFold(tok, "realm") {
				realms[val] = true
			}
		}
	}
	return realms
}

// challengeParser scans a WWW-Authenticate value.
type challengeParser struct {
	s string
	i int
}

func (p *challengeParser) done() bool { return p.i >= len(p.s) }

func (p *challengeParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *challengeParser) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// token reads an RFC 9110 token (or token68 characters).
func (p *challengeParser) token() string {
	start := p.i
	for !p.done() {
		c := p.s[p.i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			if c != '/' { // token68 allows '/'
				break
			}
		}
		p.i++
	}
	return p.s[start:p.i]
}

// value reads a parameter value: a quoted string (unescaped) or a token.
func (p *challengeParser) value() string {
	if p.peek() != '"' {
		return p.token()
	}
	p.i++
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
