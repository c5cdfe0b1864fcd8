// Package rewrite rewrites URLs with FAST's rewrite rules (MS-FSCCFG §2.2.3, rewrite_rules):
// a rule "*match_pattern*replacement_string*" replaces the first match of a regular expression
// in a URL by a replacement that may refer to the match's groups. The delimiter, "*" here, is
// the rule's first character: any character that is not white space.
//
// The specification's patterns are .NET regular expressions; amber compiles them with Go's
// regexp (RE2 syntax): the common syntax (groups, classes, alternation, anchors, repetition,
// (?i)) means the same, and what RE2 lacks (backreferences in the pattern, lookaround) is an
// error when the rule is parsed, never a different rewrite. The replacement takes the .NET
// substitutions and FAST's "\N":
//
//	$N, ${N}   the text of group N (0: the whole match); a group that did not take part is ""
//	${name}    the text of the named group (?P<name>...) or (?<name>...)
//	$&         the whole match
//	$$         a "$"
//	\N         the text of group N, N one digit
//
// A "$" not followed by one of these, and a "\" not followed by a digit, stand for themselves.
// A reference to a group the pattern does not have is an error.
//
// Rules are values: parse them once, apply them from any number of goroutines.
package rewrite

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrRule is wrapped, with the rule and what is wrong with it, by the errors of Parse.
var ErrRule = errors.New("rewrite: invalid rule")

// Rule is one parsed rewrite rule.
type Rule struct {
	text string
	re   *regexp.Regexp
	repl []piece
}

// piece is a literal (group < 0) or a group reference of a replacement.
type piece struct {
	lit   string
	group int
}

// Parse parses a rule "DmatchDreplacementD", D being its first character after leading and
// trailing white space are trimmed. D must not be white space and must occur exactly three
// times: first, between the pattern and the replacement, and last (pick a delimiter that
// neither contains). The pattern must not be empty and must compile; the replacement may be
// empty (the match is deleted). Errors wrap ErrRule.
func Parse(s string) (Rule, error) {
	text := strings.TrimSpace(s)
	d, size := utf8.DecodeRuneInString(text)
	switch {
	case text == "":
		return Rule{}, fmt.Errorf("%w: empty", ErrRule)
	case d == utf8.RuneError && size <= 1:
		return Rule{}, fmt.Errorf("%w: %q: the delimiter is not valid UTF-8", ErrRule, s)
	case unicode.IsSpace(d):
		return Rule{}, fmt.Errorf("%w: %q: the delimiter is white space", ErrRule, s)
	}
	delim := text[:size]
	parts := strings.Split(text, delim)
	// "DpDrD" splits into "", p, r, "".
	if len(parts) != 4 || parts[3] != "" {
		return Rule{}, fmt.Errorf("%w: %q: want %smatch%sreplacement%s, with %q exactly three times", ErrRule, s, delim, delim, delim, delim)
	}
	pattern, replacement := parts[1], parts[2]
	if pattern == "" {
		return Rule{}, fmt.Errorf("%w: %q: empty pattern", ErrRule, s)
	}
	re, err := regexp.Compile(dotNetGroups(pattern))
	if err != nil {
		return Rule{}, fmt.Errorf("%w: %q: %v", ErrRule, s, err)
	}
	repl, err := parseReplacement(replacement, re)
	if err != nil {
		return Rule{}, fmt.Errorf("%w: %q: %v", ErrRule, s, err)
	}
	return Rule{text: text, re: re, repl: repl}, nil
}

// dotNetGroups turns the .NET named group "(?<name>" into RE2's "(?P<name>"; lookbehind
// "(?<=" and "(?<!" are left for the compiler to refuse.
func dotNetGroups(p string) string {
	if !strings.Contains(p, "(?<") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			b.WriteString(p[i : i+2])
			i++
			continue
		}
		if strings.HasPrefix(p[i:], "(?<") && i+3 < len(p) && p[i+3] != '=' && p[i+3] != '!' {
			b.WriteString("(?P<")
			i += 2
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// parseReplacement splits a replacement into literals and group references of re.
func parseReplacement(s string, re *regexp.Regexp) ([]piece, error) {
	var out []piece
	var lit strings.Builder
	ref := func(g int) {
		if lit.Len() > 0 {
			out = append(out, piece{lit: lit.String(), group: -1})
			lit.Reset()
		}
		out = append(out, piece{group: g})
	}
	groups := re.NumSubexp()
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isDigit(s[i+1]):
			g := int(s[i+1] - '0')
			if g > groups {
				return nil, fmt.Errorf("\\%d: the pattern has %d groups", g, groups)
			}
			ref(g)
			i++
		case c == '$' && i+1 < len(s):
			n := s[i+1]
			switch {
			case n == '$':
				lit.WriteByte('$')
				i++
			case n == '&':
				ref(0)
				i++
			case isDigit(n):
				j := i + 1
				for j < len(s) && isDigit(s[j]) {
					j++
				}
				g, err := strconv.Atoi(s[i+1 : j])
				if err != nil || g > groups {
					return nil, fmt.Errorf("%s: the pattern has %d groups", s[i:j], groups)
				}
				ref(g)
				i = j - 1
			case n == '{':
				end := strings.IndexByte(s[i+2:], '}')
				if end < 0 {
					lit.WriteByte('$')
					continue
				}
				name := s[i+2 : i+2+end]
				g, err := strconv.Atoi(name)
				if err != nil {
					g = re.SubexpIndex(name)
				}
				if g < 0 || g > groups || name == "" {
					return nil, fmt.Errorf("${%s}: no such group", name)
				}
				ref(g)
				i += 2 + end
			default:
				lit.WriteByte('$')
			}
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		out = append(out, piece{lit: lit.String(), group: -1})
	}
	return out, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// String returns the rule as it was given, white space trimmed.
func (r Rule) String() string { return r.text }

// Apply replaces the first match of the rule's pattern in u by its replacement. It reports
// whether the pattern matched (the result may still equal u). The zero Rule matches nothing.
func (r Rule) Apply(u string) (string, bool) {
	if r.re == nil {
		return u, false
	}
	m := r.re.FindStringSubmatchIndex(u)
	if m == nil {
		return u, false
	}
	var b strings.Builder
	b.WriteString(u[:m[0]])
	for _, p := range r.repl {
		if p.group < 0 {
			b.WriteString(p.lit)
			continue
		}
		if s, e := m[2*p.group], m[2*p.group+1]; s >= 0 {
			b.WriteString(u[s:e])
		}
	}
	b.WriteString(u[m[1]:])
	return b.String(), true
}

// Rules are rewrite rules applied in order, each to the result of the ones before.
type Rules []Rule

// ParseAll parses each rule of list (Parse); the error names the first bad rule by its
// position, from 1.
func ParseAll(list []string) (Rules, error) {
	rs := make(Rules, 0, len(list))
	for i, s := range list {
		r, err := Parse(s)
		if err != nil {
			return nil, fmt.Errorf("rule %d: %w", i+1, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// Apply applies every rule in order and returns the result, and whether it differs from u.
func (rs Rules) Apply(u string) (string, bool) {
	out := u
	for _, r := range rs {
		out, _ = r.Apply(out)
	}
	return out, out != u
}
