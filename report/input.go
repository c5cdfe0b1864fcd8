package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/amber-crawler/amber/status"
)

// Input is everything the reports are made from: the crawl fills it from the frontier and
// crawl.log at the end of a crawl, and `amber report` from a crawl directory. The URLs and
// lines of a large crawl need not be in memory: CrawlLog names a file read line by line and
// EachURL streams the frontier.
type Input struct {
	Collection string    // the crawl's name
	Started    time.Time // when the crawl started; zero if unknown
	Ended      time.Time // when it ended; zero for a crawl that did not end (killed, running)
	// EndReason is why the crawl ended: "finished", "cancelled", "failed", "limit" or
	// "limit:KIND" (KIND one of documents, bytes, size, time). Empty for a crawl that did not end.
	EndReason string
	Seeds     []SeedInfo
	Lines     []Line // crawl.log lines, in file order
	// CrawlLog is the path of a crawl.log file whose lines follow Lines, read as ReadCrawlLog
	// reads it; "" for none. A missing file has no lines.
	CrawlLog string
	// CrawlLogs are further crawl.log files, of the other processes of one shared crawl (each
	// in its own crawl directory). CrawlLog and CrawlLogs are read merged by time, as
	// MergeCrawlLogs merges them: of two lines about one URL the later one wins.
	CrawlLogs []string
	// Dirs are the crawl directories the reports are of: report.html shows their crawl.yaml
	// (the effective configuration, in which amber writes secrets as ***) and links to their
	// outputs (WARC files, CDXJ index, documents, crawl.log, events, WACZ packages) by paths
	// relative to the reports directory. nil means the reports directory's parent, the crawl
	// directory whose reports/ it is.
	Dirs []string
	URLs []URLState // URLs the frontier knows, including rejected ones
	// PlatformRules are the crawl's platform rules (package platform), listed in the scope
	// report with the URLs each left out (scope reason "platform:" + ID); nil: only the rules
	// that left some out are listed.
	PlatformRules []PlatformRule
	// EachURL, when not nil, calls fn for every further URL the frontier knows (after URLs)
	// and returns fn's first error, stopping there, or its own.
	EachURL func(fn func(URLState) error) error
}

// PlatformRule is one platform rule of a crawl, as the scope report lists it.
type PlatformRule struct {
	ID  string // "mediawiki/edit"
	On  bool   // the crawl applied it
	Why string // what it leaves out and why
}

// SeedInfo is one seed as the archivist listed it.
type SeedInfo struct {
	URL  string
	Type string // Archive-It seed type: one-page, one-page+, standard, standard+
}

// URLState is one URL as the frontier knows it at the end of (or during) a crawl.
type URLState struct {
	URL    string
	Host   string       // used only when URL does not parse; otherwise the host is taken from URL
	State  status.State // where the URL is in the frontier
	Status int          // last HTTP status or negative Heritrix code (package status); 0 if never fetched
	// Reason is the scope reason of a rejected URL, as scope.Decision.Reason gives it
	// (spec/scope.md: "out-of-scope", "max-hops", "block:RULE", …), or "robots". A reason
	// that is "block" or starts with "block:" counts the URL as blocked by a rule.
	Reason string
	Hops   string // hop path from the seed
	Via    string
	Seed   string // source seed
}

// ReadCrawlLog reads a crawl.log file. Lines that do not parse are skipped: they are torn
// lines left by a killed crawl (OpenCrawlLog ends them with a newline on resume). A last line
// without its newline is kept only if it has all 13 columns and parses, so a line cut by a kill
// never counts with wrong values. A missing file is an error wrapping fs.ErrNotExist.
func ReadCrawlLog(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: read crawl.log: %w", err)
	}
	defer f.Close()
	lines, err := readCrawlLog(f)
	if err != nil {
		return nil, fmt.Errorf("report: read crawl.log: %w", err)
	}
	return lines, nil
}

func readCrawlLog(r io.Reader) ([]Line, error) {
	var lines []Line
	err := eachLine(r, func(l Line) error {
		lines = append(lines, l)
		return nil
	})
	return lines, err
}

// eachCrawlLogLine calls fn for each line of the crawl.log files paths that ReadCrawlLog
// would return, merged by time (see MergeCrawlLogs), and stops at fn's first error, which it
// returns. A missing file has no lines.
func eachCrawlLogLine(paths []string, fn func(Line, string) error) error {
	var rs []*lineReader
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("report: read crawl.log: %w", err)
		}
		defer f.Close()
		r := &lineReader{name: p, br: bufio.NewReaderSize(f, 64<<10)}
		rs = append(rs, r)
		if err := r.next(); err != nil {
			return fmt.Errorf("report: read crawl.log %s: %w", p, err)
		}
	}
	for {
		// The reader whose next line is the earliest (the first file of equal ones): a crawl's
		// own lines are in time order but for a few milliseconds, so a merge by each file's
		// next line puts the lines of several files in time order too.
		var min *lineReader
		for _, r := range rs {
			if r.ok && (min == nil || r.line.Time.Before(min.line.Time)) {
				min = r
			}
		}
		if min == nil {
			return nil
		}
		if err := fn(min.line, min.raw); err != nil {
			return err
		}
		if err := min.next(); err != nil {
			return fmt.Errorf("report: read crawl.log %s: %w", min.name, err)
		}
	}
}

// MergeCrawlLogs writes to w the lines of the crawl.log files paths (of the processes of one
// shared crawl) that ReadCrawlLog would return, as they are, merged in time order: taking at
// each step the earliest of the files' next lines, so that files each in time order give one in
// time order. A missing file has no lines.
func MergeCrawlLogs(w io.Writer, paths []string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	err := eachCrawlLogLine(paths, func(_ Line, raw string) error {
		bw.WriteString(raw)
		return bw.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// lineReader reads the lines of one crawl.log file that parse (see ReadCrawlLog).
type lineReader struct {
	name string // the file's, for errors
	br   *bufio.Reader
	line Line   // the next line, when ok
	raw  string // its text, without its newline
	ok   bool
}

// next reads the next line that parses; at the end of the file ok is false.
func (r *lineReader) next() error {
	for {
		s, err := r.br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			r.ok = false
			return err
		}
		complete := strings.HasSuffix(s, "\n")
		s = strings.TrimRight(s, "\r\n")
		if s != "" && (complete || len(strings.Fields(s)) >= 13) {
			if l, perr := ParseLine(s); perr == nil {
				r.line, r.raw, r.ok = l, s, true
				return nil
			}
		}
		if err != nil {
			r.ok = false
			return nil
		}
	}
}

// eachLine calls fn for each line of r that parses (see ReadCrawlLog), and stops at fn's
// first error, which it returns, or at a read error.
func eachLine(r io.Reader, fn func(Line) error) error {
	lr := &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	for {
		if err := lr.next(); err != nil {
			return err
		}
		if !lr.ok {
			return nil
		}
		if err := fn(lr.line); err != nil {
			return err
		}
	}
}

// Merge returns the Input of one crawl made by several processes, each with its own crawl
// directory, from the Input of each: the reports count every URL once, whichever process (or
// frontier) knew it, as if one process had crawled it all. The collection is the first one
// named; the start the earliest; the end the latest, and the end reason theirs when they
// agree, else the first that is not "finished" (none while one has not ended); the seeds all
// of theirs, each once, in order; the crawl.logs all of theirs, read merged by time; the URLs
// theirs in order; Dirs theirs; the platform rules the first's of each id.
func Merge(ins ...Input) Input {
	var m Input
	seeds := map[string]bool{}
	ended := true
	for i, in := range ins {
		if m.Collection == "" {
			m.Collection = in.Collection
		}
		if !in.Started.IsZero() && (m.Started.IsZero() || in.Started.Before(m.Started)) {
			m.Started = in.Started
		}
		if in.EndReason == "" || in.Ended.IsZero() {
			ended = false
		} else {
			if in.Ended.After(m.Ended) {
				m.Ended = in.Ended
			}
			if i == 0 || m.EndReason == "finished" {
				m.EndReason = in.EndReason
			}
		}
		for _, s := range in.Seeds {
			if !seeds[s.URL] {
				seeds[s.URL] = true
				m.Seeds = append(m.Seeds, s)
			}
		}
		m.Lines = append(m.Lines, in.Lines...)
		if in.CrawlLog != "" {
			m.CrawlLogs = append(m.CrawlLogs, in.CrawlLog)
		}
		m.CrawlLogs = append(m.CrawlLogs, in.CrawlLogs...)
		m.URLs = append(m.URLs, in.URLs...)
		m.Dirs = append(m.Dirs, in.Dirs...)
		for _, r := range in.PlatformRules {
			if !slices.ContainsFunc(m.PlatformRules, func(x PlatformRule) bool { return x.ID == r.ID }) {
				m.PlatformRules = append(m.PlatformRules, r)
			}
		}
	}
	if !ended {
		m.Ended, m.EndReason = time.Time{}, ""
	}
	var each []func(func(URLState) error) error
	for _, in := range ins {
		if in.EachURL != nil {
			each = append(each, in.EachURL)
		}
	}
	if len(each) > 0 {
		m.EachURL = func(fn func(URLState) error) error {
			for _, e := range each {
				if err := e(fn); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return m
}
