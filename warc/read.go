package warc

import (
	"bufio"
	"fmt"
	"io"
	"net/http/httputil"

	"github.com/klauspost/compress/gzip"
)

// Record is a record opened by ReadRecord: what its head says, and its block to read once.
type Record struct {
	RecordHead
	// ContentType is the record's Content-Type, such as "application/http; msgtype=response"
	// or, for a resource record, the type of the resource ("image/png").
	ContentType string
	// HTTP is the status line and header fields of the HTTP response at the start of the
	// block of a response or revisit record (Content-Type application/http, or none); nil
	// for other records, for a revisit without a block (server-not-modified) and for a block
	// that does not start with an HTTP status line.
	HTTP *HTTPHead

	body     io.Reader // the rest of the block
	bodySize int64     // its length; -1 when the record has no Content-Length
	chunked  bool      // HTTP declares the chunked transfer coding alone
}

// HTTPHead is the head of a recorded HTTP response, as recorded.
type HTTPHead struct {
	Proto  string // "HTTP/1.1"
	Status int    // 0 when the status code does not parse
	Reason string // the reason phrase, maybe ""
	// Fields are the header fields in the recorded order: names as written, values with the
	// white space around them removed, an obsolete line folding joined to its field with a
	// space.
	Fields []Field
}

// Get returns the value of the first field called name (in any letter case), "" when none is.
func (h *HTTPHead) Get(name string) string {
	for _, f := range h.Fields {
		if equalFoldASCII(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Body returns a reader of the rest of the block: the message body as recorded when HTTP is
// set (transfer and content codings as they crossed the wire), else the whole block. It can
// be read once.
func (r *Record) Body() io.Reader { return r.body }

// Payload returns a reader of the payload as WARC 1.1 §5.9 defines it, the entity body: the
// message body with the chunked transfer coding removed and the content coding (gzip, br,
// ...) kept; for a record without HTTP, the block. The body is de-chunked when the head
// declares the chunked coding alone, the only framing browsers and Go's net/http de-chunk
// (HTTP/1.1 or later, one Transfer-Encoding field, "chunked"); otherwise it is the body as
// stored. Chunked framing that does not parse (a truncated capture, a bad size line) ends the
// payload where it breaks, which is what a browser showed of it (the record's
// WARC-Payload-Digest may then be over the body as stored, framing included); only errors
// reading the record itself are returned. It reads what Body reads: use one of them.
func (r *Record) Payload() io.Reader {
	if !r.chunked {
		return r.body
	}
	src := &errReader{r: r.body}
	return &dechunker{src: src, cr: httputil.NewChunkedReader(src)}
}

// PayloadSize returns the length of what Payload reads when the record says it without being
// read: the body of a record with a Content-Length, when it is not chunked. It is -1 when
// only reading the payload tells (a chunked body, a record without a Content-Length). A
// record cut short (a truncated gzip member) gives a read error before that length.
func (r *Record) PayloadSize() int64 {
	if r.chunked {
		return -1
	}
	return r.bodySize
}

// dechunker reads a chunked body; broken framing is the end of it.
type dechunker struct {
	src *errReader
	cr  io.Reader
}

func (d *dechunker) Read(p []byte) (int, error) {
	n, err := d.cr.Read(p)
	if err != nil && err != io.EOF {
		if d.src.err != nil && d.src.err != io.EOF {
			return n, d.src.err
		}
		err = io.EOF
	}
	return n, err
}

// maxHTTPHead bounds the HTTP header block ReadRecord reads before the body.
const maxHTTPHead = 256 << 10

// ReadRecord opens the record at offset in r, gzip-compressed (one member) or not, as
// ReadRecordHead reads it: length is the record's length in r, or 0 when unknown. It reads the
// WARC header and, when the block starts with an HTTP response, its header block (both at
// most 256 KiB); the body is read from the Record. Errors about the record wrap ErrIndex.
func ReadRecord(r io.ReaderAt, offset, length int64) (*Record, error) {
	n := length
	if n <= 0 {
		n = 1 << 62
	}
	// Reads of the record's size at most: most records are a few KB.
	br := bufio.NewReaderSize(io.NewSectionReader(r, offset, n), int(min(max(n, 512), 16<<10)))
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: record at %d: %v", ErrIndex, offset, err)
		}
		zr.Multistream(false)
		src = zr
	}
	lim := &io.LimitedReader{R: src, N: maxRecordHead}
	rd := bufio.NewReaderSize(lim, 4096)
	h, contentType, contentLength, err := readWARCHeader(rd)
	if err != nil {
		return nil, fmt.Errorf("%w: record at %d: %v", ErrIndex, offset, err)
	}
	// What rd holds past the header, then the rest of the member, up to Content-Length.
	rest := io.MultiReader(readBuffered(rd), lim.R)
	if contentLength >= 0 {
		rest = io.LimitReader(rest, contentLength)
	}
	rec := &Record{RecordHead: h, ContentType: contentType, body: rest, bodySize: contentLength}
	if contentLength == 0 || !httpBlock(h.Type, contentType) {
		return rec, nil
	}
	brd := bufio.NewReaderSize(rest, 4096)
	if peek, _ := brd.Peek(5); string(peek) != "HTTP/" {
		rec.body = brd
		return rec, nil
	}
	// The limit leaves room for what hrd reads past the head into its buffer.
	hl := &io.LimitedReader{R: brd, N: maxHTTPHead + 4096}
	hrd := bufio.NewReaderSize(hl, 4096)
	head, err := readHTTPHead(hrd, &rec.RecordHead, true)
	if err == nil && hl.N <= 0 {
		err = fmt.Errorf("HTTP header block over %d bytes", maxHTTPHead)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: record at %d: %v", ErrIndex, offset, err)
	}
	rec.HTTP = head
	if contentLength >= 0 {
		// The head is what hrd took from hl less what it holds unread.
		rec.bodySize = contentLength - (maxHTTPHead + 4096 - hl.N - int64(hrd.Buffered()))
	}
	rec.body = io.MultiReader(readBuffered(hrd), brd)
	rec.chunked = head.chunkedAlone()
	return rec, nil
}

// readBuffered returns a reader of the bytes rd holds in its buffer, which are then consumed.
func readBuffered(rd *bufio.Reader) io.Reader {
	b, _ := rd.Peek(rd.Buffered())
	out := append([]byte(nil), b...)
	_, _ = rd.Discard(len(b))
	return &bytesReader{b: out}
}

// bytesReader reads a byte slice (bytes.Reader without the seeking).
type bytesReader struct{ b []byte }

func (r *bytesReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// chunkedAlone reports whether the head declares the chunked transfer coding alone, by the
// rule the writer digests with (the package's chunkedAlone).
func (h *HTTPHead) chunkedAlone() bool {
	var te []string
	for _, f := range h.Fields {
		if equalFoldASCII(f.Name, "Transfer-Encoding") {
			te = append(te, f.Value)
		}
	}
	return chunkedAlone(h.Proto, te)
}

// equalFoldASCII reports whether a and b are equal in ASCII letter case folding.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
