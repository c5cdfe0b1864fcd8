package warc

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"io"
	"net/http"
	"strings"
	"sync"
)

// payloadDigest is the digest of a response's payload (see chunkedPayload for what that is
// when the body is chunked).
type payloadDigest struct {
	digest string // "sha1:BASE32"
	size   int64  // length of the payload
}

// chunkedAlone reports whether a response whose status line starts with proto and whose
// Transfer-Encoding fields have the values te declares the chunked transfer coding alone, the
// only framing Go's net/http de-chunks: proto is HTTP/1.1 or later, spelled HTTP/D.D as
// net/http reads it (net/http ignores Transfer-Encoding in HTTP/1.0, as RFC 9112 §6.1 has an
// HTTP/1.0 recipient treat it as faulty framing), and there is exactly one Transfer-Encoding
// field, whose value is "chunked" in any ASCII letter case (as net/http compares it).
// "gzip, chunked", a second Transfer-Encoding field or "chunked, " are not: no reader
// de-chunks those. The writer (headChunkedAlone, over the stored bytes) and the reader
// (HTTPHead.chunkedAlone) both decide with it.
func chunkedAlone(proto string, te []string) bool {
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	if len(proto) != len("HTTP/1.1") || !strings.HasPrefix(proto, "HTTP/") || proto[6] != '.' ||
		!digit(proto[5]) || !digit(proto[7]) {
		return false
	}
	if proto[5] < '1' || proto[5] == '1' && proto[7] == '0' {
		return false
	}
	return len(te) == 1 && equalFoldASCII(te[0], "chunked")
}

// headChunkedAlone is chunkedAlone of an HTTP response header block as stored (status line
// and header lines). Lines without a colon are skipped, as browsers and warcio.js skip them.
func headChunkedAlone(header []byte) bool {
	line, rest, _ := bytes.Cut(header, []byte("\n"))
	proto, _, _ := bytes.Cut(bytes.TrimSpace(line), []byte(" "))
	var te []string
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		name, v, ok := bytes.Cut(line, []byte(":"))
		if ok && equalFoldASCII(string(bytes.TrimSpace(name)), "Transfer-Encoding") {
			te = append(te, string(bytes.TrimSpace(v)))
		}
	}
	return chunkedAlone(string(proto), te)
}

// chunkedHead is the head through which chunkedPayload reads a body with net/http: it declares
// the chunked coding alone, so the body is read exactly as net/http reads a chunked body.
const chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

// chunkedPayload digests the payload of a response whose head declares the chunked transfer
// coding alone (headChunkedAlone), given its body as stored. This is the contract of the response
// record's WARC-Payload-Digest for such responses; docs/warc.md lists every case with what each
// reader computes.
//
// When the body is complete chunked framing as Go's net/http reads it (the reader of
// internetarchive/gowarc's warc verify) the payload is the entity body of WARC 1.1 §5.9 and
// the IIPC clarification (warc-specifications issue 22): the chunk data, concatenated, with
// content codings kept and chunk extensions and trailer fields left out. Complete framing is:
// chunk-size lines shorter than 4 KiB, each a size of 1 to 16 hexadecimal digits followed by
// chunk extensions from a ";" right after it, or by nothing, then optional spaces and tabs and
// CRLF (not a bare LF), with no more framing than net/http tolerates (16 KiB beyond 16 bytes a
// chunk and twice its data); exactly size bytes of data after each, then CRLF; the last chunk
// (size 0); then CRLF, or trailer fields ended by an empty line within 4 KiB. Bytes after that
// are not part of the message and are left out.
//
// Otherwise (a size line that does not parse, data not followed by CRLF, a body that ends
// before the last chunk or before the end of the trailer section) the payload is the body as
// stored, chunk framing included: that is what a reader that cannot de-chunk it digests
// (nlnwa/gowarc digests every body so, and warcio.js falls back to it when the first chunk does
// not parse). The entity body is then not known, whatever a lenient reader makes of the part
// that parses: warcio.js keeps the chunks it read before the break and passes the rest through,
// net/http fails.
//
// stored is the digest of the body as stored, computed by the caller as it read the body.
// Only errors reading body itself are returned.
func chunkedPayload(body io.Reader, stored payloadDigest) (payloadDigest, error) {
	src := &errReader{r: body}
	br := headReaders.Get().(*bufio.Reader)
	br.Reset(io.MultiReader(strings.NewReader(chunkedHead), src))
	defer func() { br.Reset(nil); headReaders.Put(br) }()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		// chunkedHead always parses: only the body's reader can have failed.
		if src.err != nil && src.err != io.EOF {
			return payloadDigest{}, src.err
		}
		return stored, nil
	}
	h := sha1.New()
	bp := readPool.Get().(*[]byte) // not io.Copy's new 32 KiB for every capture
	defer readPool.Put(bp)
	n, err := io.CopyBuffer(h, resp.Body, *bp)
	if src.err != nil && src.err != io.EOF {
		return payloadDigest{}, src.err
	}
	if err != nil {
		return stored, nil
	}
	return payloadDigest{digest: sha1Digest(h), size: n}, nil
}

// plainChunks digests a chunked body held in memory when its framing is the plainest form of
// complete framing (above), which every reader de-chunks alike: each chunk a size line of 1
// to 15 hexadecimal digits and CRLF, with neither extensions nor spaces, then exactly that
// many bytes and CRLF; the last chunk "0" CRLF, then CRLF, then nothing. Any other body (ok
// false) is read by net/http as above (chunkedPayload). It spares the common case the parse of
// a made-up response and a copy of the body.
func plainChunks(p []byte) (d payloadDigest, ok bool) {
	h := sha1.New()
	var total int64
	for {
		j := 0
		var size uint64
		for ; j < len(p) && j < 15; j++ {
			v, ok := unhex(p[j])
			if !ok {
				break
			}
			size = size<<4 | uint64(v)
		}
		if j == 0 || len(p) < j+2 || p[j] != '\r' || p[j+1] != '\n' {
			return payloadDigest{}, false
		}
		p = p[j+2:]
		if size == 0 {
			if len(p) != 2 || p[0] != '\r' || p[1] != '\n' {
				return payloadDigest{}, false
			}
			return payloadDigest{digest: sha1Digest(h), size: total}, true
		}
		if uint64(len(p)) < size+2 || p[size] != '\r' || p[size+1] != '\n' {
			return payloadDigest{}, false
		}
		h.Write(p[:size])
		total += int64(size)
		p = p[size+2:]
	}
}

// headReaders are chunkedPayload's buffered readers (a new 4 KiB one for every chunked
// response was a twentieth of a crawl's allocation).
var headReaders = sync.Pool{New: func() any { return bufio.NewReader(nil) }}

// errReader remembers the error of the underlying reader, to tell a failed read apart from a
// malformed chunked body.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}
