// Package entsearch reads the operator settings of Elastic Enterprise Search's web crawler:
// the crawler.* keys of enterprise-search.yml (spec/elastic.md §6), written with dots
// (crawler.http.user_agent: ...) or as nested maps, or both, with Enterprise Search's
// ${NAME} and ${NAME:default} environment references. Parse reads a file strictly: a
// crawler.* key that is not one of the crawler's settings (Keys) is an error naming it and its
// line. Convert maps each key onto amber's configuration model (config.File), or accepts it
// without effect with a note saying why; the file's other keys (elasticsearch.*,
// ent_search.*, secret_management.*, ...) configure Enterprise Search itself and are named
// in a note, never read. The crawl's domains come from another file (amber's YAML or an
// Elastic Open Crawler file), combined with this one by config.Merge.
package entsearch

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrConfig is wrapped by every error about an Enterprise Search settings file.
var ErrConfig = errors.New("entsearch: invalid Enterprise Search settings")

// connectorPrefix is how Enterprise Search 8's Elastic web crawler (the one of Kibana's
// Search UI) spells the same settings as App Search's crawler: connector.crawler.*.
const connectorPrefix = "connector."

// Settings is an enterprise-search.yml as read: its crawler.* keys and the names of the
// others.
type Settings struct {
	// Crawler holds the crawler.* keys by their dotted name (connector.crawler.X as
	// crawler.X), environment references resolved.
	Crawler map[string]Value
	// Other names the file's other keys, dotted, in the order of the file.
	Other []string
	// Name is the file's name, for messages.
	Name string
}

// Value is one setting's value: a scalar or a list of scalars, environment references
// resolved.
type Value struct {
	// Key is the key as written (connector.crawler.X or crawler.X); Line its line.
	Key  string
	Line int
	// Node is the value, a scalar or a sequence of scalars.
	Node *yaml.Node
	// EnvRef is NAME when the value was written exactly ${NAME} (no default): a secret
	// can stay a reference (amber's env:NAME) instead of being read now. Unset says that
	// the variable is not set: the value is then empty, an error unless it is a secret.
	EnvRef string
	Unset  bool
}

// Is reports whether data is an enterprise-search.yml rather than another config amber
// reads: a YAML mapping with a crawler or connector.crawler key (dotted or nested), or with
// one of Enterprise Search's own sections (ent_search, secret_management). amber's own
// YAML and Elastic's Open Crawler files have none of them.
func Is(data []byte) bool {
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return false
	}
	for k, v := range m {
		for _, p := range []string{"crawler", "connector.crawler", "ent_search", "secret_management"} {
			if k == p || strings.HasPrefix(k, p+".") {
				return true
			}
		}
		if sub, ok := v.(map[string]any); ok && k == "connector" {
			if _, ok := sub["crawler"]; ok {
				return true
			}
		}
	}
	return false
}

// Parse reads an enterprise-search.yml strictly, environment references resolved with
// lookup (os.LookupEnv when nil): a crawler.* key that is not in Keys, a key given twice
// (dotted and nested), a crawler.* value that is a map, and a reference within a value to a
// variable that is not set and has no default are errors naming the key and its line (a
// value that is only ${NAME} is one when Convert uses it, unless it is a secret, which
// stays a reference). name is used in messages.
func Parse(data []byte, name string, lookup func(string) (string, bool)) (*Settings, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, name, err)
	}
	s := &Settings{Crawler: map[string]Value{}, Name: name}
	if len(root.Content) == 0 {
		return s, nil
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: %s: line %d: not a mapping of settings", ErrConfig, name, top.Line)
	}
	known := map[string]bool{}
	for _, k := range Keys {
		known[k.Name] = true
	}
	seen := map[string]int{}
	var errs []error
	flatten(top, "", func(key string, k, v *yaml.Node) {
		norm := strings.TrimPrefix(key, connectorPrefix)
		if norm != key && !strings.HasPrefix(norm, "crawler.") {
			norm = key
		}
		if l, dup := seen[norm]; dup {
			errs = append(errs, fmt.Errorf("line %d: %s: given twice (also line %d)", k.Line, key, l))
			return
		}
		seen[norm] = k.Line
		if !strings.HasPrefix(norm, "crawler.") {
			s.Other = append(s.Other, key)
			return
		}
		if !known[norm] {
			errs = append(errs, fmt.Errorf("line %d: %s: not a setting of the Enterprise Search web crawler (docs/elastic-enterprise-search.md lists them)", k.Line, key))
			return
		}
		val, err := resolve(key, k.Line, v, lookup)
		if err != nil {
			errs = append(errs, err)
			return
		}
		s.Crawler[norm] = val
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, name, errors.Join(errs...))
	}
	return s, nil
}

// flatten calls fn with the dotted key of each leaf of the mapping m (a value that is not
// a non-empty mapping), in the order of the file.
func flatten(m *yaml.Node, prefix string, fn func(key string, k, v *yaml.Node)) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := k.Value
		if prefix != "" {
			key = prefix + "." + k.Value
		}
		if v.Kind == yaml.MappingNode && len(v.Content) > 0 {
			flatten(v, key, fn)
			continue
		}
		fn(key, k, v)
	}
}

// envRef matches Enterprise Search's environment references: ${NAME} and ${NAME:default}.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}`)

// resolve checks that v is a scalar or a list of scalars and replaces the environment
// references in it with the variables' values (or their defaults).
func resolve(key string, line int, v *yaml.Node, lookup func(string) (string, bool)) (Value, error) {
	out := Value{Key: key, Line: line}
	if v.Kind == yaml.ScalarNode {
		if m := envRef.FindStringSubmatch(v.Value); m != nil && m[0] == v.Value && !strings.Contains(v.Value, ":") {
			out.EnvRef = m[1]
		}
	}
	if out.EnvRef != "" {
		if _, ok := lookup(out.EnvRef); !ok {
			out.Unset = true
			n := *v
			n.Value = ""
			out.Node = &n
			return out, nil
		}
	}
	var err error
	out.Node, err = expand(key, line, v, lookup)
	return out, err
}

// expand returns a copy of the scalar or sequence v with its environment references
// resolved; a scalar that held one is re-typed from its new text, as if written so.
func expand(key string, line int, v *yaml.Node, lookup func(string) (string, bool)) (*yaml.Node, error) {
	switch v.Kind {
	case yaml.SequenceNode:
		c := *v
		c.Content = make([]*yaml.Node, len(v.Content))
		for i, e := range v.Content {
			if e.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: %s: want a list of values", e.Line, key)
			}
			n, err := expand(key, line, e, lookup)
			if err != nil {
				return nil, err
			}
			c.Content[i] = n
		}
		return &c, nil
	case yaml.ScalarNode:
	default:
		return nil, fmt.Errorf("line %d: %s: want a value or a list of values", line, key)
	}
	c := *v
	if !envRef.MatchString(v.Value) {
		return &c, nil
	}
	var missing string
	c.Value = envRef.ReplaceAllStringFunc(v.Value, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		if val, ok := lookup(m[1]); ok {
			return val
		}
		if strings.Contains(ref, ":") {
			return m[2]
		}
		missing = m[1]
		return ""
	})
	if missing != "" {
		return nil, fmt.Errorf("line %d: %s: environment variable %s is not set and has no default (${%s:default})", line, key, missing, missing)
	}
	c.Tag, c.Style = "", 0
	return &c, nil
}
