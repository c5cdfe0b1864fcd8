package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	URLs     []URLState // URLs the frontier knows, including rejected ones
	// EachURL, when not nil, calls fn for every further URL the frontier knows (after URLs)
	// and returns fn's first error, stopping there, or its own.
	EachURL func(fn func(URLState) error) error
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

// eachCrawlLogLine calls fn for each line of a crawl.log file that ReadCrawlLog would return,
// and stops at fn's first error, which it returns. A missing file has no lines.
func eachCrawlLogLine(path string, fn func(Line) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("report: read crawl.log: %w", err)
	}
	defer f.Close()
	var fnErr error
	err = eachLine(f, func(l Line) error {
		fnErr = fn(l)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("report: read crawl.log: %w", err)
	}
	return nil
}

// eachLine calls fn for each line of r that parses (see ReadCrawlLog), and stops at fn's
// first error, which it returns, or at a read error.
func eachLine(r io.Reader, fn func(Line) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		s, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		complete := strings.HasSuffix(s, "\n")
		s = strings.TrimRight(s, "\r\n")
		if s != "" && (complete || len(strings.Fields(s)) >= 13) {
			if l, perr := ParseLine(s); perr == nil {
				if err := fn(l); err != nil {
					return err
				}
			}
		}
		if err != nil {
			return nil
		}
	}
}
