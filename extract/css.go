package extract

import (
	"strings"
	"unicode/utf8"

	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/weburl"
)

// CSS returns the outlinks of a stylesheet body: every url() (context "css/url()"), every
// string of an image-set() ("css/url()"), and every @import, written with a string or a
// url() ("css/@import"), all with hop letter hop.Embed. Comments are ignored; quoted and unquoted
// url() forms, CSS escapes and whitespace are handled as the CSS Syntax spec tokenises them.
// The only error is ErrPageURL.
func CSS(pageURL string, body []byte) ([]Outlink, error) {
	r, err := newResolver(pageURL, "")
	if err != nil {
		return nil, err
	}
	var refs []link
	scanCSS(string(body), func(ref string, isImport bool) {
		ctx := "css/url()"
		if isImport {
			ctx = "css/@import"
		}
		refs = append(refs, link{ref: ref, hop: hop.Embed, context: ctx})
	})
	return resolveAll(r, refs), nil
}

// scanCSS calls emit for every URL reference in the CSS text s, in order: url() tokens,
// image-set() strings and @import targets (isImport true).
func scanCSS(s string, emit func(ref string, isImport bool)) {
	i := 0
	for i < len(s) {
		switch c := s[i]; c {
		case '/':
			i = skipComment(s, i)
		case '"', '\'':
			_, i, _ = readCSSString(s, i)
		case '\\':
			_, i = readEscape(s, i)
		case '@':
			if !hasPrefixFold(s[i+1:], "import") || (i+7 < len(s) && isIdentByte(s[i+7])) {
				i++
				continue
			}
			j := skipSpaceAndComments(s, i+7)
			switch {
			case j < len(s) && (s[j] == '"' || s[j] == '\''):
				v, end, ok := readCSSString(s, j)
				if ok {
					emit(v, true)
				}
				i = end
			case hasPrefixFold(s[j:], "url("):
				v, end, ok := readURLToken(s, j+4)
				if ok {
					emit(v, true)
				}
				i = end
			default:
				i = j
			}
		case 'u', 'U':
			if hasPrefixFold(s[i:], "url(") && !identBefore(s, i) {
				v, end, ok := readURLToken(s, i+4)
				if ok {
					emit(v, false)
				}
				i = end
				continue
			}
			i++
		case 'i', 'I', '-':
			n := 0
			if hasPrefixFold(s[i:], "image-set(") {
				n = len("image-set(")
			} else if hasPrefixFold(s[i:], "-webkit-image-set(") {
				n = len("-webkit-image-set(")
			}
			if n == 0 || identBefore(s, i) {
				i++
				continue
			}
			i = readImageSet(s, i+n, emit)
		default:
			i++
		}
	}
}

// readImageSet reads the arguments of an image-set() starting at i (after the '('),
// emitting its top-level strings and url()s, and returns the index after the closing ')'.
func readImageSet(s string, i int, emit func(string, bool)) int {
	depth := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == '/':
			i = skipComment(s, i)
		case c == '"' || c == '\'':
			v, end, ok := readCSSString(s, i)
			if ok && depth == 0 {
				emit(v, false)
			}
			i = end
		case (c == 'u' || c == 'U') && hasPrefixFold(s[i:], "url(") && !identBefore(s, i):
			v, end, ok := readURLToken(s, i+4)
			if ok {
				emit(v, false)
			}
			i = end
		case c == '\\':
			_, i = readEscape(s, i)
		case c == '(':
			depth++
			i++
		case c == ')':
			i++
			if depth == 0 {
				return i
			}
			depth--
		default:
			i++
		}
	}
	return i
}

// skipComment returns the index after a comment starting at i, or i+1 if none starts there.
func skipComment(s string, i int) int {
	if i+1 >= len(s) || s[i+1] != '*' {
		return i + 1
	}
	if end := strings.Index(s[i+2:], "*/"); end >= 0 {
		return i + 2 + end + 2
	}
	return len(s)
}

func skipSpaceAndComments(s string, i int) int {
	for i < len(s) {
		switch {
		case isHTMLSpace(s[i]):
			i++
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
			i = skipComment(s, i)
		default:
			return i
		}
	}
	return i
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// isIdentByte reports whether c can continue a CSS identifier (non-ASCII bytes included).
func isIdentByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c >= 0x80
}

// identBefore reports whether the byte before i continues an identifier, so that a function
// name found at i (like "url(" in "myurl(") is only the tail of another name.
func identBefore(s string, i int) bool {
	return i > 0 && (isIdentByte(s[i-1]) || s[i-1] == '\\')
}

// readCSSString reads a string token whose opening quote is at i and returns its value and
// the index after it. An unescaped newline makes it a bad string (ok false); the end of
// input closes it.
func readCSSString(s string, i int) (string, int, bool) {
	quote := s[i]
	i++
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		switch {
		case c == quote:
			return b.String(), i + 1, true
		case c == '\n' || c == '\r' || c == '\f':
			return "", i, false
		case c == '\\':
			if i+1 >= len(s) {
				i++
				continue
			}
			if n := s[i+1]; n == '\n' || n == '\f' {
				i += 2
				continue
			} else if n == '\r' {
				i += 2
				if i < len(s) && s[i] == '\n' {
					i++
				}
				continue
			}
			var r rune
			r, i = readEscape(s, i)
			b.WriteRune(r)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), i, true
}

// readEscape decodes the escape whose backslash is at i (the next byte is not a newline)
// and returns the code point and the index after the escape.
func readEscape(s string, i int) (rune, int) {
	i++
	if i >= len(s) {
		return utf8.RuneError, i
	}
	if !weburl.IsHex(s[i]) {
		r, size := utf8.DecodeRuneInString(s[i:])
		return r, i + size
	}
	var v rune
	n := 0
	for ; n < 6 && i < len(s) && weburl.IsHex(s[i]); n++ {
		v = v<<4 | rune(hexVal(s[i]))
		i++
	}
	if i < len(s) && isHTMLSpace(s[i]) {
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		i++
	}
	if v == 0 || v > utf8.MaxRune || (v >= 0xD800 && v <= 0xDFFF) {
		v = utf8.RuneError
	}
	return v, i
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

// readURLToken reads the argument of a url( whose content starts at i and returns the URL,
// the index after the closing ')' and whether the token was a valid url.
func readURLToken(s string, i int) (string, int, bool) {
	i = skipSpace(s, i)
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		v, end, ok := readCSSString(s, i)
		end = skipSpace(s, end)
		if ok && (end >= len(s) || s[end] == ')') {
			return v, min(end+1, len(s)), true
		}
		return "", skipBadURL(s, end), false
	}
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		switch {
		case c == ')':
			return b.String(), i + 1, true
		case isHTMLSpace(c):
			i = skipSpace(s, i)
			if i >= len(s) || s[i] == ')' {
				return b.String(), min(i+1, len(s)), true
			}
			return "", skipBadURL(s, i), false
		case c == '"' || c == '\'' || c == '(' || c < 0x09 || c == 0x0b || (c >= 0x0e && c < 0x20) || c == 0x7f:
			return "", skipBadURL(s, i), false
		case c == '\\':
			if i+1 >= len(s) || s[i+1] == '\n' || s[i+1] == '\r' || s[i+1] == '\f' {
				return "", skipBadURL(s, i), false
			}
			var r rune
			r, i = readEscape(s, i)
			b.WriteRune(r)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), i, true
}

func skipSpace(s string, i int) int {
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	return i
}

// skipBadURL consumes the remnants of a bad url token and returns the index after its ')'.
func skipBadURL(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ')':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return len(s)
}
