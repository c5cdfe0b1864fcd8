package fast

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/config"
)

// maxLevels is the most levels amber's frontier has (frontier.MaxLevels, which this package does
// not import: it would bring badger in).
const maxLevels = 1024

// whyOneLevel says what workqueue_priority's attribs do with one level.
const whyOneLevel = "one level (levels left out or 1): priority levels change nothing, as in FAST"

// priority maps the workqueue_priority section (§2.2.4.15-16) onto politeness.priority:
// levels, default, start_uri_pri (seeds), pop_scheme (pick: default and wrr are wrr), and the
// level sections: their share (shares) and, with put_scheme include, their include_domains
// and include_uris (one rule per level section, in file order, that takes a URL one of them
// matches). As §2.2.4.16 says, the level sections are used only with pop_scheme wrr or pri.
// One level (levels left out or 1) changes nothing.
func (c *conv) priority() {
	s := c.secs["workqueue_priority"]
	if s == nil {
		return
	}
	n := int64(1)
	if a := c.sec("workqueue_priority", "levels"); a != nil {
		if a.Int < 1 || a.Int > maxLevels {
			c.invalid(a, "levels %d: want 1 to %d", a.Int, maxLevels)
			return
		}
		n = a.Int
	}
	if n <= 1 {
		if len(s.Sections) > 0 {
			c.items = append(c.items, item{status: noteCaution, what: "workqueue_priority", line: s.Line, path: s.Path,
				why: "one level: its level sections change nothing (as in FAST)"})
		}
		c.sameAll(s, whyOneLevel)
		return
	}
	p := &config.Priority{Levels: int(n)}
	c.src("politeness.priority.levels", "workqueue_priority/levels")
	c.mapped(c.sec("workqueue_priority", "levels"), "politeness.priority.levels")
	level := func(name string, field *int, key string) {
		a := c.sec("workqueue_priority", name)
		if a == nil {
			return // FAST's default 1 is amber's
		}
		if a.Int < 1 || a.Int > n {
			c.invalid(a, "%s %d: want a level from 1 to %d", name, a.Int, n)
			return
		}
		*field = int(a.Int)
		c.src(key, "workqueue_priority/"+name)
		c.mapped(a, key)
	}
	level("default", &p.Default, "politeness.priority.default")
	level("start_uri_pri", &p.Seeds, "politeness.priority.seeds")
	p.Pick = "wrr"
	if a := c.sec("workqueue_priority", "pop_scheme"); a != nil {
		c.rec(a)
		switch v := strings.ToLower(strings.TrimSpace(a.Text)); v {
		case "default", "wrr":
		case "rr", "pri":
			p.Pick = v
		default:
			c.invalid(a, "pop_scheme %q: want default, wrr, rr or pri", a.Text)
			return
		}
		c.src("politeness.priority.pick", "workqueue_priority/pop_scheme")
		c.mapped(a, "politeness.priority.pick")
	} else {
		c.src("politeness.priority.pick", fastDefault("workqueue_priority/pop_scheme", "default"))
	}
	include := false
	putScheme := c.sec("workqueue_priority", "put_scheme")
	if a := putScheme; a != nil {
		c.rec(a)
		switch strings.ToLower(strings.TrimSpace(a.Text)) {
		case "default":
			c.same(a, "every URL but the seeds is at the default level (no level rules)")
		case "include":
			include = true
		default:
			c.invalid(a, "put_scheme %q: want default or include", a.Text)
			return
		}
	}
	c.mapped(s, "politeness.priority")
	for _, x := range s.Sections {
		c.priorityLevel(p, x, n, include)
	}
	if include {
		if len(p.Rules) > 0 {
			c.mapped(putScheme, "politeness.priority.rules")
		} else {
			c.same(putScheme, "no level section has include rules amber uses: every URL but the seeds is at the default level")
		}
	}
	c.c.Politeness.Priority = p
}

// priorityShares maps the share of level section x (level l) into p: used with wrr.
func (c *conv) priorityShares(p *config.Priority, x *Section, l int64, used bool) {
	for _, a := range x.Attribs {
		if a.Name != "share" {
			continue // the account reports it
		}
		if a.Int < 1 {
			c.invalid(a, "share %d: want 1 or more", a.Int)
			continue
		}
		if used && p.Pick == "wrr" {
			if p.Shares == nil {
				p.Shares = map[int]int{}
			}
			p.Shares[int(l)] = int(a.Int)
			key := fmt.Sprintf("politeness.priority.shares.%d", l)
			c.src(key, c.short[a])
			c.mapped(a, key)
			c.mapped(x, key)
		} else {
			c.same(a, fmt.Sprintf("pop_scheme %s: shares are not used (as in FAST)", p.Pick))
		}
	}
}

// priorityLevel maps one level section: its share, and its rules when include.
func (c *conv) priorityLevel(p *config.Priority, x *Section, n int64, include bool) {
	c.rec(x)
	l, err := strconv.ParseInt(x.Name, 10, 64)
	if err != nil || l < 1 || l > n {
		c.errs = append(c.errs, &Error{File: c.d.File, Line: x.Line, Path: x.Path, Err: ErrInvalid,
			Msg: fmt.Sprintf("level section %q: want a level from 1 to %d", x.Name, n)})
		return
	}
	used := p.Pick != "rr" // §2.2.4.16: level sections are used with wrr and pri
	c.priorityShares(p, x, l, used)
	rule := config.PriorityRule{Level: int(l)}
	key := fmt.Sprintf("politeness.priority.rules[%d]", len(p.Rules))
	for _, r := range x.Sections {
		if r.Name != "include_domains" && r.Name != "include_uris" {
			continue // the account reports it
		}
		c.rec(r)
		node := schema.section(r.Name).node
		for _, a := range r.Attribs {
			kind := node.attrib(a.Name)
			if kind == nil || a.Type != ListString {
				continue // the account reports it
			}
			if !include || !used {
				c.rec(a)
				why := "put_scheme is not include: the level's rules are not used (as in FAST)"
				if !used {
					why = "pop_scheme rr: the level sections are not used (§2.2.4.16)"
				}
				c.items = append(c.items, item{status: noteCaution, what: c.short[a], line: a.Line, path: a.Path, why: why})
				continue
			}
			var drs []domainRule
			if kind.Name == "file" {
				drs = c.fileRules(r.Name, a)
			} else {
				for _, m := range a.Members {
					drs = append(drs, domainRule{kind: kind.Name, value: m, label: m, from: c.short[a] + " " + m, a: a})
				}
			}
			c.mapped(a, key+".match")
			for _, dr := range drs {
				var re string
				var err error
				switch {
				case isIPRule(dr):
					c.items = append(c.items, item{status: string(Unsupported), what: c.short[dr.a] + " " + dr.label, line: dr.a.Line, path: dr.a.Path, strict: true,
						why: "a priority level's rules are matched on the URL alone: an address mask in them is not supported yet"})
					continue
				case r.Name == "include_uris":
					re, err = uriRule(dr).regex()
				default:
					re, err = dr.regex()
				}
				if err != nil {
					c.ruleNote(dr.a, dr.label, err)
					continue
				}
				c.src(fmt.Sprintf("%s.match[%d]", key, len(rule.Match)), dr.from)
				rule.Match = append(rule.Match, regexRule(re))
			}
		}
	}
	if len(rule.Match) > 0 {
		c.src(key+".level", "workqueue_priority/"+x.Name)
		p.Rules = append(p.Rules, rule)
		c.mapped(x, key)
	}
	for _, r := range x.Sections {
		if (r.Name == "include_domains" || r.Name == "include_uris") && len(c.rec(r).keys) == 0 {
			if len(rule.Match) > 0 {
				c.mapped(r, key+".match")
			} else {
				c.same(r, "its rules are not used (see its attribs)")
			}
		}
	}
	if len(c.rec(x).keys) == 0 {
		c.same(x, "nothing of it is used (see what it holds)")
	}
}
