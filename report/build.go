package report

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/internal/varrec"
	"github.com/amber-crawler/amber/novelty"
	"github.com/amber-crawler/amber/status"
)

// record is one URL, merged from the frontier and crawl.log (the last crawl.log line wins).
type record struct {
	url, host       string
	status          int
	size            int64 // content size (Line.ContentSize): the whole response; <0 none
	mime            string
	hops, via, seed string
	reason          string       // scope reason, for rejected URLs
	state           status.State // frontier state, "" if the frontier did not report the URL
	dup             bool         // a duplicate by payload digest (revisit record)
	logged          bool         // has a crawl.log line
	kind            Outcome
	rank            rank // where the URL was first met
	// text is how much of the response's text was new (crawl.log's textShingles, textNew),
	// when hasText.
	text    novelty.Measure
	hasText bool
}

// rank orders URLs by where they were first met: frontier entries (in the order given) before
// URLs only in crawl.log (in line order).
type rank struct {
	src int
	seq uint64
}

func (a rank) less(b rank) bool { return a.src < b.src || (a.src == b.src && a.seq < b.seq) }

// counts are the figures kept per host and for the whole crawl. Each URL adds to one of
// captured, robots, blocked, outOfScope, queued and failed; a captured one also to one of
// novel, dup and notModified.
type counts struct {
	captured, bytes               int64
	novel, novelBytes             int64
	dup, dupBytes                 int64
	notModified, notModifiedBytes int64
	robots, blocked, outOfScope   int64
	queued, failed                int64
	reasons                       map[string]int64 // out-of-scope URLs by scope reason
	// fromSitemap counts the URLs listed in a sitemap file (FromSitemap), whatever became
	// of them; fromSitemapCaptured those of them captured.
	fromSitemap, fromSitemapCaptured int64
}

// add counts a classified record.
func (c *counts) add(r *record) {
	size := max(r.size, 0)
	switch r.kind {
	case OutcomeCaptured:
		c.captured++
		c.bytes += size
		// As Heritrix's CrawledBytesHistotable: a 304 is not-modified whatever its annotations
		// (a recrawl's is annotated duplicate:server-not-modified), a revisit of a payload
		// captured before is a duplicate by hash, the rest is novel.
		switch {
		case r.status == 304:
			c.notModified++
			c.notModifiedBytes += size
		case r.dup:
			c.dup++
			c.dupBytes += size
		default:
			c.novel++
			c.novelBytes += size
		}
	case OutcomeRobots:
		c.robots++
	case OutcomeBlocked:
		c.blocked++
	case OutcomeOutOfScope:
		c.outOfScope++
		if c.reasons == nil {
			c.reasons = map[string]int64{}
		}
		c.reasons[r.reason]++
	case OutcomeQueued:
		c.queued++
	case OutcomeFailed:
		c.failed++
	}
	if FromSitemap(r.hops) {
		c.fromSitemap++
		if r.kind == OutcomeCaptured {
			c.fromSitemapCaptured++
		}
	}
}

// hostStats are the per-host figures of the hosts and scope reports.
type hostStats struct {
	host string
	counts
	total          int64 // URLs of the host, whatever became of them
	inFrontier     bool  // the crawler had URLs of this host to fetch
	loc            location
	suggestion     string
	suggestionFrom int64 // number of URLs the suggestion would bring in
	// left is the number of the host's blocked and out-of-scope URLs; they are in the
	// summary's leftOut file from offset off on, by URL.
	left int64
	off  int64
}

type tally struct {
	key   string
	count int64
	bytes int64
}

// seedRow is one seed in the seeds report.
type seedRow struct {
	url, typ  string
	status    int
	crawled   bool
	redirect  string // the seed's redirect target (its "R" outlink), "" if none
	final     string // where the redirect chain ends
	finalCode int
}

// summary is everything the reports show, computed once from an Input. Its size grows with
// the number of hosts, seeds, MIME types, status codes and scope reasons, not with the number
// of URLs: the URLs left out, listed by the scope reports, stay in the leftOut file.
type summary struct {
	in     Input
	hosts  []*hostStats // all hosts, sorted by total URLs desc, then name
	mimes  []tally      // captured URLs by MIME type, sorted by count desc, then name
	codes  []tally      // captured URLs by status, sorted by count desc, then code
	seeds  []seedRow    // in seeds-report order
	counts              // the whole crawl
	// Heritrix's URI counts of crawl-report.txt: every URL finished, split into those with a
	// response, those that failed, and those disregarded (status.Disregarded).
	processed, successes, failures, disregards int64
	duration                                   time.Duration
	ended                                      time.Time

	left        int64           // URLs left out: blocked or out of scope
	leftReasons map[string]bool // their reasons
	leftOut     string          // file of their left records, by host, then URL

	timeline timeline // captures and failures over time
	// feedLinks are the feeds read (a crawl.log line annotated feed:KIND:N), each with the
	// number of item links it listed (N of its last line).
	feedLinks   map[string]int64
	failedFirst []failedURL // the first htmlMaxFailed URLs that failed, by URL
	failedList  string      // file of all of them, as FailedFile lists them
	reportsDir  string      // where the reports go (report.html's links are relative to it)

	// content counts the crawl.log lines of the content filters and POSTs (content.go).
	content contentStats
	// subs counts the captures of each subcollection (lines annotated sub:NAME; subcoll.go).
	subs map[string]*subStats
	// waste is the waste report (waste.go); textMeasured says some capture's text was
	// measured.
	waste        Waste
	textMeasured bool
}

// failedURL is a URL that failed (OutcomeFailed).
type failedURL struct {
	URL, Hops, Via string
	Status         int
}

// summarize reads the frontier's URLs and crawl.log in in, merges them URL by URL and
// computes every figure. Temporary files go to tmp; the summary's leftOut file is one of them.
func summarize(in Input, tmp string, budget int) (*summary, error) {
	s := &summary{in: in, leftReasons: map[string]bool{}}
	s.timeline.start(in.Started)
	a, err := newAccumulator(s, tmp, budget)
	if err != nil {
		return nil, err
	}
	defer a.failed.Close()
	onLine := func(l *Line) {
		s.timeline.add(l)
		s.addFeed(l)
		s.addContent(l)
		s.addSub(l)
	}
	ended, err := eachRecord(in, tmp, budget, onLine, a.add)
	if err != nil {
		return nil, err
	}
	s.ended = ended
	if err := a.finish(); err != nil {
		return nil, err
	}
	s.setDuration()
	return s, nil
}

// Sources of a merge item: a frontier entry or a crawl.log line.
const (
	srcURL  = 0
	srcLine = 1
)

// An item is a frontier entry or a crawl.log line, encoded so that items sort byte by byte
// by URL, then source (frontier entries first), then the order they came in:
//
//	URL (appendKey) | source (1 byte) | sequence (8 bytes, big-endian) | fields
//
// The fields, length-prefixed or varints: of a frontier entry host, state, status, reason,
// hops, via, seed; of a line status, content size, MIME, duplicate (1 byte), hops, via, seed,
// scope reason, the text measure's shingles and new shingles (-1 and -1 for none).

func encodeURLItem(b []byte, seq uint64, u *URLState) []byte {
	b = appendItemKey(b, u.URL, srcURL, seq)
	b = varrec.AppendString(b, u.Host)
	b = varrec.AppendString(b, string(u.State))
	b = binary.AppendVarint(b, int64(u.Status))
	b = varrec.AppendString(b, u.Reason)
	b = varrec.AppendString(b, u.Hops)
	b = varrec.AppendString(b, u.Via)
	return varrec.AppendString(b, u.Seed)
}

func encodeLineItem(b []byte, seq uint64, l *Line) []byte {
	b = appendItemKey(b, l.URL, srcLine, seq)
	b = binary.AppendVarint(b, int64(l.Status))
	b = binary.AppendVarint(b, l.ContentSize())
	b = varrec.AppendString(b, l.MIME)
	dup := byte(0)
	if isDuplicate(l) {
		dup = 1
	}
	b = append(b, dup)
	b = varrec.AppendString(b, l.Hops)
	b = varrec.AppendString(b, l.Via)
	b = varrec.AppendString(b, l.Seed)
	b = varrec.AppendString(b, lineReason(*l))
	m, ok := l.Text()
	if !ok {
		m = novelty.Measure{Shingles: -1, New: -1}
	}
	b = binary.AppendVarint(b, int64(m.Shingles))
	return binary.AppendVarint(b, int64(m.New))
}

func appendItemKey(b []byte, u string, src byte, seq uint64) []byte {
	b = appendKey(b, u)
	b = append(b, src)
	return binary.BigEndian.AppendUint64(b, seq)
}

// eachRecord merges the frontier's URLs and crawl.log of in into one record per URL and
// calls fn for each, in URL order, settled. fn may keep the record. onLine, when not nil, sees
// every crawl.log line first, in time order. eachRecord returns the time of the latest
// crawl.log line. Items are sorted on disk in tmp when they exceed budget bytes.
func eachRecord(in Input, tmp string, budget int, onLine func(*Line), fn func(*record) error) (time.Time, error) {
	srt := newSorter(tmp, budget, sortFanIn)
	var buf []byte
	var seq uint64
	var addErr error // the sorter's, as opposed to EachURL's own
	addURL := func(u URLState) error {
		buf = encodeURLItem(buf[:0], seq, &u)
		seq++
		addErr = srt.add(buf)
		return addErr
	}
	for _, u := range in.URLs {
		if err := addURL(u); err != nil {
			return time.Time{}, err
		}
	}
	if in.EachURL != nil {
		if err := in.EachURL(addURL); addErr != nil {
			return time.Time{}, addErr
		} else if err != nil {
			return time.Time{}, fmt.Errorf("report: read frontier: %w", err)
		}
	}
	var last time.Time
	seq = 0
	addLine := func(l Line) error {
		if l.Time.After(last) {
			last = l.Time
		}
		if onLine != nil {
			onLine(&l)
		}
		buf = encodeLineItem(buf[:0], seq, &l)
		seq++
		return srt.add(buf)
	}
	for _, l := range in.Lines {
		if err := addLine(l); err != nil {
			return time.Time{}, err
		}
	}
	logs := in.CrawlLogs
	if in.CrawlLog != "" {
		logs = append([]string{in.CrawlLog}, logs...)
	}
	if err := eachCrawlLogLine(logs, func(l Line, _ string) error { return addLine(l) }); err != nil {
		return time.Time{}, err
	}
	items, err := srt.sorted()
	if err != nil {
		return time.Time{}, err
	}
	defer items.Close()
	strs := interner{}
	var r *record
	for {
		it, ok, err := items.next()
		if err != nil {
			return time.Time{}, err
		}
		u, rest, kok := cutKey(it)
		if ok && !kok {
			return time.Time{}, errCorruptRun
		}
		if r != nil && (!ok || string(u) != r.url) {
			r.settle()
			if err := fn(r); err != nil {
				return time.Time{}, err
			}
			r = nil
		}
		if !ok {
			return last, nil
		}
		if len(rest) < 9 {
			return time.Time{}, errCorruptRun
		}
		if r == nil {
			r = &record{url: string(u), size: -1, rank: rank{src: int(rest[0]), seq: binary.BigEndian.Uint64(rest[1:9])}}
		}
		d := varrec.NewDecoder(rest[9:], errCorruptRun)
		if rest[0] == srcURL {
			r.addURL(&d, strs)
		} else {
			r.addLine(&d, strs)
		}
		if err := d.Err(); err != nil {
			return time.Time{}, err
		}
	}
}

// addURL records what the frontier knows of the URL.
func (r *record) addURL(d *varrec.Decoder, in interner) {
	host := in.str(d)
	r.state, r.status, r.reason = status.State(in.str(d)), int(d.Varint()), in.str(d)
	r.hops, r.via, r.seed = in.str(d), d.Str(), in.str(d)
	r.host = hostOf(r.url, host)
}

// addLine overlays a crawl.log line about the URL (a later line wins).
func (r *record) addLine(d *varrec.Decoder, in interner) {
	r.logged = true
	r.status, r.size, r.mime = int(d.Varint()), d.Varint(), in.str(d)
	r.dup = d.Byte() == 1
	hops, via, seed, why := in.str(d), d.Str(), in.str(d), in.str(d)
	sh, nw := d.Varint(), d.Varint()
	r.text, r.hasText = novelty.Measure{Shingles: int(max(sh, 0)), New: int(max(nw, 0))}, sh >= 0
	// crawl.log abbreviates a long hop path ("N+…"); the frontier's is whole.
	if hops != "" && (r.hops == "" || !strings.Contains(hops, "+")) {
		r.hops = hops
	}
	if via != "" {
		r.via = via
	}
	if seed != "" {
		r.seed = seed
	}
	if why != "" {
		r.reason = why
	}
	if r.host == "" {
		r.host = hostOf(r.url, "")
	}
}

// settle fills in what the merged sources left open (host, the reason of a URL left out
// without one) and classifies the record.
func (r *record) settle() {
	if r.host == "" {
		r.host = hostOf(r.url, "")
	}
	if r.reason == "" && r.status != status.Robots && (r.state == status.Rejected || status.Disregarded(r.status)) {
		r.reason = reasonOutOfScope
	}
	r.kind = classify(r.status, r.reason, r.state, r.logged)
}

// accumulator adds records, one at a time, to a summary's figures. What it keeps grows with
// hosts, seeds, MIME types and status codes; the URLs left out go to a sorter.
type accumulator struct {
	s      *summary
	hosts  map[string]*hostStats
	mimes  map[string]*tally
	codes  map[int]*tally
	seeds  map[string]bool    // seed URLs
	byURL  map[string]*record // records of seeds and of redirect chains from seeds
	chains []*record          // records on a redirect chain, reached from a seed
	left   *sorter            // leftRecords
	waste  *sorter            // waste items of the captures (waste.go)
	failed *os.File           // the summary's failedList
	failW  *bufio.Writer      // on failed
	tmp    string
	buf    []byte
}

func newAccumulator(s *summary, tmp string, budget int) (*accumulator, error) {
	a := &accumulator{
		s: s, hosts: map[string]*hostStats{}, mimes: map[string]*tally{}, codes: map[int]*tally{},
		seeds: map[string]bool{}, byURL: map[string]*record{}, tmp: tmp,
		left: newSorter(tmp, budget, sortFanIn), waste: newSorter(tmp, budget, sortFanIn),
	}
	for _, sd := range s.in.Seeds {
		a.seeds[sd.URL] = true
	}
	s.failedList = filepath.Join(tmp, "failed")
	f, err := os.Create(s.failedList)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	a.failed, a.failW = f, bufio.NewWriterSize(f, 64<<10)
	return a, nil
}

// add counts a settled record: in its host's figures, the crawl's totals, the MIME and status
// tallies and Heritrix's URI counts; a URL left out is kept for the scope reports.
func (a *accumulator) add(r *record) error {
	s := a.s
	h := a.hosts[r.host]
	if h == nil {
		h = &hostStats{host: r.host}
		a.hosts[r.host] = h
	}
	h.total++
	h.counts.add(r)
	s.counts.add(r)
	s.countURI(r)
	switch r.kind {
	case OutcomeCaptured:
		size := max(r.size, 0)
		addTally(a.mimes, normMIME(r.mime), normMIME(r.mime), size)
		addTally(a.codes, r.status, itoa(r.status), size)
		h.inFrontier = true
		s.textMeasured = s.textMeasured || r.hasText
		a.buf = encodeWasteItem(a.buf[:0], r)
		if err := a.waste.add(a.buf); err != nil {
			return err
		}
	case OutcomeFailed:
		h.inFrontier = true
		if len(s.failedFirst) < htmlMaxFailed {
			s.failedFirst = append(s.failedFirst, failedURL{URL: r.url, Hops: r.hops, Via: r.via, Status: r.status})
		}
		a.failW.WriteString(failedLine(r.status, r.url, r.hops, r.via))
	case OutcomeRobots, OutcomeQueued:
		h.inFrontier = true
	case OutcomeBlocked, OutcomeOutOfScope:
		h.left++
		h.loc.add(r)
		s.left++
		s.leftReasons[r.reason] = true
		a.buf = encodeLeft(a.buf[:0], r)
		if err := a.left.add(a.buf); err != nil {
			return err
		}
	}
	if a.seeds[r.url] {
		a.byURL[r.url] = r
	}
	if r.via != "" && r.hops != "" && hop.IsRedirectChain(r.hops) {
		a.byURL[r.url] = r
		a.chains = append(a.chains, r)
	}
	return nil
}

// finish orders hosts and tallies, makes the seeds report's rows and writes the URLs left out,
// sorted by host and URL, to the summary's leftOut file.
func (a *accumulator) finish() error {
	s := a.s
	s.processed = s.successes + s.failures + s.disregards
	for _, h := range a.hosts {
		h.suggestion, h.suggestionFrom = h.loc.suggestion()
		s.hosts = append(s.hosts, h)
	}
	sort.Slice(s.hosts, func(i, j int) bool {
		a, b := s.hosts[i], s.hosts[j]
		if a.total != b.total {
			return a.total > b.total
		}
		return a.host < b.host
	})
	s.mimes, s.codes = sortedTallies(a.mimes), sortedTallies(a.codes)
	s.seeds = seedRows(s.in.Seeds, a.byURL, a.chains)
	if err := a.failW.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	items, err := a.waste.sorted()
	if err != nil {
		return err
	}
	defer items.Close()
	if s.waste, err = (&wasteAnalysis{tmp: a.tmp}).analyse(items, s.textMeasured); err != nil {
		return err
	}
	return a.writeLeft()
}

// failedLine is a line of FailedFile: status, URL, hop path and via, "-" for an empty one.
func failedLine(code int, u, hops, via string) string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	return itoa(code) + " " + dash(u) + " " + dash(hops) + " " + dash(via) + "\n"
}

// countURI adds a record to Heritrix's URI counts: a logged line counts by its status, a URL
// captured without one (its line lost to a kill) as a success.
func (s *summary) countURI(r *record) {
	switch {
	case r.logged && r.status > 0, !r.logged && r.kind == OutcomeCaptured:
		s.successes++
	case r.logged && status.Disregarded(r.status):
		s.disregards++
	case r.logged:
		s.failures++
	}
}

// addTally counts one URL of size bytes under key k, labelled label.
func addTally[K comparable](m map[K]*tally, k K, label string, size int64) {
	t := m[k]
	if t == nil {
		t = &tally{key: label}
		m[k] = t
	}
	t.count++
	t.bytes += size
}

// setDuration sets the crawl's end (Input.Ended, else its last crawl.log line) and duration.
func (s *summary) setDuration() {
	if !s.in.Ended.IsZero() {
		s.ended = s.in.Ended
	}
	if !s.in.Started.IsZero() && s.ended.After(s.in.Started) {
		s.duration = s.ended.Sub(s.in.Started)
	}
}

// hostOf returns the host a URL is counted under: the lowercased host name without port,
// "dns:" for Heritrix's DNS lookups, or fallback when the URL does not parse.
func hostOf(raw, fallback string) string {
	if strings.HasPrefix(raw, "dns:") {
		return "dns:"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if fallback != "" {
			return strings.ToLower(fallback)
		}
		return "-"
	}
	return strings.ToLower(u.Hostname())
}

// addFeed records a feed read: a line annotated "feed:KIND:N" (KIND rss or atom).
func (s *summary) addFeed(l *Line) {
	for _, a := range l.Annotations {
		rest, ok := strings.CutPrefix(a, "feed:")
		if !ok {
			continue
		}
		kind, n, ok := strings.Cut(rest, ":")
		if !ok || (kind != "rss" && kind != "atom") {
			continue
		}
		links, err := strconv.ParseInt(n, 10, 64)
		if err != nil || links < 0 {
			continue
		}
		if s.feedLinks == nil {
			s.feedLinks = map[string]int64{}
		}
		s.feedLinks[l.URL] = links
	}
}

// isDuplicate reports whether a line is a revisit of an already captured payload.
func isDuplicate(l *Line) bool {
	for _, a := range l.Annotations {
		if strings.HasPrefix(a, "duplicate") {
			return true
		}
	}
	return false
}

// normMIME lowercases a MIME type and drops its parameters; empty becomes "unknown", as a
// response without a Content-Type is in Heritrix's mimetype report.
func normMIME(m string) string {
	m, _, _ = strings.Cut(m, ";")
	m = strings.ToLower(strings.TrimSpace(m))
	if m == "" || m == "-" || m == NoType {
		return UnknownType
	}
	return m
}

// sortedTallies returns the tallies by count, descending, then by label.
func sortedTallies[K comparable](m map[K]*tally) []tally {
	ts := make([]tally, 0, len(m))
	for _, t := range m {
		ts = append(ts, *t)
	}
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].count != ts[j].count {
			return ts[i].count > ts[j].count
		}
		return ts[i].key < ts[j].key
	})
	return ts
}

// maxRedirects bounds how far the seeds report follows a seed's redirect chain.
const maxRedirects = 10

// seedRows builds the seeds report rows in Heritrix's order (sortSeedRows), one per distinct
// seed. byURL holds the records of the seeds and of chains, the records on a redirect chain
// from a seed.
func seedRows(seeds []SeedInfo, byURL map[string]*record, chains []*record) []seedRow {
	redirects := redirectTargets(chains)
	seen := map[string]bool{}
	var rows []seedRow
	for _, sd := range seeds {
		if seen[sd.URL] {
			continue
		}
		seen[sd.URL] = true
		rows = append(rows, newSeedRow(sd, byURL, redirects))
	}
	sortSeedRows(rows)
	return rows
}

// redirectTargets maps a URL to the target of its redirect: the URL discovered on it with a
// hop path made only of redirects (a seed's redirect targets are "R", "RR", …). Of several,
// the one met first wins.
func redirectTargets(chains []*record) map[string]string {
	slices.SortStableFunc(chains, func(a, b *record) int {
		switch {
		case a.rank.less(b.rank):
			return -1
		case b.rank.less(a.rank):
			return 1
		}
		return 0
	})
	redirects := map[string]string{}
	for _, r := range chains {
		if _, ok := redirects[r.via]; !ok {
			redirects[r.via] = r.url
		}
	}
	return redirects
}

// newSeedRow is a seed's row: its status (0 if it was never tried), its redirect target and
// where its redirect chain ends.
func newSeedRow(sd SeedInfo, byURL map[string]*record, redirects map[string]string) seedRow {
	row := seedRow{url: sd.URL, typ: sd.Type}
	if r := byURL[sd.URL]; r != nil && (r.logged || r.state == status.Done || r.state == status.Failed || r.status != 0) {
		row.status = r.status
	}
	row.crawled = row.status > 0
	if isRedirect(row.status) {
		row.redirect = redirects[sd.URL]
	}
	row.final, row.finalCode = sd.URL, row.status
	cur := sd.URL
	for range maxRedirects {
		next, ok := redirects[cur]
		r := byURL[cur]
		if !ok || r == nil || !isRedirect(r.status) {
			break
		}
		cur = next
		row.final = cur
		row.finalCode = 0
		if nr := byURL[cur]; nr != nil {
			row.finalCode = nr.status
		}
	}
	return row
}

func isRedirect(code int) bool { return code >= 300 && code < 400 }

// sortSeedRows orders seed rows as Heritrix's seeds report: never-fetched seeds (code 0)
// first, then negative codes by ascending absolute value, then positive codes descending;
// equal codes by URL.
func sortSeedRows(rows []seedRow) {
	key := func(code int) int32 {
		// Heritrix's comparator: mirror and shift the number line (int32 wrap-around intended).
		c := int32(code)
		return -c - 2147483647
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].status == rows[j].status {
			return rows[i].url < rows[j].url
		}
		return key(rows[i].status) < key(rows[j].status)
	})
}

// location is what the URLs of one host left out only for being outside the seeds' scope
// (reason "out-of-scope"; rules cannot override block, hop or trap decisions) share: the host,
// the port if they all have the same one, and the longest common directory. n counts them.
type location struct {
	host, port, dir string
	samePort        bool
	n               int64
}

// add adds a URL of the host to the location, if it was left out only for being outside the
// seeds' scope. The order URLs are added in does not matter.
func (c *location) add(r *record) {
	if r.kind != OutcomeOutOfScope || r.reason != reasonOutOfScope {
		return
	}
	u, err := url.Parse(r.url)
	if err != nil || u.Host == "" {
		return
	}
	p := u.Port()
	if (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		p = ""
	}
	d := u.EscapedPath()
	if d == "" {
		d = "/"
	}
	d = d[:strings.LastIndexByte(d, '/')+1]
	if c.n == 0 {
		*c = location{host: strings.ToLower(u.Hostname()), port: p, dir: d, samePort: true}
	} else {
		c.samePort = c.samePort && p == c.port
		c.dir = commonDir(c.dir, d)
	}
	c.n++
}

// suggestion returns the accept rule that would bring in the URLs added, and how many there
// are: the longest directory shared by all of them (surt:http://(org,example,)/dir/) or, when
// they share none, the host and its subdomains (surt:http://(org,example,).
func (c *location) suggestion() (string, int64) {
	if c.n == 0 {
		return "", 0
	}
	return c.rule(), c.n
}

// rule is the SURT prefix accept rule for a location: its directory when the URLs share one
// and a port, else the host (and its subdomains, for a name).
func (c location) rule() string {
	rev := surtHost(c.host)
	isIP := net.ParseIP(c.host) != nil
	if c.samePort && len(c.dir) > 1 {
		hp := rev
		if !isIP {
			hp += ","
		}
		if c.port != "" {
			hp += ":" + c.port
		}
		return "surt:http://(" + hp + ")" + strings.ToLower(c.dir)
	}
	if isIP {
		if c.samePort && c.port != "" {
			return "surt:http://(" + rev + ":" + c.port + ")/"
		}
		if c.samePort {
			return "surt:http://(" + rev + ")/"
		}
		return "surt:http://(" + rev
	}
	return "surt:http://(" + rev + ","
}

// surtHost returns a host's labels reversed and comma-joined ("www.example.org" →
// "org,example,www"); IP addresses are kept as they are.
func surtHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if net.ParseIP(host) != nil {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	return strings.Join(labels, ",")
}

// commonDir returns the longest directory ("/a/b/") that is a prefix of both a and b.
func commonDir(a, b string) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return a[:strings.LastIndexByte(a[:i], '/')+1]
}
