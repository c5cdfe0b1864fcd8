package report

import (
	"net"
	"net/url"
	"sort"
	"strings"
	"time"
)

// kind is what became of a URL, as the reports count it.
type kind int

const (
	kindQueued     kind = iota // left in the frontier when the crawl stopped
	kindCaptured               // got a response (any HTTP status): it is in the WARC files
	kindRobots                 // disallowed by robots.txt
	kindBlocked                // out of scope by a block rule
	kindOutOfScope             // out of scope for another reason
	kindFailed                 // no response (network error, retries exhausted)
)

// record is one URL, merged from the frontier and crawl.log (the last crawl.log line wins).
type record struct {
	url, host       string
	status          int
	size            int64
	mime            string
	hops, via, seed string
	reason          string // scope reason, for rejected URLs
	state           string // frontier state, "" if the frontier did not report the URL
	dup             bool   // a duplicate by payload digest (revisit record)
	logged          bool   // has a crawl.log line
	time            time.Time
	kind            kind
}

// hostStats are the per-host figures of the hosts and scope reports.
type hostStats struct {
	host                          string
	captured, bytes               int64
	robots, blocked, outOfScope   int64
	queued, failed                int64
	novel, novelBytes             int64
	dup, dupBytes                 int64
	notModified, notModifiedBytes int64
	reasons                       map[string]int64
	rejected                      []*record // blocked and out-of-scope URLs, sorted by URL
	inFrontier                    bool      // the crawler had URLs of this host to fetch
	total                         int64
	suggestion                    string
	suggestionFrom                int64 // number of URLs the suggestion would bring in
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
	in         Input
	records    []*record
	hosts      []*hostStats // all hosts, sorted by total URLs desc, then name
	mimes      []tally      // captured URLs by MIME type, sorted by count desc, then name
	codes      []tally      // captured URLs by status, sorted by count desc, then code
	seeds      []seedRow    // in seeds-report order
	duration   time.Duration
	ended      time.Time
	processed  int64
	successes  int64
	failures   int64
	disregards int64
	captured   int64
	bytes      int64
	novel      int64
	novelBytes int64
	dup        int64
	dupBytes   int64
	notMod     int64
	notModB    int64
	robots     int64
	blocked    int64
	outOfScope int64
	queued     int64
	failed     int64
	reasons    map[string]int64
}

// isDisregard reports whether a negative status is one Heritrix counts as "disregarded"
// (robots, scope, hops, blocked) rather than as a failure.
func isDisregard(status int) bool {
	switch status {
	case StatusRobots, StatusOutOfScope, -5001, -5002, StatusTooManyHops, -4002, -6000:
		return true
	}
	return false
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

// scopeReasonOf returns the scope reason carried by a crawl.log line's annotations
// ("scope:REASON"), or one implied by its status.
func scopeReasonOf(l *Line) string {
	for _, a := range l.Annotations {
		if r, ok := strings.CutPrefix(a, "scope:"); ok {
			return r
		}
	}
	switch l.Status {
	case StatusTooManyHops, -4002:
		return "max-hops"
	case StatusOutOfScope:
		return "out-of-scope"
	}
	return ""
}

func isDuplicate(l *Line) bool {
	for _, a := range l.Annotations {
		if strings.HasPrefix(a, "duplicate") {
			return true
		}
	}
	return false
}

// normMIME lowercases a MIME type and drops its parameters; empty becomes "unknown".
func normMIME(m string) string {
	m, _, _ = strings.Cut(m, ";")
	m = strings.ToLower(strings.TrimSpace(m))
	if m == "" || m == "-" {
		return "unknown"
	}
	return m
}

func (r *record) classify() kind {
	switch {
	case r.status > 0:
		return kindCaptured
	case r.status == StatusRobots || r.reason == "robots" || r.reason == "blocked-by-robots":
		return kindRobots
	case strings.HasPrefix(r.reason, "block:") || r.status == -5001:
		return kindBlocked
	case r.state == StateRejected || (r.logged && isDisregard(r.status)):
		return kindOutOfScope
	case r.state == StateQueued || r.state == StateInflight:
		return kindQueued
	case r.status < 0 || r.state == StateFailed:
		return kindFailed
	case r.logged || r.state == StateDone:
		// A finished URL with status 0: Heritrix's "nothing happened" code, a failure.
		return kindFailed
	}
	return kindQueued
}

// summarize merges the frontier's URLs with crawl.log and computes every figure.
func summarize(in Input) *summary {
	s := &summary{in: in, reasons: map[string]int64{}}
	byURL := make(map[string]*record, len(in.URLs)+len(in.Lines)/2)
	var recs []*record
	get := func(u string) *record {
		r := byURL[u]
		if r == nil {
			r = &record{url: u, size: -1}
			byURL[u] = r
			recs = append(recs, r)
		}
		return r
	}
	for i := range in.URLs {
		u := &in.URLs[i]
		r := get(u.URL)
		r.state, r.status, r.reason = u.State, u.Status, u.Reason
		r.hops, r.via, r.seed = u.Hops, u.Via, u.Seed
		r.host = hostOf(u.URL, u.Host)
	}
	for i := range in.Lines {
		l := &in.Lines[i]
		r := get(l.URL)
		r.logged = true
		r.status, r.size, r.mime, r.time = l.Status, l.Size, l.MIME, l.Time
		r.dup = isDuplicate(l)
		if l.Hops != "" || r.hops == "" {
			r.hops = l.Hops
		}
		if l.Via != "" {
			r.via = l.Via
		}
		if l.Seed != "" {
			r.seed = l.Seed
		}
		if why := scopeReasonOf(l); why != "" {
			r.reason = why
		}
		if r.host == "" {
			r.host = hostOf(l.URL, "")
		}
		if l.Time.After(s.ended) {
			s.ended = l.Time
		}
	}
	s.records = recs

	hosts := map[string]*hostStats{}
	mimes := map[string]*tally{}
	codes := map[int]*tally{}
	for _, r := range recs {
		if r.host == "" {
			r.host = hostOf(r.url, "")
		}
		if r.reason == "" && (r.state == StateRejected || isDisregard(r.status)) && r.status != StatusRobots {
			r.reason = "out-of-scope"
		}
		r.kind = r.classify()
		h := hosts[r.host]
		if h == nil {
			h = &hostStats{host: r.host, reasons: map[string]int64{}}
			hosts[r.host] = h
		}
		h.total++
		size := max(r.size, 0)
		switch r.kind {
		case kindCaptured:
			h.captured++
			h.bytes += size
			h.inFrontier = true
			s.captured++
			s.bytes += size
			switch {
			case r.dup:
				h.dup++
				h.dupBytes += size
				s.dup++
				s.dupBytes += size
			case r.status == 304:
				h.notModified++
				h.notModifiedBytes += size
				s.notMod++
				s.notModB += size
			default:
				h.novel++
				h.novelBytes += size
				s.novel++
				s.novelBytes += size
			}
			m := normMIME(r.mime)
			t := mimes[m]
			if t == nil {
				t = &tally{key: m}
				mimes[m] = t
			}
			t.count++
			t.bytes += size
			c := codes[r.status]
			if c == nil {
				c = &tally{key: itoa(r.status)}
				codes[r.status] = c
			}
			c.count++
			c.bytes += size
		case kindRobots:
			h.robots++
			h.inFrontier = true
			s.robots++
		case kindBlocked:
			h.blocked++
			h.rejected = append(h.rejected, r)
			s.blocked++
		case kindOutOfScope:
			h.outOfScope++
			h.reasons[r.reason]++
			h.rejected = append(h.rejected, r)
			s.outOfScope++
			s.reasons[r.reason]++
		case kindQueued:
			h.queued++
			h.inFrontier = true
			s.queued++
		case kindFailed:
			h.failed++
			h.inFrontier = true
			s.failed++
		}
		if r.logged {
			switch {
			case r.status > 0:
				s.successes++
			case isDisregard(r.status):
				s.disregards++
			default:
				s.failures++
			}
		} else if r.kind == kindCaptured {
			s.successes++
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
	for _, t := range mimes {
		s.mimes = append(s.mimes, *t)
	}
	sortTallies(s.mimes)
	for _, t := range codes {
		s.codes = append(s.codes, *t)
	}
	sortTallies(s.codes)

	s.seeds = seedRows(in.Seeds, byURL, recs)

	if !in.Ended.IsZero() {
		s.ended = in.Ended
	}
	if !in.Started.IsZero() && s.ended.After(in.Started) {
		s.duration = s.ended.Sub(in.Started)
	}
	return s
}

func sortTallies(ts []tally) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].count != ts[j].count {
			return ts[i].count > ts[j].count
		}
		return ts[i].key < ts[j].key
	})
}

// seedRows builds the seeds report rows in Heritrix's order: never-fetched seeds (code 0)
// first, then negative codes by ascending absolute value, then positive codes descending;
// equal codes by URL.
func seedRows(seeds []SeedInfo, byURL map[string]*record, recs []*record) []seedRow {
	// redirects maps a URL to the target of its redirect: the URL discovered on it with a hop
	// path made only of R (a seed's redirect targets are "R", "RR", …).
	redirects := map[string]string{}
	for _, r := range recs {
		if r.via != "" && r.hops != "" && strings.Trim(r.hops, "R") == "" {
			if _, ok := redirects[r.via]; !ok {
				redirects[r.via] = r.url
			}
		}
	}
	seen := map[string]bool{}
	var rows []seedRow
	for _, sd := range seeds {
		if seen[sd.URL] {
			continue
		}
		seen[sd.URL] = true
		row := seedRow{url: sd.URL, typ: sd.Type}
		if r := byURL[sd.URL]; r != nil && (r.logged || r.state == StateDone || r.state == StateFailed || r.status != 0) {
			row.status = r.status
		}
		row.crawled = row.status > 0
		if row.status >= 300 && row.status < 400 {
			row.redirect = redirects[sd.URL]
		}
		row.final, row.finalCode = sd.URL, row.status
		cur := sd.URL
		for range 10 {
			next, ok := redirects[cur]
			r := byURL[cur]
			if !ok || r == nil || r.status < 300 || r.status >= 400 {
				break
			}
			cur = next
			row.final = cur
			row.finalCode = 0
			if nr := byURL[cur]; nr != nil {
				row.finalCode = nr.status
			}
		}
		rows = append(rows, row)
	}
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
	return rows
}

// suggestRule returns the accept rule that would bring in a host's URLs left out only for
// being outside the seeds' scope (reason "out-of-scope"; rules cannot override block, hop
// or trap decisions), and how many URLs it covers. It is the longest directory shared by all
// of them (surt:http://(org,example,)/dir/) or, when they share none, the host and its
// subdomains (surt:http://(org,example,).
func suggestRule(rejected []*record) (string, int64) {
	var n int64
	var host, port, dir string
	samePort := true
	for _, r := range rejected {
		if r.kind != kindOutOfScope || r.reason != "out-of-scope" {
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
			host, port, dir = strings.ToLower(u.Hostname()), p, d
		} else {
			if p != port {
				samePort = false
			}
			dir = commonDir(dir, d)
		}
		n++
	}
	if n == 0 {
		return "", 0
	}
	rev := surtHost(host)
	isIP := net.ParseIP(host) != nil
	if samePort && len(dir) > 1 {
		hp := rev
		if !isIP {
			hp += ","
		}
		if port != "" {
			hp += ":" + port
		}
		return "surt:http://(" + hp + ")" + strings.ToLower(dir), n
	}
	if isIP {
		if samePort && port != "" {
			return "surt:http://(" + rev + ":" + port + ")/", n
		}
		if samePort {
			return "surt:http://(" + rev + ")/", n
		}
		return "surt:http://(" + rev, n
	}
	return "surt:http://(" + rev + ",", n
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
