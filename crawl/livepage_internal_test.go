package crawl

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLiveControlNotStarted: /control answers 503 until the crawl's control has started (the
// status server comes up a moment before it) and after it stopped, and never makes a change
// then.
func TestLiveControlNotStarted(t *testing.T) {
	for _, tc := range []struct {
		name             string
		started, closed  bool
		wantCode         int
		wantErrorContain string
	}{
		{"before start", false, false, http.StatusServiceUnavailable, "starting"},
		{"after stop", true, true, http.StatusServiceUnavailable, "ending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &control{c: &crawler{log: slog.New(slog.DiscardHandler)}}
			k.started, k.closed = tc.started, tc.closed
			lc := &liveControl{ctl: k}
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9090/control", strings.NewReader(`{"command":"pause"}`))
			req.Host = "127.0.0.1:9090"
			req.Header.Set(ControlHeader, "1")
			rec := httptest.NewRecorder()
			lc.ServeHTTP(rec, req)
			if rec.Code != tc.wantCode || !strings.Contains(rec.Body.String(), tc.wantErrorContain) {
				t.Errorf("answer %d %s, want %d with %q", rec.Code, rec.Body.String(), tc.wantCode, tc.wantErrorContain)
			}
			if k.isPaused() {
				t.Error("paused by a request the control could not take")
			}
		})
	}
}
