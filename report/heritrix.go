package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The Heritrix 3 reports. Headers, columns, orders and number formats follow Heritrix 3's
// org.archive.crawler.reporting classes (SeedsReport, HostsReport, MimetypesReport,
// ResponseCodeReport, CrawlSummaryReport) and ArchiveUtils' formatting helpers, so tools
// that parse Heritrix reports parse these.

const (
	seedsHeader        = "[code] [status] [seed] [redirect]\n"
	hostsHeader        = "[#urls] [#bytes] [host] [#robots] [#remaining] [#novel-urls] [#novel-bytes] [#dup-by-hash-urls] [#dup-by-hash-bytes] [#not-modified-urls] [#not-modified-bytes]\n"
	mimetypeHeader     = "[#urls] [#bytes] [mime-types]\n"
	responseCodeHeader = "[#urls] [rescode]\n"
)

func itoa(n int) string { return strconv.Itoa(n) }

// seedsReport: one line per seed, "CODE CRAWLED|NOTCRAWLED SEED [REDIRECT]".
func (s *summary) seedsReport() []byte {
	var b bytes.Buffer
	b.WriteString(seedsHeader)
	for _, r := range s.seeds {
		b.WriteString(itoa(r.status))
		if r.crawled {
			b.WriteString(" CRAWLED ")
		} else {
			b.WriteString(" NOTCRAWLED ")
		}
		b.WriteString(field(r.url))
		if r.redirect != "" {
			b.WriteByte(' ')
			b.WriteString(field(r.redirect))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// hostsReport: hosts the crawler had URLs to fetch on, by URLs captured (descending), each
// field followed by a space as Heritrix writes them.
func (s *summary) hostsReport() []byte {
	var b bytes.Buffer
	b.WriteString(hostsHeader)
	for _, h := range s.hostsByCaptured() {
		for _, f := range []string{
			i64(h.captured), i64(h.bytes), h.host, i64(h.robots), i64(h.queued),
			i64(h.novel), i64(h.novelBytes), i64(h.dup), i64(h.dupBytes), i64(h.notModified), i64(h.notModifiedBytes),
		} {
			b.WriteString(f)
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// hostsByCaptured returns the hosts of the hosts report: those with URLs captured, failed,
// denied by robots.txt or left queued (hosts only ever seen out of scope are in the scope
// report), ordered by URLs captured descending, then by name.
func (s *summary) hostsByCaptured() []*hostStats {
	var hs []*hostStats
	for _, h := range s.hosts {
		if h.inFrontier {
			hs = append(hs, h)
		}
	}
	sortHosts(hs, func(h *hostStats) int64 { return h.captured })
	return hs
}

func (s *summary) mimetypeReport() []byte {
	var b bytes.Buffer
	b.WriteString(mimetypeHeader)
	for _, t := range s.mimes {
		fmt.Fprintf(&b, "%d %d %s\n", t.count, t.bytes, field(t.key))
	}
	return b.Bytes()
}

func (s *summary) responseCodeReport() []byte {
	var b bytes.Buffer
	b.WriteString(responseCodeHeader)
	for _, t := range s.codes {
		fmt.Fprintf(&b, "%d %s\n", t.count, t.key)
	}
	return b.Bytes()
}

// crawlStatus maps an EndReason to Heritrix's CrawlStatus description.
func crawlStatus(reason string) string {
	kind, detail, _ := strings.Cut(reason, ":")
	switch kind {
	case "finished":
		return "Finished"
	case "cancelled":
		return "Finished - Ended by operator"
	case "failed":
		return "Finished - Abnormal exit from crawling"
	case EndDiskFull:
		// Heritrix's DiskSpaceMonitor pauses the crawl with this reason.
		return "Finished - Low disk space"
	case "limit":
		switch detail {
		case "time":
			return "Finished - Timelimit hit"
		case "bytes", "size", "data":
			return "Finished - Maximum amount of data limit hit"
		case "documents", "pages", "urls":
			return "Finished - Maximum number of documents limit hit"
		case "":
			return "Finished - Limit hit"
		}
		return "Finished - Limit hit (" + detail + ")"
	case "":
		return "Unfinished"
	}
	return "Finished - " + reason
}

func (s *summary) crawlReport() []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	p("crawl name: %s", s.in.Collection)
	p("crawl status: %s", crawlStatus(s.in.EndReason))
	p("duration: %s", conventionalDuration(s.duration))
	p("")
	var crawled int64
	for _, r := range s.seeds {
		if r.crawled {
			crawled++
		}
	}
	p("seeds crawled: %d", crawled)
	p("seeds uncrawled: %d", int64(len(s.seeds))-crawled)
	p("")
	p("hosts visited: %d", len(s.hostsByCaptured()))
	p("")
	p("URIs processed: %d", s.processed)
	p("URI successes: %d", s.successes)
	p("URI failures: %d", s.failures)
	p("URI disregards: %d", s.disregards)
	p("")
	if s.fromSitemap > 0 {
		// amber's own: URLs listed in sitemap files, and how many of them were captured.
		p("URIs from sitemaps: %d", s.fromSitemap)
		p("URIs from sitemaps captured: %d", s.fromSitemapCaptured)
		p("")
	}
	if len(s.feedLinks) > 0 {
		// amber's own: RSS and Atom feeds read, and the item links they listed.
		var links int64
		for _, n := range s.feedLinks {
			links += n
		}
		p("feeds read: %d", len(s.feedLinks))
		p("feed item links: %d", links)
		p("")
	}
	if lines := s.contentReportLines(); lines != nil {
		// amber's own: the crawl.log lines of the content filters and POSTs.
		for _, l := range lines {
			p("%s", l)
		}
		p("")
	}
	p("novel URIs: %d", s.novel)
	if s.dup > 0 {
		p("duplicate-by-hash URIs: %d", s.dup)
	}
	if s.notModified > 0 {
		p("not-modified URIs: %d", s.notModified)
	}
	p("")
	// Trailing spaces as in Heritrix's CrawlSummaryReport.
	p("total crawled bytes: %d (%s) ", s.bytes, displayBytes(s.bytes))
	p("novel crawled bytes: %d (%s)", s.novelBytes, displayBytes(s.novelBytes))
	if s.dup > 0 {
		p("duplicate-by-hash crawled bytes: %d (%s) ", s.dupBytes, displayBytes(s.dupBytes))
	}
	if s.notModified > 0 {
		p("not-modified crawled bytes: %d (%s) ", s.notModifiedBytes, displayBytes(s.notModifiedBytes))
	}
	p("")
	urisPerSec, kbPerSec := s.rates()
	p("URIs/sec: %s", decimal(urisPerSec, 2, 0))
	p("KB/sec: %d", kbPerSec)
	return b.Bytes()
}

// rates returns captured URLs per second and KiB per second over the crawl's duration.
func (s *summary) rates() (float64, int64) {
	secs := s.duration.Seconds()
	if secs <= 0 {
		return 0, 0
	}
	return float64(s.successes) / secs, int64(float64(s.bytes) / 1024 / secs)
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

// conventionalDuration formats like Heritrix's ArchiveUtils.formatMillisecondsToConventional:
// "5d12h13m12s113ms", units with a zero value left out, "0ms" for zero.
func conventionalDuration(d time.Duration) string {
	ms := d.Milliseconds()
	if ms == 0 {
		return "0ms"
	}
	var b strings.Builder
	if ms < 0 {
		b.WriteByte('-')
		ms = -ms
	}
	units := []struct {
		n    int64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}, {1, "ms"}}
	for _, u := range units {
		if ms >= u.n {
			b.WriteString(i64(ms / u.n))
			b.WriteString(u.name)
			ms %= u.n
		}
	}
	return b.String()
}

// displayBytes formats like Heritrix's ArchiveUtils.formatBytesForDisplay: the largest unit of
// B, KiB, MiB, GiB, TiB, one decimal under 10.
func displayBytes(n int64) string {
	if n <= 0 {
		return "0 B"
	}
	v := float64(n)
	units := []string{" B", " KiB", " MiB", " GiB", " TiB"}
	i := 0
	for v >= 1024 && i < 4 {
		v /= 1024
		i++
	}
	frac := 0
	if v < 10 {
		frac = 1
	}
	return decimal(v, frac, frac) + units[i]
}

// decimal formats v like Java's NumberFormat for Locale.US: grouping commas, at most maxFrac
// and at least minFrac fraction digits, half-even rounding.
func decimal(v float64, maxFrac, minFrac int) string {
	s := strconv.FormatFloat(v, 'f', maxFrac, 64)
	intPart, fracPart, _ := strings.Cut(s, ".")
	for len(fracPart) > minFrac && strings.HasSuffix(fracPart, "0") {
		fracPart = fracPart[:len(fracPart)-1]
	}
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if fracPart != "" {
		b.WriteByte('.')
		b.WriteString(fracPart)
	}
	return b.String()
}
