package report

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// Report files written by Write.
const (
	SeedsReportFile        = "seeds-report.txt"
	HostsReportFile        = "hosts-report.txt"
	MimetypeReportFile     = "mimetype-report.txt"
	ResponseCodeReportFile = "responsecode-report.txt"
	CrawlReportFile        = "crawl-report.txt"
	ScopeReportFile        = "scope-report.txt"
	ScopeReportJSONFile    = "scope-report.json"
	HTMLReportFile         = "report.html"
	// FailedFile lists every URL that failed (no response: network error, timeout,
	// unfetchable URL), sorted by URL, one a line: status code (package status), URL, hop
	// path and via, separated by spaces, "-" for an empty one. report.html shows the first
	// ones and links to it.
	FailedFile = "failed.txt"
)

// Write writes every report of a crawl into dir (the crawl directory's reports/), creating
// it if needed: the Heritrix 3 reports (seeds-report.txt, hosts-report.txt,
// mimetype-report.txt, responsecode-report.txt, crawl-report.txt), the scope report
// (scope-report.txt, scope-report.json), the list of failed URLs (FailedFile) and
// report.html, which adds a timeline of captures and failures, the crawl's settings and links
// to its outputs (Input.Dirs). It reads no clock and no file but in.CrawlLog, in.CrawlLogs
// and what report.html shows of in.Dirs (crawl.yaml, the names and sizes of the outputs): the
// same Input and directories give the same bytes. Each file is replaced atomically, so a
// reader never sees half a report. Write works on the Input of an unfinished or killed crawl
// too: URLs still in the frontier count as queued.
//
// Write reads each URL and line once. Its memory grows with the number of hosts, seeds, MIME
// types, status codes and scope reasons, not with the number of URLs: it sorts what it needs
// per URL in temporary files in dir (runs of at most 4 MiB), removed before it returns (or,
// after a kill, by the next Write), and report.html lists at most 5,000 of the URLs left out.
func Write(dir string, in Input) error {
	return write(dir, in, sortBudget)
}

// sortDirPattern names the temporary directories of Write in dir.
const sortDirPattern = ".sort-*"

// write is Write with the sorters' memory budget (bytes) as a parameter.
func write(dir string, in Input, budget int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: create reports directory: %w", err)
	}
	// A Write that was killed leaves its temporary files behind; they go now.
	if stale, err := filepath.Glob(filepath.Join(dir, sortDirPattern)); err == nil {
		for _, d := range stale {
			os.RemoveAll(d)
		}
	}
	tmp, err := os.MkdirTemp(dir, sortDirPattern)
	if err != nil {
		return fmt.Errorf("report: create temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	s, err := summarize(in, tmp, budget)
	if err != nil {
		return err
	}
	s.reportsDir = dir
	bytesOf := func(b []byte) func(*bufio.Writer) error {
		return func(w *bufio.Writer) error {
			_, err := w.Write(b)
			return err
		}
	}
	files := []struct {
		name  string
		write func(*bufio.Writer) error
	}{
		{SeedsReportFile, bytesOf(s.seedsReport())},
		{HostsReportFile, bytesOf(s.hostsReport())},
		{MimetypeReportFile, bytesOf(s.mimetypeReport())},
		{ResponseCodeReportFile, bytesOf(s.responseCodeReport())},
		{CrawlReportFile, bytesOf(s.crawlReport())},
		{ScopeReportFile, s.writeScopeReportText},
		{ScopeReportJSONFile, s.writeScopeReportJSON},
		{FailedFile, s.writeFailed},
		{HTMLReportFile, s.writeHTML},
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return fmt.Errorf("report: write %s: %w", f.name, err)
		}
	}
	if err := s.writeSubcollections(dir); err != nil {
		return fmt.Errorf("report: write %s: %w", SubcollectionsReportFile, err)
	}
	return nil
}

// writeFailed copies the list of failed URLs.
func (s *summary) writeFailed(w *bufio.Writer) error {
	f, err := os.Open(s.failedList)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = w.ReadFrom(f)
	return err
}

// writeFileAtomic writes path through a temporary file in its directory, renamed over it once
// write succeeded.
func writeFileAtomic(path string, write func(*bufio.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	bw := bufio.NewWriterSize(tmp, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

var (
	maskTextLine = regexp.MustCompile(`(?m)^(duration: |URIs/sec: |KB/sec: ).*$`)
	maskHTML     = regexp.MustCompile(`(<[^<>]*\sdata-time(?:[\s=][^<>]*)?>)[^<]*`)
	maskTimeline = regexp.MustCompile(`(?s)(<figure id="timeline">).*?(</figure>)`)
)

// MaskTimes replaces, in the content of any report file written by Write, the figures that
// depend on elapsed time (crawl-report.txt's duration, URIs/sec and KB/sec; report.html's
// start and end times, duration and rates, marked data-time, and its timeline) with "XXX", so
// that tests can compare reports of real crawls with golden files.
func MaskTimes(b []byte) []byte {
	b = maskTextLine.ReplaceAll(b, []byte("${1}XXX"))
	b = maskTimeline.ReplaceAll(b, []byte("${1}XXX${2}"))
	b = maskHTML.ReplaceAll(b, []byte("${1}XXX"))
	return bytes.Clone(b)
}
