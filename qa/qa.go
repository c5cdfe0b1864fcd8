// Package qa checks a crawl by replaying it, as an archivist checks a crawl in Wayback QA or
// Browsertrix's QA: Run loads each page of a crawl directory's page list (wacz.ListPages, the
// pages a package of it lists) in headless Chromium through a replay of the crawl (package
// replay, in-process on a loopback port), with the browser fetcher's viewport, behaviours,
// resource limits and crash recovery (a browser.Fetcher whose requests the replay answers),
// and records per page what the archive could not answer (the URL, the type of request, the
// document that asked), the page's console errors, how far its rendered text is from the
// text at capture (TextScore) and, where the crawl took a screenshot of it, how far the
// replay's screenshot is from that one (Compare, with a difference image). It writes
// report.QAFile (one report.QAPage a line) and the images of report.QADir into the crawl's
// reports directory, and keeps the previous run's file as report.QAPreviousFile; report.html's
// QA section is made from them by package report.
//
// What the text at capture is (docs/qa.md): the page's search document in documents.jsonl,
// which for a browser crawl is the rendered DOM's text and for a plain crawl the text of the
// HTML as served; without one, the text of the archived HTML. A plain crawl has no
// screenshots. Config.Reference takes both from another crawl of the same pages instead (a
// browser crawl), to score a plain crawl against what a browser captured.
//
// Chromium never reaches the network: as in a crawl, every request of a page is paused and
// performed by amber's client, here through the replay proxy, and whatever Chromium would
// request on its own goes to a dead proxy. So its background requests are never misses.
package qa

import (
	"cmp"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"log"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/wacz"
	"github.com/amber-crawler/amber/warc"
)

// DefaultTabs is the number of pages Run loads at once when Config.Browser.Tabs is 0.
const DefaultTabs = 2

// ErrConfig wraps the problems of a Config.
var ErrConfig = errors.New("qa: invalid config")

// Config configures Run. Zero fields take the documented defaults.
type Config struct {
	// Dir is the crawl directory checked. Required.
	Dir string
	// Sources are further crawl directories and WACZ files replayed with Dir, as one archive:
	// the earlier crawls whose captures its revisits refer to (dedup_from, recrawl_of).
	Sources []string
	// Reference, when set, is another crawl directory whose search documents and screenshots
	// are the text and screenshot at capture of the pages of the same URL, in place of Dir's
	// own: a browser crawl of the same site, to score a plain crawl against it.
	Reference string
	// Limit, when positive, checks only the first Limit pages of the list (seeds first).
	Limit int
	// Sample, when positive, checks Sample pages drawn at random from the list (with Seed),
	// in the list's order. Limit and Sample cannot be combined.
	Sample int
	// Seed seeds the draw of Sample; 0: a seed from the clock (Summary.Seed says which).
	Seed uint64
	// Browser configures the browser as the crawl's did (path, viewport, user agent, page and
	// behaviour timeouts, network idle, recycling); Tabs is how many pages load at once
	// (default DefaultTabs). Client, Screenshot, Jar and Logger are Run's.
	Browser browser.Config
	// Documents is how the crawl made its search documents (its documents settings:
	// exclude_tags, body size), by which the replayed pages' text is read too.
	Documents extract.DocConfig
	// StateDir is the replay's state directory (its certificate authority and misses file);
	// default replay.DefaultStateDir(Dir).
	StateDir string
	// Progress, when not nil, is called after each page checked, one call at a time.
	Progress func(Progress)
	// Logger gets the browser's restarts and the pages that could not be checked; default:
	// none.
	Logger *slog.Logger
}

// Progress is how far a run has got.
type Progress struct {
	Done, Total int
	Page        report.QAPage // the page just checked
	Missing     int           // distinct URLs missing so far
	Console     int           // console errors so far
	Failed      int           // pages that could not be checked so far
	Elapsed     time.Duration
}

// Summary is what a run found.
type Summary struct {
	Listed  int    // pages in the crawl's list
	Checked int    // pages checked (lines of QAFile)
	Failed  int    // of which could not be loaded
	Seed    uint64 // the seed of the sample drawn (Config.Sample)
	// Interrupted: the context ended before every page selected was checked; QAFile has
	// those that were.
	Interrupted bool
	Figures
	// Previous are the figures of the run before, nil when there was none.
	Previous *Figures
	File     string        // the path of QAFile
	Elapsed  time.Duration // the time the pages took, the browser's start included
}

// Figures sum up the pages of a run.
type Figures struct {
	Pages                 int
	TextPages, PixelPages int     // pages with a text score, a pixel score
	TextMean, PixelMean   float64 // means of the scores
	PagesMissing          int     // pages with something missing
	Missing               int     // distinct URLs missing
	Console               int     // console errors
	missing               map[string]bool
	textSum, pixelSum     float64
}

func (f *Figures) add(p report.QAPage) {
	f.Pages++
	if p.Text != nil {
		f.TextPages++
		f.textSum += *p.Text
		f.TextMean = f.textSum / float64(f.TextPages)
	}
	if p.Pixel != nil {
		f.PixelPages++
		f.pixelSum += *p.Pixel
		f.PixelMean = f.pixelSum / float64(f.PixelPages)
	}
	if len(p.Missing) > 0 {
		f.PagesMissing++
	}
	if f.missing == nil {
		f.missing = map[string]bool{}
	}
	for _, m := range p.Missing {
		if !f.missing[m.URL] {
			f.missing[m.URL] = true
			f.Missing++
		}
	}
	f.Console += len(p.Console)
}

// ReadFigures sums up the QAFile (or QAPreviousFile) at path; ok is false when there is none.
func ReadFigures(path string) (f Figures, ok bool, err error) {
	ok, err = report.EachQAPage(path, func(p report.QAPage) error { f.add(p); return nil })
	f.missing = nil
	return f, ok, err
}

// Run checks the pages of cfg.Dir (see the package doc) and writes what it found into the
// crawl's reports directory. A page that cannot be loaded (the browser failed twice on it, it
// got no answer) is a line with its Error, and the run goes on. When ctx ends, the pages
// checked so far are written (Summary.Interrupted) and the error is nil; errors are what
// stops a run: the crawl cannot be read, the reports directory cannot be written, the
// browser cannot be started.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	start := time.Now()
	if err := cfg.check(); err != nil {
		return Summary{}, err
	}
	pages, err := wacz.ListPages(ctx, []string{cfg.Dir})
	if err != nil {
		return Summary{}, fmt.Errorf("qa: list pages: %w", err)
	}
	sum := Summary{Listed: len(pages), Seed: cfg.Seed}
	pages, sum.Seed = cfg.selectPages(pages)

	r, err := newRun(ctx, cfg, pages)
	if err != nil {
		return Summary{}, err
	}
	defer r.close()
	if err := r.checkAll(ctx); err != nil {
		return Summary{}, err
	}
	if err := r.finish(); err != nil {
		return Summary{}, err
	}
	sum.Checked, sum.Failed, sum.Figures = r.done, r.failed, r.figures
	sum.Figures.missing = nil
	sum.Interrupted = r.done < len(pages)
	sum.File = filepath.Join(r.reports, report.QAFile)
	if prev, ok, err := ReadFigures(filepath.Join(r.reports, report.QAPreviousFile)); err != nil {
		return Summary{}, err
	} else if ok {
		sum.Previous = &prev
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// check validates the config.
func (c *Config) check() error {
	switch {
	case c.Dir == "":
		return fmt.Errorf("%w: no crawl directory", ErrConfig)
	case c.Limit < 0 || c.Sample < 0 || c.Browser.Tabs < 0:
		return fmt.Errorf("%w: negative limit, sample or tabs", ErrConfig)
	case c.Limit > 0 && c.Sample > 0:
		return fmt.Errorf("%w: a limit and a sample cannot be combined", ErrConfig)
	}
	if c.Reference != "" {
		if st, err := os.Stat(filepath.Join(c.Reference, crawldir.StateDir)); err != nil || !st.IsDir() {
			return fmt.Errorf("%w: reference %s is not a crawl directory", ErrConfig, c.Reference)
		}
	}
	if c.Browser.Tabs == 0 {
		c.Browser.Tabs = DefaultTabs
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// selectPages returns the pages to check (Limit, Sample) and the seed of the sample.
func (c *Config) selectPages(pages []wacz.Page) ([]wacz.Page, uint64) {
	seed := c.Seed
	switch {
	case c.Limit > 0 && c.Limit < len(pages):
		return pages[:c.Limit], seed
	case c.Sample > 0 && c.Sample < len(pages):
		if seed == 0 {
			seed = uint64(time.Now().UnixNano())
		}
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		idx := rng.Perm(len(pages))[:c.Sample]
		slices.Sort(idx)
		out := make([]wacz.Page, len(idx))
		for i, j := range idx {
			out[i] = pages[j]
		}
		return out, seed
	}
	return pages, seed
}

// run is one run of Run: the replay, its listener, the browser, the capture-time material and
// the files written.
type run struct {
	cfg     Config
	pages   []wacz.Page
	srv     *replay.Server
	httpSrv *http.Server
	ln      net.Listener
	client  *fetch.Client
	fetcher *browser.Fetcher
	own     *captured // the crawl's own screenshots and texts
	ref     *captured // Config.Reference's; nil without
	refSrv  *replay.Server
	refDir  string // the reference replay's state, removed at the end

	reports string   // the crawl's reports directory
	images  string   // the new images, renamed to QADir at the end
	out     *os.File // the lines, in a temporary file renamed to QAFile at the end
	started time.Time

	mu      sync.Mutex // guards the fields below and writes to out
	done    int
	failed  int
	figures Figures
	werr    error // the first write error
}

// newRun opens the replay of the crawl behind a loopback listener, the reference's replay, the
// documents, the output files and the browser (started with the first page).
func newRun(ctx context.Context, cfg Config, pages []wacz.Page) (r *run, err error) {
	r = &run{cfg: cfg, pages: pages, reports: filepath.Join(cfg.Dir, crawldir.ReportsDir), started: time.Now()}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	urls := map[string]bool{}
	for _, p := range pages {
		urls[p.URL] = true
	}
	r.srv, err = replay.Open(ctx, replay.Config{Sources: append([]string{cfg.Dir}, cfg.Sources...), StateDir: cfg.StateDir})
	if err != nil {
		return r, fmt.Errorf("qa: %w", err)
	}
	docs, err := openDocIndex(filepath.Join(cfg.Dir, crawldir.DocumentsFile), urls)
	if err != nil {
		return r, err
	}
	r.own = &captured{srv: r.srv, docs: docs, doc: cfg.Documents}
	if r.own.redirects, err = redirectSources(filepath.Join(cfg.Dir, crawldir.CrawlLogFile), urls); err != nil {
		return r, err
	}
	if cfg.Reference != "" {
		if r.refDir, err = os.MkdirTemp("", "amber-qa-reference-"); err != nil {
			return r, fmt.Errorf("qa: %w", err)
		}
		if r.refSrv, err = replay.Open(ctx, replay.Config{Sources: []string{cfg.Reference}, StateDir: r.refDir}); err != nil {
			return r, fmt.Errorf("qa: reference: %w", err)
		}
		refDocs, err := openDocIndex(filepath.Join(cfg.Reference, crawldir.DocumentsFile), urls)
		if err != nil {
			return r, err
		}
		r.ref = &captured{srv: r.refSrv, docs: refDocs, doc: cfg.Documents, ref: true}
		if r.ref.redirects, err = redirectSources(filepath.Join(cfg.Reference, crawldir.CrawlLogFile), urls); err != nil {
			return r, err
		}
	}
	if r.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return r, fmt.Errorf("qa: listen: %w", err)
	}
	r.httpSrv = &http.Server{Handler: r.srv, ReadHeaderTimeout: time.Minute, ErrorLog: log.New(io.Discard, "", 0)}
	go r.httpSrv.Serve(r.ln)
	if err := r.startBrowser(ctx); err != nil {
		return r, err
	}
	if err := os.MkdirAll(r.reports, 0o755); err != nil {
		return r, fmt.Errorf("qa: %w", err)
	}
	if r.images, err = os.MkdirTemp(r.reports, ".qa-images-*"); err != nil {
		return r, fmt.Errorf("qa: %w", err)
	}
	if r.out, err = os.CreateTemp(r.reports, "."+report.QAFile+".tmp*"); err != nil {
		return r, fmt.Errorf("qa: %w", err)
	}
	return r, nil
}

// startBrowser makes the client that sends the browser's requests to the replay, trusting its
// authority, and the browser fetcher around it.
func (r *run) startBrowser(ctx context.Context) error {
	pem, err := os.ReadFile(r.srv.CAPath())
	if err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("qa: %s: no certificate", r.srv.CAPath())
	}
	ua := cmp.Or(r.cfg.Browser.UserAgent, "amber qa")
	r.client, err = fetch.NewClient(fetch.Config{
		UserAgent:    ua,
		AllowPrivate: true, // the replay listens on loopback
		Proxy:        &url.URL{Scheme: "http", Host: r.ln.Addr().String()},
		RootCAs:      pool,
		VerifyTLS:    true,
	})
	if err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	bc := r.cfg.Browser
	bc.Client, bc.Screenshot, bc.Jar, bc.Logger = r.client, true, nil, r.cfg.Logger
	if r.fetcher, err = browser.New(ctx, bc); err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	return nil
}

// close stops the browser, the listener and the replays, and removes what was left temporary.
func (r *run) close() {
	if r.fetcher != nil {
		r.fetcher.Close()
	}
	if r.client != nil {
		r.client.Close()
	}
	if r.httpSrv != nil {
		r.httpSrv.Close()
	}
	for _, c := range []*captured{r.own, r.ref} {
		if c != nil {
			c.docs.close()
		}
	}
	for _, s := range []*replay.Server{r.srv, r.refSrv} {
		if s != nil {
			s.Close()
		}
	}
	if r.refDir != "" {
		os.RemoveAll(r.refDir)
	}
	if r.out != nil {
		r.out.Close()
		os.Remove(r.out.Name())
	}
	if r.images != "" {
		os.RemoveAll(r.images)
	}
}

// checkAll checks the pages, Config.Browser.Tabs at once, until all are done or ctx ends.
func (r *run) checkAll(ctx context.Context) error {
	next := make(chan int)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(next)
		for i := range r.pages {
			select {
			case next <- i:
			case <-gctx.Done():
				return nil
			}
		}
		return nil
	})
	for range r.cfg.Browser.Tabs {
		g.Go(func() error {
			for i := range next {
				p, ok := r.check(gctx, r.pages[i])
				if !ok {
					return nil // the run ends: the page was not checked
				}
				if err := r.record(p); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// record writes a page's line and counts it.
func (r *run) record(p report.QAPage) error {
	line, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.werr != nil {
		return r.werr
	}
	if _, err := r.out.Write(append(line, '\n')); err != nil {
		r.werr = fmt.Errorf("qa: write %s: %w", report.QAFile, err)
		return r.werr
	}
	r.done++
	if p.Error != "" {
		r.failed++
	}
	r.figures.add(p)
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Done: r.done, Total: len(r.pages), Page: p, Missing: r.figures.Missing,
			Console: r.figures.Console, Failed: r.failed, Elapsed: time.Since(r.started)})
	}
	return nil
}

// check loads one page in the browser through the replay and compares it with its capture.
// ok is false when ctx ended before the page was checked.
func (r *run) check(ctx context.Context, pg wacz.Page) (report.QAPage, bool) {
	at := pg.Time()
	q := report.QAPage{URL: pg.URL, Captured: at, TextSource: "none", PixelSource: "none",
		Missing: []report.QAMissing{}, Console: []report.QAConsole{}}
	h := http.Header{}
	if !at.IsZero() {
		// The page's own capture, as a Memento client asks for it.
		h.Set("Accept-Datetime", at.UTC().Format(http.TimeFormat))
	}
	page, err := r.fetcher.Load(ctx, fetch.Request{URL: pg.URL, Header: h})
	q.Checked = time.Now().UTC()
	if err != nil {
		if ctx.Err() != nil {
			return q, false
		}
		q.Error = err.Error()
		r.cfg.Logger.Warn("qa: page not loaded", "url", pg.URL, "err", err)
		return q, true
	}
	defer page.Close()
	q.FinalURL, q.Title, q.TimedOut, q.Requests = page.FinalURL, page.Title, page.TimedOut, len(page.Exchanges)
	q.Status = page.Exchanges[0].StatusCode
	q.Missing = missing(page)
	if len(q.Missing) > 0 && q.Missing[0].URL == page.Exchanges[0].URL && isMiss(page.Exchanges[0]) {
		q.Error = "the page itself is not in the archive"
	}
	for _, m := range page.Console {
		q.Console = append(q.Console, report.QAConsole{Kind: m.Kind, Text: m.Text, URL: m.URL, Line: m.Line})
	}
	for _, f := range page.Failed {
		q.Failed = append(q.Failed, report.QAFailed{URL: f.URL, Error: f.Err.Error()})
	}
	if err := r.compare(&q, pg, page); err != nil {
		q.Error = cmp.Or(q.Error, err.Error())
		r.cfg.Logger.Warn("qa: page not compared", "url", pg.URL, "err", err)
	}
	return q, true
}

// isMiss reports whether the replay answered an exchange that it has no capture.
func isMiss(ex *fetch.Exchange) bool {
	return ex.StatusCode == http.StatusNotFound && ex.Header.Get("Amber-Replay") == "miss"
}

// missing lists the requests of a page the replay could not answer, each URL once, in the
// order they were made, with the type of request and the document that asked when it was not
// the page.
func missing(page *browser.Page) []report.QAMissing {
	out := []report.QAMissing{}
	seen := map[string]bool{}
	for i, ex := range page.Exchanges {
		if !isMiss(ex) || seen[ex.URL] {
			continue
		}
		seen[ex.URL] = true
		m := report.QAMissing{URL: ex.URL, Type: page.Types[i]}
		if ref := referer(ex.Request); ref != "" && ref != page.URL && ref != page.FinalURL {
			m.Via = ref
		}
		out = append(out, m)
	}
	return out
}

// referer returns the Referer field of a request as sent.
func referer(raw []byte) string {
	head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
	for _, line := range strings.Split(head, "\r\n")[1:] {
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Referer") {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// compare scores the replayed page against its capture: its text, and its screenshot with
// the one taken at capture, writing the thumbnails and the difference.
func (r *run) compare(q *report.QAPage, pg wacz.Page, page *browser.Page) error {
	src, at := r.own, pg.Time()
	if r.ref != nil {
		src, at = r.ref, time.Time{}
	}
	id := pageID(pg)
	var replayShot *image.RGBA
	if len(page.Screenshot) > 0 {
		img, err := Decode(page.Screenshot)
		if err != nil {
			return fmt.Errorf("replay screenshot: %w", err)
		}
		replayShot = img
		thumb, err := Thumbnail(img)
		if err != nil {
			return err
		}
		if q.ReplayThumb, err = r.writeImage(id+"-replay.png", thumb); err != nil {
			return err
		}
	}
	if r.isHTML(page) {
		urls := []string{pg.URL}
		if page.FinalURL != pg.URL {
			urls = append(urls, page.FinalURL)
		}
		text, source, err := src.text(urls, at)
		if err != nil {
			return err
		}
		if source != "none" {
			res, err := extract.ParseDocument(page.FinalURL, "text/html; charset=utf-8", []byte(page.HTML), r.cfg.Documents)
			replayText := ""
			if err == nil && res.Document != nil {
				replayText = res.Document.Body
			}
			score, cw, rw := TextScore(text, replayText)
			q.Text, q.TextSource, q.CaptureWords, q.ReplayWords = &score, source, cw, rw
		}
	}
	shot, err := src.screenshot(append([]string{pg.URL}, src.redirects[pg.URL]...), at)
	if err != nil || shot == nil || replayShot == nil {
		return err
	}
	captureShot, err := Decode(shot)
	if err != nil {
		return fmt.Errorf("capture screenshot: %w", err)
	}
	score, diff := Compare(captureShot, replayShot)
	q.Pixel, q.PixelSource = &score, "capture"
	if r.ref != nil {
		q.PixelSource = "reference"
	}
	thumb, err := Thumbnail(captureShot)
	if err != nil {
		return err
	}
	if q.CaptureThumb, err = r.writeImage(id+"-capture.png", thumb); err != nil {
		return err
	}
	b, err := encodePNG(diff)
	if err != nil {
		return err
	}
	q.Diff, err = r.writeImage(id+"-diff.png", b)
	return err
}

// isHTML reports whether the replayed page is an HTML document (not an image or a PDF that
// Chromium shows in a page of its own): its last document exchange's type.
func (r *run) isHTML(page *browser.Page) bool {
	if page.HTML == "" {
		return false
	}
	ct := ""
	for i, ex := range page.Exchanges {
		if page.Types[i] == "Document" && (ex.URL == page.FinalURL || i == 0) {
			ct = ex.Header.Get("Content-Type")
		}
	}
	return extract.IsHTML(extract.MediaType(ct))
}

// pageID names a page's images: the first half of its list ID.
func pageID(pg wacz.Page) string {
	if len(pg.ID) >= 16 {
		return pg.ID[:16]
	}
	return warc.CDXKey(pg.URL)
}

// writeImage writes an image of the run and returns its path in the reports directory, as
// it will be once the run's images are in QADir.
func (r *run) writeImage(name string, b []byte) (string, error) {
	if err := os.WriteFile(filepath.Join(r.images, name), b, 0o644); err != nil {
		return "", fmt.Errorf("qa: %w", err)
	}
	return report.QADir + "/" + name, nil
}

// finish completes the lines with what the crawl did of each missing URL, and puts the
// files in place: the previous QAFile becomes QAPreviousFile, the new lines QAFile, the new
// images QADir.
func (r *run) finish() error {
	keys := map[string]bool{}
	if _, err := r.out.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	if err := eachLine(r.out, func(p report.QAPage) error {
		for _, m := range p.Missing {
			keys[warc.CDXKey(m.URL)] = true
		}
		return nil
	}); err != nil {
		return err
	}
	outcomes, err := crawlOutcomes(filepath.Join(r.cfg.Dir, crawldir.CrawlLogFile), keys)
	if err != nil {
		return err
	}
	final, err := os.CreateTemp(r.reports, "."+report.QAFile+".tmp*")
	if err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	defer os.Remove(final.Name())
	defer final.Close()
	if _, err := r.out.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	err = eachLine(r.out, func(p report.QAPage) error {
		for i := range p.Missing {
			p.Missing[i].Crawl = outcomes[warc.CDXKey(p.Missing[i].URL)]
		}
		line, err := json.Marshal(p)
		if err != nil {
			return err
		}
		_, err = final.Write(append(line, '\n'))
		return err
	})
	if err == nil {
		err = final.Sync()
	}
	if cerr := final.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(final.Name(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("qa: write %s: %w", report.QAFile, err)
	}
	path := filepath.Join(r.reports, report.QAFile)
	if _, err := os.Stat(path); err == nil {
		if err := os.Rename(path, filepath.Join(r.reports, report.QAPreviousFile)); err != nil {
			return fmt.Errorf("qa: %w", err)
		}
	}
	if err := os.Rename(final.Name(), path); err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	imgs := filepath.Join(r.reports, report.QADir)
	if err := os.RemoveAll(imgs); err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	if err := os.Chmod(r.images, 0o755); err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	if err := os.Rename(r.images, imgs); err != nil {
		return fmt.Errorf("qa: %w", err)
	}
	r.images = ""
	return nil
}

// eachLine reads the lines of a QAFile from f.
func eachLine(f io.Reader, fn func(report.QAPage) error) error {
	dec := json.NewDecoder(f)
	for {
		var p report.QAPage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("qa: read back %s: %w", report.QAFile, err)
		}
		if err := fn(p); err != nil {
			return fmt.Errorf("qa: %w", err)
		}
	}
}
