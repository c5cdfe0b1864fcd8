package scope

import "strings"

// isCanonical reports whether raw is an http or https URL that Canonicalize returns unchanged,
// by a grammar narrow enough to check in one pass without parsing: most links of most pages
// (canonicalizing them took 6% of a crawl's CPU on 5 KB pages with ten links each, mostly
// url.Parse and purell's passes). It answers false for whatever it does not know to be
// canonical, which Canonicalize then works out the long way. The grammar:
//
//   - "http://" or "https://", lower case;
//   - a host of lower-case letters, digits, "-" and "." (no empty label, no trailing dot, no
//     "xn--" label, which IDNA checks), and when its last label starts with a digit, a dotted
//     IPv4 address as Canonicalize writes it (four decimal numbers to 255 without leading
//     zeros);
//   - an optional port of digits, without leading zero, 1 to 65535, not the scheme's default;
//   - a path that starts with "/" and holds only letters, digits and "-._~$&+,;=:@/", without
//     "//" and without a "." or ".." segment;
//   - an optional query, not empty, of the same bytes and "?" (no "%": escapes are normalised),
//     and no fragment.
//
// TestIsCanonical and FuzzIsCanonical check every URL it accepts against Canonicalize.
func isCanonical(raw string) bool {
	var rest string
	var defaultPort string
	switch {
	case strings.HasPrefix(raw, "http://"):
		rest, defaultPort = raw[len("http://"):], "80"
	case strings.HasPrefix(raw, "https://"):
		rest, defaultPort = raw[len("https://"):], "443"
	default:
		return false
	}
	// Host.
	i := 0
	labelStart := 0
	for i < len(rest) {
		c := rest[i]
		if c == '.' {
			if i == labelStart {
				return false
			}
			if strings.HasPrefix(rest[labelStart:], "xn--") {
				return false
			}
			labelStart = i + 1
		} else if c == ':' || c == '/' {
			break
		} else if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
		i++
	}
	host := rest[:i]
	if host == "" || labelStart == i || strings.HasPrefix(rest[labelStart:i], "xn--") {
		return false // empty host or label, trailing dot, punycode
	}
	if last := host[labelStart]; '0' <= last && last <= '9' && !isDottedQuad(host) {
		return false
	}
	rest = rest[i:]
	// Port.
	if strings.HasPrefix(rest, ":") {
		j := 1
		for j < len(rest) && '0' <= rest[j] && rest[j] <= '9' {
			j++
		}
		port := rest[1:j]
		if port == "" || port[0] == '0' || len(port) > 5 || (len(port) == 5 && port > "65535") || port == defaultPort {
			return false
		}
		rest = rest[j:]
	}
	// Path.
	if !strings.HasPrefix(rest, "/") {
		return false
	}
	segStart := 1
	for i = 1; i < len(rest); i++ {
		c := rest[i]
		if c == '?' {
			break
		}
		if c == '/' {
			if i == segStart || isDotSegment(rest[segStart:i]) {
				return false // "//", or a dot segment
			}
			segStart = i + 1
			continue
		}
		if !pathByte(c) {
			return false
		}
	}
	if isDotSegment(rest[segStart:i]) {
		return false
	}
	// Query.
	if i < len(rest) {
		q := rest[i+1:]
		if q == "" {
			return false // purell drops an empty query's "?"
		}
		for k := 0; k < len(q); k++ {
			if c := q[k]; !pathByte(c) && c != '/' && c != '?' {
				return false
			}
		}
	}
	return true
}

// pathByte reports whether c is a byte the path and query of isCanonical may hold, "/" aside.
func pathByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("-._~$&+,;=:@", c) >= 0
}

func isDotSegment(s string) bool { return s == "." || s == ".." }

// isDottedQuad reports whether h is four decimal numbers of 0 to 255 without leading zeros,
// separated by dots.
func isDottedQuad(h string) bool {
	parts := 0
	for len(h) > 0 {
		j := strings.IndexByte(h, '.')
		if j < 0 {
			j = len(h)
		}
		n := h[:j]
		if n == "" || len(n) > 3 || (len(n) > 1 && n[0] == '0') || (len(n) == 3 && n > "255") {
			return false
		}
		for k := 0; k < len(n); k++ {
			if n[k] < '0' || n[k] > '9' {
				return false
			}
		}
		parts++
		if j == len(h) {
			break
		}
		h = h[j+1:]
		if h == "" {
			return false
		}
	}
	return parts == 4
}
