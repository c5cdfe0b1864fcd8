// Package browser is amber's headless-Chromium fetcher, the Brozzler-style way of capturing
// a page: it loads the page in Chromium (driven with chromedp), runs behaviours (scroll to
// the bottom a viewport per animation frame so that lazy content loads, and on while the
// page grows; wait for the network to go idle), and returns every request the browser made
// as a recorded exchange (with the kind of request Chromium made), the outlinks of the
// rendered DOM of every frame, the rendered HTML, a screenshot and the errors the page
// reported on its console. Its waits end on signals (DOMContentLoaded and the load event, animation
// frames, the start and end of the requests it performs); the only timers are bounds and
// the optional quiet period of Config.NetworkIdle.
//
// Chromium never talks to the network itself: every request it makes is paused with the
// DevTools Fetch domain, performed by the crawl's fetch.Client (so the address guard, the size
// limits and the host mapping apply, and the exchange has the exact wire bytes) and handed
// back to Chromium with Fetch.fulfillRequest, with the decoded payload. A redirect is handed
// back as it came, so Chromium follows it with a new request, recorded as its own exchange.
// Cookies a response sets go into Chromium's cookie store with the fulfilled response and
// are sent on the page's later requests. Chromium is started with a dead proxy and failing
// DNS, so whatever it might try on its own (a preconnect, a WebSocket, a popup's requests)
// does not reach the network.
//
// Which Chromium: the headless shell (HeadlessShellPath, Debian's chromium-headless-shell)
// when it is installed, else the full browser (ChromiumPath); Config.Path chooses another. Both
// are the same engine and capture the same requests; the headless shell has no window, UI or
// GPU code, so it spends less CPU and memory per page.
//
// A tab goes from page to page with no reset in between (a reset, a navigation to
// about:blank, cost Chromium some 50 ms of CPU per page): the previous page runs on until the
// next page's document commits, and the requests it still makes are told from the new
// page's by the order of the renderer's events and failed, never sent.
//
// Known limits: requests with a body (POST forms, XHR posts) are not performed, because
// fetch.Client sends no request bodies (they are reported in Page.Failed); WebSockets,
// popups and service workers are not captured; a response is held in memory while it is
// handed to Chromium.
package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/amber-crawler/amber/fetch"
)

// The Chromium builds the fetcher runs, where Debian installs them. The headless shell
// (package chromium-headless-shell) is Chromium's own headless build: the same engine, with
// no window, UI or GPU code, so it spends some 35% less CPU and half the memory per page
// (BenchmarkFetch and BenchmarkFetchHeadlessShell) and is the default when it is installed;
// the full browser (package chromium) is the fallback. HeadlessShellPath is the browser
// itself, not Debian's /usr/bin/chromium-headless-shell: that is a shell script that runs it
// as a child instead of replacing itself with it, so the process amber starts, and kills
// when the browser crashes or hangs, would be the shell, and the browser would live on.
// (/usr/bin/chromium execs the browser.)
const (
	HeadlessShellPath = "/usr/lib/chromium/chromium-headless-shell"
	ChromiumPath      = "/usr/bin/chromium"
)

// DefaultPath is the Chromium New runs when Config.Path is empty: HeadlessShellPath when an
// executable file is there, else ChromiumPath.
func DefaultPath() string {
	return firstExecutable(HeadlessShellPath, ChromiumPath)
}

// firstExecutable returns preferred when it is an executable file, else fallback.
func firstExecutable(preferred, fallback string) string {
	if executable(preferred) == nil {
		return preferred
	}
	return fallback
}

// executable returns nil when path is an executable file.
func executable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

// Defaults applied by New to zero Config fields.
const (
	DefaultTabs            = 1
	DefaultPageTimeout     = 90 * time.Second
	DefaultBehaviorTimeout = 30 * time.Second
	DefaultIdleTimeout     = 10 * time.Second
	DefaultRecycleAfter    = 200
	DefaultViewportWidth   = 1366
	DefaultViewportHeight  = 768
)

// Sentinel errors, for errors.Is.
var (
	// ErrConfig reports an invalid Config.
	ErrConfig = errors.New("browser: invalid config")
	// ErrClosed is returned by Fetch after Close.
	ErrClosed = errors.New("browser: fetcher closed")
	// ErrBrowser reports that Chromium failed (crashed, hung, could not start) on both
	// attempts at a page.
	ErrBrowser = errors.New("browser: chromium failed")
	// ErrRequestBody marks, in Page.Failed, a request Chromium wanted to send with a body
	// (a POST form or XHR): fetch.Client sends no request bodies, so the request is failed
	// in the browser rather than sent different from what the page asked for.
	ErrRequestBody = errors.New("browser: request with a body not performed")
	// ErrScheme marks, in Page.Failed, a request for a scheme that is neither http(s) nor
	// served inside the browser (data:, blob:): such a request is not made.
	ErrScheme = errors.New("browser: scheme not recorded")
	// ErrNoResponse marks, in Page.Failed, a response Chromium cannot be given (an
	// interim or out-of-range status such as 101); the exchange is still recorded.
	ErrNoResponse = errors.New("browser: response not deliverable to chromium")
)

// Config configures a Fetcher. Zero fields take the documented defaults.
type Config struct {
	// Path is the Chromium executable; default DefaultPath(): the headless shell when it is
	// installed, else the full browser.
	Path string
	// Tabs is the number of pages loaded at the same time (tabs of the one browser);
	// default 1. Fetch calls beyond it wait for a free tab.
	Tabs int
	// PageTimeout bounds a page from navigation to the end of the behaviours; default 90s.
	// A page that reaches it keeps what was captured and is marked Page.TimedOut.
	PageTimeout time.Duration
	// BehaviorTimeout bounds the scrolling behaviour; default 30s.
	BehaviorTimeout time.Duration
	// NetworkIdle is an extra quiet period: how long, once the network is idle, no request
	// may start for it to stay idle (a request that starts meanwhile starts it over), for
	// pages that start requests on timers of their own. The network is idle when no request
	// the page announced or amber performs is in flight and the page, asked to render two
	// frames and run the tasks they queue, started none meanwhile; default 0, no quiet
	// period beyond that.
	NetworkIdle time.Duration
	// IdleTimeout bounds each wait for network idle; default 10s.
	IdleTimeout time.Duration
	// Screenshot takes a PNG of the viewport after the behaviours (Page.Screenshot).
	Screenshot bool
	// RecycleAfter is the number of pages a browser loads before it is closed and a fresh
	// one (with a fresh profile) is started; default 200.
	RecycleAfter int
	// Client performs every request of the browser. Required.
	Client *fetch.Client
	// Jar, when not nil, is the crawl's cookie jar, shared with the plain fetcher: the
	// fetch.Config.Jar of Client (fetch.NewJar). A request that Chromium sends with cookies
	// gets the jar's cookies for its URL added (Chromium's win for a name both have); one
	// without is sent the jar's by Client; and after each page the cookies Chromium holds
	// for the page's URLs, those its scripts set included, are copied into the jar. So a
	// cookie one page got (in any tab, in an earlier browser that was recycled or
	// restarted, or by the plain fetcher) goes with the later requests of both fetchers. A
	// cookie a script deletes stays in the jar. A request with Chromium's cookies is not
	// sent the configured Cookie fields of Client (fetch.Config.Header, OriginHeader): a
	// request's own Cookie wins. nil: cookies live in Chromium's store only, for the life of
	// one browser.
	Jar http.CookieJar
	// UserAgent is the browser's User-Agent (sent on every request, also reported to
	// scripts by navigator.userAgent); "" keeps Chromium's own.
	UserAgent string
	// ViewportWidth and ViewportHeight size the viewport in CSS pixels; default 1366x768.
	ViewportWidth, ViewportHeight int
	// Logger receives restarts and failures; default slog.Default().
	Logger *slog.Logger
}

func (c Config) withDefaults() (Config, error) {
	if c.Client == nil {
		return c, fmt.Errorf("%w: nil Client", ErrConfig)
	}
	if c.Path == "" {
		c.Path = DefaultPath()
	}
	if c.Tabs < 0 || c.RecycleAfter < 0 || c.ViewportWidth < 0 || c.ViewportHeight < 0 {
		return c, fmt.Errorf("%w: negative count", ErrConfig)
	}
	if c.PageTimeout < 0 || c.BehaviorTimeout < 0 || c.NetworkIdle < 0 || c.IdleTimeout < 0 {
		return c, fmt.Errorf("%w: negative duration", ErrConfig)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Tabs, DefaultTabs)
	def(&c.RecycleAfter, DefaultRecycleAfter)
	def(&c.ViewportWidth, DefaultViewportWidth)
	def(&c.ViewportHeight, DefaultViewportHeight)
	defDur(&c.PageTimeout, DefaultPageTimeout)
	defDur(&c.BehaviorTimeout, DefaultBehaviorTimeout)
	defDur(&c.IdleTimeout, DefaultIdleTimeout)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	for _, r := range c.UserAgent {
		if r < ' ' || r == 0x7f {
			return c, fmt.Errorf("%w: UserAgent has control characters", ErrConfig)
		}
	}
	if err := executable(c.Path); err != nil {
		return c, fmt.Errorf("%w: chromium: %w", ErrConfig, err)
	}
	return c, nil
}

// Page is what loading one page produced.
type Page struct {
	// URL is the URL asked for.
	URL string
	// FinalURL is the main frame's URL at the end (after redirects and script
	// navigations).
	FinalURL string
	// Exchanges are the requests the browser made, in the order it made them: the page
	// first (each redirect hop its own exchange), then subresources (frames and their
	// resources, scripts, styles, images, fonts, media, XHR/fetch, redirect hops). The
	// caller must Close them.
	Exchanges []*fetch.Exchange
	// Types gives the kind of each of Exchanges, as Chromium names the resource type of the
	// request: Document, Stylesheet, Image, Media, Font, Script, TextTrack, XHR, Fetch,
	// Prefetch, EventSource, WebSocket, Manifest, SignedExchange, Ping,
	// CSPViolationReport, Preflight, FedCM, Other. A redirect's hops have the type of the
	// request that was redirected.
	Types []string
	// Blocked lists the request URLs the page's admission (fetch.Request.Admit) refused, in
	// order, without duplicates.
	Blocked []fetch.Refusal
	// Failed lists the requests that got no response (fetch.Client errors, which are
	// *fetch.Error) or were not performed (ErrRequestBody).
	Failed []fetch.Failure
	// Outlinks are the a[href] and area[href] links of the rendered DOM of every frame,
	// absolute, http(s) only, in document order, without duplicates; NoFollow is set by the
	// link's rel or its frame's robots meta.
	Outlinks []fetch.Link
	// HTML is the rendered DOM of the main frame (doctype and outerHTML of the root). For a
	// document that is not HTML (an image, say) it is Chromium's page showing it; the
	// Content-Type of the page's exchange tells which. Empty when the page did not render
	// (a download, a navigation error after the response).
	HTML string
	// Title is the main frame's document.title.
	Title string
	// Screenshot is a PNG of the viewport after the behaviours (Config.Screenshot).
	Screenshot []byte
	// TimedOut reports that Config.PageTimeout was reached; what was captured is kept.
	TimedOut bool
	// Console lists the errors the page reported on its console, in order, from the commit
	// of its document on: calls of console.error, failed console.assert calls, and
	// exceptions its scripts did not catch (promise rejections nothing handled too); at
	// most MaxConsole of them, the text of each cut at MaxConsoleText bytes. Chromium's own
	// messages (a resource that failed to load, a refused request) are not among them.
	Console []ConsoleMessage
}

// Close closes every exchange of the page.
func (p *Page) Close() error {
	return (&fetch.Result{Exchanges: p.Exchanges}).Close()
}

// Fetcher loads pages in one headless Chromium with a pool of reusable tabs. It is safe for
// concurrent use; at most Config.Tabs pages load at the same time.
type Fetcher struct {
	cfg   Config
	log   *slog.Logger
	slots chan struct{} // one token per tab that may be in use

	// startMu serializes browser starts, so that concurrent Fetch calls wait for one
	// start instead of each starting a browser. It is held across the start on purpose.
	startMu sync.Mutex

	mu      sync.Mutex // guards the fields below
	cur     *instance  // the browser new pages go to; nil when none runs
	live    map[*instance]bool
	closed  bool
	nextGen int
}

// New validates cfg and returns a Fetcher. The browser starts with the first Fetch.
func New(ctx context.Context, cfg Config) (*Fetcher, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Fetcher{
		cfg:   cfg,
		log:   cfg.Logger,
		slots: make(chan struct{}, cfg.Tabs),
		live:  map[*instance]bool{},
	}, nil
}

// Close stops the browser. Fetch calls in flight fail; later ones return ErrClosed.
func (f *Fetcher) Close() error {
	f.mu.Lock()
	f.closed = true
	var insts []*instance
	for in := range f.live {
		insts = append(insts, in)
	}
	f.live = map[*instance]bool{}
	f.cur = nil
	f.mu.Unlock()
	for _, in := range insts {
		in.close()
	}
	return nil
}

// Load loads req.URL in a tab, runs the behaviours and returns the page. req.Header holds
// extra request headers for the page's own request (such as Referer); it may be nil. Every
// other request the page makes (its subresources, the redirects the browser follows) is asked
// of req.Admit first, when it is set: a request it gives a reason for is not made (the
// browser gets a network error) and is listed in Page.Blocked with that reason.
//
// Any HTTP status of the page is a result, and a page that reaches Config.PageTimeout is
// returned with what was captured (Page.TimedOut). The error is non-nil when the page's own
// request got no response (a *fetch.Error, for errors.Is/As), when ctx ends (the page is
// abandoned: give ctx no deadline shorter than PageTimeout), when the Fetcher is closed, or
// when Chromium failed twice (ErrBrowser). A browser that crashes or hangs is restarted and
// the page is tried once more on the new one. With a nil error the page has at least one
// exchange, its own.
func (f *Fetcher) Load(ctx context.Context, req fetch.Request) (*Page, error) {
	pageURL := req.URL
	select {
	case f.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-f.slots }()

	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		t, err := f.acquire(ctx)
		if err != nil {
			if errors.Is(err, ErrClosed) || ctx.Err() != nil {
				return nil, err
			}
			lastErr = err
			continue
		}
		p, err := t.capture(ctx, req)
		var be *browserError
		if errors.As(err, &be) {
			healthy := t.inst.healthy()
			f.release(t, false, !healthy)
			lastErr = be.err
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if attempt == 0 {
				f.log.Warn("browser failed; retrying page", "url", pageURL, "err", be.err, "restart", !healthy)
			}
			continue
		}
		// A tab that misbehaved is not reused; if its browser does not answer either,
		// the browser is replaced for the next page.
		f.release(t, !t.broken, t.broken && !t.inst.healthy())
		return p, err
	}
	return nil, fmt.Errorf("%w: %s: %w", ErrBrowser, pageURL, lastErr)
}

// Fetch loads req.URL as a page (see Load: req.Header goes with the page's own request,
// req.Admit decides the others; the method must be GET) and returns the page as a
// fetch.Result: its exchanges, what rendering showed, and the sub-requests that were blocked
// or failed.
func (f *Fetcher) Fetch(ctx context.Context, req fetch.Request) (*fetch.Result, error) {
	if req.Method != "" && req.Method != http.MethodGet {
		return nil, &fetch.Error{Kind: fetch.InvalidURL, URL: req.URL, Err: ErrRequestBody}
	}
	p, err := f.Load(ctx, req)
	if err != nil {
		return nil, err
	}
	return &fetch.Result{
		Exchanges: p.Exchanges,
		Render: &fetch.Render{
			FinalURL: p.FinalURL, HTML: p.HTML, Title: p.Title, Links: p.Outlinks,
			Screenshot: p.Screenshot, TimedOut: p.TimedOut,
		},
		Blocked: p.Blocked,
		Failed:  p.Failed,
	}, nil
}

var _ fetch.Fetcher = (*Fetcher)(nil)

// browserError is a failure of Chromium (as opposed to a page outcome): the page is retried.
type browserError struct{ err error }

func (e *browserError) Error() string { return "browser: " + e.err.Error() }
func (e *browserError) Unwrap() error { return e.err }

// acquire returns a tab of the current browser, starting the browser when none runs (or
// the current one died).
func (f *Fetcher) acquire(ctx context.Context) (*tab, error) {
	in, err := f.current(ctx)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	var t *tab
	if n := len(in.idle); n > 0 {
		t = in.idle[n-1]
		in.idle = in.idle[:n-1]
	}
	in.inUse++
	in.pages++
	if in.pages >= f.cfg.RecycleAfter && f.cur == in {
		f.cur = nil // recycled: closed by release once its last page is done
		in.retired = true
	}
	f.mu.Unlock()
	if t != nil {
		return t, nil
	}
	t, err = in.newTab(ctx, f)
	if err != nil {
		f.release(&tab{inst: in}, false, !in.healthy())
		return nil, &browserError{err: err}
	}
	return t, nil
}

// current returns the browser new pages go to, starting one if needed. Concurrent callers
// wait on startMu for the one start (bounded by startTimeout) rather than each starting a
// browser.
func (f *Fetcher) current(ctx context.Context) (*instance, error) {
	f.startMu.Lock()
	defer f.startMu.Unlock()
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, ErrClosed
	}
	in := f.cur
	var stale *instance
	if in != nil && in.dead() {
		stale = f.retireLocked(in)
		f.cur, in = nil, nil
	}
	if in != nil {
		f.mu.Unlock()
		return in, nil
	}
	f.nextGen++
	gen := f.nextGen
	f.mu.Unlock()
	if stale != nil {
		stale.close()
	}
	in, err := startInstance(ctx, f.cfg, gen)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		in.close()
		return nil, ErrClosed
	}
	old := f.cur
	f.cur = in
	f.live[in] = true
	stale = f.retireLocked(old)
	f.mu.Unlock()
	if stale != nil {
		stale.close()
	}
	f.log.Info("browser started", "path", f.cfg.Path, "product", in.product, "pid", in.pid, "gen", gen)
	return in, nil
}

// retireLocked marks in retired and returns it when it can be closed now (no page in
// flight). f.mu must be held.
func (f *Fetcher) retireLocked(in *instance) *instance {
	if in == nil {
		return nil
	}
	in.retired = true
	if in.inUse == 0 && f.live[in] {
		delete(f.live, in)
		return in
	}
	return nil
}

// release gives a tab back after a page. reuse keeps the tab for the next page; kill marks
// its browser dead (it is restarted for the next page).
func (f *Fetcher) release(t *tab, reuse, kill bool) {
	in := t.inst
	f.mu.Lock()
	in.inUse--
	if kill {
		in.markDead()
		if f.cur == in {
			f.cur = nil
		}
		in.retired = true
	}
	closeTab := !reuse || in.retired || f.closed
	if !closeTab {
		in.idle = append(in.idle, t)
	}
	var stale *instance
	if in.retired && in.inUse == 0 && f.live[in] {
		delete(f.live, in)
		stale = in
	}
	f.mu.Unlock()
	if stale != nil {
		stale.close() // closes its tabs too
		return
	}
	if closeTab {
		t.close()
	}
}
