// Package warccheck validates WARC files and CDXJ indexes with a reader amber did not write:
// gowarc's, with every validation turned on. Tests of the warc package and the crawl's
// end-to-end tests use it to prove that what amber wrote is valid.
package warccheck

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	gowarc "github.com/nlnwa/gowarc/v2"
)

// ErrInvalid is wrapped by the errors of Validate, ValidateDir and CheckCDXJ when the data is
// readable but wrong.
var ErrInvalid = errors.New("warccheck: invalid")

// Record summarises one WARC record.
type Record struct {
	Type          string   // WARC-Type: "warcinfo", "request", "response", "revisit", "metadata", "resource", ...
	TargetURI     string   // WARC-Target-URI
	RecordID      string   // WARC-Record-ID, "<urn:uuid:...>"
	Date          string   // WARC-Date as written
	Offset        int64    // offset of the record (its gzip member) in the file
	Length        int64    // length of the record in the file (compressed)
	ContentType   string   // Content-Type of the record
	HTTPStatus    int      // status of a response or revisit (0 otherwise)
	HTTPMime      string   // media type of the HTTP Content-Type of a response/revisit, parameters removed
	ConcurrentTo  []string // WARC-Concurrent-To values
	PayloadDigest string   // WARC-Payload-Digest
	BlockDigest   string   // WARC-Block-Digest
	Truncated     string   // WARC-Truncated
	RefersToURI   string   // WARC-Refers-To-Target-URI (revisits)
	RefersToDate  string   // WARC-Refers-To-Date (revisits)
	RefersTo      string   // WARC-Refers-To
	Profile       string   // WARC-Profile (revisits)
	IPAddress     string   // WARC-IP-Address
	WarcinfoID    string   // WARC-Warcinfo-ID
	Fields        []Field  // parsed block of application/warc-fields records (warcinfo, metadata)
}

// Field is one "name: value" line of a warc-fields block.
type Field struct{ Name, Value string }

// Report is what Validate found in one file.
type Report struct {
	Path     string
	Records  []Record
	Errors   []string // every problem found, "offset N: ..." where a record is concerned
	Dangling []string // WARC-Concurrent-To targets of resource records not found in the file (ValidateDir resolves them across files)
	// Notes are findings about what a server sent rather than about the WARC: a response
	// whose HTTP header has a line without a colon, say. The record holds the bytes as they
	// came, which is right; browsers skip such a line, and so does the lenient reading of the
	// record's status and Content-Type here.
	Notes []string
}

// OK reports whether no problem was found.
func (r Report) OK() bool { return len(r.Errors) == 0 }

// Field returns the first value of a warc-fields line of the record ("" if absent).
func (r Record) Field(name string) string {
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Validate reads a WARC file with gowarc's reader, validating everything it can: WARC header
// syntax and required fields, Content-Length, block and payload digests, end-of-record markers,
// gzip checksums. It also checks amber's own rules: one gzip member per record (for .gz files),
// warcinfo first, unique record IDs, WARC-Warcinfo-ID pointing at that warcinfo, a target URI
// on capture records, SHA-1 digests present, revisit fields (profile, refers-to URI and date,
// payload digest, no WARC-Truncated), and WARC-Concurrent-To targets present in the file (for
// resource records that may be in another file: see Report.Dangling).
// The error is non-nil when the file cannot be read or when any problem was found (it then
// wraps ErrInvalid and the Report lists all problems).
func Validate(path string) (Report, error) {
	rep := Report{Path: path}
	f, err := os.Open(path)
	if err != nil {
		return rep, fmt.Errorf("open warc: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return rep, fmt.Errorf("stat warc: %w", err)
	}
	readRecords(struct{ io.Reader }{f}, info.Size(), &rep) // gowarc closes Closers
	complete := rep.OK()
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".gz.open") {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return rep, fmt.Errorf("rewind warc: %w", err)
		}
		checkMembers(f, &rep, complete)
	}
	checkLinks(&rep)
	return rep, rep.err()
}

func (r *Report) errorf(off int64, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if off >= 0 {
		msg = fmt.Sprintf("offset %d: %s", off, msg)
	}
	r.Errors = append(r.Errors, msg)
}

func (r Report) err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	const show = 5
	msgs := r.Errors
	more := ""
	if len(msgs) > show {
		more = fmt.Sprintf(" (and %d more)", len(msgs)-show)
		msgs = msgs[:show]
	}
	return fmt.Errorf("%w: %s: %s%s", ErrInvalid, r.Path, strings.Join(msgs, "; "), more)
}

// readRecords runs gowarc's reader over the file, collecting summaries and problems.
func readRecords(r io.Reader, size int64, rep *Report) {
	defer func() {
		if p := recover(); p != nil {
			rep.errorf(-1, "gowarc panicked reading the file: %v", p)
		}
	}()
	// Syntax errors end the read: with a lenient syntax policy gowarc v2.0.1 loops forever on
	// a truncated gzip member, and skipping garbage to the next record is not what we want.
	rd, err := newWarcReader(r,
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail),
		gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrWarn),
		gowarc.WithBlockErrorPolicy(gowarc.ErrWarn),
		gowarc.WithFixSyntaxErrors(false),
		gowarc.WithFixDigest(false),
		gowarc.WithFixContentLength(false),
		gowarc.WithAddMissingDigest(false),
		gowarc.WithAddMissingContentLength(false),
		gowarc.WithAddMissingRecordId(false),
	)
	if err != nil {
		rep.errorf(-1, "open reader: %v", err)
		return
	}
	defer rd.Close()
	for {
		rec, off, findings, err := next(rd)
		if n := len(rep.Records); n > 0 && rep.Records[n-1].Length == 0 {
			rep.Records[n-1].Length = off - rep.Records[n-1].Offset
		}
		for _, f := range findings {
			if serverFinding(f) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("offset %d: %s", off, f))
				continue
			}
			rep.errorf(off, "%s", f)
		}
		if errors.Is(err, io.EOF) {
			if rec != nil {
				_ = rec.Close()
			}
			if off != size {
				rep.errorf(off, "%d bytes after the last record", size-off)
			}
			return
		}
		if err != nil {
			rep.errorf(off, "%v", err)
			if rec != nil {
				_ = rec.Close()
			}
			return
		}
		rep.Records = append(rep.Records, summarize(rec, off, rep))
		_ = rec.Close()
	}
}

func summarize(rec gowarc.WarcRecord, off int64, rep *Report) Record {
	h := rec.WarcHeader()
	r := Record{
		Type:          rec.Type().String(),
		TargetURI:     h.Get(gowarc.WarcTargetURI),
		RecordID:      h.Get(gowarc.WarcRecordID),
		Date:          h.Get(gowarc.WarcDate),
		Offset:        off,
		ContentType:   h.Get(gowarc.ContentType),
		ConcurrentTo:  h.GetAll(gowarc.WarcConcurrentTo),
		PayloadDigest: h.Get(gowarc.WarcPayloadDigest),
		BlockDigest:   h.Get(gowarc.WarcBlockDigest),
		Truncated:     h.Get(gowarc.WarcTruncated),
		RefersToURI:   h.Get(gowarc.WarcRefersToTargetURI),
		RefersToDate:  h.Get(gowarc.WarcRefersToDate),
		RefersTo:      h.Get(gowarc.WarcRefersTo),
		Profile:       h.Get(gowarc.WarcProfile),
		IPAddress:     h.Get(gowarc.WarcIPAddress),
		WarcinfoID:    h.Get(gowarc.WarcWarcinfoID),
	}
	if r.Type == "unknown" || r.Type == "" {
		r.Type = h.Get(gowarc.WarcType)
	}
	switch b := rec.Block().(type) {
	case gowarc.HttpResponseBlock:
		r.HTTPStatus = b.HttpStatusCode()
		if hh := b.HttpHeader(); hh != nil {
			r.HTTPMime = mediaType(hh.Get("Content-Type"))
		}
		if r.HTTPStatus == 0 {
			r.HTTPStatus, r.HTTPMime = lenientHTTPHead(b)
		}
	case gowarc.WarcFieldsBlock:
		if wf := b.WarcFields(); wf != nil {
			for _, nv := range *wf {
				r.Fields = append(r.Fields, Field{Name: nv.Name, Value: nv.Value})
			}
		}
	}
	if rec.Type() == gowarc.Revisit {
		if pb, ok := rec.Block().(gowarc.ProtocolHeaderBlock); ok && len(pb.ProtocolHeaderBytes()) > 0 {
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(pb.ProtocolHeaderBytes())), nil)
			if err != nil {
				rep.errorf(off, "revisit HTTP headers: %v", err)
			} else {
				r.HTTPStatus = resp.StatusCode
				r.HTTPMime = mediaType(resp.Header.Get("Content-Type"))
				_ = resp.Body.Close()
			}
		}
	}
	return r
}

func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	return strings.TrimSpace(strings.SplitN(ct, ";", 2)[0])
}

// checkMembers checks that every record is exactly one gzip member. complete says whether the
// record reader got through the whole file (only then can members and records be matched).
func checkMembers(r io.Reader, rep *Report, complete bool) {
	cr := &countingReader{r: r}
	br := bufio.NewReader(cr)
	var offsets []int64
	zr := new(gzip.Reader)
	for {
		off := cr.n - int64(br.Buffered())
		if _, err := br.Peek(1); err != nil {
			break
		}
		if err := zr.Reset(br); err != nil {
			rep.errorf(off, "not a gzip member: %v", err)
			return
		}
		zr.Multistream(false)
		if err := oneRecord(zr); err != nil {
			rep.errorf(off, "gzip member: %v", err)
			return
		}
		offsets = append(offsets, off)
	}
	if !complete {
		return
	}
	if len(offsets) != len(rep.Records) {
		rep.errorf(-1, "%d gzip members for %d records: records must be one gzip member each", len(offsets), len(rep.Records))
		return
	}
	for i, off := range offsets {
		if rep.Records[i].Offset != off {
			rep.errorf(rep.Records[i].Offset, "record does not start a gzip member (member at %d)", off)
			return
		}
	}
}

// oneRecord reads a decompressed gzip member and checks that it holds exactly one record:
// a header block, Content-Length bytes and the CRLF CRLF end marker.
func oneRecord(r io.Reader) error {
	br := bufio.NewReader(r)
	length := int64(-1)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("record header: %w", err)
		}
		if line == "\r\n" {
			break
		}
		if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); err == nil {
				length = n
			}
		}
	}
	n, err := io.Copy(io.Discard, br)
	if err != nil {
		return err
	}
	if length < 0 || n != length+4 {
		return fmt.Errorf("%d bytes after the record header for Content-Length %d: records must be one gzip member each", n, length)
	}
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// checkLinks checks amber's rules between records of one file.
func checkLinks(rep *Report) {
	ids := map[string]bool{}
	infoID := ""
	for i, r := range rep.Records {
		if r.RecordID != "" {
			if ids[r.RecordID] {
				rep.errorf(r.Offset, "duplicate WARC-Record-ID %s", r.RecordID)
			}
			ids[r.RecordID] = true
		}
		if i == 0 {
			if r.Type != "warcinfo" {
				rep.errorf(r.Offset, "first record is %s, want warcinfo", r.Type)
			} else {
				infoID = r.RecordID
			}
		}
	}
	for _, r := range rep.Records {
		if r.Type == "warcinfo" {
			continue
		}
		if r.TargetURI == "" {
			rep.errorf(r.Offset, "%s record without WARC-Target-URI", r.Type)
		}
		if infoID != "" && r.WarcinfoID != "" && r.WarcinfoID != infoID {
			rep.errorf(r.Offset, "WARC-Warcinfo-ID %s is not this file's warcinfo %s", r.WarcinfoID, infoID)
		}
		if r.BlockDigest == "" {
			rep.errorf(r.Offset, "%s record without WARC-Block-Digest", r.Type)
		} else if !strings.HasPrefix(r.BlockDigest, "sha1:") {
			rep.errorf(r.Offset, "WARC-Block-Digest %q is not sha1", r.BlockDigest)
		}
		notModified := r.Type == "revisit" && r.Profile == gowarc.ProfileServerNotModifiedV1_1
		switch r.Type {
		case "response", "revisit", "resource":
			switch {
			case r.PayloadDigest == "" && notModified:
				// A server-not-modified revisit has the original's payload digest when it is
				// known (amber's), and none when it is not (an earlier crawl indexed by sha256).
			case r.PayloadDigest == "":
				rep.errorf(r.Offset, "%s record without WARC-Payload-Digest", r.Type)
			case !strings.HasPrefix(r.PayloadDigest, "sha1:"):
				rep.errorf(r.Offset, "WARC-Payload-Digest %q is not sha1", r.PayloadDigest)
			}
		}
		if r.Type == "revisit" {
			switch r.Profile {
			case gowarc.ProfileIdenticalPayloadDigestV1_1, gowarc.ProfileServerNotModifiedV1_1:
			default:
				rep.errorf(r.Offset, "revisit profile %q", r.Profile)
			}
			if r.RefersToURI == "" || r.RefersToDate == "" {
				rep.errorf(r.Offset, "revisit without WARC-Refers-To-Target-URI or WARC-Refers-To-Date")
			}
			if r.Truncated != "" {
				rep.errorf(r.Offset, "revisit with WARC-Truncated %q", r.Truncated)
			}
		}
		for _, c := range r.ConcurrentTo {
			if ids[c] {
				continue
			}
			if r.Type == "resource" {
				rep.Dangling = append(rep.Dangling, c)
				continue
			}
			rep.errorf(r.Offset, "WARC-Concurrent-To %s: no such record in the file", c)
		}
	}
}

// ValidateDir validates every *.warc.gz and *.warc file in dir (in name order), resolves the
// Dangling Concurrent-To targets of each report across all files, and fails on files still
// named *.open. The error wraps ErrInvalid when any problem was found; every file's report is
// returned either way.
func ValidateDir(dir string) ([]Report, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list warc dir: %w", err)
	}
	var names []string
	var errs []error
	for _, e := range entries {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".open"):
			errs = append(errs, fmt.Errorf("%w: %s: file still open", ErrInvalid, n))
		case strings.HasSuffix(n, ".warc.gz"), strings.HasSuffix(n, ".warc"):
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var reps []Report
	ids := map[string]bool{}
	for _, n := range names {
		rep, err := Validate(filepath.Join(dir, n))
		if err != nil {
			errs = append(errs, err)
		}
		for _, r := range rep.Records {
			ids[r.RecordID] = true
		}
		reps = append(reps, rep)
	}
	for i := range reps {
		for _, d := range reps[i].Dangling {
			if !ids[d] {
				reps[i].errorf(-1, "WARC-Concurrent-To %s: no such record in %s", d, dir)
				errs = append(errs, fmt.Errorf("%w: %s: WARC-Concurrent-To %s: no such record", ErrInvalid, reps[i].Path, d))
			}
		}
	}
	return reps, errors.Join(errs...)
}

// next reads the next record with gowarc and returns gowarc's findings about it as text.
//
// gowarc v2.0.1 digests the payload of an HTTP response as the body as stored, chunk framing
// included. WARC 1.1 §5.9 and the IIPC clarification (warc-specifications issue 22) define it
// as the entity body: de-chunked, content coding kept. For a chunked response whose body is
// complete chunked framing next therefore drops gowarc's payload digest finding and checks the
// digest itself (entityPayloadFinding); for every other record gowarc's check stands.
func next(rd *gowarc.WarcFileReader) (gowarc.WarcRecord, int64, []string, error) {
	rec, off, val, err := rd.Next()
	checked, own := false, ""
	if err == nil && rec != nil {
		checked, own = entityPayloadFinding(rec)
	}
	var findings []string
	if val != nil {
		for _, e := range *val {
			// gowarc's payload finding reads "payload: wrong digest: ...".
			if checked && strings.HasPrefix(e.Error(), "payload: ") {
				continue
			}
			findings = append(findings, e.Error())
		}
	}
	if own != "" {
		findings = append(findings, own)
	}
	return rec, off, findings, err
}

// entityPayloadFinding checks the WARC-Payload-Digest of a response record whose HTTP head
// declares the chunked transfer coding alone (chunkedAlone) and whose body net/http de-chunks
// to its end, trailer section included, against the SHA-1 of the de-chunked body. checked is
// false for every other record, gowarc's own check (the body as stored) standing: that is the
// payload of a chunked body whose framing breaks or ends early, which has no entity body that
// readers agree on. problem is "" when the digest matches.
func entityPayloadFinding(rec gowarc.WarcRecord) (checked bool, problem string) {
	want := rec.WarcHeader().Get(gowarc.WarcPayloadDigest)
	b, ok := rec.Block().(gowarc.HttpResponseBlock)
	if rec.Type() != gowarc.Response || !ok || want == "" || !b.IsCached() {
		return false, ""
	}
	head := b.ProtocolHeaderBytes()
	if !chunkedAlone(head) {
		return false, ""
	}
	raw, err := b.RawBytes()
	if err != nil {
		return false, ""
	}
	if _, err := io.CopyN(io.Discard, raw, int64(len(head))); err != nil {
		return false, ""
	}
	// net/http reads the body under a head of its own: the record's head may have lines
	// net/http refuses (browsers skip them, and so does chunkedAlone).
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(
		strings.NewReader("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), raw)), nil)
	if err != nil {
		return false, ""
	}
	defer resp.Body.Close()
	h := sha1.New()
	if _, err := io.Copy(h, resp.Body); err != nil {
		return false, "" // broken framing: the body as stored is the payload
	}
	if !strings.HasPrefix(want, "sha1:") {
		return true, fmt.Sprintf("payload digest %q is not sha1", want)
	}
	got := "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
	if got != want {
		return true, fmt.Sprintf("payload digest %s, de-chunked entity body digests to %s", want, got)
	}
	return true, ""
}

// chunkedAlone reports whether an HTTP response head declares the chunked transfer coding
// alone, the only framing net/http de-chunks: an HTTP/1.1 or later status line (net/http
// ignores Transfer-Encoding in HTTP/1.0) and one Transfer-Encoding field, "chunked" in any
// letter case. Lines without a colon are skipped.
func chunkedAlone(head []byte) bool {
	lines := strings.Split(string(head), "\n")
	version, _, _ := strings.Cut(strings.TrimSpace(lines[0]), " ")
	major, minor, ok := http.ParseHTTPVersion(version)
	if !ok || major < 1 || (major == 1 && minor < 1) {
		return false
	}
	var values []string
	for _, l := range lines[1:] {
		if name, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(strings.TrimSpace(name), "Transfer-Encoding") {
			values = append(values, strings.TrimSpace(v))
		}
	}
	return len(values) == 1 && strings.EqualFold(values[0], "chunked")
}

// serverFinding reports whether a gowarc finding is about the HTTP header a server sent (a
// header line without a colon) rather than about the WARC record: a note, not an error.
func serverFinding(f string) bool {
	return strings.Contains(f, "error in http response block: malformed MIME header")
}

// lenientHTTPHead reads the status code and Content-Type of a response block as a browser
// would when gowarc could not parse its header: header lines without a colon are skipped.
func lenientHTTPHead(b gowarc.HttpResponseBlock) (int, string) {
	raw, err := b.RawBytes()
	if err != nil {
		return 0, ""
	}
	br := bufio.NewReader(raw)
	line, err := br.ReadString('\n')
	if err != nil && line == "" {
		return 0, ""
	}
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/") {
		return 0, ""
	}
	code, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, ""
	}
	mime := ""
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(name), "Content-Type") && mime == "" {
			mime = mediaType(strings.TrimSpace(value))
		}
		if err != nil {
			break
		}
	}
	return code, mime
}

// gowarcMu serialises the construction of gowarc readers: gowarc v2.0.1 calls
// uuid.EnableRandPool, an unsynchronised write to a global, every time it builds options.
var gowarcMu sync.Mutex

func newWarcReader(r io.Reader, opts ...gowarc.WarcRecordOption) (*gowarc.WarcFileReader, error) {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	return gowarc.NewWarcFileReaderFromStream(r, 0, opts...)
}

// CDXJLine is one parsed line of a CDXJ index.
type CDXJLine struct {
	Key       string
	Timestamp string
	URL       string `json:"url"`
	Mime      string `json:"mime"`
	Status    string `json:"status"`
	Digest    string `json:"digest"`
	Length    string `json:"length"`
	Offset    string `json:"offset"`
	Filename  string `json:"filename"`
}

// ParseCDXJ parses CDXJ text ("KEY TIMESTAMP {json}" per line).
func ParseCDXJ(data []byte) ([]CDXJLine, error) {
	var out []CDXJLine
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		parts := strings.SplitN(line, " ", 3)
		if len(parts) != 3 {
			return out, fmt.Errorf("%w: cdxj line %d: want KEY TIMESTAMP {json}", ErrInvalid, i+1)
		}
		l := CDXJLine{Key: parts[0], Timestamp: parts[1]}
		if err := json.Unmarshal([]byte(parts[2]), &l); err != nil {
			return out, fmt.Errorf("%w: cdxj line %d: %v", ErrInvalid, i+1, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// CheckCDXJ checks every line of a CDXJ index against the WARC files in warcDir: the line is
// well formed (14-digit timestamp, url, offset, length, filename), and at its filename and
// offset starts a valid response, revisit or resource record (or a metadata record that is not
// application/warc-fields, which warcio.js and pywb index too) whose WARC-Target-URI is the
// line's url, whose gzip member is length bytes long, whose WARC-Date gives the timestamp,
// whose payload digest and HTTP status are the line's. It does not recompute the key.
func CheckCDXJ(cdxjPath, warcDir string) error {
	data, err := os.ReadFile(cdxjPath)
	if err != nil {
		return fmt.Errorf("read cdxj: %w", err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return fmt.Errorf("%w: %s: last line not terminated", ErrInvalid, cdxjPath)
	}
	lines, err := ParseCDXJ(data)
	if err != nil {
		return err
	}
	var errs []error
	for i, l := range lines {
		if err := checkLine(l, warcDir); err != nil {
			errs = append(errs, fmt.Errorf("%w: %s line %d (%s): %v", ErrInvalid, cdxjPath, i+1, l.URL, err))
			if len(errs) >= 10 {
				break
			}
		}
	}
	return errors.Join(errs...)
}

func checkLine(l CDXJLine, warcDir string) (err error) {
	if len(l.Timestamp) != 14 || strings.Trim(l.Timestamp, "0123456789") != "" {
		return fmt.Errorf("timestamp %q", l.Timestamp)
	}
	if l.URL == "" || l.Filename == "" || strings.ContainsAny(l.Filename, `/\`) {
		return fmt.Errorf("missing url or bad filename %q", l.Filename)
	}
	off, err := strconv.ParseInt(l.Offset, 10, 64)
	if err != nil || off < 0 {
		return fmt.Errorf("offset %q", l.Offset)
	}
	length, err := strconv.ParseInt(l.Length, 10, 64)
	if err != nil || length <= 0 {
		return fmt.Errorf("length %q", l.Length)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("gowarc panicked: %v", p)
		}
	}()
	f, err := os.Open(filepath.Join(warcDir, l.Filename))
	if err != nil {
		return err
	}
	defer f.Close()
	// Read exactly the member the line points at: a wrong length shows up as a damaged record.
	sr := io.NewSectionReader(f, off, length)
	// Strict, except that a finding is not an error at once: next drops gowarc's payload
	// digest finding for chunked responses and checks those digests itself.
	rd, err := newWarcReader(sr,
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail),
		gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrFail),
		gowarc.WithBlockErrorPolicy(gowarc.ErrWarn),
		gowarc.WithFixSyntaxErrors(false),
		gowarc.WithFixDigest(false),
		gowarc.WithFixContentLength(false),
		gowarc.WithAddMissingDigest(false),
	)
	if err != nil {
		return err
	}
	defer rd.Close()
	rec, _, findings, err := next(rd)
	findings = slices.DeleteFunc(findings, serverFinding)
	if err == nil && len(findings) > 0 {
		err = errors.New(strings.Join(findings, "; "))
	}
	if err != nil {
		if rec != nil {
			_ = rec.Close()
		}
		return fmt.Errorf("no valid record at offset %d length %d: %v", off, length, err)
	}
	rep := &Report{}
	sum := summarize(rec, off, rep)
	_ = rec.Close()
	if next, _, _, err := rd.Next(); !errors.Is(err, io.EOF) {
		if next != nil {
			_ = next.Close()
		}
		return fmt.Errorf("length %d covers more than one record", length)
	}
	switch {
	case sum.Type == "response", sum.Type == "revisit", sum.Type == "resource":
	case sum.Type == "metadata" && mediaType(sum.ContentType) != "application/warc-fields":
		// warcio.js and pywb index metadata records, except warc-fields ones.
	default:
		return fmt.Errorf("record at offset %d is %s (%s)", off, sum.Type, sum.ContentType)
	}
	if sum.TargetURI != l.URL {
		return fmt.Errorf("record at offset %d is for %s", off, sum.TargetURI)
	}
	ts := strings.NewReplacer("-", "", ":", "", "T", "").Replace(sum.Date)
	if len(ts) < 14 || ts[:14] != l.Timestamp {
		return fmt.Errorf("timestamp %s, record date %s", l.Timestamp, sum.Date)
	}
	if d := strings.TrimPrefix(sum.PayloadDigest, "sha1:"); l.Digest != d {
		return fmt.Errorf("digest %q, record %q", l.Digest, d)
	}
	if sum.HTTPStatus != 0 && l.Status != strconv.Itoa(sum.HTTPStatus) {
		return fmt.Errorf("status %q, record %d", l.Status, sum.HTTPStatus)
	}
	if sum.Type == "revisit" && l.Mime != "warc/revisit" {
		return fmt.Errorf("revisit with mime %q", l.Mime)
	}
	return nil
}
