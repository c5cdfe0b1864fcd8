package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/report"
)

const reportHelp = `Usage: amber report DIR

(Re)writes the reports of the crawl directory DIR (finished, stopped or killed) into DIR/reports:
the Heritrix-style text reports, the scope report and report.html. DIR must be a crawl
directory (made by amber crawl); nothing is created elsewhere.
`

// runReport is `amber report DIR`: (re)write the reports of a crawl directory, finished,
// stopped or killed. A DIR that is not a crawl directory is a usage error, and nothing is
// created in it.
func runReport(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("amber report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, reportHelp)
			return nil
		}
		return usagef("%w (see 'amber help report')", err)
	}
	if fs.NArg() != 1 {
		return usagef("usage: amber report DIR")
	}
	dir := fs.Arg(0)
	if err := checkCrawlDir(dir); err != nil {
		return usageError{err}
	}
	if err := crawl.WriteReports(dir); err != nil {
		return err
	}
	out := filepath.Join(dir, crawl.ReportsDir)
	fmt.Fprintf(stdout, "Reports written to %s:\n", out)
	for _, f := range []string{report.HTMLReportFile, report.CrawlReportFile, report.SeedsReportFile, report.HostsReportFile,
		report.MimetypeReportFile, report.ResponseCodeReportFile, report.ScopeReportFile, report.ScopeReportJSONFile} {
		fmt.Fprintf(stdout, "  %s\n", filepath.Join(out, f))
	}
	return nil
}

// errNotCrawlDir is wrapped by checkCrawlDir's errors.
var errNotCrawlDir = errors.New("not a crawl directory")

// checkCrawlDir reports whether dir is a crawl directory: it holds the crawl state that
// amber crawl creates first (crawl.StateDir).
func checkCrawlDir(dir string) error {
	st, err := os.Stat(filepath.Join(dir, crawl.StateDir))
	if err == nil && st.IsDir() {
		return nil
	}
	if _, derr := os.Stat(dir); derr != nil {
		return fmt.Errorf("%s: %w: %w", dir, errNotCrawlDir, derr)
	}
	return fmt.Errorf("%s: %w (no %s/ inside; amber crawl --dir makes one)", dir, errNotCrawlDir, crawl.StateDir)
}
