package extract

import (
	"strings"
	"sync"

	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/internal/htmltok"
)

// maxNesting bounds how deep markup found inside raw text (<noscript>, <noframes>) or in an
// iframe srcdoc attribute is tokenised again, so that every byte is read a bounded number of
// times.
const maxNesting = 2

// tokenizers keeps the tokenizers of ended passes, one per nesting level, for the next
// pages: each keeps the memory it allocated for a page's attributes and converted text.
var tokenizers = sync.Pool{New: func() any { return new([maxNesting + 1]htmltok.Tokenizer) }}

// HTML returns the outlinks, base URL, title and robots meta flags of an HTML (or XHTML)
// page, in one streaming pass over body. It reads:
//
//   - L: a and area href; form action of GET forms (method POST or dialog are skipped; a form
//     without action submits to the page itself); link href whose rel is not an embed rel.
//   - E: link href with rel stylesheet, preload, modulepreload, manifest or any rel token
//     containing "icon" (icon, shortcut icon, apple-touch-icon, mask-icon, ...), and link
//     imagesrcset; img src and srcset; source src and srcset; script, iframe, frame, video,
//     audio, track, embed src; video poster; object data; input type=image src; body,
//     table, td and th background; SVG image href (or xlink:href); url() and @import in style attributes and <style> blocks.
//   - R: the URL of <meta http-equiv=refresh content="N; url=...">; L instead when N is above
//     Options.RefreshRedirectMax.
//
// A link href whose rel has the token alternate and whose type is application/rss+xml or
// application/atom+xml gives an outlink marked Feed (feed auto-discovery).
//
// The first <base href> sets the base for every URL of the page, even those before it, as
// in browsers (an unusable base href leaves the page URL as base). Markup inside <noscript>
// and <noframes> and in iframe srcdoc attributes is read too (their <base>, <title> and
// robots meta are not). An a or area whose rel has the token nofollow gives an outlink
// marked NoFollow, unless the same URL is also linked without it.
//
// The body is read in its encoding (see ParseDocument), so a non-ASCII query of a URL in a
// legacy-encoded page is percent-encoded in that encoding, as browsers send it. The only
// error is ErrPageURL.
func HTML(pageURL string, body []byte) (Result, error) {
	return parseHTML(pageURL, "", body, nil, 0, nil)
}

// parseHTML is HTML with the response's Content-Type (for its charset), at most maxLinks
// references kept (see Options.MaxOutlinks) and, when cfg is not nil, the search document
// extracted in the same pass.
func parseHTML(pageURL, contentType string, body []byte, cfg *DocConfig, maxLinks int, refreshMax *int) (Result, error) {
	page, err := newResolver(pageURL, "")
	if err != nil {
		return Result{}, err
	}
	text, charsetName, queryEnc := decodeHTML(body, contentType)
	page.queryEnc = queryEnc
	toks := tokenizers.Get().(*[maxNesting + 1]htmltok.Tokenizer)
	defer func() {
		for i := range toks {
			toks[i].Reset(nil) // not to keep the page alive in the pool
		}
		tokenizers.Put(toks)
	}()
	p := htmlParser{pageURL: pageURL, refs: newRefList(maxLinks), refreshMax: refreshMax, toks: toks}
	defer p.refs.release()
	if cfg != nil {
		p.doc = newDocState(cfg.withDefaults(), pageURL)
	}
	p.walk(text, 0)

	title := p.title.String()
	res := Result{
		Base:     pageURL,
		Title:    strings.ToValidUTF8(collapseSpace(title), "\uFFFD"),
		NoFollow: p.noFollow,
		NoIndex:  p.noIndex,
		// The generator is shown to reports and matched by rules: valid UTF-8, bounded.
		Generator: strings.ToValidUTF8(collapseSpace(truncate(p.generator, maxGenerator)), "\uFFFD"),
	}
	r := page
	if p.baseSeen {
		if b, ok := page.resolve(p.baseHref); ok {
			if br, err := newResolver(b, page.pageScheme); err == nil {
				br.queryEnc = queryEnc
				r, res.Base = br, b
			}
		}
	}
	res.Outlinks = resolveAll(r, p.refs.links)
	res.OutlinksDropped = p.refs.dropCount()
	if p.doc != nil {
		res.Document = p.document(r, title, charsetName, text)
	}
	return res, nil
}

// htmlParser is the state of one pass over an HTML document. walk feeds it every token;
// startTag handles elements and their attributes, rawText the content of raw-text elements
// (style, title, noscript, ...). When a search document is wanted, doc follows the element
// tree of the top-level document and collects its text (docState in htmldoc.go).
type htmlParser struct {
	pageURL string
	refs    *refList
	attrs   []attr // attributes of the current tag, reused between tags

	// toks are the tokenizers of walk, one per nesting level: a nested walk runs while the
	// walk that found its markup holds the name and attributes of its current tag, which
	// point into that walk's tokenizer.
	toks *[maxNesting + 1]htmltok.Tokenizer

	baseSeen bool
	baseHref string

	title     strings.Builder
	titleDone bool // the first <title> was seen
	inTitle   bool // the next raw text is the first title's
	svgDepth  int  // open <svg> elements: their <title> is not the page's

	noFollow, noIndex bool
	generator         string // content of the first <meta name=generator>
	generatorSeen     bool
	refreshMax        *int // Options.RefreshRedirectMax

	canonicalSeen bool
	canonical     string // href of the first <link rel=canonical>

	doc *docState // nil unless a search document is extracted
}

// attr is one attribute of the current tag; both slices point into the page or the
// tokenizer's buffer and are valid until its next token.
type attr struct {
	key, val []byte
}

// walk tokenises body and dispatches its tokens. nesting counts how many times the text
// being read was found inside other markup.
func (p *htmlParser) walk(body []byte, nesting int) {
	z := &p.toks[nesting]
	z.Reset(body)
	var rawTag string // element whose raw text content is the next token, if any
	for {
		tt := z.Next()
		if tt != htmltok.TextToken {
			rawTag = ""
		}
		switch tt {
		case htmltok.ErrorToken:
			return
		case htmltok.StartTagToken, htmltok.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			p.attrs = p.attrs[:0]
			if hasAttr && !wantsAttrs(name) && !containsFold(z.Raw(), "style") &&
				(p.doc == nil || !containsFold(z.Raw(), "data-")) {
				// Most elements have no URL attributes: skip decoding theirs.
				hasAttr = false
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				p.attrs = append(p.attrs, attr{k, v})
			}
			p.startTag(name, tt == htmltok.SelfClosingTagToken, nesting)
			if p.doc != nil && nesting == 0 {
				p.doc.start(p, name, tt == htmltok.SelfClosingTagToken)
			}
			rawTag = rawTextTag(name)
		case htmltok.EndTagToken:
			name, _ := z.TagName()
			if string(name) == "svg" && p.svgDepth > 0 {
				p.svgDepth--
			}
			if p.doc != nil && nesting == 0 {
				p.doc.end(name)
			}
		case htmltok.TextToken:
			if rawTag != "" {
				p.rawText(rawTag, z.Text(), nesting)
				rawTag = ""
			} else if p.doc != nil && nesting == 0 {
				p.doc.text(z.Text())
			}
		}
	}
}

// wantsAttrs reports whether startTag reads attributes of the element name other than style.
func wantsAttrs(name []byte) bool {
	switch string(name) {
	case "a", "area", "link", "img", "image", "source", "script", "iframe", "frame", "video",
		"audio", "track", "embed", "object", "input", "body", "table", "td", "th", "form", "base",
		"meta":
		return true
	}
	return false
}

// containsFold reports whether the raw bytes of a tag contain word (lower-case letters and
// '-') in any case, which a tag with an attribute named word, or starting with it, does.
func containsFold(raw []byte, word string) bool {
	for i := 0; i+len(word) <= len(raw); i++ {
		j := 0
		for j < len(word) && raw[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// rawTextTag returns name if the tokenizer reads the content of that element as one raw
// text token and the parser wants it.
func rawTextTag(name []byte) string {
	switch string(name) {
	case "style":
		return "style"
	case "title":
		return "title"
	case "noscript":
		return "noscript"
	case "noframes":
		return "noframes"
	}
	return ""
}

// rawText handles the content of the raw text element tag.
func (p *htmlParser) rawText(tag string, text []byte, nesting int) {
	switch tag {
	case "style":
		scanCSS(string(text), func(ref string, isImport bool) {
			ctx := "style/url()"
			if isImport {
				ctx = "style/@import"
			}
			p.add(ref, hop.Embed, ctx)
		})
	case "title":
		if p.inTitle {
			p.title.Write(text)
			p.inTitle = false
		}
	case "noscript", "noframes":
		if nesting < maxNesting {
			p.walk(text, nesting+1)
		}
	}
}

// get returns the value of the first attribute named key of the current tag.
func (p *htmlParser) get(key string) (string, bool) {
	for _, a := range p.attrs {
		if string(a.key) == key {
			return string(a.val), true
		}
	}
	return "", false
}

func (p *htmlParser) add(ref string, h byte, context string) {
	p.refs.add(link{ref: ref, hop: h, context: context})
}

// has reports whether the current tag has an attribute named key.
func (p *htmlParser) has(key string) bool {
	for _, a := range p.attrs {
		if string(a.key) == key {
			return true
		}
	}
	return false
}

// addAnchor adds the href of an a or area element, marked nofollow by its rel, and as a
// link of the search document when it is in the top-level document.
func (p *htmlParser) addAnchor(context string, nesting int) {
	href, ok := p.get("href")
	if !ok {
		return
	}
	rel, _ := p.get("rel")
	p.refs.add(link{
		ref: href, hop: hop.Link, context: context,
		nofollow: hasToken(rel, "nofollow"),
		anchor:   context == "a/@href" && nesting == 0,
	})
}

// hasToken reports whether the space-separated list s has token, compared
// case-insensitively.
func hasToken(s, token string) bool {
	for _, f := range strings.Fields(s) {
		if strings.EqualFold(f, token) {
			return true
		}
	}
	return false
}

// addAttr adds the value of attribute key, if present.
func (p *htmlParser) addAttr(key string, h byte, context string) {
	if v, ok := p.get(key); ok {
		p.add(v, h, context)
	}
}

// addSrcset adds every candidate URL of the srcset-like attribute key.
func (p *htmlParser) addSrcset(key string, context string) {
	if v, ok := p.get(key); ok {
		for _, u := range srcsetURLs(v) {
			p.add(u, hop.Embed, context)
		}
	}
}

// startTag handles an element start tag whose attributes are in p.attrs: the URLs of its
// style attribute, then those of its own attributes, and the page state it sets (base,
// title, robots meta, SVG depth).
func (p *htmlParser) startTag(name []byte, selfClosing bool, nesting int) {
	p.inTitle = false // an empty first <title> has no text token
	p.addStyleAttr()
	switch tag := string(name); tag {
	case "a", "area":
		p.addAnchor(tag+"/@href", nesting)
	case "link":
		p.linkTag(nesting)
	case "image":
		p.imageTag()
	case "iframe":
		p.addAttr("src", hop.Embed, "iframe/@src")
		if doc, ok := p.get("srcdoc"); ok && nesting < maxNesting {
			p.walk([]byte(doc), nesting+1)
		}
	case "input":
		if t, _ := p.get("type"); strings.EqualFold(strings.TrimSpace(t), "image") {
			p.addAttr("src", hop.Embed, "input/@src")
		}
	case "form":
		p.form()
	case "base":
		if href, ok := p.get("href"); ok && !p.baseSeen && nesting == 0 {
			p.baseSeen, p.baseHref = true, href
		}
	case "meta":
		p.meta(nesting)
	case "title":
		if nesting == 0 && p.svgDepth == 0 && !p.titleDone {
			p.titleDone, p.inTitle = true, true
		}
	case "svg":
		if !selfClosing {
			p.svgDepth++
		}
	default:
		p.addEmbeds(tag)
	}
}

// embedAttr is an attribute whose value is an embed (hop.Embed): one URL, or a srcset list.
type embedAttr struct {
	attr, context string
	srcset        bool
}

// embedAttrs lists the embed attributes of the elements that have nothing else to read.
var embedAttrs = map[string][]embedAttr{
	"img":    {{attr: "src", context: "img/@src"}, {attr: "srcset", context: "img/@srcset", srcset: true}},
	"source": {{attr: "src", context: "source/@src"}, {attr: "srcset", context: "source/@srcset", srcset: true}},
	"script": {{attr: "src", context: "script/@src"}},
	"frame":  {{attr: "src", context: "frame/@src"}},
	"video":  {{attr: "src", context: "video/@src"}, {attr: "poster", context: "video/@poster"}},
	"audio":  {{attr: "src", context: "audio/@src"}},
	"track":  {{attr: "src", context: "track/@src"}},
	"embed":  {{attr: "src", context: "embed/@src"}},
	"object": {{attr: "data", context: "object/@data"}},
	"body":   {{attr: "background", context: "body/@background"}},
	"table":  {{attr: "background", context: "table/@background"}},
	"td":     {{attr: "background", context: "td/@background"}},
	"th":     {{attr: "background", context: "th/@background"}},
}

// addEmbeds adds the embed attributes (embedAttrs) of the element tag, if it has any.
func (p *htmlParser) addEmbeds(tag string) {
	for _, a := range embedAttrs[tag] {
		if a.srcset {
			p.addSrcset(a.attr, a.context)
		} else {
			p.addAttr(a.attr, hop.Embed, a.context)
		}
	}
}

// addStyleAttr adds the url()s of the current tag's style attribute.
func (p *htmlParser) addStyleAttr() {
	if style, ok := p.get("style"); ok {
		scanCSS(style, func(ref string, _ bool) {
			p.add(ref, hop.Embed, "@style/url()")
		})
	}
}

// linkTag adds the href of a <link> (an embed or a link, by its rel) and its imagesrcset,
// and remembers the first rel=canonical of the top-level document.
func (p *htmlParser) linkTag(nesting int) {
	if href, ok := p.get("href"); ok {
		rel, _ := p.get("rel")
		if h := linkHop(rel); h == hop.Link && hasToken(rel, "alternate") && isFeedType(p) {
			p.refs.add(link{ref: href, hop: h, context: "link/@href", feed: true})
		} else {
			p.add(href, h, "link/@href")
		}
		if nesting == 0 && !p.canonicalSeen && hasToken(rel, "canonical") {
			p.canonicalSeen, p.canonical = true, href
		}
	}
	p.addSrcset("imagesrcset", "link/@imagesrcset")
}

// imageTag handles <image>: an <img> outside SVG (as HTML parsers read it), an SVG image
// with href (or xlink:href) inside.
func (p *htmlParser) imageTag() {
	switch {
	case p.svgDepth == 0:
		p.addEmbeds("img")
	case p.has("href"):
		p.addAttr("href", hop.Embed, "image/@href")
	default:
		p.addAttr("xlink:href", hop.Embed, "image/@xlink:href")
	}
}

// form adds the action of a form that submits with GET.
func (p *htmlParser) form() {
	method, _ := p.get("method")
	switch strings.ToLower(strings.TrimSpace(method)) {
	case "post", "dialog":
		return
	}
	action, _ := p.get("action")
	if strings.TrimFunc(action, func(r rune) bool { return r <= ' ' }) == "" {
		// An empty action submits to the document's URL, not to its base URL.
		action = p.pageURL
	}
	p.add(action, hop.Link, "form/@action")
}

// maxGenerator bounds Result.Generator: a generator names software and a version.
const maxGenerator = 256

// meta handles <meta http-equiv=refresh>, <meta name=robots> and <meta name=generator>, and
// for the search document the description, keywords and custom field metas.
func (p *htmlParser) meta(nesting int) {
	if eq, ok := p.get("http-equiv"); ok && strings.EqualFold(strings.TrimSpace(eq), "refresh") {
		if content, ok := p.get("content"); ok {
			if ref, ok := refreshTarget(content); ok {
				h := hop.Redirect
				if p.refreshMax != nil && refreshDelay(content) > *p.refreshMax {
					h = hop.Link
				}
				p.add(ref, h, "meta/@content")
			}
		}
		return
	}
	if nesting > 0 {
		return
	}
	name, _ := p.get("name")
	if p.doc != nil {
		p.doc.meta(p, name)
	}
	if !p.generatorSeen && strings.EqualFold(strings.TrimSpace(name), "generator") {
		p.generatorSeen = true
		p.generator, _ = p.get("content")
		return
	}
	if !strings.EqualFold(strings.TrimSpace(name), "robots") {
		return
	}
	content, _ := p.get("content")
	for _, f := range strings.FieldsFunc(content, func(r rune) bool { return r == ',' || r <= ' ' }) {
		switch strings.ToLower(f) {
		case "nofollow":
			p.noFollow = true
		case "noindex":
			p.noIndex = true
		case "none":
			p.noFollow, p.noIndex = true, true
		}
	}
}

// linkHop returns the hop of a <link href> with the given rel: hop.Embed for resources the
// page loads, hop.Link for the rest (alternate, canonical, next, prev, ...).
func linkHop(rel string) byte {
	for _, f := range strings.Fields(strings.ToLower(rel)) {
		switch f {
		case "stylesheet", "preload", "modulepreload", "manifest":
			return hop.Embed
		}
		if strings.Contains(f, "icon") {
			return hop.Embed
		}
	}
	return hop.Link
}

// collapseSpace trims s and collapses its runs of ASCII whitespace into single spaces, as
// document.title does.
func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isHTMLSpace(byte(r)) }), " ")
}

// isFeedType reports whether the current tag's type attribute is an RSS or Atom media type.
func isFeedType(p *htmlParser) bool {
	t, _ := p.get("type")
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "application/rss+xml", "application/atom+xml":
		return true
	}
	return false
}
