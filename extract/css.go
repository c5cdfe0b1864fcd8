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
	refs := cssRefs(body, 0)
	defer refs.release()
	return resolveAll(r, refs.links), nil
}

// cssRefs returns the references of a stylesheet body, at most limit of them (0: no limit).
func cssRefs(body []byte, limit int) *refList {
	refs := newRefList(limit)
	scanCSS(string(body), func(ref string, isImport bool) {
		ctx := "css/url()"
		if isImport {
			ctx = "css/@import"
		}
		refs.add(link{ref: ref, hop: hop.Embed, context: ctx})
	})
	return refs
}

// scanCSS calls emit for every URL reference in the CSS text s, in order: url() tokens,
// image-set() strings and @import targets (isImport true). Names are read as the CSS Syntax
// Level 3 tokenizer reads them: an identifier may be written with escapes ("u\rl(",
// "\75 rl(" and "\55 RL(" are all url(), as in browsers), and a function or at-keyword
// name is compared with its escapes decoded, ASCII case-insensitively.
func scanCSS(s string, emit func(ref string, isImport bool)) {
	i := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == '/':
			i = skipComment(s, i)
		case c == '"' || c == '\'':
			_, i, _ = readCSSString(s, i)
		case c == '@':
			if !startsIdent(s, i+1) {
				i++
				continue
			}
			name, j := readName(s, i+1)
			if !strings.EqualFold(name, "import") {
				i = j
				continue
			}
			i = readImport(s, j, emit)
		case c == '#':
			// A hash token ("#url" is a color or an id, not a function name).
			_, i = readName(s, i+1)
		case c == '\\' || isIdentByte(c):
			if !startsIdent(s, i) {
				i = skipNonIdent(s, i)
				continue
			}
			name, j := readName(s, i)
			switch {
			case j >= len(s) || s[j] != '(':
				i = j
			case strings.EqualFold(name, "url"):
				v, end, ok := readURLToken(s, j+1)
				if ok {
					emit(v, false)
				}
				i = end
			case strings.EqualFold(name, "image-set") || strings.EqualFold(name, "-webkit-image-set"):
				i = readImageSet(s, j+1, emit)
			default:
				i = j + 1
			}
		default:
			i++
		}
	}
}

// readImport reads what follows "@import" from i: a string or a url(), emitted as an import,
// and returns the index after it.
func readImport(s string, i int, emit func(string, bool)) int {
	i = skipSpaceAndComments(s, i)
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		v, end, ok := readCSSString(s, i)
		if ok {
			emit(v, true)
		}
		return end
	}
	if !startsIdent(s, i) {
		return i
	}
	name, j := readName(s, i)
	if !strings.EqualFold(name, "url") || j >= len(s) || s[j] != '(' {
		return j
	}
	v, end, ok := readURLToken(s, j+1)
	if ok {
		emit(v, true)
	}
	return end
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
		case c == '\\' || isIdentByte(c):
			if !startsIdent(s, i) {
				i = skipNonIdent(s, i)
				continue
			}
			name, j := readName(s, i)
			if j < len(s) && s[j] == '(' && strings.EqualFold(name, "url") {
				v, end, ok := readURLToken(s, j+1)
				if ok {
					emit(v, false)
				}
				i = end
				continue
			}
			i = j // another function's '(' counts in depth below
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

// skipNonIdent skips what starts at i, an identifier byte or a backslash that does not start
// an identifier: a number with its unit (a dimension such as "1url" is no function name),
// or a lone '-' or backslash.
func skipNonIdent(s string, i int) int {
	if isDigit(s[i]) {
		_, i = readName(s, i)
		return i
	}
	return i + 1
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

// isIdentByte reports whether c can continue a CSS identifier (non-ASCII bytes included).
func isIdentByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c >= 0x80
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// validEscape reports whether s[i:] starts with a valid escape (CSS Syntax 3 §4.3.8): a
// backslash not followed by a newline (at the end of input it stands for U+FFFD).
func validEscape(s string, i int) bool {
	if i >= len(s) || s[i] != '\\' {
		return false
	}
	return i+1 >= len(s) || (s[i+1] != '\n' && s[i+1] != '\r' && s[i+1] != '\f')
}

// startsIdent reports whether s[i:] would start an ident sequence (CSS Syntax 3 §4.3.9): a
// letter, '_', a non-ASCII code point or a valid escape; or '-' followed by one of those or
// by another '-'.
func startsIdent(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	switch c := s[i]; {
	case c == '-':
		if i+1 >= len(s) {
			return false
		}
		n := s[i+1]
		return n == '-' || isIdentStart(n) || validEscape(s, i+1)
	case c == '\\':
		return validEscape(s, i)
	default:
		return isIdentStart(c)
	}
}

func isIdentStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c >= 0x80
}

// readName reads the ident code points and valid escapes starting at i (CSS Syntax 3
// §4.3.11), and returns them with the escapes decoded, and the index after them.
func readName(s string, i int) (string, int) {
	start := i
	for i < len(s) && isIdentByte(s[i]) {
		i++
	}
	if !validEscape(s, i) {
		return s[start:i], i
	}
	var b strings.Builder
	b.WriteString(s[start:i])
	for i < len(s) {
		switch {
		case isIdentByte(s[i]):
			b.WriteByte(s[i])
			i++
		case validEscape(s, i):
			var r rune
			r, i = readEscape(s, i)
			b.WriteRune(r)
		default:
			return b.String(), i
		}
	}
	return b.String(), i
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

// readEscape decodes the valid escape whose backslash is at i (CSS Syntax 3 §4.3.7: up to six
// hex digits and one white space after them, or any other code point; U+FFFD for zero, a
// surrogate, a code point past U+10FFFF or the end of input) and returns the code point and
// the index after the escape.
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
			if !validEscape(s, i) {
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
