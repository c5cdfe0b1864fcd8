package extract

import (
	"net/url"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/text/encoding"
)

// resolver turns raw references into absolute outlink URLs against one base URL.
type resolver struct {
	base       *url.URL
	pageScheme string // the page's own scheme is accepted besides http and https
	// queryEnc, when set, is the legacy encoding of the page: a non-ASCII query is encoded
	// in it before percent-encoding, as browsers do (nil: UTF-8).
	queryEnc encoding.Encoding
}

// newResolver parses base (which must be absolute) for resolving. pageScheme is the scheme
// of the page the references come from; "" means base's own.
func newResolver(base, pageScheme string) (*resolver, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || u.Scheme == "" || (isSpecial(u.Scheme) && u.Host == "") {
		return nil, errPageURL(base)
	}
	u.Fragment, u.RawFragment = "", ""
	if pageScheme == "" {
		pageScheme = u.Scheme
	}
	return &resolver{base: u, pageScheme: pageScheme}, nil
}

// isSpecial reports whether scheme gets the WHATWG "special scheme" treatment here
// (backslashes as slashes, "http:x" relative): only the schemes outlinks may have.
func isSpecial(scheme string) bool {
	return scheme == "http" || scheme == "https"
}

// skippedSchemes never make outlinks, whatever the page's scheme.
var skippedSchemes = map[string]bool{
	"javascript": true, "data": true, "mailto": true, "tel": true, "about": true, "blob": true,
}

// resolve returns the absolute URL of ref, or false when ref is to be skipped.
func (r *resolver) resolve(ref string) (string, bool) {
	ref = cleanRef(ref)
	if ref == "" || ref[0] == '#' {
		return "", false
	}
	if scheme, rest, ok := splitScheme(ref); ok {
		scheme = strings.ToLower(scheme)
		if skippedSchemes[scheme] {
			return "", false
		}
		if isSpecial(scheme) {
			rest = fixBackslashes(rest)
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
	} else if isSpecial(r.base.Scheme) {
		ref = fixBackslashes(ref)
		if strings.HasPrefix(ref, "//") {
			ref = "//" + strings.TrimLeft(ref, "/")
		}
	}
	u, err := url.Parse(ref)
	if err != nil {
		if u, err = url.Parse(fixPercent(ref)); err != nil {
			return "", false
		}
	}
	abs := r.base.ResolveReference(u)
	abs.Fragment, abs.RawFragment = "", ""
	if abs.Scheme != "http" && abs.Scheme != "https" && abs.Scheme != r.pageScheme {
		return "", false
	}
	if isSpecial(abs.Scheme) && (abs.Host == "" || abs.Opaque != "") {
		return "", false
	}
	if !isASCII(abs.Host) {
		// net/url would percent-encode a Unicode host, which no one can canonicalise or
		// dial; its IDNA (punycode) form is the host browsers look up.
		host, err := idna.Lookup.ToASCII(abs.Hostname())
		if err != nil {
			if host, err = idna.Punycode.ToASCII(abs.Hostname()); err != nil {
				return "", false
			}
		}
		if port := abs.Port(); port != "" {
			host += ":" + port
		}
		abs.Host = host
	}
	if isSpecial(abs.Scheme) && !validHost(abs.Host) {
		return "", false
	}
	if r.queryEnc != nil && !isASCII(abs.RawQuery) {
		abs.RawQuery = encodeQuery(r.queryEnc, abs.RawQuery)
	}
	abs.RawQuery = escapeQuery(abs.RawQuery)
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
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// cleanRef trims C0 controls and spaces around s, removes tabs and newlines inside it (both
// as the WHATWG URL parser does) and percent-encodes the remaining controls and spaces,
// which net/url would refuse.
func cleanRef(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\t' || c == '\n' || c == '\r':
		case c <= ' ' || c == 0x7f:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

const upperHex = "0123456789ABCDEF"

// splitScheme splits "scheme:rest" (RFC 3986 scheme syntax).
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i], s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}

// fixBackslashes turns backslashes before the query or fragment into slashes, as browsers
// do for http and https URLs.
func fixBackslashes(s string) string {
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	if strings.IndexByte(s[:end], '\\') < 0 {
		return s
	}
	return strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
}

// fixPercent escapes every '%' that does not start a valid percent-escape.
func fixPercent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// escapeQuery percent-encodes the bytes of a raw query that a URL must not carry literally.
func escapeQuery(q string) string {
	need := func(c byte) bool { return c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' }
	i := 0
	for i < len(q) && !need(q[i]) {
		i++
	}
	if i == len(q) {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	b.WriteString(q[:i])
	for ; i < len(q); i++ {
		if c := q[i]; need(c) {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
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
