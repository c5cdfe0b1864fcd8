package warc

import (
	"bufio"
	"bytes"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	gowarc "github.com/nlnwa/gowarc/v2"
)

// IndexEntry is one line of a CDXJ index, "KEY TIMESTAMP14 {json}", as amber, pywb, warcio and
// py-wacz write them.
type IndexEntry struct {
	Key      string    // the CDX SURT
	Time     time.Time // the 14-digit timestamp, UTC
	URL      string
	Mime     string // "warc/revisit" for a revisit record
	Status   int    // HTTP status; 0 when the line has none
	Digest   string // payload digest as NormalizeDigest gives it; "" when absent or not SHA-1
	Filename string // the WARC file
	Offset   int64  // of the record in Filename
	Length   int64  // of the record (its gzip member); 0 when the line has none
}

// ErrIndex wraps the errors of ParseIndexLine and ReadRecordHead about what they read.
var ErrIndex = errors.New("warc: invalid index or record")

// indexJSON is the JSON part of a CDXJ line. offset, length and status are strings in pywb's
// and warcio's lines and numbers in some others'.
type indexJSON struct {
	URL      string      `json:"url"`
	Mime     string      `json:"mime"`
	Status   flexibleInt `json:"status"`
	Digest   string      `json:"digest"`
	Length   flexibleInt `json:"length"`
	Offset   flexibleInt `json:"offset"`
	Filename string      `json:"filename"`
}

// flexibleInt reads a JSON number or a string holding one ("-" or "" read as 0).
type flexibleInt int64

func (n *flexibleInt) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	if s == "" || s == "-" || s == "null" {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return err
	}
	*n = flexibleInt(v)
	return nil
}

// ParseIndexLine parses one CDXJ line (without or with its newline). Errors wrap ErrIndex.
func ParseIndexLine(line []byte) (IndexEntry, error) {
	line = bytes.TrimRight(line, "\r\n")
	key, rest, ok1 := bytes.Cut(line, []byte(" "))
	ts, js, ok2 := bytes.Cut(rest, []byte(" "))
	if !ok1 || !ok2 || len(key) == 0 {
		return IndexEntry{}, fmt.Errorf("%w: cdxj line %.80q: want KEY TIMESTAMP {json}", ErrIndex, line)
	}
	t, err := parseTimestamp(string(ts))
	if err != nil {
		return IndexEntry{}, fmt.Errorf("%w: cdxj line %.80q: %v", ErrIndex, line, err)
	}
	j, ok := parseFlatJSON(js)
	if !ok {
		// Escapes, nested values or broken JSON: the standard decoder says which.
		var err error
		if j, err = decodeIndexJSON(js); err != nil {
			return IndexEntry{}, fmt.Errorf("%w: cdxj line %.80q: %v", ErrIndex, line, err)
		}
	}
	return IndexEntry{
		Key: string(key), Time: t, URL: j.URL, Mime: j.Mime, Status: int(j.Status),
		Digest: NormalizeDigest(j.Digest), Filename: j.Filename, Offset: int64(j.Offset), Length: int64(j.Length),
	}, nil
}

// decodeIndexJSON reads the JSON object of a CDXJ line with encoding/json, key by key in
// order, matching keys exactly as CDXJ writers and readers do (pywb, warcio.js: "url", not
// "URL" or "uRl", which a struct's json tags would also match). A key given twice is set
// twice, as json.Unmarshal does: the last value counts, and null leaves a string as it was.
func decodeIndexJSON(b []byte) (indexJSON, error) {
	var j indexJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil {
		return j, err
	} else if tok != json.Delim('{') {
		return j, errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return indexJSON{}, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return indexJSON{}, err
		}
		if dst := j.field(key); dst != nil {
			if err := json.Unmarshal(v, dst); err != nil {
				return indexJSON{}, fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return indexJSON{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return indexJSON{}, errors.New("data after the JSON object")
	}
	return j, nil
}

// field is the field of j that the CDXJ key names, nil for another key.
func (j *indexJSON) field(key string) any {
	switch key {
	case "url":
		return &j.URL
	case "mime":
		return &j.Mime
	case "status":
		return &j.Status
	case "digest":
		return &j.Digest
	case "length":
		return &j.Length
	case "offset":
		return &j.Offset
	case "filename":
		return &j.Filename
	}
	return nil
}

// parseFlatJSON reads the JSON object of a CDXJ line as amber, pywb and warcio write it: one
// level of "key": value pairs, the values strings without escapes, numbers or null. It reports
// false for anything else (json.Unmarshal then reads the object), and is four times as fast,
// which is most of the time of loading a large index.
func parseFlatJSON(b []byte) (j indexJSON, ok bool) {
	b = bytes.Trim(b, " \t\r\n")
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' || bytes.IndexByte(b, '\\') >= 0 {
		return j, false
	}
	b = b[1 : len(b)-1]
	for first := true; ; first = false {
		b = bytes.TrimLeft(b, " \t")
		if len(b) == 0 && first {
			return j, true // {}
		}
		if len(b) == 0 || b[0] != '"' {
			return j, false
		}
		end := bytes.IndexByte(b[1:], '"')
		if end < 0 {
			return j, false
		}
		key := b[1 : 1+end]
		if !plainString(key) {
			return j, false
		}
		b = bytes.TrimLeft(b[2+end:], " \t")
		if len(b) == 0 || b[0] != ':' {
			return j, false
		}
		b = bytes.TrimLeft(b[1:], " \t")
		var val []byte
		quoted := len(b) > 0 && b[0] == '"'
		if quoted {
			end := bytes.IndexByte(b[1:], '"')
			if end < 0 {
				return j, false
			}
			val, b = b[1:1+end], b[2+end:]
			if !plainString(val) {
				return j, false
			}
		} else {
			end := bytes.IndexAny(b, ", \t")
			if end < 0 {
				end = len(b)
			}
			val, b = b[:end], b[end:]
			if !jsonLiteral(val) {
				return j, false
			}
		}
		if !setIndexField(&j, string(key), val, quoted) {
			return j, false
		}
		b = bytes.TrimLeft(b, " \t")
		if len(b) == 0 {
			return j, true
		}
		if b[0] != ',' {
			return j, false
		}
		b = b[1:]
	}
}

// setIndexField sets the field of j called key from a value parseFlatJSON read; false for a
// value of the wrong kind.
func setIndexField(j *indexJSON, key string, val []byte, quoted bool) bool {
	str := func(dst *string) bool {
		if !quoted {
			return string(val) == "null"
		}
		*dst = string(val)
		return true
	}
	switch key {
	case "url":
		return str(&j.URL)
	case "mime":
		return str(&j.Mime)
	case "digest":
		return str(&j.Digest)
	case "filename":
		return str(&j.Filename)
	case "status":
		return j.Status.UnmarshalJSON(val) == nil
	case "length":
		return j.Length.UnmarshalJSON(val) == nil
	case "offset":
		return j.Offset.UnmarshalJSON(val) == nil
	}
	return true
}

// plainString reports whether a JSON string's content is printable ASCII (no escapes: the
// caller found no backslash): control characters are JSON errors, and other bytes would need
// UTF-8 checks, left to encoding/json.
func plainString(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// jsonLiteral reports whether b is a JSON number, true, false or null.
func jsonLiteral(b []byte) bool {
	switch string(b) {
	case "null", "true", "false":
		return true
	}
	i := 0
	digits := func() bool {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n > 0
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}

// parseTimestamp reads a CDX timestamp: 14 digits (or fewer, as pywb allows, padded with the
// earliest values; more, fractions of a second, are ignored).
func parseTimestamp(ts string) (time.Time, error) {
	if len(ts) < 4 || strings.Trim(ts, "0123456789") != "" {
		return time.Time{}, fmt.Errorf("timestamp %q", ts)
	}
	if len(ts) > 14 {
		ts = ts[:14]
	}
	ts += "0101000000"[len(ts)-4:]
	return time.Parse("20060102150405", ts)
}

// NormalizeDigest returns a payload digest in amber's form, "sha1:BASE32": a SHA-1 digest
// written as base32 with or without the "sha1:" label (as CDXJ lines write it), or as 40 hex
// digits. A digest of another algorithm ("sha256:...", Browsertrix's), or one that is not a
// digest ("-"), gives "": it cannot match any of amber's.
func NormalizeDigest(d string) string {
	d = strings.TrimSpace(d)
	if label, v, ok := strings.Cut(d, ":"); ok {
		if !strings.EqualFold(label, "sha1") {
			return ""
		}
		d = v
	}
	switch len(d) {
	case 32:
		up := strings.ToUpper(d)
		if _, err := base32.StdEncoding.DecodeString(up); err != nil {
			return ""
		}
		return "sha1:" + up
	case 40:
		b, err := hex.DecodeString(d)
		if err != nil {
			return ""
		}
		return "sha1:" + base32.StdEncoding.EncodeToString(b)
	}
	return ""
}

// RecordHead is what the head of a response or revisit record says about the capture: its
// WARC header fields and, when the block holds an HTTP response, the status and validators.
type RecordHead struct {
	Type          string    // WARC-Type
	TargetURI     string    // WARC-Target-URI
	Date          time.Time // WARC-Date
	PayloadDigest string    // WARC-Payload-Digest, as NormalizeDigest gives it
	Profile       string    // WARC-Profile of a revisit
	RefersToURI   string    // WARC-Refers-To-Target-URI of a revisit
	RefersToDate  time.Time // WARC-Refers-To-Date of a revisit; zero when absent
	Status        int       // HTTP status of the block; 0 when the block holds no HTTP response
	Mime          string    // media type of the HTTP Content-Type, lowercase, without parameters
	// ETag and LastModified are the HTTP validators of the response (its ETag and Last-Modified
	// fields), or those a server-not-modified revisit records (FieldETag, FieldLastModified).
	ETag, LastModified string
	// Truncated is WARC-Truncated: why the record holds less than was sent ("length",
	// "time", ...); "" when it holds it all.
	Truncated string
}

// maxRecordHead bounds what ReadRecordHead reads of a record: the WARC header and the HTTP
// header block together.
const maxRecordHead = 256 << 10

// ReadRecordHead reads the record at offset in r, gzip-compressed (one member, as amber and
// every crawler of note write them) or not, up to the end of its HTTP header block. length is
// the record's length in r, or 0 when unknown. It reads at most 256 KiB; errors about the
// record wrap ErrIndex.
func ReadRecordHead(r io.ReaderAt, offset, length int64) (RecordHead, error) {
	n := length
	if n <= 0 {
		n = 1 << 62
	}
	sr := io.NewSectionReader(r, offset, n)
	br := bufio.NewReaderSize(sr, 4096)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return RecordHead{}, fmt.Errorf("%w: record at %d: %v", ErrIndex, offset, err)
		}
		zr.Multistream(false)
		src = zr
	}
	rd := bufio.NewReaderSize(io.LimitReader(src, maxRecordHead), 8192)
	h, err := readRecordHead(rd)
	if err != nil {
		return h, fmt.Errorf("%w: record at %d: %v", ErrIndex, offset, err)
	}
	return h, nil
}

func readRecordHead(rd *bufio.Reader) (RecordHead, error) {
	h, contentType, contentLength, err := readWARCHeader(rd)
	if err != nil {
		return h, err
	}
	if contentLength == 0 || !httpBlock(h.Type, contentType) {
		return h, nil
	}
	_, err = readHTTPHead(rd, &h, false)
	return h, err
}

// readWARCHeader reads a record's version line and header fields, up to the blank line that
// ends them: the fields a RecordHead holds, the record's Content-Type, and its Content-Length
// (-1 when it has none).
func readWARCHeader(rd *bufio.Reader) (h RecordHead, contentType string, contentLength int64, err error) {
	contentLength = -1
	version, err := readLine(rd)
	if err != nil {
		return h, "", 0, err
	}
	if !strings.HasPrefix(version, "WARC/") {
		return h, "", 0, fmt.Errorf("not a WARC record: %.40q", version)
	}
	for {
		line, err := readLine(rd)
		if err != nil {
			return h, "", 0, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "warc-type":
			h.Type = value
		case "warc-target-uri":
			h.TargetURI = strings.Trim(value, "<>")
		case "warc-date":
			h.Date, _ = time.Parse(time.RFC3339Nano, value)
		case "warc-payload-digest":
			h.PayloadDigest = NormalizeDigest(value)
		case "warc-profile":
			h.Profile = value
		case "warc-refers-to-target-uri":
			h.RefersToURI = strings.Trim(value, "<>")
		case "warc-refers-to-date":
			h.RefersToDate, _ = time.Parse(time.RFC3339Nano, value)
		case "warc-etag":
			h.ETag = value
		case "warc-last-modified":
			h.LastModified = value
		case "warc-truncated":
			h.Truncated = value
		case "content-type":
			contentType = value
		case "content-length":
			contentLength, _ = strconv.ParseInt(value, 10, 64)
		}
	}
	if h.Type == "" || h.Date.IsZero() {
		return h, "", 0, errors.New("no WARC-Type or WARC-Date")
	}
	return h, contentType, contentLength, nil
}

// httpBlock reports whether the block of a record of type typ and Content-Type contentType
// starts with an HTTP response: a response or revisit record of type application/http, or of
// no type at all.
func httpBlock(typ, contentType string) bool {
	return (typ == "response" || typ == "revisit") &&
		(strings.HasPrefix(strings.ToLower(contentType), gowarc.ApplicationHttp) || contentType == "")
}

// readHTTPHead reads the status line and header fields of an HTTP response into h (Status,
// and unless already set Mime, ETag and LastModified). With keep it also returns them as
// recorded; else it returns nil. A block that ends before the blank line (a headers-only
// revisit may) is no error.
func readHTTPHead(rd *bufio.Reader, h *RecordHead, keep bool) (*HTTPHead, error) {
	status, err := readLine(rd)
	if err != nil {
		return nil, err
	}
	var head *HTTPHead
	if keep {
		head = &HTTPHead{}
	}
	if proto, rest, ok := strings.Cut(status, " "); ok && strings.HasPrefix(status, "HTTP/") {
		code, reason, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
		h.Status, _ = strconv.Atoi(code)
		if head != nil {
			head.Proto, head.Status, head.Reason = proto, h.Status, reason
		}
	}
	for {
		line, err := readLine(rd)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return head, nil // a headers-only revisit may end without a blank line
			}
			return nil, err
		}
		if line == "" {
			return head, nil
		}
		if head != nil && (line[0] == ' ' || line[0] == '\t') && len(head.Fields) > 0 {
			// An obsolete line folding (RFC 9112 §5.2): the value goes on.
			f := &head.Fields[len(head.Fields)-1]
			f.Value += " " + strings.TrimSpace(line)
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		if head != nil {
			head.Fields = append(head.Fields, Field{Name: strings.TrimSpace(name), Value: value})
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-type":
			if h.Mime == "" {
				mt, _, _ := strings.Cut(value, ";")
				h.Mime = strings.ToLower(strings.TrimSpace(mt))
			}
		case "etag":
			if h.ETag == "" {
				h.ETag = value
			}
		case "last-modified":
			if h.LastModified == "" {
				h.LastModified = value
			}
		}
	}
}

// readLine reads one line without its CRLF or LF.
func readLine(rd *bufio.Reader) (string, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		if err == io.EOF && line != "" {
			return strings.TrimRight(line, "\r"), nil
		}
		if err == io.EOF {
			return "", io.ErrUnexpectedEOF
		}
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
