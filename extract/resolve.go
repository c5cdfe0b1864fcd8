package extract

import (
	"net/url"
	"strings"

	"golang.org/x/text/encoding"

	"github.com/amber-crawler/amber/weburl"
)

// resolver turns raw references into absolute outlink URLs against one base URL.
type resolver struct {
	base       *url.URL
	pageScheme string // the page's own scheme is accepted besides http and https
	// queryEnc, when set, is the legacy encoding of the page: a non-ASCII query is encoded
	// in it before percent-encoding, as browsers do (nil: UTF-8).
	queryEnc encoding.Encoding
	// origin is "scheme://host" of an http(s) base with a valid ASCII host and no user
	// information, for resolveSimple; "" otherwise.
	origin string
}

// newResolver parses base (which must be absolute) for resolving. pageScheme is the scheme
// of the page the references come from; "" means base's own.
func newResolver(base, pageScheme string) (*resolver, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Scheme == "" || (weburl.IsSpecial(u.Scheme) && u.Host == "") {
		return nil, errPageURL(base)
	}
	u.Fragment, u.RawFragment = "", ""
	if pageScheme == "" {
		pageScheme = u.Scheme
	}
	r := &resolver{base: u, pageScheme: pageScheme}
	if (u.Scheme == "http" || u.Scheme == "https") && u.User == nil && isASCII(u.Host) && validHost(u.Host) {
		r.origin = u.Scheme + "://" + u.Host
	}
	return r, nil
}

// simplePath marks the bytes a root-relative reference may hold for resolveSimple: those that
// net/url neither escapes nor unescapes in a path and query, and that amber's query escaping
// leaves as they are. Not '%' (escapes are normalised), '#', '\\', spaces or controls.
var simplePath = func() (t [256]bool) {
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/$&+,:;=@?" {
		t[c] = true
	}
	return t
}()

// resolveSimple resolves the commonest reference without parsing it: a path from the root
// ("/p/1.html", "/search?q=x&n=2") of simplePath bytes, without "//", dot segments or a
// second '?', on a base with an origin. It is exactly what resolve's parsing gives for such a
// reference (TestResolveSimple compares them, FuzzResolveSimple too); ok is false for any
// other reference, which resolve parses.
func (r *resolver) resolveSimple(ref string) (string, bool) {
	if r.origin == "" || r.queryEnc != nil || len(ref) == 0 || ref[0] != '/' || len(ref) > 1 && ref[1] == '/' {
		return "", false
	}
	path, query, hasQuery := strings.Cut(ref, "?")
	if hasQuery && strings.IndexByte(query, '?') >= 0 {
		return "", false
	}
	for i := 0; i < len(ref); i++ {
		if !simplePath[ref[i]] {
			return "", false
		}
	}
	if strings.Contains(path, "//") || strings.Contains(path, "/.") {
		return "", false // empty or dot segments (and names starting with a dot: left to resolve)
	}
	return r.origin + ref, true
}

// skippedSchemes never make outlinks, whatever the page's scheme.
var skippedSchemes = map[string]bool{
	"javascript": true, "data": true, "mailto": true, "tel": true, "about": true, "blob": true,
}

// resolve returns the absolute URL of ref, or false when ref is to be skipped.
func (r *resolver) resolve(ref string) (string, bool) {
	// WHATWG trimming; the controls and spaces left are encoded, which net/url would refuse.
	ref = weburl.EscapeControls(weburl.Trim(ref))
	if ref == "" || ref[0] == '#' {
		return "", false
	}
	if abs, ok := r.resolveSimple(ref); ok {
		return abs, true
	}
	return r.resolveParsed(ref)
}

// resolveParsed is resolve of a trimmed reference by parsing it with net/url.
func (r *resolver) resolveParsed(ref string) (string, bool) {
	if scheme, rest, ok := weburl.CutScheme(ref); ok {
		scheme = strings.ToLower(scheme)
		if skippedSchemes[scheme] {
			return "", false
		}
		if weburl.IsSpecial(scheme) {
			rest = weburl.FixBackslashes(rest)
			switch {
			case scheme == r.base.Scheme && !strings.HasPrefix(rest, "//"):
				// "http:x" and "http:/x" on an http page are relative (WHATWG URL).
				ref = rest
				if ref == "" {
					return "", false
				}
			default:
				ref = scheme + "://" + strings.TrimLeft(rest, "/")
			}
		}
	} else if weburl.IsSpecial(r.base.Scheme) {
		ref = weburl.FixBackslashes(ref)
		if strings.HasPrefix(ref, "//") {
			ref = "//" + strings.TrimLeft(ref, "/")
		}
	}
	u, err := url.Parse(ref)
	if err != nil {
		if u, err = url.Parse(weburl.FixPercent(ref)); err != nil {
			return "", false
		}
	}
	abs := r.base.ResolveReference(u)
	abs.Fragment, abs.RawFragment = "", ""
	if abs.Scheme != "http" && abs.Scheme != "https" && abs.Scheme != r.pageScheme {
		return "", false
	}
	if weburl.IsSpecial(abs.Scheme) && (abs.Host == "" || abs.Opaque != "") {
		return "", false
	}
	if !isASCII(abs.Host) {
		// net/url would percent-encode a Unicode host, which no one can canonicalise or
		// dial; its IDNA (punycode) form is the host browsers look up.
		// A mapped host can hold what no host name may (`//\xff::` maps to "xn--:-p10i",
		// whose ':' would read as a port): refused, not joined to a port.
		host, err := weburl.ASCIIHost(abs.Hostname())
		if err != nil || !weburl.IsHostname(host) {
			return "", false
		}
		if port := abs.Port(); port != "" {
			host += ":" + port
		}
		abs.Host = host
	}
	if weburl.IsSpecial(abs.Scheme) && !validHost(abs.Host) {
		return "", false
	}
	if r.queryEnc != nil && !isASCII(abs.RawQuery) {
		abs.RawQuery = encodeQuery(r.queryEnc, abs.RawQuery)
	}
	abs.RawQuery = weburl.EscapeQuery(abs.RawQuery)
	return abs.String(), true
}

// validHost reports whether host (with an optional port, already in ASCII) can name an
// internet host: an IP literal in brackets, or a name of letters, digits, '-', '.' and '_'.
// net/url lets through names such as `"` or "a<b" that no resolver knows.
func validHost(host string) bool {
	if strings.HasPrefix(host, "[") {
		return true // net/url has checked the IPv6 literal
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i] // net/url has checked the port
	}
	return weburl.IsHostname(host)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isHTMLSpace reports ASCII whitespace as HTML defines it.
func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// srcsetURLs returns the candidate URLs of a srcset attribute, per the HTML "parse a srcset
// attribute" algorithm: candidates are split on commas that follow whitespace-delimited URLs,
// so a comma inside a URL stays, and trailing commas are removed from a URL.
func srcsetURLs(s string) []string {
	var urls []string
	i := 0
	for {
		for i < len(s) && (isHTMLSpace(s[i]) || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			return urls
		}
		start := i
		for i < len(s) && !isHTMLSpace(s[i]) {
			i++
		}
		u := s[start:i]
		if trimmed := strings.TrimRight(u, ","); len(trimmed) < len(u) {
			// A URL ending in commas has no descriptors.
			if trimmed != "" {
				urls = append(urls, trimmed)
			}
			continue
		}
		urls = append(urls, u)
		// Skip the descriptors: up to a comma outside parentheses.
		depth := 0
		for ; i < len(s); i++ {
			c := s[i]
			if c == '(' {
				depth++
			} else if c == ')' && depth > 0 {
				depth--
			} else if c == ',' && depth == 0 {
				i++
				break
			}
		}
	}
}

// refreshDelay returns the whole seconds a refresh value ("5; url=x") waits: its leading
// digits, 0 when there are none (".5"), saturated at a billion. refreshTarget decides
// whether the value is well-formed.
func refreshDelay(s string) int {
	i := 0
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	n := 0
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		if n < 1e9 {
			n = n*10 + int(s[i]-'0')
		}
	}
	return min(n, 1e9)
}

// refreshTarget returns the URL part of a refresh value ("5; url='x'"), following the HTML
// "shared declarative refresh steps". ok is false for a malformed value or one without a URL.
func refreshTarget(s string) (string, bool) {
	i := 0
	skipSpace := func() {
		for i < len(s) && isHTMLSpace(s[i]) {
			i++
		}
	}
	skipSpace()
	start := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == start && (i >= len(s) || s[i] != '.') {
		return "", false
	}
	for i < len(s) && ('0' <= s[i] && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i >= len(s) {
		return "", false
	}
	if c := s[i]; !isHTMLSpace(c) && c != ';' && c != ',' {
		return "", false
	}
	skipSpace()
	if i < len(s) && (s[i] == ';' || s[i] == ',') {
		i++
	}
	skipSpace()
	if i >= len(s) {
		return "", false
	}
	target := s[i:]
	quoted := func() string {
		if i < len(s) && (s[i] == '\'' || s[i] == '"') {
			q := s[i]
			rest := s[i+1:]
			if j := strings.IndexByte(rest, q); j >= 0 {
				rest = rest[:j]
			}
			return rest
		}
		return s[i:]
	}
	if s[i] != 'u' && s[i] != 'U' {
		target = quoted()
	} else if i+2 < len(s) && strings.EqualFold(s[i:i+3], "url") {
		i += 3
		skipSpace()
		if i < len(s) && s[i] == '=' {
			i++
			skipSpace()
			target = quoted()
		}
	}
	if strings.TrimSpace(target) == "" {
		return "", false
	}
	return target, true
}
