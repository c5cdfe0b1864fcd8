// Package report writes what an archivist reads after a crawl: crawl.log in Heritrix's format
// and, built on it and the frontier, the post-crawl reports.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/internal/jsonstr"
	"github.com/amber-crawler/amber/novelty"
)

// ErrMalformedLine is wrapped by ParseLine's errors.
var ErrMalformedLine = errors.New("report: malformed crawl.log line")

// ErrCrawlLogClosed is returned by CrawlLog.Write after Close.
var ErrCrawlLogClosed = errors.New("report: crawl.log closed")

// The MIME column of a line without a media type, as Heritrix writes it.
const (
	// NoType is written for a URL that got no response (Heritrix's MimetypeUtils.NO_TYPE_MIMETYPE).
	NoType = "no-type"
	// UnknownType is written for a response without a Content-Type (Heritrix's
	// CrawlURI.setContentType(null)).
	UnknownType = "unknown"
)

// ExtraContentSize is the key of Line.Extra that holds Heritrix's content size: the whole
// recorded response, status line and headers included. See Line.ContentSize.
const ExtraContentSize = "contentSize"

// ExtraTextShingles and ExtraTextNew are the keys of Line.Extra that hold how much of a
// page's text was new to the crawl when it was captured (novelty.Measure: its sampled
// shingles, and how many of them were new), on the lines of pages with a search document.
const (
	ExtraTextShingles = "textShingles"
	ExtraTextNew      = "textNew"
)

// Line is one crawl.log line: Heritrix 3's columns, written as its UriProcessingFormatter
// writes them. Empty strings are written "-" and read back as "".
type Line struct {
	Time   time.Time // when the URL was finished (column 1)
	Status int       // HTTP status or a negative Heritrix code, see package status (2)
	// Size is column 3, Heritrix's CrawlURI.getContentLength(): the length of the response's
	// content body as recorded, that is the bytes that followed the final response's header
	// block on the wire (chunked framing and content coding included, nothing decoded). 0 for
	// a response without a body. <0 when there was no response; written "-". The whole
	// response, headers included, is the content size (ContentSize).
	Size int64
	URL  string // (4)
	// Hops is the hop path from the seed (5). Format writes it as hop.Logged does: "-" for a
	// seed, and a path longer than 50 letters as "N+" and its last 50 letters. ParseLine
	// keeps the column as it is, so after parsing Hops holds that abbreviated form for a long
	// path (the letters left out are lost, and len(Hops) is then not the hop count); its last
	// letter is still the last hop, so hop.Last and hop.Navigates work on it.
	Hops string
	Via  string // the URL this one was found on (6)
	// MIME is the media type of the response (7). Format writes it as Heritrix's
	// MimetypeUtils.truncate does: up to the first whitespace, ';' or ','; an empty one as
	// UnknownType for a line with a response (Status > 0) and NoType for one without.
	// ParseLine reads "-" and the column Format writes for an empty MIME back as "", any other
	// value (NoType on a line with a response, say) as it is.
	MIME        string
	Thread      int           // worker number (8), written "#007"
	FetchStart  time.Time     // (9) first half; zero means "-"
	FetchDur    time.Duration // (9) second half
	Digest      string        // payload digest, "sha1:..." (10)
	Seed        string        // source seed (11)
	Annotations []string      // (12), comma-separated (a comma inside one is written %2C)
	// Extra is Heritrix's extra-info JSON object (13): warcFilename, warcFileOffset,
	// contentSize, ... Written "{}" when empty. Numbers read back are float64.
	Extra map[string]any
}

// ContentSize returns Heritrix's content size of the line's URL (CrawlURI.getContentSize()):
// the whole recorded response, status line and headers included. It is the number under
// ExtraContentSize in Extra when there is one, else Size. The byte figures of the reports
// add these up, as Heritrix's reports do.
func (l Line) ContentSize() int64 {
	switch n := l.Extra[ExtraContentSize].(type) {
	case float64:
		return int64(n)
	case int64:
		return n
	case int:
		return int64(n)
	}
	return l.Size
}

// Text returns the line's text measure (ExtraTextShingles, ExtraTextNew) and whether it has
// one.
func (l Line) Text() (novelty.Measure, bool) {
	sh, ok1 := extraInt(l.Extra[ExtraTextShingles])
	nw, ok2 := extraInt(l.Extra[ExtraTextNew])
	if !ok1 || !ok2 || sh < 0 || nw < 0 || nw > sh {
		return novelty.Measure{}, false
	}
	return novelty.Measure{Shingles: int(sh), New: int(nw)}, true
}

// extraInt reads a number of Line.Extra (a float64 once parsed, an int when set in Go).
func extraInt(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		return int64(n), n == float64(int64(n))
	case int64:
		return n, true
	case int:
		return int64(n), true
	}
	return 0, false
}

func undash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// Format renders l as one line (without the newline). Fields never contain spaces: URLs with
// spaces are escaped by canonicalisation upstream, and any stray whitespace is percent-encoded
// here so the columns stay parseable.
func (l Line) Format() string {
	return string(l.AppendFormat(make([]byte, 0, 256)))
}

// AppendFormat appends the line Format renders to b.
func (l Line) AppendFormat(b []byte) []byte {
	b = l.Time.UTC().AppendFormat(b, crawlLogTime)
	b = append(b, ' ')
	b = appendPadded(b, strconv.Itoa(l.Status), 5)
	b = append(b, ' ')
	if l.Size < 0 {
		b = appendPadded(b, "-", 10)
	} else {
		b = appendPadded(b, strconv.FormatInt(l.Size, 10), 10)
	}
	b = append(b, ' ')
	for _, col := range []string{field(l.URL), field(hop.Logged(l.Hops)), field(l.Via), l.mimeColumn()} {
		b = append(b, col...)
		b = append(b, ' ')
	}
	b = append(b, '#')
	switch {
	case l.Thread >= 0 && l.Thread < 10:
		b = append(b, '0', '0', byte('0'+l.Thread))
	case l.Thread >= 10 && l.Thread < 100:
		b = append(b, '0')
		b = strconv.AppendInt(b, int64(l.Thread), 10)
	default:
		b = fmt.Appendf(b, "%03d", l.Thread)
	}
	b = append(b, ' ')
	if l.FetchStart.IsZero() {
		b = append(b, '-')
	} else {
		t := l.FetchStart.UTC()
		b = t.AppendFormat(b, "20060102150405.000")
		b = append(b[:len(b)-4], b[len(b)-3:]...) // the milliseconds without the dot
		b = append(b, '+')
		b = strconv.AppendInt(b, l.FetchDur.Milliseconds(), 10)
	}
	b = append(b, ' ')
	b = append(b, field(l.Digest)...)
	b = append(b, ' ')
	b = append(b, field(l.Seed)...)
	b = append(b, ' ')
	ann := make([]string, 0, len(l.Annotations))
	for _, a := range l.Annotations {
		if a != "" {
			ann = append(ann, strings.ReplaceAll(a, ",", "%2C"))
		}
	}
	b = append(b, field(strings.Join(ann, ","))...)
	b = append(b, ' ')
	return l.appendExtra(b)
}

// appendPadded appends s right-aligned in a column of width w, as fmt's %*s does.
func appendPadded(b []byte, s string, w int) []byte {
	for i := len(s); i < w; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// mimeColumn is the MIME column as Heritrix's MimetypeUtils.truncate writes it.
// A media type cut down to nothing or to "-" (which ParseLine reads as none: FuzzParseLine
// gave "-,") is written as none is.
func (l Line) mimeColumn() string {
	m := l.MIME
	if i := strings.IndexAny(m, " \t\r\n\v\f;,"); i >= 0 {
		m = m[:i]
	}
	if m == "" || m == "-" {
		if l.MIME == "" && l.Status > 0 {
			return UnknownType
		}
		return NoType
	}
	return m
}

// appendExtra appends the extra-info JSON object, "{}" when there is none or it does not
// encode: json.Marshal's output, built without it when every value is a string or an integer.
func (l Line) appendExtra(b []byte) []byte {
	if len(l.Extra) == 0 {
		return append(b, "{}"...)
	}
	keys := make([]string, 0, len(l.Extra))
	for k, v := range l.Extra {
		switch v.(type) {
		case string, int, int64:
		default:
			js, err := json.Marshal(l.Extra)
			if err != nil {
				return append(b, "{}"...)
			}
			return append(b, js...)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonstr.Append(b, k, true)
		b = append(b, ':')
		switch v := l.Extra[k].(type) {
		case string:
			b = jsonstr.Append(b, v, true)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		}
	}
	return append(b, '}')
}

// field writes a column value: "-" when empty, whitespace percent-encoded.
func field(s string) string {
	if s == "" {
		return "-"
	}
	if strings.ContainsAny(s, " \t\r\n") {
		r := strings.NewReplacer(" ", "%20", "\t", "%09", "\r", "%0D", "\n", "%0A")
		return r.Replace(s)
	}
	return s
}

// ParseLine parses a crawl.log line written by Format or by Heritrix 3 (12 columns, or 13
// with the extra-info object), reading each column back as Line describes. Errors wrap
// ErrMalformedLine.
func ParseLine(s string) (Line, error) {
	f := strings.Fields(s)
	if len(f) < 12 {
		return Line{}, fmt.Errorf("%w: %d columns, want at least 12", ErrMalformedLine, len(f))
	}
	var l Line
	var err error
	if l.Time, err = time.Parse(time.RFC3339Nano, f[0]); err != nil {
		return Line{}, fmt.Errorf("%w: time: %v", ErrMalformedLine, err)
	}
	if l.Status, err = strconv.Atoi(f[1]); err != nil {
		return Line{}, fmt.Errorf("%w: status: %v", ErrMalformedLine, err)
	}
	l.Size = -1
	if f[2] != "-" {
		if l.Size, err = strconv.ParseInt(f[2], 10, 64); err != nil {
			return Line{}, fmt.Errorf("%w: size: %v", ErrMalformedLine, err)
		}
	}
	l.URL, l.Hops, l.Via = undash(f[3]), undash(f[4]), undash(f[5])
	if f[6] != "-" && f[6] != (Line{Status: l.Status}).mimeColumn() {
		l.MIME = f[6]
	}
	if t := strings.TrimPrefix(f[7], "#"); t != "-" {
		if l.Thread, err = strconv.Atoi(t); err != nil {
			return Line{}, fmt.Errorf("%w: thread: %v", ErrMalformedLine, err)
		}
	}
	if f[8] != "-" {
		if l.FetchStart, l.FetchDur, err = parseFetchTime(f[8]); err != nil {
			return Line{}, err
		}
	}
	l.Digest, l.Seed = undash(f[9]), undash(f[10])
	if a := undash(f[11]); a != "" {
		l.Annotations = strings.Split(a, ",")
	}
	if len(f) > 12 {
		rest := strings.Join(f[12:], " ")
		if rest != "{}" && rest != "-" {
			if err := json.Unmarshal([]byte(rest), &l.Extra); err != nil {
				return Line{}, fmt.Errorf("%w: extra: %v", ErrMalformedLine, err)
			}
		}
	}
	return l, nil
}

// parseFetchTime parses column 9, "yyyyMMddHHmmssSSS+DURATION_MS" (the duration may be
// missing).
func parseFetchTime(col string) (time.Time, time.Duration, error) {
	ts, dur, ok := strings.Cut(col, "+")
	if len(ts) != 17 || strings.Trim(ts, "0123456789") != "" {
		// Digits only: Atoi would take "-01" for the milliseconds (FuzzParseLine), a time
		// before the one written, which Format cannot write back as 17 digits.
		return time.Time{}, 0, fmt.Errorf("%w: fetch time %q: want 17 digits", ErrMalformedLine, ts)
	}
	start, err := time.Parse("20060102150405", ts[:14])
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("%w: fetch time: %v", ErrMalformedLine, err)
	}
	ms, err := strconv.Atoi(ts[14:])
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("%w: fetch time: %v", ErrMalformedLine, err)
	}
	start = start.Add(time.Duration(ms) * time.Millisecond)
	if !ok {
		return start, 0, nil
	}
	d, err := strconv.ParseInt(dur, 10, 64)
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("%w: fetch duration: %v", ErrMalformedLine, err)
	}
	return start, time.Duration(d) * time.Millisecond, nil
}

// crawlLogTime is the layout of crawl.log's first column.
const crawlLogTime = "2006-01-02T15:04:05.000Z"

// stampPlaceholder formats as wide as the time CrawlLog.Write stamps in its place.
var stampPlaceholder = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// CrawlLog appends lines to a crawl.log file. Each line is one write, so a killed crawl leaves
// whole lines. Safe for concurrent use.
type CrawlLog struct {
	mu sync.Mutex // guards f
	f  *lineFile
}

// OpenCrawlLog opens (or creates) path for appending. A torn last line left by a killed process
// is cut off, and a line the disk cuts short is cut back off, so every line is whole.
func OpenCrawlLog(path string) (*CrawlLog, error) {
	f, err := openLineFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: open crawl.log: %w", err)
	}
	return &CrawlLog{f: f}, nil
}

// Write appends one line. A line without a Time is stamped with the time it is written, taken
// under the file's lock, so that the lines of concurrent writers are in time order in the file
// (as MergeCrawlLogs needs them): stamped before the lock, a worker that waited for it would
// write a time earlier than the line before.
func (c *CrawlLog) Write(l Line) error {
	stamp := l.Time.IsZero()
	if stamp {
		l.Time = stampPlaceholder
	}
	s := append(l.AppendFormat(make([]byte, 0, 384)), '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return ErrCrawlLogClosed
	}
	if stamp {
		// The time column has a fixed width (years 1000 to 9999): rewritten in place, from a
		// buffer of its own (AppendFormat writes past the column's end on its way).
		var ts [64]byte
		copy(s, time.Now().UTC().AppendFormat(ts[:0], crawlLogTime))
	}
	if err := c.f.writeLine(s); err != nil {
		return fmt.Errorf("report: write crawl.log: %w", err)
	}
	return nil
}

// Close syncs and closes the file.
func (c *CrawlLog) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.close()
	c.f = nil
	if err != nil {
		return fmt.Errorf("report: close crawl.log: %w", err)
	}
	return nil
}
