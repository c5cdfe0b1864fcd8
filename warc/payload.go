package warc

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"io"
	"net/http/httputil"
	"strings"
)

// payloadDigest is the payload of a response as WARC 1.1 §5.9 and the IIPC clarification
// (warc-specifications issue 22) define it: the entity body, with the transfer coding removed
// and the content coding kept.
type payloadDigest struct {
	digest string // "sha1:BASE32"
	size   int64  // length of the entity body
}

// isChunked reports whether an HTTP response header block (status line and header lines) says
// its body is sent with the chunked transfer coding: chunked is the last coding named by its
// Transfer-Encoding fields (RFC 9112 §6.1), in any letter case.
func isChunked(header []byte) bool {
	last := ""
	for _, line := range bytes.Split(header, []byte("\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !strings.EqualFold(string(bytes.TrimSpace(name)), "Transfer-Encoding") {
			continue
		}
		for _, c := range strings.Split(string(value), ",") {
			if c = strings.TrimSpace(c); c != "" {
				last = c
			}
		}
	}
	return strings.EqualFold(last, "chunked")
}

// dechunkedDigest digests the entity body carried by a chunked message body. Framing that
// does not parse (a truncated chunk, a bad size line, no last chunk) ends the body: the
// digest covers what could be de-chunked up to there, so a malformed response still gets a
// digest and its record is still written. Transfer codings other than chunked, such as the
// rare "gzip, chunked", stay applied. Only errors reading body itself are returned.
func dechunkedDigest(body io.Reader) (payloadDigest, error) {
	h := sha1.New()
	src := &errReader{r: body}
	bp := readPool.Get().(*[]byte) // not io.Copy's new 32 KiB for every capture
	defer readPool.Put(bp)
	n, _ := io.CopyBuffer(h, httputil.NewChunkedReader(src), *bp)
	if src.err != nil && src.err != io.EOF {
		return payloadDigest{}, src.err
	}
	return payloadDigest{digest: "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil)), size: n}, nil
}

// errReader remembers the error of the underlying reader, to tell a failed read apart from a
// malformed chunked body (which only ends the de-chunking).
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
