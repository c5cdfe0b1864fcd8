package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
)

// TestWaitIdle drives a recorder's request count by hand: waitIdle must not return while a
// request is in flight, nor when a request starts during the quiet period, and returns at
// the bound or when its context ends. Each step first pauses, giving a wrong waitIdle the
// time to return early; the pauses that are checked against quiet are far shorter than it.
func TestWaitIdle(t *testing.T) {
	type step struct {
		pause time.Duration
		op    string // "begin" or "end" a request
	}
	const long = 60 * time.Millisecond // a pause while a request is in flight
	for _, tc := range []struct {
		name  string
		quiet time.Duration
		bound time.Duration
		open  int // requests in flight when waitIdle starts
		steps []step
		// done is the number of steps after which waitIdle returns; never before.
		done   int
		cancel bool
		want   error
	}{
		{name: "idle already", quiet: 10 * time.Millisecond, bound: time.Hour},
		{name: "waits for the request in flight", quiet: 10 * time.Millisecond, bound: time.Hour, open: 1,
			steps: []step{{long, "end"}}, done: 1},
		{name: "waits for every request", quiet: 10 * time.Millisecond, bound: time.Hour, open: 2,
			steps: []step{{long, "end"}, {long, "end"}}, done: 2},
		{name: "a request in the quiet period starts it over", quiet: time.Second, bound: time.Hour, open: 1,
			steps: []step{{long, "end"}, {0, "begin"}, {long, "end"}}, done: 3},
		{name: "bound", quiet: 10 * time.Millisecond, bound: long, open: 1},
		{name: "context", quiet: 10 * time.Millisecond, bound: time.Hour, open: 1, cancel: true, want: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{moved: make(chan struct{}), changed: time.Now().Add(-time.Hour)}
			var open []int // slots begun and not ended
			for range tc.open {
				open = append(open, r.begin(""))
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var done atomic.Int64
			returned := make(chan int64, 1)
			var err error
			go func() {
				err = r.waitIdle(ctx, tc.quiet, tc.bound)
				returned <- done.Load()
			}()
			for i, s := range tc.steps {
				time.Sleep(s.pause)
				select {
				case at := <-returned:
					t.Fatalf("returned after step %d, want %d", at, tc.done)
				default:
				}
				switch s.op {
				case "begin":
					open = append(open, r.begin(""))
				case "end":
					r.end(open[0])
					open = open[1:]
				}
				done.Store(int64(i + 1))
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
			for _, slot := range open {
				r.end(slot)
			}
		})
	}
}

// TestLanding: a request is in flight from its pause until both the recorder has answered it
// and Chromium reported its end (in either order); a redirect's hops share a network ID and
// land together; a request without one leaves when answered, one whose event never comes at
// the bound.
func TestLanding(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nets  []string // the paused requests' network IDs
		steps []string // "end N" (answered) or "land ID"
		// busy is whether a request is in flight after each step.
		busy []bool
	}{
		{name: "answered, then landed", nets: []string{"a"}, steps: []string{"end 0", "land a"}, busy: []bool{true, false}},
		{name: "landed, then answered", nets: []string{"a"}, steps: []string{"land a", "end 0"}, busy: []bool{true, false}},
		{name: "no network ID", nets: []string{""}, steps: []string{"end 0"}, busy: []bool{false}},
		{name: "redirect hops", nets: []string{"a", "a"}, steps: []string{"end 0", "end 1", "land a"}, busy: []bool{true, true, false}},
		{name: "another request's event", nets: []string{"a"}, steps: []string{"end 0", "land b"}, busy: []bool{true, true}},
		{name: "bound", nets: []string{"a"}, steps: []string{"end 0", "wait"}, busy: []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{moved: make(chan struct{}), landAfter: 50 * time.Millisecond}
			var slots []int
			for _, n := range tc.nets {
				slots = append(slots, r.begin(network.RequestID(n)))
			}
			before := unlanded.Load()
			for i, s := range tc.steps {
				op, arg, _ := strings.Cut(s, " ")
				switch op {
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
			wantUnlanded := int64(0)
			if tc.name == "bound" {
				wantUnlanded = 1
			}
			if n := unlanded.Load() - before; n != wantUnlanded {
				t.Errorf("left by the bound: %d, want %d", n, wantUnlanded)
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
	// A request is in flight until Chromium's renderer has taken in its answer, by which time
	// the page's callback that appends the next part has run (a wait that ended when amber
	// fulfilled the request lost the last part under load).
	// The production quiet period, not the tests' shorter one: under -race on a loaded 2-core
	// machine the renderer took more than 300 ms between a scroll and the request it caused.
	f := newFetcher(t, func(c *Config) { c.Screenshot = false; c.NetworkIdle = DefaultNetworkIdle })
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

// TestPreviousPage loads a page that keeps requesting (a timer) and then, in the same tab, a
// page whose document is slow to come: none of the first page's requests may reach the
// server after its capture, nor be taken for the second page's (the tab is reset between
// pages; leaving the first page there until the second commits would let its requests in).
func TestPreviousPage(t *testing.T) {
	var ticks atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tick":
			ticks.Add(1)
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("tick"))
		case "/ticker.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<!DOCTYPE html><title>ticker</title>
<script>setInterval(() => fetch('/tick?' + Date.now()).catch(() => {}), 10);</script>`))
		case "/slow.html":
			// Long enough for the ticker's timer to fire many times meanwhile.
			time.Sleep(500 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<!DOCTYPE html><title>slow</title><p>slow page</p>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	f := newFetcher(t, func(c *Config) {
		c.Screenshot = false
		c.NetworkIdle = 100 * time.Millisecond
		c.IdleTimeout = time.Second
	})
	first := fetchPage(t, f, srv.URL+"/ticker.html")
	var tickerTicks int
	for _, ex := range first.Exchanges {
		if strings.HasPrefix(ex.URL, srv.URL+"/tick?") {
			tickerTicks++
		}
	}
	if tickerTicks == 0 {
		t.Fatalf("the ticker page made no requests while it was captured: %v", urls(first.Exchanges))
	}
	seen := ticks.Load()
	second := fetchPage(t, f, srv.URL+"/slow.html")
	if n := ticks.Load() - seen; n != 0 {
		t.Errorf("%d requests of the previous page reached the server", n)
	}
	for _, ex := range second.Exchanges {
		if !strings.HasPrefix(ex.URL, srv.URL+"/slow.html") && !strings.HasSuffix(ex.URL, "/favicon.ico") {
			t.Errorf("second page captured %s", ex.URL)
		}
	}
	for _, fl := range second.Failed {
		t.Errorf("second page lists a failure: %s: %v", fl.URL, fl.Err)
	}
	if second.Title != "slow" {
		t.Errorf("second page title %q", second.Title)
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
	p, err := f.Load(ctx, srv.URL+"/old", h)
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
