package fast

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/amber-crawler/amber/scope"
)

// FAST's include and exclude rules (§2.2.4.1-2.2.4.4) as amber scope rules. amber's rules
// see the canonical URL (spec/scope.md §2.1: lowercase scheme and host, IDN hosts in
// punycode, no default port, no fragment); a regex rule must match the whole of it.

// Pieces of the regular expressions that match a URL by its host.
const (
	reHead = `https?://(?:[^/?#@]*@)?` // scheme and userinfo
	reHost = `[^/?#:@]*`               // any part of a host name
	reTail = `(?::[0-9]+)?/.*`         // port, path, query
)

// errNotExpressible says that a rule has no exact amber equivalent; its text says why.
var errNotExpressible = errors.New("not expressible")

// domainRule is one rule of include_domains or exclude_domains: exact, prefix, suffix or
// regexp, on the host name.
type domainRule struct {
	kind, value string
	label       string  // the rule after its attrib's name, for notes: the value, or FILE:LINE KIND:VALUE
	from        string  // the FAST attrib and label, for Sources
	a           *Attrib // the attrib, for notes (nil in tests)
}

// normHost lowercases a host name (or part of one) and puts its labels in punycode.
func normHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if isASCII(h) {
		return h
	}
	labels := strings.Split(h, ".")
	for i, l := range labels {
		if a, err := idna.ToASCII(l); err == nil {
			labels[i] = a
		}
	}
	return strings.Join(labels, ".")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// regex returns an amber regex that matches exactly the canonical URLs whose host the rule
// matches.
func (r domainRule) regex() (string, error) {
	v := r.value
	switch r.kind {
	case "exact":
		return reHead + regexp.QuoteMeta(normHost(v)) + reTail, nil
	case "prefix":
		return reHead + regexp.QuoteMeta(normHost(v)) + reHost + reTail, nil
	case "suffix":
		return reHead + reHost + regexp.QuoteMeta(normHost(v)) + reTail, nil
	case "regexp":
		h, err := hostRegex(v)
		if err != nil {
			return "", err
		}
		return reHead + "(?:" + h + ")" + reTail, nil
	}
	return "", fmt.Errorf("%w: rule kind %s", errNotExpressible, r.kind)
}

// matches reports whether the rule matches host (canonical: lowercase, punycode), as FAST
// matches it: a regexp may match any part of the host.
func (r domainRule) matches(host string) (bool, error) {
	v := normHost(r.value)
	switch r.kind {
	case "exact":
		return host == v, nil
	case "prefix":
		return strings.HasPrefix(host, v), nil
	case "suffix":
		return strings.HasSuffix(host, v), nil
	case "regexp":
		re, err := regexp.Compile(r.value)
		if err != nil {
			return false, fmt.Errorf("%w: not an RE2 expression (amber's regexes are RE2): %v", errNotExpressible, err)
		}
		return re.MatchString(host), nil
	}
	return false, fmt.Errorf("%w: rule kind %s", errNotExpressible, r.kind)
}

// hostRegex rewrites a FAST host regexp (matched anywhere in the host name, as .NET's
// Regex.IsMatch does) as an expression that matches exactly the host names it matches, to go
// between reHead and reTail: nothing it matches may run into the port or the path, so
// wildcards and classes lose the characters a host never holds, and an anchor must be at the
// start or the end of an alternative (then the match starts or ends with the host).
func hostRegex(expr string) (string, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", fmt.Errorf("%w: not an RE2 expression (amber's regexes are RE2): %v", errNotExpressible, err)
	}
	if strings.ContainsFunc(expr, isPlaceholder) {
		return "", fmt.Errorf("%w: %q holds private-use characters", errNotExpressible, expr)
	}
	alts := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alts = re.Sub
	}
	var parts, classes []string
	for _, a := range alts {
		subs := []*syntax.Regexp{a}
		if a.Op == syntax.OpConcat {
			subs = slices.Clone(a.Sub)
		}
		start, end := false, false
		if len(subs) > 0 && isBeginAnchor(subs[0]) {
			start, subs = true, subs[1:]
		}
		if len(subs) > 0 && isEndAnchor(subs[len(subs)-1]) {
			end, subs = true, subs[:len(subs)-1]
		}
		body := &syntax.Regexp{Op: syntax.OpConcat, Sub: subs, Flags: a.Flags}
		if len(subs) == 0 {
			body = &syntax.Regexp{Op: syntax.OpEmptyMatch}
		}
		if hasAnchor(body) {
			return "", fmt.Errorf("%w: %q has an anchor (^, $) inside an alternative, which amber cannot put on the host of a URL", errNotExpressible, expr)
		}
		body = restrictToHost(body, &classes)
		p := "(?:" + body.String() + ")"
		if !start {
			p = reHost + p
		}
		if !end {
			p += reHost
		}
		parts = append(parts, p)
	}
	if len(classes) > 0xFFFFD-placeholder {
		return "", fmt.Errorf("%w: %q has too many classes and wildcards", errNotExpressible, expr)
	}
	out := strings.Join(parts, "|")
	// Classes are written here: syntax.Regexp.String is slow on large ones (it folds every
	// rune of the class), and a wildcard becomes one.
	for i, cls := range classes {
		ph := (&syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{placeholder + rune(i)}}).String()
		out = strings.ReplaceAll(out, ph, cls)
	}
	return out, nil
}

// placeholder is the first rune restrictToHost stands for a class with (supplementary
// private use area A: no host name holds it).
const placeholder = 0xF0000

func isPlaceholder(r rune) bool { return r >= placeholder && r <= 0xFFFFD }

func isBeginAnchor(r *syntax.Regexp) bool {
	return r.Op == syntax.OpBeginText || r.Op == syntax.OpBeginLine
}

func isEndAnchor(r *syntax.Regexp) bool {
	return r.Op == syntax.OpEndText || r.Op == syntax.OpEndLine
}

func hasAnchor(r *syntax.Regexp) bool {
	if isBeginAnchor(r) || isEndAnchor(r) {
		return true
	}
	for _, s := range r.Sub {
		if hasAnchor(s) {
			return true
		}
	}
	return false
}

// notInHost are the characters that end a host name in a URL.
const notInHost = "/?#:@"

// restrictToHost returns r with every wildcard and class unable to match a character of
// notInHost (each written to classes and replaced by a placeholder rune, placeholder+i), and
// every literal holding one replaced by an expression that matches nothing.
func restrictToHost(r *syntax.Regexp, classes *[]string) *syntax.Regexp {
	out := *r
	out.Sub = nil
	for _, s := range r.Sub {
		out.Sub = append(out.Sub, restrictToHost(s, classes))
	}
	var ranges []rune
	switch r.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		ranges = subtractRunes([]rune{0, utf8.MaxRune}, notInHost+"\n")
	case syntax.OpCharClass:
		ranges = subtractRunes(r.Rune, notInHost)
	case syntax.OpLiteral:
		if strings.ContainsAny(string(r.Rune), notInHost) {
			return &syntax.Regexp{Op: syntax.OpNoMatch}
		}
		return &out
	default:
		return &out
	}
	if len(ranges) == 0 {
		return &syntax.Regexp{Op: syntax.OpNoMatch}
	}
	*classes = append(*classes, classString(ranges))
	return &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{placeholder + rune(len(*classes)-1)}}
}

// classString writes a class of sorted ranges, negated when that is shorter.
func classString(ranges []rune) string {
	var comp []rune
	next := rune(0)
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] > next {
			comp = append(comp, next, ranges[i]-1)
		}
		next = ranges[i+1] + 1
	}
	if next <= utf8.MaxRune {
		comp = append(comp, next, utf8.MaxRune)
	}
	if len(comp) == 0 {
		return `(?s:.)`
	}
	var b strings.Builder
	b.WriteByte('[')
	rs := ranges
	if len(comp) < len(ranges) {
		b.WriteByte('^')
		rs = comp
	}
	for i := 0; i+1 < len(rs); i += 2 {
		lo, hi := rs[i], rs[i+1]
		b.WriteString(classRune(lo))
		if hi == lo+1 {
			b.WriteString(classRune(hi))
		} else if hi > lo {
			b.WriteString("-" + classRune(hi))
		}
	}
	b.WriteByte(']')
	return b.String()
}

// classRune writes one rune of a class.
func classRune(r rune) string {
	switch {
	case r == '\n':
		return `\n`
	case strings.ContainsRune(`\^-[]`, r):
		return `\` + string(r)
	case r > ' ' && r < 0x7f:
		return string(r)
	}
	return fmt.Sprintf(`\x{%x}`, r)
}

// subtractRunes removes the runes of cut from a class's sorted ranges.
func subtractRunes(ranges []rune, cut string) []rune {
	out := slices.Clone(ranges)
	for _, c := range cut {
		var next []rune
		for i := 0; i+1 < len(out); i += 2 {
			lo, hi := out[i], out[i+1]
			if c < lo || c > hi {
				next = append(next, lo, hi)
				continue
			}
			if lo < c {
				next = append(next, lo, c-1)
			}
			if c < hi {
				next = append(next, c+1, hi)
			}
		}
		out = next
	}
	return out
}

// uriRule is one rule of include_uris or exclude_uris: exact, prefix, suffix or regexp, on
// the whole URI.
type uriRule struct {
	kind, value string
	label       string
	from        string
	a           *Attrib
}

// regex returns an amber regex that matches the canonical URLs the rule matches.
func (r uriRule) regex() (string, error) {
	switch r.kind {
	case "exact":
		return regexp.QuoteMeta(canonicalOr(r.value)), nil
	case "prefix":
		return regexp.QuoteMeta(normURIPrefix(r.value)) + ".*", nil
	case "suffix":
		return ".*" + regexp.QuoteMeta(r.value), nil
	case "regexp":
		if _, err := syntax.Parse(r.value, syntax.Perl); err != nil {
			return "", fmt.Errorf("%w: not an RE2 expression (amber's regexes are RE2): %v", errNotExpressible, err)
		}
		return ".*(?:" + r.value + ").*", nil
	}
	return "", fmt.Errorf("%w: rule kind %s", errNotExpressible, r.kind)
}

// host returns the host every URL the rule matches has, when the rule fixes it (an exact
// URI, or a prefix that runs past the host).
func (r uriRule) host() (string, bool) {
	var s string
	switch r.kind {
	case "exact":
		s = canonicalOr(r.value)
	case "prefix":
		s = normURIPrefix(r.value)
		rest, ok := strings.CutPrefix(s, "http://")
		if !ok {
			rest, ok = strings.CutPrefix(s, "https://")
		}
		if !ok || !strings.ContainsAny(rest, "/?#") {
			return "", false
		}
	default:
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	return strings.ToLower(u.Hostname()), true
}

// canonicalOr returns amber's canonical form of a URL, or s when it has none.
func canonicalOr(s string) string {
	c, err := scope.Canonicalize(strings.TrimSpace(s), scope.Standard)
	if err != nil {
		return s
	}
	return c
}

// normURIPrefix lowercases the scheme and host of a URI prefix and drops a default port
// followed by a path, as amber's canonical URLs have them.
func normURIPrefix(p string) string {
	scheme, rest, ok := strings.Cut(p, "://")
	if !ok {
		return p
	}
	scheme = strings.ToLower(scheme)
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	auth, tail := rest[:end], rest[end:]
	user := ""
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		user, auth = auth[:i+1], auth[i+1:]
	}
	auth = strings.ToLower(auth)
	if tail != "" {
		if (scheme == "http" && strings.HasSuffix(auth, ":80")) || (scheme == "https" && strings.HasSuffix(auth, ":443")) {
			auth = auth[:strings.LastIndexByte(auth, ':')]
		}
	}
	return scheme + "://" + user + auth + tail
}

// hostSURTs returns the standard flavour's SURT prefixes (http:// form) that match exactly
// the URLs of host: on the default port, on another port, with userinfo.
func hostSURTs(host string) []string {
	rev := bracketIPv6(host)
	if net.ParseIP(host) == nil {
		labels := strings.Split(host, ".")
		slices.Reverse(labels)
		rev = strings.Join(labels, ",") + ","
	}
	base := "http://(" + rev
	return []string{base + ")", base + ":", base + "@"}
}

// exactHostRegex matches the URLs whose host is host.
func exactHostRegex(host string) string {
	return reHead + regexp.QuoteMeta(bracketIPv6(host)) + reTail
}

// bracketIPv6 writes an IPv6 address as a URL holds it, in brackets.
func bracketIPv6(host string) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		return "[" + host + "]"
	}
	return host
}
