package report

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/crawlrule"
	"github.com/amber-crawler/amber/internal/varrec"
	"github.com/amber-crawler/amber/scope"
)

// ScopeReport is the content of scope-report.json: for every host the crawl met, what was
// captured and what was left out and why, with the rule that would bring it in.
type ScopeReport struct {
	Collection string      `json:"collection"`
	Totals     ScopeCounts `json:"totals"`
	Hosts      []ScopeHost `json:"hosts"` // by number of URLs, descending, then by name
	// ContentBySeed are the content counts of the seeds that have some, by seed.
	ContentBySeed []SeedContent `json:"content_by_seed,omitempty"`
	// PlatformRules are the crawl's platform rules with the URLs each left out, most first.
	PlatformRules []ScopePlatformRule `json:"platform_rules,omitempty"`
	// Waste is the waste report: the block rules that would have saved fetches that gave
	// little new content; nil when there are none.
	Waste *Waste `json:"waste,omitempty"`
}

// ScopeCounts counts the URLs of a host (or of the crawl) by what became of them. Each URL
// is counted once.
type ScopeCounts struct {
	Captured   int64            `json:"captured"`     // got a response (any HTTP status)
	OutOfScope int64            `json:"out_of_scope"` // left out by scope, block rules excepted
	Reasons    map[string]int64 `json:"out_of_scope_reasons,omitempty"`
	Robots     int64            `json:"robots"`  // disallowed by robots.txt (-9998)
	Blocked    int64            `json:"blocked"` // left out by a block rule: reason "block" or "block:RULE", or -5001
	Queued     int64            `json:"queued"`  // still queued when the crawl stopped (a limit, a kill)
	Failed     int64            `json:"failed"`  // no response (network errors)
	// Content counts the crawl.log lines of the content filters and POSTs; nil when none.
	Content *ContentCounts `json:"content,omitempty"`
}

// ScopeHost is one host of the scope report.
type ScopeHost struct {
	Host string `json:"host"`
	ScopeCounts
	// SuggestedRule is an accept rule that would bring in the host's URLs left out for being
	// outside the seeds' scope (reason "out-of-scope"): the directory they share, or the host
	// and its subdomains. Empty when there are none.
	SuggestedRule string `json:"suggested_rule,omitempty"`
	// Suggestions say what would bring in the host's URLs the elastic flavour left out: a
	// domain to add (out-of-domain), an allow crawl rule to put before the rule that denied
	// them or that rule's removal (crawl-rule:...), a higher max_crawl_depth (max-depth). By
	// reason, then suggestion.
	Suggestions []ScopeSuggestion `json:"suggestions,omitempty"`
	URLs        []ScopeURL        `json:"urls,omitempty"` // out-of-scope and blocked URLs, by URL
}

// ScopeSuggestion is a change of the elastic flavour's configuration that would bring in some
// of a host's URLs.
type ScopeSuggestion struct {
	Reason string `json:"reason"` // why they were left out: out-of-domain, crawl-rule:..., max-depth
	URLs   int64  `json:"urls"`   // how many
	// Suggestion is the change: "add domain https://cdn.example.net", "add crawl rule 'allow
	// begins /blog/2021/' before crawl rule 1 (deny begins /blog)", "remove crawl rule 3 (deny
	// ends .bak)" or "raise max_crawl_depth to 5".
	Suggestion string `json:"suggestion"`
}

// ScopeURL is one URL left out by scope or by a block rule.
type ScopeURL struct {
	URL    string `json:"url"`
	Reason string `json:"reason"` // spec/scope.md or spec/elastic.md reason: out-of-scope, max-hops, out-of-domain, crawl-rule:…, block:RULE, …
	Hops   string `json:"hops"`
	Via    string `json:"via"`
	Seed   string `json:"seed"`
}

func sortHosts(hs []*hostStats, metric func(*hostStats) int64) {
	sort.SliceStable(hs, func(i, j int) bool {
		a, b := metric(hs[i]), metric(hs[j])
		if a != b {
			return a > b
		}
		return hs[i].host < hs[j].host
	})
}

// scopeCounts returns the figures of the scope report.
func (c *counts) scopeCounts() ScopeCounts {
	sc := ScopeCounts{
		Captured: c.captured, OutOfScope: c.outOfScope, Robots: c.robots,
		Blocked: c.blocked, Queued: c.queued, Failed: c.failed,
	}
	if len(c.reasons) > 0 {
		sc.Reasons = c.reasons
	}
	return sc
}

// scopeHost is a host of the scope report without its URLs.
func (h *hostStats) scopeHost() ScopeHost {
	return ScopeHost{Host: h.host, ScopeCounts: h.counts.scopeCounts(), SuggestedRule: h.suggestion}
}

// A left record is a URL left out (blocked or out of scope), encoded to sort byte by byte by
// host, then URL: host and URL (appendKey), then reason, hops, via and seed (length-prefixed).

func encodeLeft(b []byte, r *record) []byte {
	b = appendKey(b, r.host)
	b = appendKey(b, r.url)
	for _, f := range []string{r.reason, r.hops, r.via, r.seed} {
		b = varrec.AppendString(b, f)
	}
	return b
}

// writeLeft writes the URLs left out, sorted by host and URL, to the summary's leftOut file,
// and notes where each host's start.
func (a *accumulator) writeLeft() (err error) {
	recs, err := a.left.sorted()
	if err != nil {
		return err
	}
	defer recs.Close()
	f, err := os.CreateTemp(a.tmp, "left-*")
	if err != nil {
		return fmt.Errorf("report: create sort run: %w", err)
	}
	a.s.leftOut = f.Name()
	bw := bufio.NewWriterSize(f, 64<<10)
	var off int64
	var cur *hostStats
	for {
		rec, ok, err2 := recs.next()
		if err = err2; err != nil || !ok {
			break
		}
		host, _, kok := cutKey(rec)
		if !kok {
			err = errCorruptRun
			break
		}
		if cur == nil || string(host) != cur.host {
			cur = a.hosts[string(host)]
			if cur == nil {
				err = errCorruptRun
				break
			}
			cur.off = off
		}
		if err = writeRecord(bw, rec); err != nil {
			break
		}
		off += int64(uvarintLen(uint64(len(rec))) + len(rec))
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("report: write the URLs left out: %w", err)
	}
	return nil
}

func uvarintLen(n uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], n)
}

// leftReader reads the URLs left out of one host at a time from a summary's leftOut file.
type leftReader struct {
	f  *os.File
	rr runReader
}

func (s *summary) openLeft() (*leftReader, error) {
	f, err := os.Open(s.leftOut)
	if err != nil {
		return nil, fmt.Errorf("report: read the URLs left out: %w", err)
	}
	return &leftReader{f: f, rr: runReader{f: f, r: bufio.NewReaderSize(f, 64<<10)}}, nil
}

func (lr *leftReader) Close() error { return lr.f.Close() }

// each calls fn for each URL of h left out, by URL, and stops at fn's first error, which it
// returns.
func (lr *leftReader) each(h *hostStats, fn func(ScopeURL) error) error {
	if h.left == 0 {
		return nil
	}
	if _, err := lr.f.Seek(h.off, io.SeekStart); err != nil {
		return fmt.Errorf("report: read the URLs left out: %w", err)
	}
	lr.rr.r.Reset(lr.f)
	for range h.left {
		ok, err := lr.rr.read()
		if err == nil && !ok {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return fmt.Errorf("report: read the URLs left out: %w", err)
		}
		d := varrec.NewDecoder(lr.rr.rec, errCorruptRun)
		_ = readKey(&d) // host
		u := ScopeURL{URL: readKey(&d), Reason: d.Str(), Hops: d.Str(), Via: d.Str(), Seed: d.Str()}
		if err := d.Err(); err != nil {
			return err
		}
		if err := fn(u); err != nil {
			return err
		}
	}
	return nil
}

// writeScopeReportJSON writes scope-report.json: a ScopeReport as json.MarshalIndent
// encodes it with a two-space indent, followed by a newline, with the URLs read from disk one
// at a time.
func (s *summary) writeScopeReportJSON(w *bufio.Writer) error {
	lr, err := s.openLeft()
	if err != nil {
		return err
	}
	defer lr.Close()
	// Each value is encoded by MarshalIndent with the prefix of its depth.
	put := func(v any, prefix string) error {
		b, err := json.MarshalIndent(v, prefix, "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	w.WriteString("{\n  \"collection\": ")
	if err := put(s.in.Collection, "  "); err != nil {
		return err
	}
	w.WriteString(",\n  \"totals\": ")
	totals := s.counts.scopeCounts()
	totals.Content = s.contentTotal()
	if err := put(totals, "  "); err != nil {
		return err
	}
	w.WriteString(",\n  \"hosts\": [")
	for i, h := range s.hosts {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		sh := h.scopeHost()
		sh.Content = s.contentOf(h.host)
		if sh.Suggestions, err = lr.suggestions(h); err != nil {
			return err
		}
		b, err := json.MarshalIndent(sh, "    ", "  ")
		if err != nil {
			return err
		}
		if h.left == 0 {
			w.Write(b)
			continue
		}
		// "urls" is the last field of ScopeHost: it goes before the closing brace.
		w.Write(bytes.TrimSuffix(b, []byte("\n    }")))
		w.WriteString(",\n      \"urls\": [")
		first := true
		err = lr.each(h, func(u ScopeURL) error {
			if !first {
				w.WriteByte(',')
			}
			first = false
			w.WriteString("\n        ")
			return put(u, "        ")
		})
		if err != nil {
			return err
		}
		w.WriteString("\n      ]\n    }")
	}
	if len(s.hosts) > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString("]")
	if seeds := s.contentSeeds(); len(seeds) > 0 {
		w.WriteString(",\n  \"content_by_seed\": ")
		if err := put(seeds, "  "); err != nil {
			return err
		}
	}
	if rules := s.platformRules(); len(rules) > 0 {
		w.WriteString(",\n  \"platform_rules\": ")
		if err := put(rules, "  "); err != nil {
			return err
		}
	}
	if len(s.waste.Proposals) > 0 {
		w.WriteString(",\n  \"waste\": ")
		if err := put(s.waste, "  "); err != nil {
			return err
		}
	}
	_, err = w.WriteString("\n}\n")
	return err
}

// reasonList renders reason counts as "reason:n,reason:n" sorted by reason, "-" when empty.
func reasonList(m map[string]int64) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", strings.ReplaceAll(k, ",", "%2C"), m[k])
	}
	return field(strings.Join(parts, ","))
}

// writeScopeReportText writes scope-report.txt: a per-host table in Heritrix's style
// (bracketed header, space-separated columns, "-" for empty), then the URLs left out, grouped
// by host.
func (s *summary) writeScopeReportText(w *bufio.Writer) error {
	fmt.Fprintf(w, "scope report: %s\n\n", s.in.Collection)
	w.WriteString("[host] [#captured] [#out-of-scope] [#robots] [#blocked] [#queued] [#failed] [out-of-scope-reasons]\n")
	for _, h := range s.hosts {
		fmt.Fprintf(w, "%s %d %d %d %d %d %d %s\n", field(h.host), h.captured, h.outOfScope, h.robots,
			h.blocked, h.queued, h.failed, reasonList(h.reasons))
	}
	fmt.Fprintf(w, "total %d %d %d %d %d %d %s\n", s.captured, s.outOfScope, s.robots, s.blocked,
		s.queued, s.failed, reasonList(s.reasons))
	s.writeContentText(w)
	s.writePlatformRulesText(w)
	s.writeWasteText(w)
	lr, err := s.openLeft()
	if err != nil {
		return err
	}
	defer lr.Close()
	for _, h := range s.hosts {
		if h.left == 0 {
			continue
		}
		fmt.Fprintf(w, "\n== %s: %d out of scope, %d blocked by a rule\n", h.host, h.outOfScope, h.blocked)
		if h.suggestion != "" {
			fmt.Fprintf(w, "suggested rule (brings in %d): %s\n", h.suggestionFrom, h.suggestion)
		}
		ss, err := lr.suggestions(h)
		if err != nil {
			return err
		}
		for _, x := range ss {
			fmt.Fprintf(w, "suggestion for %s (brings in %d): %s\n", field(x.Reason), x.URLs, x.Suggestion)
		}
		w.WriteString("[reason] [hops] [url] [via] [seed]\n")
		err = lr.each(h, func(u ScopeURL) error {
			_, err := fmt.Fprintf(w, "%s %s %s %s %s\n", field(u.Reason), field(u.Hops), field(u.URL), field(u.Via), field(u.Seed))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// elasticLeft gathers what a host's URLs left out by the elastic flavour share, to suggest
// what would bring them in.
type elasticLeft struct {
	origins map[string]int64      // out-of-domain: URLs by origin
	rules   map[string]*rulePaths // crawl-rule:...: the paths each rule denied
	deep    int64                 // max-depth: URLs
	depth   int                   // the deepest of them
}

// rulePaths is what the paths and queries a crawl rule denied share.
type rulePaths struct {
	dir    string // their longest common directory
	prefix string // their longest common prefix
	n      int64
}

// isElasticReason reports whether reason is one of the elastic flavour's that a change of
// configuration can undo.
func isElasticReason(reason string) bool {
	return reason == scope.ReasonOutOfDomain || reason == scope.ReasonMaxDepth ||
		strings.HasPrefix(reason, scope.ReasonCrawlRulePrefix)
}

// add adds a URL left out; URLs left out for other reasons are ignored.
func (e *elasticLeft) add(reason, u, hops string) {
	switch {
	case reason == scope.ReasonOutOfDomain:
		if o := scope.Origin(u); o != "" {
			if e.origins == nil {
				e.origins = map[string]int64{}
			}
			e.origins[o]++
		}
	case reason == scope.ReasonMaxDepth:
		e.deep++
		e.depth = max(e.depth, scope.CrawlDepth(hops))
	case strings.HasPrefix(reason, scope.ReasonCrawlRulePrefix):
		pu, err := url.Parse(u)
		if err != nil {
			return
		}
		pq := crawlrule.PathQuery(pu)
		dir := pu.EscapedPath()
		dir = dir[:strings.LastIndexByte(dir, '/')+1]
		if dir == "" {
			dir = "/"
		}
		if e.rules == nil {
			e.rules = map[string]*rulePaths{}
		}
		rp := e.rules[reason]
		if rp == nil {
			e.rules[reason] = &rulePaths{dir: dir, prefix: pq, n: 1}
			return
		}
		rp.dir, rp.prefix = commonDir(rp.dir, dir), commonPrefix(rp.prefix, pq)
		rp.n++
	}
}

func commonPrefix(a, b string) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return a[:i]
}

// suggestions returns the changes that would bring the URLs in, by reason, then suggestion.
func (e *elasticLeft) suggestions() []ScopeSuggestion {
	var out []ScopeSuggestion
	for o, n := range e.origins {
		out = append(out, ScopeSuggestion{Reason: scope.ReasonOutOfDomain, URLs: n, Suggestion: "add domain " + o})
	}
	for reason, rp := range e.rules {
		out = append(out, ScopeSuggestion{Reason: reason, URLs: rp.n, Suggestion: allowSuggestion(reason, rp)})
	}
	if e.deep > 0 {
		out = append(out, ScopeSuggestion{Reason: scope.ReasonMaxDepth, URLs: e.deep,
			Suggestion: "raise max_crawl_depth to " + strconv.Itoa(e.depth)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Reason != out[j].Reason {
			return out[i].Reason < out[j].Reason
		}
		return out[i].Suggestion < out[j].Suggestion
	})
	return out
}

// allowSuggestion names the crawl rule of reason ("crawl-rule:<n>:<policy>:<type>:<pattern>")
// and the allow rule that, put before it, lets in the paths it denied: their common
// directory, else their common prefix; when they share nothing but "/", the rule's removal.
func allowSuggestion(reason string, rp *rulePaths) string {
	f := strings.SplitN(strings.TrimPrefix(reason, scope.ReasonCrawlRulePrefix), ":", 4)
	n, rule := f[0], strings.Join(f[1:], " ")
	switch p := rp.dir; {
	case p != "/":
		return fmt.Sprintf("add crawl rule 'allow begins %s' before crawl rule %s (%s)", p, n, rule)
	case rp.prefix != "/" && rp.prefix != "":
		return fmt.Sprintf("add crawl rule 'allow begins %s' before crawl rule %s (%s)", rp.prefix, n, rule)
	}
	return fmt.Sprintf("remove crawl rule %s (%s)", n, rule)
}

// Suggestion says what change of the elastic flavour's configuration would bring in one URL
// left out for reason (scope.Decision.Reason) with the hop path hops, as the scope report does
// for a host's URLs: "add domain https://cdn.example.net", "add crawl rule 'allow begins
// /blog/2021/' before crawl rule 1 (deny begins /blog)", "remove crawl rule 3 (deny ends
// .bak)", "raise max_crawl_depth to 5". It returns "" for the reasons of other flavours.
func Suggestion(reason, u, hops string) string {
	var e elasticLeft
	e.add(reason, u, hops)
	if ss := e.suggestions(); len(ss) == 1 {
		return ss[0].Suggestion
	}
	return ""
}

// suggestions reads the URLs of h left out and returns what would bring in those the elastic
// flavour left out; nil (without reading) when there are none.
func (lr *leftReader) suggestions(h *hostStats) ([]ScopeSuggestion, error) {
	found := false
	for r := range h.reasons {
		if isElasticReason(r) {
			found = true
			break
		}
	}
	if !found {
		return nil, nil
	}
	var e elasticLeft
	err := lr.each(h, func(u ScopeURL) error {
		e.add(u.Reason, u.URL, u.Hops)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e.suggestions(), nil
}
