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
package extract

import (
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
)

// Hop letters (spec/scope.md §1) carried by Outlink.Hop.
const (
	HopLink        byte = 'L' // a navigational link: a, area, GET form, non-embed link rel
	HopEmbed       byte = 'E' // a resource the page needs to render: img, script, CSS, ...
	HopSpeculative byte = 'X' // a URL-looking string in JavaScript
	HopRedirect    byte = 'R' // a meta refresh or Refresh header
	HopInferred    byte = 'I' // /favicon.ico
)

// ErrPageURL is returned (wrapped, with the offending value) when the page URL given to an
// extractor is not an absolute URL with a scheme (and, for http and https, a host).
var ErrPageURL = errors.New("extract: invalid page URL")

// Outlink is one URL found in a body.
type Outlink struct {
	URL     string // absolute, resolved against the base URL, fragment dropped (not canonicalised)
	Hop     byte   // one of HopLink, HopEmbed, HopRedirect, HopInferred (HopSpeculative is reserved)
	Context string // where the URL was found, e.g. "a/@href", "css/url()" (see the package doc)
}

// Result is what Parse learns from one body.
type Result struct {
	Outlinks []Outlink // nil when there are none
	Base     string    // effective base URL: the resolved first <base href>, else the page URL

	// HTML only.
	Title    string // text of the first <title> outside SVG, spaces collapsed and trimmed
	NoFollow bool   // <meta name=robots> content has "nofollow" or "none"
	NoIndex  bool   // <meta name=robots> content has "noindex" or "none"
}

// Parse extracts from body according to the media type of contentType: text/html and
// application/xhtml+xml go to HTML, text/css to CSS; any other type gives a Result holding
// only Base. body is the decoded payload (no transfer or content encoding). The only error
// is ErrPageURL; broken bodies are never an error.
func Parse(pageURL, contentType string, body []byte) (Result, error) {
	switch mediaType(contentType) {
	case "text/html", "application/xhtml+xml":
		return HTML(pageURL, body)
	case "text/css":
		links, err := CSS(pageURL, body)
		if err != nil {
			return Result{}, err
		}
		return Result{Outlinks: links, Base: pageURL}, nil
	}
	if _, err := newResolver(pageURL, ""); err != nil {
		return Result{}, err
	}
	return Result{Base: pageURL}, nil
}

// mediaType returns the lower-cased media type of a Content-Type value, tolerating
// malformed parameters.
func mediaType(contentType string) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// Favicon returns the inferred outlink scheme://host[:port]/favicon.ico (hop HopInferred,
// context "inferred") for the origin of pageURL. Userinfo is dropped. The URL is empty when
// pageURL is not an absolute http or https URL with a host.
func Favicon(pageURL string) Outlink {
	u, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Outlink{Hop: HopInferred, Context: "inferred"}
	}
	return Outlink{
		URL:     u.Scheme + "://" + strings.ToLower(u.Host) + "/favicon.ico",
		Hop:     HopInferred,
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
	ref     string
	hop     byte
	context string
}

// resolveAll resolves refs against r, drops the skipped ones and de-duplicates by (URL, hop).
func resolveAll(r *resolver, refs []link) []Outlink {
	if len(refs) == 0 {
		return nil
	}
	type key struct {
		url string
		hop byte
	}
	seen := make(map[key]struct{}, len(refs))
	raw := make(map[key]struct{}, len(refs)) // references already resolved
	var out []Outlink
	for _, l := range refs {
		if _, dup := raw[key{l.ref, l.hop}]; dup {
			continue
		}
		raw[key{l.ref, l.hop}] = struct{}{}
		u, ok := r.resolve(l.ref)
		if !ok {
			continue
		}
		k := key{u, l.hop}
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		out = append(out, Outlink{URL: u, Hop: l.hop, Context: l.context})
	}
	return out
}

// errPageURL wraps ErrPageURL with the offending value.
func errPageURL(pageURL string) error {
	return fmt.Errorf("%w: %q", ErrPageURL, pageURL)
}
