// Package fast reads FAST Search web crawler configurations (Microsoft's MS-FSCCFG XML
// format: a CrawlerConfig of DomainSpecifications, each a crawl collection of attribs and
// sections) and converts one collection to amber's crawl configuration (config.File), with
// an account of every attrib: mapped to an amber setting, or ignored, refused or not
// supported yet, each with its reason (Table; docs/fast.md).
//
// Parse checks a file against the specification's XML schema (Appendix A) and the types the
// specification gives each attrib (§2.2.3-2.2.7); (*File).Domain picks a collection;
// (*Domain).Convert maps it; Load does all three for a file on disk.
package fast

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Limits on the input Parse accepts: a crawler configuration is a few hundred elements.
const (
	// MaxSize is the largest file Parse reads, in bytes.
	MaxSize = 16 << 20
	// MaxDepth is the deepest nesting of elements Parse accepts (CrawlerConfig is 1).
	MaxDepth = 32
	// MaxElements is the most elements Parse accepts in one file.
	MaxElements = 100_000
	// MaxAttrs is the most XML attributes Parse accepts on one element.
	MaxAttrs = 16
)

// ErrInvalid is wrapped by every error about a file that is not a valid crawler
// configuration: malformed XML, an element or XML attribute the schema does not have, a
// wrong type for an attrib the specification defines, a value that does not parse.
var ErrInvalid = errors.New("fast: invalid FAST crawler configuration")

// ErrNotMapped is wrapped by the errors of a strict conversion (ConvertOptions.Strict): an
// attrib or section the file gives that amber does not map.
var ErrNotMapped = errors.New("fast: not mapped to amber")

// Error is an error about one element of a file: Path is the element's path, e.g.
// CrawlerConfig/DomainSpecification[name=sp]/section[name=include_domains]/attrib[name=prefix],
// and Line its line (1-based; 0 when unknown). It wraps ErrInvalid or ErrNotMapped.
type Error struct {
	File string // the name given to Parse
	Line int
	Path string
	Msg  string
	Err  error // ErrInvalid or ErrNotMapped
}

// Error renders FILE:LINE: PATH: MSG.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns ErrInvalid or ErrNotMapped.
func (e *Error) Unwrap() error { return e.Err }

// Type is the type an attrib declares (ST_type, §2.3.2).
type Type string

// The attrib types.
const (
	Boolean    Type = "boolean"     // "yes" or "no"
	Integer    Type = "integer"     // a 32-bit signed integer
	Real       Type = "real"        // a double
	String     Type = "string"      // text
	ListString Type = "list-string" // member elements
)

func (t Type) valid() bool {
	switch t {
	case Boolean, Integer, Real, String, ListString:
		return true
	}
	return false
}

// File is a parsed crawler configuration.
type File struct {
	// Name is the name Parse was given (used in errors).
	Name string
	// Domains are the DomainSpecifications (crawl collections) in file order.
	Domains []*Domain
}

// Domain is one DomainSpecification: a crawl collection.
type Domain struct {
	File string // the File's Name
	Name string // the name attribute, without surrounding space
	Path string
	Line int
	// Attribs and Sections are the collection's own, in file order.
	Attribs  []*Attrib
	Sections []*Section
	// SubDomains, Logins and Nodes are the SubDomain, Login and Node elements, in file order.
	SubDomains []*Section
	Logins     []*Section
	Nodes      []*Section
}

// Section is a section element, or a SubDomain, Login or Node element (which hold the same
// children).
type Section struct {
	Element string // "section", "SubDomain", "Login" or "Node"
	Name    string // the name attribute, without surrounding space
	Path    string
	Line    int
	// Attribs and Sections are its children, in file order.
	Attribs  []*Attrib
	Sections []*Section
}

// Attrib is an attrib element: a configuration parameter.
type Attrib struct {
	Name string // the name attribute, without surrounding space
	Type Type   // the type attribute
	Path string
	Line int
	// Text is the value of a boolean, integer, real or string attrib, without surrounding
	// white space; Bool, Int and Real hold it parsed for those types.
	Text string
	Bool bool
	Int  int64
	Real float64
	// Members are the member values of a list-string, each without surrounding white space.
	Members []string
}

// Domain picks one DomainSpecification: the one named name (compared without surrounding
// space), or with name "" the only one. Several without a name, none, or no such name are
// errors that list the names the file has.
func (f *File) Domain(name string) (*Domain, error) {
	var names []string
	for _, d := range f.Domains {
		names = append(names, strconv.Quote(d.Name))
	}
	have := strings.Join(names, ", ")
	name = strings.TrimSpace(name)
	if name == "" {
		switch len(f.Domains) {
		case 0:
			return nil, &Error{File: f.Name, Path: "CrawlerConfig", Msg: "no DomainSpecification: nothing to crawl", Err: ErrInvalid}
		case 1:
			return f.Domains[0], nil
		}
		return nil, &Error{File: f.Name, Path: "CrawlerConfig", Err: ErrInvalid,
			Msg: fmt.Sprintf("%d DomainSpecifications (%s): name the one to crawl", len(f.Domains), have)}
	}
	for _, d := range f.Domains {
		if d.Name == name {
			return d, nil
		}
	}
	if have == "" {
		have = "none"
	}
	return nil, &Error{File: f.Name, Path: "CrawlerConfig", Err: ErrInvalid,
		Msg: fmt.Sprintf("no DomainSpecification named %q (the file has %s)", name, have)}
}

// IsFAST reports whether data is an XML document whose root element is CrawlerConfig: a FAST
// crawler configuration rather than amber YAML or an Elastic crawler file. It reads only up
// to the root element; a file it accepts may still be invalid (Parse says why).
func IsFAST(data []byte) bool {
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(data) > MaxSize {
		data = data[:MaxSize]
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	for range 1000 {
		tok, err := d.RawToken()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name.Space == "" && t.Name.Local == "CrawlerConfig"
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return false
			}
		}
	}
	return false
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse reads a crawler configuration (name is used in errors). It checks the file against
// the specification's XML schema (Appendix A): one CrawlerConfig holding DomainSpecification
// elements (name required), which hold attrib, section, SubDomain, Login and Node elements;
// sections, SubDomain, Login and Node (name required) hold attribs and sections; an attrib
// has a name and a type (boolean, integer, real, string, list-string) and holds text, or
// member elements for list-string only. Any other element, XML attribute or text is an error,
// as are a DOCTYPE, a file over MaxSize, nesting over MaxDepth, more than MaxElements
// elements or MaxAttrs XML attributes on one, and two attribs or sections of one name in one
// element. Each value must parse as its type (a boolean is yes or no, an integer is 32-bit),
// and an attrib the specification defines (§2.2.3-2.2.7) must have the type it gives.
// Attribs and sections the specification does not define are kept; Convert reports them.
//
// An & that does not start one of XML's five entity references or a character reference is
// read as a literal &, as §3.11's example (variable1=value1&variableB=valueB) needs. A UTF-8
// byte order mark is skipped; the file must be UTF-8.
//
// Errors are *Error, wrapping ErrInvalid, with the element's path and line.
func Parse(data []byte, name string) (*File, error) {
	if len(data) > MaxSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("larger than %d bytes", MaxSize), Err: ErrInvalid}
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	p := &parser{name: name, d: xml.NewDecoder(bytes.NewReader(escapeBareAmpersands(data)))}
	f, err := p.document()
	if err != nil {
		return nil, err
	}
	for _, dom := range f.Domains {
		if err := checkDomain(dom); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// parser reads the token stream of one file.
type parser struct {
	name     string
	d        *xml.Decoder
	elements int
}

func (p *parser) errf(line int, path, format string, a ...any) error {
	return &Error{File: p.name, Line: line, Path: path, Msg: fmt.Sprintf(format, a...), Err: ErrInvalid}
}

// next returns the next token and the line it starts on.
func (p *parser) next() (xml.Token, int, error) {
	line, _ := p.d.InputPos()
	tok, err := p.d.Token()
	if err != nil {
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			return nil, se.Line, p.errf(se.Line, "", "not well-formed XML: %s", se.Msg)
		}
		if err == io.EOF {
			return nil, line, err
		}
		l, _ := p.d.InputPos()
		return nil, l, p.errf(l, "", "not well-formed XML: %v", err)
	}
	return tok, line, nil
}

// document reads the prolog, the CrawlerConfig element and what follows it.
func (p *parser) document() (*File, error) {
	f := &File{Name: p.name}
	root := false
	for {
		tok, line, err := p.next()
		if err == io.EOF {
			if !root {
				return nil, p.errf(line, "", "no CrawlerConfig element")
			}
			return f, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root {
				return nil, p.errf(line, "", "a second root element <%s>: a file holds one CrawlerConfig", t.Name.Local)
			}
			root = true
			if t.Name.Space != "" || t.Name.Local != "CrawlerConfig" {
				return nil, p.errf(line, "", "root element <%s>: want CrawlerConfig", qname(t.Name))
			}
			if err := p.crawlerConfig(f, t, line); err != nil {
				return nil, err
			}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, p.errf(textLine(line, t), "", "text outside the CrawlerConfig element")
			}
		case xml.Directive:
			return nil, p.errf(line, "", "<!%s>: a DOCTYPE or other declaration is not allowed", firstWord(t))
		case xml.ProcInst, xml.Comment:
		}
	}
}

func firstWord(b []byte) string {
	s := strings.Fields(string(b))
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// attrs checks an element's XML attributes: want are the ones it may have (all required);
// namespace declarations and xsi: attributes are allowed and skipped.
func (p *parser) attrs(t xml.StartElement, path string, line int, want ...string) (map[string]string, error) {
	if len(t.Attr) > MaxAttrs {
		return nil, p.errf(line, path, "more than %d XML attributes", MaxAttrs)
	}
	got := map[string]string{}
	for _, a := range t.Attr {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") ||
			a.Name.Space == "http://www.w3.org/2001/XMLSchema-instance" {
			continue
		}
		ok := a.Name.Space == ""
		if ok {
			ok = false
			for _, w := range want {
				ok = ok || a.Name.Local == w
			}
		}
		if !ok {
			return nil, p.errf(line, path, "unknown XML attribute %s (want %s)", qname(a.Name), wantList(want))
		}
		got[a.Name.Local] = strings.TrimSpace(a.Value)
	}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			return nil, p.errf(line, path, "no %s attribute", w)
		}
	}
	return got, nil
}

func wantList(want []string) string {
	if len(want) == 0 {
		return "none"
	}
	return strings.Join(want, " and ")
}

// open counts an element and checks the depth.
func (p *parser) open(path string, line, depth int) error {
	p.elements++
	if p.elements > MaxElements {
		return p.errf(line, path, "more than %d elements", MaxElements)
	}
	if depth > MaxDepth {
		return p.errf(line, path, "nested deeper than %d elements", MaxDepth)
	}
	return nil
}

// children reads the content of an element up to its end tag, calling child for each child
// element; text other than white space is an error.
func (p *parser) children(path string, child func(t xml.StartElement, line int) error) error {
	for {
		tok, line, err := p.next()
		if err == io.EOF {
			return p.errf(line, path, "unexpected end of file")
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := child(t, line); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return p.errf(textLine(line, t), path, "text %q where only elements belong", clip(string(bytes.TrimSpace(t))))
			}
		case xml.Directive:
			return p.errf(line, path, "<!%s> is not allowed", firstWord(t))
		}
	}
}

// textLine is the line where the text of t, which starts on line, begins after white space.
func textLine(line int, t []byte) int {
	lead := len(t) - len(bytes.TrimLeft(t, " \t\r\n"))
	return line + bytes.Count(t[:lead], []byte("\n"))
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func (p *parser) unknown(t xml.StartElement, path string, line int, want string) error {
	return p.errf(line, path, "unknown element <%s> (want %s)", qname(t.Name), want)
}

func (p *parser) crawlerConfig(f *File, t xml.StartElement, line int) error {
	path := "CrawlerConfig"
	if err := p.open(path, line, 1); err != nil {
		return err
	}
	if _, err := p.attrs(t, path, line); err != nil {
		return err
	}
	return p.children(path, func(c xml.StartElement, line int) error {
		if c.Name.Space != "" || c.Name.Local != "DomainSpecification" {
			return p.unknown(c, path, line, "DomainSpecification")
		}
		cpath := path + "/DomainSpecification"
		a, err := p.attrs(c, cpath, line, "name")
		if err != nil {
			return err
		}
		d := &Domain{File: p.name, Name: a["name"], Path: cpath + "[name=" + a["name"] + "]", Line: line}
		if err := p.open(d.Path, line, 2); err != nil {
			return err
		}
		for _, o := range f.Domains {
			if o.Name == d.Name {
				return p.errf(line, d.Path, "a second DomainSpecification named %q (the first is on line %d)", d.Name, o.Line)
			}
		}
		f.Domains = append(f.Domains, d)
		return p.children(d.Path, func(c xml.StartElement, line int) error {
			if c.Name.Space == "" && c.Name.Local == "attrib" {
				at, err := p.attrib(c, d.Path, line, 3)
				if err != nil {
					return err
				}
				d.Attribs = append(d.Attribs, at)
				return nil
			}
			var list *[]*Section
			switch {
			case c.Name.Space != "":
			case c.Name.Local == "section":
				list = &d.Sections
			case c.Name.Local == "SubDomain":
				list = &d.SubDomains
			case c.Name.Local == "Login":
				list = &d.Logins
			case c.Name.Local == "Node":
				list = &d.Nodes
			}
			if list == nil {
				return p.unknown(c, d.Path, line, "attrib, section, SubDomain, Login or Node")
			}
			s, err := p.section(c, d.Path, line, 3)
			if err != nil {
				return err
			}
			*list = append(*list, s)
			return nil
		})
	})
}

// section reads a section, SubDomain, Login or Node element.
func (p *parser) section(t xml.StartElement, parent string, line, depth int) (*Section, error) {
	el := t.Name.Local
	a, err := p.attrs(t, parent+"/"+el, line, "name")
	if err != nil {
		return nil, err
	}
	s := &Section{Element: el, Name: a["name"], Line: line}
	s.Path = parent + "/" + el + "[name=" + s.Name + "]"
	if err := p.open(s.Path, line, depth); err != nil {
		return nil, err
	}
	err = p.children(s.Path, func(c xml.StartElement, line int) error {
		switch {
		case c.Name.Space == "" && c.Name.Local == "attrib":
			at, err := p.attrib(c, s.Path, line, depth+1)
			if err != nil {
				return err
			}
			s.Attribs = append(s.Attribs, at)
		case c.Name.Space == "" && c.Name.Local == "section":
			sub, err := p.section(c, s.Path, line, depth+1)
			if err != nil {
				return err
			}
			s.Sections = append(s.Sections, sub)
		default:
			return p.unknown(c, s.Path, line, "attrib or section")
		}
		return nil
	})
	return s, err
}

// attrib reads an attrib element and parses its value as its declared type.
func (p *parser) attrib(t xml.StartElement, parent string, line, depth int) (*Attrib, error) {
	a, err := p.attrs(t, parent+"/attrib", line, "name", "type")
	if err != nil {
		return nil, err
	}
	at := &Attrib{Name: a["name"], Type: Type(a["type"]), Line: line}
	at.Path = parent + "/attrib[name=" + at.Name + "]"
	if err := p.open(at.Path, line, depth); err != nil {
		return nil, err
	}
	if !at.Type.valid() {
		return nil, p.errf(line, at.Path, "type %q: want boolean, integer, real, string or list-string", a["type"])
	}
	var text strings.Builder
	members := 0
	for {
		tok, tline, err := p.next()
		if err == io.EOF {
			return nil, p.errf(tline, at.Path, "unexpected end of file")
		}
		if err != nil {
			return nil, err
		}
		switch c := tok.(type) {
		case xml.CharData:
			text.Write(c)
			if text.Len() > MaxSize {
				return nil, p.errf(line, at.Path, "value too long")
			}
		case xml.Directive:
			return nil, p.errf(tline, at.Path, "<!%s> is not allowed", firstWord(c))
		case xml.StartElement:
			members++
			mpath := fmt.Sprintf("%s/member[%d]", at.Path, members)
			if c.Name.Space != "" || c.Name.Local != "member" {
				return nil, p.unknown(c, at.Path, tline, "member")
			}
			if at.Type != ListString {
				return nil, p.errf(tline, mpath, "a member in an attrib of type %s (members belong to list-string)", at.Type)
			}
			if err := p.open(mpath, tline, depth+1); err != nil {
				return nil, err
			}
			if _, err := p.attrs(c, mpath, tline); err != nil {
				return nil, err
			}
			v, err := p.memberText(mpath)
			if err != nil {
				return nil, err
			}
			at.Members = append(at.Members, v)
		case xml.EndElement:
			return at, p.value(at, text.String())
		}
	}
}

// memberText reads the text of a member element up to its end tag.
func (p *parser) memberText(path string) (string, error) {
	var text strings.Builder
	for {
		tok, line, err := p.next()
		if err == io.EOF {
			return "", p.errf(line, path, "unexpected end of file")
		}
		if err != nil {
			return "", err
		}
		switch c := tok.(type) {
		case xml.CharData:
			text.Write(c)
		case xml.StartElement:
			return "", p.errf(line, path, "element <%s> inside a member (a member holds text)", qname(c.Name))
		case xml.Directive:
			return "", p.errf(line, path, "<!%s> is not allowed", firstWord(c))
		case xml.EndElement:
			return strings.TrimSpace(text.String()), nil
		}
	}
}

// value parses the attrib's text as its declared type.
func (p *parser) value(at *Attrib, text string) error {
	v := strings.TrimSpace(text)
	if at.Type == ListString {
		if v != "" {
			return p.errf(at.Line, at.Path, "text %q beside the members of a list-string", clip(v))
		}
		return nil
	}
	at.Text = v
	b, i, r, err := parseValue(at.Type, v)
	if err != nil {
		return p.errf(at.Line, at.Path, "%v", err)
	}
	at.Bool, at.Int, at.Real = b, i, r
	return nil
}

// parseValue parses v as a boolean, integer or real (a string is any text).
func parseValue(t Type, v string) (bool, int64, float64, error) {
	switch t {
	case Boolean:
		switch strings.ToLower(v) {
		case "yes":
			return true, 0, 0, nil
		case "no":
			return false, 0, 0, nil
		}
		return false, 0, 0, fmt.Errorf("boolean %q: want yes or no", clip(v))
	case Integer:
		i, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return false, 0, 0, fmt.Errorf("integer %q: want a 32-bit integer", clip(v))
		}
		return false, i, 0, nil
	case Real:
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(r) || math.IsInf(r, 0) || strings.ContainsAny(v, "xXpP_") {
			return false, 0, 0, fmt.Errorf("real %q: want a decimal number", clip(v))
		}
		return false, 0, r, nil
	}
	return false, 0, 0, nil
}

// escapeBareAmpersands returns data with every & that does not start an entity reference
// XML defines (&amp; &lt; &gt; &apos; &quot;) or a character reference written as &amp;,
// outside comments, CDATA sections and processing instructions. It returns data itself when
// there is none; the line numbers do not change.
func escapeBareAmpersands(data []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '<':
			end := ""
			switch {
			case bytes.HasPrefix(data[i:], []byte("<!--")):
				end = "-->"
			case bytes.HasPrefix(data[i:], []byte("<![CDATA[")):
				end = "]]>"
			case bytes.HasPrefix(data[i:], []byte("<?")):
				end = "?>"
			}
			if end != "" {
				j := bytes.Index(data[i:], []byte(end))
				if j < 0 {
					i = len(data)
				} else {
					i += j + len(end) - 1
				}
			}
		case '&':
			if isReference(data[i:]) {
				continue
			}
			out = append(out, data[last:i]...)
			out = append(out, "&amp;"...)
			last = i + 1
		}
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// isReference reports whether b starts with an entity or character reference XML defines.
func isReference(b []byte) bool {
	for _, e := range []string{"&amp;", "&lt;", "&gt;", "&apos;", "&quot;"} {
		if bytes.HasPrefix(b, []byte(e)) {
			return true
		}
	}
	if !bytes.HasPrefix(b, []byte("&#")) {
		return false
	}
	digits, hex := b[2:], false
	if len(digits) > 0 && digits[0] == 'x' {
		digits, hex = digits[1:], true
	}
	n := 0
	for n < len(digits) && n < 10 && isDigit(digits[n], hex) {
		n++
	}
	return n > 0 && n < len(digits) && digits[n] == ';'
}

func isDigit(c byte, hex bool) bool {
	return (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
}
