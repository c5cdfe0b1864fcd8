package scope

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
)

// Matcher kinds, as written in "kind:value" rules and as keys of rule maps.
const (
	KindSURT        = "surt"
	KindSSURT       = "ssurt"
	KindRegex       = "regex"
	KindContains    = "contains"
	KindHost        = "host"
	KindParentRegex = "parent_regex"
)

// kinds lists the matcher kinds in the fixed order Rule.String uses.
var kinds = [...]string{KindSURT, KindSSURT, KindRegex, KindContains, KindHost, KindParentRegex, KindIP}

// Rule is one accept or block rule (spec/scope.md §1). Each non-empty field is a matcher and a
// URL matches the rule when all of its matchers hold:
//
//   - SURT: the URL's scope SURT starts with it. Standard flavour: compared lowercased and in
//     http:// form ("https://(" is read as "http://("). Brozzler flavour: compared with the
//     scheme kept, without userinfo, case kept. A value starting with "(" has no scheme and
//     matches both http and https.
//   - SSURT: the URL's SSURT (§2.3) starts with it.
//   - Regex: matches the whole canonical URL (RE2, anchored at both ends).
//   - Contains: is a substring of the canonical URL.
//   - Host: the URL's host is it or ends with "." + it (lowercase, IDN in punycode).
//   - ParentRegex: matches the whole via URL or the via's final redirect URL.
//   - IP: an address mask (ParseIPMask) that holds the address of the URL's host
//     (Candidate.Addr); without an address it does not hold.
//
// Rule is plain data (comparable with ==); New validates and compiles it.
type Rule struct {
	SURT        string `json:"surt,omitempty" yaml:"surt,omitempty"`
	SSURT       string `json:"ssurt,omitempty" yaml:"ssurt,omitempty"`
	Regex       string `json:"regex,omitempty" yaml:"regex,omitempty"`
	Contains    string `json:"contains,omitempty" yaml:"contains,omitempty"`
	Host        string `json:"host,omitempty" yaml:"host,omitempty"`
	ParentRegex string `json:"parent_regex,omitempty" yaml:"parent_regex,omitempty"`
	IP          string `json:"ip,omitempty" yaml:"ip,omitempty"`
}

// ParseRule parses a rule written "kind:value" (kinds: surt, ssurt, regex, contains, host,
// parent_regex, ip; the kind is case-insensitive, space around kind and value is ignored), e.g.
// "surt:http://(org,archive," or "host:example.com" or "ip:207.46.197.0/24". Errors wrap ErrRule
// and name the rule: an unknown kind, an empty value, an invalid regex, a surt without "(", an
// invalid host or address mask.
func ParseRule(s string) (Rule, error) {
	kind, value, ok := strings.Cut(s, ":")
	if !ok {
		return Rule{}, fmt.Errorf("%w: %q: want kind:value", ErrRule, s)
	}
	var r Rule
	if err := r.set(strings.ToLower(strings.TrimSpace(kind)), strings.TrimSpace(value)); err != nil {
		return Rule{}, fmt.Errorf("%w: %q: %v", ErrRule, s, err)
	}
	return r, nil
}

// RuleFromMap builds a rule from a map of kind to value, as written in YAML
// ({contains: /login, host: example.com}); all matchers must hold. Errors wrap ErrRule: an empty
// map, an unknown kind, or an invalid value (as for ParseRule).
func RuleFromMap(m map[string]string) (Rule, error) {
	if len(m) == 0 {
		return Rule{}, fmt.Errorf("%w: empty rule", ErrRule)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var r Rule
	for _, k := range keys {
		if err := r.set(strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(m[k])); err != nil {
			return Rule{}, fmt.Errorf("%w: %s:%s: %v", ErrRule, k, m[k], err)
		}
	}
	return r, nil
}

// set validates and stores one matcher.
func (r *Rule) set(kind, value string) error {
	if value == "" {
		return fmt.Errorf("empty %s value", kind)
	}
	var field *string
	switch kind {
	case KindSURT:
		field = &r.SURT
	case KindSSURT:
		field = &r.SSURT
	case KindRegex:
		field = &r.Regex
	case KindContains:
		field = &r.Contains
	case KindHost:
		field = &r.Host
	case KindParentRegex:
		field = &r.ParentRegex
	case KindIP:
		field = &r.IP
	default:
		return fmt.Errorf("unknown kind %q (want surt, ssurt, regex, contains, host, parent_regex or ip)", kind)
	}
	if *field != "" {
		return fmt.Errorf("duplicate %s matcher", kind)
	}
	if err := checkMatcher(kind, value); err != nil {
		return err
	}
	*field = value
	return nil
}

func checkMatcher(kind, value string) error {
	switch kind {
	case KindSURT:
		if strings.IndexByte(value, '(') < 0 {
			return fmt.Errorf("surt %q has no \"(\" (write it like http://(org,example,)", value)
		}
	case KindRegex, KindParentRegex:
		if _, err := compileWhole(value); err != nil {
			return err
		}
	case KindHost:
		if _, err := ruleHost(value); err != nil {
			return err
		}
	case KindIP:
		if _, err := parseIPMask(strings.TrimSpace(value)); err != nil {
			return fmt.Errorf("%w: %v", errIPMask, err)
		}
	}
	return nil
}

// matchers returns the rule's non-empty matchers in the fixed kind order.
func (r Rule) matchers() [][2]string {
	vals := [...]string{r.SURT, r.SSURT, r.Regex, r.Contains, r.Host, r.ParentRegex, r.IP}
	var out [][2]string
	for i, v := range vals {
		if v != "" {
			out = append(out, [2]string{kinds[i], v})
		}
	}
	return out
}

// String renders the rule as reasons name it: "kind:value" for each matcher, joined with a
// space in the order surt, ssurt, regex, contains, host, parent_regex, ip, e.g.
// "contains:/login host:example.com".
func (r Rule) String() string {
	var b strings.Builder
	for i, m := range r.matchers() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m[0])
		b.WriteByte(':')
		b.WriteString(m[1])
	}
	return b.String()
}

// Validate reports whether the rule has at least one matcher and every matcher is valid; the
// error wraps ErrRule.
func (r Rule) Validate() error {
	ms := r.matchers()
	if len(ms) == 0 {
		return fmt.Errorf("%w: rule has no matcher", ErrRule)
	}
	for _, m := range ms {
		if err := checkMatcher(m[0], m[1]); err != nil {
			return fmt.Errorf("%w: %q: %v", ErrRule, r.String(), err)
		}
	}
	return nil
}

// compileWhole compiles an RE2 expression that must match a whole string.
func compileWhole(expr string) (*regexp.Regexp, error) {
	if _, err := syntax.Parse(expr, syntax.Perl); err != nil {
		return nil, fmt.Errorf("invalid regex: %v", err)
	}
	re, err := regexp.Compile(`^(?:` + expr + `)$`)
	if err != nil {
		return nil, fmt.Errorf("invalid regex: %v", err)
	}
	return re, nil
}

// ruleHost normalises the value of a host matcher: lowercase, punycode, no trailing dot, no
// leading "." (".example.com" means the same as "example.com").
func ruleHost(v string) (string, error) {
	h := strings.TrimLeft(strings.TrimSpace(v), ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return "", fmt.Errorf("empty host")
	}
	return canonicalHost(h)
}

// requiredLiteral returns the longest case-sensitive literal that every match of the RE2
// expression must contain ("" when there is none worth using). It is a prefilter only.
func requiredLiteral(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	best := ""
	var walk func(*syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase == 0 {
				if s := string(re.Rune); len(s) > len(best) {
					best = s
				}
			}
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				walk(sub)
			}
		case syntax.OpCapture, syntax.OpPlus:
			walk(re.Sub[0])
		case syntax.OpRepeat:
			if re.Min >= 1 {
				walk(re.Sub[0])
			}
		}
	}
	walk(re)
	return best
}
