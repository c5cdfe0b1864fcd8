package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/crawlrule"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/scope"
)

// DomainSpec is one domain of the elastic scope flavour: an origin (scheme, host, port) with
// its ordered crawl rules and its sitemap files.
type DomainSpec struct {
	URL         string          `yaml:"url"`
	CrawlRules  []CrawlRuleSpec `yaml:"crawl_rules,omitempty"`
	SitemapURLs []string        `yaml:"sitemap_urls,omitempty"`
}

// CrawlRuleSpec is an Elastic crawl rule. In amber's YAML it is written as a map (policy,
// type, pattern) or as one string, "deny begins /blog" (policy, type, then the pattern, which
// is the rest of the string and may contain spaces).
type CrawlRuleSpec struct {
	Policy  string `yaml:"policy"`
	Type    string `yaml:"type"`
	Pattern string `yaml:"pattern"`
}

// ParseCrawlRule reads the string form of a crawl rule, "POLICY TYPE PATTERN", and checks it
// as crawlrule.Parse does (policy and type in any case, stored lowercase; a pattern, which for
// regex must be one Go's RE2 accepts). Errors wrap ErrConfig and crawlrule.ErrRule.
func ParseCrawlRule(s string) (CrawlRuleSpec, error) {
	r, err := crawlrule.Parse(s)
	if err != nil {
		return CrawlRuleSpec{}, fmt.Errorf("%w: crawl rule: %w", ErrConfig, err)
	}
	return CrawlRuleSpec{Policy: string(r.Policy), Type: string(r.Type), Pattern: r.Pattern}, nil
}

// Rule compiles the rule. Errors wrap crawlrule.ErrRule.
func (r CrawlRuleSpec) Rule() (*crawlrule.Rule, error) {
	return crawlrule.Compile(r.Policy, r.Type, r.Pattern)
}

// Domain is the domain as the scope takes it: its URL and its crawl rules compiled. Errors wrap
// ErrConfig and crawlrule.ErrRule and name the domain and the rule's place (from 1). The URL
// itself is checked by scope.New.
func (d DomainSpec) Domain() (scope.Domain, error) {
	sd := scope.Domain{URL: d.URL}
	for i, rs := range d.CrawlRules {
		r, err := rs.Rule()
		if err != nil {
			return sd, fmt.Errorf("%w: domain %s: crawl rule %d: %w", ErrConfig, d.URL, i+1, err)
		}
		sd.Rules = append(sd.Rules, r)
	}
	return sd, nil
}

// DomainsScope compiles the domains of the elastic flavour for scope.Config.Domains, in order.
func DomainsScope(ds []DomainSpec) ([]scope.Domain, error) {
	var out []scope.Domain
	for _, d := range ds {
		sd, err := d.Domain()
		if err != nil {
			return nil, err
		}
		out = append(out, sd)
	}
	return out, nil
}

// String is the string form ParseCrawlRule reads.
func (r CrawlRuleSpec) String() string { return r.Policy + " " + r.Type + " " + r.Pattern }

// UnmarshalYAML accepts the string form as well as the map form.
func (r *CrawlRuleSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		v, err := ParseCrawlRule(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		*r = v
		return nil
	}
	type plain CrawlRuleSpec
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = CrawlRuleSpec(p)
	return nil
}

// MarshalYAML writes the string form, which reads back the same.
func (r CrawlRuleSpec) MarshalYAML() (any, error) { return r.String(), nil }

// ExtractionRulesetSpec is an extraction ruleset of one domain's pages: Elastic's
// extraction_rulesets entry with the domain it belongs to.
type ExtractionRulesetSpec struct {
	Domain     string               `yaml:"domain"`
	URLFilters []URLFilterSpec      `yaml:"url_filters,omitempty"`
	Rules      []ExtractionRuleSpec `yaml:"rules"`
}

// URLFilterSpec is one of an extraction ruleset's url_filters: the pages it applies to.
type URLFilterSpec struct {
	Type    string `yaml:"type"`
	Pattern string `yaml:"pattern"`
}

// ExtractionRuleSpec is an extraction rule of a ruleset (extract.ExtractionRule).
type ExtractionRuleSpec struct {
	Action    string `yaml:"action"`
	FieldName string `yaml:"field_name"`
	Selector  string `yaml:"selector,omitempty"`
	JoinAs    string `yaml:"join_as,omitempty"`
	Value     string `yaml:"value,omitempty"`
	Source    string `yaml:"source,omitempty"`
}

// Rulesets compiles the extraction rulesets (nil when there are none), for
// extract.DocConfig.Rulesets. Errors name the ruleset by its place in
// documents.extraction_rulesets, then the rule and its field_name.
func (d Documents) Rulesets() (*extract.Rulesets, error) {
	if len(d.ExtractionRulesets) == 0 {
		return nil, nil
	}
	rs := make([]extract.Ruleset, 0, len(d.ExtractionRulesets))
	for _, spec := range d.ExtractionRulesets {
		r := extract.Ruleset{Domain: spec.Domain}
		for _, f := range spec.URLFilters {
			r.URLFilters = append(r.URLFilters, extract.URLFilter{Type: f.Type, Pattern: f.Pattern})
		}
		for _, x := range spec.Rules {
			r.Rules = append(r.Rules, extract.ExtractionRule{Action: x.Action, FieldName: x.FieldName,
				Selector: x.Selector, JoinAs: x.JoinAs, Value: x.Value, Source: x.Source})
		}
		rs = append(rs, r)
	}
	out, err := extract.CompileRulesets(rs)
	if err != nil {
		return nil, fmt.Errorf("%w: documents.extraction_rulesets: %w", ErrConfig, err)
	}
	return out, nil
}

// SeedOrigins lists the origins of the seeds, each once, in seed order: the domains of an
// elastic crawl given no domains.
func (c *File) SeedOrigins() ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, s := range c.Seeds {
		cu, err := scope.Canonicalize(s.URL, scope.Elastic)
		if err != nil {
			return nil, fmt.Errorf("%w: seed %s: %w", ErrConfig, s.URL, err)
		}
		if o := scope.Origin(cu); !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out, nil
}
