package config

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/platform"
)

// PlatformRulesAll is the key of PlatformRules that switches every platform rule.
const PlatformRulesAll = "all"

// PlatformRules is scope.platform_rules: which of the built-in platform rules (package
// platform) are on. Written `false` (every rule off), `true`, or a map whose keys are "all",
// a platform's name ("wordpress") or a rule's id ("mediawiki/history"), each true or false;
// a rule is what its id says, else its platform, else "all", else on. Build writes every
// rule's id with its value into the map (crawl.yaml lists them), the keys given kept.
type PlatformRules map[string]bool

// UnmarshalYAML reads `true`, `false` or a map of keys to booleans.
func (p *PlatformRules) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var on bool
		if err := n.Decode(&on); err != nil {
			return fmt.Errorf("line %d: scope.platform_rules: want true, false or a map of rules to true or false", n.Line)
		}
		*p = PlatformRules{PlatformRulesAll: on}
		return nil
	}
	var m map[string]bool
	if err := n.Decode(&m); err != nil {
		return fmt.Errorf("line %d: scope.platform_rules: want true, false or a map of rules to true or false: %v", n.Line, err)
	}
	*p = m
	return nil
}

// on reports whether the rule id of platform name is on.
func (p PlatformRules) on(name, id string) bool {
	for _, k := range []string{id, name, PlatformRulesAll} {
		if v, ok := p[k]; ok {
			return v
		}
	}
	return true
}

// fill adds every rule of ps with its value; a key that is neither "all", a platform nor a
// rule is an error.
func (p *PlatformRules) fill(ps []platform.Platform) error {
	known := map[string]bool{PlatformRulesAll: true}
	for _, pl := range ps {
		known[pl.Name] = true
		for _, r := range pl.Rules {
			known[r.ID] = true
		}
	}
	var unknown []string
	for k := range *p {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%w: scope.platform_rules: %s: not a platform rule (all, a platform: %s; or a rule id, PLATFORM/NAME, as crawl.yaml lists them)",
			ErrConfig, strings.Join(unknown, ", "), strings.Join(platform.Names(ps), ", "))
	}
	filled := PlatformRules{}
	for k, v := range *p {
		filled[k] = v
	}
	for _, pl := range ps {
		for _, r := range pl.Rules {
			filled[r.ID] = p.on(pl.Name, r.ID)
		}
	}
	*p = filled
	return nil
}

// settlePlatformRules fills scope.platform_rules with every built-in rule (settle).
func (f *File) settlePlatformRules() error {
	ps, err := platform.Builtin()
	if err != nil {
		return err
	}
	return f.Scope.PlatformRules.fill(ps)
}

// platformRules sets the crawl's platform rules: the rules that are off, or all of them
// (scope.platform_rules as settle filled it).
func (f *File) platformRules(c *crawl.Config) error {
	ps, err := platform.Builtin()
	if err != nil {
		return err
	}
	pr := f.Scope.PlatformRules
	c.Platforms = platform.Config{Off: true}
	for _, pl := range ps {
		for _, r := range pl.Rules {
			if pr.on(pl.Name, r.ID) {
				c.Platforms.Off = false
			} else {
				c.Platforms.RulesOff = append(c.Platforms.RulesOff, r.ID)
			}
		}
	}
	if c.Platforms.Off {
		c.Platforms.RulesOff = nil
	}
	return nil
}
