package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/amber-crawler/amber/warc"
)

// memPayload is how much of a payload of unknown length (a chunked body) is read into memory
// to learn its length; past it the payload is read through once to count it, then again to
// send it.
const memPayload = 1 << 20

// archived is a capture ready to be sent: the status and fields to send, and the record whose
// payload is the body.
type archived struct {
	c    candidate
	head *warc.HTTPHead
	// body is the record whose payload is sent: the capture's own, or a revisit's original.
	body *warc.Record
	// reopen opens body's record again, to read its payload a second time.
	reopen func() (*warc.Record, error)
	// own is true when head and body are the same record (not a revisit and its original).
	own bool
}

// errUnreplayable wraps why a capture cannot be sent.
var errUnreplayable = errors.New("cannot be replayed")

// open reads the record of a capture as archived; a revisit is joined to its original.
func (s *Server) open(c candidate) (*archived, error) {
	r, reopen, err := readRecord(c)
	if err != nil {
		return nil, err
	}
	switch r.Type {
	case "response":
		if r.HTTP == nil || r.HTTP.Status < 200 || r.HTTP.Status > 999 {
			return nil, fmt.Errorf("%w: the response record at %d of %s holds no HTTP response with a final status", errUnreplayable, c.Offset, c.Filename)
		}
		return &archived{c: c, head: r.HTTP, body: r, reopen: reopen, own: true}, nil
	case "resource":
		ct := r.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		head := &warc.HTTPHead{Proto: "HTTP/1.1", Status: http.StatusOK, Reason: "OK", Fields: []warc.Field{{Name: "Content-Type", Value: ct}}}
		return &archived{c: c, head: head, body: r, reopen: reopen, own: true}, nil
	case "revisit":
		orig, origReopen, err := s.original(c, r)
		if err != nil {
			return nil, err
		}
		head := r.HTTP
		if head == nil || head.Status == 0 {
			head = orig.HTTP // server-not-modified: the original's headers
		}
		if head.Status < 200 || head.Status > 999 {
			return nil, fmt.Errorf("%w: the revisit at %d of %s has status %d", errUnreplayable, c.Offset, c.Filename, head.Status)
		}
		return &archived{c: c, head: head, body: orig, reopen: origReopen}, nil
	}
	return nil, fmt.Errorf("%w: a %s record", errUnreplayable, r.Type)
}

// readRecord opens the record of an index entry, and returns a function that opens it again.
func readRecord(c candidate) (*warc.Record, func() (*warc.Record, error), error) {
	reopen := func() (*warc.Record, error) {
		f, err := c.src.warc(c.Filename)
		if err != nil {
			return nil, err
		}
		r, err := warc.ReadRecord(f, c.Offset, c.Length)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Filename, err)
		}
		return r, nil
	}
	r, err := reopen()
	return r, reopen, err
}

// original finds the response a revisit stands for: by WARC-Refers-To-Target-URI (else the
// revisit's own URL), the capture of it with the revisit's payload digest closest to
// WARC-Refers-To-Date; else the first response with that digest in any source.
func (s *Server) original(c candidate, rv *warc.Record) (*warc.Record, func() (*warc.Record, error), error) {
	uri := rv.RefersToURI
	if uri == "" {
		uri = c.URL
	}
	digest := rv.PayloadDigest
	if digest == "" {
		digest = c.Digest
	}
	when := rv.RefersToDate
	if when.IsZero() {
		when = c.Time
	}
	return s.archive.original(uri, when, digest, true)
}

// original finds the response record of uri with payload digest (any, when "") captured
// closest to when; when byDigest is set and there is none, the first response with that
// digest in any source (read from every index once, and kept in memory).
func (a *Archive) original(uri string, when time.Time, digest string, byDigest bool) (*warc.Record, func() (*warc.Record, error), error) {
	found, err := a.search(warc.CDXKey(uri)+" ", 0)
	if err != nil {
		return nil, nil, err
	}
	var origs []candidate
	for _, o := range found {
		if o.Mime == "warc/revisit" || digest != "" && o.Digest != "" && o.Digest != digest {
			continue
		}
		d := o.Time.Sub(when)
		if d < 0 {
			d = -d
		}
		exact := int64(1)
		if o.URL == uri {
			exact = 0
		}
		o.rank = [4]int64{exact, int64(d)}
		origs = append(origs, o)
	}
	sortCandidates(origs)
	if digest != "" && byDigest {
		m, err := a.digestIndex()
		if err != nil {
			return nil, nil, err
		}
		if o, ok := m[digest]; ok {
			origs = append(origs, o)
		}
	}
	for i, o := range origs {
		if i == tryLimit {
			break
		}
		r, reopen, err := readRecord(o)
		if err != nil || r.Type != "response" || r.HTTP == nil || digest != "" && r.PayloadDigest != "" && r.PayloadDigest != digest {
			continue
		}
		return r, reopen, nil
	}
	return nil, nil, fmt.Errorf("%w: the original of %s (%s, payload %s) is not in the archive", errUnreplayable, uri, when.UTC().Format(time.RFC3339), digest)
}

// hopByHop are the fields that belong to one connection, not to the response (RFC 9110
// §7.6.1), with the framing fields, which are made again for the body sent.
var hopByHop = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Proxy-Authenticate": true,
	"Proxy-Authorization": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
	"Content-Length": true,
}

// renamed are the fields a browser would keep for the live site after the replay: they are
// sent as X-Archive-Orig-NAME, as pywb sends them.
var renamed = map[string]bool{
	"Strict-Transport-Security": true, "Alt-Svc": true, "Public-Key-Pins": true,
	"Public-Key-Pins-Report-Only": true, "Expect-Ct": true,
}

// responseHeader returns the archived header fields to send, as the package doc says.
func responseHeader(head *warc.HTTPHead) http.Header {
	drop := map[string]bool{}
	for _, f := range head.Fields {
		if http.CanonicalHeaderKey(f.Name) == "Connection" {
			for _, t := range strings.Split(f.Value, ",") {
				if t = strings.TrimSpace(t); t != "" {
					drop[http.CanonicalHeaderKey(t)] = true
				}
			}
		}
	}
	h := http.Header{}
	for _, f := range head.Fields {
		name := http.CanonicalHeaderKey(f.Name)
		if hopByHop[name] || drop[name] || !httpguts.ValidHeaderFieldName(f.Name) || !httpguts.ValidHeaderFieldValue(f.Value) {
			continue
		}
		if renamed[name] {
			name = "X-Archive-Orig-" + name
		}
		h[name] = append(h[name], f.Value)
	}
	return h
}

// reply is a capture made ready to be written: nothing is sent before write, so that a
// capture that fails to read (a WARC file cut short) leaves the next one a clean response.
type reply struct {
	a           *archived
	status      int
	header      http.Header
	payload     io.Reader
	start, n    int64 // the bytes of the payload sent
	bodyless    bool
	unsatisfied bool // 416: the range asked for is past the end
}

// prepare reads what sending a capture for request r needs: its status and fields, the
// payload's length (reading a chunked one), the one byte range asked for.
func (s *Server) prepare(r *http.Request, a *archived) (*reply, error) {
	payload := a.body.Payload()
	size := a.body.PayloadSize()
	if size < 0 {
		// A chunked body: its length is known once read.
		buf, err := io.ReadAll(io.LimitReader(payload, memPayload+1))
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		if len(buf) <= memPayload {
			size, payload = int64(len(buf)), bytes.NewReader(buf)
		} else {
			n, err := io.Copy(io.Discard, payload)
			if err != nil {
				return nil, fmt.Errorf("read payload: %w", err)
			}
			size = int64(len(buf)) + n
			again, err := a.reopen()
			if err != nil {
				return nil, err
			}
			payload = again.Payload()
		}
	} else if a.own {
		// A body longer than the Content-Length it came with: a browser read no more.
		if cl, err := strconv.ParseInt(a.head.Get("Content-Length"), 10, 64); err == nil && cl >= 0 && cl < size {
			size = cl
		}
	}
	rp := &reply{a: a, status: a.head.Status, header: responseHeader(a.head), payload: payload, n: size}
	if _, ok := rp.header["Content-Type"]; !ok {
		rp.header["Content-Type"] = nil // as archived: no type, none sniffed
	}
	if _, ok := rp.header["Date"]; !ok {
		rp.header["Date"] = nil
	}
	rp.header.Set("Memento-Datetime", a.c.Time.UTC().Format(http.TimeFormat))
	how := "exact"
	if len(a.c.rules) > 0 {
		how = fmt.Sprintf("fuzzy; rules=%s; url=%q", strings.Join(a.c.rules, ","), a.c.URL)
	}
	rp.header.Set("Amber-Replay", how)
	if rp.status == http.StatusOK && r.Method == http.MethodGet && r.Header.Get("If-Range") == "" {
		if rng := r.Header.Get("Range"); rng != "" {
			first, last, ok := byteRange(rng, size)
			switch {
			case ok:
				rp.status, rp.start, rp.n = http.StatusPartialContent, first, last-first+1
				rp.header.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, size))
			case first < 0:
				// Not one range of bytes: answered whole.
			default:
				rp.status, rp.unsatisfied, rp.n = http.StatusRequestedRangeNotSatisfiable, true, 0
				rp.header.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
			}
		}
	}
	rp.bodyless = rp.status == http.StatusNoContent || rp.status == http.StatusNotModified
	if !rp.bodyless {
		rp.header.Set("Content-Length", strconv.FormatInt(rp.n, 10))
	}
	return rp, nil
}

// write sends the reply. A payload that fails to read once the status is sent ends the
// connection, so that the browser sees a broken response rather than a short one.
func (rp *reply) write(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
	for k, v := range rp.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rp.status)
	if rp.bodyless || rp.unsatisfied || r.Method == http.MethodHead {
		return
	}
	if rp.start > 0 {
		if _, err := io.CopyN(io.Discard, rp.payload, rp.start); err != nil {
			log.Debug("replay: read payload", "url", rp.a.c.URL, "err", err)
			panic(http.ErrAbortHandler)
		}
	}
	if _, err := io.CopyN(w, rp.payload, rp.n); err != nil {
		log.Debug("replay: send payload", "url", rp.a.c.URL, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// byteRange reads a Range field of one range of bytes ("bytes=A-B", "bytes=A-", "bytes=-N")
// against a body of size bytes: ok with the first and last byte when it can be satisfied;
// first < 0 when the field is not one such range (then it is ignored, RFC 9110 §14.2); else
// it cannot be satisfied (416).
func byteRange(field string, size int64) (first, last int64, ok bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(field), "bytes=")
	if !found || strings.Contains(spec, ",") {
		return -1, 0, false
	}
	a, b, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return -1, 0, false
	}
	if a == "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 0 {
			return -1, 0, false
		}
		if n == 0 || size == 0 {
			return 0, 0, false
		}
		return max(size-n, 0), size - 1, true
	}
	first, err := strconv.ParseInt(a, 10, 64)
	if err != nil || first < 0 {
		return -1, 0, false
	}
	last = size - 1
	if b != "" {
		if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
			return -1, 0, false
		}
		last = min(last, size-1)
	}
	if first >= size {
		return first, 0, false
	}
	return first, last, true
}

// isRedirectTo reports whether a capture redirects to target: a 3xx whose Location, resolved
// against the captured URL, is target.
func isRedirectTo(a *archived, target *url.URL) bool {
	if a.head.Status < 300 || a.head.Status > 399 {
		return false
	}
	loc := a.head.Get("Location")
	if loc == "" {
		return false
	}
	base, err := url.Parse(a.c.URL)
	if err != nil {
		return false
	}
	to, err := base.Parse(loc)
	if err != nil {
		return false
	}
	return sameURL(to, target)
}

// missFrom is the Miss of a request for target: the page that asked, the type asked for.
func missFrom(r *http.Request, target, reason string) Miss {
	return Miss{
		Time:    time.Now().UTC(),
		Method:  r.Method,
		URL:     target,
		Referer: r.Header.Get("Referer"),
		Dest:    r.Header.Get("Sec-Fetch-Dest"),
		Reason:  reason,
	}
}
