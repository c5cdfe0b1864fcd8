package crawl

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

// SiteLimits bound what the crawl does to each host (host[:port], as the frontier keys
// hosts): how many of its URLs are fetched, and how long it is tried while it does not
// answer. The zero value bounds nothing.
type SiteLimits struct {
	// MaxURLs, when positive, is the most URLs of one host fetched (FAST's max_doc): each
	// claimed URL that gets a response counts, whatever its status, and a robots.txt does
	// not. Further URLs of the host are not fetched: each gets a crawl.log line with status
	// -5000 and annotation scope:max-doc, a url-discover-denied event with that reason, and is
	// counted in the scope report under max-doc. The counts are the crawl's, kept in its
	// frontier: a resumed crawl goes on from them, and with a shared frontier they are the
	// crawl's across its processes (a process killed while fetching may leave one count per
	// request under way taken, so the host gets that many fewer). With the browser fetcher
	// a page counts once, for its own host; what Chromium loads with it (embeds) is part of
	// the page and is neither counted nor refused. Default 0: no limit. Negative is invalid.
	MaxURLs int64
	// MaxFailures, when positive, gives a host up once more than this many of its requests
	// in a row got no response (network errors and timeouts, robots.txt requests included;
	// an answer of any HTTP status ends the run; FAST's max_backoff_counter). A given-up
	// host's URLs claimed later are not fetched: each is left failed, with the status of the
	// host's last failure (-2, -4, -6, ...) and annotation host-given-up, and a host-given-up
	// event says when the host was given up. The count is this process's, for this run: a
	// resumed crawl tries the host again. Default 0: a host is never given up. Negative is
	// invalid.
	MaxFailures int
	// MaxBackoff, when positive, is the longest wait before a URL is tried again (its retry
	// delay, RetryDelay doubled per attempt, is cut to it) and turns host backoff on: after
	// each request that got no response, the whole host is paused for RetryDelay doubled per
	// failure in a row, at most MaxBackoff (FAST's max_backoff_delay). Default 0: retry
	// delays double without bound (up to 1024 × RetryDelay) and a failing host is not
	// paused. Negative is invalid.
	MaxBackoff time.Duration
}

// validate returns a *FieldError for an invalid field.
func (s SiteLimits) validate() error {
	negative := errors.New("must not be negative")
	switch {
	case s.MaxURLs < 0:
		return &FieldError{Field: "Sites.MaxURLs", Err: negative}
	case s.MaxFailures < 0:
		return &FieldError{Field: "Sites.MaxFailures", Err: negative}
	case s.MaxBackoff < 0:
		return &FieldError{Field: "Sites.MaxBackoff", Err: negative}
	}
	return nil
}

// Reasons and annotations of the site limits.
const (
	reasonMaxDoc      = "max-doc"             // scope reason of a URL beyond SiteLimits.MaxURLs
	noteHostGivenUp   = "host-given-up"       // crawl.log annotation of a URL of a given-up host
	noteOversizeDrop  = "dropped:oversize"    // crawl.log annotation of a capture Config.DropOversize dropped
	metaSiteFetched   = "crawl/site/fetched/" // + host: URLs of the host fetched (SiteLimits.MaxURLs), 8 bytes
	counterSitePrefix = "site/"               // + host: the shared frontier's counter of the host's fetched and reserved URLs
)

// siteGate keeps the per-host figures of SiteLimits: URLs fetched and reserved, failures in
// a row, hosts given up.
type siteGate struct {
	c   *crawler
	lim SiteLimits

	mu     sync.Mutex            // guards counts, fails and gaveUp
	counts map[string]*siteCount // by host, once read from the frontier (MaxURLs, own frontier)
	fails  map[string]int        // failures in a row, by host
	gaveUp map[string]int        // given-up hosts: the status of their last failure

	saveMu sync.Mutex // serialises the writes of counts: a later count is never overwritten by an earlier one

	held sync.Map // *frontier.Claim -> the host one of whose URLs it reserved (MaxURLs)
}

// siteCount is one host's URL count with the crawl's own frontier.
type siteCount struct {
	fetched  int64 // URLs with a response, all runs (stored under metaSiteFetched)
	reserved int64 // claims under way that may become responses
}

func newSiteGate(c *crawler) *siteGate {
	return &siteGate{c: c, lim: c.cfg.Sites, counts: map[string]*siteCount{}, fails: map[string]int{}, gaveUp: map[string]int{}}
}

func (*siteGate) Name() string { return "sites" }

// Before refuses the claimed URL when its host was given up (SiteLimits.MaxFailures) or has
// had its MaxURLs (the URL's settings), and otherwise reserves one of the host's URLs for it
// (kept by Recorded, given back by Release).
func (g *siteGate) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	u := r.URL()
	if code, ok := g.givenUp(u.Host); ok {
		return chain.Finish(chain.Outcome{Status: code, Annotations: []string{noteHostGivenUp}, FetchEvent: true}), nil
	}
	max := r.Settings.MaxURLs
	if max <= 0 {
		return chain.Proceed, nil
	}
	ok, err := g.reserve(u.Host, max)
	if err != nil {
		return chain.Verdict{}, err
	}
	if !ok {
		return chain.Finish(chain.Outcome{Status: status.OutOfScope, Annotations: []string{"scope:" + reasonMaxDoc},
			Denied: report.DenyOutOfScope, ScopeReason: reasonMaxDoc}), nil
	}
	g.held.Store(r.Claim, u.Host)
	return chain.Proceed, nil
}

// Failed counts a fetch of the claimed URL that got no response against its host when the
// host is to blame (hostFailure).
func (g *siteGate) Failed(_ context.Context, r *chain.Record, err error) (chain.Verdict, error) {
	if code, ok := hostFailure(err); ok {
		return chain.Proceed, g.failed(r.URL().Host, code, r.URL())
	}
	return chain.Proceed, nil
}

// After ends the host's run of failures: it answered.
func (g *siteGate) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	g.answered(r.URL().Host)
	return chain.Proceed, nil
}

// Recorded counts the URL's reservation as a URL fetched (it got a response), durably.
func (g *siteGate) Recorded(r *chain.Record) error {
	v, held := g.held.LoadAndDelete(r.Claim)
	if !held {
		return nil
	}
	host := v.(string)
	if g.c.counters() != nil {
		return nil // the server's counter holds the reservation as a fetched URL
	}
	g.saveMu.Lock()
	defer g.saveMu.Unlock()
	g.mu.Lock()
	sc := g.counts[host]
	sc.reserved--
	sc.fetched++
	n := sc.fetched
	g.mu.Unlock()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	return g.c.frontierErr(g.c.front.PutMeta(metaSiteFetched+host, b[:]))
}

// Release gives back a reservation whose URL got no response.
func (g *siteGate) Release(r *chain.Record) {
	v, held := g.held.LoadAndDelete(r.Claim)
	if !held {
		return
	}
	host := v.(string)
	if ctr := g.c.counters(); ctr != nil {
		if _, err := ctr.AddCounter(counterSitePrefix+host, -1); err != nil {
			g.c.log.Warn("give back a URL of a host on the shared frontier", "host", host, "err", err)
		}
		return
	}
	g.mu.Lock()
	g.counts[host].reserved--
	g.mu.Unlock()
}

// reserve takes one of host's URLs if it has fetched fewer than max.
func (g *siteGate) reserve(host string, max int64) (bool, error) {
	if ctr := g.c.counters(); ctr != nil {
		n, err := ctr.AddCounter(counterSitePrefix+host, 1)
		if err != nil {
			return false, fmt.Errorf("count the URLs of %s on the shared frontier: %w", host, err)
		}
		if n <= max {
			return true, nil
		}
		if _, err := ctr.AddCounter(counterSitePrefix+host, -1); err != nil {
			return false, fmt.Errorf("count the URLs of %s on the shared frontier: %w", host, err)
		}
		return false, nil
	}
	sc, err := g.count(host)
	if err != nil {
		return false, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if sc.fetched+sc.reserved >= max {
		return false, nil
	}
	sc.reserved++
	return true, nil
}

// count returns host's count, read from the frontier the first time.
func (g *siteGate) count(host string) (*siteCount, error) {
	g.mu.Lock()
	sc := g.counts[host]
	g.mu.Unlock()
	if sc != nil {
		return sc, nil
	}
	v, ok, err := g.c.front.Meta(metaSiteFetched + host)
	if err != nil {
		return nil, g.c.frontierErr(err)
	}
	var n int64
	if ok && len(v) == 8 {
		n = int64(binary.BigEndian.Uint64(v))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if sc = g.counts[host]; sc == nil { // another worker may have read it meanwhile
		sc = &siteCount{fetched: n}
		g.counts[host] = sc
	}
	return sc, nil
}

// givenUp reports whether host was given up, with the status of its last failure.
func (g *siteGate) givenUp(host string) (int, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	code, ok := g.gaveUp[host]
	return code, ok
}

// failed counts a request to host that got no response (status code): the host is paused
// (SiteLimits.MaxBackoff) and, past SiteLimits.MaxFailures, given up, which a
// host-given-up event records. u is the claim the request was made for.
func (g *siteGate) failed(host string, code int, u frontier.URL) error {
	g.mu.Lock()
	g.fails[host]++
	n := g.fails[host]
	_, already := g.gaveUp[host]
	giveUp := g.lim.MaxFailures > 0 && n > g.lim.MaxFailures && !already
	if giveUp {
		g.gaveUp[host] = code
	}
	g.mu.Unlock()
	if g.lim.MaxBackoff > 0 {
		g.c.front.HostBackoff(host, time.Now().Add(g.c.backoff(n-1)))
	}
	if !giveUp {
		return nil
	}
	g.c.log.Warn("host given up", "host", host, "status", code, "failures", n)
	info := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
	if err := g.c.events.Event(report.Event{Action: "host-given-up", Outcome: "failure", Reason: "max-host-failures",
		Message: fmt.Sprintf("%s: %d requests in a row got no response (the last: status %d); its other URLs are not fetched", host, n, code),
		URL:     &info, Labels: map[string]string{"host": host, "failures": strconv.Itoa(n)}}); err != nil {
		return fmt.Errorf("write host event: %w", err)
	}
	return nil
}

// answered ends host's run of failures: it answered a request.
func (g *siteGate) answered(host string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.fails, host)
}

// hostFailure returns the crawl.log status of a request that got no response when the host
// is to blame: it did not resolve, connect, complete TLS or answer in time, or broke the
// connection or the protocol. A failure of the browser on a page counts as a broken
// connection (as fetchFailed records it). A refused address, an invalid URL, a proxy's
// refusal or a cancelled request are not the host's.
func hostFailure(err error) (int, bool) {
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

// dropOversize reports whether the capture ex, the page's content, was cut at the response
// size limit (WARC-Truncated: length), for a URL whose settings drop such a page
// (Config.DropOversize). Its capture k is then marked so (crawl.log annotation
// dropped:oversize; metadata record dropped: oversize).
func dropOversize(ex *fetch.Exchange, k *chain.Capture) bool {
	if ex.Truncated != "length" {
		return false
	}
	k.AddField("dropped", "oversize")
	k.Annotate(noteOversizeDrop)
	return true
}
