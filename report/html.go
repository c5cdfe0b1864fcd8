package report

import (
	"bufio"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// htmlMaxURLs bounds the out-of-scope URLs listed in report.html so the page stays usable on
// large crawls; scope-report.txt and scope-report.json list them all.
const htmlMaxURLs = 5000

// chartTop is the number of bars in each chart.
const chartTop = 15

// htmlMaxFailed bounds the failed URLs listed in report.html; FailedFile lists them all.
const htmlMaxFailed = 200

// htmlMaxWARCs bounds the WARC files of one crawl directory linked from report.html.
const htmlMaxWARCs = 100

// maxSettings bounds the bytes of crawl.yaml report.html shows.
const maxSettings = 256 << 10

type htmlFigure struct {
	ID, Label, Value string
	Time             bool // depends on elapsed time (masked in tests)
}

type htmlBar struct {
	Label, Value, Class string
	Y, W, TextY         int
}

type htmlChart struct {
	ID, Title string
	Bars      []htmlBar
	Height    int
}

type htmlSeed struct {
	URL, Type, Status, Redirect, Final, Class string
	Code                                      int
}

// htmlSitemapHost is one host's row of the sitemaps table.
type htmlSitemapHost struct {
	Host             string
	Listed, Captured int64
}

type htmlURL struct {
	ScopeURL
	Host string
}

type htmlPage struct {
	Collection, Status    string
	Started, Ended        string
	Duration              string
	Figures               []htmlFigure
	Seeds                 []htmlSeed
	Charts                []htmlChart
	Sitemaps              []htmlSitemapHost // hosts with URLs from sitemaps; none: no table
	SitemapTotal          htmlSitemapHost
	ContentHosts          []ScopeHost    // hosts with content counts; none: no section
	ContentTotal          *ContentCounts // nil: no section
	ContentSeeds          []SeedContent
	Hosts                 []ScopeHost
	Totals                ScopeCounts
	URLs                  []htmlURL
	URLHosts, URLReasons  []string
	TotalURLs, ShownLimit int
	Truncated             bool
	Timeline              *htmlTimeline // nil: nothing captured or failed
	Failed                []htmlFailed
	FailedTotal           int64
	FailedMore            int64 // failed URLs not listed here
	FailedFile            string
	Settings              []htmlSettings
	Outputs               []htmlOutputs
	// Subcollections are the subcollections with captures (subcoll.go); none: no table.
	Subcollections []htmlSub
	// Indexes are the search-index records of the crawl directories (IndexFile); none: no
	// section.
	Indexes []htmlIndex
	// QA is what amber qa found (QAFile in the reports directory); nil: no section.
	QA *htmlQA
	// PlatformRules are the platform rules that left URLs out; none: no table.
	PlatformRules []ScopePlatformRule
	// Waste are the first htmlMaxWaste proposals of the waste report; none: no section.
	Waste         []WasteProposal
	WasteMeasured bool
	WasteMore     int // proposals not shown
}

// htmlMaxWaste bounds the waste report's rules shown in report.html; scope-report.txt and
// scope-report.json list them all.
const htmlMaxWaste = 10

// htmlIndex is what a search index took of one crawl directory's documents.
type htmlIndex struct {
	IndexRecord
	Dir string
}

// indexes reads the search-index records of dirs.
func indexes(reports string, dirs []string) []htmlIndex {
	var out []htmlIndex
	for _, d := range dirs {
		if rec, ok, err := ReadIndexRecord(d); err == nil && ok {
			out = append(out, htmlIndex{IndexRecord: rec, Dir: dirTitle(reports, d)})
		}
	}
	return out
}

// htmlFailed is a row of the failed URLs table.
type htmlFailed struct {
	failedURL
	Text string // what the status code means
}

// htmlSettings is the crawl.yaml of one or more crawl directories (the same file).
type htmlSettings struct {
	Dirs      []string
	Text      string
	Truncated bool
	Missing   bool // no crawl.yaml
}

// htmlOutputs are the outputs of one crawl directory, or the reports.
type htmlOutputs struct {
	Title string
	Links []htmlLink
	More  int // WARC files not listed
}

// htmlLink is a link to an output file, relative to the reports directory.
type htmlLink struct {
	Href, Name, Note string
}

// Chart geometry in SVG units: labels on the left, bars after them, values after the bars.
const (
	chartBarW = 300
	chartRowH = 22
)

func makeChart(id, title string, ts []tally, value func(tally) int64, label func(int64) string, class func(tally) string) htmlChart {
	c := htmlChart{ID: id, Title: title}
	if len(ts) > chartTop {
		ts = ts[:chartTop]
	}
	var maxV int64 = 1
	for _, t := range ts {
		maxV = max(maxV, value(t))
	}
	for i, t := range ts {
		v := value(t)
		w := int(float64(v) / float64(maxV) * chartBarW)
		if v > 0 && w < 1 {
			w = 1
		}
		c.Bars = append(c.Bars, htmlBar{
			Label: clip(t.key, 30), Value: label(v), Class: class(t),
			Y: i * chartRowH, W: w, TextY: i*chartRowH + 15,
		})
	}
	c.Height = max(len(c.Bars)*chartRowH, chartRowH)
	return c
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func statusClass(code string) string {
	n, _ := strconv.Atoi(code)
	switch {
	case n >= 200 && n < 300:
		return "ok"
	case n >= 300 && n < 400:
		return "redir"
	case n >= 400 && n < 500:
		return "client"
	case n >= 500:
		return "server"
	}
	return "other"
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func (s *summary) htmlPage() (htmlPage, error) {
	p := htmlPage{
		Collection: s.in.Collection,
		Status:     crawlStatus(s.in.EndReason),
		Started:    fmtTime(s.in.Started),
		Ended:      fmtTime(s.ended),
		Duration:   conventionalDuration(s.duration),
		Hosts:      make([]ScopeHost, 0, len(s.hosts)),
		Totals:     s.counts.scopeCounts(),
		ShownLimit: htmlMaxURLs,
	}
	for _, h := range s.hosts {
		p.Hosts = append(p.Hosts, h.scopeHost())
	}
	p.Seeds = s.htmlSeeds()
	p.Figures = s.htmlFigures()
	p.Charts = s.htmlCharts()
	p.Sitemaps = s.htmlSitemaps()
	p.Subcollections = s.htmlSubs()
	p.SitemapTotal = htmlSitemapHost{Host: "total", Listed: s.fromSitemap, Captured: s.fromSitemapCaptured}
	p.ContentHosts, p.ContentTotal, p.ContentSeeds = s.contentHosts(), s.contentTotal(), s.contentSeeds()
	if err := p.setURLs(s); err != nil {
		return htmlPage{}, err
	}
	p.Timeline = s.timeline.html()
	for _, f := range s.failedFirst {
		p.Failed = append(p.Failed, htmlFailed{failedURL: f, Text: statusText(f.Status)})
	}
	p.FailedTotal = s.failed
	p.FailedMore = s.failed - int64(len(p.Failed))
	p.FailedFile = FailedFile
	dirs := s.crawlDirs()
	p.Settings = settings(s.reportsDir, dirs)
	p.Outputs = outputs(s.reportsDir, dirs)
	p.Indexes = indexes(s.reportsDir, dirs)
	if s.reportsDir != "" {
		qa, err := readQA(s.reportsDir, s.ended)
		if err != nil {
			return htmlPage{}, err
		}
		p.QA = qa
	}
	for _, r := range s.platformRules() {
		if r.LeftOut > 0 {
			p.PlatformRules = append(p.PlatformRules, r)
		}
	}
	p.Waste, p.WasteMeasured = s.waste.Proposals, s.waste.TextMeasured
	if len(p.Waste) > htmlMaxWaste {
		p.Waste, p.WasteMore = p.Waste[:htmlMaxWaste], len(p.Waste)-htmlMaxWaste
	}
	return p, nil
}

// crawlDirs are the crawl directories the reports are of (Input.Dirs).
func (s *summary) crawlDirs() []string {
	if len(s.in.Dirs) > 0 {
		return s.in.Dirs
	}
	if s.reportsDir == "" {
		return nil
	}
	return []string{filepath.Dir(filepath.Clean(s.reportsDir))}
}

// settings reads the crawl.yaml of each directory; directories with the same file share one
// entry.
func settings(reports string, dirs []string) []htmlSettings {
	var out []htmlSettings
	for _, d := range dirs {
		st := htmlSettings{Dirs: []string{dirTitle(reports, d)}}
		f, err := os.Open(filepath.Join(d, configFile))
		if err != nil {
			st.Missing = true
		} else {
			b, rerr := io.ReadAll(io.LimitReader(f, maxSettings+1))
			f.Close()
			if rerr != nil {
				st.Missing = true
			}
			st.Truncated = len(b) > maxSettings
			st.Text = strings.ToValidUTF8(string(b[:min(len(b), maxSettings)]), "\uFFFD")
		}
		same := slices.IndexFunc(out, func(o htmlSettings) bool {
			return o.Missing == st.Missing && o.Text == st.Text && o.Truncated == st.Truncated
		})
		if same >= 0 {
			out[same].Dirs = append(out[same].Dirs, d)
			continue
		}
		out = append(out, st)
	}
	return out
}

// MergedCrawlLogFile is the crawl.log of several crawl directories, merged by time, that
// `amber report -o OUT DIR...` writes in OUT with the reports; report.html links to it when
// it is there.
const MergedCrawlLogFile = "crawl.log"

// Outputs of a crawl directory (the crawl package's paths) that report.html links to.
const (
	configFile = "crawl.yaml"
	warcDir    = "warcs"
)

var dirOutputs = []struct{ path, note string }{
	{"indexes/index.cdxj", "CDXJ index"},
	{"documents.jsonl", "search documents"},
	{IndexFile, "what the search index acknowledged"},
	{"logs/crawl.log", "crawl.log"},
	{"logs/events.jsonl", "events"},
	{configFile, "effective configuration"},
}

// outputs lists the output files of each crawl directory that exist, and the other reports,
// with links relative to the reports directory reports.
func outputs(reports string, dirs []string) []htmlOutputs {
	var out []htmlOutputs
	link := func(path, note string) (htmlLink, bool) {
		st, err := os.Stat(path)
		if err != nil || st.IsDir() {
			return htmlLink{}, false
		}
		return htmlLink{Href: relHref(reports, path), Name: filepath.Base(path), Note: note + " · " + displayBytes(st.Size())}, true
	}
	for _, d := range dirs {
		g := htmlOutputs{Title: dirTitle(reports, d)}
		warcs, _ := filepath.Glob(filepath.Join(d, warcDir, "*.warc.gz"))
		open, _ := filepath.Glob(filepath.Join(d, warcDir, "*.warc.gz.open"))
		warcs = append(warcs, open...)
		sort.Strings(warcs)
		for i, w := range warcs {
			if i >= htmlMaxWARCs {
				g.More = len(warcs) - i
				break
			}
			note := "WARC file"
			if strings.HasSuffix(w, ".open") {
				note = "WARC file being written (or left open by a killed crawl)"
			}
			if l, ok := link(w, note); ok {
				g.Links = append(g.Links, l)
			}
		}
		for _, o := range dirOutputs {
			if l, ok := link(filepath.Join(d, filepath.FromSlash(o.path)), o.note); ok {
				l.Name = o.path
				g.Links = append(g.Links, l)
			}
		}
		packages, _ := filepath.Glob(filepath.Join(d, "*.wacz"))
		sort.Strings(packages)
		for _, w := range packages {
			if l, ok := link(w, "WACZ package"); ok {
				g.Links = append(g.Links, l)
			}
		}
		out = append(out, g)
	}
	rep := htmlOutputs{Title: "reports"}
	if l, ok := link(filepath.Join(reports, MergedCrawlLogFile), "the crawl directories' crawl.logs merged by time"); ok {
		rep.Links = append(rep.Links, l)
	}
	for _, f := range []struct{ name, note string }{
		{CrawlReportFile, "crawl summary"}, {SeedsReportFile, "seeds"}, {HostsReportFile, "hosts"},
		{MimetypeReportFile, "MIME types"}, {ResponseCodeReportFile, "status codes"},
		{ScopeReportFile, "scope report"}, {ScopeReportJSONFile, "scope report, JSON"}, {FailedFile, "failed URLs"},
	} {
		rep.Links = append(rep.Links, htmlLink{Href: f.name, Name: f.name, Note: f.note})
	}
	return append(out, rep)
}

// dirTitle names a crawl directory: its name and where it is from the reports directory.
func dirTitle(reports, dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return filepath.Base(abs) + " (" + relHref(reports, dir) + ")"
}

// relHref is path as a link from the directory base: relative, slash-separated, each segment
// escaped.
func relHref(base, path string) string {
	ab, err1 := filepath.Abs(base)
	ap, err2 := filepath.Abs(path)
	rel, err3 := filepath.Rel(ab, ap)
	if err := errors.Join(err1, err2, err3); err != nil {
		rel = ap
	}
	segs := strings.Split(filepath.ToSlash(rel), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// htmlSeeds are the rows of the seeds table.
func (s *summary) htmlSeeds() []htmlSeed {
	var seeds []htmlSeed
	for _, r := range s.seeds {
		hs := htmlSeed{URL: r.url, Type: r.typ, Code: r.status, Redirect: r.redirect, Class: statusClass(itoa(r.status))}
		if r.crawled {
			hs.Status = "CRAWLED"
		} else {
			hs.Status = "NOTCRAWLED"
			hs.Class = "other"
		}
		if r.final != r.url {
			hs.Final = r.final + " (" + itoa(r.finalCode) + ")"
		}
		seeds = append(seeds, hs)
	}
	return seeds
}

// htmlSitemaps are the rows of the sitemaps table: the hosts with URLs listed in sitemaps, in
// the hosts' order.
func (s *summary) htmlSitemaps() []htmlSitemapHost {
	var rows []htmlSitemapHost
	for _, h := range s.hosts {
		if h.fromSitemap > 0 {
			rows = append(rows, htmlSitemapHost{Host: h.host, Listed: h.fromSitemap, Captured: h.fromSitemapCaptured})
		}
	}
	return rows
}

// htmlFigures are the headline figures.
func (s *summary) htmlFigures() []htmlFigure {
	var crawled int
	for _, r := range s.seeds {
		if r.crawled {
			crawled++
		}
	}
	urisPerSec, kbPerSec := s.rates()
	figs := []htmlFigure{
		{ID: "seeds", Label: "seeds crawled", Value: itoa(crawled) + " / " + itoa(len(s.seeds))},
		{ID: "captured", Label: "URLs captured", Value: i64(s.captured)},
		{ID: "bytes", Label: "bytes captured", Value: displayBytes(s.bytes)},
		{ID: "hosts", Label: "hosts visited", Value: itoa(len(s.hostsByCaptured()))},
		{ID: "novel", Label: "new", Value: i64(s.novel)},
		{ID: "duplicates", Label: "duplicates", Value: i64(s.dup)},
		{ID: "out-of-scope", Label: "out of scope", Value: i64(s.outOfScope)},
		{ID: "blocked", Label: "blocked by a rule", Value: i64(s.blocked)},
		{ID: "robots", Label: "blocked by robots.txt", Value: i64(s.robots)},
		{ID: "queued", Label: "left queued", Value: i64(s.queued)},
		{ID: "failed", Label: "failed", Value: i64(s.failed)},
		{ID: "duration", Label: "duration", Value: conventionalDuration(s.duration), Time: true},
		{ID: "rate", Label: "URLs/s, KiB/s", Value: decimal(urisPerSec, 2, 0) + ", " + i64(kbPerSec), Time: true},
	}
	if s.fromSitemap > 0 {
		// Before duration and rate, with the other counts.
		fig := htmlFigure{ID: "from-sitemaps", Label: "from sitemaps", Value: i64(s.fromSitemap)}
		figs = slices.Insert(figs, len(figs)-2, fig)
	}
	figs = slices.Insert(figs, len(figs)-2, s.htmlContentFigures()...)
	return figs
}

// htmlCharts are the bar charts: status codes, MIME types, top hosts by URLs and by bytes.
func (s *summary) htmlCharts() []htmlChart {
	count := func(t tally) int64 { return t.count }
	size := func(t tally) int64 { return t.bytes }
	none := func(tally) string { return "" }
	hostTallies := func(metric func(*hostStats) int64) []tally {
		hs := s.hostsByCaptured()
		sortHosts(hs, metric)
		var ts []tally
		for _, h := range hs {
			if metric(h) > 0 {
				ts = append(ts, tally{key: h.host, count: h.captured, bytes: h.bytes})
			}
		}
		return ts
	}
	return []htmlChart{
		makeChart("chart-status", "Status codes (URLs)", s.codes, count, i64, func(t tally) string { return statusClass(t.key) }),
		makeChart("chart-mime", "MIME types (URLs)", s.mimes, count, i64, none),
		makeChart("chart-hosts-urls", "Top hosts by URLs", hostTallies(func(h *hostStats) int64 { return h.captured }), count, i64, none),
		makeChart("chart-hosts-bytes", "Top hosts by bytes", hostTallies(func(h *hostStats) int64 { return h.bytes }), size, displayBytes, none),
	}
}

// setURLs lists the first htmlMaxURLs URLs left out, in the scope report's order, with the
// hosts and reasons to filter them by.
func (p *htmlPage) setURLs(s *summary) error {
	p.TotalURLs = int(s.left)
	hostSet := map[string]bool{}
	lr, err := s.openLeft()
	if err != nil {
		return err
	}
	defer lr.Close()
	for i, h := range s.hosts {
		if h.left == 0 {
			continue
		}
		// The elastic flavour's suggestions (a domain or crawl rule to add, a depth to raise)
		// go in the hosts table beside the suggested accept rule.
		if p.Hosts[i].Suggestions, err = lr.suggestions(h); err != nil {
			return err
		}
		hostSet[h.host] = true
		if len(p.URLs) >= htmlMaxURLs {
			continue
		}
		err := lr.each(h, func(u ScopeURL) error {
			p.URLs = append(p.URLs, htmlURL{ScopeURL: u, Host: h.host})
			if len(p.URLs) >= htmlMaxURLs {
				return errEnough
			}
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			return err
		}
	}
	p.Truncated = p.TotalURLs > len(p.URLs)
	p.URLHosts, p.URLReasons = keys(hostSet), keys(s.leftReasons)
	return nil
}

// errEnough stops a listing that has all it shows.
var errEnough = errors.New("report: enough")

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// writeHTML writes report.html.
func (s *summary) writeHTML(w *bufio.Writer) error {
	p, err := s.htmlPage()
	if err != nil {
		return err
	}
	if err := pageTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("render %s: %w", HTMLReportFile, err)
	}
	return nil
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>amber crawl report: {{.Collection}}</title>
<style>
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:1em 2em;color:#222}
h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
.meta{color:#555}
.figures{display:flex;flex-wrap:wrap;gap:.6em;margin:1em 0}
.figure{border:1px solid #ddd;border-radius:6px;padding:.5em .8em;min-width:9em;background:#fafafa}
.figure .v{font-size:1.4em;font-weight:600}.figure .l{color:#555;font-size:.9em}
table{border-collapse:collapse;width:100%;margin:.5em 0}
.scroll{overflow-x:auto;max-width:100%}
table.fixed{table-layout:fixed;min-width:760px}
th,td{text-align:left;padding:.25em .5em;border-bottom:1px solid #eee;vertical-align:top}
th{background:#f3f3f3}td.n,th.n{text-align:right}
td.u{overflow-wrap:anywhere;word-break:break-all}
td.c{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
pre.settings{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow:auto;max-height:40em;white-space:pre}
ul.outputs{columns:2 28em;padding-left:1.2em}ul.outputs li{overflow-wrap:anywhere}.note{color:#666}
svg.timeline rect.cap{fill:#3a8a3a}svg.timeline rect.fail{fill:#c0392b}svg.timeline rect.bytes{fill:#5b7db1}svg.timeline line{stroke:#999}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:1em}
figure{margin:0}svg{max-width:100%;height:auto}
svg text{font-size:12px;fill:#222}
rect.bar{fill:#5b7db1}rect.ok{fill:#3a8a3a}rect.redir{fill:#3a6fb0}rect.client{fill:#d08a1e}rect.server{fill:#c0392b}rect.other{fill:#888}
span.ok{color:#2c6e2c}span.redir{color:#2c5a94}span.client{color:#a86c0f}span.server,span.other{color:#b03a2e}
.filters{display:flex;gap:1em;align-items:center;margin:.5em 0}
code{background:#f3f3f3;padding:0 .2em}
img.thumb{width:160px;height:auto;border:1px solid #ccc;display:block}.qa-error{color:#b03a2e}
</style>
</head>
<body>
<h1>Crawl report: {{.Collection}}</h1>
<p class="meta">Status: <b id="crawl-status">{{.Status}}</b> · started <span data-time>{{.Started}}</span> · ended <span data-time>{{.Ended}}</span> · duration <span data-time>{{.Duration}}</span></p>

<div class="figures" id="figures">
{{- range .Figures}}
<div class="figure" id="fig-{{.ID}}"><div class="v"{{if .Time}} data-time{{end}}>{{.Value}}</div><div class="l">{{.Label}}</div></div>
{{- end}}
</div>

<h2 id="timeline-title">Timeline</h2>
{{- with .Timeline}}
<figure id="timeline">
<figcaption>URLs captured (green) and failed (red), and bytes captured, per <span data-time>{{.Interval}}</span>: {{.Captured}} captured, {{.Failed}} failed</figcaption>
<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="URLs and bytes captured over time">
<text x="0" y="{{.URLMid}}">{{.MaxURLs}} URLs</text><text x="0" y="{{.BytesMd}}">{{.MaxBytes}}</text>
<line x1="{{.PlotX}}" x2="{{.EndX}}" y1="{{.LabelY}}" y2="{{.LabelY}}" transform="translate(0,-16)"></line>
{{- range .Bars}}
<g><title>{{.Title}}</title><rect class="cap" x="{{.X}}" y="{{.CapY}}" width="{{.W}}" height="{{.CapH}}"></rect><rect class="fail" x="{{.X}}" y="{{.FailY}}" width="{{.W}}" height="{{.FailH}}"></rect><rect class="bytes" x="{{.X}}" y="{{.BytesY}}" width="{{.W}}" height="{{.BytesH}}"></rect></g>
{{- end}}
<text x="{{.PlotX}}" y="{{.LabelY}}" data-time>{{.Start}}</text><text x="{{.EndX}}" y="{{.LabelY}}" text-anchor="end" data-time>{{.End}}</text>
<text x="{{.PlotX}}" y="{{.BytesLabelY}}" data-time>{{.Start}}</text><text x="{{.EndX}}" y="{{.BytesLabelY}}" text-anchor="end" data-time>{{.End}}</text>
</svg>
</figure>
{{- else}}
<p id="timeline">nothing captured or failed yet</p>
{{- end}}

<h2 id="seeds">Seeds</h2>
<div class="scroll">
<table id="seeds-table" class="fixed">
<colgroup><col style="width:5em"><col style="width:8em"><col><col style="width:7em"><col><col></colgroup>
<thead><tr><th class="n">code</th><th>status</th><th>seed</th><th>type</th><th>redirect</th><th>ends at</th></tr></thead>
<tbody>
{{- range .Seeds}}
<tr><td class="n"><span class="{{.Class}}">{{.Code}}</span></td><td>{{.Status}}</td><td class="u">{{.URL}}</td><td class="c" title="{{.Type}}">{{.Type}}</td><td class="u">{{.Redirect}}</td><td class="u">{{.Final}}</td></tr>
{{- end}}
</tbody>
</table>
</div>

<h2 id="charts">What was captured</h2>
<div class="charts">
{{- range .Charts}}
<figure id="{{.ID}}">
<figcaption><b>{{.Title}}</b></figcaption>
{{- if .Bars}}
<svg xmlns="http://www.w3.org/2000/svg" width="590" height="{{.Height}}" viewBox="0 0 590 {{.Height}}" role="img" aria-label="{{.Title}}">
{{- range .Bars}}
<g><text x="0" y="{{.TextY}}">{{.Label}}</text><rect class="bar {{.Class}}" x="200" y="{{.Y}}" width="{{.W}}" height="18" rx="2"></rect><text x="{{.W}}" dx="206" y="{{.TextY}}">{{.Value}}</text></g>
{{- end}}
</svg>
{{- else}}
<p>nothing captured</p>
{{- end}}
</figure>
{{- end}}
</div>

{{- if .Sitemaps}}
<h2 id="sitemaps">URLs from sitemaps</h2>
<table id="sitemap-hosts">
<thead><tr><th>host</th><th class="n">listed in sitemaps</th><th class="n">captured</th></tr></thead>
<tbody>
{{- range .Sitemaps}}
<tr data-host="{{.Host}}"><td>{{.Host}}</td><td class="n">{{.Listed}}</td><td class="n">{{.Captured}}</td></tr>
{{- end}}
</tbody>
<tfoot><tr><th>total</th><th class="n">{{.SitemapTotal.Listed}}</th><th class="n">{{.SitemapTotal.Captured}}</th></tr></tfoot>
</table>
{{- end}}

{{- if .Subcollections}}
<h2 id="subcollections">Subcollections</h2>
<table id="subcollections-table">
<thead><tr><th>subcollection</th><th class="n">captured</th><th class="n">bytes</th><th class="n">novel</th><th class="n">duplicates</th><th class="n">not modified</th></tr></thead>
<tbody>
{{- range .Subcollections}}
<tr data-sub="{{.Name}}"><td>{{.Name}}</td><td class="n">{{.Captured}}</td><td class="n">{{.Bytes}}</td><td class="n">{{.Novel}}</td><td class="n">{{.Dup}}</td><td class="n">{{.NotModified}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}

{{- if .ContentTotal}}
<h2 id="content">Content filters and POSTs</h2>
<p>crawl.log lines of captures archived but not read for their type or a header field, of pages whose links were not searched for their type, of URLs requested with a POST, and of responses whose body was not fetched for the type their head gave (only their request is archived; bytes not fetched: the Content-Length of those bodies, size unknown: those without one).</p>
<table id="content-hosts">
<thead><tr><th>host</th><th class="n">type excluded</th><th class="n">header excluded</th><th class="n">links not searched</th><th class="n">POST</th><th class="n">type not fetched</th><th class="n">bytes not fetched</th><th class="n">size unknown</th></tr></thead>
<tbody>
{{- range .ContentHosts}}
<tr data-host="{{.Host}}"><td>{{.Host}}</td><td class="n">{{.Content.TypeExcluded}}</td><td class="n">{{.Content.HeaderExcluded}}</td><td class="n">{{.Content.LinksNotSearched}}</td><td class="n">{{.Content.Post}}</td><td class="n">{{.Content.TypeNotFetched}}</td><td class="n">{{.Content.BytesNotFetched}}</td><td class="n">{{.Content.SizeUnknown}}</td></tr>
{{- end}}
</tbody>
<tfoot><tr><th>total</th><th class="n">{{.ContentTotal.TypeExcluded}}</th><th class="n">{{.ContentTotal.HeaderExcluded}}</th><th class="n">{{.ContentTotal.LinksNotSearched}}</th><th class="n">{{.ContentTotal.Post}}</th><th class="n">{{.ContentTotal.TypeNotFetched}}</th><th class="n">{{.ContentTotal.BytesNotFetched}}</th><th class="n">{{.ContentTotal.SizeUnknown}}</th></tr></tfoot>
</table>
<table id="content-seeds">
<thead><tr><th>seed</th><th class="n">type excluded</th><th class="n">header excluded</th><th class="n">links not searched</th><th class="n">POST</th><th class="n">type not fetched</th><th class="n">bytes not fetched</th><th class="n">size unknown</th></tr></thead>
<tbody>
{{- range .ContentSeeds}}
<tr><td class="u">{{.Seed}}</td><td class="n">{{.TypeExcluded}}</td><td class="n">{{.HeaderExcluded}}</td><td class="n">{{.LinksNotSearched}}</td><td class="n">{{.Post}}</td><td class="n">{{.TypeNotFetched}}</td><td class="n">{{.BytesNotFetched}}</td><td class="n">{{.SizeUnknown}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}

<h2 id="scope">Scope</h2>
<div class="scroll">
<table id="scope-hosts" class="fixed">
<colgroup><col style="width:22%"><col><col><col><col><col><col><col style="width:30%"></colgroup>
<thead><tr><th>host</th><th class="n">captured</th><th class="n">out of scope</th><th class="n">robots.txt</th><th class="n">blocked</th><th class="n">queued</th><th class="n">failed</th><th>suggested rule</th></tr></thead>
<tbody>
{{- range .Hosts}}
<tr data-host="{{.Host}}"><td class="c" title="{{.Host}}">{{.Host}}</td><td class="n">{{.Captured}}</td><td class="n">{{.OutOfScope}}</td><td class="n">{{.Robots}}</td><td class="n">{{.Blocked}}</td><td class="n">{{.Queued}}</td><td class="n">{{.Failed}}</td><td class="u">{{if .SuggestedRule}}<code>{{.SuggestedRule}}</code>{{end}}{{range .Suggestions}}<div>{{.Suggestion}} ({{.Reason}}: {{.URLs}})</div>{{end}}</td></tr>
{{- end}}
</tbody>
<tfoot><tr><th>total</th><th class="n">{{.Totals.Captured}}</th><th class="n">{{.Totals.OutOfScope}}</th><th class="n">{{.Totals.Robots}}</th><th class="n">{{.Totals.Blocked}}</th><th class="n">{{.Totals.Queued}}</th><th class="n">{{.Totals.Failed}}</th><th></th></tr></tfoot>
</table>
</div>

{{- if .PlatformRules}}
<h3 id="platform-rules">Platform rules</h3>
<p>URLs of recognised web platforms (MediaWiki, WordPress, ...) that hold no content, left out by the built-in rules (<code>scope.platform_rules</code> switches them).</p>
<div class="scroll">
<table id="platform-rules-table" class="fixed">
<colgroup><col style="width:22%"><col style="width:10%"><col></colgroup>
<thead><tr><th>rule</th><th class="n">left out</th><th>why</th></tr></thead>
<tbody>
{{- range .PlatformRules}}
<tr><td class="c"><code>{{.ID}}</code></td><td class="n">{{.LeftOut}}</td><td>{{.Why}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
{{- if .Waste}}
<h3 id="waste">Waste: URL families with many fetches and little new content</h3>
<p>Each block rule would have left out the families under it; the fetches it matches are the fetches it would have saved.{{if not .WasteMeasured}} No text was measured: only duplicates and responses without content count as waste.{{end}}{{if .WasteMore}} {{.WasteMore}} more in scope-report.txt.{{end}}</p>
<div class="scroll">
<table id="waste-table" class="fixed">
<colgroup><col style="width:40%"><col><col><col><col><col><col style="width:25%"></colgroup>
<thead><tr><th>host, block rule / family</th><th class="n">fetches</th><th class="n">new content</th><th class="n">duplicate</th><th class="n">near-duplicate</th><th class="n">no content</th><th>example</th></tr></thead>
<tbody>
{{- range .Waste}}
<tr class="waste-rule"><td class="u">{{.Host}}: {{if .Rule}}<code>{{.Rule}}</code>{{else}}no rule found{{end}}</td><td class="n">{{.Fetches}}</td><td class="n">{{.New}}</td><td colspan="3" class="n">{{.Wasted}} without new content</td><td></td></tr>
{{- range .Families}}
<tr class="waste-family"><td class="u">&nbsp;&nbsp;{{.Pattern}}</td><td class="n">{{.Fetches}}</td><td class="n">{{.New}}</td><td class="n">{{.Duplicates}}</td><td class="n">{{.NearDuplicates}}</td><td class="n">{{.NoContent}}</td><td class="u">{{.Example}}</td></tr>
{{- end}}
{{- end}}
</tbody>
</table>
</div>
{{- end}}

<h3>URLs left out</h3>
<div class="filters">
<label>host <select id="filter-host"><option value="">all hosts</option>{{range .URLHosts}}<option value="{{.}}">{{.}}</option>{{end}}</select></label>
<label>reason <select id="filter-reason"><option value="">all reasons</option>{{range .URLReasons}}<option value="{{.}}">{{.}}</option>{{end}}</select></label>
<span><span id="shown-count">{{len .URLs}}</span> of {{.TotalURLs}} shown</span>
</div>
{{- if .Truncated}}
<p>Only the first {{.ShownLimit}} URLs are listed here; scope-report.txt and scope-report.json list them all.</p>
{{- end}}
<div class="scroll">
<table id="scope-urls" class="fixed">
<colgroup><col style="width:13%"><col style="width:13%"><col style="width:8%"><col style="width:32%"><col style="width:17%"><col style="width:17%"></colgroup>
<thead><tr><th>host</th><th>reason</th><th>hops</th><th>URL</th><th>via</th><th>seed</th></tr></thead>
<tbody>
{{- range .URLs}}
<tr data-host="{{.Host}}" data-reason="{{.Reason}}"><td class="c" title="{{.Host}}">{{.Host}}</td><td class="c" title="{{.Reason}}">{{.Reason}}</td><td class="c" title="{{.Hops}}">{{.Hops}}</td><td class="u">{{.URL}}</td><td class="u">{{.Via}}</td><td class="u">{{.Seed}}</td></tr>
{{- end}}
</tbody>
</table>
</div>

<h2 id="failed">Failed URLs</h2>
<p>Failed (no response: network error, timeout, unfetchable URL): {{.FailedTotal}}{{if .FailedMore}}; the first {{len .Failed}} by URL are listed here, and {{.FailedMore}} more in <a href="{{.FailedFile}}">{{.FailedFile}}</a>{{else}}; <a href="{{.FailedFile}}">{{.FailedFile}}</a> lists them{{end}}.</p>
{{- if .Failed}}
<div class="scroll">
<table id="failed-urls" class="fixed">
<colgroup><col style="width:5em"><col style="width:14em"><col style="width:7em"><col><col style="width:28%"></colgroup>
<thead><tr><th class="n">code</th><th>what</th><th>hops</th><th>URL</th><th>via</th></tr></thead>
<tbody>
{{- range .Failed}}
<tr><td class="n"><span class="other">{{.Status}}</span></td><td class="c" title="{{.Text}}">{{.Text}}</td><td class="c" title="{{.Hops}}">{{.Hops}}</td><td class="u">{{.URL}}</td><td class="u">{{.Via}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}

{{- if .Indexes}}
<h2 id="search-index">Search index</h2>
{{- range .Indexes}}
<p>Documents of <code>{{.Dir}}</code> sent to the index <code>{{.Index}}</code> at <code>{{.URL}}</code> (Elasticsearch bulk API).</p>
<table class="index-counts">
<thead><tr><th class="n">sent</th><th class="n">acknowledged</th><th class="n">failed</th><th class="n">backlog</th></tr></thead>
<tbody><tr><td class="n">{{.Sent}}</td><td class="n">{{.Acknowledged}}</td><td class="n">{{.Failed}}</td><td class="n">{{.Backlog}}</td></tr></tbody>
</table>
{{- if .Error}}
<p class="index-error">Sending stopped: {{.Error}}</p>
{{- end}}
{{- if .Failures}}
<table class="index-failures fixed">
<thead><tr><th>URL</th><th>why the index refused it</th></tr></thead>
<tbody>
{{- range .Failures}}
<tr><td class="u">{{.URL}}</td><td>{{.Reason}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- end}}
{{- end}}

{{- with .QA}}
<h2 id="qa">Quality assurance</h2>
<p>amber qa loaded the crawl's pages in headless Chromium through a replay of the crawl and compared each with its capture ({{.Checked}}{{if .Prev}}; the previous run in parentheses{{end}}): <a href="{{.File}}">{{.File}}</a> has every page.{{if .Stale}} <b class="qa-stale">The crawl ran again after this (a patch crawl?): run amber qa again to check it as it is now.</b>{{end}}</p>
<div class="figures" id="qa-figures">
<div class="figure" id="qa-pages"><div class="v">{{.Figures.Pages}}{{with .Previous}} ({{.Pages}}){{end}}</div><div class="l">pages checked</div></div>
<div class="figure" id="qa-failed"><div class="v">{{.Figures.Failed}}{{with .Previous}} ({{.Failed}}){{end}}</div><div class="l">could not be loaded</div></div>
<div class="figure" id="qa-text"><div class="v">{{if .Figures.TextN}}{{printf "%.3f" .Figures.TextMean}}{{else}}-{{end}}{{with .Previous}}{{if .TextN}} ({{printf "%.3f" .TextMean}}){{end}}{{end}}</div><div class="l">mean text score of {{.Figures.TextN}} pages; {{.Figures.TextBelow}} under 0.95</div></div>
<div class="figure" id="qa-pixel"><div class="v">{{if .Figures.PixelN}}{{printf "%.3f" .Figures.PixelMean}}{{else}}-{{end}}{{with .Previous}}{{if .PixelN}} ({{printf "%.3f" .PixelMean}}){{end}}{{end}}</div><div class="l">mean pixel score of {{.Figures.PixelN}} pages; {{.Figures.PixelBelow}} under 0.95</div></div>
<div class="figure" id="qa-missing"><div class="v">{{.Figures.Missing}}{{with .Previous}} ({{.Missing}}){{end}}</div><div class="l">URLs missing, on {{.Figures.WithMissing}} pages</div></div>
<div class="figure" id="qa-console"><div class="v">{{.Figures.Console}}{{with .Previous}} ({{.Console}}){{end}}</div><div class="l">console errors, on {{.Figures.WithConsole}} pages</div></div>
</div>
<h3>The worst pages first</h3>
<div class="scroll">
<table id="qa-pages-table" class="fixed">
<colgroup><col style="width:170px"><col style="width:170px"><col><col style="width:5em"><col style="width:5em"><col style="width:5em"><col style="width:5em"></colgroup>
<thead><tr><th>capture</th><th>replay</th><th>page</th><th class="n">text</th><th class="n">pixels</th><th class="n">missing</th><th class="n">console</th></tr></thead>
<tbody>
{{- range .Worst}}
<tr><td>{{if .CaptureImg}}<img class="thumb" src="{{.CaptureImg}}" alt="at capture">{{else}}<span class="note">none</span>{{end}}</td><td>{{if .ReplayImg}}<img class="thumb" src="{{.ReplayImg}}" alt="in replay">{{else}}<span class="note">none</span>{{end}}</td><td class="u">{{.URL}}{{if .Error}}<div class="qa-error">{{.Error}}</div>{{end}}{{if .DiffHref}}<div><a href="{{.DiffHref}}">difference</a></div>{{end}}</td><td class="n">{{.TextText}}</td><td class="n">{{.PixelText}}</td><td class="n">{{len .Missing}}</td><td class="n">{{len .Console}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- if .WorstMore}}
<p>{{.WorstMore}} more pages in <a href="{{.File}}">{{.File}}</a>.</p>
{{- end}}
<h3>Missing URLs by host and type</h3>
{{- if .Groups}}
<div class="scroll">
<table id="qa-missing-table" class="fixed">
<colgroup><col style="width:18%"><col style="width:8em"><col style="width:5em"><col style="width:5em"><col></colgroup>
<thead><tr><th>host</th><th>type</th><th class="n">URLs</th><th class="n">pages</th><th>URLs (the page that asked; what the crawl did)</th></tr></thead>
<tbody>
{{- range .Groups}}
<tr data-host="{{.Host}}" data-type="{{.Type}}"><td class="c" title="{{.Host}}">{{.Host}}</td><td class="c">{{.Type}}</td><td class="n">{{.Count}}</td><td class="n">{{.Pages}}</td><td class="u">{{range .URLs}}<div>{{.URL}} <span class="note">({{.Page}}{{if gt .Pages 1}} and {{.Pages}} pages in all{{end}}{{if .Crawl}}; crawl: {{.Crawl}}{{else}}; never seen by the crawl{{end}})</span></div>{{end}}{{if .More}}<div class="note">and {{.More}} more</div>{{end}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- else}}
<p id="qa-missing-none">None: the archive answered every request of every page checked.</p>
{{- end}}
{{- end}}

<h2 id="settings">Settings</h2>
{{- range .Settings}}
<p>crawl.yaml of the crawl directory {{range $i, $d := .Dirs}}{{if $i}}, {{end}}<code>{{$d}}</code>{{end}}{{if .Missing}}: none{{end}}{{if .Truncated}} (only its first 256 KiB){{end}}</p>
{{- if not .Missing}}
<pre class="settings">{{.Text}}</pre>
{{- end}}
{{- end}}

<h2 id="outputs">Outputs</h2>
{{- range .Outputs}}
<h3>{{.Title}}</h3>
<ul class="outputs">
{{- range .Links}}
<li><a href="{{.Href}}">{{.Name}}</a> <span class="note">{{.Note}}</span></li>
{{- end}}
{{- if .More}}
<li>and {{.More}} more WARC files</li>
{{- end}}
</ul>
{{- end}}

<script>
(function () {
  "use strict";
  var hostSel = document.getElementById("filter-host");
  var reasonSel = document.getElementById("filter-reason");
  var rows = document.querySelectorAll("#scope-urls tbody tr");
  var shown = document.getElementById("shown-count");

  function apply() {
    var h = hostSel.value, r = reasonSel.value, n = 0;
    for (var i = 0; i < rows.length; i++) {
      var ok = (!h || rows[i].getAttribute("data-host") === h) &&
               (!r || rows[i].getAttribute("data-reason") === r);
      rows[i].hidden = !ok;
      if (ok) { n++; }
    }
    shown.textContent = String(n);
  }

  function select(sel, value) {
    for (var i = 0; i < sel.options.length; i++) {
      if (sel.options[i].value === value) { sel.selectedIndex = i; return; }
    }
  }

  // A link to report.html#host=H&reason=R opens with the filter set.
  var params = new URLSearchParams(location.hash.replace(/^#/, ""));
  if (params.has("host")) { select(hostSel, params.get("host")); }
  if (params.has("reason")) { select(reasonSel, params.get("reason")); }

  hostSel.addEventListener("change", apply);
  reasonSel.addEventListener("change", apply);
  apply();
  document.body.setAttribute("data-ready", "true");
})();
</script>
</body>
</html>
`))
