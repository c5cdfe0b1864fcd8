package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Exchange is one recorded request/response. The caller must Close it (that removes the
// temporary file of a large response).
type Exchange struct {
	URL        string
	Method     string
	Request    []byte      // exact request bytes written to the connection
	StatusCode int         // final status (interim 1xx responses are in the raw bytes only)
	Proto      string      // "HTTP/1.1" or "HTTP/1.0" as the server wrote it
	Header     http.Header // final response header (parsed copy; trailers excluded)
	RemoteIP   string      // IP actually connected to (no port, no brackets)
	Started    time.Time   // UTC, when the request was written
	Duration   time.Duration
	// Truncated is "" for a complete response, else the WARC-Truncated value: "length"
	// (MaxResponseSize reached), "time" (ResponseTimeout or the context deadline reached
	// after the header arrived), "disconnect" (the server closed before the framing said
	// the body ended, e.g. a lying Content-Length) or "unspecified" (unparsable chunked
	// framing; what arrived is kept).
	Truncated string
	TLS       *TLSInfo // nil for http
	// Challenge is the 401 response whose Basic challenge for a realm of Config.Auth this
	// exchange answered (the same request, sent again with the realm's credential); nil
	// otherwise. It was made first: archive it before this one. Close closes it too.
	Challenge *Exchange
	// BodyNotFetched says the body was not read: Request.FetchBody said no once the head had
	// arrived. The raw response is then the head alone (any interim responses, the status
	// line and the header fields), Body is empty and BodySize 0; the connection was closed.
	// NotFetchedSize is the length of the body its head declared (Content-Length), -1 when it
	// declared none (chunked, or until the connection closes).
	BodyNotFetched bool
	NotFetchedSize int64

	raw       *rawStore
	bodyStart int64 // offset of the final response's body in raw
	chunked   bool
	maxBody   int64
}

// TLSInfo describes the TLS session of an https exchange.
type TLSInfo struct {
	Version     string // "TLS 1.3"
	CipherSuite string // IANA name, "TLS_AES_128_GCM_SHA256"
	Verified    bool   // the chain and host name verified against the roots
	VerifyError string // why not, when !Verified
}

// Response returns a reader over the exact raw response bytes: any interim 1xx responses,
// the status line, the header and the body as on the wire (chunked framing and content
// encoding untouched), up to Truncated. It may be called several times, also concurrently;
// each reader is independent. ResponseSize is its length.
func (e *Exchange) Response() (io.ReadCloser, error) {
	if e.raw == nil {
		return nil, fmt.Errorf("fetch: exchange closed")
	}
	return io.NopCloser(e.raw.section(0)), nil
}

// ResponseSize returns the number of raw response bytes.
func (e *Exchange) ResponseSize() int64 {
	if e.raw == nil {
		return 0
	}
	return e.raw.size
}

// Body returns the payload decoded for extraction: chunked transfer coding removed and
// Content-Encoding gzip, x-gzip and deflate (zlib or raw) undone; other codings (br, zstd)
// are left as they are. At most MaxResponseSize decoded bytes are returned, then the reader
// fails with ErrBodyLimit, so a decompression bomb stops there. A body labelled gzip that is
// not gzip is returned as is. For a truncated exchange decoding ends quietly (io.EOF) where
// the data ends. Responses without a body (HEAD, 1xx, 204, 304), and one whose body was not
// fetched (BodyNotFetched), give an empty body.
func (e *Exchange) Body() (io.ReadCloser, error) {
	if e.raw == nil {
		return nil, fmt.Errorf("fetch: exchange closed")
	}
	if e.BodyNotFetched {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	var r io.Reader = e.raw.section(e.bodyStart)
	var br *bufio.Reader
	if e.chunked {
		br = chunkReaders.Get().(*bufio.Reader)
		br.Reset(r)
		r = &dechunker{br: br}
	}
	var closers []io.Closer
	codings := contentCodings(e.Header)
	for i := len(codings) - 1; i >= 0; i-- {
		dec, ok := decoder(codings[i], r)
		if !ok {
			break
		}
		r = dec
		if c, ok := dec.(io.Closer); ok {
			closers = append(closers, c)
		}
	}
	return &bodyReader{r: r, left: e.maxBody, lenient: e.Truncated != "", closers: closers, pooled: br}, nil
}

// chunkReaders are the buffered readers of chunked bodies (16 KiB each), given back by
// bodyReader.Close: a new one for every page was a tenth of a crawl's allocation.
var chunkReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

// Close releases the raw response storage (removing its temporary file). It is idempotent.
func (e *Exchange) Close() error {
	var err error
	if e.Challenge != nil {
		err = e.Challenge.Close()
	}
	if e.raw == nil {
		return err
	}
	if rerr := e.raw.remove(); err == nil {
		err = rerr
	}
	e.raw = nil
	return err
}

// contentCodings lists the Content-Encoding codings in order of application, lowercase,
// without "identity".
func contentCodings(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				out = append(out, c)
			}
		}
	}
	return out
}

// decoder wraps r to undo coding. ok is false when the coding is unknown or the data does
// not look encoded, in which case r is to be used as is.
func decoder(coding string, r io.Reader) (io.Reader, bool) {
	switch coding {
	case "gzip", "x-gzip":
		br := bufio.NewReaderSize(r, 4096)
		magic, _ := br.Peek(2)
		if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
			return br, true // labelled gzip but not gzip: return as is
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return br, true
		}
		return &gzipReader{zr: zr}, true
	case "deflate":
		br := bufio.NewReaderSize(r, 4096)
		h, _ := br.Peek(2)
		if len(h) == 2 && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return br, true
			}
			return zr, true
		}
		return flate.NewReader(br), true
	}
	return r, false
}

// gzipReader tolerates garbage after the last complete gzip member, as browsers do.
type gzipReader struct {
	zr *gzip.Reader
	n  int64
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	g.n += int64(n)
	if err != nil && g.n > 0 && errors.Is(err, gzip.ErrHeader) {
		err = io.EOF
	}
	return n, err
}

func (g *gzipReader) Close() error { return g.zr.Close() }

// bodyReader caps the decoded payload and, for truncated exchanges, turns the decoding
// error at the cut into io.EOF.
type bodyReader struct {
	r       io.Reader
	left    int64
	lenient bool
	closers []io.Closer
	err     error
	pooled  *bufio.Reader // of chunkReaders, given back by Close
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.left <= 0 {
		// Distinguish "exactly at the limit" from "more to come".
		var one [1]byte
		n, err := b.r.Read(one[:])
		for n == 0 && err == nil {
			n, err = b.r.Read(one[:])
		}
		if n > 0 {
			b.err = ErrBodyLimit
		} else {
			b.err = b.fix(err)
		}
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if err != nil {
		b.err = b.fix(err)
		err = b.err
	}
	return n, err
}

func (b *bodyReader) fix(err error) error {
	if err == io.EOF || b.lenient {
		return io.EOF
	}
	return fmt.Errorf("fetch: decode body: %w", err)
}

func (b *bodyReader) Close() error {
	var err error
	for _, c := range b.closers {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	b.err = errors.New("fetch: body reader closed")
	if b.pooled != nil {
		b.pooled.Reset(nil)
		chunkReaders.Put(b.pooled)
		b.pooled = nil
	}
	return err
}

// rawStore holds raw response bytes in memory up to a threshold and in a temporary file
// beyond it.
type rawStore struct {
	mem       []byte // from rawBufs until remove or the spill gives it back
	released  bool   // remove was called: the sections read no more
	f         *os.File
	fw        *bufio.Writer
	size      int64
	threshold int64
	dir       string
}

func (s *rawStore) Write(p []byte) (int, error) {
	if s.f == nil && s.size+int64(len(p)) > s.threshold {
		f, err := os.CreateTemp(s.dir, "amber-fetch-*.http")
		if err != nil {
			return 0, fmt.Errorf("%w: %w", ErrSpill, err)
		}
		s.f = f
		s.fw = bufio.NewWriterSize(f, 64<<10)
		if _, err := s.fw.Write(s.mem); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrSpill, err)
		}
		putRawBuf(s.mem)
		s.mem = nil
	}
	if s.f != nil {
		n, err := s.fw.Write(p)
		s.size += int64(n)
		if err != nil {
			return n, fmt.Errorf("%w: %w", ErrSpill, err)
		}
		return n, nil
	}
	if s.mem == nil {
		s.mem = (*rawBufs.Get().(*[]byte))[:0]
	}
	s.mem = append(s.mem, p...)
	s.size += int64(len(p))
	return len(p), nil
}

// rawBufs keep the memory of released raw responses for the next ones: growing a new buffer
// for every response was a seventh of a crawl's allocation on 5 KB pages. Buffers above
// maxRawBuf go to the collector.
var rawBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

const maxRawBuf = 256 << 10

func putRawBuf(b []byte) {
	if b != nil && cap(b) <= maxRawBuf {
		b = b[:0]
		rawBufs.Put(&b)
	}
}

// finish flushes the spill file so that section readers see every byte.
func (s *rawStore) finish() error {
	if s.fw != nil {
		if err := s.fw.Flush(); err != nil {
			return fmt.Errorf("%w: %w", ErrSpill, err)
		}
	}
	return nil
}

func (s *rawStore) section(off int64) io.Reader {
	if off > s.size {
		off = s.size
	}
	if s.f != nil {
		return io.NewSectionReader(s.f, off, s.size-off)
	}
	return &memSection{s: s, r: bytes.NewReader(s.mem[off:])}
}

// memSection reads a section of a rawStore's memory until the store is removed: its buffer
// then goes back to rawBufs for another response, and reading it would give that one's bytes.
// (A section of a spill file fails alike once the file is closed.)
type memSection struct {
	s *rawStore
	r *bytes.Reader
}

var errReleased = errors.New("fetch: exchange closed")

func (m *memSection) Read(p []byte) (int, error) {
	if m.s.released {
		return 0, errReleased
	}
	return m.r.Read(p)
}

func (m *memSection) WriteTo(w io.Writer) (int64, error) {
	if m.s.released {
		return 0, errReleased
	}
	return m.r.WriteTo(w)
}

func (s *rawStore) remove() error {
	s.released = true
	putRawBuf(s.mem)
	s.mem = nil
	if s.f == nil {
		return nil
	}
	name := s.f.Name()
	err := s.f.Close()
	if rerr := os.Remove(name); rerr != nil && err == nil {
		err = rerr
	}
	s.f = nil
	return err
}

// dechunker decodes chunked transfer coding leniently: it returns the data up to the
// terminating chunk (trailers are skipped) and an error where the framing breaks.
type dechunker struct {
	br   *bufio.Reader
	left int64 // bytes left in the current chunk
	done bool
	err  error
}

var errChunk = fmt.Errorf("%w: bad chunked framing", ErrMalformed)

func (d *dechunker) Read(p []byte) (int, error) {
	for {
		if d.err != nil {
			return 0, d.err
		}
		if d.done {
			return 0, io.EOF
		}
		if d.left > 0 {
			if int64(len(p)) > d.left {
				p = p[:d.left]
			}
			n, err := d.br.Read(p)
			d.left -= int64(n)
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				d.err = err
			}
			if d.left == 0 && d.err == nil {
				d.err = d.crlf()
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		line, err := readLine(d.br, maxChunkLine)
		if err != nil {
			d.err = eofToUnexpected(err)
			continue
		}
		size, ok := parseChunkSize(line)
		if !ok {
			d.err = errChunk
			continue
		}
		if size == 0 {
			d.done = true
			continue
		}
		d.left = size
	}
}

// crlf consumes the line ending after a chunk's data.
func (d *dechunker) crlf() error {
	line, err := readLine(d.br, maxChunkLine)
	if err != nil {
		return eofToUnexpected(err)
	}
	if len(bytes.TrimRight(line, "\r\n")) != 0 {
		return errChunk
	}
	return nil
}

func eofToUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
