package fast

import (
	"fmt"
	"strings"
)

// schemaNode is what one section (or the collection level) may hold, built from the table.
type schemaNode struct {
	attribs     map[string]*Row // by name and alias
	freeAttrib  *Row            // the attrib whose name the file chooses
	sections    map[string]schemaChild
	freeSection *schemaChild // the section whose name the file chooses
}

// schemaChild is a section a node may hold: its row and what it holds.
type schemaChild struct {
	row  *Row
	node *schemaNode
}

// schema is the collection level's node; elements holds SubDomain, Login and Node.
var schema, elements = buildSchema()

func isFree(name string) bool { return strings.HasPrefix(name, "<") }

func buildSchema() (*schemaNode, map[string]schemaChild) {
	nodes := map[string]*schemaNode{}
	node := func(path string) *schemaNode {
		n := nodes[path]
		if n == nil {
			n = &schemaNode{attribs: map[string]*Row{}, sections: map[string]schemaChild{}}
			nodes[path] = n
		}
		return n
	}
	join := func(a, b string) string {
		if a == "" {
			return b
		}
		return a + "/" + b
	}
	root := node("")
	for i := range rows {
		r := &rows[i]
		if r.Kind != KindAttrib {
			continue
		}
		n := node(r.Section)
		if isFree(r.Name) {
			n.freeAttrib = r
			continue
		}
		for _, name := range append([]string{r.Name}, r.Aliases...) {
			n.attribs[name] = r
		}
	}
	// Sections: a Like section shares the node of what it is like.
	for i := range rows {
		r := &rows[i]
		if r.Kind != KindSection {
			continue
		}
		target := join(r.Section, r.Name)
		if r.Like != "" {
			target = r.Like
		}
		c := schemaChild{row: r, node: node(target)}
		parent := node(r.Section)
		if isFree(r.Name) {
			parent.freeSection = &c
		} else {
			parent.sections[r.Name] = c
		}
	}
	els := map[string]schemaChild{}
	for i := range rows {
		r := &rows[i]
		if r.Kind != KindElement {
			continue
		}
		if r.Like == "." {
			els[r.Name] = schemaChild{row: r, node: root}
		} else {
			els[r.Name] = schemaChild{row: r, node: node(r.Like)}
		}
	}
	return root, els
}

// attrib returns the row of an attrib named name in n, or nil.
func (n *schemaNode) attrib(name string) *Row {
	if n == nil {
		return nil
	}
	if r := n.attribs[name]; r != nil {
		return r
	}
	return n.freeAttrib
}

// section returns what n says of a section named name (a nil node when n does not know it).
func (n *schemaNode) section(name string) schemaChild {
	if n == nil {
		return schemaChild{}
	}
	if c, ok := n.sections[name]; ok {
		return c
	}
	if n.freeSection != nil {
		return *n.freeSection
	}
	return schemaChild{}
}

// checkDomain checks the types of the attribs the specification defines and that no
// element holds two attribs or two sections of one name.
func checkDomain(d *Domain) error {
	if err := checkChildren(d.File, d.Path, schema, d.Attribs, d.Sections); err != nil {
		return err
	}
	// SubDomain elements join the subdomains section, Login elements the logins section
	// (§2.2.4.31, §2.2.4.33): their names must not collide.
	for _, g := range []struct {
		element, section string
		list             []*Section
	}{{"SubDomain", "subdomains", d.SubDomains}, {"Login", "logins", d.Logins}, {"Node", "", d.Nodes}} {
		seen := map[string]*Section{}
		for _, s := range d.Sections {
			if g.section != "" && s.Name == g.section {
				for _, sub := range s.Sections {
					seen[sub.Name] = sub
				}
			}
		}
		for _, s := range g.list {
			if o := seen[s.Name]; o != nil {
				return &Error{File: d.File, Line: s.Line, Path: s.Path, Err: ErrInvalid,
					Msg: fmt.Sprintf("a second %s named %q (the first is on line %d)", g.element, s.Name, o.Line)}
			}
			seen[s.Name] = s
			if err := checkChildren(d.File, s.Path, elements[g.element].node, s.Attribs, s.Sections); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkChildren checks the attribs and sections of one element against n (nil: a section the
// specification does not define, whose content is not checked).
func checkChildren(file, path string, n *schemaNode, attribs []*Attrib, sections []*Section) error {
	seen := map[string]int{}
	for _, a := range attribs {
		r := n.attrib(a.Name)
		key := a.Name
		if r != nil && !isFree(r.Name) {
			key = r.Name
		}
		if line, dup := seen[key]; dup {
			return &Error{File: file, Line: a.Line, Path: a.Path, Err: ErrInvalid,
				Msg: fmt.Sprintf("%s given a second time (first on line %d)", a.Name, line)}
		}
		seen[key] = a.Line
		if r != nil && a.Type != r.Type {
			return &Error{File: file, Line: a.Line, Path: a.Path, Err: ErrInvalid,
				Msg: fmt.Sprintf("type %s: the specification (§%s) gives %s type %s", a.Type, r.Spec, r.Name, r.Type)}
		}
	}
	seenSec := map[string]int{}
	for _, s := range sections {
		if line, dup := seenSec[s.Name]; dup {
			return &Error{File: file, Line: s.Line, Path: s.Path, Err: ErrInvalid,
				Msg: fmt.Sprintf("section %s given a second time (first on line %d)", s.Name, line)}
		}
		seenSec[s.Name] = s.Line
		if err := checkChildren(file, s.Path, n.section(s.Name).node, s.Attribs, s.Sections); err != nil {
			return err
		}
	}
	return nil
}
