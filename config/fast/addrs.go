package fast

import (
	"fmt"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/rewrite"
	"github.com/amber-crawler/amber/scope"
)

// FAST's address attribs: the ipmask and ip6mask rules of include_domains and
// exclude_domains (§2.2.4.1; amber's scope rule kind ip, decided with the address the URL's
// host resolves to and checked again on the connection), enforce_delay_per_ip
// (politeness.per_ip) and mirror_site_files (urls.mirrors) (§2.2.3).

// isIPRule reports whether a host rule is an address mask (ipmask, ip6mask).
func isIPRule(r domainRule) bool { return r.kind == "ipmask" || r.kind == "ip6mask" }

// ipRuleSpec is the amber rule of an address mask rule.
func ipRuleSpec(r domainRule) config.RuleSpec {
	return config.RuleSpec{Text: scope.KindIP + ":" + r.value}
}

// checkIPRules returns drs without the address mask rules that are malformed or of the other
// family (an ipmask holds IPv4 masks, an ip6mask IPv6 ones), each an invalid attrib.
func (c *conv) checkIPRules(drs []domainRule) []domainRule {
	out := drs[:0:0]
	for _, r := range drs {
		if isIPRule(r) {
			if err := checkMask(r); err != nil {
				if r.a == nil {
					c.errs = append(c.errs, fmt.Errorf("fast: %s %s: %v", r.kind, r.label, err))
				} else {
					c.invalid(r.a, "%s %s: %v", c.short[r.a], r.label, err)
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

func checkMask(r domainRule) error {
	m, err := scope.ParseIPMask(r.value)
	if err != nil {
		return err
	}
	if m.Is6() != (r.kind == "ip6mask") {
		if r.kind == "ipmask" {
			return fmt.Errorf("%q is an IPv6 mask: write it in ip6mask", r.value)
		}
		return fmt.Errorf("%q is an IPv4 mask: write it in ipmask", r.value)
	}
	return nil
}

// addrs maps enforce_delay_per_ip (FAST's default yes: politeness.per_ip: true, unless the
// file says no or sets a proxy, through which amber does not know the addresses) and
// mirror_site_files (read when the file is converted, relative to the XML file's directory,
// into urls.mirrors).
func (c *conv) addrs() {
	a := c.top["enforce_delay_per_ip"]
	const whyProxy = "with a proxy amber does not know the addresses of the hosts: requests are spaced by host name only (politeness.per_ip left out)"
	switch {
	case !boolOr(a, true):
		c.same(a, "amber spaces requests by host name (politeness.per_ip off, its default)")
	case c.top["proxy"] != nil && a != nil:
		c.note(noteDiffers, whyProxy, a)
	case c.top["proxy"] != nil:
		p := c.top["proxy"]
		c.items = append(c.items, item{status: noteCaution, what: "enforce_delay_per_ip", line: p.Line, path: p.Path, why: whyProxy})
	default:
		c.c.Politeness.PerIP = true
		if a != nil {
			c.src("politeness.per_ip", "enforce_delay_per_ip")
			c.mapped(a, "politeness.per_ip")
			c.differs(a)
		} else {
			c.src("politeness.per_ip", fastDefault("enforce_delay_per_ip", "yes"))
		}
	}
	m := c.top["mirror_site_files"]
	if m == nil {
		return
	}
	c.rec(m)
	var groups [][]string
	for _, name := range m.Members {
		gs, err := c.readMirrorFile(name)
		if err != nil {
			c.invalid(m, "mirror_site_files: %v", err)
			return
		}
		groups = append(groups, gs...)
	}
	if _, err := rewrite.Mirrors(groups); err != nil {
		c.invalid(m, "mirror_site_files: %v", err)
		return
	}
	if len(groups) > 0 {
		c.c.URLs.Mirrors = groups
		c.src("urls.mirrors", "mirror_site_files")
		c.mapped(m, "urls.mirrors")
		c.differs(m)
	} else {
		c.same(m, "no mirror listed: amber takes every host as it is")
	}
}

// readMirrorFile reads a mirror site file (rewrite.ParseMirrors), relative to opts.BaseDir,
// of at most maxRuleFileBytes.
func (c *conv) readMirrorFile(name string) ([][]string, error) {
	p, data, err := c.readListFile(name)
	if err != nil {
		return nil, err
	}
	gs, err := rewrite.ParseMirrors(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return gs, nil
}

// ipHostRules are the accept rules of an address mask, with an exact host and a URI rule's
// regex when given: all must hold.
func ipHostRules(mask *domainRule, exact, re string) []config.RuleSpec {
	switch {
	case exact == "" && re == "":
		return []config.RuleSpec{ipRuleSpec(*mask)}
	case re == "":
		return []config.RuleSpec{{Map: map[string]string{scope.KindIP: mask.value, scope.KindRegex: exactHostRegex(exact)}}}
	case exact == "":
		return []config.RuleSpec{{Map: map[string]string{scope.KindIP: mask.value, scope.KindRegex: re}}}
	}
	var out []config.RuleSpec
	for _, surt := range hostSURTs(exact) {
		out = append(out, config.RuleSpec{Map: map[string]string{scope.KindIP: mask.value, scope.KindSURT: surt, scope.KindRegex: re}})
	}
	return out
}
