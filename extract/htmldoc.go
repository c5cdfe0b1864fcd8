package extract

import (
	"slices"
	"strings"

	"golang.org/x/net/html/atom"
)

// maxDepth bounds the open elements docState tracks; deeper elements inherit the state of
// the deepest tracked one.
const maxDepth = 256

// maxCaptures bounds the data-elastic-name elements collected at once (nested in each
// other); deeper ones are not collected.
const maxCaptures = 8

// docState follows the element tree of the top-level document during the pass of
// htmlParser.walk and collects the search document's text. The tree is approximated from
// the token stream: void elements are not opened, an end tag closes the nearest open
// element of its name with everything above it, and the common implied end tags (p before
// a block, li, dt, dd, tr, td, th, option, a heading in a heading) are applied.
type docState struct {
	cfg     DocConfig
	stack   []docElem
	exclude []string // DocConfig.ExcludeTags of the page's origin, lower case

	body     textBuf
	heading  textBuf
	inHead   int // stack index of the heading being read, or -1
	headings []string

	captures []capture // open data-elastic-name elements
	fields   fieldSet

	description, keywords        string
	descriptionSeen, keywordSeen bool
}

// docElem is an open element and the state of its content.
type docElem struct {
	tag      atom.Atom
	name     string // the tag name when tag is 0 (a custom element)
	excluded bool   // under data-elastic-exclude, not brought back by data-elastic-include
	ignored  bool   // inside a non-content element (script, template, ...)
}

// capture is an open element with data-elastic-name.
type capture struct {
	name  string
	depth int // its stack index
	buf   textBuf
}

// newDocState returns the state of a pass over the page at pageURL.
func newDocState(cfg DocConfig, pageURL string) *docState {
	var exclude []string
	if len(cfg.ExcludeTags) > 0 {
		for _, t := range cfg.ExcludeTags[originOf(pageURL)] {
			exclude = append(exclude, strings.ToLower(strings.TrimSpace(t)))
		}
	}
	return &docState{
		cfg:     cfg,
		exclude: exclude,
		body:    textBuf{limit: cfg.MaxBodySize, b: (*bodyBufs.Get().(*[]byte))[:0]},
		inHead:  -1,
		fields:  fieldSet{budget: cfg.MaxBodySize},
		heading: newTextBuf(cfg.MaxTitleSize),
	}
}

// top returns the state of the current insertion point.
func (d *docState) top() docElem {
	if len(d.stack) == 0 {
		return docElem{}
	}
	return d.stack[len(d.stack)-1]
}

// start handles a start tag whose attributes are in p.attrs.
func (d *docState) start(p *htmlParser, name []byte, selfClosing bool) {
	tag := atom.Lookup(name)
	d.implyEnd(tag)
	parent := d.top()
	if separates(tag) && !parent.ignored {
		d.sep()
	}
	el := docElem{tag: tag, excluded: parent.excluded, ignored: parent.ignored || isNonContent(tag)}
	if tag == 0 {
		el.name = string(name)
	}
	if len(d.exclude) > 0 && !el.ignored && slices.Contains(d.exclude, strings.ToLower(string(name))) {
		// exclude_tags: the element is gone from the document, as if it were a script.
		el.ignored = true
	}
	if len(p.attrs) > 0 {
		if p.has("data-elastic-include") {
			el.excluded = false
		} else if p.has("data-elastic-exclude") {
			el.excluded = true
		}
	}
	void := isVoid(tag) || (selfClosing && (parent.ignored || tag == atom.Svg || tag == atom.Math))
	if void || len(d.stack) == maxDepth {
		// Not opened: a field on it can only come from its content attribute.
		if field := fieldName(p); field != "" && !el.ignored {
			if v, ok := p.get("content"); ok {
				d.fields.add(field, collapseText(v, d.cfg.MaxDataAttributeSize))
			}
		}
		return
	}
	d.stack = append(d.stack, el)
	i := len(d.stack) - 1
	if isHeading(tag) && d.inHead < 0 && !el.ignored && len(d.headings) < d.cfg.MaxHeadingsCount {
		d.inHead = i
	}
	if field := fieldName(p); field != "" && !el.ignored {
		if v, ok := p.get("content"); ok {
			d.fields.add(field, collapseText(v, d.cfg.MaxDataAttributeSize))
		} else if len(d.captures) < maxCaptures {
			d.captures = append(d.captures, capture{name: field, depth: i, buf: newTextBuf(d.cfg.MaxDataAttributeSize)})
		}
	}
}

// fieldName returns the custom field name an element declares with data-elastic-name (or
// data-swiftype-name), or "".
func fieldName(p *htmlParser) string {
	if len(p.attrs) == 0 {
		return ""
	}
	if v, ok := p.get("data-elastic-name"); ok {
		return v
	}
	v, _ := p.get("data-swiftype-name")
	return v
}

// implyEnd closes the elements that a start tag of tag closes implicitly.
func (d *docState) implyEnd(tag atom.Atom) {
	topIs := func(tags ...atom.Atom) bool {
		return len(d.stack) > 0 && slices.Contains(tags, d.stack[len(d.stack)-1].tag)
	}
	switch tag {
	case atom.Li:
		if topIs(atom.P) {
			d.pop()
		}
		if topIs(atom.Li) {
			d.pop()
		}
	case atom.Dt, atom.Dd:
		if topIs(atom.P) {
			d.pop()
		}
		if topIs(atom.Dt, atom.Dd) {
			d.pop()
		}
	case atom.Tr:
		if topIs(atom.Td, atom.Th) {
			d.pop()
		}
		if topIs(atom.Tr) {
			d.pop()
		}
	case atom.Td, atom.Th:
		if topIs(atom.Td, atom.Th) {
			d.pop()
		}
	case atom.Option:
		if topIs(atom.Option) {
			d.pop()
		}
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if topIs(atom.P) {
			d.pop()
		}
		if topIs(atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6) {
			d.pop()
		}
	default:
		if closesP(tag) && topIs(atom.P) {
			d.pop()
		}
	}
}

// end handles an end tag.
func (d *docState) end(name []byte) {
	tag := atom.Lookup(name)
	for i := len(d.stack) - 1; i >= 0; i-- {
		e := &d.stack[i]
		if e.tag == tag && (tag != 0 || e.name == string(name)) {
			for len(d.stack) > i {
				d.pop()
			}
			break
		}
	}
	if separates(tag) && !d.top().ignored {
		d.sep()
	}
}

// pop closes the innermost open element, finishing the heading and fields it holds.
func (d *docState) pop() {
	i := len(d.stack) - 1
	if d.inHead == i {
		d.inHead = -1
		h := d.heading.String()
		d.heading = newTextBuf(d.cfg.MaxTitleSize)
		if h != "" && !slices.Contains(d.headings, h) && len(d.headings) < d.cfg.MaxHeadingsCount {
			d.headings = append(d.headings, h)
		}
	}
	for len(d.captures) > 0 && d.captures[len(d.captures)-1].depth == i {
		c := d.captures[len(d.captures)-1]
		d.captures = d.captures[:len(d.captures)-1]
		d.fields.add(c.name, c.buf.String())
	}
	d.stack = d.stack[:i]
}

// sep marks a word boundary in every text being collected.
func (d *docState) sep() {
	d.body.sep()
	d.heading.sep()
	for i := range d.captures {
		d.captures[i].buf.sep()
	}
}

// text handles a text node.
func (d *docState) text(b []byte) {
	top := d.top()
	if top.ignored {
		return
	}
	if !top.excluded {
		d.body.write(b)
		if d.inHead >= 0 {
			d.heading.write(b)
		}
	}
	for i := range d.captures {
		d.captures[i].buf.write(b)
	}
}

// meta handles a top-level <meta name=...> whose attributes are in p.attrs.
func (d *docState) meta(p *htmlParser, name string) {
	name = strings.TrimSpace(name)
	switch {
	case strings.EqualFold(name, "description"):
		if !d.descriptionSeen {
			d.descriptionSeen = true
			v, _ := p.get("content")
			d.description = collapseText(v, d.cfg.MaxDescriptionSize)
		}
	case strings.EqualFold(name, "keywords"):
		if !d.keywordSeen {
			d.keywordSeen = true
			v, _ := p.get("content")
			d.keywords = collapseText(v, d.cfg.MaxKeywordsSize)
		}
	}
	if class, _ := p.get("class"); name != "" && (hasToken(class, "elastic") || hasToken(class, "swiftype")) {
		v, _ := p.get("content")
		d.fields.add(name, collapseText(v, d.cfg.MaxElasticTagSize))
	}
}

// document finishes the pass and returns the search document; r resolves the page's URLs,
// text is the page decoded to UTF-8 (for the html extraction rules).
func (p *htmlParser) document(r *resolver, title, charsetName string, text []byte) *Document {
	d := p.doc
	for len(d.stack) > 0 {
		d.pop()
	}
	doc := &Document{
		Title:                  collapseText(title, d.cfg.MaxTitleSize),
		Body:                   d.body.release(),
		Headings:               d.headings,
		MetaDescription:        d.description,
		MetaKeywords:           d.keywords,
		Charset:                charsetName,
		Fields:                 withRuleFields(d.cfg, p.pageURL, text, d.fields.fields),
		ReservedFieldConflicts: d.fields.reserved,
		InvalidFieldNames:      d.fields.invalid,
	}
	if d.cfg.FullHTML {
		doc.FullHTML = strings.ToValidUTF8(string(text), "\uFFFD")
	}
	if p.canonicalSeen {
		doc.Canonical, _ = r.resolve(p.canonical)
	}
	seen := map[string]bool{}
	for _, l := range p.refs.links {
		if len(doc.Links) == d.cfg.MaxIndexedLinksCount {
			break
		}
		if !l.anchor || l.evicted {
			continue
		}
		if u, ok := r.resolve(l.ref); ok && !seen[u] {
			seen[u] = true
			doc.Links = append(doc.Links, u)
		}
	}
	return doc
}

// isNonContent reports elements whose content is not page text.
func isNonContent(tag atom.Atom) bool {
	switch tag {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Iframe, atom.Object,
		atom.Embed, atom.Video, atom.Audio, atom.Canvas, atom.Svg, atom.Math, atom.Noframes,
		atom.Noembed, atom.Datalist, atom.Title:
		return true
	}
	return false
}

// isInline reports elements that do not separate words (phrasing content and unknown
// elements, which browsers display inline).
func isInline(tag atom.Atom) bool {
	switch tag {
	case 0, atom.A, atom.Abbr, atom.Acronym, atom.B, atom.Bdi, atom.Bdo, atom.Big, atom.Cite,
		atom.Code, atom.Data, atom.Del, atom.Dfn, atom.Em, atom.Font, atom.I, atom.Img, atom.Ins,
		atom.Kbd, atom.Label, atom.Mark, atom.Nobr, atom.Q, atom.S, atom.Samp, atom.Small,
		atom.Span, atom.Strike, atom.Strong, atom.Sub, atom.Sup, atom.Time, atom.Tt, atom.U,
		atom.Var, atom.Wbr, atom.Html, atom.Body:
		return true
	}
	return false
}

// separates reports whether the start and end of the element tag separate words: those of
// block elements do; those of inline and non-content elements (rendered as nothing, or as
// an inline box) do not.
func separates(tag atom.Atom) bool {
	return !isInline(tag) && !isNonContent(tag)
}

// isVoid reports the HTML elements that have no end tag.
func isVoid(tag atom.Atom) bool {
	switch tag {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Keygen, atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr,
		atom.Basefont, atom.Bgsound, atom.Frame, atom.Image:
		return true
	}
	return false
}

func isHeading(tag atom.Atom) bool {
	switch tag {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// closesP reports the start tags that close an open p element.
func closesP(tag atom.Atom) bool {
	switch tag {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Details, atom.Dialog,
		atom.Div, atom.Dl, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Form,
		atom.Header, atom.Hgroup, atom.Hr, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P,
		atom.Pre, atom.Section, atom.Summary, atom.Table, atom.Ul:
		return true
	}
	return false
}
