// Package platform recognises the web platforms a crawl meets (MediaWiki, WordPress, Drupal,
// Joomla!, phpBB, Discourse, DokuWiki), host by host, from what the host's responses show: a
// <meta name=generator>, a header, the paths of the URLs its pages link and embed. On a host
// once it is recognised, the platform's rules leave out the URLs of its families that hold no
// content (edit forms, revision histories, login and account pages, printable and other
// duplicate views, search and calendar pages that multiply without end), and keep what a
// replay needs (style and script loaders, images, thumbnails, category and file pages).
//
// The rules are data: one reviewed file per platform, built into amber (rules/*.yaml), each
// rule with an id, what it blocks and why. A rule's id is "PLATFORM/NAME" ("mediawiki/edit").
// A URL a rule leaves out is out of scope with the reason "platform:" + the rule's id
// (ReasonPrefix), in crawl.log and the reports. A platform's keep rules win over its block
// rules; a rule may wait for a trait of the platform to be seen on the host (WordPress's
// pretty permalinks, without which ?p=N is a post's only URL).
//
// Rules apply to links only: never to a seed, a robots.txt, or an embed of a page (what a page
// needs to show); and only to URLs of a host once one of its responses showed the platform.
// Guard decides the links a page points at (Decide) and, before the fetch, the URLs queued
// before their host was recognised (Before); it recognises hosts from the responses (After).
package platform

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/scope"
)

// ReasonPrefix prefixes the scope reason of a URL a platform rule leaves out: "platform:" and
// the rule's id, "platform:mediawiki/edit".
const ReasonPrefix = "platform:"

// Errors of this package.
var (
	// ErrRules: a platform file does not parse, or has a rule that is invalid (no id, an id
	// given twice, no matcher, a matcher that does not compile, a trait it does not define).
	ErrRules = errors.New("platform: invalid rules")
	// ErrConfig: a Config names a rule or platform that does not exist.
	ErrConfig = errors.New("platform: invalid config")
)

// Platform is one platform's file: how to recognise it and its rules.
type Platform struct {
	Name  string // lower case, the first part of its rules' ids: "mediawiki"
	Title string // as people write it: "MediaWiki"
	// Detect recognises the platform on a host: any of its signals in one response.
	Detect Signals
	// Traits are named signals of a way the platform is set up (WordPress's
	// "pretty-permalinks"), seen on a recognised host as the platform is; a rule with When
	// applies once its trait was seen.
	Traits map[string]Signals
	// Keep are the URLs no rule of the platform leaves out (what a replay needs).
	Keep []Keep
	// Rules are the block rules, in file order.
	Rules []Rule
}

// Keep is a set of URLs the platform's rules never leave out.
type Keep struct {
	Why   string
	Match []scope.Rule // any of them
}

// Rule is one block rule of a platform.
type Rule struct {
	ID    string       // "PLATFORM/NAME"
	Why   string       // what it leaves out and why
	When  string       // a trait of the platform that must have been seen on the host; "" none
	Match []scope.Rule // any of them
}

// Text is the rule's matchers as written in a config's block rules, several joined with " | ".
func (r Rule) Text() string {
	s := make([]string, len(r.Match))
	for i, m := range r.Match {
		s[i] = m.String()
	}
	return strings.Join(s, " | ")
}

// Signals are the evidence of a platform (or of a trait) in one response: its <meta
// name=generator> matches Generator, or one of its header fields matches Headers (by name,
// each value tried), or one of the URLs of the response's own host that it links or embeds has
// a path (with its query) that matches one of Paths. Expressions are RE2, unanchored.
type Signals struct {
	Generator *regexp.Regexp
	Headers   map[string]*regexp.Regexp // canonical header names
	Paths     []*regexp.Regexp
}

// Response is what Signals look at in one response.
type Response struct {
	Generator string      // the page's <meta name=generator>, "" when none
	Header    http.Header // the response's header
	// Paths are the path and query ("/load.php?modules=x") of each URL of the response's own
	// host the response links or embeds.
	Paths []string
}

// Seen reports whether the signals are in the response.
func (s Signals) Seen(r Response) bool {
	if s.Generator != nil && r.Generator != "" && s.Generator.MatchString(r.Generator) {
		return true
	}
	for name, re := range s.Headers {
		for _, v := range r.Header.Values(name) {
			if re.MatchString(v) {
				return true
			}
		}
	}
	for _, re := range s.Paths {
		for _, p := range r.Paths {
			if re.MatchString(p) {
				return true
			}
		}
	}
	return false
}

//go:embed rules/*.yaml
var builtin embed.FS

// Builtin returns the platforms of the rule files built into amber, sorted by name.
func Builtin() ([]Platform, error) {
	sub, err := fs.Sub(builtin, "rules")
	if err != nil {
		return nil, fmt.Errorf("platform: built-in rules: %w", err)
	}
	return LoadFS(sub)
}

// LoadFS reads every *.yaml file at the root of fsys as one platform, sorted by name. Errors
// wrap ErrRules and name the file.
func LoadFS(fsys fs.FS) ([]Platform, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRules, err)
	}
	var ps []Platform
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrRules, n, err)
		}
		p, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if strings.TrimSuffix(path.Base(n), ".yaml") != p.Name {
			return nil, fmt.Errorf("%w: %s: the file of platform %q must be %s.yaml", ErrRules, n, p.Name, p.Name)
		}
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps, nil
}

// file is a platform file as written.
type file struct {
	Name   string                 `yaml:"name"`
	Title  string                 `yaml:"title"`
	Detect signalsFile            `yaml:"detect"`
	Traits map[string]signalsFile `yaml:"traits"`
	Keep   []struct {
		Why   string   `yaml:"why"`
		Match []string `yaml:"match"`
	} `yaml:"keep"`
	Rules []struct {
		ID    string   `yaml:"id"`
		Why   string   `yaml:"why"`
		When  string   `yaml:"when"`
		Match []string `yaml:"match"`
	} `yaml:"rules"`
}

type signalsFile struct {
	Generator string            `yaml:"generator"`
	Headers   map[string]string `yaml:"headers"`
	Paths     []string          `yaml:"paths"`
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Parse reads one platform file (the format of rules/*.yaml; unknown keys are errors). Errors
// wrap ErrRules.
func Parse(data []byte) (Platform, error) {
	var f file
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return Platform{}, fmt.Errorf("%w: %v", ErrRules, err)
	}
	if !nameRE.MatchString(f.Name) {
		return Platform{}, fmt.Errorf("%w: name %q: want lower-case letters, digits and -", ErrRules, f.Name)
	}
	p := Platform{Name: f.Name, Title: f.Title, Traits: map[string]Signals{}}
	if p.Title == "" {
		p.Title = p.Name
	}
	var err error
	if p.Detect, err = f.Detect.compile(); err != nil {
		return Platform{}, fmt.Errorf("%w: %s: detect: %w", ErrRules, f.Name, err)
	}
	if p.Detect.Generator == nil && len(p.Detect.Headers) == 0 && len(p.Detect.Paths) == 0 {
		return Platform{}, fmt.Errorf("%w: %s: detect has no signal", ErrRules, f.Name)
	}
	for name, t := range f.Traits {
		if !nameRE.MatchString(name) {
			return Platform{}, fmt.Errorf("%w: %s: trait %q: want lower-case letters, digits and -", ErrRules, f.Name, name)
		}
		if p.Traits[name], err = t.compile(); err != nil {
			return Platform{}, fmt.Errorf("%w: %s: trait %s: %w", ErrRules, f.Name, name, err)
		}
	}
	for i, k := range f.Keep {
		m, err := matchers(k.Match)
		if err != nil {
			return Platform{}, fmt.Errorf("%w: %s: keep[%d]: %w", ErrRules, f.Name, i, err)
		}
		p.Keep = append(p.Keep, Keep{Why: strings.TrimSpace(k.Why), Match: m})
	}
	ids := map[string]bool{}
	for i, r := range f.Rules {
		where := fmt.Sprintf("%s: rules[%d]", f.Name, i)
		if !nameRE.MatchString(r.ID) || ids[r.ID] {
			return Platform{}, fmt.Errorf("%w: %s: id %q: want a new id of lower-case letters, digits and -", ErrRules, where, r.ID)
		}
		ids[r.ID] = true
		if strings.TrimSpace(r.Why) == "" {
			return Platform{}, fmt.Errorf("%w: %s (%s): no why: say what the rule leaves out and why", ErrRules, where, r.ID)
		}
		if _, ok := p.Traits[r.When]; r.When != "" && !ok {
			return Platform{}, fmt.Errorf("%w: %s (%s): when %q is not a trait of the platform", ErrRules, where, r.ID, r.When)
		}
		m, err := matchers(r.Match)
		if err != nil {
			return Platform{}, fmt.Errorf("%w: %s (%s): %w", ErrRules, where, r.ID, err)
		}
		p.Rules = append(p.Rules, Rule{ID: f.Name + "/" + r.ID, Why: strings.TrimSpace(r.Why), When: r.When, Match: m})
	}
	if len(p.Rules) == 0 {
		return Platform{}, fmt.Errorf("%w: %s: no rules", ErrRules, f.Name)
	}
	return p, nil
}

func (s signalsFile) compile() (Signals, error) {
	var out Signals
	var err error
	if s.Generator != "" {
		if out.Generator, err = regexp.Compile(s.Generator); err != nil {
			return out, fmt.Errorf("generator: %w", err)
		}
	}
	for name, expr := range s.Headers {
		re, err := regexp.Compile(expr)
		if err != nil {
			return out, fmt.Errorf("header %s: %w", name, err)
		}
		if out.Headers == nil {
			out.Headers = map[string]*regexp.Regexp{}
		}
		out.Headers[http.CanonicalHeaderKey(name)] = re
	}
	for _, expr := range s.Paths {
		re, err := regexp.Compile(expr)
		if err != nil {
			return out, fmt.Errorf("path %q: %w", expr, err)
		}
		out.Paths = append(out.Paths, re)
	}
	return out, nil
}

// matchers parses the matchers of a rule: scope rules written "kind:value", of the kinds
// that hold on a URL alone (no parent_regex, no ip).
func matchers(texts []string) ([]scope.Rule, error) {
	if len(texts) == 0 {
		return nil, errors.New("no match")
	}
	var out []scope.Rule
	for _, t := range texts {
		r, err := scope.ParseRule(t)
		if err != nil {
			return nil, err
		}
		if r.ParentRegex != "" || r.IP != "" {
			return nil, fmt.Errorf("%s: a platform rule holds on the URL alone (no parent_regex, no ip)", t)
		}
		out = append(out, r)
	}
	return out, nil
}

// IDs returns the ids of the platforms' rules, in order.
func IDs(ps []Platform) []string {
	var ids []string
	for _, p := range ps {
		for _, r := range p.Rules {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// Names returns the platforms' names, in order.
func Names(ps []Platform) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return slices.Clip(names)
}
