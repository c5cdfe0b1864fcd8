package scope

import (
	"bytes"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/purell"

	"github.com/amber-crawler/amber/weburl"
)

// purellFlags are the normalisations of spec/scope.md §2.1 that purell performs for us:
// its safe flags plus fragment removal. Dot segments are resolved before, by
// removeDotSegments, as purell's FlagRemoveDotSegments would.
const purellFlags = purell.FlagsSafe | purell.FlagRemoveFragment

// Canonicalize returns the canonical form (spec/scope.md §2.1) of the absolute URL raw for the
// flavour f ("" means Standard): leading and trailing C0 controls and spaces trimmed and tabs
// and newlines inside removed (weburl.Trim), other controls and spaces percent-encoded,
// scheme and host lowercased, IDN host in punycode (weburl.ASCIIHost), trailing dots of the
// host dropped, a host that ends in a number read as the IPv4 address browsers read
// (WHATWG URL: "http://2130706433/", "http://0x7f.1/", "http://127.1/" and
// "http://0177.0.0.1/" are all "http://127.0.0.1/"), default ports (:80 for http, :443 for https) dropped, an empty path made "/", "." and
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
// digits, "-", "_" and "." (or an IPv6 literal without zone), a host that ends in a number but
// is no IPv4 address ("1.2.3.4.5", "foo.0x", "256.1.1.1"), or a port above 65535.
func Canonicalize(raw string, f Flavour) (string, error) {
	if isCanonical(raw) {
		return raw, nil
	}
	return canonicalize(raw, f)
}

// canonicalize is Canonicalize the long way: parsed and normalised step by step.
func canonicalize(raw string, f Flavour) (string, error) {
	scheme, rest, ok := weburl.CutScheme(weburl.Trim(raw))
	if !ok {
		return "", fmt.Errorf("%w: %q: not an absolute URL", ErrURL, raw)
	}
	scheme = strings.ToLower(scheme)
	if scheme != "http" && scheme != "https" {
		return canonicalOther(raw, scheme, rest)
	}
	rest = weburl.FixPercent(weburl.EscapeControls(weburl.FixBackslashes(rest)))
	u, err := url.Parse(scheme + ":" + rest)
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
	u.Path = removeDotSegments(u.Path)
	u.RawPath = ""
	u.RawQuery = canonicalQuery(u.RawQuery)
	flags := purellFlags
	if f == Brozzler {
		flags |= purell.FlagRemoveDuplicateSlashes
	}
	return purell.NormalizeURL(u, flags), nil
}

// removeDotSegments resolves the "." and ".." segments of a path that has a host, with the
// result of purell's FlagRemoveDotSegments (canonical URLs must not change), in one pass and
// one allocation: purell splits the path into a slice of segments, tens of bytes for each
// byte of a path of slashes. Segments are the strings between slashes; "." is dropped, ".."
// drops the segment before it (the empty one before the first slash too), and the result
// starts with "/", and ends with "/" when the last segment was a dot segment.
func removeDotSegments(p string) string {
	if !hasDotSegment(p) {
		if strings.HasPrefix(p, "/") {
			return p
		}
		return "/" + p
	}
	buf := make([]byte, 1, len(p)+2)
	buf[0] = '/' // room for the leading slash purell adds when the result lacks one
	n := 0       // segments kept; they are buf[1:] joined by "/"
	lastIsDot := false
	for rest, more := p, true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		switch seg {
		case "..":
			switch {
			case n == 1:
				buf = buf[:1]
				n--
			case n > 1:
				buf = buf[:1+bytes.LastIndexByte(buf[1:], '/')]
				n--
			}
		case ".":
		default:
			if n > 0 {
				buf = append(buf, '/')
			}
			buf = append(buf, seg...)
			n++
		}
		lastIsDot = seg == "." || seg == ".."
	}
	out := buf[1:]
	if len(out) == 0 || out[0] != '/' {
		out = buf
	}
	if lastIsDot && out[len(out)-1] != '/' {
		out = append(out, '/')
	}
	return string(out)
}

// hasDotSegment reports whether one of the "/"-separated segments of p is "." or "..".
func hasDotSegment(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] != '.' || (i > 0 && p[i-1] != '/') {
			continue
		}
		j := i + 1
		if j < len(p) && p[j] == '.' {
			j++
		}
		if j == len(p) || p[j] == '/' {
			return true
		}
	}
	return false
}

// canonicalOther handles URLs whose scheme is neither http nor https: they are never in scope,
// so they only need a stable form for reports.
func canonicalOther(raw, scheme, rest string) (string, error) {
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	s := weburl.Trim(scheme + ":" + rest)
	if _, err := url.Parse(s); err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrURL, raw, err)
	}
	return s, nil
}

// canonicalQuery percent-encodes the bytes a query may not hold raw (weburl.EscapeQuery), escapes
// a stray "%" as "%25" and uppercases existing escapes. Nothing is decoded: a decoded "%26"
// would change the meaning of the query.
func canonicalQuery(q string) string {
	q = weburl.EscapeQuery(weburl.FixPercent(q))
	i := 0
	for i < len(q) && !(q[i] == '%' && i+2 < len(q) && (q[i+1] >= 'a' || q[i+2] >= 'a')) {
		i++
	}
	if i == len(q) {
		return q
	}
	b := []byte(q)
	for ; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = upper(b[i+1]), upper(b[i+2])
			i += 2
		}
	}
	return string(b)
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

// canonicalHost lowercases h, converts an IDN to punycode, drops trailing dots, reads a host
// that then ends in a number as the IPv4 address a browser connects to (weburl.EndsInNumber,
// weburl.ParseIPv4: "0x7f.1" is "127.0.0.1"; "1.2.3.4.5" is an error) and checks that what is
// left is a plausible host name or IP literal. Dropping all trailing dots before the IPv4
// check (browsers drop one) keeps canonicalisation idempotent: "0x7f.1.." is 127.0.0.1 too.
func canonicalHost(h string) (string, error) {
	if strings.IndexByte(h, ':') >= 0 {
		// IPv6 literal (url.Hostname removed the brackets).
		h = strings.ToLower(h)
		for i := 0; i < len(h); i++ {
			if c := h[i]; !weburl.IsHex(c) && c != ':' && c != '.' {
				return "", fmt.Errorf("invalid IPv6 host %q", h)
			}
		}
		return "[" + h + "]", nil
	}
	h, err := weburl.ASCIIHost(h)
	if err != nil {
		return "", err
	}
	h = strings.TrimRight(h, ".")
	if weburl.EndsInNumber(h) {
		ip, err := weburl.ParseIPv4(h)
		if err != nil {
			return "", err
		}
		return ip.String(), nil
	}
	if !weburl.IsHostname(h) {
		return "", fmt.Errorf("invalid host %q", h)
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

// appendSURT appends the scope SURT of p (spec/scope.md §2.2) in the form f:
// scheme://( + host labels reversed, each followed by "," + ":port" + "@userinfo" + ) + path
// and query, lowercased unless f.keepCase; an IP address is not reversed, "www" is kept, the
// query is not sorted, no path is added ("http://ca.gov" gives "http://(gov,ca,)").
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

// appendSSURT appends the SSURT of p (spec/scope.md §2.3), as brozzler builds it:
// scheme://user@host:port/path?query becomes host-reversed,//port:scheme@user:/path?query
// ("//http:/path" when there is no port or user). The query is sorted on "&"; the case of path
// and query is kept.
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
	_, rest, ok := weburl.CutScheme(weburl.Trim(raw))
	if !ok {
		return true
	}
	rest = strings.TrimLeft(rest, `/\`)
	end := strings.IndexAny(rest, `/\?#`)
	return end >= 0 && (rest[end] == '/' || rest[end] == '\\')
}
