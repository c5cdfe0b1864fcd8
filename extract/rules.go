package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/amber-crawler/amber/crawlrule"
	"github.com/amber-crawler/amber/weburl"
)

// Values of ExtractionRule's fields.
const (
	ActionExtract = "extract" // take the text (html) or the captures (url) of the matches
	ActionSet     = "set"     // write Value when the selector or regex matches

	JoinArray  = "array"  // one value per match (the default)
	JoinString = "string" // the matches joined with a space into one value

	SourceHTML = "html" // Selector is a CSS selector applied to the page's HTML (the default)
	SourceURL  = "url"  // Selector is a regular expression applied to the page's URL
)

// ErrRule is returned (wrapped, with the ruleset, the rule and the cause) by CompileRulesets
// for a ruleset or rule that cannot be applied as written.
var ErrRule = errors.New("extract: invalid extraction rule")

// Ruleset is one extraction ruleset of Elastic's open web crawler
// (domains[].extraction_rulesets[]): rules that add custom fields to the documents of the
// pages of Domain that one of URLFilters matches.
type Ruleset struct {
	// Domain is the origin whose pages the ruleset applies to, such as
	// "https://example.com" (scheme, host and port; no path).
	Domain string
	// URLFilters select the pages of Domain the ruleset applies to: any one that matches
	// the page's path and query is enough. None: every page of Domain.
	URLFilters []URLFilter
	// Rules are applied in order; a later rule writing a field an earlier one wrote
	// replaces its value.
	Rules []ExtractionRule
}

// URLFilter is a url_filters entry: Type is begins, ends, contains or regex, matched
// against the page's path and query as a crawl rule is (package crawlrule).
type URLFilter struct {
	Type    string
	Pattern string
}

// ExtractionRule is one rule of a ruleset (domains[].extraction_rulesets[].rules[]).
type ExtractionRule struct {
	// Action is ActionExtract or ActionSet.
	Action string
	// FieldName names the custom field written. It is trimmed and lower-cased, and must then
	// be a valid custom field name that is not a schema field (see Document and
	// IsReservedField), as for data-elastic-name.
	FieldName string
	// Selector is, for SourceHTML, a CSS selector (XPath is refused) and, for SourceURL, a
	// regular expression in Go's RE2 syntax (Ruby-only syntax, such as lookaround and
	// backreferences, is refused), unanchored.
	Selector string
	// JoinAs is JoinArray (the default when empty) or JoinString; ActionExtract only.
	JoinAs string
	// Value is the value ActionSet writes; it must not be empty. ActionExtract ignores it.
	Value string
	// Source is SourceHTML (the default when empty) or SourceURL.
	Source string
}

// Rulesets is a compiled list of Rulesets, ready to apply to pages. A nil *Rulesets has no
// rules. It is safe for concurrent use.
type Rulesets struct {
	byOrigin map[string][]compiledRuleset
}

type compiledRuleset struct {
	filters []*crawlrule.Rule // none: every page
	rules   []compiledRule
	html    bool // a rule has SourceHTML
}

type compiledRule struct {
	field string
	set   bool   // ActionSet
	value string // ActionSet
	join  bool   // JoinString
	css   cascadia.SelectorGroup
	re    *regexp.Regexp // SourceURL
}

// CompileRulesets checks every ruleset and rule and compiles them: the domain must be an
// http or https origin; url filters must compile as crawl rules; the action, join_as and
// source must be known values (empty join_as and source take the defaults); field_name must
// be a valid custom field name that is not reserved; an html selector must be a CSS selector
// (one that starts with "/" or "./" or contains "::" is XPath, refused); a url selector
// must compile as an RE2 regular expression; set needs a non-empty value. Errors wrap
// ErrRule and name the ruleset (1-based position in rs, and its domain), the url filter or
// rule (1-based position in its ruleset) and the rule's field_name. An empty rs gives a
// Rulesets without rules.
func CompileRulesets(rs []Ruleset) (*Rulesets, error) {
	c := &Rulesets{byOrigin: map[string][]compiledRuleset{}}
	for i, r := range rs {
		origin, err := weburl.Origin(r.Domain) // as originOf writes the origins of pages
		if err != nil {
			return nil, fmt.Errorf("%w: ruleset %d: domain %q: %v", ErrRule, i+1, r.Domain, err)
		}
		where := fmt.Sprintf("ruleset %d (domain %s)", i+1, origin)
		if len(r.Rules) == 0 {
			return nil, fmt.Errorf("%w: %s: no rules", ErrRule, where)
		}
		var cr compiledRuleset
		for k, f := range r.URLFilters {
			rule, err := crawlrule.Compile(string(crawlrule.Allow), f.Type, f.Pattern)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: url filter %d: %w", ErrRule, where, k+1, err)
			}
			cr.filters = append(cr.filters, rule)
		}
		for k, rule := range r.Rules {
			comp, err := compileRule(rule)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: rule %d (field_name %q): %v", ErrRule, where, k+1, rule.FieldName, err)
			}
			cr.html = cr.html || comp.css != nil
			cr.rules = append(cr.rules, comp)
		}
		c.byOrigin[origin] = append(c.byOrigin[origin], cr)
	}
	return c, nil
}

func compileRule(r ExtractionRule) (compiledRule, error) {
	var c compiledRule
	c.field = strings.ToLower(strings.TrimSpace(r.FieldName))
	switch {
	case c.field == "":
		return c, errors.New("field_name is empty")
	case IsReservedField(c.field):
		return c, fmt.Errorf("field_name %q is a field of the document schema", c.field)
	case !validFieldName(c.field):
		return c, fmt.Errorf("field_name %q: want 1 to 64 lower-case letters, digits and underscores, not starting with an underscore", c.field)
	}
	switch strings.ToLower(r.Action) {
	case ActionExtract:
	case ActionSet:
		c.set, c.value = true, r.Value
		if r.Value == "" {
			return c, errors.New("action set needs a value")
		}
	default:
		return c, fmt.Errorf("action %q: want extract or set", r.Action)
	}
	switch strings.ToLower(r.JoinAs) {
	case "", JoinArray:
	case JoinString:
		c.join = true
	default:
		return c, fmt.Errorf("join_as %q: want array or string", r.JoinAs)
	}
	if strings.TrimSpace(r.Selector) == "" {
		return c, errors.New("selector is empty")
	}
	switch strings.ToLower(r.Source) {
	case "", SourceHTML:
		sel := strings.TrimSpace(r.Selector)
		if strings.HasPrefix(sel, "/") || strings.HasPrefix(sel, "./") || strings.Contains(sel, "::") {
			return c, fmt.Errorf("selector %q is XPath: amber takes CSS selectors only", r.Selector)
		}
		g, err := cascadia.ParseGroup(sel)
		if err != nil {
			return c, fmt.Errorf("selector %q: %v", r.Selector, err)
		}
		c.css = g
	case SourceURL:
		re, err := compileURLRegexp(r.Selector)
		if err != nil {
			return c, err
		}
		c.re = re
	default:
		return c, fmt.Errorf("source %q: want html or url", r.Source)
	}
	return c, nil
}

// compileURLRegexp compiles a source url selector. Elastic's crawler reads it as a Ruby
// regular expression; what RE2 cannot express is refused rather than read differently.
func compileURLRegexp(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err == nil {
		return re, nil
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		lookbehind := se.Code == syntax.ErrInvalidNamedCapture && (strings.HasPrefix(se.Expr, "(?<=") || strings.HasPrefix(se.Expr, "(?<!"))
		switch {
		case se.Code == syntax.ErrInvalidPerlOp, se.Code == syntax.ErrInvalidEscape, se.Code == syntax.ErrInvalidRepeatOp, lookbehind:
			return nil, fmt.Errorf("selector %q: %v (Ruby regular expression syntax that Go's RE2 does not have, such as lookaround, backreferences, atomic groups or possessive quantifiers, cannot be used)", expr, err)
		}
	}
	return nil, fmt.Errorf("selector %q: %v", expr, err)
}

// match returns the rulesets that apply to the page at pageURL.
func (rs *Rulesets) match(pageURL string) []*compiledRuleset {
	if rs == nil || len(rs.byOrigin) == 0 {
		return nil
	}
	u, err := url.Parse(pageURL)
	if err != nil || u.Host == "" {
		return nil
	}
	list := rs.byOrigin[originOf(pageURL)]
	if len(list) == 0 {
		return nil
	}
	pq := crawlrule.PathQuery(u)
	var out []*compiledRuleset
	for i := range list {
		r := &list[i]
		if len(r.filters) == 0 || slices.ContainsFunc(r.filters, func(f *crawlrule.Rule) bool { return f.Match(pq) }) {
			out = append(out, r)
		}
	}
	return out
}

// NeedsHTML reports whether a ruleset with an html rule applies to the page at pageURL:
// only then does Apply need the page's parsed HTML.
func (rs *Rulesets) NeedsHTML(pageURL string) bool {
	return slices.ContainsFunc(rs.match(pageURL), func(r *compiledRuleset) bool { return r.html })
}

// Apply returns the custom fields the rulesets of the page's origin whose url filters match
// pageURL write, in the order the rules first write them. root is the page's parsed HTML
// (html.Parse), or nil for a page without HTML (a binary document), whose html rules
// match nothing. ParseDocument gives it the page's tree cut to its first 100,000 nodes
// (elements, text, comments) in document order and to the first 1,000 children of each
// node, which bounds the cost of selectors that compare siblings, such as :nth-child(2n).
//
// An html extract rule takes the text of each element the selector matches, in document
// order: its text nodes, entities decoded, white space collapsed as in body_content (block
// elements and <br> separate words, inline elements do not), without the content of
// script, style and other non-content elements inside it (a selected element of that kind
// gives its own text). A url extract rule takes, from the first match of its regular
// expression in pageURL, each capture group that took part in the match, in order, or the
// whole match when the expression has no group. A set rule writes Value when its selector
// matches an element or its regular expression matches pageURL. With join_as string the
// values are joined with a space into one; an extract rule's field is otherwise an array
// (Field.Array), even of one value. Empty values are left out, and a rule with
// none writes nothing. Values are limited like other custom fields (see Document): each
// to limit bytes (zero or negative: DefaultMaxBodySize), at most 100 per field.
func (rs *Rulesets) Apply(pageURL string, root *html.Node, limit int) []Field {
	if limit <= 0 {
		limit = DefaultMaxBodySize
	}
	var fields []Field
	for _, r := range rs.match(pageURL) {
		for i := range r.rules {
			values := r.rules[i].apply(pageURL, root, limit)
			if len(values) == 0 {
				continue
			}
			name := r.rules[i].field
			array := !r.rules[i].set && !r.rules[i].join
			if j := slices.IndexFunc(fields, func(f Field) bool { return f.Name == name }); j >= 0 {
				fields[j].Values, fields[j].Array = values, array
			} else {
				fields = append(fields, Field{Name: name, Values: values, Array: array})
			}
		}
	}
	return fields
}

// apply returns the values of one rule for a page.
func (c *compiledRule) apply(pageURL string, root *html.Node, limit int) []string {
	var values []string
	switch {
	case c.re != nil:
		m := c.re.FindStringSubmatchIndex(pageURL)
		if m == nil {
			return nil
		}
		if c.set {
			return []string{c.value}
		}
		if len(m) == 2 {
			values = append(values, pageURL[m[0]:m[1]])
		}
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && m[g+1] > m[g] {
				values = append(values, pageURL[m[g]:m[g+1]])
			}
		}
	case root != nil && c.set:
		if cascadia.Query(root, c.css) == nil {
			return nil
		}
		return []string{c.value}
	case root != nil:
		size := 0
		for _, n := range cascadia.QueryAll(root, c.css) {
			if (!c.join && len(values) == maxFieldValues) || (c.join && size > limit) {
				break
			}
			if t := elementText(n, limit); t != "" {
				values = append(values, t)
				size += len(t) + 1
			}
		}
	}
	if c.join && len(values) > 0 {
		values = []string{truncate(strings.Join(values, " "), limit)}
	}
	for i, v := range values {
		values[i] = cleanText(v, limit)
	}
	values = slices.DeleteFunc(values, func(v string) bool { return v == "" })
	if len(values) > maxFieldValues {
		values = values[:maxFieldValues]
	}
	return values
}

// elementText returns the text of the element n as Apply describes it, at most limit bytes.
func elementText(n *html.Node, limit int) string {
	t := newTextBuf(limit)
	if n.Type == html.ElementNode && isNonContent(n.DataAtom) {
		// A selected script, style, title, ...: its own raw text.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				t.writeString(c.Data)
			}
		}
		return t.String()
	}
	// An explicit stack: the tree may be as deep as html.Parse allows.
	type item struct {
		n   *html.Node
		end bool // the element's end: a word boundary after a block element
	}
	stack := []item{{n: n}}
	for len(stack) > 0 && !t.full {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c := it.n
		if it.end {
			t.sep()
			continue
		}
		switch c.Type {
		case html.TextNode:
			t.writeString(c.Data)
			continue
		case html.ElementNode:
			if c != n && isNonContent(c.DataAtom) {
				continue
			}
			if c.DataAtom == atom.Br || separates(c.DataAtom) {
				t.sep()
				stack = append(stack, item{n: c, end: true})
			}
		case html.DocumentNode:
		default: // comments, doctypes
			continue
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, item{n: k})
		}
	}
	return t.String()
}

// Bounds on the tree html rules are matched against. CSS selectors such as
// :nth-child(2n) and "a ~ b" look at every sibling of each element they test, so their cost
// grows with the square of the number of siblings: a hostile page of a million <p> would
// keep a worker busy for hours. Within these bounds the worst case is about 10^8 steps.
const (
	maxRuleNodes    = 100000 // nodes (elements, text, comments) of the tree, in document order
	maxRuleChildren = 1000   // child nodes of any node
)

// parseRuleHTML parses the decoded (UTF-8) HTML of a page for the html rules and cuts the
// tree to maxRuleNodes nodes, and each node to its first maxRuleChildren children; nil when
// the page cannot be parsed (html.Parse refuses elements nested deeper than 512).
func parseRuleHTML(text []byte) *html.Node {
	root, err := html.Parse(bytes.NewReader(text))
	if err != nil {
		return nil
	}
	pruneTree(root, maxRuleNodes, maxRuleChildren)
	return root
}

// pruneTree cuts the tree under root to its first maxNodes nodes in document order, and the
// children of each node to its first maxChildren. Its recursion is as deep as the tree,
// which html.Parse bounds.
func pruneTree(root *html.Node, maxNodes, maxChildren int) {
	count := 0
	// cut removes c and the siblings after it from n.
	cut := func(n, c *html.Node) {
		if c.PrevSibling == nil {
			n.FirstChild = nil
		} else {
			c.PrevSibling.NextSibling = nil
		}
		n.LastChild = c.PrevSibling
		c.PrevSibling = nil
	}
	var walk func(n *html.Node) bool // false once maxNodes are kept
	walk = func(n *html.Node) bool {
		k := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			count++
			k++
			if count > maxNodes || k > maxChildren {
				cut(n, c)
				return count <= maxNodes
			}
			if !walk(c) {
				if c.NextSibling != nil {
					cut(n, c.NextSibling)
				}
				return false
			}
		}
		return true
	}
	walk(root)
}

// withRuleFields returns the custom fields of a document whose own fields (from meta tags and
// data-elastic-name) are own, with the fields the rulesets of cfg write for the page at
// pageURL; text is the page's decoded HTML, nil for a document without HTML. A field the
// page names itself keeps the page's values, as in Elastic's crawler, where meta tags and
// data attributes are merged last. The result holds the rule fields first, in their order,
// then the page's other fields, within the limits of custom fields (see Document).
func withRuleFields(cfg DocConfig, pageURL string, text []byte, own []Field) []Field {
	rs := cfg.Rulesets
	if rs == nil {
		return own
	}
	var root *html.Node
	if text != nil && rs.NeedsHTML(pageURL) {
		root = parseRuleHTML(text)
	}
	fields := rs.Apply(pageURL, root, cfg.MaxBodySize)
	if len(fields) == 0 {
		return own
	}
	for _, f := range own {
		if j := slices.IndexFunc(fields, func(g Field) bool { return g.Name == f.Name }); j >= 0 {
			fields[j].Values, fields[j].Array = f.Values, f.Array
		} else {
			fields = append(fields, f)
		}
	}
	set := fieldSet{budget: cfg.MaxBodySize}
	for _, f := range fields {
		for _, v := range f.Values {
			set.add(f.Name, v)
		}
	}
	for i := range set.fields {
		if j := slices.IndexFunc(fields, func(g Field) bool { return g.Name == set.fields[i].Name }); j >= 0 {
			set.fields[i].Array = fields[j].Array
		}
	}
	return set.fields
}
