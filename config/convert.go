package config

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Converted is a configuration of another crawler (an Elastic Open Crawler file, a FAST
// collection) in amber's model: File, with Sources saying which of its keys each amber key
// came from (amber key path, e.g. "scope.max_crawl_depth" or "scope.domains[0].crawl_rules",
// to the other's key) and Notes on what amber does differently (keys it accepts without an
// equivalent).
type Converted struct {
	File    *File
	Sources map[string]string
	Notes   []string
	// SecretFrom maps the amber key of a secret the file held (auth[0].password) to its key
	// there, for the notes of Render.
	SecretFrom map[string]string
	// Title says what Render's first line names as converted ("the Enterprise Search
	// settings enterprise-search.yml"); empty: the Elastic Open Crawler file of its source.
	Title string
	// Account, from a converter that accounts for every key of the file (FAST: every
	// attrib, section and element), says what became of each; nil from the others. Render
	// does not write it: the converter's own rendering does (fast.Render).
	Account *Account
}

// Account says what a conversion made of every key of the other crawler's file: each is in
// Entries once, under one Disposition.
type Account struct {
	// Entries are the file's keys, in file order.
	Entries []Accounted
	// Notes are what amber does differently that no entry says: about keys the file leaves
	// out (the other crawler's defaults), or about the file as a whole. Converted.Notes
	// holds them too, after the notes about the entries.
	Notes []string
}

// Disposition is what a conversion made of one key of the other crawler's file.
type Disposition string

// The dispositions.
const (
	// Mapped: converted to the amber keys Accounted.Amber, which do what it says.
	Mapped Disposition = "mapped"
	// Same: it asks for what amber does anyway (Accounted.Why says what), so there is
	// nothing to write.
	Same Disposition = "same"
	// Differs: converted (to Accounted.Amber, when amber has a key for it), and amber does
	// it as Accounted.Why says, which is not quite what the file asks for.
	Differs Disposition = "differs"
	// Ignored: no meaning for an amber crawl (the other crawler's own storage, logs,
	// feeding, processes); Accounted.Why says why.
	Ignored Disposition = "ignored"
	// Refused: amber does not do what it says (it will not, not yet, or does not know the
	// key); Accounted.Why says why. A strict conversion fails on each.
	Refused Disposition = "refused"
)

// Dispositions lists the dispositions in the order a rendering gives them.
var Dispositions = []Disposition{Mapped, Same, Differs, Ignored, Refused}

// Accounted is what became of one key of the other crawler's file.
type Accounted struct {
	// Key names it as the file does, with its value when that is short and no secret
	// (crawlmode/mode=FULL, link_extraction/img=no, SubDomain[news]).
	Key string
	// Line is its line in the file.
	Line        int
	Disposition Disposition
	// Amber are the amber keys it became (Mapped, Differs).
	Amber []string
	// Why says what amber does instead (Same, Differs), why it is ignored or refused, or
	// (Mapped) what is worth knowing; "" for a plain Mapped.
	Why string
}

// Source records that the amber key came from the other crawler's key (or keys) from.
func (cv *Converted) Source(amber, from string) { cv.Sources[amber] = from }

// Note adds a note on what amber does differently, after those already there.
func (cv *Converted) Note(format string, a ...any) {
	cv.Notes = append(cv.Notes, fmt.Sprintf(format, a...))
}

// Render writes the converted config as amber YAML, each key that came from the Elastic file
// commented with that key, then the notes as a comment block at the end.
//
// The secrets of the file (auth passwords and raw values, the proxy password, Cookie values
// of http_headers, the index's api_key and password) are not copied: each is written as an
// env:NAME reference (AMBER_AUTH_0_PASSWORD, AMBER_AUTH_1_VALUE, AMBER_PROXY_PASSWORD,
// AMBER_COOKIE_0, AMBER_INDEX_API_KEY, AMBER_INDEX_PASSWORD, ...),
// and a note says which variable holds which of the file's keys. The conversion is printed on
// a terminal and its output is a file made to be kept, shared and put in version control; the
// environment is where amber, like CI systems and containers, expects secrets, and a crawl
// run from the converted file records the references in crawl.yaml, so it resumes without
// the file. (An Elastic file can also be crawled as it is, with its secrets.)
func (cv *Converted) Render(source string) ([]byte, error) {
	cfg, envNotes := withEnvSecrets(cv.File, cv.SecretFrom)
	var root yaml.Node
	if err := root.Encode(cfg); err != nil {
		return nil, err
	}
	annotate(&root, "", cv.Sources)
	var buf bytes.Buffer
	if cv.Title != "" {
		fmt.Fprintf(&buf, "# amber crawl config converted from %s.\n", cv.Title)
	} else {
		fmt.Fprintf(&buf, "# amber crawl config converted from the Elastic Open Crawler file %s.\n", source)
	}
	buf.WriteString("# A comment after a key names the key it came from.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if len(envNotes) > 0 {
		buf.WriteString("\n# Secrets: this file holds none. Set these environment variables before amber crawl\n")
		buf.WriteString("# (or write the value in place of its env: reference, and keep the file private):\n")
		for _, n := range envNotes {
			buf.WriteString("# - " + n + "\n")
		}
	}
	if len(cv.Notes) > 0 {
		buf.WriteString("\n# What amber does differently:\n")
		for _, n := range cv.Notes {
			buf.WriteString("# - " + n + "\n")
		}
	}
	return buf.Bytes(), nil
}

// withEnvSecrets returns a copy of c whose secrets that are values are env: references, and
// for each a line naming the variable and the key it stands for (the Elastic key of from,
// keyed by amber key, or else the amber key).
func withEnvSecrets(c *File, from map[string]string) (*File, []string) {
	out := *c
	var notes []string
	ref := func(s Secret, name, amberKey string) Secret {
		if _, isEnv := s.Env(); isEnv || s == "" {
			return s
		}
		k := from[amberKey]
		if k == "" {
			k = amberKey
		}
		notes = append(notes, fmt.Sprintf("%s: the value of %s", name, k))
		return Secret(envPrefix + name)
	}
	if c.Auth != nil {
		out.Auth = make([]AuthSpec, len(c.Auth))
		for i, a := range c.Auth {
			a.Password = ref(a.Password, fmt.Sprintf("AMBER_AUTH_%d_PASSWORD", i), fmt.Sprintf("auth[%d].password", i))
			a.Value = ref(a.Value, fmt.Sprintf("AMBER_AUTH_%d_VALUE", i), fmt.Sprintf("auth[%d].value", i))
			out.Auth[i] = a
		}
	}
	if c.Proxy != nil {
		p := *c.Proxy
		p.Password = ref(p.Password, "AMBER_PROXY_PASSWORD", "proxy.password")
		out.Proxy = &p
	}
	out.Index.APIKey = string(ref(Secret(c.Index.APIKey), "AMBER_INDEX_API_KEY", "index.api_key"))
	out.Index.Password = string(ref(Secret(c.Index.Password), "AMBER_INDEX_PASSWORD", "index.password"))
	if c.OriginHeaders != nil {
		out.OriginHeaders = make(map[string]HeaderMap, len(c.OriginHeaders))
		n := 0
		for _, o := range slices.Sorted(maps.Keys(c.OriginHeaders)) {
			h := maps.Clone(c.OriginHeaders[o])
			for _, k := range slices.Sorted(maps.Keys(h)) {
				if http.CanonicalHeaderKey(k) == "Cookie" {
					h[k] = string(ref(Secret(h[k]), fmt.Sprintf("AMBER_COOKIE_%d", n), "origin_headers."+o+"."+k))
					n++
				}
			}
			out.OriginHeaders[o] = h
		}
	}
	return &out, notes
}

// annotate puts "from KEY" line comments on the nodes whose path is in sources.
func annotate(n *yaml.Node, path string, sources map[string]string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if s, ok := sources[p]; ok {
				k.LineComment = "from " + s
			}
			annotate(v, p, sources)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			if s, ok := sources[p]; ok {
				c.HeadComment = "from " + s
			}
			annotate(c, p, sources)
		}
	}
}
