package report

import (
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
)

// Write writes every report of a crawl into dir (the crawl directory's reports/), creating
// it if needed: the Heritrix 3 reports (seeds-report.txt, hosts-report.txt,
// mimetype-report.txt, responsecode-report.txt, crawl-report.txt), the scope report
// (scope-report.txt, scope-report.json) and report.html. It reads no clock and no other
// file: the same Input gives the same bytes. Each file is replaced atomically, so a reader
// never sees half a report. Write works on the Input of an unfinished or killed crawl too:
// URLs still in the frontier count as queued.
func Write(dir string, in Input) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: create reports directory: %w", err)
	}
	s := summarize(in)
	scopeJSON, err := s.scopeReportJSON()
	if err != nil {
		return fmt.Errorf("report: encode %s: %w", ScopeReportJSONFile, err)
	}
	page, err := s.html()
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	files := []struct {
		name string
		data []byte
	}{
		{SeedsReportFile, s.seedsReport()},
		{HostsReportFile, s.hostsReport()},
		{MimetypeReportFile, s.mimetypeReport()},
		{ResponseCodeReportFile, s.responseCodeReport()},
		{CrawlReportFile, s.crawlReport()},
		{ScopeReportFile, s.scopeReportText()},
		{ScopeReportJSONFile, scopeJSON},
		{HTMLReportFile, page},
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return fmt.Errorf("report: write %s: %w", f.name, err)
		}
	}
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
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
)

// MaskTimes replaces, in the content of any report file written by Write, the figures that
// depend on elapsed time (crawl-report.txt's duration, URIs/sec and KB/sec; report.html's
// start and end times, duration and rates, marked data-time) with "XXX", so that tests can
// compare reports of real crawls with golden files.
func MaskTimes(b []byte) []byte {
	b = maskTextLine.ReplaceAll(b, []byte("${1}XXX"))
	b = maskHTML.ReplaceAll(b, []byte("${1}XXX"))
	return bytes.Clone(b)
}
