package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/qa"
	"github.com/amber-crawler/amber/report"
)

const qaHelp = `Usage: amber qa [flags] DIR

Checks the crawl in DIR by replaying it: loads each page of its page list (the pages a WACZ
of it lists: seeds, and HTML pages answered 2xx) in headless Chromium through amber replay,
with the viewport, scrolling and limits of the browser fetcher, several pages at once, and
records for each page: the requests the archive could not answer (URL, the page that asked,
the type of request, what the crawl did of it), the errors on the page's console, how far
its rendered text is from its text at capture (a score from 0 to 1), and where the crawl
took a screenshot of it (a browser crawl), how far the replay's screenshot is from that one
(a score, and an image of the difference). A plain crawl's qa shows what only a browser
would have asked for. docs/qa.md says how each score is made.

It writes DIR/reports/qa.jsonl (one line per page; the previous run's kept as
qa-previous.jsonl), the images in DIR/reports/qa/, and rewrites DIR/reports/report.html with
a Quality assurance section. 'amber patch DIR' then captures the missing URLs.

Flags:
  --limit N             check the first N pages of the list (seeds first)
  --sample N            check N pages drawn at random (with --seed)
  --seed N              the seed of --sample (default: from the clock; printed)
  --reference DIR2      compare with the text and screenshots of the crawl in DIR2 (a browser
                        crawl of the same site) instead of DIR's own: to score a plain crawl
                        against what a browser captured
  --browser-tabs N      pages loaded at once (default 2)
  --browser-path P      the Chromium to run (default: the crawl's browser.path, else the
                        headless shell when installed, else /usr/bin/chromium)
  --page-timeout DUR    bound on one page (default: the crawl's browser.page_timeout, 90s)
  --behavior-timeout DUR  bound on scrolling a page (default: the crawl's, 30s)
  --quiet               no progress, only the summary

Exit status: 0 checked (whatever was found); 1 a failure (the crawl cannot be read, the
browser cannot start, the reports cannot be written); 2 a mistake in the command line (DIR is
no crawl directory); 11 interrupted (the pages checked are written).
`

// runQA is `amber qa [flags] DIR`.
func runQA(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("amber qa", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	limit := fs.Int("limit", 0, "")
	sample := fs.Int("sample", 0, "")
	seed := fs.Uint64("seed", 0, "")
	ref := fs.String("reference", "", "")
	tabs := fs.Int("browser-tabs", qa.DefaultTabs, "")
	path := fs.String("browser-path", "", "")
	pageTimeout := fs.Duration("page-timeout", 0, "")
	behaviorTimeout := fs.Duration("behavior-timeout", 0, "")
	quiet := fs.Bool("quiet", false, "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, qaHelp)
			return nil
		}
		return usagef("%w (see 'amber help qa')", err)
	}
	switch {
	case len(pos) != 1:
		return usagef("usage: amber qa [flags] DIR")
	case *limit < 0 || *sample < 0 || *tabs <= 0 || *pageTimeout < 0 || *behaviorTimeout < 0:
		return usagef("amber qa: --limit, --sample, --browser-tabs and the timeouts must not be negative (--browser-tabs at least 1)")
	case *limit > 0 && *sample > 0:
		return usagef("amber qa: --limit and --sample cannot be combined")
	}
	dir := pos[0]
	if err := checkCrawlDir(dir); err != nil {
		return usageError{err}
	}
	if *ref != "" {
		if err := checkCrawlDir(*ref); err != nil {
			return usagef("--reference: %w", err)
		}
	}
	cfg, err := qaConfig(dir)
	if err != nil {
		return err
	}
	cfg.Reference, cfg.Limit, cfg.Sample, cfg.Seed, cfg.Browser.Tabs = *ref, *limit, *sample, *seed, *tabs
	if *path != "" {
		cfg.Browser.Path = *path
	}
	if *pageTimeout > 0 {
		cfg.Browser.PageTimeout = *pageTimeout
	}
	if *behaviorTimeout > 0 {
		cfg.Browser.BehaviorTimeout = *behaviorTimeout
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var prog *qaProgress
	if !*quiet {
		prog = newQAProgress(stderr)
		cfg.Logger = slog.New(slog.NewTextHandler(prog.logs(), &slog.HandlerOptions{Level: slog.LevelWarn}))
		cfg.Progress = prog.update
	}
	sum, err := qa.Run(ctx, cfg)
	if prog != nil {
		prog.done()
	}
	if err != nil {
		return err
	}
	printQASummary(stdout, dir, sum)
	if err := writeOwnReports(dir); err != nil {
		if !errors.Is(err, crawl.ErrInUse) {
			return err
		}
		fmt.Fprintf(stdout, "  report.html not rewritten: a crawl runs in %s; 'amber report %s' writes it once it ends.\n", dir, dir)
	}
	if sum.Interrupted {
		return statusError{code: exitInterrupted, end: "interrupted"}
	}
	return nil
}

// qaConfig is the qa of the crawl in dir with the settings of its crawl.yaml: its browser
// (path, viewport, timeouts, network idle, recycling), user agent, documents settings, and
// the earlier crawls it deduplicated against, which its revisits need.
func qaConfig(dir string) (qa.Config, error) {
	cfg := qa.Config{Dir: dir}
	yamlPath := filepath.Join(dir, crawl.ConfigFile)
	if _, err := os.Stat(yamlPath); err != nil {
		return cfg, nil // a crawl without crawl.yaml: the defaults
	}
	f, err := config.Load(yamlPath)
	if err != nil {
		return cfg, usagef("%s: %w", yamlPath, err)
	}
	cc, err := config.Build(f, config.Options{Dir: dir, LookupEnv: func(string) (string, bool) { return "", true }})
	if err != nil {
		return cfg, usagef("%s: %w", yamlPath, err)
	}
	cfg.Browser = cc.Browser
	cfg.Browser.Tabs = 0
	if cfg.Browser.UserAgent == "" {
		cfg.Browser.UserAgent = cc.Fetch.UserAgent
	}
	cfg.Documents = cc.Documents
	for _, s := range append(append([]string(nil), cc.DedupFrom...), cc.RecrawlOf) {
		if s == "" {
			continue
		}
		if _, err := os.Stat(s); err != nil {
			return cfg, fmt.Errorf("%s names %s, whose captures its revisits need: %w", yamlPath, s, err)
		}
		cfg.Sources = append(cfg.Sources, s)
	}
	return cfg, nil
}

// printQASummary says what the run found, against the previous run, and where it is.
func printQASummary(w io.Writer, dir string, s qa.Summary) {
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Checked) / s.Elapsed.Seconds()
	}
	state := "checked"
	if s.Interrupted {
		state = "checked before the interruption"
	}
	fmt.Fprintf(w, "amber qa: %d of %d pages %s in %v (%.2f pages/s), %d could not be loaded", s.Checked, s.Listed, state, s.Elapsed.Round(time.Second), rate, s.Failed)
	if s.Seed != 0 {
		fmt.Fprintf(w, " (sample seed %d)", s.Seed)
	}
	fmt.Fprintln(w)
	prev := func(f func(qa.Figures) string) string {
		if s.Previous == nil {
			return ""
		}
		return " (previous run: " + f(*s.Previous) + ")"
	}
	score := func(mean float64, n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f over %d pages", mean, n)
	}
	fmt.Fprintf(w, "  text score:   %s%s\n", score(s.TextMean, s.TextPages), prev(func(f qa.Figures) string { return score(f.TextMean, f.TextPages) }))
	fmt.Fprintf(w, "  pixel score:  %s%s\n", score(s.PixelMean, s.PixelPages), prev(func(f qa.Figures) string { return score(f.PixelMean, f.PixelPages) }))
	missing := func(f qa.Figures) string { return fmt.Sprintf("%d URLs on %d pages", f.Missing, f.PagesMissing) }
	fmt.Fprintf(w, "  missing:      %s%s\n", missing(s.Figures), prev(missing))
	console := func(f qa.Figures) string { return fmt.Sprint(f.Console) }
	fmt.Fprintf(w, "  console errors: %s%s\n", console(s.Figures), prev(console))
	fmt.Fprintf(w, "  Report:  %s\n", filepath.Join(dir, crawl.ReportsDir, report.HTMLReportFile))
	fmt.Fprintf(w, "  Pages:   %s\n", s.File)
	if s.Missing > 0 {
		fmt.Fprintf(w, "  The missing URLs are captured by: amber patch %s\n", dir)
	}
}

// qaProgress shows how far a run has got: a status line rewritten in place on a terminal,
// else a line every 5 seconds.
type qaProgress struct {
	con  *console  // nil when not a terminal
	w    io.Writer // where lines go when not a terminal
	mu   sync.Mutex
	last time.Time
}

func newQAProgress(w io.Writer) *qaProgress {
	p := &qaProgress{w: w}
	if isTerminal(w) {
		p.con = newConsole(w)
	}
	return p
}

// logs is where log lines go: above the status line on a terminal.
func (p *qaProgress) logs() io.Writer {
	if p.con != nil {
		return p.con
	}
	return p.w
}

func (p *qaProgress) update(pr qa.Progress) {
	line := fmt.Sprintf("qa: %d/%d pages, %d URLs missing, %d console errors, %d not loaded, %.2f pages/s, %v",
		pr.Done, pr.Total, pr.Missing, pr.Console, pr.Failed, float64(pr.Done)/max(pr.Elapsed.Seconds(), 0.001), pr.Elapsed.Round(time.Second))
	if p.con != nil {
		io.WriteString(p.con.status, clearLine+line)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) >= 5*time.Second || pr.Done == pr.Total {
		p.last = time.Now()
		fmt.Fprintln(p.w, strings.TrimSpace(line))
	}
}

// done ends the status line.
func (p *qaProgress) done() {
	if p.con != nil {
		io.WriteString(p.con.status, "\n")
	}
}
