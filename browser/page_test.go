package browser

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"

	"github.com/amber-crawler/amber/fetch"
)

// TestWaitIdle drives a recorder's request count and the page's settling by hand: waitIdle
// must not return while a request is in flight, nor before the page settled with no request
// starting meanwhile, nor when a request starts during the quiet period; it returns at once
// when nothing moved since the network was last idle, and at the bound or when its context
// ends. Each step first pauses, giving a wrong waitIdle the time to return early; no pause
// is checked against a duration.
func TestWaitIdle(t *testing.T) {
	type step struct {
		pause time.Duration
		op    string // "begin" or "end" a request, or let the page "settle"
	}
	const long = 60 * time.Millisecond // a pause before a step
	for _, tc := range []struct {
		name  string
		quiet time.Duration
		bound time.Duration
		open  int  // requests in flight when waitIdle starts
		calm  bool // the network was found idle before, and nothing moved since
		hold  bool // the page settles only at a "settle" step (else at once)
		steps []step
		// done is the number of steps after which waitIdle returns; never before.
		done    int
		settles int // the times waitIdle asks the page to settle
		cancel  bool
		want    error
	}{
		{name: "idle already", bound: time.Hour, settles: 1},
		{name: "idle since the last wait", bound: time.Hour, calm: true, hold: true},
		{name: "waits for the request in flight", bound: time.Hour, open: 1,
			steps: []step{{long, "end"}}, done: 1, settles: 1},
		{name: "waits for every request", bound: time.Hour, open: 2,
			steps: []step{{long, "end"}, {long, "end"}}, done: 2, settles: 1},
		{name: "waits for the page to settle", bound: time.Hour, hold: true,
			steps: []step{{long, "settle"}}, done: 1, settles: 1},
		{name: "a request while the page settles starts it over", bound: time.Hour, hold: true,
			steps: []step{{long, "begin"}, {long, "settle"}, {long, "end"}, {long, "settle"}}, done: 4, settles: 2},
		{name: "a request in the quiet period starts it over", quiet: time.Second, bound: time.Hour, open: 1,
			steps: []step{{long, "end"}, {long, "begin"}, {long, "end"}}, done: 3, settles: 2},
		{name: "bound", bound: long, open: 1},
		{name: "bound while the page settles", bound: long, hold: true, settles: 1},
		{name: "context", bound: time.Hour, open: 1, cancel: true, want: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{moved: make(chan struct{}), changed: time.Now().Add(-time.Hour), calm: tc.calm}
			var open []int // slots begun and not ended
			for range tc.open {
				open = append(open, r.begin("", ""))
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var settles atomic.Int64
			release := make(chan struct{})
			settle := func(ctx context.Context) error {
				settles.Add(1)
				if !tc.hold {
					return nil
				}
				select {
				case <-release:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			var done atomic.Int64
			returned := make(chan int64, 1)
			var err error
			go func() {
				err = r.waitIdle(ctx, settle, tc.quiet, tc.bound)
				returned <- done.Load()
			}()
			for i, s := range tc.steps {
				time.Sleep(s.pause)
				select {
				case at := <-returned:
					t.Fatalf("returned after step %d, want %d", at, tc.done)
				default:
				}
				// Counted before the step is taken: waitIdle may return as soon as it is.
				done.Store(int64(i + 1))
				switch s.op {
				case "begin":
					open = append(open, r.begin("", ""))
				case "end":
					r.end(open[0])
					open = open[1:]
				case "settle":
					release <- struct{}{}
				}
			}
			if tc.cancel {
				cancel()
			}
			if at := <-returned; at != int64(tc.done) {
				t.Errorf("returned after step %d, want %d", at, tc.done)
			}
			if err != tc.want {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if n := settles.Load(); n != int64(tc.settles) {
				t.Errorf("page asked to settle %d times, want %d", n, tc.settles)
			}
			for _, slot := range open {
				r.end(slot)
			}
		})
	}
}

// TestLanding: a request is in flight from its pause, or from the renderer's announcement
// of it before that, until both the recorder has answered it and Chromium reported its end
// (in either order); a redirect's hops share a network ID and land together; a request
// without one leaves when answered, one whose event never comes at the bound, as does an
// announced request that is never paused nor ends.
func TestLanding(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []string // "pause ID" (slots are numbered in pause order), "announce ID", "end SLOT" (answered), "land ID" or "wait"
		// busy is whether a request is in flight after each step.
		busy     []bool
		unlanded int64 // requests taken out of flight by the bound
	}{
		{name: "answered, then landed", steps: []string{"pause a", "end 0", "land a"}, busy: []bool{true, true, false}},
		{name: "landed, then answered", steps: []string{"pause a", "land a", "end 0"}, busy: []bool{true, true, false}},
		{name: "no network ID", steps: []string{"pause ", "end 0"}, busy: []bool{true, false}},
		{name: "redirect hops", steps: []string{"pause a", "pause a", "end 0", "end 1", "land a"},
			busy: []bool{true, true, true, true, false}},
		{name: "another request's event", steps: []string{"pause a", "end 0", "land b"}, busy: []bool{true, true, true}},
		{name: "bound", steps: []string{"pause a", "end 0", "wait"}, busy: []bool{true, true, false}, unlanded: 1},
		{name: "announced, then landed", steps: []string{"announce a", "land a"}, busy: []bool{true, false}},
		{name: "announced, paused, answered, landed", steps: []string{"announce a", "pause a", "end 0", "land a"},
			busy: []bool{true, true, true, false}},
		{name: "paused, then announced", steps: []string{"pause a", "announce a", "end 0", "land a"},
			busy: []bool{true, true, true, false}},
		{name: "announced redirect hops", steps: []string{"announce a", "announce a", "land a"}, busy: []bool{true, true, false}},
		{name: "announced, another request's event", steps: []string{"announce a", "land b"}, busy: []bool{true, true}},
		{name: "announced, never paused nor landed", steps: []string{"announce a", "wait"}, busy: []bool{true, false}, unlanded: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{moved: make(chan struct{}), landAfter: 50 * time.Millisecond}
			var slots []int
			before := unlanded.Load()
			for i, s := range tc.steps {
				op, arg, _ := strings.Cut(s, " ")
				switch op {
				case "pause":
					slots = append(slots, r.begin(network.RequestID(arg), ""))
				case "announce":
					r.announce(network.RequestID(arg))
				case "end":
					n, _ := strconv.Atoi(arg)
					r.end(slots[n])
				case "land":
					r.landed(network.RequestID(arg))
				case "wait":
					time.Sleep(200 * time.Millisecond)
				}
				r.mu.Lock()
				busy := r.inflight > 0
				r.mu.Unlock()
				if busy != tc.busy[i] {
					t.Errorf("after %q: in flight %v, want %v", s, busy, tc.busy[i])
				}
			}
			if n := unlanded.Load() - before; n != tc.unlanded {
				t.Errorf("left by the bound: %d, want %d", n, tc.unlanded)
			}
			r.stopTimers()
		})
	}
}

// TestScrollGrowing loads a page that grows at the bottom each time its end comes into view
// (an infinite list), with an image that loads only when scrolled to in each new part: the
// walk goes on until the page stops growing and every image is captured once.
func TestScrollGrowing(t *testing.T) {
	const parts = 4
	png := readFile(t, "img/lazy.png")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/part") {
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>growing</title>
<style>html { scroll-behavior: smooth } .part { height: 3000px }</style></head><body>
<div id="list"></div><div id="end">end</div>
<script>
let n = 0;
const lazy = new IntersectionObserver(es => es.forEach(e => {
  if (e.isIntersecting) { e.target.src = e.target.dataset.src; lazy.unobserve(e.target); }
}));
new IntersectionObserver(es => {
  if (!es.some(e => e.isIntersecting) || n >= %d) return;
  n++;
  fetch('/part' + n + '.json').catch(() => {}).then(() => {
    const d = document.createElement('div');
    d.className = 'part';
    const img = document.createElement('img');
    img.dataset.src = '/part' + n + '.png';
    d.appendChild(document.createElement('div')).style.height = '2000px';
    d.appendChild(img);
    document.getElementById('list').appendChild(d);
    lazy.observe(img);
  });
}).observe(document.getElementById('end'));
</script></body></html>`, parts)
	}))
	defer srv.Close()
	// A request is in flight from the renderer's announcement of it until the renderer has
	// taken in its answer (a wait that ended when amber fulfilled the request lost the last
	// part under load), and the network is idle only once the page, asked to render and run
	// its queued tasks, started nothing meanwhile: no quiet period (under -race on a loaded
	// 2-core machine the renderer took more than 300 ms between a scroll and the request it
	// caused, longer than a timer since the last request could be trusted to cover).
	f := newFetcher(t, func(c *Config) { c.Screenshot = false; c.NetworkIdle = 0 })
	before := unlanded.Load()
	p := fetchPage(t, f, srv.URL+"/")
	if n := unlanded.Load() - before; n != 0 {
		t.Errorf("%d requests left flight by the bound, not by Chromium's loadingFinished/loadingFailed", n)
	}
	got := map[string]int{}
	for _, ex := range p.Exchanges {
		got[strings.TrimPrefix(ex.URL, srv.URL)]++
	}
	for i := 1; i <= parts; i++ {
		for _, u := range []string{fmt.Sprintf("/part%d.json", i), fmt.Sprintf("/part%d.png", i)} {
			if got[u] != 1 {
				t.Errorf("%s captured %d times, want once; captured %v", u, got[u], urls(p.Exchanges))
			}
		}
	}
	if p.TimedOut {
		t.Errorf("TimedOut")
	}
}

// TestPreviousPage loads a page that keeps requesting (timers in its main frame or in a
// frame, fetch() or images) and then, in the same tab, a page whose document is slow to come
// and has a stylesheet, an image and a frame of its own: no request the first page makes
// after its capture may reach the server, nor be taken for the second page's (the tab is
// not reset between pages: the first page runs on until the second one's document
// commits), and every request of the second page is captured.
func TestPreviousPage(t *testing.T) {
	tickers := map[string]string{ // the first page's HTML
		"fetch": `<script>setInterval(() => fetch('/tick?' + Date.now()).catch(() => {}), 10);</script>`,
		"image": `<script>setInterval(() => { new Image().src = '/tick?' + Date.now(); }, 10);</script>`,
		"frame": `<iframe src="/tickframe.html"></iframe>`,
		"both": `<iframe src="/tickframe.html"></iframe>
<script>setInterval(() => fetch('/tick?' + Date.now()).catch(() => {}), 10);</script>`,
	}
	// late counts the ticks made (by the page's clock, the machine's) after after: a tick
	// the first page made before its capture ended may still reach the server after it
	// (performed, then canceled, by the capture), a later one must not.
	var late, after atomic.Int64
	after.Store(math.MaxInt64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		html := func(s string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(s))
		}
		switch p := r.URL.Path; {
		case p == "/tick":
			if ms, err := strconv.ParseInt(strings.TrimPrefix(r.URL.RawQuery, "frame"), 10, 64); err != nil {
				t.Errorf("tick %s", r.URL)
			} else if ms > after.Load() {
				late.Add(1)
			}
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("tick"))
		case strings.HasPrefix(p, "/ticker/"):
			html(`<!DOCTYPE html><title>ticker</title>` + tickers[strings.TrimPrefix(p, "/ticker/")])
		case p == "/tickframe.html":
			html(`<!DOCTYPE html><script>setInterval(() => fetch('/tick?frame' + Date.now()).catch(() => {}), 10);</script>`)
		case p == "/slow.html":
			// Long enough for the ticker's timers to fire many times meanwhile.
			time.Sleep(500 * time.Millisecond)
			html(`<!DOCTYPE html><title>slow</title><link rel="stylesheet" href="/slow.css">
<p>slow page</p><img src="/slow.png"><iframe src="/slowframe.html"></iframe>`)
		case p == "/slow.css":
			w.Header().Set("Content-Type", "text/css")
			w.Write([]byte("p { color: green }"))
		case p == "/slow.png", p == "/slowframe.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(readFile(t, "img/lazy.png"))
		case p == "/slowframe.html":
			html(`<!DOCTYPE html><img src="/slowframe.png">`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	// One tab: each page is loaded where the one before it ran.
	f := newFetcher(t, func(c *Config) {
		c.Screenshot = false
		c.NetworkIdle = 100 * time.Millisecond
		c.IdleTimeout = time.Second
	})
	for _, name := range []string{"fetch", "image", "frame", "both"} {
		t.Run(name, func(t *testing.T) {
			first := fetchPage(t, f, srv.URL+"/ticker/"+name)
			var tickerTicks int
			for _, ex := range first.Exchanges {
				if strings.HasPrefix(ex.URL, srv.URL+"/tick?") {
					tickerTicks++
				}
			}
			if tickerTicks == 0 {
				t.Fatalf("the ticker page made no requests while it was captured: %v", urls(first.Exchanges))
			}
			after.Store(time.Now().UnixMilli())
			late.Store(0)
			before := unlanded.Load()
			second := fetchPage(t, f, srv.URL+"/slow.html")
			if n := late.Load(); n != 0 {
				t.Errorf("%d requests the previous page made after its capture reached the server", n)
			}
			var got []string
			for _, ex := range second.Exchanges {
				if p := strings.TrimPrefix(ex.URL, srv.URL); p != "/favicon.ico" {
					got = append(got, p)
				}
			}
			slices.Sort(got)
			if want := []string{"/slow.css", "/slow.html", "/slow.png", "/slowframe.html", "/slowframe.png"}; !slices.Equal(got, want) {
				t.Errorf("second page captured %v, want %v", got, want)
			}
			for _, fl := range second.Failed {
				t.Errorf("second page lists a failure: %s: %v", fl.URL, fl.Err)
			}
			if second.Title != "slow" {
				t.Errorf("second page title %q", second.Title)
			}
			// The previous page's requests, failed by amber, held no wait for idle.
			if n := unlanded.Load() - before; n != 0 {
				t.Errorf("%d requests left flight by the bound", n)
			}
		})
	}
}

// TestSameDocument loads a page, then the same URL with a fragment (a navigation within
// the document, had the tab been left there), then it again: each is a page of its own, with
// its document requested.
func TestSameDocument(t *testing.T) {
	var docs atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/a.html" {
			http.NotFound(w, r)
			return
		}
		n := docs.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><title>a%d</title><p id="part">part</p>`, n)
	}))
	defer srv.Close()
	f := newFetcher(t, func(c *Config) { c.Screenshot = false })
	for i, u := range []string{"/a.html", "/a.html#part", "/a.html#part", "/a.html"} {
		p := fetchPage(t, f, srv.URL+u)
		if want := fmt.Sprintf("a%d", i+1); p.Title != want {
			t.Errorf("%d: %s: title %q, want %q", i, u, p.Title, want)
		}
		if len(p.Exchanges) == 0 || p.Exchanges[0].URL != srv.URL+"/a.html" {
			t.Errorf("%d: %s: exchanges %v", i, u, urls(p.Exchanges))
		}
		if p.FinalURL != srv.URL+u {
			t.Errorf("%d: %s: FinalURL %s", i, u, p.FinalURL)
		}
	}
}

// TestConditionalPageRedirect: a recrawl's validators (If-None-Match, If-Modified-Since)
// given for a page go with the page's own request, not with the request for the target of
// its redirect, whose capture they are not; other headers given for the page go with both.
func TestConditionalPageRedirect(t *testing.T) {
	var mu sync.Mutex
	got := map[string]http.Header{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Path] = r.Header.Clone()
		mu.Unlock()
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!DOCTYPE html><title>new</title>"))
	}))
	defer srv.Close()
	f := newFetcher(t, func(c *Config) { c.Screenshot = false })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	h := http.Header{"If-None-Match": {`"v1"`}, "If-Modified-Since": {"Mon, 02 Jan 2006 15:04:05 GMT"}, "X-Archive": {"museum"}}
	p, err := f.Load(ctx, fetch.Request{URL: srv.URL + "/old", Header: h})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	mu.Lock()
	defer mu.Unlock()
	if o := got["/old"]; o.Get("If-None-Match") != `"v1"` || o.Get("If-Modified-Since") == "" || o.Get("X-Archive") != "museum" {
		t.Errorf("/old was sent %v", o)
	}
	n := got["/new"]
	if n == nil {
		t.Fatal("/new was not requested")
	}
	if n.Get("If-None-Match") != "" || n.Get("If-Modified-Since") != "" || n.Get("X-Archive") != "museum" {
		t.Errorf("/new was sent %v", n)
	}
}

// TestPlace judges requests paused after the commit that started epoch 2 by what the tab
// saw: the renderer's announcements (each with its epoch) and the frames it attached.
func TestPlace(t *testing.T) {
	const main = cdp.FrameID("MAIN")
	tb := &tab{
		targetID: main,
		epoch:    2,
		wills: map[network.RequestID]will{
			"10.5":   {epoch: 1, proc: "10", seq: 5}, // the previous page's
			"10.9":   {epoch: 2, proc: "10", seq: 9}, // the page's
			"20.3":   {epoch: 2, proc: "20", seq: 3}, // the page's, in another renderer
			"LOADER": {epoch: 1},                     // a navigation's
			// Announced after the commit, made by the previous page's document (DOC1) or by
			// the page's (DOC2), in a renderer of their own.
			"40.8":  {epoch: 2, proc: "40", seq: 8, loader: "DOC1"},
			"40.12": {epoch: 2, proc: "40", seq: 12, loader: "DOC2"},
			"40.15": {epoch: 2, proc: "40", seq: 15, loader: "UNSEEN"},
		},
		frames: map[cdp.FrameID]int{"OLD": 1, "NEW": 2},
		docs:   map[cdp.LoaderID]int{"DOC1": 1, "DOC2": 2},
	}
	for _, tc := range []struct {
		name  string
		id    network.RequestID
		frame cdp.FrameID
		typ   network.ResourceType
		want  verdict
	}{
		{name: "announced before the commit", id: "10.5", frame: main, want: stale},
		{name: "announced after the commit", id: "10.9", frame: main, want: ofPage},
		{name: "made before one announced before the commit", id: "10.4", frame: main, want: stale},
		{name: "made after one announced after the commit", id: "10.10", frame: main, want: ofPage},
		{name: "made between", id: "10.7", frame: main, want: held},
		{name: "another renderer's, made after one of the page's", id: "20.4", frame: main, want: ofPage},
		{name: "another renderer's, made before", id: "20.2", frame: main, want: held},
		{name: "a renderer nothing was announced of", id: "30.1", frame: main, want: held},
		{name: "not a renderer's sequence", id: "ABC", frame: main, want: held},
		{name: "a frame attached before the commit", id: "10.10", frame: "OLD", want: stale},
		{name: "a frame attached after the commit", id: "10.10", frame: "NEW", want: ofPage},
		{name: "a frame not seen yet", id: "10.10", frame: "UNSEEN", want: ofPage},
		{name: "a document in a frame attached after the commit", id: "LOADER", frame: "NEW", typ: network.ResourceTypeDocument, want: ofPage},
		{name: "a document in a frame attached before the commit", id: "NAV", frame: "OLD", typ: network.ResourceTypeDocument, want: stale},
		{name: "a document in the main frame after the commit", id: "NAV", frame: main, typ: network.ResourceTypeDocument, want: ofPage},
		{name: "a document in the main frame announced after the commit", id: "10.9", frame: main, typ: network.ResourceTypeDocument, want: ofPage},
		{name: "a document in the main frame announced before the commit", id: "LOADER", frame: main, typ: network.ResourceTypeDocument, want: stale},
		{name: "announced after the commit by the previous page's document", id: "40.8", frame: main, want: stale},
		{name: "made before that", id: "40.7", frame: main, want: stale},
		{name: "announced after the commit by the page's document", id: "40.12", frame: main, want: ofPage},
		{name: "made between the two documents' requests", id: "40.10", frame: main, want: held},
		{name: "announced after the commit by no known document", id: "40.15", frame: main, want: ofPage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ := tc.typ
			if typ == "" {
				typ = network.ResourceTypeXHR
			}
			ev := &cdpfetch.EventRequestPaused{NetworkID: tc.id, FrameID: tc.frame, ResourceType: typ}
			if got := tb.placeLocked(ev, 2); got != tc.want {
				t.Errorf("placeLocked = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRequestSeq(t *testing.T) {
	for _, tc := range []struct {
		id   network.RequestID
		proc string
		n    int64
		ok   bool
	}{
		{id: "26652.21", proc: "26652", n: 21, ok: true},
		{id: "1.0", proc: "1", n: 0, ok: true},
		{id: "78887CF0F041A3EF3433269DE5DD7AAC"},
		{id: ".5"},
		{id: "5."},
		{id: "5.-1"},
		{id: "5.x"},
		{id: ""},
	} {
		proc, n, ok := requestSeq(tc.id)
		if proc != tc.proc || n != tc.n || ok != tc.ok {
			t.Errorf("requestSeq(%q) = %q, %d, %v; want %q, %d, %v", tc.id, proc, n, ok, tc.proc, tc.n, tc.ok)
		}
	}
}

// TestOwnNavigation pauses main-frame document requests before the commit, in order, as the
// previous page's own navigations and amber's come: the page's document is the first that
// the browser announced as its own (initiator "other", or not announced yet) and that has no
// Referer; a navigation the previous page's script started, or one with the page's URL as
// Referer (a refresh, a form), is not, and neither is any other once the page's is known,
// but the page's own redirect hops (its loader ID) are.
func TestOwnNavigation(t *testing.T) {
	const main = cdp.FrameID("MAIN")
	type doc struct {
		id        network.RequestID
		initiator network.InitiatorType // announced with it; "" not announced
		referer   bool
		want      verdict
	}
	own := func(id network.RequestID) doc {
		return doc{id: id, initiator: network.InitiatorTypeOther, want: pageDoc}
	}
	for _, tc := range []struct {
		name string
		docs []doc
	}{
		{"amber's alone", []doc{own("A")}},
		{"amber's, then its redirect hop", []doc{own("A"), own("A")}},
		{"not announced yet", []doc{{id: "A", want: pageDoc}}},
		{"a script's before amber's", []doc{{id: "S", initiator: network.InitiatorTypeScript, referer: true, want: stale}, own("A")}},
		{"a script's under a no-referrer policy", []doc{{id: "S", initiator: network.InitiatorTypeScript, want: stale}, own("A")}},
		{"a refresh before amber's", []doc{{id: "R", initiator: network.InitiatorTypeOther, referer: true, want: stale}, own("A")}},
		{"a parser's before amber's", []doc{{id: "P", initiator: network.InitiatorTypeParser, want: stale}, own("A")}},
		{"not announced, referring, before amber's", []doc{{id: "R", referer: true, want: stale}, own("A")}},
		{"another after amber's", []doc{own("A"), {id: "B", initiator: network.InitiatorTypeOther, want: stale}}},
		{"a script's after amber's, then amber's hop", []doc{own("A"), {id: "S", initiator: network.InitiatorTypeScript, want: stale}, own("A")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := &tab{targetID: main, wills: map[network.RequestID]will{}}
			r := &recorder{t: tb}
			for i, d := range tc.docs {
				if d.initiator != "" {
					tb.wills[d.id] = will{initiator: d.initiator}
				}
				h := network.Headers{"User-Agent": "x"}
				if d.referer {
					h["Referer"] = "http://127.0.0.1/old"
				}
				ev := &cdpfetch.EventRequestPaused{NetworkID: d.id, FrameID: main, ResourceType: network.ResourceTypeDocument,
					Request: &network.Request{URL: "http://127.0.0.1/" + string(d.id), Headers: h}}
				if got := tb.verdictLocked(r, ev); got != d.want {
					t.Errorf("document %d (%s): verdict %d, want %d", i, d.id, got, d.want)
				}
			}
		})
	}
}

// TestPreviousPageNavigates loads a page that, once its capture is over (amber scrolls it
// back to the top to read it), keeps starting navigations of its own (to a 204 answer, so
// that it stays and goes on), each time followed by a page in the same tab: a navigation the
// first page starts in the moment before the next page's must not be taken for that page's
// document (which would then be failed as another's) nor captured with it, nor reach the
// server after the first page's capture ended.
func TestPreviousPageNavigates(t *testing.T) {
	var late, after atomic.Int64
	after.Store(math.MaxInt64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/navigator.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			// A script's navigation, a link's and a form's, every few milliseconds.
			w.Write([]byte(`<!DOCTYPE html><title>navigator</title>
<a id="a" href="/away?a">a</a><form id="f" action="/away"><input name="f"></form>
<div style="height: 3000px"></div>
<script>
let down = false, n = 0;
addEventListener('scroll', () => {
	if (scrollY > 0) {
		down = true;
		return;
	}
	if (!down) return;
	down = false;
	setInterval(() => {
		const v = Date.now();
		switch (n++ % 3) {
		case 0: location.href = '/away?s' + v; break;
		case 1: document.getElementById('a').href = '/away?a' + v; document.getElementById('a').click(); break;
		case 2: document.querySelector('#f input').value = v; document.getElementById('f').submit(); break;
		}
	}, 2);
});
</script>`))
		case "/away":
			q := strings.TrimLeft(r.URL.RawQuery, "saf=")
			if ms, err := strconv.ParseInt(q, 10, 64); err == nil && ms > after.Load() {
				late.Add(1)
			}
			w.WriteHeader(http.StatusNoContent)
		case "/next.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<!DOCTYPE html><title>next</title><img src="/next.png">`))
		case "/next.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(readFile(t, "img/lazy.png"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	// The screenshot draws a frame after amber scrolled the page back to the top, in which
	// the page's scroll listener runs: the navigations start before the next page's.
	f := newFetcher(t, func(c *Config) { c.Screenshot = true; c.IdleTimeout = time.Second })
	for i := range 6 {
		first := fetchPage(t, f, srv.URL+"/navigator.html")
		if first.Title != "navigator" {
			t.Fatalf("round %d: first page title %q", i, first.Title)
		}
		after.Store(time.Now().UnixMilli())
		late.Store(0)
		p, err := f.Load(t.Context(), fetch.Request{URL: srv.URL + "/next.html"})
		if err != nil {
			t.Fatalf("round %d: next page: %v", i, err)
		}
		var got []string
		for _, u := range urls(p.Exchanges) {
			if u != srv.URL+"/favicon.ico" {
				got = append(got, u)
			}
		}
		p.Close()
		if want := []string{srv.URL + "/next.html", srv.URL + "/next.png"}; !slices.Equal(got, want) || p.Title != "next" {
			t.Errorf("round %d: next page %q captured %v, want %v", i, p.Title, got, want)
		}
		if n := late.Load(); n != 0 {
			t.Errorf("round %d: %d navigations the first page started after its capture reached the server", i, n)
		}
	}
}
