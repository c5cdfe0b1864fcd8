package scope

import "github.com/amber-crawler/amber/hop"

// Rules is a list of rules compiled to be matched on their own, outside a scope decision
// (platform rules, say, which apply once scope has let a URL in): against a canonical URL
// alone, with no via (a parent_regex matcher never holds) and no address (an ip matcher never
// holds). Matching is as in Decide, indexed the same way. It is safe for concurrent use.
type Rules struct {
	rs      *ruleSet // nil when there are no rules
	flavour Flavour
}

// CompileRules compiles rules for matching canonical URLs of flavour f ("" is Standard:
// surt matchers compare in http:// form, as for block rules). Errors wrap ErrRule and name the
// rule; an unknown flavour wraps ErrConfig.
func CompileRules(rules []Rule, f Flavour) (*Rules, error) {
	fl, err := ParseFlavour(string(f))
	if err != nil {
		return nil, err
	}
	rs, err := compileRules(rules, nil, fl)
	if err != nil {
		return nil, err
	}
	return &Rules{rs: rs, flavour: fl}, nil
}

// Len is the number of rules.
func (r *Rules) Len() int {
	if r.rs == nil {
		return 0
	}
	return len(r.rs.rules)
}

// First returns the index of the first rule (in the order given to CompileRules) that
// matches the canonical URL u, or -1 when none does or u does not parse as an absolute URL.
func (r *Rules) First(u string) int {
	if r.rs == nil {
		return -1
	}
	var t target
	t.url = u
	t.surtLen, t.ssurtLen = -1, -1
	t.brozzler = r.flavour == Brozzler
	p, ok := split(u)
	if !ok {
		return -1
	}
	t.p = p
	var set idSet
	r.rs.candidates(&t, &set)
	c, ok := r.rs.first(&t, &set, 0, len(r.rs.rules))
	if !ok {
		return -1
	}
	for i := range r.rs.rules {
		if &r.rs.rules[i] == c {
			return i
		}
	}
	return -1
}

// Embed reports whether a URL with the hop path hops is an embed of the page it was found on
// (what the page needs to show), as the flavour f takes embeds: Standard, the transclusion
// rule of spec/scope.md §4.1 step 5 (E, LE, LEE, LX, LR, LRE, ...); Brozzler, a last hop E, R
// or I (§4.2: not an outlink); Elastic, a last hop E. A seed ("") is not one.
func Embed(f Flavour, hops string) bool {
	if hops == "" {
		return false
	}
	switch last := hops[len(hops)-1]; f {
	case Brozzler:
		return last == hop.Embed || last == hop.Redirect || last == hop.Inferred
	case Elastic:
		return last == hop.Embed
	}
	return transcluded(hops)
}
