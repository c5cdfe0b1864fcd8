package warc

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"hash"
	"io"
	"os"
	"strconv"
	"sync"
)

// The Writer serialises its records itself: the format is a version line, header fields, a
// blank line, the block and CRLF CRLF (WARC 1.1 §4), and building them through gowarc's record
// builder (a disk buffer per record, header validation that parses every URI, a second parse
// of the HTTP block) cost a third of the crawler's CPU per page. gowarc remains the reader:
// Recover and the tests' validators read every file with it.

// field is one WARC header field.
type field struct{ name, value string }

// record is one WARC record ready to be serialised.
type record struct {
	typ           string  // WARC-Type
	fields        []field // written in order after WARC-Type
	block         block
	blockDigest   string // "sha1:BASE32"
	payloadDigest string // "" = no WARC-Payload-Digest field
}

// block is a record block: its size, and its bytes, which can be written out more than once.
type block interface {
	Size() int64
	WriteTo(w io.Writer) (int64, error)
}

// bytesBlock is a block held in memory.
type bytesBlock []byte

func (b bytesBlock) Size() int64 { return int64(len(b)) }

func (b bytesBlock) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b)
	return int64(n), err
}

// set replaces the value of the first field called name.
func (r *record) set(name, value string) {
	for i := range r.fields {
		if r.fields[i].name == name {
			r.fields[i].value = value
			return
		}
	}
}

// get returns the value of the first field called name.
func (r *record) get(name string) string {
	for _, f := range r.fields {
		if f.name == name {
			return f.value
		}
	}
	return ""
}

// close releases a block held in a temp file.
func (r *record) close() {
	if c, ok := r.block.(io.Closer); ok {
		_ = c.Close()
	}
}

var headPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// marshal writes the record: version line, WARC-Type, the fields, Content-Length,
// WARC-Block-Digest, WARC-Payload-Digest when set, a blank line, the block and CRLF CRLF.
func (r *record) marshal(w io.Writer) error {
	bp := headPool.Get().(*[]byte)
	defer headPool.Put(bp)
	h := append((*bp)[:0], "WARC/1.1\r\nWARC-Type: "...)
	h = append(h, r.typ...)
	h = append(h, "\r\n"...)
	for _, f := range r.fields {
		h = append(h, f.name...)
		h = append(h, ": "...)
		h = append(h, f.value...)
		h = append(h, "\r\n"...)
	}
	h = append(h, "Content-Length: "...)
	h = strconv.AppendInt(h, r.block.Size(), 10)
	h = append(h, "\r\nWARC-Block-Digest: "...)
	h = append(h, r.blockDigest...)
	if r.payloadDigest != "" {
		h = append(h, "\r\nWARC-Payload-Digest: "...)
		h = append(h, r.payloadDigest...)
	}
	h = append(h, "\r\n\r\n"...)
	*bp = h
	if _, err := w.Write(h); err != nil {
		return err
	}
	if _, err := r.block.WriteTo(w); err != nil {
		return err
	}
	_, err := w.Write([]byte("\r\n\r\n"))
	return err
}

// sha1Digest renders a SHA-1 sum as a WARC digest, "sha1:BASE32".
func sha1Digest(h hash.Hash) string {
	var sum [sha1.Size]byte
	var out [5 + 32]byte
	copy(out[:], "sha1:")
	base32.StdEncoding.Encode(out[5:], h.Sum(sum[:0]))
	return string(out[:])
}

// digestBytes is the WARC digest of b.
func digestBytes(b []byte) string {
	h := sha1.New()
	h.Write(b)
	return sha1Digest(h)
}

// httpDigests returns the block digest of an HTTP message held in memory and the digest of
// its payload: what follows the header block (see headerEnd), as sent.
func httpDigests(msg []byte) (blockDigest, payloadDigest string) {
	hl := headerEnd(msg)
	bh, ph := sha1.New(), sha1.New()
	bh.Write(msg[:hl])
	bh.Write(msg[hl:])
	ph.Write(msg[hl:])
	return sha1Digest(bh), sha1Digest(ph)
}

// headerEnd returns the length of the header block at the start of an HTTP message: up to and
// including the first line (ended by LF) shorter than three bytes, the blank line, which is how
// gowarc and so warc readers built on it split header and payload; len(msg) when there is none.
func headerEnd(msg []byte) int {
	for i := 0; i < len(msg); {
		j := bytes.IndexByte(msg[i:], '\n')
		if j < 0 {
			break
		}
		if j+1 < 3 {
			return i + j + 1
		}
		i += j + 1
	}
	return len(msg)
}

// rawMem is how much of a raw response a rawBlock keeps in memory; the rest goes to a temp file.
const rawMem = 1 << 20

// rawBlock is a response read once from the wire recording: the first rawMem bytes in memory,
// any more in a temp file. While it is read it digests the whole block and, separately, the
// payload after the header block (headerEnd's rule, applied across reads).
type rawBlock struct {
	mem []byte
	f   *os.File // bytes past rawMem, nil when there are none
	n   int64

	hdrLen   int64 // bytes of the header block read so far; the whole of it once hdrDone
	hdrDone  bool  // the blank line was read
	lineLen  int   // bytes of the header line being read
	blockSum hash.Hash
	paySum   hash.Hash // the stored payload's digest, kept from the time the block spills to f
}

var readPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// rawMems keep the memory of closed rawBlocks for the next responses (a new one for every
// capture was a twentieth of a crawl's allocation on 5 KB pages); those above rawMem/4 go to
// the collector.
var rawMems = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// readRaw reads r to its end into a rawBlock; sizeHint, when positive, is its expected length.
// Temp files go to dir.
func readRaw(r io.Reader, sizeHint int64, dir string) (*rawBlock, error) {
	b := &rawBlock{blockSum: sha1.New()}
	if sizeHint > 0 {
		b.mem = (*rawMems.Get().(*[]byte))[:0]
		if want := int(min(sizeHint, rawMem)); cap(b.mem) < want {
			b.mem = make([]byte, 0, want)
		}
	}
	bp := readPool.Get().(*[]byte)
	defer readPool.Put(bp)
	for {
		p, direct := *bp, false
		if b.f == nil && len(b.mem) < cap(b.mem) {
			p, direct = b.mem[len(b.mem):cap(b.mem)], true // read straight into mem
		}
		n, err := r.Read(p)
		if n > 0 {
			if werr := b.add(p[:n], direct, dir); werr != nil {
				_ = b.Close()
				return nil, werr
			}
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			_ = b.Close()
			return nil, err
		}
	}
}

// add takes p, the next bytes read: already in place at the end of mem when direct, else
// appended to mem while it has room and to the temp file after that.
func (b *rawBlock) add(p []byte, direct bool, dir string) error {
	memBefore := len(b.mem)
	switch {
	case direct:
		b.mem = b.mem[:len(b.mem)+len(p)]
	case b.f == nil && len(b.mem)+len(p) <= rawMem:
		b.mem = append(b.mem, p...)
	default:
		k := 0
		if b.f == nil {
			k = rawMem - len(b.mem)
			b.mem = append(b.mem, p[:k]...)
			f, err := os.CreateTemp(dir, "amber-raw-*")
			if err != nil {
				return fmt.Errorf("spool response: %w", err)
			}
			b.f = f
		}
		if _, err := b.f.Write(p[k:]); err != nil {
			return fmt.Errorf("spool response: %w", err)
		}
	}
	b.n += int64(len(p))
	b.blockSum.Write(p)
	if !b.hdrDone {
		p = p[b.scanHeader(p):]
	}
	if b.f != nil {
		// Past memory the payload is digested as it comes (the file is not read back for it),
		// from what of it memory holds.
		if b.paySum == nil {
			b.paySum = sha1.New()
			if b.hdrLen < int64(memBefore) {
				b.paySum.Write(b.mem[b.hdrLen:memBefore])
			}
		}
		b.paySum.Write(p)
	}
	return nil
}

// storedPayloadDigest is the digest of the bytes after the header block, as stored. A block
// held in memory is digested now: a chunked body's is mostly never asked for (plainChunks).
func (b *rawBlock) storedPayloadDigest() payloadDigest {
	size := b.n - b.hdrLen
	if b.paySum != nil {
		return payloadDigest{digest: sha1Digest(b.paySum), size: size}
	}
	return payloadDigest{digest: digestBytes(b.mem[min(b.hdrLen, int64(len(b.mem))):]), size: size}
}

// scanHeader consumes the header bytes at the start of p and returns how many there are.
func (b *rawBlock) scanHeader(p []byte) int {
	for i := 0; i < len(p); {
		j := bytes.IndexByte(p[i:], '\n')
		if j < 0 {
			b.lineLen += len(p) - i
			b.hdrLen += int64(len(p) - i)
			return len(p)
		}
		b.lineLen += j + 1
		b.hdrLen += int64(j + 1)
		i += j + 1
		if b.lineLen < 3 {
			b.hdrDone = true
			return i
		}
		b.lineLen = 0
	}
	return len(p)
}

// header returns a copy of the HTTP header block (all of the block when it has no blank
// line): the block's memory goes back to rawMems on Close, and a revisit record that replaces
// a response keeps its header.
func (b *rawBlock) header() ([]byte, error) {
	if b.hdrLen <= int64(len(b.mem)) {
		return bytes.Clone(b.mem[:b.hdrLen]), nil
	}
	// A header block of over rawMem bytes: the rest of it is in the file.
	h := make([]byte, b.hdrLen)
	copy(h, b.mem)
	if _, err := b.f.ReadAt(h[len(b.mem):], 0); err != nil {
		return nil, fmt.Errorf("read spooled response: %w", err)
	}
	return h, nil
}

// payload returns a reader over the bytes after the header block.
func (b *rawBlock) payload() io.Reader {
	if b.hdrLen <= int64(len(b.mem)) {
		r := io.Reader(bytes.NewReader(b.mem[b.hdrLen:]))
		if b.f != nil {
			r = io.MultiReader(r, io.NewSectionReader(b.f, 0, b.n-int64(len(b.mem))))
		}
		return r
	}
	return io.NewSectionReader(b.f, b.hdrLen-int64(len(b.mem)), b.n-b.hdrLen)
}

// memPayload is what payload reads, when all of it is in memory.
func (b *rawBlock) memPayload() ([]byte, bool) {
	if b.f != nil || b.hdrLen > int64(len(b.mem)) {
		return nil, false
	}
	return b.mem[b.hdrLen:], true
}

func (b *rawBlock) Size() int64 { return b.n }

func (b *rawBlock) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b.mem)
	if err != nil || b.f == nil {
		return int64(n), err
	}
	m, err := io.Copy(w, io.NewSectionReader(b.f, 0, b.n-int64(len(b.mem))))
	return int64(n) + m, err
}

// Close removes the temp file, if any.
// Close removes the temp file and gives the memory back to rawMems: b is not read after it.
func (b *rawBlock) Close() error {
	if b.mem != nil && cap(b.mem) <= rawMem/4 {
		m := b.mem[:0]
		rawMems.Put(&m)
	}
	b.mem = nil
	if b.f == nil {
		return nil
	}
	name := b.f.Name()
	err := b.f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	b.f = nil
	return err
}
