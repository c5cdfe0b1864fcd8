package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
)

const reportHelp = `Usage: amber report DIR
       amber report -o OUT DIR...

(Re)writes the reports of the crawl directory DIR (finished, stopped or killed) into DIR/reports:
the Heritrix-style text reports, the scope report, the list of failed URLs and report.html. DIR
must be a crawl directory (made by amber crawl); nothing is created elsewhere.

With several DIRs (the processes of one shared crawl, each with its own WARC files, CDXJ index
and crawl.log), writes one set of reports of them all into the directory OUT: every URL counted
once, whichever process knew it, as if one process had crawled it all, and OUT/crawl.log, their
crawl.logs merged by time. OUT is created if needed and must not be one of the DIRs.

Flags:
  -o OUT    where to write the reports (required with several DIRs; default DIR/reports)

Exit status: 0 written; 1 a failure while writing, or a DIR is in use by a running crawl; 2 a
mistake in the command line (a DIR is not a crawl directory, several DIRs without -o).
`

// runReport is `amber report [-o OUT] DIR...`: (re)write the reports of a crawl directory,
// finished, stopped or killed, or of several merged. A DIR that is not a crawl directory is a
// usage error, and nothing is created in it.
func runReport(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("amber report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "")
	fs.StringVar(out, "output", "", "")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, reportHelp)
			return nil
		}
		return usagef("%w (see 'amber help report')", err)
	}
	switch {
	case len(dirs) == 0:
		return usagef("usage: amber report DIR, or amber report -o OUT DIR...")
	case len(dirs) > 1 && *out == "":
		return usagef("amber report: %d crawl directories: -o OUT names the directory for their merged reports", len(dirs))
	}
	if err := distinctDirs(dirs); err != nil {
		return err
	}
	for _, dir := range dirs {
		if err := checkCrawlDir(dir); err != nil {
			return usageError{err}
		}
	}
	if len(dirs) == 1 && *out == "" {
		*out = filepath.Join(dirs[0], crawl.ReportsDir)
		if err := writeOwnReports(dirs[0]); err != nil {
			return err
		}
	} else if err := writeMergedReports(dirs, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Reports written to %s:\n", *out)
	files := []string{report.HTMLReportFile, report.CrawlReportFile, report.SeedsReportFile, report.HostsReportFile,
		report.MimetypeReportFile, report.ResponseCodeReportFile, report.ScopeReportFile, report.ScopeReportJSONFile, report.FailedFile}
	if len(dirs) > 1 {
		files = append(files, report.MergedCrawlLogFile)
	}
	for _, f := range files {
		fmt.Fprintf(stdout, "  %s\n", filepath.Join(*out, f))
	}
	return nil
}

// writeOwnReports writes the reports of the crawl directory dir into dir/reports: from its
// frontier (crawl.WriteReports), or for a process of a crawl on a shared frontier, whose state/
// is only a lock, from its crawl.log (sharedDirInput).
func writeOwnReports(dir string) error {
	cfg, err := config.Load(filepath.Join(dir, crawl.ConfigFile))
	if err != nil || cfg.Frontier.Redis == "" {
		return crawl.WriteReports(dir)
	}
	in, err := sharedDirInput(dir, cfg)
	if err != nil {
		return err
	}
	if err := report.Write(filepath.Join(dir, crawl.ReportsDir), in); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	return nil
}

// writeMergedReports writes the reports of the crawl directories dirs, merged, into out, with
// their crawl.logs merged by time in out/crawl.log.
func writeMergedReports(dirs []string, out string) error {
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil && abs == absOut {
			return usagef("amber report: -o %s is one of the crawl directories", out)
		}
	}
	var ins []report.Input
	for _, d := range dirs {
		in, closeFn, err := dirReportInput(d)
		if err != nil {
			return err
		}
		defer closeFn()
		ins = append(ins, in)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	logs := make([]string, len(dirs))
	for i, d := range dirs {
		logs[i] = filepath.Join(d, crawl.CrawlLogFile)
	}
	if err := writeMergedLog(filepath.Join(out, report.MergedCrawlLogFile), logs); err != nil {
		return err
	}
	if err := report.Write(out, report.Merge(ins...)); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	return nil
}

// writeMergedLog writes the crawl.log files logs merged by time to path, replacing it at once.
func writeMergedLog(path string, logs []string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write merged crawl.log: %w", err)
	}
	err = report.MergeCrawlLogs(tmp, logs)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write merged crawl.log: %w", err)
	}
	return nil
}

// dirReportInput opens the frontier of the crawl directory dir and returns the report input of
// its crawl, as crawl.WriteReports gathers it; closeFn closes the frontier, after the reports
// are written (EachURL reads it).
func dirReportInput(dir string) (in report.Input, closeFn func() error, err error) {
	if cfg, err := config.Load(filepath.Join(dir, crawl.ConfigFile)); err == nil && cfg.Frontier.Redis != "" {
		in, err := sharedDirInput(dir, cfg)
		return in, func() error { return nil }, err
	}
	front, err := frontier.Open(frontier.Config{Dir: filepath.Join(dir, crawl.StateDir)})
	if err != nil {
		if errors.Is(err, frontier.ErrLocked) {
			return report.Input{}, nil, fmt.Errorf("%s: %w: %w", dir, crawl.ErrInUse, err)
		}
		return report.Input{}, nil, fmt.Errorf("open frontier of %s: %w", dir, err)
	}
	return crawl.ReportInput(dir, front), front.Close, nil
}

// distinctDirs is a usage error when a directory is given twice.
func distinctDirs(dirs []string) error {
	seen := map[string]string{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = filepath.Clean(d)
		}
		if first, ok := seen[abs]; ok {
			return usagef("%s and %s: the same crawl directory twice", first, d)
		}
		seen[abs] = d
	}
	return nil
}

// sharedDirInput is the report input of a process of a crawl on a shared frontier (Redis),
// whose directory has no frontier of its own: its crawl.log, the collection and seeds of its
// crawl.yaml cfg, and the start and end of its events (logs/events.jsonl: the first
// crawl-start, and the last crawl-end if no run started after it).
func sharedDirInput(dir string, cfg *config.File) (report.Input, error) {
	in := report.Input{Collection: cfg.Collection, CrawlLog: filepath.Join(dir, crawl.CrawlLogFile), Dirs: []string{dir}}
	for _, s := range cfg.Seeds {
		t := s.Type
		if t == "" {
			t = "standard"
		}
		in.Seeds = append(in.Seeds, report.SeedInfo{URL: s.URL, Type: t})
	}
	f, err := os.Open(filepath.Join(dir, crawl.EventsFile))
	if errors.Is(err, os.ErrNotExist) {
		return in, nil
	}
	if err != nil {
		return report.Input{}, fmt.Errorf("read events of %s: %w", dir, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var lastStart time.Time
	for {
		line, rerr := br.ReadBytes('\n')
		// Only the crawl's start and end events are decoded; the URL events go by.
		if bytes.Contains(line, []byte(`"`+report.ActionCrawlStart+`"`)) || bytes.Contains(line, []byte(`"`+report.ActionCrawlEnd+`"`)) {
			var e struct {
				At     time.Time `json:"@timestamp"`
				Action string    `json:"event.action"`
				Reason string    `json:"event.reason"`
			}
			if json.Unmarshal(line, &e) == nil {
				switch e.Action {
				case report.ActionCrawlStart:
					if in.Started.IsZero() {
						in.Started = e.At
					}
					lastStart = e.At
					in.Ended, in.EndReason = time.Time{}, ""
				case report.ActionCrawlEnd:
					if !e.At.Before(lastStart) {
						in.Ended, in.EndReason = e.At, e.Reason
					}
				}
			}
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return in, nil
			}
			return report.Input{}, fmt.Errorf("read events of %s: %w", dir, rerr)
		}
	}
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
