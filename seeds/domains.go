package seeds

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
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

// ParseCrawlRule reads the string form of a crawl rule, "POLICY TYPE PATTERN".
func ParseCrawlRule(s string) (CrawlRuleSpec, error) {
	f := strings.Fields(s)
	if len(f) < 3 {
		return CrawlRuleSpec{}, fmt.Errorf("%w: crawl rule %q: want POLICY TYPE PATTERN (e.g. deny begins /blog)", ErrConfig, s)
	}
	rest := strings.TrimSpace(s)
	for range 2 {
		rest = strings.TrimSpace(rest[strings.IndexAny(rest, " \t"):])
	}
	r := CrawlRuleSpec{Policy: strings.ToLower(f[0]), Type: strings.ToLower(f[1]), Pattern: rest}
	if r.Policy != "allow" && r.Policy != "deny" {
		return r, fmt.Errorf("%w: crawl rule %q: policy %q: want allow or deny", ErrConfig, s, f[0])
	}
	if !validRuleType(r.Type) {
		return r, fmt.Errorf("%w: crawl rule %q: type %q: want begins, ends, contains or regex", ErrConfig, s, f[1])
	}
	return r, nil
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
	Domain     string             `yaml:"domain"`
	URLFilters []ElasticURLFilter `yaml:"url_filters,omitempty"`
	Rules      []ElasticRule      `yaml:"rules"`
}
