package report

import (
	"testing"
	"time"

	"github.com/amber-crawler/amber/status"
)

// TestClassify is the classification of a URL from its crawl.log line, its frontier entry or
// both. A URL a block rule left out is blocked by a rule however it was logged: -5000 with
// "scope:block:RULE" (the plain fetcher), -5000 with "scope:block" (the browser), -5001, or
// a frontier reason "block" or "block:RULE".
func TestClassify(t *testing.T) {
	const u = "http://www.example.com/x"
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	line := func(code int, ann ...string) *Line {
		return &Line{Time: at, Status: code, Size: -1, URL: u, Hops: "L", Annotations: ann}
	}
	state := func(st status.State, code int, reason string) *URLState {
		return &URLState{URL: u, State: st, Status: code, Reason: reason, Hops: "L"}
	}
	tests := []struct {
		name       string
		line       *Line
		url        *URLState
		want       Outcome
		wantReason string
	}{
		{"captured", &Line{Time: at, Status: 200, Size: 10, URL: u}, state(status.Done, 200, ""), OutcomeCaptured, ""},
		{"a 404 is captured", &Line{Time: at, Status: 404, Size: 10, URL: u}, nil, OutcomeCaptured, ""},
		{"robots.txt", line(status.Robots, "robots"), state(status.Failed, status.Robots, ""), OutcomeRobots, ""},
		{"robots reason in the frontier", nil, state(status.Rejected, 0, "robots"), OutcomeRobots, "robots"},
		{"block rule, plain fetcher", line(status.OutOfScope, "scope:block:contains:/login"), state(status.Rejected, 0, "block:contains:/login"), OutcomeBlocked, "block:contains:/login"},
		{"block rule, crawl.log only", line(status.OutOfScope, "scope:block:regex:^a$"), nil, OutcomeBlocked, "block:regex:^a$"},
		{"block rule, browser annotation", line(status.OutOfScope, "scope:block"), nil, OutcomeBlocked, "block"},
		{"blocked by user code", line(status.Blocked), nil, OutcomeBlocked, "block"},
		{"block reason in the frontier only", nil, state(status.Rejected, 0, "block"), OutcomeBlocked, "block"},
		{"a reason that only starts like block", line(status.OutOfScope, "scope:blocked-host"), nil, OutcomeOutOfScope, "blocked-host"},
		{"out of scope", line(status.OutOfScope, "scope:out-of-scope"), state(status.Rejected, 0, "out-of-scope"), OutcomeOutOfScope, "out-of-scope"},
		{"out of scope without an annotation", line(status.OutOfScope), nil, OutcomeOutOfScope, "out-of-scope"},
		{"rejected without a reason", nil, state(status.Rejected, 0, ""), OutcomeOutOfScope, "out-of-scope"},
		{"max hops", line(status.TooManyHops, "scope:max-hops"), nil, OutcomeOutOfScope, "max-hops"},
		{"max hops without an annotation", line(status.TooManyHops), nil, OutcomeOutOfScope, "max-hops"},
		{"trap", nil, state(status.Rejected, 0, "trap"), OutcomeOutOfScope, "trap"},
		{"queued", nil, state(status.Queued, 0, ""), OutcomeQueued, ""},
		{"in flight when the crawl stopped", nil, state(status.Inflight, 0, ""), OutcomeQueued, ""},
		{"queued again after a failure", line(status.ConnectFailed, "1t"), state(status.Queued, status.ConnectFailed, ""), OutcomeQueued, ""},
		{"failed", line(status.DNSFailed), state(status.Failed, status.DNSFailed, ""), OutcomeFailed, ""},
		{"failed, frontier only", nil, state(status.Failed, status.Timeout, ""), OutcomeFailed, ""},
		{"logged with status 0", line(0), nil, OutcomeFailed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in Input
			if tt.url != nil {
				in.URLs = []URLState{*tt.url}
			}
			if tt.line != nil {
				in.Lines = []Line{*tt.line}
			}
			var recs []*record
			if _, err := eachRecord(in, t.TempDir(), sortBudget, nil, func(r *record) error {
				recs = append(recs, r)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1", len(recs))
			}
			r := recs[0]
			if r.kind != tt.want || r.reason != tt.wantReason {
				t.Errorf("outcome %v, reason %q; want %v, %q", r.kind, r.reason, tt.want, tt.wantReason)
			}
			if tt.line != nil && tt.url == nil {
				if got := LineOutcome(*tt.line); got != tt.want {
					t.Errorf("LineOutcome = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestOutcomeString(t *testing.T) {
	tests := []struct {
		o    Outcome
		want string
	}{
		{OutcomeQueued, "queued"},
		{OutcomeCaptured, "captured"},
		{OutcomeRobots, "robots"},
		{OutcomeBlocked, "blocked"},
		{OutcomeOutOfScope, "out-of-scope"},
		{OutcomeFailed, "failed"},
		{Outcome(42), "outcome(42)"},
	}
	for _, tt := range tests {
		if got := tt.o.String(); got != tt.want {
			t.Errorf("Outcome(%d).String() = %q, want %q", int(tt.o), got, tt.want)
		}
	}
}
