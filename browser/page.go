package browser

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/amber-crawler/amber/fetch"
)

// recorder performs and records the requests of one page.
type recorder struct {
	t      *tab
	ctx    context.Context // bounds the page's requests; canceled when the page ends
	cancel context.CancelFunc
	// calls bounds the CDP commands of the requests (fulfil, fail); canceled once the
	// page is done, or at once when it is abandoned to a dead or hung browser.
	calls       context.Context
	callsCancel context.CancelFunc
	header      http.Header    // extra headers for the page's own requests
	admit       fetch.Admit    // decides the page's other requests; nil: all go
	wg          sync.WaitGroup // request goroutines

	mu      sync.Mutex // guards the fields below
	slots   []*fetch.Exchange
	kinds   []string  // one per slot: Chromium's resource type of the request
	flights []*flight // one per slot
	byNet   map[network.RequestID][]int
	// announced holds the requests the renderer announced (Network.requestWillBeSent) that
	// were neither paused nor landed yet, each with its landBound timer.
	announced map[network.RequestID]*time.Timer
	blocked   []fetch.Refusal
	failed    []fetch.Failure
	console   []ConsoleMessage // the page's console errors, at most maxConsole
	inflight  int
	landAfter time.Duration // landBound; shorter in tests
	changed   time.Time     // last request start or end
	moved     chan struct{} // closed (and replaced) at every request start and end
	// calm is set when the page settled with no request in flight and none starting
	// meanwhile (waitIdle); any request start or end clears it.
	calm     bool
	mainErr  error // the page's own request got no response
	mainSeen bool  // a main-frame document response was recorded

	// Guarded by t.mu (the tab's events set them, in order; see tab.verdictLocked).
	loader network.RequestID // the page's navigation: its document request's network ID
	epoch  int               // the tab's epoch from the commit of the page's document on; 0 before
	commit chan struct{}     // closed at the commit
}

// flight is a request's way through the page: it is in flight from its pause until the
// recorder has answered it (handled) and Chromium's renderer has taken in the whole answer
// (landed: Network.loadingFinished or loadingFailed for its network request ID). The
// renderer's event is the later one, so a wait for idle that ends on it cannot see the page
// before the answer reached it, however loaded the machine. Before its pause, a request the
// renderer announced (Network.requestWillBeSent, which the renderer sends before the
// browser pauses the request for amber) is in flight as announced.
type flight struct {
	net     network.RequestID // "" when Chromium sends no network events for it
	handled bool
	landed  bool
	done    bool
	timer   *time.Timer // landBound, started once handled
}

// landBound bounds the wait for a handled request's Network.loadingFinished or
// loadingFailed, which Chromium may not send (a request the page dropped meanwhile), and
// the wait for an announced request to be paused or to land.
const landBound = 3 * time.Second

// unlanded counts the requests taken out of flight by landBound rather than by Chromium's
// event, in all pages (the tests check that pages land by the event).
var unlanded atomic.Int64

// landBoundLocked is the recorder's landBound. r.mu must be held.
func (r *recorder) landBoundLocked() time.Duration {
	if r.landAfter != 0 {
		return r.landAfter
	}
	return landBound
}

// announce notes the renderer's Network.requestWillBeSent for net: the request is in
// flight from now, although the browser has not paused it for amber yet. A redirect's hops
// share the ID; a hop of a known request is movement, not another request.
func (r *recorder) announce(net network.RequestID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.movedLocked()
	if net == "" || r.byNet[net] != nil || r.announced[net] != nil {
		return
	}
	if r.announced == nil {
		r.announced = map[network.RequestID]*time.Timer{}
	}
	r.inflight++
	r.announced[net] = time.AfterFunc(r.landBoundLocked(), func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.announced[net] != nil {
			unlanded.Add(1)
			r.unannounceLocked(net)
		}
	})
}

// unannounceLocked takes an announced request out of flight (it was paused, or landed).
// r.mu must be held.
func (r *recorder) unannounceLocked(net network.RequestID) {
	tm := r.announced[net]
	if tm == nil {
		return
	}
	tm.Stop()
	delete(r.announced, net)
	r.inflight--
	r.movedLocked()
}

// begin reserves the next exchange slot for a paused request whose network request ID is
// net and whose resource type (Document, Image, Script, ...) is kind. It is called in event
// order, so the slots are in the order Chromium made the requests, and before Chromium's
// events of its end.
func (r *recorder) begin(net network.RequestID, kind string) int {
	r.wg.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.slots = append(r.slots, nil)
	r.kinds = append(r.kinds, kind)
	r.flights = append(r.flights, &flight{net: net})
	slot := len(r.slots) - 1
	if net != "" {
		r.unannounceLocked(net) // its flight takes over
		if r.byNet == nil {
			r.byNet = map[network.RequestID][]int{}
		}
		// A redirect's hops share the ID: the event at the end of the last lands them all.
		r.byNet[net] = append(r.byNet[net], slot)
	}
	r.inflight++
	r.movedLocked()
	return slot
}

// end notes that the recorder has answered slot's request (its goroutine is done). The
// request stays in flight until it lands, at most landBound more.
func (r *recorder) end(slot int) {
	r.mu.Lock()
	fl := r.flights[slot]
	fl.handled = true
	if fl.net == "" || fl.landed {
		r.doneLocked(fl)
	} else {
		fl.timer = time.AfterFunc(r.landBoundLocked(), func() {
			r.mu.Lock()
			if !fl.done {
				unlanded.Add(1)
				r.doneLocked(fl)
			}
			r.mu.Unlock()
		})
	}
	r.mu.Unlock()
	r.wg.Done()
}

// landed notes Chromium's Network.loadingFinished or loadingFailed for net.
func (r *recorder) landed(net network.RequestID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unannounceLocked(net)
	for _, slot := range r.byNet[net] {
		fl := r.flights[slot]
		fl.landed = true
		if fl.handled {
			r.doneLocked(fl)
		}
	}
}

// doneLocked takes fl out of flight. r.mu must be held.
func (r *recorder) doneLocked(fl *flight) {
	if fl.done {
		return
	}
	fl.done = true
	if fl.timer != nil {
		fl.timer.Stop()
	}
	r.inflight--
	r.movedLocked()
}

// stopTimers stops the landBound timers of a recorder whose page is over.
func (r *recorder) stopTimers() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, fl := range r.flights {
		if fl.timer != nil {
			fl.timer.Stop()
		}
	}
	for _, tm := range r.announced {
		tm.Stop()
	}
}

// movedLocked notes a request start or end and wakes waitIdle. r.mu must be held.
func (r *recorder) movedLocked() {
	r.changed = time.Now()
	r.calm = false
	close(r.moved)
	r.moved = make(chan struct{})
}

// willBound bounds the wait for what tells whose a held request is (see recorder.judge).
const willBound = time.Second

// judge waits for the commit of the page's document and for what tells whose a request
// is (tab.placeLocked): the renderer announces a request of the page, or one it made after
// it, soon after the commit. One of the previous page's made as it went may never be
// announced, and is taken for the previous page's at willBound.
func (r *recorder) judge(ev *cdpfetch.EventRequestPaused) verdict {
	t := r.t
	select {
	case <-r.commit:
	case <-r.ctx.Done():
		return stale
	}
	if ev.NetworkID == "" {
		return stale // paused before the commit, and nothing tells
	}
	var bound <-chan time.Time
	for {
		r.mu.Lock()
		moved := r.moved // every announcement closes it (announce)
		r.mu.Unlock()
		t.mu.Lock()
		v := t.placeLocked(ev, r.epoch)
		t.mu.Unlock()
		if v != held {
			return v
		}
		if bound == nil {
			tm := time.NewTimer(willBound)
			defer tm.Stop()
			bound = tm.C
		}
		select {
		case <-moved:
		case <-bound:
			return stale
		case <-r.ctx.Done():
			return stale
		}
	}
}

// forget takes slot's request out of flight as soon as it is answered: a request of the
// previous page, whose end Chromium may never report (its document is gone).
func (r *recorder) forget(slot int) {
	r.mu.Lock()
	r.flights[slot].landed = true
	r.mu.Unlock()
}

// handle answers one paused request (v says whose it is): performed by fetch.Client and
// fulfilled, or failed.
func (r *recorder) handle(ev *cdpfetch.EventRequestPaused, slot int, v verdict) {
	defer r.end(slot)
	cctx, cancel := context.WithTimeout(r.calls, callTimeout)
	defer cancel()
	fail := func(reason network.ErrorReason) {
		chromedp.Call(cctx, cdpfetch.FailRequest, cdpfetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: reason})
	}
	req := ev.Request
	u := req.URL
	if isLocal(u) {
		// data:, blob: and the like are served by Chromium itself.
		chromedp.Call(cctx, cdpfetch.ContinueRequest, cdpfetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	if v == held {
		v = r.judge(ev) // nothing of it reaches the server before
	}
	if v == stale {
		r.forget(slot)
		fail(network.ErrorReasonAborted)
		return
	}
	isPage := v == pageDoc
	if r.refuse(req, isPage) {
		fail(network.ErrorReasonBlockedByClient)
		return
	}
	h := r.sendHeader(cctx, req, isPage)
	ex, err := r.perform(slot, fetch.Request{URL: u, Method: req.Method, Header: h}, isPage)
	if err != nil {
		fail(errorReason(err))
		return
	}
	if ex.StatusCode < 200 || ex.StatusCode > 599 {
		r.addFailed(u, ErrNoResponse)
		fail(network.ErrorReasonFailed)
		return
	}
	body, headers := fulfilment(ex)
	// The exchange is recorded whatever Chromium makes of the answer (the page may be gone).
	chromedp.Call(cctx, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
		RequestID:       ev.RequestID,
		ResponseCode:    int64(ex.StatusCode),
		ResponseHeaders: headers,
		Body:            body,
	})
}

// refuse reports whether the recorder refuses to perform req (isPage: the page's own
// document), noting why: a URL that is not HTTP(S) and a request with a body among the page's
// failures (ErrScheme, ErrRequestBody), a URL the page's admission refuses (see admitted)
// among its refusals (each URL once).
func (r *recorder) refuse(req *network.Request, isPage bool) bool {
	u := req.URL
	if !isHTTP(u) {
		// ws:, ftp: and the rest would go to the network without fetch.Client.
		r.addFailed(u, ErrScheme)
		return true
	}
	if reason := r.admitted(u, isPage); reason != "" {
		r.mu.Lock()
		if !slices.ContainsFunc(r.blocked, func(b fetch.Refusal) bool { return b.URL == u }) {
			r.blocked = append(r.blocked, fetch.Refusal{URL: u, Reason: reason})
		}
		r.mu.Unlock()
		return true
	}
	if req.HasPostData {
		r.addFailed(u, ErrRequestBody)
		return true
	}
	return false
}

// admitted asks the page's admission (fetch.Request.Admit) about a request of the page to u:
// "" lets it go. The page's own first request is not asked (it is what was asked for).
func (r *recorder) admitted(u string, isPage bool) string {
	if r.admit == nil {
		return ""
	}
	if isPage {
		r.mu.Lock()
		own := !r.mainSeen
		r.mu.Unlock()
		if own {
			return ""
		}
	}
	return r.admit(r.ctx, u)
}

// sendHeader returns the header req is performed with: the paused request's header, with
// the page's extra header when req is the page's own document (isPage; a recrawl's
// validators, If-None-Match and If-Modified-Since, only until the page got a response, so
// not on a redirect's target), and with the cookies of Chromium's store and of the jar
// (Config.Jar).
func (r *recorder) sendHeader(ctx context.Context, req *network.Request, isPage bool) http.Header {
	t := r.t
	u := req.URL
	h := requestHeader(req.Headers)
	if isPage {
		r.mu.Lock()
		first := !r.mainSeen
		r.mu.Unlock()
		for k, vs := range r.header {
			ck := http.CanonicalHeaderKey(k)
			if !first && (ck == "If-None-Match" || ck == "If-Modified-Since") {
				continue // a recrawl's validators are the page's own, not its redirect target's
			}
			h[ck] = vs
		}
	}
	// Recent Chromium puts the Cookie header in the paused request (leaving it out where
	// the request must go without, such as fetch() with credentials "omit"); older ones
	// add cookies after this stage, so until a paused request shows a cookie the browser's
	// store is asked.
	if h.Get("Cookie") != "" {
		t.inst.pausedCookies.Store(true)
	} else if !t.inst.pausedCookies.Load() {
		if c := r.cookies(ctx, u); c != "" {
			h.Set("Cookie", c)
		}
	}
	// A request with Chromium's cookies is sent them as they are (fetch.Client leaves a
	// request's own Cookie alone), so the jar's are added here; one without is sent the
	// configured Cookie fields and the jar's by the client.
	if jar := t.f.cfg.Jar; jar != nil && len(h.Values("Cookie")) > 0 {
		h["Cookie"] = []string{withJarCookies(jar, u, h.Values("Cookie"))}
	}
	return h
}

// perform performs req with the fetcher's client (Config.Client) and records the exchange
// in slot; for the page's own document (isPage) it notes that the page got a response. A
// failure is noted among the page's failures (unless the page was canceled) and, while the
// page's own document got no response, as the page's error.
func (r *recorder) perform(slot int, req fetch.Request, isPage bool) (*fetch.Exchange, error) {
	ex, err := r.t.f.cfg.Client.Do(r.ctx, req)
	if err != nil {
		if r.ctx.Err() == nil || !errors.Is(r.ctx.Err(), context.Canceled) {
			r.addFailed(req.URL, err)
		}
		r.mu.Lock()
		if isPage && !r.mainSeen && r.mainErr == nil {
			r.mainErr = err
		}
		r.mu.Unlock()
		return nil, err
	}
	r.mu.Lock()
	r.slots[slot] = ex
	if isPage {
		r.mainSeen = true
	}
	r.mu.Unlock()
	return ex, nil
}

func (r *recorder) addFailed(u string, err error) {
	r.mu.Lock()
	r.failed = append(r.failed, fetch.Failure{URL: u, Err: err})
	r.mu.Unlock()
}

// cookies returns the Cookie header Chromium's cookie store has for u.
func (r *recorder) cookies(ctx context.Context, u string) string {
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{u}})
	if err != nil || len(res.Cookies) == 0 {
		return ""
	}
	cs := slices.Clone(res.Cookies)
	// RFC 6265 §5.4: longer paths first.
	slices.SortStableFunc(cs, func(a, b *network.Cookie) int { return cmp.Compare(len(b.Path), len(a.Path)) })
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

// withJarCookies returns the Cookie value for a request to u: Chromium's cookies (the
// values of its Cookie header) first, then the jar's cookies for u whose names Chromium's do
// not use, in the jar's order.
func withJarCookies(jar http.CookieJar, u string, chromium []string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return strings.Join(chromium, "; ")
	}
	parts := slices.Clone(chromium)
	names := map[string]bool{}
	for _, v := range chromium {
		for _, pair := range strings.Split(v, ";") {
			name, _, _ := strings.Cut(pair, "=")
			names[strings.TrimSpace(name)] = true
		}
	}
	for _, c := range jar.Cookies(pu) {
		if names[c.Name] {
			continue
		}
		// String writes "name=value", quoting a value that needs it.
		if s := (&http.Cookie{Name: c.Name, Value: c.Value, Quoted: c.Quoted}).String(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// keepCookies copies the cookies Chromium holds for the URLs of the page's exchanges into
// the jar (Config.Jar), so that those its scripts set reach the plain fetcher and later
// browsers too.
func (t *tab) keepCookies(exs []*fetch.Exchange) {
	jar := t.f.cfg.Jar
	if jar == nil || len(exs) == 0 {
		return
	}
	var urls []string
	for _, ex := range exs {
		if ex != nil && !slices.Contains(urls, ex.URL) {
			urls = append(urls, ex.URL)
		}
	}
	ctx, cancel := context.WithTimeout(t.ctx, callTimeout)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: urls})
	if err != nil {
		return // the page's own Set-Cookie fields are in the jar already (fetch.Client)
	}
	for _, c := range res.Cookies {
		host := strings.TrimPrefix(c.Domain, ".")
		if host == "" || c.Name == "" {
			continue
		}
		scheme := "http"
		if c.Secure {
			scheme = "https"
		}
		hc := &http.Cookie{Name: c.Name, Value: c.Value, Path: c.Path, Secure: c.Secure, HttpOnly: c.HTTPOnly}
		if strings.HasPrefix(c.Domain, ".") {
			hc.Domain = c.Domain // a domain cookie; without Domain it is host-only
		}
		if !c.Session && c.Expires > 0 {
			sec, frac := math.Modf(c.Expires)
			hc.Expires = time.Unix(int64(sec), int64(frac*1e9))
		}
		switch c.SameSite {
		case network.CookieSameSiteStrict:
			hc.SameSite = http.SameSiteStrictMode
		case network.CookieSameSiteLax:
			hc.SameSite = http.SameSiteLaxMode
		case network.CookieSameSiteNone:
			hc.SameSite = http.SameSiteNoneMode
		}
		jar.SetCookies(&url.URL{Scheme: scheme, Host: bracketHost(host), Path: c.Path}, []*http.Cookie{hc})
	}
}

// bracketHost writes an IPv6 address in brackets, for a URL's host.
func bracketHost(h string) string {
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		return "[" + h + "]"
	}
	return h
}

// waitIdle waits, at most bound, until the network is idle: no request in flight (see
// flight), then the page settled (settle returned; in a tab, the page rendered two frames
// and ran the tasks they queued, so that what it does on the last answers has run) without
// a request starting or ending meanwhile, then quiet more without one. It sleeps on the
// requests' own starts and ends and on the page (no polling); its only timers are bound
// and quiet. A page that cannot be asked to settle (settle fails: it navigated away, say)
// counts as settled; a request its next document makes is movement all the same. A nil
// settle settles at once. It returns at once when nothing moved since the network was
// last found idle, and ctx's error when ctx ends first.
func (r *recorder) waitIdle(ctx context.Context, settle func(context.Context) error, quiet, bound time.Duration) error {
	bctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var hush *time.Timer
	defer func() {
		if hush != nil {
			hush.Stop()
		}
	}()
	ended := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return nil // the bound
	}
	for {
		r.mu.Lock()
		busy, moved, calm, since := r.inflight > 0, r.moved, r.calm, time.Since(r.changed)
		r.mu.Unlock()
		switch {
		case busy:
			select {
			case <-moved:
			case <-bctx.Done():
				return ended()
			}
		case !calm:
			if settle != nil {
				_ = settle(bctx) // an error is a page gone or the bound, told apart below
				if bctx.Err() != nil {
					return ended()
				}
			}
			r.mu.Lock()
			if r.moved == moved {
				r.calm = true
			}
			r.mu.Unlock()
		case since >= quiet:
			return nil
		default:
			if hush == nil {
				hush = time.NewTimer(quiet - since)
			} else {
				hush.Reset(quiet - since)
			}
			select {
			case <-moved:
			case <-hush.C:
			case <-bctx.Done():
				return ended()
			}
		}
	}
}

// requestHeader converts the headers of a paused request. CDP joins repeated fields with
// newlines.
func requestHeader(hs network.Headers) http.Header {
	h := http.Header{}
	for k, v := range hs {
		s, ok := v.(string)
		if !ok {
			continue
		}
		for _, line := range strings.Split(s, "\n") {
			h.Add(k, line)
		}
	}
	return h
}

// fulfilment is the answer handed to Chromium: the decoded payload, and the response
// header without the framing fields that no longer describe it.
func fulfilment(ex *fetch.Exchange) ([]byte, []*cdpfetch.HeaderEntry) {
	var body []byte
	if rc, err := ex.Body(); err == nil {
		// A body cut short (size limit, broken coding) is handed over as far as it goes,
		// as a browser would render a truncated response.
		body, _ = io.ReadAll(rc)
		rc.Close()
	}
	decoded := true
	for _, v := range ex.Header.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(c)) {
			case "", "identity", "gzip", "x-gzip", "deflate":
			default:
				decoded = false // fetch left it encoded; let Chromium see the coding
			}
		}
	}
	var headers []*cdpfetch.HeaderEntry
	keys := make([]string, 0, len(ex.Header))
	for k := range ex.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch http.CanonicalHeaderKey(k) {
		case "Transfer-Encoding", "Content-Length", "Connection", "Keep-Alive", "Trailer":
			continue
		case "Content-Encoding":
			if decoded {
				continue
			}
		}
		for _, v := range ex.Header[k] {
			headers = append(headers, &cdpfetch.HeaderEntry{Name: k, Value: v})
		}
	}
	return body, headers
}

// errorReason maps a fetch failure to the network error Chromium is given.
func errorReason(err error) network.ErrorReason {
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		return network.ErrorReasonFailed
	}
	switch fe.Kind {
	case fetch.DNS:
		return network.ErrorReasonNameNotResolved
	case fetch.Connect:
		return network.ErrorReasonConnectionRefused
	case fetch.Timeout:
		return network.ErrorReasonTimedOut
	case fetch.Blocked:
		return network.ErrorReasonAddressUnreachable
	case fetch.Broken:
		return network.ErrorReasonConnectionReset
	case fetch.Canceled:
		return network.ErrorReasonAborted
	}
	return network.ErrorReasonFailed
}

// isLocal reports whether u is served inside the browser, with no network.
func isLocal(u string) bool {
	scheme, _, _ := strings.Cut(strings.ToLower(u), ":")
	switch scheme {
	case "data", "blob", "about", "filesystem", "chrome", "chrome-extension", "devtools":
		return true
	}
	return false
}

func isHTTP(u string) bool {
	l := strings.ToLower(u)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// capture loads one page in the tab. A *browserError means the tab or the browser failed
// and the page may be retried elsewhere.
func (t *tab) capture(ctx context.Context, req fetch.Request) (*Page, error) {
	pageURL, header := req.URL, req.Header
	if t.crashed.Load() || t.inst.dead() {
		return nil, &browserError{err: errors.New("tab gone before the page")}
	}
	pctx, pcancel := context.WithTimeout(t.ctx, t.f.cfg.PageTimeout)
	defer pcancel()
	stop := context.AfterFunc(ctx, pcancel)
	defer stop()

	r := &recorder{t: t, ctx: pctx, cancel: pcancel, header: header, admit: req.Admit, changed: time.Now(), moved: make(chan struct{}), commit: make(chan struct{})}
	v := &visit{t: t, r: r, w: &mainWorld{t: t}, p: &Page{URL: pageURL}}
	r.calls, r.callsCancel = context.WithCancel(t.ctx)
	defer r.callsCancel()
	t.drainLoads()
	t.mu.Lock()
	t.rec = r
	t.mu.Unlock()

	navErr, err := v.open(ctx, pctx)
	if err != nil {
		return nil, t.abandon(r, err)
	}
	if navErr == nil {
		if err := v.collect(ctx); err != nil {
			return nil, t.abandon(r, err)
		}
	}
	t.finish(r, false)
	if ctx.Err() != nil {
		t.broken = true
		closeAll(r.slots)
		return nil, ctx.Err()
	}
	return v.result(navErr)
}

// visit is the capture of one page in a tab (tab.capture): the recorder of its requests,
// amber's world in its main frame, and the Page as far as it got. Its methods take the
// caller's context (ctx) and the page's (pctx: it ends at Config.PageTimeout or with ctx).
type visit struct {
	t *tab
	r *recorder
	w *mainWorld
	p *Page
}

// stepErr sorts the failure of a step of the visit: the browser went away (a
// *browserError), the caller gave up (ctx's error), or the page ran out of its time (nil,
// and p.TimedOut is set). Any other failure is nil too: the capture goes on with what there
// is.
func (v *visit) stepErr(ctx, pctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case v.t.isBrowserLoss(err):
		return &browserError{err: err}
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(pctx.Err(), context.DeadlineExceeded):
		v.p.TimedOut = true
	}
	return nil
}

// open navigates the tab to the page and, once its document is parsed, runs the behaviours
// (see behave). navErr is the navigation's own failure (Chromium refused it or reported a
// network error, or it made no new document): the page is not read, though what its requests
// recorded may still be its capture. err ends the capture (see stepErr); a page that ran out
// of time is kept as far as it got.
func (v *visit) open(ctx, pctx context.Context) (navErr, err error) {
	res, err := v.navigate(pctx)
	var cdpErr *cdproto.Error
	switch {
	case err != nil && errors.As(err, &cdpErr):
		return fmt.Errorf("browser: navigate %s: %w", v.p.URL, err), nil
	case err != nil:
		return nil, v.stepErr(ctx, pctx, err)
	case res.ErrorText != "":
		return fmt.Errorf("browser: navigate %s: %s", v.p.URL, res.ErrorText), nil
	case res.LoaderID == "":
		return fmt.Errorf("browser: navigate %s: no new document", v.p.URL), nil
	}
	// The behaviours start once the document is parsed (DOMContentLoaded), while its
	// subresources load; the load event is waited for after them.
	loaded, err := v.t.waitReady(pctx)
	if err = v.stepErr(ctx, pctx, err); err != nil || v.p.TimedOut {
		return nil, err
	}
	return nil, v.behave(ctx, pctx, loaded)
}

// navigate navigates the tab to the page's URL and notes the navigation's loader as the
// page's document request when no paused request did. A navigation within the document
// (the previous page's URL with another fragment) makes no request and no new document, so
// it is made again from about:blank.
func (v *visit) navigate(ctx context.Context) (page.NavigateResult, error) {
	t, r := v.t, v.r
	res, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: v.p.URL})
	if err == nil && res.ErrorText == "" && res.LoaderID == "" {
		if err = t.blank(ctx); err == nil {
			res, err = chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: v.p.URL})
		}
	}
	if err == nil {
		t.mu.Lock()
		if r.loader == "" {
			r.loader = network.RequestID(res.LoaderID) // its document was not paused
		}
		t.mu.Unlock()
	}
	return res, err
}

// behave runs the behaviours on the page, whose document is parsed: it scrolls it, waits
// for the load event unless loaded, then for the network to go idle. It stops when the page
// runs out of time; its error is stepErr's.
func (v *visit) behave(ctx, pctx context.Context, loaded bool) error {
	cfg := v.t.f.cfg
	if err := v.stepErr(ctx, pctx, v.t.scroll(pctx, v.r, v.w)); err != nil || v.p.TimedOut {
		return err
	}
	if !loaded {
		if err := v.stepErr(ctx, pctx, v.t.waitLoad(pctx)); err != nil || v.p.TimedOut {
			return err
		}
	}
	return v.stepErr(ctx, pctx, v.r.waitIdle(pctx, v.w.settle, cfg.NetworkIdle, cfg.IdleTimeout))
}

// collect reads the page's outlinks, HTML and screenshot (tab.collect) with a budget of its
// own, so that a page that timed out still gets them when the renderer answers. A renderer
// that does not answer while the browser does (a script that never yields, say) is no
// error: the page is kept without them and the tab is not reused. The error is ctx's when
// the caller gave up, a *browserError when the browser went away.
func (v *visit) collect(ctx context.Context) error {
	t := v.t
	cctx, ccancel := context.WithTimeout(t.ctx, min(collectBudget, t.f.cfg.PageTimeout/2))
	stop := context.AfterFunc(ctx, ccancel)
	err := t.collect(cctx, v.p, v.w)
	stop()
	ccancel()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case t.isBrowserLoss(err) || !t.inst.healthy():
		return &browserError{err: err}
	}
	t.broken = true
	t.f.log.Warn("collect page", "url", v.p.URL, "err", err)
	return nil
}

// result returns the Page with what the recorder, finished, kept: the exchanges, refusals
// and failures. A page whose own document got no response is an error: the request's
// failure, else navErr, else no response (within Config.PageTimeout when it timed out).
func (v *visit) result(navErr error) (*Page, error) {
	r, p := v.r, v.p
	v.t.keepCookies(r.slots)
	for i, ex := range r.slots {
		if ex != nil {
			p.Exchanges = append(p.Exchanges, ex)
			p.Types = append(p.Types, r.kinds[i])
		}
	}
	p.Blocked = r.blocked
	p.Failed = r.failed
	p.Console = r.console
	if !r.mainSeen {
		closeAll(p.Exchanges)
		switch {
		case r.mainErr != nil:
			return nil, r.mainErr
		case navErr != nil:
			return nil, navErr
		case p.TimedOut:
			return nil, fmt.Errorf("browser: %s: no response within %v", p.URL, v.t.f.cfg.PageTimeout)
		}
		return nil, fmt.Errorf("browser: %s: no response", p.URL)
	}
	if p.FinalURL == "" {
		p.FinalURL = p.URL
	}
	return p, nil
}

// finish detaches the recorder and waits for its requests; those still running are
// canceled (their context is the page's).
func (t *tab) finish(r *recorder, abandoned bool) {
	t.mu.Lock()
	t.rec = nil
	t.mu.Unlock()
	r.cancel()
	if abandoned {
		r.callsCancel() // the browser may not answer: do not wait for it
	}
	r.wg.Wait()
	r.callsCancel()
	r.stopTimers()
}

// abandon ends a page that failed: its exchanges are closed.
func (t *tab) abandon(r *recorder, err error) error {
	t.broken = true
	t.finish(r, true)
	closeAll(r.slots)
	return err
}

// blank navigates the tab to about:blank.
func (t *tab) blank(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, resetTimeout)
	defer cancel()
	_, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: "about:blank"})
	return err
}

func closeAll(exs []*fetch.Exchange) {
	for _, ex := range exs {
		if ex != nil {
			ex.Close()
		}
	}
}

// descendJS scrolls the document down a viewport at a time until the viewport reaches its
// bottom (or the page scrolls no further, or %d ms have passed), and reports the bottom of
// the viewport and the height of the document. A step is one viewport, so that every part
// of the page is in view in some frame, and each step is taken in an animation frame
// callback: the rendering update that follows in the same frame computes intersections at
// the new position (loading=lazy images, IntersectionObserver) before the next step, so the
// walk takes one frame per viewport and never sleeps. It ends with one more frame so that
// the observers of the last position have run their callbacks.
const descendJS = `(async (budget) => {
	const end = Date.now() + budget;
	const frame = () => new Promise(resolve => {
		requestAnimationFrame(resolve);
		// A bound, not a pause: a page that gets no frames (hidden) still walks, slowly.
		setTimeout(resolve, 1000);
	});
	const el = document.scrollingElement || document.documentElement || document.body;
	await frame();
	for (;;) {
		const bottom = Math.ceil(window.scrollY + window.innerHeight);
		const height = el ? el.scrollHeight : 0;
		if (bottom >= height || Date.now() >= end) break;
		const y = window.scrollY;
		// instant: a page's scroll-behavior: smooth would spread the step over many frames.
		window.scrollBy({top: Math.max(200, window.innerHeight), behavior: 'instant'});
		await frame();
		if (window.scrollY === y) break; // the page does not scroll further
	}
	await frame();
	return [Math.ceil(window.scrollY + window.innerHeight), el ? el.scrollHeight : 0];
})(%d)`

// scroll walks the main frame down to the bottom (descendJS), waits for the network to go
// idle there, and goes on while the document keeps growing, so that lazy images and
// infinite lists load; it stops as soon as the height is unchanged after the network went
// idle. It is bounded by
// Config.BehaviorTimeout; running out of that time is not an error.
func (t *tab) scroll(ctx context.Context, r *recorder, w *mainWorld) error {
	cfg := t.f.cfg
	bctx, cancel := context.WithTimeout(ctx, cfg.BehaviorTimeout)
	defer cancel()
	lastHeight := -1
	for {
		budget := cfg.BehaviorTimeout
		if d, ok := bctx.Deadline(); ok {
			budget = time.Until(d)
		}
		var pos [2]int
		if err := w.eval(bctx, fmt.Sprintf(descendJS, budget.Milliseconds()), true, &pos); err != nil {
			return behaviourErr(ctx, err)
		}
		if pos[1] == lastHeight {
			return nil
		}
		lastHeight = pos[1]
		// At the bottom: let what the walk triggered start and arrive, then look again.
		if err := r.waitIdle(bctx, w.settle, cfg.NetworkIdle, cfg.IdleTimeout); err != nil {
			return behaviourErr(ctx, err)
		}
		if pos[0] < pos[1] {
			continue // the walk stopped short of the bottom (the page would not scroll)
		}
		// The page settled at the bottom (waitIdle: its observers ran there, and what they
		// started arrived), so its height now is final unless it grew: read at once (the
		// read lays the page out; no frame is drawn for it) rather than by another walk.
		var height int
		if err := w.eval(bctx, heightJS, false, &height); err != nil {
			return behaviourErr(ctx, err)
		}
		if height <= pos[1] {
			return nil
		}
	}
}

// heightJS is the height of the document, as descendJS reads it.
const heightJS = `(() => {
	const el = document.scrollingElement || document.documentElement || document.body;
	return el ? el.scrollHeight : 0;
})()`

// settleJS resolves after two animation frames and a task: the first frame's rendering
// update runs the page's observers at the current state (IntersectionObserver, lazy
// images), and the tasks queued until then (their callbacks, the handlers of the answers
// that just landed) run before the second frame's task. A request they start is announced
// by the renderer (Network.requestWillBeSent) before the promise's value reaches amber.
const settleJS = `new Promise(resolve => {
	requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => resolve(true), 0)));
	// A bound, not a pause: a page that gets no frames (hidden) still settles.
	setTimeout(() => resolve(true), 1000);
})`

// mainWorld is amber's isolated world in the tab's main frame (see world), made when it is
// first needed and made again when the frame has a new document.
type mainWorld struct {
	t  *tab
	id runtime.ExecutionContextID
}

// eval evaluates expr in the world (awaiting it when it is a promise, with await) and
// decodes its JSON value into v. A world lost to a new document is made again, once.
func (w *mainWorld) eval(ctx context.Context, expr string, await bool, v any) error {
	for try := 0; ; try++ {
		if w.id == 0 {
			id, err := w.t.world(ctx, w.t.targetID)
			if err != nil {
				return err
			}
			w.id = id
		}
		err := w.t.evaluate(ctx, w.id, expr, await, v)
		var cdpErr *cdproto.Error
		if err == nil || try > 0 || !errors.As(err, &cdpErr) {
			return err
		}
		w.id = 0
	}
}

// settle waits for the page to settle (settleJS), for waitIdle.
func (w *mainWorld) settle(ctx context.Context) error {
	var ok bool
	return w.eval(ctx, settleJS, true, &ok)
}

// behaviourErr drops errors that only mean the behaviour ran out of its own time.
func behaviourErr(page context.Context, err error) error {
	if page.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	var cdpErr *cdproto.Error
	if errors.As(err, &cdpErr) {
		return nil // the page navigated away or its context went; nothing to scroll
	}
	return err
}

// world creates an isolated JavaScript world in a frame: it sees the DOM, not the page's
// globals, so the page cannot tamper with what is read.
func (t *tab) world(ctx context.Context, frame cdp.FrameID) (runtime.ExecutionContextID, error) {
	res, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID:   frame,
		WorldName: "amber",
	})
	if err != nil {
		return 0, err
	}
	return res.ExecutionContextID, nil
}

// eval evaluates expr in the world and decodes its JSON value into v.
func (t *tab) eval(ctx context.Context, world runtime.ExecutionContextID, expr string, v any) error {
	return t.evaluate(ctx, world, expr, false, v)
}

func (t *tab) evaluate(ctx context.Context, world runtime.ExecutionContextID, expr string, await bool, v any) error {
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    expr,
		ContextID:     world,
		ReturnByValue: new(true),
		Silent:        new(true),
		AwaitPromise:  new(await),
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return &cdproto.Error{Message: "script exception: " + res.ExceptionDetails.Text}
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return &cdproto.Error{Message: "script returned no value"}
	}
	return json.Unmarshal([]byte(res.Result.Value), v)
}

// linksJS lists the a[href] and area[href] of a document, resolved against its base URL.
const linksJS = `(() => {
	const robots = Array.from(document.querySelectorAll('meta[name]'))
		.filter(m => m.name.trim().toLowerCase() === 'robots' && !m.closest('noscript'))
		.map(m => (m.content || '').toLowerCase()).join(',');
	const frameNoFollow = /(^|[\s,])(nofollow|none)([\s,]|$)/.test(robots);
	return Array.from(document.querySelectorAll('a[href], area[href]'), e => ({
		context: e.localName,
		url: e.href,
		nofollow: frameNoFollow || (e.relList ? e.relList.contains('nofollow') : false),
	}));
})()`

// frameLink is one entry of linksJS's answer.
type frameLink struct {
	Context  string `json:"context"`
	URL      string `json:"url"`
	NoFollow bool   `json:"nofollow"`
}

// documentJS reads the main frame's rendered HTML, title and URL, and scrolls back to the
// top for the screenshot.
const documentJS = `(() => {
	const d = document;
	let html = d.documentElement ? d.documentElement.outerHTML : '';
	if (d.doctype) html = new XMLSerializer().serializeToString(d.doctype) + '\n' + html;
	window.scrollTo({top: 0, left: 0, behavior: 'instant'});
	return [html, d.title, d.location.href];
})()`

// collect reads outlinks from every frame, the main frame's HTML, title and URL, and the
// screenshot. The main frame is read in w, the world the behaviours ran in (a world is a
// JavaScript context of its own, made by the renderer for each new one); each other frame
// in a world made for it.
func (t *tab) collect(ctx context.Context, p *Page, w *mainWorld) error {
	tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return err
	}
	var frames []cdp.FrameID
	var walk func(ft *page.FrameTree)
	walk = func(ft *page.FrameTree) {
		if ft == nil || ft.Frame == nil {
			return
		}
		frames = append(frames, ft.Frame.ID)
		for _, c := range ft.ChildFrames {
			walk(c)
		}
	}
	walk(tree.FrameTree)

	seen := map[string]bool{}
	for i, fr := range frames {
		var links []frameLink
		if i == 0 {
			var doc [3]string
			if err := w.eval(ctx, documentJS, false, &doc); err != nil {
				return err
			}
			p.HTML, p.Title, p.FinalURL = doc[0], doc[1], doc[2]
			if err := w.eval(ctx, linksJS, false, &links); err != nil {
				return err
			}
		} else {
			world, err := t.world(ctx, fr)
			if err != nil {
				continue // a frame that went away meanwhile
			}
			if err := t.eval(ctx, world, linksJS, &links); err != nil {
				continue
			}
		}
		for _, l := range links {
			if !isHTTP(l.URL) {
				continue
			}
			// A URL linked several times is followed unless every link to it says nofollow
			// (as extract does for a parsed page).
			key := l.Context + " " + l.URL
			if !seen[key] {
				seen[key] = true
				p.Outlinks = append(p.Outlinks, fetch.Link{URL: l.URL, Context: l.Context + "/@href", NoFollow: l.NoFollow})
				continue
			}
			if !l.NoFollow {
				for j := range p.Outlinks {
					if o := &p.Outlinks[j]; o.URL == l.URL && o.Context == l.Context+"/@href" {
						o.NoFollow = false
					}
				}
			}
		}
	}
	if t.f.cfg.Screenshot {
		// Fast PNG compression: the image is the same, the file somewhat larger, and the
		// encoding takes a fraction of the default's CPU.
		shot, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: new(true),
		})
		if err != nil {
			return err
		}
		p.Screenshot = shot.Data
	}
	return nil
}
