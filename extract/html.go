package extract

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// maxNesting bounds how deep markup found inside raw text (<noscript>, <noframes>) or in an
// iframe srcdoc attribute is tokenised again, so that every byte is read a bounded number of
// times.
const maxNesting = 2

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
//   - R: the URL of <meta http-equiv=refresh content="N; url=...">.
//
// The first <base href> sets the base for every URL of the page, even those before it, as
// in browsers (an unusable base href leaves the page URL as base). Markup inside <noscript>
// and <noframes> and in iframe srcdoc attributes is read too (their <base>, <title> and
// robots meta are not). The only error is ErrPageURL.
func HTML(pageURL string, body []byte) (Result, error) {
	page, err := newResolver(pageURL, "")
	if err != nil {
		return Result{}, err
	}
	p := htmlParser{pageURL: pageURL}
	p.walk(body, 0)

	res := Result{
		Base:     pageURL,
		Title:    collapseSpace(p.title.String()),
		NoFollow: p.noFollow,
		NoIndex:  p.noIndex,
	}
	r := page
	if p.baseSeen {
		if b, ok := page.resolve(p.baseHref); ok {
			if br, err := newResolver(b, page.pageScheme); err == nil {
				r, res.Base = br, b
			}
		}
	}
	res.Outlinks = resolveAll(r, p.links)
	return res, nil
}

// htmlParser is the state of one pass over an HTML document. walk feeds it every token;
// startTag handles elements and their attributes, rawText the content of raw-text elements
// (style, title, noscript, ...). Further per-document products (such as a search document
// with body text and headings) extend this state and add a case for html.TextToken in walk,
// so that a page is still tokenised once.
type htmlParser struct {
	pageURL string
	links   []link
	attrs   []attr // attributes of the current tag, reused between tags

	baseSeen bool
	baseHref string

	title     strings.Builder
	titleDone bool // the first <title> was seen
	inTitle   bool // the next raw text is the first title's
	svgDepth  int  // open <svg> elements: their <title> is not the page's

	noFollow, noIndex bool
}

// attr is one attribute of the current tag; both slices point into the tokenizer's buffer
// and are valid until its next token.
type attr struct {
	key, val []byte
}

// walk tokenises body and dispatches its tokens. nesting counts how many times the text
// being read was found inside other markup.
func (p *htmlParser) walk(body []byte, nesting int) {
	z := html.NewTokenizer(bytes.NewReader(body))
	var rawTag string // element whose raw text content is the next token, if any
	for {
		tt := z.Next()
		if tt != html.TextToken {
			rawTag = ""
		}
		switch tt {
		case html.ErrorToken:
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			p.attrs = p.attrs[:0]
			if hasAttr && !wantsAttrs(name) && !containsStyle(z.Raw()) {
				// Most elements have no URL attributes: skip decoding theirs.
				hasAttr = false
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				p.attrs = append(p.attrs, attr{k, v})
			}
			p.startTag(name, tt == html.SelfClosingTagToken, nesting)
			rawTag = rawTextTag(name)
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "svg" && p.svgDepth > 0 {
				p.svgDepth--
			}
		case html.TextToken:
			if rawTag != "" {
				p.rawText(rawTag, z.Text(), nesting)
				rawTag = ""
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

// containsStyle reports whether the raw bytes of a tag contain "style" in any case, which a
// tag with a style attribute does.
func containsStyle(raw []byte) bool {
	for i := 0; i+5 <= len(raw); i++ {
		if raw[i]|0x20 == 's' && raw[i+1]|0x20 == 't' && raw[i+2]|0x20 == 'y' &&
			raw[i+3]|0x20 == 'l' && raw[i+4]|0x20 == 'e' {
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
			p.add(ref, HopEmbed, ctx)
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

func (p *htmlParser) add(ref string, hop byte, context string) {
	p.links = append(p.links, link{ref: ref, hop: hop, context: context})
}

// addAttr adds the value of attribute key, if present.
func (p *htmlParser) addAttr(key string, hop byte, context string) {
	if v, ok := p.get(key); ok {
		p.add(v, hop, context)
	}
}

// addSrcset adds every candidate URL of the srcset-like attribute key.
func (p *htmlParser) addSrcset(key string, context string) {
	if v, ok := p.get(key); ok {
		for _, u := range srcsetURLs(v) {
			p.add(u, HopEmbed, context)
		}
	}
}

// startTag handles an element start tag whose attributes are in p.attrs.
func (p *htmlParser) startTag(name []byte, selfClosing bool, nesting int) {
	p.inTitle = false // an empty first <title> has no text token
	if style, ok := p.get("style"); ok {
		scanCSS(style, func(ref string, isImport bool) {
			p.add(ref, HopEmbed, "@style/url()")
		})
	}
	switch string(name) {
	case "a":
		p.addAttr("href", HopLink, "a/@href")
	case "area":
		p.addAttr("href", HopLink, "area/@href")
	case "link":
		if href, ok := p.get("href"); ok {
			rel, _ := p.get("rel")
			p.add(href, linkHop(rel), "link/@href")
		}
		p.addSrcset("imagesrcset", "link/@imagesrcset")
	case "img":
		p.addAttr("src", HopEmbed, "img/@src")
		p.addSrcset("srcset", "img/@srcset")
	case "image":
		if p.svgDepth == 0 {
			// Outside SVG, HTML parsers read <image> as <img>.
			p.addAttr("src", HopEmbed, "img/@src")
			p.addSrcset("srcset", "img/@srcset")
		} else if _, ok := p.get("href"); ok {
			p.addAttr("href", HopEmbed, "image/@href")
		} else {
			p.addAttr("xlink:href", HopEmbed, "image/@xlink:href")
		}
	case "source":
		p.addAttr("src", HopEmbed, "source/@src")
		p.addSrcset("srcset", "source/@srcset")
	case "script":
		p.addAttr("src", HopEmbed, "script/@src")
	case "iframe":
		p.addAttr("src", HopEmbed, "iframe/@src")
		if doc, ok := p.get("srcdoc"); ok && nesting < maxNesting {
			p.walk([]byte(doc), nesting+1)
		}
	case "frame":
		p.addAttr("src", HopEmbed, "frame/@src")
	case "video":
		p.addAttr("src", HopEmbed, "video/@src")
		p.addAttr("poster", HopEmbed, "video/@poster")
	case "audio":
		p.addAttr("src", HopEmbed, "audio/@src")
	case "track":
		p.addAttr("src", HopEmbed, "track/@src")
	case "embed":
		p.addAttr("src", HopEmbed, "embed/@src")
	case "object":
		p.addAttr("data", HopEmbed, "object/@data")
	case "input":
		if t, _ := p.get("type"); strings.EqualFold(strings.TrimSpace(t), "image") {
			p.addAttr("src", HopEmbed, "input/@src")
		}
	case "body":
		p.addAttr("background", HopEmbed, "body/@background")
	case "table":
		p.addAttr("background", HopEmbed, "table/@background")
	case "td":
		p.addAttr("background", HopEmbed, "td/@background")
	case "th":
		p.addAttr("background", HopEmbed, "th/@background")
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
	p.add(action, HopLink, "form/@action")
}

// meta handles <meta http-equiv=refresh> and <meta name=robots>.
func (p *htmlParser) meta(nesting int) {
	if eq, ok := p.get("http-equiv"); ok && strings.EqualFold(strings.TrimSpace(eq), "refresh") {
		if content, ok := p.get("content"); ok {
			if ref, ok := refreshTarget(content); ok {
				p.add(ref, HopRedirect, "meta/@content")
			}
		}
		return
	}
	if name, _ := p.get("name"); nesting > 0 || !strings.EqualFold(strings.TrimSpace(name), "robots") {
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

// linkHop returns the hop of a <link href> with the given rel: HopEmbed for resources the
// page loads, HopLink for the rest (alternate, canonical, next, prev, ...).
func linkHop(rel string) byte {
	for _, f := range strings.Fields(strings.ToLower(rel)) {
		switch f {
		case "stylesheet", "preload", "modulepreload", "manifest":
			return HopEmbed
		}
		if strings.Contains(f, "icon") {
			return HopEmbed
		}
	}
	return HopLink
}

// collapseSpace trims s and collapses its runs of ASCII whitespace into single spaces, as
// document.title does.
func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && isHTMLSpace(byte(r)) }), " ")
}
