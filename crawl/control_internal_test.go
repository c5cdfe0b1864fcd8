package crawl

import (
	"log/slog"
	"strings"
	"testing"
)

// TestControlNotStarted: the status server's requests (Handle.Control) are refused until the
// crawl's control has started (the status server may come up a moment before it) and after it
// stopped, and make no change then.
func TestControlNotStarted(t *testing.T) {
	for _, tc := range []struct {
		name             string
		started, closed  bool
		wantErrorContain string
	}{
		{"before start", false, false, "starting"},
		{"after stop", true, true, "ending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &crawler{log: slog.New(slog.DiscardHandler)}
			c.h = &Handle{c: c, gate: newClaimGate()}
			c.ctl = newControl(c.h)
			c.ctl.started, c.ctl.closed = tc.started, tc.closed
			_, err := c.h.Control("http:127.0.0.1:1234", ControlRequest{Command: CtlPause})
			if err == nil || !strings.Contains(err.Error(), tc.wantErrorContain) {
				t.Errorf("err = %v, want one with %q", err, tc.wantErrorContain)
			}
			if c.h.gate.isPaused() {
				t.Error("paused by a request the control could not take")
			}
		})
	}
}
