package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/report"
)

// runReport is `amber report DIR`: (re)write the reports of a crawl directory, finished,
// stopped or killed.
func runReport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("amber report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: amber report DIR") }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return usageError{"usage: amber report DIR"}
	}
	dir := fs.Arg(0)
	if err := crawl.WriteReports(dir); err != nil {
		return err
	}
	out := filepath.Join(dir, crawl.ReportsDir)
	fmt.Fprintf(stdout, "Reports written to %s:\n", out)
	for _, f := range []string{report.CrawlReportFile, report.SeedsReportFile, report.HostsReportFile,
		report.MimetypeReportFile, report.ResponseCodeReportFile, report.ScopeReportFile, report.ScopeReportJSONFile, report.HTMLReportFile} {
		fmt.Fprintf(stdout, "  %s\n", filepath.Join(out, f))
	}
	return nil
}
