package scope

import (
	"math/bits"
	"net/netip"
	"regexp"
	"strings"
)

// crule is a Rule compiled for one flavour.
type crule struct {
	reason   string   // "block:<rule>" or "accept:<rule>"
	surts    []string // SURT prefixes in the flavour's comparison form (any of them)
	ssurt    string
	re       *regexp.Regexp
	contains string
	host     string
	parent   *regexp.Regexp
	ip       *IPMask // nil: no ip matcher
}

// ruleSet is the compiled, indexed block and accept rules of one level (collection or seed).
// Rule ids: block rules first (0..nBlock-1), then accept rules, each in the order given, so
// that iterating ids in ascending order tries rules in order.
type ruleSet struct {
	rules     []crule
	nBlock    int
	always    []int32 // rules with no indexable matcher: always candidates
	hosts     map[string][]int32
	surt      *rnode // keyed by the comparison-form SURT
	ssurt     *rnode
	ac        *acMatcher
	needSURT  bool
	needSSURT bool
	needAddr  bool // a rule has an ip matcher
}

// compileRules compiles and indexes block and accept rules for flavour f. It returns nil when
// there are no rules.
func compileRules(block, accept []Rule, f Flavour) (*ruleSet, error) {
	if len(block)+len(accept) == 0 {
		return nil, nil
	}
	rs := &ruleSet{nBlock: len(block), hosts: map[string][]int32{}}
	var pats []acPattern
	all := append(append([]Rule(nil), block...), accept...)
	for i, r := range all {
		if err := r.Validate(); err != nil {
			return nil, err
		}
		id := int32(i)
		prefix := ReasonAcceptPrefix
		if i < len(block) {
			prefix = ReasonBlockPrefix
		}
		c := crule{reason: prefix + r.String(), contains: r.Contains}
		if r.SURT != "" {
			c.surts = compileSURTRule(r.SURT, f)
		}
		c.ssurt = r.SSURT
		if r.Host != "" {
			c.host, _ = ruleHost(r.Host) // validated above
		}
		if r.Regex != "" {
			c.re, _ = compileWhole(r.Regex)
		}
		if r.ParentRegex != "" {
			c.parent, _ = compileWhole(r.ParentRegex)
		}
		if r.IP != "" {
			m, _ := ParseIPMask(r.IP) // validated above
			c.ip = &m
			rs.needAddr = true
		}
		rs.rules = append(rs.rules, c)
		// Index the rule under its most selective matcher; the others are checked on match.
		switch {
		case len(c.surts) > 0:
			for _, p := range c.surts {
				rs.surt = insert(rs.surt, p, id)
			}
			rs.needSURT = true
		case c.host != "":
			rs.hosts[c.host] = append(rs.hosts[c.host], id)
		case c.ssurt != "":
			rs.ssurt = insert(rs.ssurt, c.ssurt, id)
			rs.needSSURT = true
		case c.contains != "":
			pats = append(pats, acPattern{c.contains, id})
		case r.Regex != "" && len(requiredLiteral(r.Regex)) >= 3:
			pats = append(pats, acPattern{requiredLiteral(r.Regex), id})
		default:
			rs.always = append(rs.always, id)
		}
		if c.ssurt != "" {
			rs.needSSURT = true
		}
		if len(c.surts) > 0 {
			rs.needSURT = true
		}
	}
	if len(pats) > 0 {
		rs.ac = newACMatcher(pats)
	}
	return rs, nil
}

// compileSURTRule turns the value of a surt matcher into the prefixes candidate SURTs are
// compared with. Standard: lowercased, https:// read as http://, no scheme read as http://.
// Brozzler: scheme lowercased and kept; no scheme matches http and https.
func compileSURTRule(v string, f Flavour) []string {
	if f != Brozzler {
		v = strings.ToLower(v)
		switch {
		case strings.HasPrefix(v, "https://"):
			v = "http://" + v[len("https://"):]
		case strings.HasPrefix(v, "("):
			v = "http://" + v
		}
		return []string{v}
	}
	if strings.HasPrefix(v, "(") {
		return []string{"http://" + v, "https://" + v}
	}
	if i := strings.Index(v, "://"); i > 0 {
		v = strings.ToLower(v[:i]) + v[i:]
	}
	return []string{v}
}

// candidates adds to set the rules that may match t (every rule that matches is added; some
// added ones may not match).
func (rs *ruleSet) candidates(t *target, set *idSet) {
	set.init(len(rs.rules))
	for _, id := range rs.always {
		set.add(id)
	}
	if len(rs.hosts) > 0 {
		h := t.p.host
		if isIPv4(h) || strings.HasPrefix(h, "[") {
			for _, id := range rs.hosts[h] {
				set.add(id)
			}
		} else {
			for {
				for _, id := range rs.hosts[h] {
					set.add(id)
				}
				dot := strings.IndexByte(h, '.')
				if dot < 0 {
					break
				}
				h = h[dot+1:]
			}
		}
	}
	if rs.surt != nil {
		rs.surt.collect(t.surt(), set)
	}
	if rs.ssurt != nil {
		rs.ssurt.collect(t.ssurt(), set)
	}
	if rs.ac != nil {
		rs.ac.scan(t.url, set)
	}
}

// first returns the first rule with an id in [lo, hi) that is in set and matches t.
func (rs *ruleSet) first(t *target, set *idSet, lo, hi int) (*crule, bool) {
	words := set.words()
	for w := lo >> 6; w < len(words) && w<<6 < hi; w++ {
		word := words[w]
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			id := w<<6 + b
			if id < lo || id >= hi {
				continue
			}
			if r := &rs.rules[id]; r.match(t) {
				if r.ip != nil {
					t.byAddr = true
				}
				return r, true
			}
		}
	}
	return nil, false
}

// match reports whether every matcher of r holds for t.
func (r *crule) match(t *target) bool {
	if r.host != "" && !hostMatch(t.p.host, r.host) {
		return false
	}
	if r.contains != "" && !strings.Contains(t.url, r.contains) {
		return false
	}
	if len(r.surts) > 0 {
		s, ok := t.surt(), false
		for _, p := range r.surts {
			if len(s) >= len(p) && string(s[:len(p)]) == p {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if r.ssurt != "" {
		s := t.ssurt()
		if len(s) < len(r.ssurt) || string(s[:len(r.ssurt)]) != r.ssurt {
			return false
		}
	}
	if r.re != nil && !r.re.MatchString(t.url) {
		return false
	}
	if r.parent != nil && !(t.via != "" && r.parent.MatchString(t.via) ||
		t.viaRedirect != "" && r.parent.MatchString(t.viaRedirect)) {
		return false
	}
	if r.ip != nil {
		// Last: the address is only missed when every other matcher held.
		if !t.addr.IsValid() {
			t.addrMissing = true
			return false
		}
		if !r.ip.Contains(t.addr) {
			t.addrFailed = true
			return false
		}
	}
	return true
}

// hostMatch reports whether host is h or a subdomain of h (label boundary).
func hostMatch(host, h string) bool {
	if len(host) == len(h) {
		return host == h
	}
	return len(host) > len(h) && host[len(host)-len(h)-1] == '.' && host[len(host)-len(h):] == h &&
		!isIPv4(host)
}

// target is a candidate URL being decided, with its SURT forms built on first use. It lives on
// Decide's stack: it must never hold a pointer into itself (that would move it to the heap), so
// the SURTs built in its buffers are remembered by length.
type target struct {
	url         string
	p           parts
	via         string
	viaRedirect string
	brozzler    bool
	addr        netip.Addr // Candidate.Addr
	byAddr      bool       // the rule that matched has an ip matcher
	addrMissing bool       // an ip matcher was not tried for want of an address
	addrFailed  bool       // an ip matcher failed on the address (every other matcher held)
	surtLen     int        // -1: not built; else the SURT is buf1[:surtLen] (or surtHeap)
	ssurtLen    int
	surtHeap    []byte // SURTs longer than the buffers
	ssurtHeap   []byte
	buf1        [256]byte
	buf2        [256]byte
}

// surtBound is an upper bound of the length of p's SURT and SSURT.
func surtBound(p *parts) int {
	return len(p.scheme) + len(p.host) + len(p.port) + len(p.user) + len(p.pathq) + 16
}

// surt returns the candidate's SURT in the flavour's comparison form.
func (t *target) surt() []byte {
	if t.surtLen < 0 {
		f := surtForm{forceHTTP: true}
		if t.brozzler {
			f = surtForm{noUser: true, keepCase: true}
		}
		if surtBound(&t.p) <= len(t.buf1) {
			t.surtLen = len(appendSURT(t.buf1[:0], &t.p, f))
		} else {
			t.surtHeap = appendSURT(make([]byte, 0, surtBound(&t.p)), &t.p, f)
			t.surtLen = len(t.surtHeap)
		}
	}
	if t.surtHeap != nil {
		return t.surtHeap
	}
	return t.buf1[:t.surtLen]
}

func (t *target) ssurt() []byte {
	if t.ssurtLen < 0 {
		if surtBound(&t.p) <= len(t.buf2) {
			t.ssurtLen = len(appendSSURT(t.buf2[:0], &t.p))
		} else {
			t.ssurtHeap = appendSSURT(make([]byte, 0, surtBound(&t.p)), &t.p)
			t.ssurtLen = len(t.ssurtHeap)
		}
	}
	if t.ssurtHeap != nil {
		return t.ssurtHeap
	}
	return t.buf2[:t.ssurtLen]
}
