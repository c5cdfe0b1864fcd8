package report

import (
	"net"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/amber-crawler/amber/hop"
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
	time            time.Time
	kind            Outcome
}

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
}

// add counts a classified record.
func (c *counts) add(r *record) {
	size := max(r.size, 0)
	switch r.kind {
	case OutcomeCaptured:
		c.captured++
		c.bytes += size
		switch {
		case r.dup:
			c.dup++
			c.dupBytes += size
		case r.status == 304:
			c.notModified++
			c.notModifiedBytes += size
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
}

// hostStats are the per-host figures of the hosts and scope reports.
type hostStats struct {
	host string
	counts
	total          int64     // URLs of the host, whatever became of them
	rejected       []*record // blocked and out-of-scope URLs, sorted by URL
	inFrontier     bool      // the crawler had URLs of this host to fetch
	suggestion     string
	suggestionFrom int64 // number of URLs the suggestion would bring in
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

// summary is everything the reports show, computed once from an Input.
type summary struct {
	in      Input
	records []*record
	hosts   []*hostStats // all hosts, sorted by total URLs desc, then name
	mimes   []tally      // captured URLs by MIME type, sorted by count desc, then name
	codes   []tally      // captured URLs by status, sorted by count desc, then code
	seeds   []seedRow    // in seeds-report order
	counts               // the whole crawl
	// Heritrix's URI counts of crawl-report.txt: every URL finished, split into those with a
	// response, those that failed, and those disregarded (status.Disregarded).
	processed, successes, failures, disregards int64
	duration                                   time.Duration
	ended                                      time.Time
}

// summarize merges the frontier's URLs with crawl.log and computes every figure.
func summarize(in Input) *summary {
	s := &summary{in: in}
	rs := newRecordSet(len(in.URLs) + len(in.Lines)/2)
	rs.addFrontier(in.URLs)
	s.ended = rs.addLines(in.Lines)
	s.records = rs.list
	for _, r := range s.records {
		r.settle()
	}
	s.countRecords()
	s.seeds = seedRows(in.Seeds, rs.byURL, s.records)
	s.setDuration()
	return s
}

// recordSet is the records of a crawl, one per URL, in the order they were first seen.
type recordSet struct {
	list  []*record
	byURL map[string]*record
}

func newRecordSet(n int) *recordSet {
	return &recordSet{byURL: make(map[string]*record, n)}
}

// get returns the record of a URL, adding an empty one the first time.
func (rs *recordSet) get(u string) *record {
	r := rs.byURL[u]
	if r == nil {
		r = &record{url: u, size: -1}
		rs.byURL[u] = r
		rs.list = append(rs.list, r)
	}
	return r
}

// addFrontier records what the frontier knows of each URL.
func (rs *recordSet) addFrontier(us []URLState) {
	for i := range us {
		u := &us[i]
		r := rs.get(u.URL)
		r.state, r.status, r.reason = u.State, u.Status, u.Reason
		r.hops, r.via, r.seed = u.Hops, u.Via, u.Seed
		r.host = hostOf(u.URL, u.Host)
	}
}

// addLines overlays crawl.log, line by line (a later line about a URL wins), and returns the
// time of the latest line.
func (rs *recordSet) addLines(ls []Line) time.Time {
	var last time.Time
	for i := range ls {
		l := &ls[i]
		r := rs.get(l.URL)
		r.logged = true
		r.status, r.size, r.mime, r.time = l.Status, l.ContentSize(), l.MIME, l.Time
		r.dup = isDuplicate(l)
		// crawl.log abbreviates a long hop path ("N+…"); the frontier's is whole.
		if l.Hops != "" && (r.hops == "" || !strings.Contains(l.Hops, "+")) {
			r.hops = l.Hops
		}
		if l.Via != "" {
			r.via = l.Via
		}
		if l.Seed != "" {
			r.seed = l.Seed
		}
		if why := lineReason(*l); why != "" {
			r.reason = why
		}
		if r.host == "" {
			r.host = hostOf(l.URL, "")
		}
		if l.Time.After(last) {
			last = l.Time
		}
	}
	return last
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

// countRecords adds every record to its host's figures, the crawl's totals, the MIME and
// status tallies and Heritrix's URI counts, then orders hosts and tallies.
func (s *summary) countRecords() {
	hosts := map[string]*hostStats{}
	mimes := map[string]*tally{}
	codes := map[int]*tally{}
	for _, r := range s.records {
		h := hosts[r.host]
		if h == nil {
			h = &hostStats{host: r.host}
			hosts[r.host] = h
		}
		h.addRecord(r)
		s.counts.add(r)
		s.countURI(r)
		if r.kind == OutcomeCaptured {
			size := max(r.size, 0)
			addTally(mimes, normMIME(r.mime), normMIME(r.mime), size)
			addTally(codes, r.status, itoa(r.status), size)
		}
	}
	s.processed = s.successes + s.failures + s.disregards
	for _, h := range hosts {
		sort.Slice(h.rejected, func(i, j int) bool { return h.rejected[i].url < h.rejected[j].url })
		h.suggestion, h.suggestionFrom = suggestRule(h.rejected)
		s.hosts = append(s.hosts, h)
	}
	sort.Slice(s.hosts, func(i, j int) bool {
		a, b := s.hosts[i], s.hosts[j]
		if a.total != b.total {
			return a.total > b.total
		}
		return a.host < b.host
	})
	s.mimes, s.codes = sortedTallies(mimes), sortedTallies(codes)
}

// addRecord counts a classified record of the host.
func (h *hostStats) addRecord(r *record) {
	h.total++
	h.counts.add(r)
	switch r.kind {
	case OutcomeCaptured, OutcomeRobots, OutcomeQueued, OutcomeFailed:
		h.inFrontier = true
	case OutcomeBlocked, OutcomeOutOfScope:
		h.rejected = append(h.rejected, r)
	}
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
// seed.
func seedRows(seeds []SeedInfo, byURL map[string]*record, recs []*record) []seedRow {
	redirects := redirectTargets(recs)
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
// hop path made only of redirects (a seed's redirect targets are "R", "RR", …).
func redirectTargets(recs []*record) map[string]string {
	redirects := map[string]string{}
	for _, r := range recs {
		if r.via != "" && r.hops != "" && hop.IsRedirectChain(r.hops) {
			if _, ok := redirects[r.via]; !ok {
				redirects[r.via] = r.url
			}
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

// suggestRule returns the accept rule that would bring in a host's URLs left out only for
// being outside the seeds' scope (reason "out-of-scope"; rules cannot override block, hop
// or trap decisions), and how many URLs it covers. It is the longest directory shared by all
// of them (surt:http://(org,example,)/dir/) or, when they share none, the host and its
// subdomains (surt:http://(org,example,).
func suggestRule(rejected []*record) (string, int64) {
	c, n := commonLocation(rejected)
	if n == 0 {
		return "", 0
	}
	return c.rule(), n
}

// location is what a set of URLs of one host share: the host, the port if they all have the
// same one, and the longest common directory.
type location struct {
	host, port, dir string
	samePort        bool
}

// commonLocation returns the location shared by the URLs left out only for being outside
// the seeds' scope, and how many there are.
func commonLocation(rejected []*record) (location, int64) {
	var c location
	var n int64
	for _, r := range rejected {
		if r.kind != OutcomeOutOfScope || r.reason != reasonOutOfScope {
			continue
		}
		u, err := url.Parse(r.url)
		if err != nil || u.Host == "" {
			continue
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
		if n == 0 {
			c = location{host: strings.ToLower(u.Hostname()), port: p, dir: d, samePort: true}
		} else {
			c.samePort = c.samePort && p == c.port
			c.dir = commonDir(c.dir, d)
		}
		n++
	}
	return c, n
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
