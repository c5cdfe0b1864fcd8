package report

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The files of amber qa in a crawl's reports directory (written by package qa).
const (
	// QAFile holds what amber qa found, one QAPage per line, one line per page checked.
	QAFile = "qa.jsonl"
	// QAPreviousFile is the QAFile of the run of amber qa before the last, kept to compare.
	QAPreviousFile = "qa-previous.jsonl"
	// QADir holds the images of the last run of amber qa: thumbnails of the screenshots
	// taken at capture and in replay, and the pixel difference of the two.
	QADir = "qa"
)

// QAPage is what amber qa found of one page of a crawl: a line of QAFile.
type QAPage struct {
	URL      string    `json:"url"`                 // the page as the crawl listed it
	Captured time.Time `json:"captured"`            // the time of the capture replayed
	Checked  time.Time `json:"checked"`             // when amber qa loaded it
	FinalURL string    `json:"final_url,omitempty"` // where the replayed page ended (redirects, scripts)
	Status   int       `json:"status"`              // the replayed page's HTTP status; 0 when it did not load
	Title    string    `json:"title,omitempty"`     // the replayed page's title
	// Error says why the page could not be loaded or checked; "" when it was.
	Error    string `json:"error,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"` // the page ran out of its time; what it did until then is here
	Requests int    `json:"requests"`            // requests the replayed page made and the archive answered or not
	// Text is the similarity of the replayed page's text with the text of TextSource
	// (docs/qa.md), from 0 to 1; nil when there was none to compare with.
	Text *float64 `json:"text_score"`
	// TextSource is what the text was compared with: "document" (the crawl's search document
	// of the page: for a browser crawl the rendered text, for a plain crawl the HTML as
	// served), "response" (the text of the archived HTML, when there is no search document),
	// "reference" and "reference-response" (the same of the --reference crawl), or "none".
	TextSource   string `json:"text_source"`
	CaptureWords int    `json:"capture_words"` // words of the text compared with
	ReplayWords  int    `json:"replay_words"`  // words of the replayed page's text
	// Pixel is the share of pixels of the replay's screenshot that match the screenshot taken
	// at capture, compared at a common size (docs/qa.md), from 0 to 1; nil without a
	// screenshot taken at capture.
	Pixel *float64 `json:"pixel_score"`
	// PixelSource is where the screenshot compared with came from: "capture" (the crawl's),
	// "reference" (the --reference crawl's) or "none".
	PixelSource string `json:"pixel_source"`
	// CaptureThumb, ReplayThumb and Diff are images under QADir, relative to the reports
	// directory: thumbnails of the two screenshots, and the difference at full size (pixels
	// that differ in red over the capture's, faded). "" when there is none.
	CaptureThumb string `json:"capture_thumb,omitempty"`
	ReplayThumb  string `json:"replay_thumb,omitempty"`
	Diff         string `json:"diff,omitempty"`
	// Missing are the requests of the replayed page that the archive could not answer.
	Missing []QAMissing `json:"missing"`
	// Console are the errors the replayed page reported on its console.
	Console []QAConsole `json:"console_errors"`
	// Failed are the requests of the page that got no answer at all (not sent: a request
	// with a body, a scheme that is not http(s)).
	Failed []QAFailed `json:"failed,omitempty"`
}

// QAMissing is a request a replayed page made that the archive could not answer.
type QAMissing struct {
	URL string `json:"url"`
	// Type is the kind of request, as Chromium names its resource type: Document (a frame),
	// Stylesheet, Script, Image, Font, Media, XHR, Fetch, ...
	Type string `json:"type"`
	// Via is the document or style sheet that asked, when it is not the page itself (the
	// request's Referer: a frame, a style sheet's font).
	Via string `json:"via,omitempty"`
	// Crawl is what the crawl's crawl.log says of the URL when it did not capture it: its
	// status and annotations ("-5000 scope:block:contains:/ads/", "-9998 robots", "-2"); ""
	// when the crawl never decided it (it did not see it: a request made by a script).
	Crawl string `json:"crawl,omitempty"`
}

// QAConsole is an error a replayed page reported on its console.
type QAConsole struct {
	Kind string `json:"kind"` // error, assert or exception
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
	Line int    `json:"line,omitempty"`
}

// QAFailed is a request of a replayed page that got no answer.
type QAFailed struct {
	URL   string `json:"url"`
	Error string `json:"error"`
}

// EachQAPage calls fn for each line of the QAFile at path, in order, and returns fn's first
// error or its own. A file that does not exist has no lines: ok is false then.
func EachQAPage(path string, fn func(QAPage) error) (ok bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var p QAPage
			if err := json.Unmarshal(line, &p); err != nil {
				return true, fmt.Errorf("report: %s:%d: %w", path, n, err)
			}
			if err := fn(p); err != nil {
				return true, err
			}
		}
		if errors.Is(rerr, io.EOF) {
			return true, nil
		}
		if rerr != nil {
			return true, fmt.Errorf("report: %s: %w", path, rerr)
		}
	}
}

// Bounds of the QA section of report.html.
const (
	htmlQAWorst     = 50 // pages listed, the worst first, with their thumbnails
	htmlQAGroupURLs = 20 // missing URLs listed per host and type
)

// qaFigures are the summary figures of a run of amber qa.
type qaFigures struct {
	Pages, Failed         int
	TextN, PixelN         int
	TextMean, PixelMean   float64
	TextBelow, PixelBelow int // pages scoring under qaGood
	WithMissing, Missing  int // pages with missing resources; distinct missing URLs
	WithConsole, Console  int // pages with console errors; console errors
	First, Last           time.Time
	textSum, pixelSum     float64
	missingSeen           map[string]bool
}

// qaGood is the score under which a page counts as differing in the figures.
const qaGood = 0.95

func (f *qaFigures) add(p QAPage) {
	f.Pages++
	if p.Error != "" {
		f.Failed++
	}
	if p.Text != nil {
		f.TextN++
		f.textSum += *p.Text
		if *p.Text < qaGood {
			f.TextBelow++
		}
	}
	if p.Pixel != nil {
		f.PixelN++
		f.pixelSum += *p.Pixel
		if *p.Pixel < qaGood {
			f.PixelBelow++
		}
	}
	if len(p.Missing) > 0 {
		f.WithMissing++
	}
	if f.missingSeen == nil {
		f.missingSeen = map[string]bool{}
	}
	for _, m := range p.Missing {
		if !f.missingSeen[m.URL] {
			f.missingSeen[m.URL] = true
			f.Missing++
		}
	}
	if len(p.Console) > 0 {
		f.WithConsole++
		f.Console += len(p.Console)
	}
	if f.First.IsZero() || p.Checked.Before(f.First) {
		f.First = p.Checked
	}
	if p.Checked.After(f.Last) {
		f.Last = p.Checked
	}
}

func (f *qaFigures) finish() {
	if f.TextN > 0 {
		f.TextMean = f.textSum / float64(f.TextN)
	}
	if f.PixelN > 0 {
		f.PixelMean = f.pixelSum / float64(f.PixelN)
	}
	f.missingSeen = nil
}

// htmlQA is the QA section of report.html.
type htmlQA struct {
	Figures  qaFigures
	Previous *qaFigures // the run before, when QAPreviousFile is there
	Checked  string     // when the last page was checked
	// Stale: the crawl ended after the qa (a patch crawl, say): the qa is of the crawl before.
	Stale      bool
	Worst      []htmlQAPage
	WorstMore  int
	Groups     []htmlQAGroup
	File, Prev string
}

// htmlQAPage is a row of the worst pages.
type htmlQAPage struct {
	QAPage
	TextText, PixelText             string
	CaptureImg, ReplayImg, DiffHref template.URL
	badness                         float64
}

// htmlQAGroup is the missing URLs of one host and type.
type htmlQAGroup struct {
	Host, Type string
	URLs       []htmlQAMissing // the first htmlQAGroupURLs
	Count      int             // distinct URLs
	Pages      int             // pages that asked for one of them
	More       int
	pages      map[string]bool
}

// htmlQAMissing is one missing URL with the first page that asked for it.
type htmlQAMissing struct {
	QAMissing
	Page  string
	Pages int
}

// readQA reads the QA section's content from the reports directory dir; nil when amber qa has
// not run there. ended is when the crawl ended (zero when unknown).
func readQA(dir string, ended time.Time) (*htmlQA, error) {
	q := &htmlQA{File: QAFile}
	type key struct{ host, typ string }
	groups := map[key]*htmlQAGroup{}
	missing := map[string]*htmlQAMissing{} // by URL: the first page, pages counted
	var pages []htmlQAPage
	ok, err := EachQAPage(filepath.Join(dir, QAFile), func(p QAPage) error {
		q.Figures.add(p)
		for _, m := range p.Missing {
			host := "-"
			if u, err := url.Parse(m.URL); err == nil && u.Host != "" {
				host = u.Host
			}
			k := key{host, cmp.Or(m.Type, "-")}
			g := groups[k]
			if g == nil {
				g = &htmlQAGroup{Host: k.host, Type: k.typ, pages: map[string]bool{}}
				groups[k] = g
			}
			g.pages[p.URL] = true
			if hm := missing[m.URL]; hm != nil {
				hm.Pages++
				continue
			}
			hm := &htmlQAMissing{QAMissing: m, Page: p.URL, Pages: 1}
			missing[m.URL] = hm
			g.Count++
			if len(g.URLs) < htmlQAGroupURLs {
				g.URLs = append(g.URLs, *hm)
			} else {
				g.More++
			}
		}
		p.Missing, p.Console, p.Failed = slices.Clip(p.Missing), slices.Clip(p.Console), nil
		hp := htmlQAPage{QAPage: p, badness: badness(p)}
		pages = append(pages, hp)
		return nil
	})
	if err != nil || !ok {
		return nil, err
	}
	q.Figures.finish()
	q.Checked = fmtTime(q.Figures.Last)
	q.Stale = !ended.IsZero() && ended.After(q.Figures.Last)
	if prevOK, err := EachQAPage(filepath.Join(dir, QAPreviousFile), func(p QAPage) error {
		if q.Previous == nil {
			q.Previous = &qaFigures{}
		}
		q.Previous.add(p)
		return nil
	}); err != nil {
		return nil, err
	} else if prevOK && q.Previous != nil {
		q.Previous.finish()
		q.Prev = QAPreviousFile
	}
	slices.SortStableFunc(pages, func(a, b htmlQAPage) int {
		if c := cmp.Compare(a.badness, b.badness); c != 0 {
			return -c
		}
		if c := cmp.Compare(len(a.Missing), len(b.Missing)); c != 0 {
			return -c
		}
		if c := cmp.Compare(len(a.Console), len(b.Console)); c != 0 {
			return -c
		}
		return strings.Compare(a.URL, b.URL)
	})
	if len(pages) > htmlQAWorst {
		q.WorstMore = len(pages) - htmlQAWorst
		pages = pages[:htmlQAWorst]
	}
	for i := range pages {
		p := &pages[i]
		p.TextText, p.PixelText = scoreText(p.Text), scoreText(p.Pixel)
		p.CaptureImg, p.ReplayImg = qaImage(dir, p.CaptureThumb), qaImage(dir, p.ReplayThumb)
		if qaPath(p.QAPage.Diff) {
			p.DiffHref = template.URL(p.QAPage.Diff)
		}
	}
	q.Worst = pages
	for _, g := range groups {
		g.Pages = len(g.pages)
		for i := range g.URLs {
			g.URLs[i].Pages = missing[g.URLs[i].URL].Pages
		}
		q.Groups = append(q.Groups, *g)
	}
	slices.SortFunc(q.Groups, func(a, b htmlQAGroup) int {
		if c := cmp.Compare(a.Count, b.Count); c != 0 {
			return -c
		}
		return cmp.Or(strings.Compare(a.Host, b.Host), strings.Compare(a.Type, b.Type))
	})
	return q, nil
}

// badness orders the pages, the worst first: a page that could not be checked, then by how
// far its lower score is from 1 (a page without scores counts as 1).
func badness(p QAPage) float64 {
	if p.Error != "" {
		return 2
	}
	low := 1.0
	for _, s := range []*float64{p.Text, p.Pixel} {
		if s != nil && *s < low {
			low = *s
		}
	}
	return 1 - low
}

// scoreText shows a score, "-" for none.
func scoreText(s *float64) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *s)
}

// qaPath reports whether p is a file name under QADir as amber qa writes them.
func qaPath(p string) bool {
	dir, name := path.Split(p)
	return dir == QADir+"/" && name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `\`)
}

// qaImage returns the PNG image p (under QADir of the reports directory dir) as a data: URL,
// which report.html's policy lets it show without a request; "" when there is none.
func qaImage(dir, p string) template.URL {
	if !qaPath(p) {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil || len(b) > 1<<20 {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
}
