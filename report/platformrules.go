package report

import (
	"bufio"
	"fmt"
	"sort"
	"strings"
)

// reasonPlatformPrefix prefixes the scope reason of a URL a platform rule left out (package
// platform's ReasonPrefix).
const reasonPlatformPrefix = "platform:"

// ScopePlatformRule is a platform rule in the scope report: whether the crawl applied it and
// how many URLs it left out.
type ScopePlatformRule struct {
	ID      string `json:"id"`
	On      bool   `json:"on"`
	LeftOut int64  `json:"left_out"`
	Why     string `json:"why,omitempty"`
}

// platformRules returns the crawl's platform rules (Input.PlatformRules) with the URLs each
// left out, and the rules named by a scope reason that Input does not list; by URLs left out,
// most first, then in Input's order.
func (s *summary) platformRules() []ScopePlatformRule {
	var out []ScopePlatformRule
	listed := map[string]bool{}
	for _, r := range s.in.PlatformRules {
		listed[r.ID] = true
		out = append(out, ScopePlatformRule{ID: r.ID, On: r.On, Why: r.Why, LeftOut: s.reasons[reasonPlatformPrefix+r.ID]})
	}
	var extra []string
	for reason := range s.reasons {
		if id, ok := strings.CutPrefix(reason, reasonPlatformPrefix); ok && !listed[id] {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	for _, id := range extra {
		out = append(out, ScopePlatformRule{ID: id, On: true, LeftOut: s.reasons[reasonPlatformPrefix+id]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LeftOut > out[j].LeftOut })
	return out
}

// writePlatformRulesText writes the platform rules section of scope-report.txt: the rules that
// left URLs out, one a line, and how many others were on and off.
func (s *summary) writePlatformRulesText(w *bufio.Writer) {
	rules := s.platformRules()
	if len(rules) == 0 {
		return
	}
	w.WriteString("\n== platform rules (scope.platform_rules)\n")
	var on, off int
	var any bool
	for _, r := range rules {
		if r.LeftOut == 0 {
			if r.On {
				on++
			} else {
				off++
			}
			continue
		}
		if !any {
			w.WriteString("[rule] [#left-out] [why]\n")
			any = true
		}
		// The why is the last column, written as it is.
		fmt.Fprintf(w, "%s %d %s\n", field(r.ID), r.LeftOut, strings.Join(strings.Fields(r.Why), " "))
	}
	if !any {
		w.WriteString("no URL left out by a platform rule\n")
	}
	if on+off > 0 {
		fmt.Fprintf(w, "rules that left nothing out: %d on, %d off\n", on, off)
	}
}
