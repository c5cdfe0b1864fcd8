package warc

import (
	"bytes"
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
// WARC-Payload-Digest is the digest of the entity body (WARC 1.1 §5.9), content codings such as
// gzip kept: the body as stored, de-chunked when the head declares the chunked coding alone and
// the body is complete chunked framing; a chunked body whose framing breaks or ends early is
// digested as stored, framing included, which is what readers that cannot de-chunk it digest
// (chunkedPayload states the rule, docs/warc.md every case).
//
// A revisit (profile identical-payload-digest 1.1, headers-only block) is written instead of a
// response when Dedup knows the payload digest, the status is 2xx, the entity body is not
// empty and the response is not truncated. Only such responses are stored in Dedup. A 304
// answering the conditional request of a capture with NotModified set is written as a revisit
// too (profile server-not-modified 1.1, see NotModified). The request record is left out when
// Request is empty. With Config.Held, every capture written is stored there after it is
// written, and one marked Once that the crawl holds already is not written (Capture.Once).
// Safe for concurrent use.
func (w *Writer) WriteCapture(c Capture) (Result, error) {
	if c.URL == "" {
		return Result{}, fmt.Errorf("%w: empty URL", ErrInvalid)
	}
	if c.Response == nil {
		return Result{}, fmt.Errorf("%w: no response for %s", ErrInvalid, c.URL)
	}
	meta, h, err := w.captureStart(c)
	if err != nil {
		return Result{}, err
	}

	resp, err := w.buildResponse(c, h)
	if err != nil {
		return Result{}, err
	}
	main := &prepared{rec: resp.rec}
	ps := []*prepared{main}
	defer func() { w.closePrepared(ps) }()
	key, held, claimedKey, err := w.holdOrClaim(c, resp)
	if err != nil {
		return Result{}, fmt.Errorf("look up held capture of %s: %w", c.URL, err)
	}
	if held {
		return Result{Held: true, Status: resp.status, PayloadDigest: resp.payload.digest}, nil
	}
	if claimedKey {
		defer w.releaseHeld(key)
	}
	res := Result{RecordID: h.respID, Status: resp.status, PayloadDigest: resp.payload.digest}

	dedupable := w.dedupable(c, resp)
	if c.NotModified != nil && resp.status == 304 {
		rv := w.buildNotModified(c, h, resp)
		main.rec.close()
		main.rec = rv
		res.Revisit, res.NotModified, res.PayloadDigest = true, true, c.NotModified.PayloadDigest
	}
	if dedupable {
		ref, found, claimed, err := w.lookupOrClaim(res.PayloadDigest, dedupRef{c.URL, h.at})
		if err != nil {
			return Result{}, fmt.Errorf("look up payload digest of %s: %w", c.URL, err)
		}
		if claimed {
			defer w.release(res.PayloadDigest)
		}
		if found {
			rv := w.buildRevisit(c, h, resp, ref)
			main.rec.close()
			main.rec = rv
			res.Revisit = true
		}
	}
	if len(c.Request) > 0 {
		// Chronological order: request, response, metadata.
		ps = []*prepared{{rec: w.buildRequest(c, h, newRecordID(), h.respID)}, main}
	}
	ps = append(ps, &prepared{rec: w.buildCaptureMetadata(c, h, meta)})

	line := captureLine(c.URL, h.at, resp, res)
	if rq, ok := requestKey(c.URL, c.Request); ok {
		// Keyed by method and body, as pywb and warcio.js key a POST (postkey.go).
		line.key, line.Method, line.RequestBody = CDXKey(rq.url), rq.method, rq.body
	}
	if err := w.commit(ps, h.infoID, len(ps)-2, &res, &line); err != nil {
		return Result{}, err
	}
	if dedupable && !res.Revisit {
		if err := w.cfg.Dedup.StoreDigest(res.PayloadDigest, c.URL, h.at); err != nil {
			return res, fmt.Errorf("store payload digest of %s: %w", c.URL, err)
		}
	}
	if claimedKey {
		if err := w.cfg.Held.StoreHeld(key); err != nil {
			return res, fmt.Errorf("store held capture of %s: %w", c.URL, err)
		}
	}
	return res, nil
}

// heldKey is the key a capture is held by (HeldIndex): "DIGEST STATUS URL".
func heldKey(url string, status int, digest string) string {
	return digest + " " + strconv.Itoa(status) + " " + url
}

// holdOrClaim decides a capture c with Config.Held set, its response read (resp): held when
// the crawl holds its key and c is marked Once (nothing is to be written); else claimed when
// the crawl does not hold it yet, and then the caller stores the key once the capture is
// written and calls releaseHeld in any case. While another capture of the key is being
// written, one marked Once waits for it and decides again; one that is not is written without
// a claim (the other stores the key).
func (w *Writer) holdOrClaim(c Capture, resp *builtResponse) (key string, held, claimed bool, err error) {
	if w.cfg.Held == nil {
		return "", false, false, nil
	}
	key = heldKey(c.URL, resp.status, resp.payload.digest)
	for {
		w.heldMu.Lock()
		busy, ok := w.holding[key]
		if !ok {
			if w.holding == nil {
				w.holding = make(map[string]chan struct{})
			}
			w.holding[key] = make(chan struct{})
			w.heldMu.Unlock()
			break
		}
		w.heldMu.Unlock()
		if !c.Once {
			return key, false, false, nil
		}
		<-busy
	}
	// Claimed before the look-up, which is I/O, so that no lock is held across it: a capture
	// of the key that comes meanwhile waits for this one.
	ok, err := w.cfg.Held.LookupHeld(key)
	if err != nil || ok {
		w.releaseHeld(key)
		return key, ok && c.Once, false, err
	}
	return key, false, true, nil
}

// releaseHeld ends a claim of holdOrClaim: the captures of key waiting for it decide again.
func (w *Writer) releaseHeld(key string) {
	w.heldMu.Lock()
	close(w.holding[key])
	delete(w.holding, key)
	w.heldMu.Unlock()
}

// WriteRequest writes a capture whose response is not archived (a response whose body the
// crawl did not fetch, say): its request record and its metadata record, WARC-Concurrent-To
// the request, whose lines (Capture.Extra) say why there is no response. c.Response,
// ResponseSize, Truncated and NotModified are not used; c.Request is required. No CDXJ line
// is written: there is nothing to replay. The Result is the request record's (Status 0, no
// payload digest). Safe for concurrent use.
func (w *Writer) WriteRequest(c Capture) (Result, error) {
	if c.URL == "" {
		return Result{}, fmt.Errorf("%w: empty URL", ErrInvalid)
	}
	if len(c.Request) == 0 {
		return Result{}, fmt.Errorf("%w: no request for %s", ErrInvalid, c.URL)
	}
	meta, h, err := w.captureStart(c)
	if err != nil {
		return Result{}, err
	}
	ps := []*prepared{{rec: w.buildRequest(c, h, h.respID, "")}, {rec: w.buildCaptureMetadata(c, h, meta)}}
	defer w.closePrepared(ps)
	res := Result{RecordID: h.respID}
	if err := w.commit(ps, h.infoID, 0, &res, nil); err != nil {
		return Result{}, err
	}
	return res, nil
}

// captureStart returns what every capture's records begin with: the metadata record's block
// and the headers they share (the capture's date, or now; a new record ID; the current
// warcinfo record).
func (w *Writer) captureStart(c Capture) (meta []byte, h captureHeaders, err error) {
	if meta, err = metadataBlock(c); err != nil {
		return nil, h, err
	}
	infoID, err := w.currentInfoID()
	if err != nil {
		return nil, h, err
	}
	date := c.Date
	if date.IsZero() {
		date = w.now()
	}
	return meta, captureHeaders{at: date, date: date.UTC().Format(dateLayout), respID: newRecordID(), infoID: infoID}, nil
}

// captureHeaders are the header values the records of one capture share.
type captureHeaders struct {
	at     time.Time // the capture's time
	date   string    // WARC-Date, dateLayout
	respID string    // WARC-Record-ID of the response or revisit (the request without one), the target of WARC-Concurrent-To
	infoID string    // WARC-Warcinfo-ID
}

// builtResponse is a response record and what the rest of a capture needs to know about it.
type builtResponse struct {
	rec     *record
	status  int    // HTTP status; 0 when the response does not parse
	header  []byte // the HTTP header block as recorded (status line, fields, blank line)
	mime    string // media type of the HTTP Content-Type, parameters removed
	hasMime bool   // the response has a Content-Type
	payload payloadDigest
}

// buildResponse reads c.Response into a response record, digesting it as it reads: the block
// digest over all of it, the payload digest over what follows the header block, de-chunked
// when chunkedPayload says so.
func (w *Writer) buildResponse(c Capture, h captureHeaders) (*builtResponse, error) {
	raw, err := readRaw(c.Response, c.ResponseSize, w.cfg.TempDir)
	if err != nil {
		return nil, fmt.Errorf("read response of %s: %w", c.URL, err)
	}
	if raw.Size() == 0 {
		return nil, fmt.Errorf("%w: empty response for %s", ErrInvalid, c.URL)
	}
	hdr, err := raw.header()
	if err != nil {
		_ = raw.Close()
		return nil, fmt.Errorf("read response of %s: %w", c.URL, err)
	}
	r := &builtResponse{header: hdr}
	r.status, r.mime, r.hasMime = lenientHead(hdr)
	chunked, plain := headChunkedAlone(hdr), false
	if body, ok := raw.memPayload(); ok && chunked {
		r.payload, plain = plainChunks(body)
	}
	switch {
	case !chunked:
		r.payload = raw.storedPayloadDigest()
	case !plain:
		if r.payload, err = chunkedPayload(raw.payload(), raw.storedPayloadDigest()); err != nil {
			_ = raw.Close()
			return nil, fmt.Errorf("digest payload of %s: %w", c.URL, err)
		}
	}
	fields := commonFields(h.respID, h.date, c.URL, c.IP, h.infoID)
	fields = append(fields, field{gowarc.ContentType, contentTypeResponse})
	if c.Truncated != "" {
		fields = append(fields, field{gowarc.WarcTruncated, cleanValue(c.Truncated)})
	}
	r.rec = &record{typ: "response", fields: fields, block: raw, blockDigest: sha1Digest(raw.blockSum), payloadDigest: r.payload.digest}
	return r, nil
}

// dedupable reports whether a response may be replaced by a revisit and, if it is not, be
// stored as the first capture of its payload.
func (w *Writer) dedupable(c Capture, r *builtResponse) bool {
	return w.cfg.Dedup != nil && c.Truncated == "" && r.status >= 200 && r.status <= 299 &&
		r.payload.size > 0 && r.payload.digest != ""
}

// buildRevisit builds the revisit record that stands for resp: same headers, the HTTP header
// block only, pointing at the first capture ref of the payload.
func (w *Writer) buildRevisit(c Capture, h captureHeaders, resp *builtResponse, ref dedupRef) *record {
	fields := commonFields(h.respID, h.date, c.URL, c.IP, h.infoID)
	fields = append(fields,
		field{gowarc.WarcProfile, profileRevisit},
		field{gowarc.WarcRefersToTargetURI, cleanValue(ref.uri)},
		field{gowarc.WarcRefersToDate, ref.date.UTC().Format(dateLayout)},
		field{gowarc.ContentType, contentTypeResponse})
	return &record{typ: "revisit", fields: fields, block: bytesBlock(resp.header),
		blockDigest: digestBytes(resp.header), payloadDigest: resp.payload.digest}
}

// buildNotModified builds the revisit record that stands for a 304 answering a conditional
// request for c.NotModified: profile server-not-modified, referring to the original, whose
// payload digest it carries, with the validators the 304 confirmed (its own, else those of the
// original) as Heritrix writes them, WARC-Etag and WARC-Last-Modified. It has no block: a
// revisit's HTTP headers are what replay tools serve (pywb, ReplayWeb.page reading an index),
// and those of a 304 would be served as a 304; without them they serve the original's.
func (w *Writer) buildNotModified(c Capture, h captureHeaders, resp *builtResponse) *record {
	o := c.NotModified
	fields := commonFields(h.respID, h.date, c.URL, c.IP, h.infoID)
	fields = append(fields,
		field{gowarc.WarcProfile, profileNotModified},
		field{gowarc.WarcRefersToTargetURI, cleanValue(o.URI)},
		field{gowarc.WarcRefersToDate, o.Date.UTC().Format(dateLayout)})
	etag, lastMod := headerValue(resp.header, "ETag"), headerValue(resp.header, "Last-Modified")
	if etag == "" {
		etag = o.ETag
	}
	if lastMod == "" {
		lastMod = o.LastModified
	}
	if v := cleanValue(etag); v != "" {
		fields = append(fields, field{FieldETag, v})
	}
	if v := cleanValue(lastMod); v != "" {
		fields = append(fields, field{FieldLastModified, v})
	}
	return &record{typ: "revisit", fields: fields, block: bytesBlock(nil),
		blockDigest: digestBytes(nil), payloadDigest: o.PayloadDigest}
}

// headerValue returns the value of the first field called name in an HTTP header block, with
// surrounding white space removed; "" when there is none.
func headerValue(header []byte, name string) string {
	_, rest, _ := bytes.Cut(header, []byte("\n")) // the status line
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		n, v, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(bytes.TrimSpace(n)), name) {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

// buildRequest builds the request record of a capture, its WARC-Record-ID id, concurrent to
// the record concurrentTo ("": none). Its payload is what follows the request's header block:
// the body of a POST, nothing for a GET.
func (w *Writer) buildRequest(c Capture, h captureHeaders, id, concurrentTo string) *record {
	fields := commonFields(id, h.date, c.URL, c.IP, h.infoID)
	if concurrentTo != "" {
		fields = append(fields, field{gowarc.WarcConcurrentTo, concurrentTo})
	}
	fields = append(fields, field{gowarc.ContentType, contentTypeRequest})
	bd, pd := httpDigests(c.Request)
	return &record{typ: "request", fields: fields, block: bytesBlock(c.Request), blockDigest: bd, payloadDigest: pd}
}

// buildCaptureMetadata builds the metadata record of a capture from its rendered block.
func (w *Writer) buildCaptureMetadata(c Capture, h captureHeaders, blk []byte) *record {
	fields := commonFields(newRecordID(), h.date, c.URL, "", h.infoID)
	fields = append(fields,
		field{gowarc.WarcConcurrentTo, h.respID},
		field{gowarc.ContentType, gowarc.ApplicationWarcFields})
	return &record{typ: "metadata", fields: fields, block: bytesBlock(blk), blockDigest: digestBytes(blk)}
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
	if res.Status > 0 && !res.NotModified { // a server-not-modified revisit has no HTTP headers
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

// lenientHead reads the status code and the media type of an HTTP response header block as
// browsers and warcio.js do: the status is the three-digit code after "HTTP/x"; lines without a
// colon are skipped; the media type is the first Content-Type field's value before any ";".
func lenientHead(header []byte) (status int, mime string, hasMime bool) {
	line, rest, _ := bytes.Cut(header, []byte("\n"))
	proto, after, ok := bytes.Cut(bytes.TrimSpace(line), []byte(" "))
	if !ok || !bytes.HasPrefix(proto, []byte("HTTP/")) {
		return 0, "", false
	}
	code, _, _ := bytes.Cut(bytes.TrimLeft(after, " "), []byte(" "))
	if len(code) != 3 || code[0] < '1' || code[0] > '9' || code[1] < '0' || code[1] > '9' || code[2] < '0' || code[2] > '9' {
		return 0, "", false
	}
	status = int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0')
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Type")) {
			v, _, _ := bytes.Cut(value, []byte(";"))
			if v = bytes.TrimSpace(v); len(v) == 0 {
				return status, "", false
			}
			return status, string(v), true
		}
	}
	return status, "", false
}
