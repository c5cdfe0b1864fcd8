// Package crawlrule is the Elastic web crawler's crawl rules (spec/elastic.md §2): ordered
// allow/deny rules of four types (begins, ends, contains, regex) matched against a URL's path
// and query, the first rule that matches deciding.
//
// begins, ends and contains patterns are literal except '*', which matches any run of
// characters, '/' included; begins is anchored at the start of the path, ends at its end,
// contains anywhere. A regex pattern is a regular expression anchored at the start of the
// path only. The reference is Ruby's regular expressions: a pattern that Go's RE2 cannot
// express (backreferences, lookaround, atomic groups, possessive quantifiers, Ruby-only
// escapes) is refused when the rule is compiled, never given another meaning.
//
// Matching is case-sensitive, as the open crawler's Ruby regular expressions are. Ruby's '^',
// '$' and (?m) concern line breaks, which a URL's path and query never hold, so they mean the
// same there as Go's. A compiled Rule is immutable and safe for concurrent use.
package crawlrule

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strings"
)

// ErrRule is wrapped by every error of Compile and Parse.
var ErrRule = errors.New("crawlrule: invalid rule")

// Policy is what a matching rule decides.
type Policy string

// The two policies.
const (
	Allow Policy = "allow"
	Deny  Policy = "deny"
)

// Type says how a rule's pattern is matched.
type Type string

// The four rule types.
const (
	Begins   Type = "begins"   // the path and query start with the pattern
	Ends     Type = "ends"     // the path and query end with the pattern
	Contains Type = "contains" // the pattern occurs anywhere in the path and query
	Regex    Type = "regex"    // a regular expression anchored at the start of the path
)

// Rule is one compiled crawl rule. Build it with Compile or Parse; a Rule made otherwise
// matches nothing.
type Rule struct {
	Policy  Policy
	Type    Type
	Pattern string // as given

	// pieces are the literal parts of a begins, ends or contains pattern between its '*'s
	// (empty strings where two '*'s meet or at an end that is a '*').
	pieces []string
	re     *regexp.Regexp // Regex: the pattern anchored at the start
}

// Compile checks and compiles a rule. policy and type are case-insensitive ("Deny", "BEGINS");
// the pattern is kept as given and must not be empty. A regex pattern must be one Go's RE2
// accepts; one using Ruby-only syntax is refused with a message naming it. Errors wrap ErrRule
// and quote the rule.
func Compile(policy, typ, pattern string) (*Rule, error) {
	text := policy + " " + typ + " " + pattern
	r := &Rule{Policy: Policy(strings.ToLower(policy)), Type: Type(strings.ToLower(typ)), Pattern: pattern}
	if r.Policy != Allow && r.Policy != Deny {
		return nil, fmt.Errorf("%w: %q: policy %q (want allow or deny)", ErrRule, text, policy)
	}
	switch r.Type {
	case Begins, Ends, Contains, Regex:
	default:
		return nil, fmt.Errorf("%w: %q: type %q (want begins, ends, contains or regex)", ErrRule, text, typ)
	}
	if pattern == "" {
		return nil, fmt.Errorf("%w: %q: empty pattern", ErrRule, text)
	}
	if r.Type != Regex {
		r.pieces = strings.Split(pattern, "*")
		return r, nil
	}
	// The pattern is compiled alone first: wrapped, "a)(b" would compile and mean something else.
	if _, err := regexp.Compile(pattern); err != nil {
		if what := rubyOnly(err); what != "" {
			return nil, fmt.Errorf("%w: %q: %s is Ruby regular expression syntax that Go's RE2 cannot express: %w",
				ErrRule, text, what, err)
		}
		return nil, fmt.Errorf("%w: %q: %w", ErrRule, text, err)
	}
	re, err := regexp.Compile(`^(?:` + prefixForm(pattern) + `)`)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrRule, text, err)
	}
	r.re = re
	return r, nil
}

// prefixForm returns a pattern that matches at the start of a string exactly when pattern
// does, without the ".*" at its ends: a rule matches when the pattern matches a prefix, and
// "X.*" matches a prefix when X does, but the engine would first run ".*" to the end of the
// path. The Elastic default rule, "allow regex .*", then matches at once.
func prefixForm(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return pattern
	}
	if t := trimTail(re); t != re {
		return t.String()
	}
	return pattern
}

// trimTail drops a trailing "any run of characters" from re (from the last element of a
// sequence, from each alternative, from a group); it returns re itself when there is none.
func trimTail(re *syntax.Regexp) *syntax.Regexp {
	var tails []int // the subexpressions at the end of re
	switch re.Op {
	case syntax.OpStar:
		if s := re.Sub[0].Op; s == syntax.OpAnyChar || s == syntax.OpAnyCharNotNL {
			return &syntax.Regexp{Op: syntax.OpEmptyMatch, Flags: re.Flags}
		}
		return re
	case syntax.OpConcat:
		tails = []int{len(re.Sub) - 1}
	case syntax.OpAlternate, syntax.OpCapture:
		for i := range re.Sub {
			tails = append(tails, i)
		}
	default:
		return re
	}
	var c *syntax.Regexp
	for _, i := range tails {
		if t := trimTail(re.Sub[i]); t != re.Sub[i] {
			if c == nil {
				cp := *re
				cp.Sub = append([]*syntax.Regexp(nil), re.Sub...)
				c = &cp
			}
			c.Sub[i] = t
		}
	}
	if c == nil {
		return re
	}
	return c
}

// rubyOnly names the Ruby construct behind a Go regexp compile error, or returns "" when the
// error is not one Ruby would accept.
func rubyOnly(err error) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return ""
	}
	e := se.Expr
	switch se.Code {
	case syntax.ErrInvalidPerlOp:
		switch {
		case strings.HasPrefix(e, "(?=") || strings.HasPrefix(e, "(?!"):
			return "a lookahead " + e
		case strings.HasPrefix(e, "(?>"):
			return "an atomic group " + e
		case strings.HasPrefix(e, "(?~"):
			return "an absence operator " + e
		case strings.HasPrefix(e, "(?("):
			return "a conditional " + e
		case strings.HasPrefix(e, "(?#"):
			return "a comment group " + e
		}
	case syntax.ErrInvalidNamedCapture:
		if strings.HasPrefix(e, "(?<=") || strings.HasPrefix(e, "(?<!") {
			return "a lookbehind " + e[:4]
		}
	case syntax.ErrInvalidEscape:
		if len(e) >= 2 {
			switch c := e[1]; {
			case c >= '1' && c <= '9', c == 'k', c == 'g':
				return "a backreference or subexpression call " + e
			case strings.IndexByte("ZGKRXhH", c) >= 0:
				return "the escape " + e
			}
		}
	case syntax.ErrInvalidRepeatOp:
		if strings.HasSuffix(e, "+") {
			return "a possessive quantifier " + e
		}
	case syntax.ErrInvalidCharRange:
		if strings.HasPrefix(e, `\p{`) || strings.HasPrefix(e, `\P{`) {
			return "the character property " + e
		}
	}
	return ""
}

// Parse reads a rule's string form, "POLICY TYPE PATTERN" ("deny begins /blog"): the policy and
// the type are the first two words (separated by spaces or tabs), the pattern is the rest of the
// string with surrounding white space removed, and may contain spaces. Errors wrap ErrRule.
func Parse(s string) (*Rule, error) {
	policy, rest := word(s)
	typ, rest := word(rest)
	pattern := strings.TrimSpace(rest)
	if policy == "" || typ == "" || pattern == "" {
		return nil, fmt.Errorf("%w: %q: want POLICY TYPE PATTERN (e.g. deny begins /blog)", ErrRule, s)
	}
	return Compile(policy, typ, pattern)
}

// word splits off the first white-space-separated word of s.
func word(s string) (w, rest string) {
	s = strings.TrimLeft(s, " \t\r\n")
	i := strings.IndexAny(s, " \t\r\n")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// String is the rule's string form, "deny begins /blog", which Parse reads back to the same
// rule when the pattern neither starts nor ends with white space.
func (r *Rule) String() string {
	return string(r.Policy) + " " + string(r.Type) + " " + r.Pattern
}

// Match reports whether the rule's pattern matches a URL's path and query (PathQuery's form:
// it starts with "/").
func (r *Rule) Match(pathQuery string) bool {
	switch r.Type {
	case Begins:
		return matchBegins(r.pieces, pathQuery)
	case Ends:
		return matchEnds(r.pieces, pathQuery)
	case Contains:
		return matchContains(r.pieces, pathQuery)
	case Regex:
		return r.re != nil && r.re.MatchString(pathQuery)
	}
	return false
}

// matchBegins: the first piece is a prefix, the others follow in order. Taking each piece at
// its leftmost place leaves the most room for the ones after it.
func matchBegins(pieces []string, s string) bool {
	if len(pieces) == 0 || !strings.HasPrefix(s, pieces[0]) {
		return false
	}
	return inOrder(pieces[1:], s[len(pieces[0]):])
}

// matchEnds mirrors matchBegins: the last piece is a suffix, the others come before it in
// order, each taken at its rightmost place.
func matchEnds(pieces []string, s string) bool {
	n := len(pieces)
	if n == 0 || !strings.HasSuffix(s, pieces[n-1]) {
		return false
	}
	s = s[:len(s)-len(pieces[n-1])]
	for i := n - 2; i >= 0; i-- {
		j := strings.LastIndex(s, pieces[i])
		if j < 0 {
			return false
		}
		s = s[:j]
	}
	return true
}

func matchContains(pieces []string, s string) bool { return inOrder(pieces, s) }

// inOrder reports whether the pieces occur in s in order without overlapping.
func inOrder(pieces []string, s string) bool {
	for _, p := range pieces {
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// List is a domain's crawl rules in order.
type List []*Rule

// Decide returns the first rule that matches pathQuery and its index in l, or (-1, nil) when
// none does: the implicit final rule, allow everything.
func (l List) Decide(pathQuery string) (index int, r *Rule) {
	for i, r := range l {
		if r.Match(pathQuery) {
			return i, r
		}
	}
	return -1, nil
}

// PathQuery is the part of u that crawl rules are matched against, as it is sent on the wire:
// the escaped path ("/" when empty), then "?" and the raw query when u has one. The fragment
// is left out.
func PathQuery(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		return p + "?" + u.RawQuery
	}
	return p
}
