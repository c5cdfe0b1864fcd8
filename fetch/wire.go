package fetch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

const maxChunkLine = 4096

var (
	errLineTooLong = fmt.Errorf("%w: line too long", ErrMalformed)
	errLimit       = errors.New("fetch: response size limit")
)

// readLine reads through the next '\n' (the line is returned with its ending). A line
// longer than max is errLineTooLong; a last line without '\n' is io.ErrUnexpectedEOF.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	return readLineFunc(br, max, nil)
}

// readLineFunc is readLine that hands every fragment it consumes to consumed (when not nil)
// before checking it, so a recorder sees exactly the bytes taken from br.
func readLineFunc(br *bufio.Reader, max int, consumed func([]byte) error) ([]byte, error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if consumed != nil {
			if cerr := consumed(frag); cerr != nil {
				return nil, cerr
			}
		}
		if len(buf)+len(frag) > max {
			return nil, errLineTooLong
		}
		buf = append(buf, frag...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(buf) > 0:
			return buf, io.ErrUnexpectedEOF
		case err != nil:
			return buf, err
		}
		return buf, nil
	}
}

// wire consumes response bytes from a connection's reader and records exactly the bytes
// consumed, never more than limit in total.
type wire struct {
	br    *bufio.Reader
	rec   *rawStore
	limit int64
}

// scratchPool holds the buffers bodies are read through on their way to the recorder.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (w *wire) record(p []byte) error {
	if room := w.limit - w.rec.size; int64(len(p)) > room {
		if _, err := w.rec.Write(p[:room]); err != nil {
			return err
		}
		return errLimit
	}
	_, err := w.rec.Write(p)
	return err
}

// line consumes and records one line; see readLine.
func (w *wire) line(max int) ([]byte, error) {
	return readLineFunc(w.br, max, w.record)
}

// copyN consumes and records n bytes, or everything up to EOF when n < 0 (then io.EOF is
// success and returned as nil).
func (w *wire) copyN(n int64) error {
	bp := scratchPool.Get().(*[]byte)
	defer scratchPool.Put(bp)
	for n != 0 {
		p := *bp
		if n > 0 && int64(len(p)) > n {
			p = p[:n]
		}
		m, err := w.br.Read(p)
		if m > 0 {
			if rerr := w.record(p[:m]); rerr != nil {
				return rerr
			}
			if n > 0 {
				n -= int64(m)
			}
		}
		if err == io.EOF {
			if n < 0 {
				return nil
			}
			if n == 0 {
				return nil
			}
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// head is a parsed status line and header section.
type head struct {
	proto  string
	major  int
	minor  int
	status int
	header http.Header
}

// readHead consumes one status line and header section. Blank lines before the status
// line (left over from a previous response on the connection) are consumed but not
// recorded.
func (w *wire) readHead(budget *int) (*head, error) {
	var line []byte
	var err error
	for skipped := 0; ; skipped++ {
		peek, _ := w.br.Peek(2)
		if skipped < 4 && len(peek) > 0 && (peek[0] == '\n' || bytes.Equal(peek, []byte("\r\n"))) {
			if _, err := readLine(w.br, 2); err != nil {
				return nil, err
			}
			continue
		}
		break
	}
	if line, err = w.headLine(budget); err != nil {
		return nil, err
	}
	h, ok := parseStatusLine(line)
	if !ok {
		return nil, fmt.Errorf("%w: status line %q", ErrMalformed, truncateForError(line))
	}
	h.header = make(http.Header)
	var last string
	for {
		line, err = w.headLine(budget)
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			return h, nil
		}
		if (line[0] == ' ' || line[0] == '\t') && last != "" {
			// Obsolete line folding: continue the previous field value.
			vs := h.header[last]
			vs[len(vs)-1] += " " + string(bytes.TrimSpace(line))
			continue
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		name = bytes.TrimSpace(name)
		if !ok || len(name) == 0 {
			continue // not a header field; browsers skip such lines too
		}
		last = textproto.CanonicalMIMEHeaderKey(string(name))
		h.header[last] = append(h.header[last], string(bytes.TrimSpace(value)))
	}
}

func (w *wire) headLine(budget *int) ([]byte, error) {
	line, err := w.line(*budget)
	if errors.Is(err, errLineTooLong) || errors.Is(err, errLimit) {
		return nil, ErrHeaderTooLarge
	}
	*budget -= len(line)
	return line, err
}

func truncateForError(b []byte) string {
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// parseStatusLine parses "HTTP/1.x SSS[ reason]".
func parseStatusLine(line []byte) (*head, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	proto, rest, _ := strings.Cut(s, " ")
	major, minor, ok := http.ParseHTTPVersion(proto)
	if !ok || major != 1 {
		return nil, false
	}
	rest = strings.TrimLeft(rest, " ")
	code := rest
	if len(code) > 3 {
		if code[3] != ' ' && code[3] != '\t' {
			return nil, false
		}
		code = code[:3]
	}
	if len(code) != 3 || code[0] < '1' || code[0] > '9' {
		return nil, false
	}
	status, err := strconv.Atoi(code)
	if err != nil {
		return nil, false
	}
	return &head{proto: proto, major: major, minor: minor, status: status}, true
}

// parseChunkSize parses a chunk-size line ("1a;ext=1\r\n").
func parseChunkSize(line []byte) (int64, bool) {
	line = bytes.TrimRight(line, "\r\n")
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || len(line) > 15 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(line), 16, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// framing describes how the body of a response is delimited.
type framing struct {
	noBody    bool
	chunked   bool
	length    int64 // -1: until close
	keepAlive bool  // the connection may be reused after the body
}

// bodyFraming applies RFC 9112 §6.3 to a final response.
func bodyFraming(method string, h *head) framing {
	f := framing{length: -1}
	conn := headerTokens(h.header, "Connection")
	switch {
	case h.minor >= 1:
		f.keepAlive = !conn["close"]
	default:
		f.keepAlive = conn["keep-alive"] && !conn["close"]
	}
	if method == http.MethodHead || h.status == http.StatusNoContent ||
		h.status == http.StatusNotModified || (h.status >= 100 && h.status < 200) {
		f.noBody = true
		f.length = 0
		if h.status == http.StatusSwitchingProtocols {
			f.keepAlive = false
		}
		return f
	}
	if te := h.header.Values("Transfer-Encoding"); len(te) > 0 {
		codings := strings.Split(strings.ToLower(strings.Join(te, ",")), ",")
		if strings.TrimSpace(codings[len(codings)-1]) == "chunked" {
			f.chunked = true
			if len(h.header.Values("Content-Length")) > 0 {
				f.keepAlive = false // possible smuggling; do not reuse
			}
			return f
		}
		f.keepAlive = false
		return f
	}
	cl := int64(-1)
	for _, v := range h.header.Values("Content-Length") {
		for _, p := range strings.Split(v, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
			if err != nil || n < 0 || (cl >= 0 && n != cl) {
				f.keepAlive = false
				return f
			}
			cl = n
		}
	}
	if cl < 0 {
		f.keepAlive = false
		return f
	}
	f.length = cl
	return f
}

func headerTokens(h http.Header, name string) map[string]bool {
	m := map[string]bool{}
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			m[strings.ToLower(strings.TrimSpace(t))] = true
		}
	}
	return m
}

// readBody consumes the body per f. complete is false when the body did not end as its
// framing says; err tells why (errLimit, a timeout, an early close, bad chunked framing).
func (w *wire) readBody(f framing) (complete bool, err error) {
	switch {
	case f.noBody:
		return true, nil
	case f.chunked:
		return w.readChunked()
	default:
		if err := w.copyN(f.length); err != nil {
			return false, err
		}
		return true, nil
	}
}

func (w *wire) readChunked() (bool, error) {
	for {
		line, err := w.line(maxChunkLine)
		if err != nil {
			return false, err
		}
		size, ok := parseChunkSize(line)
		if !ok {
			return false, errChunk
		}
		if size == 0 {
			break
		}
		if err := w.copyN(size); err != nil {
			return false, err
		}
		line, err = w.line(maxChunkLine)
		if err != nil {
			return false, err
		}
		if len(bytes.TrimRight(line, "\r\n")) != 0 {
			return false, errChunk
		}
	}
	// Trailer section, up to the blank line.
	budget := MaxHeaderBytes
	for {
		line, err := w.line(budget)
		if err != nil {
			return false, err
		}
		budget -= len(line)
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return true, nil
		}
	}
}
