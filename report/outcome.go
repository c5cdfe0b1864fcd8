package report

import (
	"strings"

	"github.com/amber-crawler/amber/status"
)

// Outcome is what became of a URL, as the reports count it. Each URL has one outcome.
type Outcome int

// The outcomes of a URL.
const (
	OutcomeQueued     Outcome = iota // left in the frontier when the crawl stopped
	OutcomeCaptured                  // got a response (any HTTP status): it is in the WARC files
	OutcomeRobots                    // robots.txt disallowed it
	OutcomeBlocked                   // a block rule left it out
	OutcomeOutOfScope                // scope left it out for any other reason (hops included)
	OutcomeFailed                    // no response: network error, timeout, unfetchable URL
)

var outcomeNames = [...]string{
	OutcomeQueued:     "queued",
	OutcomeCaptured:   "captured",
	OutcomeRobots:     "robots",
	OutcomeBlocked:    "blocked",
	OutcomeOutOfScope: "out-of-scope",
	OutcomeFailed:     "failed",
}

// String returns the outcome's name: queued, captured, robots, blocked, out-of-scope or
// failed.
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return "outcome(" + itoa(int(o)) + ")"
	}
	return outcomeNames[o]
}

// Scope reasons the reports read (spec/scope.md, scope.Decision.Reason).
const (
	reasonOutOfScope = "out-of-scope"
	reasonMaxHops    = "max-hops"
	reasonRobots     = "robots"
	// reasonBlock is a block rule's reason alone; a rule's decision is "block:" + the rule
	// (scope.ReasonBlockPrefix).
	reasonBlock = "block"
)

// scopeAnnotation prefixes a scope reason in a crawl.log line's annotations.
const scopeAnnotation = "scope:"

// LineOutcome classifies a crawl.log line on its own, as the reports classify a URL whose
// last line it is. A line is blocked by a rule when its status is status.Blocked or its scope
// reason (see Line annotations "scope:REASON") is "block" or starts with "block:", whatever
// its status; see classify. A line is about a finished URL, so LineOutcome never returns
// OutcomeQueued.
func LineOutcome(l Line) Outcome {
	return classify(l.Status, lineReason(l), "", true)
}

// classify is the one classification of a URL, from its last status code, its scope reason,
// its frontier state ("" when the frontier did not report it) and whether crawl.log has a
// line for it. In order:
//   - a positive status is captured;
//   - status.Robots or the reason "robots" is robots;
//   - status.Blocked or a block reason (isBlockReason) is blocked by a rule, so a URL a block
//     rule left out counts the same whether it was logged -5000 with "scope:block:RULE" or
//     -5001;
//   - a rejected URL, or a logged disregard code (status.Disregarded), is out of scope;
//   - a URL still queued or in flight is queued;
//   - anything else that finished (logged, failed, or done with status 0) failed.
func classify(code int, reason string, state status.State, logged bool) Outcome {
	switch {
	case code > 0:
		return OutcomeCaptured
	case code == status.Robots || reason == reasonRobots:
		return OutcomeRobots
	case code == status.Blocked || isBlockReason(reason):
		return OutcomeBlocked
	case state == status.Rejected || (logged && status.Disregarded(code)):
		return OutcomeOutOfScope
	case state == status.Queued || state == status.Inflight:
		return OutcomeQueued
	case code < 0 || logged || state == status.Failed || state == status.Done:
		// A finished URL with status 0 is Heritrix's "nothing happened": a failure.
		return OutcomeFailed
	}
	return OutcomeQueued
}

// isBlockReason reports whether a scope reason is a block rule's: "block" alone or
// "block:RULE".
func isBlockReason(reason string) bool {
	return reason == reasonBlock || strings.HasPrefix(reason, reasonBlock+":")
}

// lineReason returns the scope reason carried by a crawl.log line's annotations
// ("scope:REASON"), or the one its status implies, or "".
// LineReason returns the scope reason of a crawl.log line, as the scope report counts it: the
// reason of its "scope:REASON" annotation, else the one its status implies (-4001 "max-hops",
// -5000 "out-of-scope", -5001 "block"); "" for a line without one (robots.txt refusals
// included: their outcome, OutcomeRobots, says it).
func LineReason(l Line) string { return lineReason(l) }

func lineReason(l Line) string {
	for _, a := range l.Annotations {
		if r, ok := strings.CutPrefix(a, scopeAnnotation); ok {
			return r
		}
	}
	switch l.Status {
	case status.TooManyHops:
		return reasonMaxHops
	case status.OutOfScope:
		return reasonOutOfScope
	case status.Blocked:
		return reasonBlock
	}
	return ""
}
