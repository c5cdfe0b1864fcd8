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
	"net/netip"
	"net/url"
	"strconv"
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

// escape percent-encodes the bytes of s for which need is true, in one allocation.
func escape(s string, need func(byte) bool) string {
	i := 0
	for i < len(s) && !need(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	n := 0
	for j := i; j < len(s); j++ {
		if need(s[j]) {
			n++
		}
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
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
// digits), so that the URL parses. (Browsers keep such a '%' raw; net/url refuses it.) It
// allocates once, and not at all when there is nothing to escape.
func FixPercent(s string) string {
	i := 0
	for i < len(s) && !(s[i] == '%' && !validEscape(s, i)) {
		i++
	}
	if i == len(s) {
		return s
	}
	n := 0
	for j := i; j < len(s); j++ {
		if s[j] == '%' && !validEscape(s, j) {
			n++
		}
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
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

// Host returns the host of an http or https URL as a browser reads it (the WHATWG URL
// Standard's host parser after percent-decoding), given without brackets or port: the ASCII
// form of a name (ASCIIHost); then, when that form ends in a number (EndsInNumber), the IPv4
// address it spells (ParseIPv4) in dotted decimal, so that "0x7F.1", "2130706433" and
// "127.0.0.1." are all "127.0.0.1". A host with a ':' is an IPv6 literal: it is returned
// lowercased as it is (not re-serialised) when it is a valid IPv6 address without a zone.
// Errors wrap ErrHost: no ASCII form, a WHATWG forbidden domain code point in the ASCII form
// (controls, space, and any of `#%/:<>?@[\]^|`, which IDNA mapping may produce from
// full-width forms), a host that ends in a number but is no IPv4 address
// ("1.2.3.4.5", "foo.0x", "256.0.0.1"), an invalid IPv6 literal. A trailing dot is kept on
// a name ("example.com.") as browsers keep it.
func Host(h string) (string, error) {
	if strings.IndexByte(h, ':') >= 0 {
		ip, err := netip.ParseAddr(h)
		if err != nil || ip.Zone() != "" || !ip.Is6() {
			return "", fmt.Errorf("%w: %q: not an IPv6 address", ErrHost, h)
		}
		return strings.ToLower(h), nil
	}
	a, err := ASCIIHost(h)
	if err != nil {
		return "", err
	}
	if i := strings.IndexFunc(a, isForbiddenDomain); i >= 0 {
		return "", fmt.Errorf("%w: %q: forbidden character %q", ErrHost, h, a[i])
	}
	if !EndsInNumber(a) {
		return a, nil
	}
	ip, err := ParseIPv4(a)
	if err != nil {
		return "", err
	}
	return ip.String(), nil
}

// EndsInNumber reports whether the ASCII host h is to be read as an IPv4 address (the
// WHATWG URL Standard's "ends in a number checker"): its last label, after one trailing dot
// is dropped, is all decimal digits or is "0x" or "0X" followed by hexadecimal digits only.
// "example.123" and "foo.0x" end in a number (and are no IPv4 address, so no valid host);
// "123.example", "0x7f.1a" and "1.2.3.4.." do not (they are names).
func EndsInNumber(h string) bool {
	h = strings.TrimSuffix(h, ".")
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	digits := true
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			digits = false
			break
		}
	}
	if digits {
		return true
	}
	if len(last) < 2 || last[0] != '0' || (last[1] != 'x' && last[1] != 'X') {
		return false
	}
	for i := 2; i < len(last); i++ {
		if !IsHex(last[i]) {
			return false
		}
	}
	return true
}

// ParseIPv4 parses h as the WHATWG URL Standard's IPv4 parser does, as browsers (and
// inet_aton) read numeric hosts: one to four dot-separated parts, each decimal, hexadecimal
// after "0x" or "0X" ("0x" alone is 0), or octal after a leading "0"; every part but the last
// is one byte, the last fills the remaining bytes ("127.1" is 127.0.0.1, "2130706433" is
// 127.0.0.1, "0x7f.1" too); one trailing dot is allowed. An empty part, a digit outside the
// part's base, more than four parts or a part out of range is an error wrapping ErrHost.
// ParseIPv4 does not decide whether h is to be read as an address at all: see EndsInNumber.
func ParseIPv4(h string) (netip.Addr, error) {
	fail := func(why string) (netip.Addr, error) {
		return netip.Addr{}, fmt.Errorf("%w: %q: %s", ErrHost, h, why)
	}
	s := h
	if len(s) > 1 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	var nums [4]uint64
	n := 0
	for {
		part, rest, more := strings.Cut(s, ".")
		if n == len(nums) {
			return fail("more than four parts in an IPv4 address")
		}
		v, ok := ipv4Number(part)
		if !ok {
			return fail("invalid IPv4 address part")
		}
		nums[n] = v
		n++
		if !more {
			break
		}
		s = rest
	}
	for _, v := range nums[:n-1] {
		if v > 255 {
			return fail("IPv4 address part out of range")
		}
	}
	if nums[n-1] >= 1<<(8*(5-n)) {
		return fail("IPv4 address out of range")
	}
	v := nums[n-1]
	for i, p := range nums[:n-1] {
		v += p << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

// isForbiddenDomain reports the WHATWG URL Standard's forbidden domain code points.
func isForbiddenDomain(r rune) bool {
	return r <= ' ' || r == 0x7f || strings.ContainsRune("#%/:<>?@[\\]^|", r)
}

// ipv4Number is the WHATWG URL Standard's IPv4 number parser. Values above 2^32 are
// clamped to 2^32 (out of range for any part), so that no input overflows.
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		var d uint64
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = min(v*base+d, 1<<32)
	}
	return v, true
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

// Origin checks that raw is an http(s) origin, a scheme, a host and a port only (a path of
// "/" is allowed; a path, query, fragment or user info is not), and returns it as
// scheme://host[:port]: scheme and host as Host reads them (lowercase, punycode, IPv4 in
// dotted decimal, IPv6 in brackets), the scheme's default port left out. Its errors name
// what is wrong without quoting raw (which may hold user info); callers add where it was.
func Origin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case !IsSpecial(scheme):
		return "", errors.New("not an http or https URL")
	case u.Opaque != "" || u.Hostname() == "":
		return "", errors.New("no host")
	case u.User != nil:
		return "", errors.New("an origin has no user name or password")
	case u.Path != "" && u.Path != "/", u.RawQuery != "" || u.ForceQuery, u.Fragment != "":
		return "", errors.New("an origin is a scheme, a host and a port: no path, query or fragment")
	}
	host, err := Host(u.Hostname())
	if err != nil {
		return "", err
	}
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("port %q", p)
		}
		if p = strconv.Itoa(n); p != DefaultPort(scheme) {
			host += ":" + p
		}
	}
	return scheme + "://" + host, nil
}
