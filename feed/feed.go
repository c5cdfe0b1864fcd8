// Package feed reads web feeds, RSS (2.0, and the 0.9x and 1.0 RDF dialects) and Atom 1.0,
// for the URLs of their items: the pages a channel announces. Like package sitemap, it
// streams the document, gzip-compressed or not, and bounds what one feed may cost: at most
// Limits.MaxLinks links and Limits.MaxBytes uncompressed bytes are read, whatever it holds.
package feed

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/amber-crawler/amber/internal/boundedread"
)

// Kind is the format of a feed.
type Kind int

// The kinds of feed.
const (
	RSS  Kind = iota + 1 // <rss> (0.9x, 2.0) or <rdf:RDF> (RSS 1.0)
	Atom                 // <feed> (Atom 1.0)
)

// String returns "rss" or "atom" ("unknown" for any other value).
func (k Kind) String() string {
	switch k {
	case RSS:
		return "rss"
	case Atom:
		return "atom"
	}
	return "unknown"
}

// The defaults of Limits.
const (
	// MaxLinks is FAST's max_link_count default: the links kept per channel.
	MaxLinks = 128
	// MaxBytes bounds a feed's document, uncompressed: 10 MiB, far above real feeds.
	MaxBytes = 10 << 20
)

// Why a Result is truncated (Result.Truncated).
const (
	TruncatedLinks = "max-links" // the feed has more items than Limits.MaxLinks
	TruncatedBytes = "max-bytes" // the feed is larger than Limits.MaxBytes, uncompressed
)

// Limits bound what Parse reads of one feed.
type Limits struct {
	// MaxLinks is the most item links kept, the first ones in document order (feeds list
	// their newest items first); the parse stops at the first one beyond. Zero or negative:
	// MaxLinks (128).
	MaxLinks int
	// MaxBytes is the most bytes of the document read, counted after gzip decompression.
	// Zero or negative: MaxBytes (10 MiB).
	MaxBytes int64
}

// DefaultLimits returns 128 links (FAST's max_link_count default) and 10 MiB.
func DefaultLimits() Limits { return Limits{MaxLinks: MaxLinks, MaxBytes: MaxBytes} }

func (l Limits) withDefaults() Limits {
	if l.MaxLinks <= 0 {
		l.MaxLinks = MaxLinks
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = MaxBytes
	}
	return l
}

// Result is what a feed announces.
type Result struct {
	Kind Kind
	// Links are the URLs of the feed's items in document order, one per item: an RSS
	// item's <link> text, else its <guid> unless isPermaLink="false"; an Atom entry's first
	// <link> whose rel is absent or "alternate". Entities are decoded and surrounding
	// whitespace trimmed; the URLs are neither resolved (an Atom href may be relative to
	// the feed's URL) nor canonicalised. Duplicates are kept.
	Links []string
	// Skipped counts the items left out for having no link.
	Skipped int
	// Truncated is "" when the whole feed was read, else TruncatedLinks or TruncatedBytes:
	// Links holds what was read up to the limit.
	Truncated string
}

var (
	// ErrNotFeed is wrapped by Parse's error for a document that is not a feed: empty, not
	// XML, XML whose root is not rss, RDF or feed (an HTML page, a sitemap), or a gzip
	// stream that is corrupt before the root element.
	ErrNotFeed = errors.New("feed: not a feed")
	// ErrMalformed is wrapped by Parse's error for a feed that breaks off (malformed XML, a
	// corrupt gzip stream) after its root element: Parse returns the links read before.
	ErrMalformed = errors.New("feed: malformed feed")
)

// format names the errors of a feed for boundedread.
var format = boundedread.Format{Name: "feed", Not: ErrNotFeed, Malformed: ErrMalformed}

// Parse reads one feed from r: gzip-compressed or not (told by its first two bytes), then
// XML in any encoding it declares, with or without namespaces (element names are matched by
// their local name, case-insensitively). It stops at the first link beyond limits.MaxLinks or
// at limits.MaxBytes uncompressed bytes and returns what it read with Result.Truncated set,
// not an error.
//
// A document that is not a feed is an error wrapping ErrNotFeed, with a nil Result. Once the
// root is recognised, a fault ends the parse: Parse returns the Result so far with an error
// wrapping ErrMalformed, or the error of r.
func Parse(r io.Reader, limits Limits) (*Result, error) {
	limits = limits.withDefaults()
	in, err := boundedread.Open(r, limits.MaxBytes, format)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	p := &parser{limits: limits, in: in}
	return p.parse()
}

// parser is one Parse call.
type parser struct {
	limits Limits
	in     *boundedread.Reader
	res    Result
}

// end ends the parse with err: without a Result before the root element was recognised.
func (p *parser) end(err error) (*Result, error) {
	if p.res.Kind == 0 {
		return nil, err
	}
	return &p.res, err
}

// item is the state of the RSS item or Atom entry being read.
type item struct {
	depth    int    // depth of the item element; 0: not in one
	link     string // the link found so far
	hasLink  bool
	guid     string // RSS: a permalink guid, used when there is no link
	text     []byte // text of the child element being read
	inChild  string // "link" or "guid" while reading that child's text
	permaOff bool   // the guid being read has isPermaLink="false"
}

// parse reads the document token by token, keeping only what makes the item links.
func (p *parser) parse() (*Result, error) {
	d := boundedread.NewXMLDecoder(bufio.NewReaderSize(p.in, 32<<10))
	var (
		depth int
		it    item
	)
	for {
		tok, err := d.RawToken()
		if err != nil {
			if err = p.in.EndXML(p.res.Kind != 0, err); err == nil {
				p.res.Truncated = TruncatedBytes // what was read before the limit stands
			}
			return p.end(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := strings.ToLower(t.Name.Local)
			switch {
			case depth == 1:
				switch name {
				case "rss", "rdf":
					p.res.Kind = RSS
				case "feed":
					p.res.Kind = Atom
				default:
					return nil, fmt.Errorf("%w: XML root element <%s>", ErrNotFeed, t.Name.Local)
				}
			case it.depth == 0 && (p.res.Kind == RSS && name == "item" || p.res.Kind == Atom && name == "entry"):
				it = item{depth: depth}
			case it.depth > 0 && depth == it.depth+1:
				p.child(&it, name, t.Attr)
			}
		case xml.EndElement:
			switch {
			case depth == 0:
				return nil, fmt.Errorf("%w: end tag </%s> before the root element", ErrNotFeed, t.Name.Local)
			case depth == 1:
				return &p.res, nil // the root is closed
			case it.depth > 0 && depth == it.depth:
				if !p.add(&it) {
					return &p.res, nil
				}
				it = item{}
			case it.depth > 0 && depth == it.depth+1 && it.inChild != "":
				p.endChild(&it)
			}
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return nil, fmt.Errorf("%w: text before the root element", ErrNotFeed)
			}
			if it.inChild != "" && len(it.text) < 1<<16 {
				it.text = append(it.text, t...)
			}
		}
	}
}

// child starts a direct child of an item: an RSS link or guid (text follows), an Atom link
// (its href).
func (p *parser) child(it *item, name string, attrs []xml.Attr) {
	if p.res.Kind == Atom {
		if name != "link" || it.hasLink {
			return
		}
		var href, rel string
		for _, a := range attrs {
			switch strings.ToLower(a.Name.Local) {
			case "href":
				href = a.Value
			case "rel":
				rel = a.Value
			}
		}
		rel = strings.ToLower(strings.TrimSpace(rel))
		if href = strings.TrimSpace(href); href != "" && (rel == "" || rel == "alternate") {
			it.link, it.hasLink = href, true
		}
		return
	}
	switch name {
	case "link", "guid":
		it.inChild, it.text, it.permaOff = name, it.text[:0], false
		for _, a := range attrs {
			if strings.EqualFold(a.Name.Local, "isPermaLink") && strings.EqualFold(strings.TrimSpace(a.Value), "false") {
				it.permaOff = true
			}
		}
	}
}

// endChild ends an RSS link or guid.
func (p *parser) endChild(it *item) {
	text := string(bytes.TrimSpace(it.text))
	switch {
	case it.inChild == "link" && !it.hasLink && text != "":
		it.link, it.hasLink = text, true
	case it.inChild == "guid" && !it.permaOff && it.guid == "" && text != "":
		it.guid = text
	}
	it.inChild = ""
}

// add keeps the link of an item that ended; it reports false when the link is one beyond
// MaxLinks: the parse stops there, truncated.
func (p *parser) add(it *item) bool {
	link := it.link
	if !it.hasLink {
		link = it.guid
	}
	if link == "" {
		p.res.Skipped++
		return true
	}
	if len(p.res.Links) == p.limits.MaxLinks {
		p.res.Truncated = TruncatedLinks
		return false
	}
	p.res.Links = append(p.res.Links, link)
	return true
}
