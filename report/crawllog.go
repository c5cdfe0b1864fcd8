// Package report writes what an archivist reads after a crawl: crawl.log in Heritrix's format
// and, built on it and the frontier, the post-crawl reports.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Heritrix's negative status codes for URLs that got no HTTP response, as used in crawl.log.
const (
	StatusDNSFailed     = -6    // prerequisite domain lookup failed
	StatusConnectFailed = -2    // HTTP connect failed
	StatusConnectBroken = -3    // connection broken during the exchange
	StatusTimeout       = -4    // HTTP timeout
	StatusInvalidURL    = -7    // invalid or unsupported URL (also: address refused by the guard)
	StatusRetriesFailed = -8    // retries exhausted
	StatusTooManyHops   = -4001 // beyond max hops
	StatusOutOfScope    = -5000 // out of scope
	StatusRobots        = -9998 // disallowed by robots.txt
)

// ErrMalformedLine is wrapped by ParseLine's errors.
var ErrMalformedLine = errors.New("report: malformed crawl.log line")

// Line is one crawl.log line: Heritrix's 13 columns.
type Line struct {
	Time        time.Time     // when the URL was finished (column 1)
	Status      int           // HTTP status or a negative Heritrix code (2)
	Size        int64         // response size in bytes; <0 means none ("-") (3)
	URL         string        // (4)
	Hops        string        // hop path from the seed; "" is written "-" (5)
	Via         string        // (6)
	MIME        string        // (7)
	Thread      int           // worker number (8), written "#007"
	FetchStart  time.Time     // (9) first half; zero means "-"
	FetchDur    time.Duration // (9) second half
	Digest      string        // "sha1:..." (10)
	Seed        string        // source seed (11)
	Annotations []string      // (12), comma-separated
	Extra       map[string]any
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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
	var b strings.Builder
	b.Grow(256)
	b.WriteString(l.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
	fmt.Fprintf(&b, " %5d ", l.Status)
	if l.Size < 0 {
		fmt.Fprintf(&b, "%10s ", "-")
	} else {
		fmt.Fprintf(&b, "%10d ", l.Size)
	}
	b.WriteString(field(l.URL))
	b.WriteByte(' ')
	b.WriteString(field(l.Hops))
	b.WriteByte(' ')
	b.WriteString(field(l.Via))
	b.WriteByte(' ')
	b.WriteString(field(l.MIME))
	fmt.Fprintf(&b, " #%03d ", l.Thread)
	if l.FetchStart.IsZero() {
		b.WriteString("-")
	} else {
		t := l.FetchStart.UTC()
		fmt.Fprintf(&b, "%s%03d+%d", t.Format("20060102150405"), t.Nanosecond()/1e6, l.FetchDur.Milliseconds())
	}
	b.WriteByte(' ')
	b.WriteString(field(l.Digest))
	b.WriteByte(' ')
	b.WriteString(field(l.Seed))
	b.WriteByte(' ')
	ann := make([]string, 0, len(l.Annotations))
	for _, a := range l.Annotations {
		if a != "" {
			ann = append(ann, strings.ReplaceAll(a, ",", "%2C"))
		}
	}
	b.WriteString(field(strings.Join(ann, ",")))
	b.WriteByte(' ')
	if len(l.Extra) == 0 {
		b.WriteString("{}")
	} else {
		js, err := json.Marshal(l.Extra)
		if err != nil {
			js = []byte("{}")
		}
		b.WriteString(string(js))
	}
	return b.String()
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

// ParseLine parses a crawl.log line written by Format or by Heritrix.
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
	l.URL, l.Hops, l.Via, l.MIME = undash(f[3]), undash(f[4]), undash(f[5]), undash(f[6])
	if t := strings.TrimPrefix(f[7], "#"); t != "-" {
		if l.Thread, err = strconv.Atoi(t); err != nil {
			return Line{}, fmt.Errorf("%w: thread: %v", ErrMalformedLine, err)
		}
	}
	if f[8] != "-" {
		ts, dur, ok := strings.Cut(f[8], "+")
		if len(ts) != 17 {
			return Line{}, fmt.Errorf("%w: fetch time %q: want 17 digits", ErrMalformedLine, ts)
		}
		if l.FetchStart, err = time.Parse("20060102150405", ts[:14]); err != nil {
			return Line{}, fmt.Errorf("%w: fetch time: %v", ErrMalformedLine, err)
		}
		ms, err := strconv.Atoi(ts[14:])
		if err != nil {
			return Line{}, fmt.Errorf("%w: fetch time: %v", ErrMalformedLine, err)
		}
		l.FetchStart = l.FetchStart.Add(time.Duration(ms) * time.Millisecond)
		if ok {
			ms, err := strconv.ParseInt(dur, 10, 64)
			if err != nil {
				return Line{}, fmt.Errorf("%w: fetch duration: %v", ErrMalformedLine, err)
			}
			l.FetchDur = time.Duration(ms) * time.Millisecond
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

// CrawlLog appends lines to a crawl.log file. Each line is one write, so a killed crawl leaves
// whole lines. Safe for concurrent use.
type CrawlLog struct {
	mu sync.Mutex // guards f
	f  *os.File
}

// OpenCrawlLog opens (or creates) path for appending. A torn last line left by a killed process
// is completed with a newline first, so the next line starts on its own.
func OpenCrawlLog(path string) (*CrawlLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("report: open crawl.log: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte("\n")); err != nil {
				f.Close()
				return nil, fmt.Errorf("report: repair crawl.log: %w", err)
			}
		}
	}
	return &CrawlLog{f: f}, nil
}

// Write appends one line.
func (c *CrawlLog) Write(l Line) error {
	s := l.Format() + "\n"
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return errors.New("report: crawl.log closed")
	}
	if _, err := c.f.WriteString(s); err != nil {
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
	err := c.f.Sync()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	c.f = nil
	return err
}
