package scope

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/purell"
	"golang.org/x/net/idna"
)

// purellFlags are the normalisations of spec/scope.md §2.1 that purell performs for us:
// its safe flags plus dot-segment resolution and fragment removal.
const purellFlags = purell.FlagsSafe | purell.FlagRemoveDotSegments | purell.FlagRemoveFragment

// Canonicalize returns the canonical form (spec/scope.md §2.1) of the absolute URL raw for the
// flavour f ("" means Standard): whitespace trimmed (tabs and newlines inside are removed, as
// browsers do), scheme and host lowercased, IDN host in punycode, trailing dots of the host
// dropped, default ports (:80 for http, :443 for https) dropped, an empty path made "/", "." and
// ".." resolved, the fragment dropped, percent-escapes normalised with purell's safe flags
// (a stray "%" becomes "%25"; in the query, only bytes that may not appear raw are escaped and
// existing escapes are uppercased), backslashes before the query made "/". Path and query keep
// their case. The Standard flavour keeps "//" in a path; the Brozzler flavour collapses it.
// As with purell, path escapes of characters allowed raw in a path are decoded (including
// "%2F", which becomes "/"); the query is never decoded.
//
// URLs with a scheme other than http and https are only trimmed, get a lowercase scheme and lose
// their fragment. Canonicalize is idempotent. It returns an error wrapping ErrURL for a relative
// or unparsable URL, an http(s) URL without a host, a host with characters other than letters,
// digits, "-", "_" and "." (or an IPv6 literal without zone), or a port above 65535.
func Canonicalize(raw string, f Flavour) (string, error) {
	s := cleanRaw(raw)
	scheme, rest, ok := cutScheme(s)
	if !ok {
		return "", fmt.Errorf("%w: %q: not an absolute URL", ErrURL, raw)
	}
	scheme = strings.ToLower(scheme)
	if scheme != "http" && scheme != "https" {
		return canonicalOther(raw, scheme, rest)
	}
	// Backslashes before the query or fragment are path separators in http(s) URLs.
	end := strings.IndexAny(rest, "?#")
	if end < 0 {
		end = len(rest)
	}
	if strings.IndexByte(rest[:end], '\\') >= 0 {
		rest = strings.ReplaceAll(rest[:end], `\`, "/") + rest[end:]
	}
	u, err := url.Parse(scheme + ":" + fixPercent(rest))
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrURL, raw, err)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("%w: %q: no host", ErrURL, raw)
	}
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrURL, raw, err)
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n > 65535 {
			return "", fmt.Errorf("%w: %q: invalid port %q", ErrURL, raw, port)
		}
		port = strconv.Itoa(n)
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		}
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.Scheme = scheme
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	u.RawPath = ""
	u.RawQuery = canonicalQuery(u.RawQuery)
	flags := purellFlags
	if f == Brozzler {
		flags |= purell.FlagRemoveDuplicateSlashes
	}
	return purell.NormalizeURL(u, flags), nil
}

// cleanRaw trims surrounding whitespace and removes tabs and newlines inside, as browsers do.
func cleanRaw(raw string) string {
	s := strings.TrimSpace(raw)
	if strings.ContainsAny(s, "\t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// cutScheme splits "scheme:rest" when scheme is a valid URL scheme (RFC 3986 §3.1).
func cutScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", "", false
			}
		case c == ':':
			if i == 0 {
				return "", "", false
			}
			return s[:i], s[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// canonicalOther handles URLs whose scheme is neither http nor https: they are never in scope,
// so they only need a stable form for reports.
func canonicalOther(raw, scheme, rest string) (string, error) {
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	s := strings.TrimSpace(scheme + ":" + rest)
	if _, err := url.Parse(s); err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrURL, raw, err)
	}
	return s, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// fixPercent escapes every "%" that does not start a valid percent-escape.
func fixPercent(s string) string {
	bad := false
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			bad = true
			break
		}
	}
	if !bad {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

const upperHex = "0123456789ABCDEF"

// canonicalQuery escapes the bytes a query may not hold raw (controls, space, '"', '<', '>',
// non-ASCII; the WHATWG query set) and uppercases existing escapes. Nothing is decoded: a
// decoded "%26" would change the meaning of the query.
func canonicalQuery(q string) string {
	clean := true
	for i := 0; i < len(q); i++ {
		c := q[i]
		if queryEscape(c) || c == '%' && (i+2 >= len(q) || !isHex(q[i+1]) || !isHex(q[i+2]) ||
			q[i+1] >= 'a' || q[i+2] >= 'a') {
			clean = false
			break
		}
	}
	if clean {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '%' && i+2 < len(q) && isHex(q[i+1]) && isHex(q[i+2]):
			b.WriteByte('%')
			b.WriteByte(upper(q[i+1]))
			b.WriteByte(upper(q[i+2]))
			i += 2
		case c == '%' || queryEscape(c):
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func queryEscape(c byte) bool {
	return c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '#'
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lower(c byte) byte { return lowerTab[c] }

var lowerTab = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i - 'A' + 'a')
		}
	}
	return t
}()

// canonicalHost lowercases h, converts an IDN to punycode, drops trailing dots and checks that
// what is left is a plausible host name or IP literal.
func canonicalHost(h string) (string, error) {
	if strings.IndexByte(h, ':') >= 0 {
		// IPv6 literal (url.Hostname removed the brackets).
		h = strings.ToLower(h)
		for i := 0; i < len(h); i++ {
			if c := h[i]; !isHex(c) && c != ':' && c != '.' {
				return "", fmt.Errorf("invalid IPv6 host %q", h)
			}
		}
		return "[" + h + "]", nil
	}
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		h = strings.ToLower(h)
	} else {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			// Lenient fallback for hosts the strict profile refuses (e.g. "_" in a label).
			if a, err = idna.Punycode.ToASCII(strings.ToLower(h)); err != nil {
				return "", fmt.Errorf("invalid IDN host %q: %v", h, err)
			}
		}
		h = strings.ToLower(a)
	}
	h = strings.TrimRight(h, ".")
	if h == "" {
		return "", fmt.Errorf("empty host")
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("invalid character %q in host %q", c, h)
		}
	}
	return h, nil
}

// parts are the pieces of a canonical URL, found without allocating.
type parts struct {
	scheme string
	user   string // userinfo without "@"
	host   string // lowercase host name, or IPv4, or [IPv6]
	port   string // without ":"
	pathq  string // path, query (and a fragment, if a non-canonical URL had one)
}

// split cuts a URL of the form scheme://[user@]host[:port][/path][?query]. ok is false when
// there is no "://" after a scheme.
func split(u string) (p parts, ok bool) {
	i := strings.Index(u, "://")
	if i <= 0 {
		return p, false
	}
	p.scheme = u[:i]
	rest := u[i+3:]
	end, at, colon, bracket := len(rest), -1, -1, -1
	for j := 0; j < len(rest); j++ {
		switch rest[j] {
		case '/', '?', '#':
			end = j
		case '@':
			at, colon, bracket = j, -1, -1
			continue
		case ':':
			colon = j
			continue
		case ']':
			bracket = j
			continue
		default:
			continue
		}
		break
	}
	p.pathq = rest[end:]
	auth := rest[:end]
	if at >= 0 {
		p.user = auth[:at]
		auth = auth[at+1:]
		colon -= at + 1
		bracket -= at + 1
	}
	switch {
	case strings.HasPrefix(auth, "["):
		if bracket < 0 {
			p.host = auth
			return p, true
		}
		p.host = auth[:bracket+1]
		if colon > bracket {
			p.port = auth[colon+1:]
		}
	case colon >= 0:
		p.host, p.port = auth[:colon], auth[colon+1:]
	default:
		p.host = auth
	}
	return p, true
}

// isIPv4 reports whether h looks like a dotted IPv4 address (digits and dots only, and a digit
// last: no top-level domain is all digits).
func isIPv4(h string) bool {
	if h == "" || h[len(h)-1] < '0' || h[len(h)-1] > '9' {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('0' <= c && c <= '9' || c == '.') {
			return false
		}
	}
	return h[len(h)-1] != '.'
}

// appendReversedHost appends the host labels reversed, each followed by ",". IP addresses are
// appended as they are, without a comma.
func appendReversedHost(dst []byte, h string) []byte {
	if h == "" || h[0] == '[' || isIPv4(h) {
		return append(dst, h...)
	}
	end := len(h)
	for i := len(h) - 1; i >= 0; i-- {
		if h[i] == '.' {
			dst = append(dst, h[i+1:end]...)
			dst = append(dst, ',')
			end = i
		}
	}
	dst = append(dst, h[:end]...)
	return append(dst, ',')
}

// surtForm chooses the variant of scope SURT to build.
type surtForm struct {
	forceHTTP bool // put it in http:// form (Standard comparison)
	noUser    bool // leave userinfo out (Brozzler, urlcanon-style)
	keepCase  bool // do not lowercase (Brozzler)
}

// appendSURT appends the scope SURT of p in the form f.
func appendSURT(dst []byte, p *parts, f surtForm) []byte {
	start := len(dst)
	if f.forceHTTP && (p.scheme == "https" || p.scheme == "HTTPS") {
		dst = append(dst, "http"...)
	} else {
		dst = append(dst, p.scheme...)
	}
	dst = append(dst, "://("...)
	dst = appendReversedHost(dst, p.host)
	if p.port != "" {
		dst = append(dst, ':')
		dst = append(dst, p.port...)
	}
	if p.user != "" && !f.noUser {
		dst = append(dst, '@')
		dst = append(dst, p.user...)
	}
	dst = append(dst, ')')
	dst = append(dst, p.pathq...)
	if !f.keepCase {
		for i := start; i < len(dst); i++ {
			dst[i] = lower(dst[i])
		}
	} else {
		for i := start; i < start+len(p.scheme); i++ {
			dst[i] = lower(dst[i])
		}
	}
	return dst
}

// SURT returns the scope SURT of a canonical URL (spec/scope.md §2.2):
// scheme://( + host labels reversed, each followed by "," + ":port" + "@userinfo" + ) + path
// and query, all lowercased; an IP address is not reversed, "www" is kept, the query is not
// sorted. The scheme is kept as it is in the URL. A string that is not scheme://... is
// returned lowercased. SURT adds no path: SURT("http://ca.gov") is "http://(gov,ca,)".
func SURT(canonical string) string {
	p, ok := split(canonical)
	if !ok {
		return strings.ToLower(canonical)
	}
	return string(appendSURT(make([]byte, 0, len(canonical)+8), &p, surtForm{}))
}

// SSURT returns the SSURT of a canonical URL (spec/scope.md §2.3), as brozzler builds it:
// scheme://user@host:port/path?query becomes host-reversed,//port:scheme@user:/path?query
// ("//http:/path" when there is no port or user). The query is sorted on "&"; the case of path
// and query is kept. A string that is not scheme://... is returned unchanged.
func SSURT(canonical string) string {
	p, ok := split(canonical)
	if !ok {
		return canonical
	}
	return string(appendSSURT(make([]byte, 0, len(canonical)+8), &p))
}

func appendSSURT(dst []byte, p *parts) []byte {
	dst = appendReversedHost(dst, p.host)
	dst = append(dst, "//"...)
	if p.port != "" {
		dst = append(dst, p.port...)
		dst = append(dst, ':')
	}
	for i := 0; i < len(p.scheme); i++ {
		dst = append(dst, lower(p.scheme[i]))
	}
	if p.user != "" {
		dst = append(dst, '@')
		dst = append(dst, p.user...)
	}
	dst = append(dst, ':')
	path, query, hasQuery := strings.Cut(p.pathq, "?")
	dst = append(dst, path...)
	if hasQuery {
		dst = append(dst, '?')
		dst = appendSortedQuery(dst, query)
	}
	return dst
}

func appendSortedQuery(dst []byte, q string) []byte {
	if strings.IndexByte(q, '&') < 0 {
		return append(dst, q...)
	}
	fields := strings.Split(q, "&")
	sort.Strings(fields)
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, '&')
		}
		dst = append(dst, f...)
	}
	return dst
}

// rawHasSlashPath reports whether a raw (not canonical) URL names anything after its
// authority with a slash; a seed like "http://ca.gov" has none and opens every subdomain.
func rawHasSlashPath(raw string) bool {
	s := cleanRaw(raw)
	_, rest, ok := cutScheme(s)
	if !ok {
		return true
	}
	rest = strings.TrimLeft(rest, `/\`)
	end := strings.IndexAny(rest, `/\?#`)
	return end >= 0 && (rest[end] == '/' || rest[end] == '\\')
}
