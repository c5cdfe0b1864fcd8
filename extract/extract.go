// Package extract finds the outlinks of a fetched response body: the URLs a page links to or
// embeds, each with the hop letter of spec/scope.md §1 and a context naming where it was found.
//
// Every function is pure: no I/O, no logging, safe for concurrent use, and no panic on any
// input. Broken markup is read the way a browser would read it, as far as a streaming
// tokenizer allows.
//
// # Outlink URLs
//
// Attribute values are entity-decoded, trimmed of leading and trailing spaces and control
// characters, stripped of tabs and newlines (as browsers do), and resolved against the
// document's base URL: the first <base href> of the page wherever it appears, else the page
// URL. Backslashes before the query count as slashes, "http:x" on an http page is relative,
// stray '%' signs are escaped as "%25", Unicode hosts become punycode, and spaces, controls,
// quotes, angle brackets and non-ASCII bytes in the query are percent-encoded. Fragments are
// dropped. Values that do not resolve to an absolute http or https URL with a usable host
// (letters, digits, '-', '.', '_', or an IP literal) or to a URL of the page's own scheme are
// skipped: javascript:, data:, mailto:, tel:, about:, blob:, ftp: and the like, empty and
// fragment-only references, and anything net/url cannot parse. Outlinks come in document
// order, de-duplicated by (URL, hop), the first context winning.
//
// # Contexts
//
// HTML attributes use "tag/@attr": "a/@href", "area/@href", "form/@action", "link/@href",
// "link/@imagesrcset", "img/@src", "img/@srcset", "source/@src", "source/@srcset",
// "script/@src", "iframe/@src", "frame/@src", "video/@src", "video/@poster", "audio/@src",
// "track/@src", "embed/@src", "object/@data", "input/@src", "body/@background",
// "table/@background", "td/@background", "th/@background", "image/@href", "image/@xlink:href",
// "meta/@content". CSS uses:
//
//	"@style/url()"    url() in a style attribute of any element
//	"style/url()"     url() or image-set() string in a <style> block
//	"style/@import"   @import in a <style> block
//	"css/url()"       url() or image-set() string in a text/css body
//	"css/@import"     @import in a text/css body
//
// and Favicon uses "inferred".
//
// # Search documents
//
// ParseDocument also returns, from the same pass over an HTML page, its search document
// (title, visible text, headings, links, meta description and keywords, canonical URL,
// custom fields) in the schema of Elastic's web crawler, honouring data-elastic-exclude and
// data-elastic-include; ParseBinary does the same for PDF files. NewSearchDocument turns
// either into the SearchDocument written to documents.jsonl, with its id, content_hash and
// url_* fields. DocConfig holds the limits and the content hash fields.
package extract

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/amber-crawler/amber/hop"
)

// ErrPageURL is returned (wrapped, with the offending value) when the page URL given to an
// extractor is not an absolute URL with a scheme (and, for http and https, a host).
var ErrPageURL = errors.New("extract: invalid page URL")

// Outlink is one URL found in a body.
type Outlink struct {
	URL     string // absolute, resolved against the base URL, fragment dropped (not canonicalised)
	Hop     byte   // the hop letter (package hop): hop.Link, hop.Embed, hop.Redirect or hop.Inferred
	Context string // where the URL was found, e.g. "a/@href", "css/url()" (see the package doc)

	// NoFollow is set when every a or area linking the URL has rel="nofollow": a crawl that
	// obeys robots does not follow it. A page-wide <meta name=robots content=nofollow> is
	// Result.NoFollow and does not set it.
	NoFollow bool
	// Feed is set when a <link rel=alternate> with type application/rss+xml or
	// application/atom+xml names the URL (feed auto-discovery): the URL is a channel of the
	// page, an RSS or Atom feed. The outlink is a link (hop.Link, context "link/@href").
	Feed bool
}

// Result is what Parse learns from one body.
type Result struct {
	Outlinks []Outlink // nil when there are none
	Base     string    // effective base URL: the resolved first <base href>, else the page URL

	// HTML only.
	Title    string // text of the first <title> outside SVG, spaces collapsed and trimmed
	NoFollow bool   // <meta name=robots> content has "nofollow" or "none"
	NoIndex  bool   // <meta name=robots> content has "noindex" or "none"
	// Generator is the content of the first <meta name=generator> (the software that made
	// the page: "MediaWiki 1.39.17", "WordPress 6.1.9"), spaces collapsed and trimmed.
	Generator string

	// Document is the search document of an HTML page, set by ParseDocument only. It is
	// extracted for noindex pages too; a crawl that obeys robots writes none for them.
	Document *Document

	// OutlinksDropped is the number of distinct references (value and hop letter, before
	// resolution) left out of Outlinks because Options.MaxOutlinks was reached.
	OutlinksDropped int
}

// Options bounds one parse and says what it returns besides outlinks.
type Options struct {
	// Document, when not nil, asks for the search document of an HTML page within its
	// limits (ParseDocument).
	Document *DocConfig
	// MaxOutlinks bounds the references kept from one body, so that the memory of a parse
	// does not grow with the number of links in it: at most MaxOutlinks references are
	// kept, hence at most MaxOutlinks outlinks returned. Embeds, redirects and inferred
	// references are kept before links (hop.Link): once the bound is reached, each later
	// one takes the place of the latest link kept; later links are dropped. Links kept
	// are the first ones in document order. Result.OutlinksDropped counts what was left
	// out. Zero or negative: no bound.
	MaxOutlinks int
	// RefreshRedirectMax, when not nil, is the longest delay in seconds of an HTML
	// <meta http-equiv=refresh> that is a redirect (hop.Redirect, as a Refresh header is);
	// the target of a longer one is a link (hop.Link), as FAST's html_redir_is_redir and
	// html_redir_threshold say. Negative: every meta refresh is a link. The delay is the
	// refresh value's whole seconds ("2.9; url=x" waits 2). nil: every meta refresh is a
	// redirect, whatever its delay (as Heritrix). The context is "meta/@content" either way.
	RefreshRedirectMax *int
}

// Parse extracts from body according to the media type of contentType: text/html and
// application/xhtml+xml go to HTML, text/css to CSS; any other type gives a Result holding
// only Base. body is the decoded payload (no transfer or content encoding). The only error
// is ErrPageURL; broken bodies are never an error.
func Parse(pageURL, contentType string, body []byte) (Result, error) {
	return ParseWith(pageURL, contentType, body, Options{})
}

// ParseWith is Parse, or with opt.Document ParseDocument, with the bounds of opt.
func ParseWith(pageURL, contentType string, body []byte, opt Options) (Result, error) {
	switch MediaType(contentType) {
	case "text/html", "application/xhtml+xml":
		var cfg *DocConfig
		if opt.Document != nil {
			c := *opt.Document
			cfg = &c
		}
		return parseHTML(pageURL, contentType, body, cfg, opt.MaxOutlinks, opt.RefreshRedirectMax)
	case "text/css":
		r, err := newResolver(pageURL, "")
		if err != nil {
			return Result{}, err
		}
		refs := cssRefs(body, opt.MaxOutlinks)
		defer refs.release()
		return Result{Outlinks: resolveAll(r, refs.links), Base: pageURL, OutlinksDropped: refs.dropCount()}, nil
	}
	if _, err := newResolver(pageURL, ""); err != nil {
		return Result{}, err
	}
	return Result{Base: pageURL}, nil
}

// ParseDocument is Parse that also extracts, for an HTML page and in the same pass over the
// body, its search document (Result.Document) within the limits of cfg. For other types it
// is Parse (see ParseBinary for PDF).
//
// The page is decoded to UTF-8 from, in order: a byte order mark; the charset parameter of
// contentType; a <meta charset> or <meta http-equiv=Content-Type> in its first 1024 bytes;
// else windows-1252. A charset declared only in the markup, or none, gives way to UTF-8
// when the whole body is valid UTF-8. Invalid bytes become U+FFFD, so every string of the
// document is valid UTF-8.
//
// The text (body_content) is that of the text nodes of the page, entities decoded, with
// runs of white space (Unicode White_Space, no-break space included) collapsed to one
// space and trimmed. Block elements and <br> separate words; inline elements (a, b, span,
// em, ...) do not. Left out, as in Elastic's crawler: comments, the title (its own field),
// and the content of script, style, noscript, template, iframe, object, embed, video,
// audio, canvas, svg, math, noframes, noembed and datalist. An element with
// data-elastic-exclude is left out with its content, except the parts under an element
// with data-elastic-include, nested to any depth (include wins on an element with both).
// Links inside excluded parts are still outlinks and document links.
//
// Headings are the texts of h1-h6 outside excluded parts (each limited like the title),
// distinct, in document order; links are the distinct absolute URLs of a[href] in
// document order (nofollow ones too). Custom fields come from <meta class="elastic"
// name=N content=V> (or class "swiftype") and from elements with data-elastic-name=N (or
// data-swiftype-name): their text, or their content attribute when they have one;
// names are trimmed and lower-cased, see Document for rejected names.
func ParseDocument(pageURL, contentType string, body []byte, cfg DocConfig) (Result, error) {
	return ParseWith(pageURL, contentType, body, Options{Document: &cfg})
}

// MediaType returns the lower-cased media type of a Content-Type value without its
// parameters, tolerating malformed ones; "" for an empty value.
//
// It is the media type mime.ParseMediaType returns when the value parses, which that function
// takes the same way whether or not the parameters parse; without building their map (a
// page's Content-Type is read several times). TestMediaType and FuzzMediaType hold the two to
// the same answer.
func MediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.TrimSpace(strings.ToLower(mt))
}

// Reads reports whether Parse reads links from a body of the media type mt (as MediaType
// returns it): HTML, XHTML and CSS.
func Reads(mt string) bool { return IsHTML(mt) || mt == "text/css" }

// IsHTML reports whether the media type mt is an HTML page's: text/html or XHTML.
func IsHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

// Favicon returns the inferred outlink scheme://host[:port]/favicon.ico (hop letter hop.Inferred,
// context "inferred") for the origin of pageURL. Userinfo is dropped. The URL is empty when
// pageURL is not an absolute http or https URL with a host.
func Favicon(pageURL string) Outlink {
	u, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Outlink{Hop: hop.Inferred, Context: "inferred"}
	}
	return Outlink{
		URL:     u.Scheme + "://" + strings.ToLower(u.Host) + "/favicon.ico",
		Hop:     hop.Inferred,
		Context: "inferred",
	}
}

// RefreshURL returns the absolute target of a Refresh HTTP header value (or the content of a
// <meta http-equiv=refresh>), such as "5; url=/next", resolved against pageURL with the rules
// of the package doc. It reports false when the value is malformed, names no URL (a plain
// reload), or names a URL that is skipped (javascript:, unparsable, ...).
func RefreshURL(pageURL, headerValue string) (string, bool) {
	ref, ok := refreshTarget(headerValue)
	if !ok {
		return "", false
	}
	r, err := newResolver(pageURL, "")
	if err != nil {
		return "", false
	}
	return r.resolve(ref)
}

// link is an outlink before resolution: the raw reference and where it came from.
type link struct {
	ref      string
	hop      byte
	context  string
	nofollow bool // an a or area with rel=nofollow
	feed     bool // a <link rel=alternate> of an RSS or Atom type
	anchor   bool // an a[href] of the top-level document: a search document link
	evicted  bool // dropped from a refList after it was kept
}

// resolveAll resolves refs against r, drops the skipped ones and de-duplicates by (URL, hop).
func resolveAll(r *resolver, refs []link) []Outlink {
	if len(refs) == 0 {
		return nil
	}
	m := resolveMaps.Get().(*resolveSets)
	defer m.release()
	seen, raw := m.seen, m.raw // index in out; references already resolved: index in out, or -1
	out := make([]Outlink, 0, len(refs))
	for _, l := range refs {
		if l.evicted {
			continue
		}
		if i, dup := raw[refKey{l.ref, l.hop}]; dup {
			if i >= 0 {
				out[i].NoFollow = out[i].NoFollow && l.nofollow
				out[i].Feed = out[i].Feed || l.feed
			}
			continue
		}
		u, ok := r.resolve(l.ref)
		if !ok {
			raw[refKey{l.ref, l.hop}] = -1
			continue
		}
		k := refKey{u, l.hop}
		if i, dup := seen[k]; dup {
			raw[refKey{l.ref, l.hop}] = i
			out[i].NoFollow = out[i].NoFollow && l.nofollow
			out[i].Feed = out[i].Feed || l.feed
			continue
		}
		seen[k] = len(out)
		raw[refKey{l.ref, l.hop}] = len(out)
		out = append(out, Outlink{URL: u, Hop: l.hop, Context: l.context, NoFollow: l.nofollow, Feed: l.feed})
	}
	if len(out) == 0 {
		return nil // no outlinks: nil, not an empty list
	}
	return out
}

// resolveSets are resolveAll's maps, reused from page to page.
type resolveSets struct {
	seen, raw map[refKey]int
}

var resolveMaps = sync.Pool{New: func() any {
	return &resolveSets{seen: map[refKey]int{}, raw: map[refKey]int{}}
}}

// release empties m and gives it back for reuse, unless a page with very many references
// grew it.
func (m *resolveSets) release() {
	if len(m.raw) > maxPooledRefs {
		return
	}
	clear(m.seen)
	clear(m.raw)
	resolveMaps.Put(m)
}

// errPageURL wraps ErrPageURL with the offending value.
func errPageURL(pageURL string) error {
	return fmt.Errorf("%w: %q", ErrPageURL, pageURL)
}
