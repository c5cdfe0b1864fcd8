// Package boundedread opens the documents that packages sitemap and feed parse: a stream,
// gzip-compressed or not (told by its first two bytes), read up to a number of uncompressed
// bytes, so that a small compressed file cannot make a parser read more. It tells a corrupt
// gzip stream (a fault of the document) from an error of the stream itself (a fault of
// reading it), and says whether the bound cut the document.
package boundedread

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"golang.org/x/net/html/charset"
)

// Format names the errors of one document format, which Open and Reader's methods wrap.
type Format struct {
	// Name starts the message of an error of the stream itself: "Name: read: ERR".
	Name string
	// Not is wrapped for a document that is not of the format, among them one whose gzip
	// stream is corrupt before the document was recognised.
	Not error
	// Malformed is wrapped for a document that breaks off (malformed, or a corrupt gzip
	// stream) after it was recognised.
	Malformed error
}

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// Reader reads a document opened by Open: decompressed if it is gzip, then at most max bytes,
// after which it reports io.EOF.
type Reader struct {
	format Format
	max    int64
	zr     *gzip.Reader // nil: the document is not compressed
	src    io.Reader    // the document, decompressed
	left   int64        // bytes left before the bound
	over   bool         // the document had more than max bytes
	err    error        // the first error of src other than io.EOF
}

// Open returns a Reader of the document r holds, gzip-compressed or not (told by its first two
// bytes, never by a name or a media type), that reads at most max uncompressed bytes (max > 0).
// A gzip header that is corrupt is an error wrapping f.Not; an error of r reading it is
// "f.Name: read: ERR".
func Open(r io.Reader, max int64, f Format) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	b := &Reader{format: f, max: max, src: br, left: max}
	if head, _ := br.Peek(len(gzipMagic)); bytes.Equal(head, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			if IsCorrupt(err) {
				return nil, fmt.Errorf("%w: gzip: %w", f.Not, err)
			}
			return nil, fmt.Errorf("%s: read: %w", f.Name, err)
		}
		b.zr, b.src = zr, zr
	}
	return b, nil
}

// Read reads the document; it reports io.EOF at its end or at the bound, whichever is first.
func (b *Reader) Read(p []byte) (int, error) {
	if b.over {
		return 0, io.EOF
	}
	// One byte more than allowed tells a document of exactly the bound from a longer one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.src.Read(p)
	if int64(n) > b.left {
		n, b.left, b.over = int(b.left), 0, true
		return n, io.EOF
	}
	b.left -= int64(n)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

// Over reports whether the bound cut the document: it has more than max bytes, uncompressed,
// and Read reported io.EOF after the first max.
func (b *Reader) Over() bool { return b.over }

// Max is the bound: the most uncompressed bytes Read returns.
func (b *Reader) Max() int64 { return b.max }

// Close releases the gzip decompressor, if any; it does not close the stream Open was given.
func (b *Reader) Close() error {
	if b.zr == nil {
		return nil
	}
	return b.zr.Close()
}

// Fault returns the error that ends a parse on err, the error met reading the document:
// "Name: read: ERR" with the first error of the stream itself if there was one (not a
// corrupt gzip stream), else err wrapped in Format.Not before the document was recognised
// and in Format.Malformed after.
func (b *Reader) Fault(recognised bool, err error) error {
	if e := b.err; e != nil && !IsCorrupt(e) {
		return fmt.Errorf("%s: read: %w", b.format.Name, e)
	}
	if !recognised {
		return fmt.Errorf("%w: %w", b.format.Not, err)
	}
	return fmt.Errorf("%w: %w", b.format.Malformed, err)
}

// NewXMLDecoder returns a decoder of the XML document r holds that reads it as browsers do
// rather than lose the rest of it: not strict (real sitemaps and feeds have unescaped
// ampersands in URLs), with the HTML entities, in any encoding the document declares.
func NewXMLDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charset.NewReaderLabel
	return d
}

// EndXML returns what err, the error that ended an XML token stream read from b, means for a
// parse: nil when the bound cut a document that was recognised (what was read stands,
// truncated); an error wrapping Format.Not when no root element was recognised; else what
// Fault returns (a document whose root element is not closed breaks off).
func (b *Reader) EndXML(recognised bool, err error) error {
	if b.over {
		if !recognised {
			return fmt.Errorf("%w: no root element within %d bytes", b.format.Not, b.max)
		}
		return nil
	}
	if err == io.EOF {
		if !recognised {
			return fmt.Errorf("%w: no root element", b.format.Not)
		}
		err = io.ErrUnexpectedEOF // the root element was not closed
	}
	return b.Fault(recognised, err)
}

// IsCorrupt reports whether an error met reading a gzip stream is the fault of its data (a
// bad header or checksum, corrupt deflate data, a stream cut short) rather than of reading it.
func IsCorrupt(err error) bool {
	var flateErr flate.CorruptInputError
	return errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &flateErr)
}
