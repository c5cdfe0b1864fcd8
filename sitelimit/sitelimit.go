// Package sitelimit bounds what a crawl does to each host (host[:port], as the frontier keys
// hosts): how many of its URLs are fetched (FAST's max_doc), and how long it is tried while
// it does not answer (FAST's max_backoff_counter and max_backoff_delay). Its Limiter is a
// processor of the crawl's chain (package chain): before a URL is fetched it refuses the URLs
// of a host given up or past its limit and reserves one of the host's URLs for the others;
// around the fetch it counts the host's failures in a row; once the URL is archived the
// reservation counts as a URL fetched, durably in the crawl's frontier; a URL that got no
// response gives it back. Robots.txt requests count as the host's failures too (Failed,
// Answered), but not as its URLs.
package sitelimit

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
)

// Config bounds each host. The zero value bounds nothing. A URL's host may have its own
// URLs per host (its subcollection's): chain.Settings.URLsPerHost is the bound in force.
type Config struct {
	// URLsPerHost, when positive, is the most URLs of one host fetched (FAST's max_doc): each
	// claimed URL that gets a response counts, whatever its status, and so does each
	// subresource a browser loads with a page (it is a URL of its host too); a robots.txt
	// does not. Further URLs of the host are not fetched: each gets a crawl.log line with
	// status -5000 and annotation scope:max-doc, a url-discover-denied event with that reason,
	// and is counted in the scope report under max-doc. The counts are the crawl's, kept in
	// its frontier: a resumed crawl goes on from them, and with a shared frontier they are the
	// crawl's across its processes (a process killed while fetching may leave one count per
	// request under way taken, so the host gets that many fewer). Default 0: no limit.
	// Negative is invalid.
	URLsPerHost int64
	// MaxHostFailures, when positive, gives a host up once more than this many of its requests
	// in a row got no response (network errors and timeouts, robots.txt requests included;
	// an answer of any HTTP status ends the run; FAST's max_backoff_counter). A given-up
	// host's URLs claimed later are not fetched: each is left failed, with the status of the
	// host's last failure (-2, -4, -6, ...) and annotation host-given-up, and a host-given-up
	// event says when the host was given up. The count is this process's, for this run: a
	// resumed crawl tries the host again. Default 0: a host is never given up. Negative is
	// invalid.
	MaxHostFailures int
	// MaxBackoff, when positive, is the longest wait before a URL is tried again (its retry
	// delay, the crawl's retry delay doubled per attempt, is cut to it: Backoff) and turns
	// host backoff on: after each request that got no response, the whole host is paused for
	// the retry delay doubled per failure in a row, at most MaxBackoff (FAST's
	// max_backoff_delay). Default 0: retry delays double without bound (up to 1024 times the
	// retry delay) and a failing host is not paused. Negative is invalid.
	MaxBackoff time.Duration
}

// Validate returns a *chain.FieldError for an invalid field.
func (c Config) Validate() error {
	negative := errors.New("must not be negative")
	switch {
	case c.URLsPerHost < 0:
		return &chain.FieldError{Field: "URLsPerHost", Err: negative}
	case c.MaxHostFailures < 0:
		return &chain.FieldError{Field: "MaxHostFailures", Err: negative}
	case c.MaxBackoff < 0:
		return &chain.FieldError{Field: "MaxBackoff", Err: negative}
	}
	return nil
}

// Backoff is the wait before retry number attempts+1 of a URL, or the pause of a host after
// attempts+1 failures in a row: delay (the crawl's retry delay) doubled per earlier attempt
// (at most 10 times), at most max when max is positive.
func Backoff(delay, max time.Duration, attempts int) time.Duration {
	for range min(attempts, 10) {
		delay *= 2
	}
	if max > 0 {
		delay = min(delay, max)
	}
	return delay
}

// Reasons and annotations of the site limits.
const (
	ReasonMaxDoc  = "max-doc"       // the scope reason of a URL beyond the host's URLsPerHost
	NoteGivenUp   = "host-given-up" // the crawl.log annotation of a URL of a given-up host
	ActionGivenUp = "host-given-up" // the event of a host given up

	metaFetched   = "crawl/site/fetched/" // + host: URLs of the host fetched (URLsPerHost), 8 bytes
	counterPrefix = "site/"               // + host: the shared frontier's counter of the host's fetched and reserved URLs
)

// Limiter keeps the per-host figures of a Config: URLs fetched and reserved, failures in a
// row, hosts given up. It is safe for concurrent use.
type Limiter struct {
	cfg      Config
	env      chain.Env
	counters frontier.Counters
	retry    time.Duration

	mu     sync.Mutex        // guards counts, fails and gaveUp
	counts map[string]*count // by host, once read from the frontier (URLsPerHost, own frontier)
	fails  map[string]int    // failures in a row, by host
	gaveUp map[string]int    // given-up hosts: the status of their last failure

	saveMu sync.Mutex // serialises the writes of counts: a later count is never overwritten by an earlier one

	held sync.Map // *frontier.Claim -> the host one of whose URLs it reserved (URLsPerHost)

	subMu   sync.Mutex                         // guards subHeld
	subHeld map[*frontier.Claim]map[string]int // the reservations Admit made for a claim's requests, by host
	deps    Deps
}

// Deps is what a Limiter needs of the crawl for the requests a fetcher makes of its own.
type Deps struct {
	// URLsPerHost is the most URLs of the host of sub fetched: the setting of its host
	// (chain.Settings.URLsPerHost, as the host's subcollection gives it).
	URLsPerHost func(sub frontier.URL) int64
	// HostKey is the frontier's politeness key (host[:port]) of an exchange's URL.
	HostKey func(rawURL string) string
}

// count is one host's URL count with the crawl's own frontier.
type count struct {
	fetched  int64 // URLs with a response, all runs (stored under metaFetched)
	reserved int64 // claims under way that may become responses
}

// New returns the Limiter of cfg. counters are the shared frontier's crawl-wide counters (the
// hosts' URL counts are kept there), nil with the crawl's own frontier (they are kept in its
// metadata, env.Front); retryDelay is the crawl's retry delay, the first step of a failing
// host's pause; deps serve the requests a fetcher makes of its own (Admit).
func New(cfg Config, env chain.Env, counters frontier.Counters, retryDelay time.Duration, deps Deps) *Limiter {
	return &Limiter{cfg: cfg, env: env, counters: counters, retry: retryDelay, deps: deps,
		counts: map[string]*count{}, fails: map[string]int{}, gaveUp: map[string]int{}, subHeld: map[*frontier.Claim]map[string]int{}}
}

func (*Limiter) Name() string { return "sites" }

// Before refuses the claimed URL when its host was given up (MaxHostFailures) or has had its
// URLs (the URL's settings, chain.Settings.URLsPerHost), and otherwise reserves one of the host's
// URLs for it (counted by Recorded, given back by Release).
func (l *Limiter) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	u := r.URL()
	if code, ok := l.givenUp(u.Host); ok {
		return chain.Finish(chain.Outcome{Status: code, Annotations: []string{NoteGivenUp}, FetchEvent: true}), nil
	}
	max := r.Settings.URLsPerHost
	if max <= 0 {
		return chain.Proceed, nil
	}
	ok, err := l.reserve(u.Host, max)
	if err != nil {
		return chain.Verdict{}, err
	}
	if !ok {
		return chain.Finish(chain.Outcome{Status: status.OutOfScope, Annotations: []string{"scope:" + ReasonMaxDoc},
			Denied: report.DenyOutOfScope, ScopeReason: ReasonMaxDoc}), nil
	}
	l.held.Store(r.Claim, u.Host)
	return chain.Proceed, nil
}

// Failed counts a fetch of the claimed URL that got no response against its host when the
// host is to blame (Failure).
func (l *Limiter) Failed(_ context.Context, r *chain.Record, err error) (chain.Verdict, error) {
	return chain.Proceed, l.Failure(r.URL().Host, err, r.URL())
}

// After ends the host's run of failures: it answered.
func (l *Limiter) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	l.Answered(r.URL().Host)
	return chain.Proceed, nil
}

// Recorded counts the URL's reservation as a URL fetched (it got a response), durably, and
// the reservations of the requests its fetcher made of its own that got one (Admit). With a
// shared frontier the server's counter holds a reservation as a fetched URL already.
func (l *Limiter) Recorded(r *chain.Record) error {
	if v, held := l.held.LoadAndDelete(r.Claim); held && l.counters == nil {
		if err := l.keep(v.(string)); err != nil {
			return err
		}
	}
	return l.keepSubs(r)
}

// Release gives back the reservations of a URL that got no response, and of the requests its
// fetcher made of its own that Recorded did not count.
func (l *Limiter) Release(r *chain.Record) {
	if v, held := l.held.LoadAndDelete(r.Claim); held {
		l.giveBack(v.(string))
	}
	l.giveBackAll(l.takeSubs(r.Claim))
}

// Admit refuses a request the fetcher of a claimed URL makes of its own (a subresource a
// browser loads with a page, a redirect it follows) when its host was given up or has had its
// URLs (Deps.URLsPerHost), as a claimed URL of the host would be refused, and otherwise reserves
// one of the host's URLs for it: Recorded counts it as fetched when the fetch archived an
// exchange of the host for it, Release gives it back otherwise.
func (l *Limiter) Admit(_ context.Context, r *chain.Record, sub frontier.URL) (chain.Verdict, error) {
	if code, ok := l.givenUp(sub.Host); ok {
		return chain.Finish(chain.Outcome{Status: code, Annotations: []string{NoteGivenUp}, FetchEvent: true}), nil
	}
	max := l.deps.URLsPerHost(sub)
	if max <= 0 {
		return chain.Proceed, nil
	}
	ok, err := l.reserve(sub.Host, max)
	switch {
	case err != nil:
		return chain.Verdict{}, err
	case !ok:
		return chain.Finish(chain.Outcome{Status: status.OutOfScope, Annotations: []string{"scope:" + ReasonMaxDoc},
			Denied: report.DenyOutOfScope, ScopeReason: ReasonMaxDoc}), nil
	}
	l.subMu.Lock()
	defer l.subMu.Unlock()
	if l.subHeld[r.Claim] == nil {
		l.subHeld[r.Claim] = map[string]int{}
	}
	l.subHeld[r.Claim][sub.Host]++
	return chain.Proceed, nil
}

// keepSubs counts the reservations Admit made for r's requests as URLs fetched, as many of
// each host as the fetch archived exchanges of it besides the claimed URL's own, and gives the
// rest back.
func (l *Limiter) keepSubs(r *chain.Record) error {
	held := l.takeSubs(r.Claim)
	if held == nil {
		return nil
	}
	for _, ex := range r.Result.Exchanges[1:] {
		host := l.deps.HostKey(ex.URL)
		if held[host] == 0 {
			continue
		}
		held[host]--
		if l.counters == nil {
			if err := l.keep(host); err != nil {
				return err
			}
		}
	}
	l.giveBackAll(held)
	return nil
}

// takeSubs takes the reservations Admit made for cl's requests out of the limiter's keeping.
func (l *Limiter) takeSubs(cl *frontier.Claim) map[string]int {
	l.subMu.Lock()
	defer l.subMu.Unlock()
	held := l.subHeld[cl]
	delete(l.subHeld, cl)
	return held
}

// giveBackAll gives back n reservations of each host of held.
func (l *Limiter) giveBackAll(held map[string]int) {
	for host, n := range held {
		for range n {
			l.giveBack(host)
		}
	}
}

// keep counts one reservation of host as a URL fetched, in the frontier's metadata.
func (l *Limiter) keep(host string) error {
	l.saveMu.Lock()
	defer l.saveMu.Unlock()
	l.mu.Lock()
	sc := l.counts[host]
	sc.reserved--
	sc.fetched++
	n := sc.fetched
	l.mu.Unlock()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	if err := l.env.Front.PutMeta(metaFetched+host, b[:]); err != nil {
		return fmt.Errorf("sitelimit: count the URLs of %s: %w", host, err)
	}
	return nil
}

// giveBack gives back one reservation of host.
func (l *Limiter) giveBack(host string) {
	if l.counters != nil {
		if _, err := l.counters.AddCounter(counterPrefix+host, -1); err != nil {
			l.env.Log.Warn("give back a URL of a host on the shared frontier", "host", host, "err", err)
		}
		return
	}
	l.mu.Lock()
	l.counts[host].reserved--
	l.mu.Unlock()
}

// reserve takes one of host's URLs if it has fetched fewer than max.
func (l *Limiter) reserve(host string, max int64) (bool, error) {
	if l.counters != nil {
		n, err := l.counters.AddCounter(counterPrefix+host, 1)
		if err != nil {
			return false, fmt.Errorf("count the URLs of %s on the shared frontier: %w", host, err)
		}
		if n <= max {
			return true, nil
		}
		if _, err := l.counters.AddCounter(counterPrefix+host, -1); err != nil {
			return false, fmt.Errorf("count the URLs of %s on the shared frontier: %w", host, err)
		}
		return false, nil
	}
	sc, err := l.count(host)
	if err != nil {
		return false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if sc.fetched+sc.reserved >= max {
		return false, nil
	}
	sc.reserved++
	return true, nil
}

// count returns host's count, read from the frontier the first time.
func (l *Limiter) count(host string) (*count, error) {
	l.mu.Lock()
	sc := l.counts[host]
	l.mu.Unlock()
	if sc != nil {
		return sc, nil
	}
	v, ok, err := l.env.Front.Meta(metaFetched + host)
	if err != nil {
		return nil, fmt.Errorf("sitelimit: read the URLs of %s: %w", host, err)
	}
	var n int64
	if ok && len(v) == 8 {
		n = int64(binary.BigEndian.Uint64(v))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if sc = l.counts[host]; sc == nil { // another worker may have read it meanwhile
		sc = &count{fetched: n}
		l.counts[host] = sc
	}
	return sc, nil
}

// givenUp reports whether host was given up, with the status of its last failure.
func (l *Limiter) givenUp(host string) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	code, ok := l.gaveUp[host]
	return code, ok
}

// Failure counts a request to host that got no response (err) against it when the host is to
// blame (HostFailure): the host is paused (MaxBackoff) and, past MaxHostFailures, given up, which
// a host-given-up event records. u is the claimed URL the request was made for. The error is
// fatal (an event could not be written).
func (l *Limiter) Failure(host string, err error, u frontier.URL) error {
	if code, ok := HostFailure(err); ok {
		return l.failed(host, code, u)
	}
	return nil
}

// failed counts a failure of host with status code.
func (l *Limiter) failed(host string, code int, u frontier.URL) error {
	l.mu.Lock()
	l.fails[host]++
	n := l.fails[host]
	_, already := l.gaveUp[host]
	giveUp := l.cfg.MaxHostFailures > 0 && n > l.cfg.MaxHostFailures && !already
	if giveUp {
		l.gaveUp[host] = code
	}
	l.mu.Unlock()
	if l.cfg.MaxBackoff > 0 {
		l.env.Front.HostBackoff(host, time.Now().Add(Backoff(l.retry, l.cfg.MaxBackoff, n-1)))
	}
	if !giveUp {
		return nil
	}
	l.env.Log.Warn("host given up", "host", host, "status", code, "failures", n)
	info := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
	if err := l.env.Events.Event(report.Event{Action: ActionGivenUp, Outcome: "failure", Reason: "max-host-failures",
		Message: fmt.Sprintf("%s: %d requests in a row got no response (the last: status %d); its other URLs are not fetched", host, n, code),
		URL:     &info, Labels: map[string]string{"host": host, "failures": strconv.Itoa(n)}}); err != nil {
		return fmt.Errorf("write host event: %w", err)
	}
	return nil
}

// Answered ends host's run of failures: it answered a request.
func (l *Limiter) Answered(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.fails, host)
}

// HostFailure returns the crawl.log status of a request that got no response when the host
// is to blame: it did not resolve, connect, complete TLS or answer in time, or broke the
// connection or the protocol. A failure of the browser on a page (an error that is not a
// *fetch.Error) counts as a broken connection. A refused address, an invalid URL, a proxy's
// refusal or a cancelled request are not the host's.
func HostFailure(err error) (int, bool) {
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		return status.ConnectBroken, true
	}
	switch fe.Kind {
	case fetch.DNS, fetch.Connect, fetch.Timeout, fetch.TLS, fetch.Broken, fetch.Protocol:
		return fe.Status(), true
	}
	return 0, false
}
