package login

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/fetch"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestSession: when Ensure and Relogin log in, by a sequence of calls on a test clock.
func TestSession(t *testing.T) {
	s := newSite()
	srv := httptest.NewServer(s)
	defer srv.Close()
	good := []Field{{"user", "alice"}, {"pass", "s3cret"}}
	bad := []Field{{"user", "bob"}}

	type call struct {
		wait    time.Duration // clock advance before the call
		relogin bool          // Relogin with the generation noted at the previous call; else Ensure
		ran     bool          // a login made by this call
		ok      bool          // its outcome
		retry   bool          // Relogin's retry
	}
	tests := []struct {
		name   string
		ttl    time.Duration
		relog  bool
		params []Field
		calls  []call
	}{
		{name: "once without ttl", params: good, calls: []call{
			{ran: true, ok: true}, {}, {wait: 24 * time.Hour}}},
		{name: "again after ttl", ttl: time.Hour, params: good, calls: []call{
			{ran: true, ok: true}, {wait: 59 * time.Minute}, {wait: time.Minute, ran: true, ok: true}, {}}},
		{name: "failed, not retried", ttl: time.Hour, params: bad, calls: []call{
			{ran: true}, {wait: 2 * time.Hour}, {relogin: true}}},
		{name: "failed, retried after ttl", ttl: time.Hour, relog: true, params: bad, calls: []call{
			{ran: true}, {wait: 30 * time.Minute}, {wait: 30 * time.Minute, ran: true}}},
		{name: "failed with ttl 0, never retried", relog: true, params: bad, calls: []call{
			{ran: true}, {wait: 48 * time.Hour}, {relogin: true}}},
		{name: "expired page: relogin and retry", relog: true, params: good, calls: []call{
			{ran: true, ok: true}, {relogin: true, ran: true, ok: true, retry: true}}},
		{name: "expired page without relogin_if_failed", params: good, calls: []call{
			{ran: true, ok: true}, {relogin: true}}},
		{name: "failed relogin within ttl not repeated", ttl: time.Hour, relog: true, params: bad, calls: []call{
			{ran: true}, {relogin: true}, {wait: time.Hour, relogin: true, ran: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			spec := Spec{Name: "n", HTMLForm: srv.URL + "/login.html", Autofill: true, Parameters: tt.params, TTL: tt.ttl, ReloginIfFailed: tt.relog}
			if tt.params[0].Value == "bob" {
				spec = Spec{Name: "n", Form: srv.URL + "/simple", Parameters: tt.params, TTL: tt.ttl, ReloginIfFailed: tt.relog}
			}
			sess := NewSession(spec, clk.now)
			rec := newRecorder(t)
			gen := sess.Generation()
			for i, c := range tt.calls {
				clk.add(c.wait)
				var (
					res   Result
					ran   bool
					retry bool
					err   error
				)
				if c.relogin {
					retry, res, ran, err = sess.Relogin(t.Context(), rec.do, gen)
				} else {
					res, ran, err = sess.Ensure(t.Context(), rec.do)
				}
				if err != nil {
					t.Fatal(err)
				}
				if ran != c.ran || (ran && res.OK != c.ok) || retry != c.retry {
					t.Errorf("call %d: ran %v ok %v retry %v; want ran %v ok %v retry %v", i, ran, res.OK, retry, c.ran, c.ok, c.retry)
				}
				gen = sess.Generation()
			}
		})
	}
}

// TestSessionShared: concurrent callers make one login, and a Relogin by a caller that saw
// an older generation than the latest login does not log in again.
func TestSessionShared(t *testing.T) {
	s := newSite()
	srv := httptest.NewServer(s)
	defer srv.Close()
	sess := NewSession(Spec{Name: "n", HTMLForm: srv.URL + "/login.html", Autofill: true, ReloginIfFailed: true,
		Parameters: []Field{{"user", "alice"}, {"pass", "s3cret"}}}, nil)
	rec := newRecorder(t)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if _, _, err := sess.Ensure(t.Context(), rec.do); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	old := sess.Generation()
	if retry, _, ran, err := sess.Relogin(t.Context(), rec.do, old); err != nil || !ran || !retry {
		t.Fatalf("Relogin = retry %v ran %v %v; want a login", retry, ran, err)
	}
	if retry, _, ran, err := sess.Relogin(t.Context(), rec.do, old); err != nil || ran || !retry {
		t.Errorf("second Relogin of the same generation = retry %v ran %v %v; want a retry without a login", retry, ran, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logins != 2 {
		t.Errorf("%d logins, want 2", s.logins)
	}
}

// TestSessionCanceled: a canceled context ends a wait for the turn, and an interrupted login
// is not counted as an attempt.
func TestSessionCanceled(t *testing.T) {
	sess := NewSession(Spec{Name: "n", Form: "http://127.0.0.1:1/x", Parameters: []Field{{"a", "b"}}}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, ran, err := sess.Ensure(ctx, func(context.Context, string, fetch.Request) (*fetch.Exchange, error) {
		t.Error("a request was made")
		return nil, context.Canceled
	}); err == nil || ran {
		t.Errorf("Ensure on a canceled context: ran %v, err %v", ran, err)
	}
	if sess.Generation() != 0 {
		t.Errorf("generation %d after a canceled Ensure", sess.Generation())
	}
}
