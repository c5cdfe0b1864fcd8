package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// ScopeReport is the content of scope-report.json: for every host the crawl met, what was
// captured and what was left out and why, with the rule that would bring it in.
type ScopeReport struct {
	Collection string      `json:"collection"`
	Totals     ScopeCounts `json:"totals"`
	Hosts      []ScopeHost `json:"hosts"` // by number of URLs, descending, then by name
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
}

// ScopeHost is one host of the scope report.
type ScopeHost struct {
	Host string `json:"host"`
	ScopeCounts
	// SuggestedRule is an accept rule that would bring in the host's URLs left out for being
	// outside the seeds' scope (reason "out-of-scope"): the directory they share, or the host
	// and its subdomains. Empty when there are none.
	SuggestedRule string     `json:"suggested_rule,omitempty"`
	URLs          []ScopeURL `json:"urls,omitempty"` // out-of-scope and blocked URLs, by URL
}

// ScopeURL is one URL left out by scope or by a block rule.
type ScopeURL struct {
	URL    string `json:"url"`
	Reason string `json:"reason"` // spec/scope.md reason: out-of-scope, max-hops, trap, scheme, block:RULE, …
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

func (s *summary) scopeReport() ScopeReport {
	rep := ScopeReport{
		Collection: s.in.Collection,
		Totals:     s.counts.scopeCounts(),
		Hosts:      make([]ScopeHost, 0, len(s.hosts)),
	}
	for _, h := range s.hosts {
		sh := ScopeHost{Host: h.host, ScopeCounts: h.counts.scopeCounts(), SuggestedRule: h.suggestion}
		for _, r := range h.rejected {
			sh.URLs = append(sh.URLs, ScopeURL{URL: r.url, Reason: r.reason, Hops: r.hops, Via: r.via, Seed: r.seed})
		}
		rep.Hosts = append(rep.Hosts, sh)
	}
	return rep
}

func (s *summary) scopeReportJSON() ([]byte, error) {
	b, err := json.MarshalIndent(s.scopeReport(), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
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

// scopeReportText renders scope-report.txt: a per-host table in Heritrix's style (bracketed
// header, space-separated columns, "-" for empty), then the URLs left out, grouped by host.
func (s *summary) scopeReportText() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "scope report: %s\n\n", s.in.Collection)
	b.WriteString("[host] [#captured] [#out-of-scope] [#robots] [#blocked] [#queued] [#failed] [out-of-scope-reasons]\n")
	for _, h := range s.hosts {
		fmt.Fprintf(&b, "%s %d %d %d %d %d %d %s\n", field(h.host), h.captured, h.outOfScope, h.robots,
			h.blocked, h.queued, h.failed, reasonList(h.reasons))
	}
	fmt.Fprintf(&b, "total %d %d %d %d %d %d %s\n", s.captured, s.outOfScope, s.robots, s.blocked,
		s.queued, s.failed, reasonList(s.reasons))
	for _, h := range s.hosts {
		if len(h.rejected) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n== %s: %d out of scope, %d blocked by a rule\n", h.host, h.outOfScope, h.blocked)
		if h.suggestion != "" {
			fmt.Fprintf(&b, "suggested rule (brings in %d): %s\n", h.suggestionFrom, h.suggestion)
		}
		b.WriteString("[reason] [hops] [url] [via] [seed]\n")
		for _, r := range h.rejected {
			fmt.Fprintf(&b, "%s %s %s %s %s\n", field(r.reason), field(r.hops), field(r.url), field(r.via), field(r.seed))
		}
	}
	return b.Bytes()
}
