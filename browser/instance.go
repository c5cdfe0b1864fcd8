package browser

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

const (
	startTimeout  = 60 * time.Second // browser start
	tabTimeout    = 30 * time.Second // opening and preparing a tab
	pingTimeout   = 5 * time.Second  // health check
	closeTimeout  = 10 * time.Second // graceful browser close
	callTimeout   = 30 * time.Second // one CDP command outside the page's own deadline
	resetTimeout  = 5 * time.Second  // to about:blank before a same-document navigation
	collectBudget = 20 * time.Second // outlinks, HTML and screenshot after the page
)

// instance is one running Chromium. chromedp keeps its connection in contexts, so the
// instance holds the browser's chromedp context (not a request context): it lives as long
// as the browser does.
type instance struct {
	gen         int
	ctx         context.Context // chromedp browser context (its first tab stays blank)
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	pid         int
	product     string          // Browser.getVersion's product, such as HeadlessChrome/156.0.8078.108
	lost        <-chan struct{} // closed when the connection to Chromium drops
	down        atomic.Bool     // marked dead by a failed health check
	// pausedCookies: this Chromium puts cookies into paused requests itself.
	pausedCookies atomic.Bool
	closeOnce     sync.Once

	// Guarded by Fetcher.mu.
	idle    []*tab
	inUse   int
	pages   int
	retired bool
}

// allocatorOptions are the Chromium flags: headless, no sandbox (containers), no
// background traffic of its own, and a dead proxy with failing DNS so that any request
// Chromium tried to make by itself (not through the Fetch domain) goes nowhere. Site
// isolation is off so that cross-site iframes stay in the page's renderer, where the
// tab's Fetch interception and frame tree reach them.
func allocatorOptions(cfg Config) []chromedp.ExecAllocatorOption {
	opts := append([]chromedp.ExecAllocatorOption(nil), chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts,
		chromedp.ExecPath(cfg.Path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,site-per-process,IsolateOrigins,"+
			"OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,"+
			"CertificateTransparencyComponentUpdater,PrivacySandboxSettings4,HttpsUpgrades,"+
			// No back/forward cache and no new browsing instance per navigation: a tab keeps
			// its renderer from page to page instead of starting one for each page (and
			// keeping the previous page alive, frozen, for a "back" that never comes).
			"BackForwardCache,ProactivelySwapBrowsingInstance"),
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.WindowSize(cfg.ViewportWidth, cfg.ViewportHeight),
	)
	if cfg.UserAgent != "" {
		opts = append(opts, chromedp.UserAgent(cfg.UserAgent))
	}
	return opts
}

// startInstance starts Chromium with a fresh profile directory (chromedp creates it and
// removes it when the browser stops).
func startInstance(ctx context.Context, cfg Config, gen int) (*instance, error) {
	actx, acancel := chromedp.NewExecAllocator(context.Background(), allocatorOptions(cfg)...)
	bctx, bcancel := chromedp.NewContext(actx)
	in := &instance{gen: gen, ctx: bctx, cancel: bcancel, allocCancel: acancel}
	errc := make(chan error, 1)
	// The first Run must get the browser context itself: a deadline on it would stop the
	// browser later, so the start is bounded from outside.
	go func() { errc <- chromedp.Do(bctx) }()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-errc:
	case <-timer.C:
		err = fmt.Errorf("no answer within %v", startTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		bcancel()
		acancel()
		return nil, fmt.Errorf("browser: start %s: %w", cfg.Path, err)
	}
	b := chromedp.FromContext(bctx).Browser
	in.lost = b.LostConnection
	if p := b.Process(); p != nil {
		in.pid = p.Pid
	}
	// A page that turns out to be a download (a zip, a PDF) is recorded, not saved.
	dctx, cancel := context.WithTimeout(bctx, callTimeout)
	_, err = chromedp.CallBrowser(dctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: "deny"})
	cancel()
	if err != nil {
		in.close()
		return nil, fmt.Errorf("browser: deny downloads: %w", err)
	}
	// Which build and version run (the headless shell says HeadlessChrome, the full browser
	// Chrome), for the log.
	vctx, cancel := context.WithTimeout(bctx, callTimeout)
	v, err := chromedp.CallBrowser(vctx, browser.GetVersion, cdp.Empty{})
	cancel()
	if err != nil {
		in.close()
		return nil, fmt.Errorf("browser: version: %w", err)
	}
	in.product = v.Product
	return in, nil
}

// dead reports whether the browser is known to be gone.
func (in *instance) dead() bool {
	if in.down.Load() {
		return true
	}
	select {
	case <-in.lost:
		return true
	default:
		return false
	}
}

func (in *instance) markDead() { in.down.Store(true) }

// healthy reports whether the browser answers a command within pingTimeout. A browser that
// does not is marked dead.
func (in *instance) healthy() bool {
	if in.dead() {
		return false
	}
	ctx, cancel := context.WithTimeout(in.ctx, pingTimeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{}); err != nil {
		in.markDead() // hung or gone: either way it is replaced
		return false
	}
	return true
}

// close stops the browser (gracefully when it still answers) and waits for it to exit.
func (in *instance) close() {
	in.closeOnce.Do(func() {
		if !in.dead() {
			ctx, cancel := context.WithTimeout(in.ctx, closeTimeout)
			_ = chromedp.Cancel(ctx) // a browser that does not close is killed below
			cancel()
		}
		in.cancel()
		in.allocCancel()
	})
}

// tab is one reusable page of a browser.
type tab struct {
	inst     *instance
	f        *Fetcher
	ctx      context.Context // chromedp tab context
	cancel   context.CancelFunc
	targetID cdp.FrameID // the main frame's id, which is the target's id

	crashed atomic.Bool   // the renderer crashed (Inspector.targetCrashed)
	broken  bool          // the tab failed in a way that makes reuse unwise; set by capture
	loads   chan struct{} // one token per Page.loadEventFired of a page's document
	ready   chan struct{} // one token per Page.domContentEventFired of a page's document
	bg      sync.WaitGroup

	mu  sync.Mutex // guards the fields below, and the recorder's commit fields
	rec *recorder  // the page being captured; nil between pages
	// The tab is not reset between pages: the previous page runs on until the next one's
	// document commits, and its requests are told from the new page's by the epoch (the
	// number of pages committed in the tab) in which the renderer announced them or their
	// frame (see placeLocked). The maps keep the last two epochs.
	epoch  int
	wills  map[network.RequestID]will // each request's Network.requestWillBeSent
	frames map[cdp.FrameID]int        // epoch in which each child frame was first seen
	docs   map[cdp.LoaderID]int       // epoch in which each document committed (any frame)
}

// will is a request's announcement (Network.requestWillBeSent): the epoch it came in, the
// request's place in its renderer's sequence (requestSeq), what started it (for a
// navigation: "other" for the browser's own, amber's Page.navigate among them; "script" for
// one a script started), and the document that made it.
type will struct {
	epoch     int
	proc      string
	seq       int64
	initiator network.InitiatorType
	loader    cdp.LoaderID // the document that made the request; "" from a worker
}

// requestSeq splits a renderer's network request ID, "PROCESS.N", where N counts the
// requests the renderer process made, in the order it made them. ok is false for other IDs
// (a navigation's is its loader ID).
func requestSeq(id network.RequestID) (proc string, n int64, ok bool) {
	proc, num, found := strings.Cut(string(id), ".")
	if !found || proc == "" {
		return "", 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return proc, n, true
}

// newTab opens a tab and prepares it: every request paused at the request stage, the
// cache off (so that every page's embeds are requests of that page), service workers
// bypassed, the viewport set.
func (in *instance) newTab(ctx context.Context, f *Fetcher) (*tab, error) {
	t := &tab{
		inst: in, f: f, loads: make(chan struct{}, 16), ready: make(chan struct{}, 16),
		wills: map[network.RequestID]will{}, frames: map[cdp.FrameID]int{}, docs: map[cdp.LoaderID]int{},
	}
	t.ctx, t.cancel = chromedp.NewContext(in.ctx, chromedp.WithListener(t.onEvent))
	errc := make(chan error, 1)
	go func() { errc <- chromedp.Do(t.ctx, chromedp.Func(t.setup)) }()
	timer := time.NewTimer(tabTimeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-errc:
	case <-timer.C:
		err = fmt.Errorf("no answer within %v", tabTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		t.cancel()
		return nil, fmt.Errorf("open tab: %w", err)
	}
	return t, nil
}

func (t *tab) setup(ctx context.Context, target *chromedp.Target) error {
	t.targetID = cdp.FrameID(target.TargetID)
	cfg := t.f.cfg
	if _, err := cdp.Call(ctx, target, cdpfetch.Enable, cdpfetch.EnableParams{
		Patterns: []*cdpfetch.RequestPattern{{URLPattern: "*", RequestStage: cdpfetch.RequestStageRequest}},
	}); err != nil {
		return fmt.Errorf("enable interception: %w", err)
	}
	if _, err := cdp.Call(ctx, target, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		return fmt.Errorf("disable cache: %w", err)
	}
	if _, err := cdp.Call(ctx, target, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
		return fmt.Errorf("bypass service workers: %w", err)
	}
	if _, err := chromedp.EmulateViewport(int64(cfg.ViewportWidth), int64(cfg.ViewportHeight))(ctx, target); err != nil {
		return fmt.Errorf("viewport: %w", err)
	}
	// chromedp enables what its own DOM-based actions need: the DOM and CSS agents (the
	// browser then mirrors each document to the client, which chromedp fetches again after
	// every navigation), console logs and lifecycle events. amber reads pages with
	// Runtime.evaluate in isolated worlds and needs none of it. The network agent stays on
	// (it is what keeps the cache off) but keeps no copies of response bodies.
	for _, c := range []struct {
		method string
		params any
	}{
		{dom.CommandDisable, nil},
		{css.CommandDisable, nil},
		{log.CommandDisable, nil},
		{page.CommandSetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: false}},
		{network.CommandEnable, network.EnableParams{MaxTotalBufferSize: new(int64(0)), MaxResourceBufferSize: new(int64(0))}},
	} {
		if err := target.Call(ctx, c.method, c.params, nil); err != nil {
			return fmt.Errorf("%s: %w", c.method, err)
		}
	}
	return nil
}

// onEvent runs on chromedp's reading goroutine of the tab: it must return fast and run no
// command, so paused requests are handled on their own goroutines.
func (t *tab) onEvent(ev any) {
	switch ev := ev.(type) {
	case *cdpfetch.EventRequestPaused:
		t.mu.Lock()
		r := t.rec
		if r != nil {
			v := t.verdictLocked(r, ev)
			slot := r.begin(ev.NetworkID, string(ev.ResourceType))
			t.mu.Unlock()
			go r.handle(ev, slot, v)
			return
		}
		t.bg.Add(1)
		t.mu.Unlock()
		go func() {
			defer t.bg.Done()
			t.refuse(ev)
		}()
	case *network.EventRequestWillBeSent:
		// The renderer says it is starting a request before the browser pauses it for amber:
		// it is in flight from now, so a request that a behaviour triggered but that is slow
		// to reach interception on a loaded machine is not missed by waitIdle. Before the
		// page's document commits, only the previous page's requests are announced (the
		// page's own document is paused at once), and none is waited for.
		t.mu.Lock()
		if _, ok := t.wills[ev.RequestID]; !ok && ev.RequestID != "" {
			proc, seq, _ := requestSeq(ev.RequestID)
			w := will{epoch: t.epoch, proc: proc, seq: seq, loader: ev.LoaderID}
			if ev.Initiator != nil {
				w.initiator = ev.Initiator.Type
			}
			t.wills[ev.RequestID] = w
		}
		r := t.rec
		if r != nil && r.epoch == 0 {
			r = nil
		}
		t.mu.Unlock()
		if r != nil {
			r.announce(ev.RequestID)
		}
	case *page.EventFrameAttached:
		t.mu.Lock()
		t.seeFrameLocked(ev.FrameID)
		t.mu.Unlock()
	case *page.EventFrameNavigated:
		if ev.Frame == nil {
			return
		}
		t.mu.Lock()
		if ev.Frame.ParentID != "" {
			t.seeFrameLocked(ev.Frame.ID)
		} else if r := t.rec; r != nil && r.epoch == 0 && r.loader != "" && network.RequestID(ev.Frame.LoaderID) == r.loader {
			t.commitLocked(r)
		}
		if _, ok := t.docs[ev.Frame.LoaderID]; !ok && ev.Frame.LoaderID != "" {
			t.docs[ev.Frame.LoaderID] = t.epoch
		}
		t.mu.Unlock()
	case *network.EventLoadingFinished:
		t.landed(ev.RequestID)
	case *network.EventLoadingFailed:
		t.landed(ev.RequestID)
	case *page.EventLoadEventFired:
		// Those of the previous page's document, which runs on until the next one commits,
		// are not the page's.
		if t.committed() {
			select {
			case t.loads <- struct{}{}:
			default:
			}
		}
	case *page.EventDomContentEventFired:
		if t.committed() {
			select {
			case t.ready <- struct{}{}:
			default:
			}
		}
	case *runtime.EventConsoleAPICalled:
		if m, ok := consoleCall(ev); ok {
			t.console(m)
		}
	case *runtime.EventExceptionThrown:
		t.console(consoleException(ev))
	case *inspector.EventTargetCrashed:
		t.crashed.Store(true)
	}
}

// console keeps a console error of the page being captured, once its document committed:
// the previous page's, which runs on until then, are not the page's.
func (t *tab) console(m ConsoleMessage) {
	t.mu.Lock()
	r := t.rec
	if r != nil && r.epoch == 0 {
		r = nil
	}
	t.mu.Unlock()
	if r != nil {
		r.addConsole(m)
	}
}

// committed reports whether a page is being captured and its document committed.
func (t *tab) committed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rec != nil && t.rec.epoch != 0
}

// seeFrameLocked notes a child frame's first sighting. t.mu must be held.
func (t *tab) seeFrameLocked(id cdp.FrameID) {
	if _, ok := t.frames[id]; !ok && id != "" {
		t.frames[id] = t.epoch
	}
}

// commitLocked notes that the document of r's page committed in the main frame (the
// previous page's document, its frames and their requests are gone): a new epoch starts,
// and the requests held until now are judged. t.mu must be held.
func (t *tab) commitLocked(r *recorder) {
	t.epoch++
	r.epoch = t.epoch
	for id, w := range t.wills {
		if w.epoch < t.epoch-1 {
			delete(t.wills, id)
		}
	}
	for id, e := range t.frames {
		if e < t.epoch-1 {
			delete(t.frames, id)
		}
	}
	for id, e := range t.docs {
		if e < t.epoch-1 {
			delete(t.docs, id)
		}
	}
	close(r.commit)
}

// verdict is what a paused request is to the page being captured.
type verdict int

const (
	// held: not known yet; judged by recorder.judge, before anything of it is sent.
	held    verdict = iota
	pageDoc         // the page's own document request, or one of its redirect hops
	ofPage          // a request of the page's document, its frames, or a later document of the tab
	stale           // a request of the previous page's documents
)

// verdictLocked judges a request paused while r's page is captured, in event order. Before
// the commit, the first main-frame document request that can be amber's navigation
// (ownNavigation) is the page's own (its network ID is the navigation's loader ID, which its
// redirect hops share) and any other is not; the rest is held for the commit. t.mu must be
// held.
func (t *tab) verdictLocked(r *recorder, ev *cdpfetch.EventRequestPaused) verdict {
	if r.epoch == 0 {
		if ev.FrameID == t.targetID && ev.ResourceType == network.ResourceTypeDocument {
			if r.loader == "" && t.ownNavigationLocked(ev) {
				r.loader = ev.NetworkID
			}
			if ev.NetworkID == r.loader {
				return pageDoc
			}
			return stale
		}
		return held
	}
	if ev.NetworkID == "" {
		return ofPage // nothing tells: as it was paused after the commit
	}
	return t.placeLocked(ev, r.epoch)
}

// ownNavigationLocked reports whether a main-frame document request paused before the
// commit can be amber's own navigation (Page.navigate) rather than one the previous page
// started in the moment before it (a script setting location, a link it clicks, a form, a
// refresh). The browser announces its own navigations (Network.requestWillBeSent, which
// comes before the pause) with initiator "other", and amber's carries no Referer (the
// page's Referer, from Load's header, is added when amber sends it); the previous page's
// renderer announces a navigation its scripts start with initiator "script", and every
// navigation the page starts carries the page's URL as Referer unless the page's referrer
// policy says none. So only a refresh or a timer's form submission by a page with the
// no-referrer policy, in those milliseconds, could still be taken for the page's own, as
// any could before. t.mu must be held.
func (t *tab) ownNavigationLocked(ev *cdpfetch.EventRequestPaused) bool {
	if w, ok := t.wills[ev.NetworkID]; ok && w.initiator != "" && w.initiator != network.InitiatorTypeOther {
		return false
	}
	if ev.Request != nil {
		for k := range ev.Request.Headers {
			if strings.EqualFold(k, "Referer") {
				return false
			}
		}
	}
	return true
}

// placeLocked says whether a request paused, and judged, after the commit that started
// epoch is the previous page's (stale) or the page's (ofPage), or held when nothing tells
// yet. The renderer sends its events in order on one channel, and numbers its requests in
// the order it makes them (requestSeq); the browser's pause of a request may come before or
// after either event. So: a frame the renderer attached before the commit is the previous
// page's; a request the renderer announced (Network.requestWillBeSent) before the commit
// is, one it announced after is not, and neither is one it made after a request it
// announced after; one it made before a request it announced before the commit is the
// previous page's. A request the previous page made as it went may never be announced. A
// document request in a frame (a navigation, announced by the browser, outside the
// renderer's order) is judged by its frame alone, and one in the main frame also by when
// the browser announced it. t.mu must be held.
func (t *tab) placeLocked(ev *cdpfetch.EventRequestPaused, epoch int) verdict {
	if ev.FrameID != t.targetID {
		if e, ok := t.frames[ev.FrameID]; ok && e < epoch {
			return stale
		}
	}
	if ev.ResourceType == network.ResourceTypeDocument {
		// A main-frame navigation the browser announced before the commit is not the page's
		// (its own committed; see verdictLocked): one the previous page started in the
		// moment before it.
		if w, ok := t.wills[ev.NetworkID]; ok && ev.FrameID == t.targetID && t.willEpochLocked(w) < epoch {
			return stale
		}
		return ofPage
	}
	if w, ok := t.wills[ev.NetworkID]; ok {
		if t.willEpochLocked(w) < epoch {
			return stale
		}
		return ofPage
	}
	proc, n, ok := requestSeq(ev.NetworkID)
	if !ok {
		return held
	}
	for _, w := range t.wills {
		if w.proc != proc {
			continue
		}
		switch e := t.willEpochLocked(w); {
		case e < epoch && w.seq > n:
			return stale
		case e >= epoch && w.seq < n:
			return ofPage
		}
	}
	return held
}

// willEpochLocked is the epoch of w's request: that in which the document that made it
// committed, when known, else that in which it was announced. The announcement of a request
// the previous page made just before the commit can come after it (the browser's network
// events and the renderer's navigation events are not ordered between them, and a loaded
// machine widens the gap: TestPreviousPage saw a /tick so taken for the next page's); its
// document says whose it is. t.mu must be held.
func (t *tab) willEpochLocked(w will) int {
	if e, ok := t.docs[w.loader]; ok && w.loader != "" {
		return e
	}
	return w.epoch
}

// landed hands Chromium's end of a network request to the page's recorder.
func (t *tab) landed(net network.RequestID) {
	t.mu.Lock()
	r := t.rec
	t.mu.Unlock()
	if r != nil {
		r.landed(net)
	}
}

// refuse answers a request paused while no page is being captured (a late request of the
// previous page): non-network URLs go on, the rest is aborted.
func (t *tab) refuse(ev *cdpfetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(t.ctx, callTimeout)
	defer cancel()
	if isLocal(ev.Request.URL) {
		chromedp.Call(ctx, cdpfetch.ContinueRequest, cdpfetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	chromedp.Call(ctx, cdpfetch.FailRequest, cdpfetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
}

// close closes the tab and waits for its request goroutines.
func (t *tab) close() {
	if t.cancel != nil {
		t.cancel()
	}
	t.bg.Wait()
}

// waitLoad waits for the next Page.loadEventFired.
func (t *tab) waitLoad(ctx context.Context) error {
	select {
	case <-t.loads:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitReady waits for the next Page.domContentEventFired, or Page.loadEventFired (which
// comes after it; loaded reports that it came, and was taken).
func (t *tab) waitReady(ctx context.Context) (loaded bool, err error) {
	select {
	case <-t.ready:
		return false, nil
	case <-t.loads:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// drainLoads forgets the load and DOMContentLoaded events that arrived before a navigation.
func (t *tab) drainLoads() {
	for {
		select {
		case <-t.loads:
		case <-t.ready:
		default:
			return
		}
	}
}

// isBrowserLoss reports whether err means the tab or the browser went away (as opposed to
// a page outcome or a deadline).
func (t *tab) isBrowserLoss(err error) bool {
	if err == nil {
		return false
	}
	if t.inst.dead() || t.crashed.Load() {
		return true
	}
	return errors.Is(err, chromedp.ErrTargetDetached)
}
