// Package weburl parses and normalises URLs as browsers do (the WHATWG URL Standard): it is
// the one percent-escaping and IDNA policy shared by the fetcher, the extractor and the
// scope, so that a URL found on a page, the URL decided on and the URL requested are spelled
// the same way.
//
// The functions work on strings, never fail on any input, and are safe for concurrent use.
// Where amber deliberately differs from the WHATWG URL Standard the doc comment says so.
package weburl

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/idna"
)

// ErrHost is returned (wrapped, with the host) by ASCIIHost for a host name that has no
// ASCII form.
var ErrHost = errors.New("weburl: invalid host")

const upperHex = "0123456789ABCDEF"

// Trim returns s as the WHATWG URL parser reads it: leading and trailing C0 controls and
// spaces removed, and every ASCII tab and newline removed. Other white space (a no-break
// space, say) is kept: it is part of the URL.
func Trim(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
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

// EscapeControls percent-encodes the C0 controls, spaces and DEL in s (uppercase hex): in a
// path or a query a browser sends them encoded, and in a host they stay invalid.
func EscapeControls(s string) string {
	return escape(s, func(c byte) bool { return c <= ' ' || c == 0x7f })
}

// EscapeQuery percent-encodes the bytes of a raw query that a browser encodes before sending
// it: those of the WHATWG query percent-encode set (C0 controls, space, '"', '#', '<', '>',
// DEL and every non-ASCII byte). Existing escapes are kept as they are, and so is "'", which
// the Standard's special-query set would also encode (amber has never encoded it, and
// changing it would change canonical URLs).
func EscapeQuery(q string) string {
	return escape(q, inQuerySet)
}

// inQuerySet reports whether c is in the query percent-encode set.
func inQuerySet(c byte) bool {
	return c <= ' ' || c >= 0x7f || c == '"' || c == '#' || c == '<' || c == '>'
}

// escape percent-encodes the bytes of s for which need is true.
func escape(s string, need func(byte) bool) string {
	i := 0
	for i < len(s) && !need(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if c := s[i]; need(c) {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// FixPercent escapes as "%25" every '%' of s that does not start a percent-escape (two hex
// digits), so that the URL parses. (Browsers keep such a '%' raw; net/url refuses it.)
func FixPercent(s string) string {
	i := 0
	for i < len(s) && !(s[i] == '%' && !validEscape(s, i)) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if s[i] == '%' && !validEscape(s, i) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// validEscape reports whether the '%' at s[i] starts a percent-escape.
func validEscape(s string, i int) bool {
	return i+2 < len(s) && IsHex(s[i+1]) && IsHex(s[i+2])
}

// FixBackslashes turns the backslashes of s before its query or fragment into slashes, as
// browsers do in http and https URLs (the authority included: `http:\\host\a` is
// http://host/a). Backslashes in the query and fragment are kept.
func FixBackslashes(s string) string {
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	if strings.IndexByte(s[:end], '\\') < 0 {
		return s
	}
	return strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
}

// CutScheme splits "scheme:rest" when s starts with a URL scheme (a letter, then letters,
// digits, '+', '-' or '.') followed by ':'. The scheme keeps its case.
func CutScheme(s string) (scheme, rest string, ok bool) {
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

// IsSpecial reports whether scheme (lowercase) is one whose URLs amber fetches, http or
// https: those get the WHATWG "special scheme" parsing (backslashes as slashes, a required
// host, "http:x" relative on an http page).
func IsSpecial(scheme string) bool {
	return scheme == "http" || scheme == "https"
}

// DefaultPort returns the default port of a special scheme ("80", "443"), else "".
func DefaultPort(scheme string) string {
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// idnaProfile is the WHATWG URL Standard's "domain to ASCII" (UTS #46 with CheckHyphens,
// CheckBidi and CheckJoiners as the Standard sets them, UseSTD3ASCIIRules false,
// Transitional_Processing false, VerifyDnsLength false).
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.CheckJoiners(true),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.VerifyDNSLength(false),
	idna.Transitional(false),
)

// ASCIIHost returns the ASCII form of a host name (without port or brackets), the name a
// browser looks up. An ASCII host is only lowercased. A host with non-ASCII characters goes
// through the WHATWG URL Standard's domain to ASCII (UTS #46 mapping: case folding,
// full-width and compatibility forms, ideographic full stops; then punycode), and the result
// is lowercased; the error wraps ErrHost when that processing fails. ASCIIHost does not
// check the characters of an ASCII result; see IsHostname.
func ASCIIHost(host string) (string, error) {
	if isASCII(host) {
		return strings.ToLower(host), nil
	}
	a, err := idnaProfile.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrHost, host, err)
	}
	return strings.ToLower(a), nil
}

// IsHostname reports whether h (ASCII, without port or brackets) can name an internet host:
// it is not empty and has only letters, digits, '-', '.' and '_'. The WHATWG URL Standard
// accepts more ('!', '$', '~', ...), but no resolver knows such names.
func IsHostname(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
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
