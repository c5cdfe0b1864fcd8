// Package sitemap reads sitemap files (sitemaps.org protocol 0.9): an XML urlset, an XML
// sitemap index, or a plain-text list of URLs, any of them gzip-compressed. It streams the
// document and bounds what one file may cost: at most Limits.MaxURLs URLs and
// Limits.MaxBytes uncompressed bytes are read, whatever the file holds.
package sitemap

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

// Kind is the format of a sitemap file.
type Kind int

// The kinds of sitemap file.
const (
	URLSet Kind = iota + 1 // <urlset>: URLs of pages
	Index                  // <sitemapindex>: URLs of further sitemap files
	Text                   // plain text, one URL per line
)

// String returns "urlset", "index" or "text" ("unknown" for any other value).
func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "index"
	case Text:
		return "text"
	}
	return "unknown"
}

// The limits of the sitemaps.org protocol for one file, the defaults of Limits.
const (
	MaxURLs  = 50_000
	MaxBytes = 50 << 20 // 50 MiB, uncompressed
)

// Why a Result is truncated (Result.Truncated).
const (
	TruncatedURLs  = "max-urls"  // the file lists more than Limits.MaxURLs URLs
	TruncatedBytes = "max-bytes" // the file is larger than Limits.MaxBytes, uncompressed
)

// Limits bound what Parse reads of one file.
type Limits struct {
	// MaxURLs is the most URLs kept; the parse stops at the first one beyond. Zero or
	// negative: MaxURLs (50,000).
	MaxURLs int
	// MaxBytes is the most bytes of the document read, counted after gzip decompression, so
	// that a small compressed file cannot make Parse read more. Zero or negative: MaxBytes
	// (50 MiB).
	MaxBytes int64
}

// DefaultLimits returns the limits of the sitemaps.org protocol: 50,000 URLs and 50 MiB.
func DefaultLimits() Limits { return Limits{MaxURLs: MaxURLs, MaxBytes: MaxBytes} }

// withDefaults returns l with its unset fields at the protocol's limits.
func (l Limits) withDefaults() Limits {
	if l.MaxURLs <= 0 {
		l.MaxURLs = MaxURLs
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = MaxBytes
	}
	return l
}

// Result is what a sitemap file lists.
type Result struct {
	Kind Kind
	// URLs are the URLs the file lists, in document order: the <loc> of each <url> of a
	// urlset or each <sitemap> of an index (entities decoded, surrounding whitespace
	// trimmed), or each line of a text file (trimmed). Only absolute http and https URLs are
	// kept; they are neither resolved nor canonicalised. Duplicates are kept.
	URLs []string
	// Skipped counts the entries left out for not being an absolute http(s) URL (an empty
	// <loc>, a relative one, a text line with another scheme).
	Skipped int
	// Truncated is "" when the whole file was read, else TruncatedURLs or TruncatedBytes:
	// URLs holds what was read up to the limit and the rest was not read.
	Truncated string
}

var (
	// ErrNotSitemap is wrapped by Parse's error for a document that is not a sitemap: empty,
	// XML whose root is neither urlset nor sitemapindex (an HTML page, a feed), text whose
	// first non-blank line is not an http(s) URL, or a gzip stream that is corrupt before any
	// of that can be told.
	ErrNotSitemap = errors.New("sitemap: not a sitemap")
	// ErrMalformed is wrapped by Parse's error for a sitemap that breaks off: malformed XML
	// or a corrupt gzip stream after the document was recognised. Parse returns the URLs
	// read before the fault with it.
	ErrMalformed = errors.New("sitemap: malformed sitemap")
)

// format names the errors of a sitemap for boundedread.
var format = boundedread.Format{Name: "sitemap", Not: ErrNotSitemap, Malformed: ErrMalformed}

// Parse reads one sitemap file from r: gzip-compressed or not (told by its first two bytes,
// never by a name or a media type), then XML (a urlset or a sitemap index, with the
// sitemaps.org namespace, another one or none) or plain text (one URL per line; blank lines
// and surrounding whitespace ignored). It stops at the first URL beyond limits.MaxURLs or at
// limits.MaxBytes uncompressed bytes and then returns what it read with Result.Truncated
// set, not an error.
//
// A document that is not a sitemap is an error wrapping ErrNotSitemap, with a nil Result.
// Once the document is recognised, a fault ends the parse: Parse returns the Result so far
// with the error, which wraps ErrMalformed for malformed XML or a corrupt gzip stream, or the
// error of r. The optional elements (lastmod, changefreq, priority) are not read.
func Parse(r io.Reader, limits Limits) (*Result, error) {
	limits = limits.withDefaults()
	in, err := boundedread.Open(r, limits.MaxBytes, format)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	p := &parser{limits: limits, in: in, r: bufio.NewReaderSize(in, 64<<10)}
	first, err := p.firstByte()
	if err != nil {
		return nil, err
	}
	if first == '<' {
		return p.xml()
	}
	return p.text()
}

// parser is one Parse call.
type parser struct {
	limits Limits
	in     *boundedread.Reader
	r      *bufio.Reader // over in
	res    Result
}

// firstByte skips a byte order mark and whitespace and returns the first other byte, unread.
func (p *parser) firstByte() (byte, error) {
	if bom, _ := p.r.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		p.r.Discard(3)
	}
	for {
		b, err := p.r.ReadByte()
		if err == io.EOF {
			return 0, fmt.Errorf("%w: empty document", ErrNotSitemap)
		}
		if err != nil {
			_, err = p.fail(err)
			return 0, err
		}
		if !isSpace(b) {
			p.r.UnreadByte()
			return b, nil
		}
	}
}

// fail ends the parse on err, met reading the document: with ErrNotSitemap before the
// document was recognised, with what was read and ErrMalformed after; an error of the reader
// itself is returned as it is.
func (p *parser) fail(err error) (*Result, error) {
	return p.end(p.in.Fault(p.res.Kind != 0, err))
}

// end ends the parse with err: without a Result before the document was recognised.
func (p *parser) end(err error) (*Result, error) {
	if p.res.Kind == 0 {
		return nil, err
	}
	return &p.res, err
}

// add keeps one entry (surrounding whitespace ignored) if it is an absolute http(s) URL; it
// reports false when the entry is one beyond MaxURLs: the parse stops there, truncated.
func (p *parser) add(entry []byte) bool {
	entry = bytes.TrimSpace(entry)
	if !isHTTPURL(entry) {
		p.res.Skipped++
		return true
	}
	if len(p.res.URLs) == p.limits.MaxURLs {
		p.res.Truncated = TruncatedURLs
		return false
	}
	p.res.URLs = append(p.res.URLs, string(entry))
	return true
}

// isHTTPURL reports whether s starts with http:// or https:// (in any case), has more after
// it, and holds no control character.
func isHTTPURL(s []byte) bool {
	rest, ok := cutPrefixFold(s, "http://")
	if !ok {
		rest, ok = cutPrefixFold(s, "https://")
	}
	if !ok || len(rest) == 0 {
		return false
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

func cutPrefixFold(s []byte, prefix string) ([]byte, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(string(s[:len(prefix)]), prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// text reads a plain-text sitemap: one URL per line. Its first non-blank line must be an
// http(s) URL, or it is not a sitemap.
func (p *parser) text() (*Result, error) {
	var long []byte // a line longer than the reader's buffer, gathered
	for {
		chunk, err := p.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		if err != nil && err != io.EOF {
			return p.fail(err)
		}
		eof := err == io.EOF
		if eof && p.in.Over() {
			// The limit cut the last line: what is left of it may be another URL.
			break
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = long[:0]
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if p.res.Kind == 0 {
				if !isHTTPURL(line) {
					return nil, fmt.Errorf("%w: text whose first line is not an http(s) URL", ErrNotSitemap)
				}
				p.res.Kind = Text
			}
			if !p.add(line) {
				return &p.res, nil
			}
		}
		if eof {
			break
		}
	}
	if p.res.Kind == 0 {
		if p.in.Over() {
			return nil, fmt.Errorf("%w: no URL within %d bytes", ErrNotSitemap, p.limits.MaxBytes)
		}
		return nil, fmt.Errorf("%w: empty document", ErrNotSitemap)
	}
	if p.in.Over() {
		p.res.Truncated = TruncatedBytes
	}
	return &p.res, nil
}

// xml reads an XML sitemap token by token: only the text of the <loc> elements directly
// inside the root's <url> (urlset) or <sitemap> (index) children is kept. Element names are
// matched without their namespace prefix and case.
func (p *parser) xml() (*Result, error) {
	d := boundedread.NewXMLDecoder(p.r)
	var (
		depth int
		entry string // local name of the root's children that hold a <loc>
		inEnt bool   // inside one of the root's children named entry
		inLoc bool   // inside the <loc> of such a child
		loc   []byte
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
			switch {
			case depth == 1:
				switch {
				case strings.EqualFold(t.Name.Local, "urlset"):
					p.res.Kind, entry = URLSet, "url"
				case strings.EqualFold(t.Name.Local, "sitemapindex"):
					p.res.Kind, entry = Index, "sitemap"
				default:
					return nil, fmt.Errorf("%w: XML root element <%s>", ErrNotSitemap, t.Name.Local)
				}
			case depth == 2:
				inEnt = strings.EqualFold(t.Name.Local, entry)
			case depth == 3 && inEnt && strings.EqualFold(t.Name.Local, "loc"):
				inLoc, loc = true, loc[:0]
			}
		case xml.EndElement:
			switch depth {
			case 0:
				return nil, fmt.Errorf("%w: end tag </%s> before the root element", ErrNotSitemap, t.Name.Local)
			case 1:
				// The root is closed: whatever follows is not part of the sitemap.
				return &p.res, nil
			case 2:
				inEnt = false
			case 3:
				if inLoc {
					inLoc = false
					if !p.add(loc) {
						return &p.res, nil
					}
				}
			}
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return nil, fmt.Errorf("%w: text before the root element", ErrNotSitemap)
			}
			if inLoc {
				loc = append(loc, t...)
			}
		}
	}
}
