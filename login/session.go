package login

import (
	"context"
	"sync"
	"time"
)

// Session is one login through a crawl: it logs in when a page of its sites is due to be
// fetched and the login is not made yet or has expired, and again when a page answers as
// if logged out. One login at a time: concurrent callers wait for the one in progress and
// share its outcome. Safe for concurrent use.
type Session struct {
	spec Spec
	now  func() time.Time
	turn chan struct{} // held (one token) while a login is made

	mu   sync.Mutex // guards the fields below
	made bool       // a login was attempted
	ok   bool       // the last attempt succeeded
	at   time.Time  // when the last attempt was made
	gen  int        // attempts made
}

// NewSession returns the Session of a checked Spec. now is the clock (time.Now when nil).
func NewSession(s Spec, now func() time.Time) *Session {
	if now == nil {
		now = time.Now
	}
	return &Session{spec: s, now: now, turn: make(chan struct{}, 1)}
}

// Spec returns the session's Spec.
func (s *Session) Spec() Spec { return s.spec }

// Generation is the number of login attempts made so far. A caller notes it before
// fetching a page and gives it to Relogin if the page answers as logged out, so that a
// login made in between by another caller is not made twice.
func (s *Session) Generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Ensure makes the login when it is due: never attempted; succeeded and older than TTL
// (TTL > 0); failed, with ReloginIfFailed, longer ago than TTL (TTL > 0). ran tells whether
// this call made it (res is then its outcome). The error is Perform's.
func (s *Session) Ensure(ctx context.Context, do Do) (res Result, ran bool, err error) {
	return s.run(ctx, do, func() bool { return s.dueLocked() })
}

// Relogin logs in again after a page answered as logged out (Spec.Expired), when the Spec
// has ReloginIfFailed: unless a login was attempted since generation gen (then that one
// counts), or the last attempt failed less than TTL ago (or ever, with TTL 0). retry tells
// whether to fetch the page again: a login has succeeded since gen. ran tells whether this
// call made the login (res is then its outcome).
func (s *Session) Relogin(ctx context.Context, do Do, gen int) (retry bool, res Result, ran bool, err error) {
	if !s.spec.ReloginIfFailed {
		return false, Result{}, false, nil
	}
	res, ran, err = s.run(ctx, do, func() bool {
		if s.gen != gen {
			return false
		}
		return !s.made || s.ok || s.retryFailedLocked()
	})
	s.mu.Lock()
	retry = s.gen != gen && s.ok
	s.mu.Unlock()
	return retry, res, ran, err
}

// run makes the login when due (checked under mu, after getting the turn).
func (s *Session) run(ctx context.Context, do Do, due func() bool) (Result, bool, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, false, err
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return Result{}, false, ctx.Err()
	}
	defer func() { <-s.turn }()
	s.mu.Lock()
	d := due()
	s.mu.Unlock()
	if !d {
		return Result{}, false, nil
	}
	res, err := Perform(ctx, s.spec, do)
	if ctx.Err() != nil {
		return res, false, ctx.Err() // interrupted: not an attempt
	}
	s.mu.Lock()
	s.made, s.ok, s.at = true, err == nil && res.OK, s.now()
	s.gen++
	s.mu.Unlock()
	return res, true, err
}

// dueLocked tells whether Ensure should log in. It needs mu held.
func (s *Session) dueLocked() bool {
	switch {
	case !s.made:
		return true
	case s.ok:
		return s.spec.TTL > 0 && s.now().Sub(s.at) >= s.spec.TTL
	}
	return s.retryFailedLocked()
}

// retryFailedLocked tells whether a failed login may be tried again. It needs mu held.
func (s *Session) retryFailedLocked() bool {
	return s.spec.ReloginIfFailed && s.spec.TTL > 0 && s.now().Sub(s.at) >= s.spec.TTL
}
