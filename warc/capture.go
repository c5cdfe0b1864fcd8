package warc

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	gowarc "github.com/nlnwa/gowarc/v2"
)

// WriteCapture writes the capture's request, response (or revisit) and metadata records,
// linked by WARC-Concurrent-To, into one file, then appends the CDXJ line of the
// response/revisit, then stores the payload digest in Dedup.
//
// The response record's block is the response exactly as read from c.Response. Its
// WARC-Payload-Digest is the digest of the entity body (WARC 1.1 §5.9): a chunked body is
// de-chunked first (as far as its framing parses), a content coding such as gzip is kept.
//
// A revisit (profile identical-payload-digest 1.1, headers-only block) is written instead of a
// response when Dedup knows the payload digest, the status is 2xx, the entity body is not
// empty and the response is not truncated. Only such responses are stored in Dedup. The
// request record is left out when Request is empty. Safe for concurrent use.
func (w *Writer) WriteCapture(c Capture) (Result, error) {
	if c.URL == "" {
		return Result{}, fmt.Errorf("%w: empty URL", ErrInvalid)
	}
	if c.Response == nil {
		return Result{}, fmt.Errorf("%w: no response for %s", ErrInvalid, c.URL)
	}
	meta, err := metadataBlock(c)
	if err != nil {
		return Result{}, err
	}
	infoID, err := w.currentInfoID()
	if err != nil {
		return Result{}, err
	}
	date := c.Date
	if date.IsZero() {
		date = w.now()
	}
	h := captureHeaders{date: date.UTC().Format(dateLayout), respID: newRecordID(), infoID: infoID}

	resp, err := w.buildResponse(c, h)
	if err != nil {
		return Result{}, err
	}
	main := &prepared{rec: resp.rec}
	ps := []*prepared{main}
	defer func() { w.closePrepared(ps) }()
	res := Result{RecordID: h.respID, Status: resp.status, PayloadDigest: resp.payload.digest}

	dedupable := w.dedupable(c, resp)
	if dedupable {
		ref, found, claimed, err := w.lookupOrClaim(res.PayloadDigest, dedupRef{c.URL, date})
		if err != nil {
			return Result{}, fmt.Errorf("look up payload digest of %s: %w", c.URL, err)
		}
		if claimed {
			defer w.release(res.PayloadDigest)
		}
		if found {
			rv, err := w.buildRevisit(c, h, resp, ref)
			if err != nil {
				return Result{}, err
			}
			_ = main.rec.Close()
			main.rec = rv
			res.Revisit = true
		}
	}
	if len(c.Request) > 0 {
		req, err := w.buildRequest(c, h)
		if err != nil {
			return Result{}, err
		}
		// Chronological order: request, response, metadata.
		ps = []*prepared{{rec: req}, main}
	}
	mrec, err := w.buildCaptureMetadata(c, h, meta)
	if err != nil {
		return Result{}, err
	}
	ps = append(ps, &prepared{rec: mrec})

	line := captureLine(c.URL, date, resp, res)
	if err := w.commit(ps, infoID, len(ps)-2, &res, &line); err != nil {
		return Result{}, err
	}
	if dedupable && !res.Revisit {
		if err := w.cfg.Dedup.StoreDigest(res.PayloadDigest, c.URL, date); err != nil {
			return res, fmt.Errorf("store payload digest of %s: %w", c.URL, err)
		}
	}
	return res, nil
}

// captureHeaders are the header values the records of one capture share.
type captureHeaders struct {
	date   string // WARC-Date, dateLayout
	respID string // WARC-Record-ID of the response or revisit, the target of WARC-Concurrent-To
	infoID string // WARC-Warcinfo-ID
}

// builtResponse is a response record and what the rest of a capture needs to know about it.
type builtResponse struct {
	rec     gowarc.WarcRecord
	status  int    // HTTP status; 0 when the response does not parse
	header  []byte // the HTTP header block as recorded (status line, fields, blank line)
	mime    string // media type of the HTTP Content-Type, parameters removed
	hasMime bool   // the response has a Content-Type
	payload payloadDigest
}

// buildResponse reads c.Response into a response record and sets its payload digest.
func (w *Writer) buildResponse(c Capture, h captureHeaders) (*builtResponse, error) {
	rb := newRecordBuilder(gowarc.Response, w.recOpts...)
	w.commonHeaders(rb, h.respID, h.date, c.URL, c.IP, h.infoID)
	rb.AddWarcHeader(gowarc.ContentType, contentTypeResponse)
	if c.Truncated != "" {
		rb.AddWarcHeader(gowarc.WarcTruncated, c.Truncated)
	}
	n, err := rb.ReadFrom(c.Response)
	if err != nil {
		_ = rb.Close()
		return nil, fmt.Errorf("read response of %s: %w", c.URL, err)
	}
	if n == 0 {
		_ = rb.Close()
		return nil, fmt.Errorf("%w: empty response for %s", ErrInvalid, c.URL)
	}
	rec, err := build(rb)
	if err != nil {
		return nil, fmt.Errorf("build response record of %s: %w", c.URL, err)
	}
	r := &builtResponse{rec: rec}
	if err := r.inspect(); err != nil {
		_ = rec.Close()
		return nil, fmt.Errorf("digest payload of %s: %w", c.URL, err)
	}
	return r, nil
}

// inspect fills in status, header, media type and payload digest from the record's block, and
// replaces the payload digest gowarc computed (over the body as on the wire, chunk framing
// included) with the digest of the de-chunked entity body when the body is chunked.
func (r *builtResponse) inspect() error {
	b, ok := r.rec.Block().(gowarc.HttpResponseBlock)
	if !ok {
		// Not parsable as HTTP: the whole block is the payload, as gowarc digested it.
		if pb, ok := r.rec.Block().(gowarc.PayloadBlock); ok {
			r.payload.digest = pb.PayloadDigest()
		}
		return nil
	}
	r.status = b.HttpStatusCode()
	if hh := b.HttpHeader(); hh != nil {
		if ct := hh.Get("Content-Type"); ct != "" {
			r.mime, r.hasMime = strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]), true
		}
	}
	r.header = b.ProtocolHeaderBytes()
	if r.status == 0 {
		// gowarc could not parse the header (a line without a colon, say): read it as
		// browsers and warcio.js do, skipping such lines, so the index says what they see.
		r.status, r.mime, r.hasMime = lenientHead(r.header)
	}
	r.payload = payloadDigest{digest: b.PayloadDigest(), size: b.Size() - int64(len(r.header))}
	if !isChunked(r.header) {
		return nil
	}
	if err := b.Cache(); err != nil {
		return err
	}
	body, err := b.PayloadBytes()
	if err != nil {
		return err
	}
	pd, err := dechunkedDigest(body)
	if err != nil {
		return err
	}
	r.payload = pd
	r.rec.WarcHeader().Set(gowarc.WarcPayloadDigest, pd.digest)
	return nil
}

// dedupable reports whether a response may be replaced by a revisit and, if it is not, be
// stored as the first capture of its payload.
func (w *Writer) dedupable(c Capture, r *builtResponse) bool {
	return w.cfg.Dedup != nil && c.Truncated == "" && r.status >= 200 && r.status <= 299 &&
		r.payload.size > 0 && r.payload.digest != ""
}

// buildRevisit builds the revisit record that stands for resp: same headers, the HTTP header
// block only, pointing at the first capture ref of the payload.
func (w *Writer) buildRevisit(c Capture, h captureHeaders, resp *builtResponse, ref dedupRef) (gowarc.WarcRecord, error) {
	rv := newRecordBuilder(gowarc.Revisit, w.recOpts...)
	w.commonHeaders(rv, h.respID, h.date, c.URL, c.IP, h.infoID)
	rv.AddWarcHeader(gowarc.WarcProfile, profileRevisit)
	rv.AddWarcHeader(gowarc.WarcRefersToTargetURI, ref.uri)
	rv.AddWarcHeader(gowarc.WarcRefersToDate, ref.date.UTC().Format(dateLayout))
	rv.AddWarcHeader(gowarc.ContentType, contentTypeResponse)
	rv.AddWarcHeader(gowarc.WarcPayloadDigest, resp.payload.digest)
	if _, err := rv.Write(resp.header); err != nil {
		_ = rv.Close()
		return nil, fmt.Errorf("build revisit record of %s: %w", c.URL, err)
	}
	rec, err := build(rv)
	if err != nil {
		return nil, fmt.Errorf("build revisit record of %s: %w", c.URL, err)
	}
	return rec, nil
}

// buildRequest builds the request record of a capture.
func (w *Writer) buildRequest(c Capture, h captureHeaders) (gowarc.WarcRecord, error) {
	qb := newRecordBuilder(gowarc.Request, w.recOpts...)
	w.commonHeaders(qb, newRecordID(), h.date, c.URL, c.IP, h.infoID)
	qb.AddWarcHeader(gowarc.WarcConcurrentTo, h.respID)
	qb.AddWarcHeader(gowarc.ContentType, contentTypeRequest)
	if _, err := qb.Write(c.Request); err != nil {
		_ = qb.Close()
		return nil, fmt.Errorf("build request record of %s: %w", c.URL, err)
	}
	rec, err := build(qb)
	if err != nil {
		return nil, fmt.Errorf("build request record of %s: %w", c.URL, err)
	}
	return rec, nil
}

// buildCaptureMetadata builds the metadata record of a capture from its rendered block.
func (w *Writer) buildCaptureMetadata(c Capture, h captureHeaders, block []byte) (gowarc.WarcRecord, error) {
	mb := newRecordBuilder(gowarc.Metadata, w.recOpts...)
	w.commonHeaders(mb, newRecordID(), h.date, c.URL, "", h.infoID)
	mb.AddWarcHeader(gowarc.WarcConcurrentTo, h.respID)
	mb.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	if _, err := mb.Write(block); err != nil {
		_ = mb.Close()
		return nil, fmt.Errorf("build metadata record of %s: %w", c.URL, err)
	}
	rec, err := build(mb)
	if err != nil {
		return nil, fmt.Errorf("build metadata record of %s: %w", c.URL, err)
	}
	return rec, nil
}

// captureLine is the CDXJ line of a capture's response or revisit, without its place in the
// file (commit fills that in). Fields are left out where warcio.js leaves them out.
func captureLine(url string, date time.Time, resp *builtResponse, res Result) cdxLine {
	line := cdxLine{
		key:    CDXKey(url),
		date:   date,
		URL:    url,
		Digest: strings.TrimPrefix(res.PayloadDigest, "sha1:"),
	}
	mime, hasMime := resp.mime, resp.hasMime
	if res.Revisit {
		mime, hasMime = "warc/revisit", true
	}
	if hasMime {
		line.Mime = &mime
	}
	if res.Status > 0 {
		s := strconv.Itoa(res.Status)
		line.Status = &s
	}
	return line
}

// dedupRef is the first capture of a payload.
type dedupRef struct {
	uri  string
	date time.Time
}

// lookupOrClaim finds the first capture of a payload digest, in the captures being written now
// or in Dedup. When there is none it claims the digest for self (claimed=true): the caller
// stores it in Dedup after writing and then calls release.
func (w *Writer) lookupOrClaim(digest string, self dedupRef) (ref dedupRef, found, claimed bool, err error) {
	w.dedupMu.Lock()
	defer w.dedupMu.Unlock()
	if r, ok := w.pending[digest]; ok {
		return r, true, false, nil
	}
	// The lookup is a read of the local store; holding dedupMu across it is what makes
	// "look up, else claim" atomic.
	uri, date, ok, err := w.cfg.Dedup.LookupDigest(digest)
	if err != nil || ok {
		return dedupRef{uri, date}, ok, false, err
	}
	if w.pending == nil {
		w.pending = make(map[string]dedupRef)
	}
	w.pending[digest] = self
	return dedupRef{}, false, true, nil
}

// release ends a claim made by lookupOrClaim.
func (w *Writer) release(digest string) {
	w.dedupMu.Lock()
	delete(w.pending, digest)
	w.dedupMu.Unlock()
}

// lenientHead reads the status code and the media type of an HTTP response header that
// net/textproto refuses: lines without a colon are skipped.
func lenientHead(header []byte) (status int, mime string, hasMime bool) {
	lines := strings.Split(strings.ReplaceAll(string(header), "\r\n", "\n"), "\n")
	f := strings.Fields(lines[0])
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/") {
		return 0, "", false
	}
	status, err := strconv.Atoi(f[1])
	if err != nil || status < 100 || status > 999 {
		return 0, "", false
	}
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Type") {
			return status, strings.TrimSpace(strings.SplitN(value, ";", 2)[0]), true
		}
	}
	return status, "", false
}
