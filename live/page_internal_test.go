package live

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
)

// TestLiveControlNotStarted: /control answers 503 while the live control takes no change
// (before the run started it, and once the run is ending) and carries out nothing then: the
// control has no run to change.
func TestLiveControlNotStarted(t *testing.T) {
	for _, tc := range []struct {
		name             string
		control          func() *ctl.Service
		wantCode         int
		wantErrorContain string
	}{
		{"before start", ctl.New, http.StatusServiceUnavailable, "starting"},
		{"after drain", func() *ctl.Service { c := ctl.New(); c.Drain(); return c }, http.StatusServiceUnavailable, "ending"},
		{"no control", func() *ctl.Service { return nil }, http.StatusServiceUnavailable, "no live control"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := &control{ctl: tc.control(), log: slog.New(slog.DiscardHandler)}
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9090/control", strings.NewReader(`{"command":"pause"}`))
			req.Host = "127.0.0.1:9090"
			req.Header.Set(ControlHeader, "1")
			rec := httptest.NewRecorder()
			cc.ServeHTTP(rec, req)
			if rec.Code != tc.wantCode || !strings.Contains(rec.Body.String(), tc.wantErrorContain) {
				t.Errorf("answer %d %s, want %d with %q", rec.Code, rec.Body.String(), tc.wantCode, tc.wantErrorContain)
			}
		})
	}
}

// TestLiveState: the live page's figures from crawl.log lines and from what goes through the
// frontier: hosts by URLs (queued = queued in this run less finished), URLs left out by
// reason, the URLs in flight; nothing before start.
func TestLiveState(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	line := func(sec, code int, u string, ann ...string) report.Line {
		return report.Line{Time: t0.Add(time.Duration(sec) * time.Second), Status: code, Size: 10, URL: u, Annotations: ann}
	}
	var s state
	s.Line(line(0, 200, "http://early.test/")) // before start: not counted
	s.start(t0)
	for _, l := range []report.Line{
		line(1, 200, "http://a.test/"),
		line(1, 404, "http://a.test/missing"),
		line(2, status.ConnectFailed, "http://b.test/"),
		line(2, status.OutOfScope, "http://c.test/x", "scope:out-of-scope"),
		line(3, status.OutOfScope, "http://a.test/calendar/1", "scope:block:contains:/calendar/"),
		line(3, status.OutOfScope, "http://a.test/calendar/2", "scope:block:contains:/calendar/"),
		line(3, status.Robots, "http://A.test:8080/private/"),
	} {
		s.Line(l)
	}
	a1, a2, b := frontier.NewClaim(frontier.URL{URL: "http://a.test/p1"}, nil), frontier.NewClaim(frontier.URL{URL: "http://a.test/p2"}, nil),
		frontier.NewClaim(frontier.URL{URL: "http://b.test/"}, nil)
	for _, u := range []string{"http://a.test/p1", "http://a.test/p2", "http://a.test/p3", "http://b.test/"} {
		s.Added(u)
	}
	s.Claimed(a1)
	s.Claimed(a2)
	s.Claimed(b)
	s.Released(a2, false) // queued again (a retry)
	s.Released(b, true)
	s.Released(b, true) // once only
	v := s.view(crawl.Snapshot{Collection: "c"})
	wantHosts := []Host{
		{Host: "a.test", URLs: 8, Queued: 3, Captured: 2, LeftOut: 3},
		{Host: "b.test", URLs: 1, Failed: 1},
		{Host: "c.test", URLs: 1, LeftOut: 1},
	}
	if diff := cmp.Diff(wantHosts, v.Hosts); diff != "" || v.HostCount != 3 {
		t.Errorf("hosts (%d) (-want +got):\n%s", v.HostCount, diff)
	}
	wantScope := []Reason{{Reason: "block:contains:/calendar/", URLs: 2}, {Reason: "out-of-scope", URLs: 1}, {Reason: "robots", URLs: 1}}
	if diff := cmp.Diff(wantScope, v.Scope); diff != "" {
		t.Errorf("scope (-want +got):\n%s", diff)
	}
	if len(v.Current) != 1 || v.Current[0].URL != "http://a.test/p1" || v.Current[0].Host != "a.test" {
		t.Errorf("current %+v, want a.test/p1 alone", v.Current)
	}
	if v.IntervalSeconds != 1 || len(v.Timeline) != 2 || v.Timeline[0].Captured != 2 || v.Timeline[1].Failed != 1 {
		t.Errorf("timeline %v: %+v", v.IntervalSeconds, v.Timeline)
	}
}
