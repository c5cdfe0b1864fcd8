package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/frontier/redisfront"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/ctltest"
	"github.com/amber-crawler/amber/internal/redistest"
	"github.com/amber-crawler/amber/live"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
)

// freeAddr is an address on host with a port free a moment ago, for a status server.
func freeAddr(t *testing.T, host string) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// liveConfig is a crawl of the control site's a.test and slow.test with a status server at addr.
func liveConfig(t *testing.T, site *ctltest.Site, addr string) crawl.Config {
	t.Helper()
	cfg := ctltest.Config(t, site.Addr(), t.TempDir())
	c := ctl.New()
	srv, err := live.New(live.Config{Addr: addr, Control: c})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Services = []crawl.Service{srv, c}
	return cfg
}

// postControl posts body to url's /control with the given headers (Host: set as the request's
// Host) and returns the HTTP status and the decoded answer.
func postControl(t *testing.T, base, body string, headers map[string]string) (int, ctl.Response) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/control", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var res ctl.Response
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("POST /control: %d %q: %v", resp.StatusCode, b, err)
	}
	return resp.StatusCode, res
}

// stopAtEnd stops, through the socket, the run of a test that failed before it stopped it, so
// the test ends; the run's result is passed on.
func stopAtEnd(t *testing.T, dir string, done chan ctltest.Result) chan ctltest.Result {
	t.Helper()
	out, ended := make(chan ctltest.Result, 1), make(chan struct{})
	go func() {
		out <- <-done
		close(ended)
	}()
	t.Cleanup(func() {
		select {
		case <-ended:
		default:
			ctl.Send(context.Background(), dir, ctl.Request{Command: ctl.CmdStop})
			<-ended
		}
	})
	return out
}

// panelsJS is a function that returns the rows of the live page's tables (hosts, codes, scope,
// current: cells joined by "|") and the number of bars of its timeline.
const panelsJS = `const panels = () => {
  const rows = (id) => Array.from(document.getElementById(id).tBodies[0].rows, (r) => Array.from(r.cells, (c) => c.textContent).join('|'));
  return {hosts: rows('hosts'), codes: rows('codes'), scope: rows('scope'), current: rows('current'),
    bars: document.getElementById('timeline').querySelectorAll('rect').length};
};`

// pauseJS waits for the page to show some fetches and a URL in flight, clicks pause
// once, and reports what the page shows once the answer is in. A page whose script did not
// run, or that logged an error, is reported at once.
const pauseJS = `(() => {
  ` + panelsJS + `
  const errs = window.amberErrors;
  if (!Array.isArray(errs)) throw new Error('live.js did not run');
  const $ = (id) => document.getElementById(id);
  const report = () => JSON.stringify({errors: errs, fetched: Number($('fetched').textContent),
    answer: $('ans-buttons').textContent, paused: $('paused').textContent,
    chart: $('line-fetched').getAttribute('points'), conn: $('conn').textContent, url: location.href,
    panels: panels()});
  if (errs.length) return report();
  // Wait for the panels too: the gated slow.test/ is in flight.
  if (!(Number($('fetched').textContent) > 0) || $('current').tBodies[0].rows.length < 1) return '';
  if (!window.testClicked) { window.testClicked = true; $('btn-pause').click(); return ''; }
  const a = $('ans-buttons').textContent;
  return a.startsWith('pause: ') && a !== 'pause: …' ? report() : '';
})()`

// blockJS submits a block rule, an unblock of a rule that is not there (an error to show), then
// clicks resume, and reports the answers shown.
const blockJS = `(() => {
  const errs = window.amberErrors;
  if (!Array.isArray(errs)) throw new Error('live.js did not run');
  const $ = (id) => document.getElementById(id);
  const out = (id) => $(id).querySelector('output').textContent;
  const report = () => JSON.stringify({errors: errs, block: out('form-block'), unblock: out('form-unblock'),
    resume: $('ans-buttons').textContent, paused: $('paused').textContent});
  if (errs.length) return report();
  const step = window.testStep || 0;
  const done = (s) => s.includes(': ') && !s.endsWith('…');
  if (step === 0) {
    if ($('paused').textContent !== 'yes') return '';
    $('form-block').elements.a0.value = 'contains:/calendar/';
    $('form-block').requestSubmit();
    $('form-unblock').elements.a0.value = 'contains:/nothing/';
    $('form-unblock').requestSubmit();
    window.testStep = 1;
    return '';
  }
  if (step === 1) {
    if (!done(out('form-block')) || !done(out('form-unblock'))) return '';
    $('btn-resume').click();
    window.testStep = 2;
    return '';
  }
  return done($('ans-buttons').textContent) ? report() : '';
})()`

// scopeJS waits for the page's scope table to show the URLs the block rule left out, and
// reports the panels.
const scopeJS = `(() => {
  const errs = window.amberErrors;
  if (!Array.isArray(errs)) throw new Error('live.js did not run');
  ` + panelsJS + `
  const p = panels();
  return errs.length || p.scope.includes('block:contains:/calendar/|2') ? JSON.stringify({errors: errs, panels: p}) : '';
})()`

// livePanels are the rows of the live page's tables.
type livePanels struct {
	Hosts, Codes, Scope, Current []string
	Bars                         int
}

type pageReport struct {
	Errors  []string `json:"errors"`
	Fetched int64    `json:"fetched"`
	Answer  string   `json:"answer"`
	Paused  string   `json:"paused"`
	Chart   string   `json:"chart"`
	Conn    string   `json:"conn"`
	Block   string   `json:"block"`
	Unblock string   `json:"unblock"`
	Resume  string   `json:"resume"`
	URL     string   `json:"url"`
	Panels  livePanels
}

func evaluatePage(t *testing.T, chromium, url, js string) pageReport {
	t.Helper()
	out, err := browser.Evaluate(t.Context(), browser.RenderConfig{Path: chromium, URL: url, Expression: js, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var r pageReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(r.Errors) > 0 {
		t.Errorf("page errors: %q", r.Errors)
	}
	return r
}

// TestLivePage steers a crawl from the live page in headless Chromium: the page shows the
// figures and the chart with no error, its pause button stops the requests, its block form
// refuses a queued and a later-found URL, and its answers (ok or the error) are shown. Every
// request is recorded as the socket's are, with the HTTP client as the user.
//
// It runs with the crawl's own frontier and with a shared one in redis-server: the page and
// its buttons work alike.
func TestLivePage(t *testing.T) {
	chromium := crawltest.Chromium(t)
	t.Run("own", func(t *testing.T) { testLivePage(t, chromium, nil) })
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t)
		testLivePage(t, chromium, func(cfg *crawl.Config) {
			cfg.Shared = redisfront.Shared{URL: srv.URL(0), CrawlID: "live"}
		})
	})
}

func testLivePage(t *testing.T, chromium string, configure func(*crawl.Config)) {
	site := ctltest.StartSite(t)
	addr := freeAddr(t, "127.0.0.1")
	cfg := liveConfig(t, site, addr)
	if configure != nil {
		configure(&cfg)
	}
	base := "http://" + addr
	p1, slow := site.Gate("a.test/p1"), site.Gate("slow.test/")
	defer close(slow)
	done := stopAtEnd(t, cfg.Dir, ctltest.Start(t, cfg))
	// a.test/ is fetched; p1 holds a.test's one slot, so its other links wait in the queue.
	ctltest.WaitFor(t, "a.test/p1 and slow.test/ requested", func() bool { return site.Count("a.test/p1") == 1 && site.Count("slow.test/") == 1 })

	r := evaluatePage(t, chromium, base+"/", pauseJS)
	if r.Answer != "pause: ok" || r.Paused != "yes" || r.Fetched == 0 || r.Chart == "" || r.Conn != "live" {
		t.Errorf("page after pause: %+v", r)
	}
	// The panels: the two URLs held in flight, their hosts, the status codes so far, the
	// timeline's bars.
	var current []string
	for _, c := range r.Panels.Current {
		f := strings.Split(c, "|")
		current = append(current, f[1]+" "+f[2])
	}
	slices.Sort(current)
	if want := []string{"a.test http://a.test/p1", "slow.test http://slow.test/"}; !slices.Equal(current, want) {
		t.Errorf("in flight %q, want %q", r.Panels.Current, want)
	}
	hostRow := func(rows []string, host string) []string {
		for _, h := range rows {
			if f := strings.Split(h, "|"); f[0] == host {
				return f
			}
		}
		return nil
	}
	// a.test: robots.txt (404) and / captured; /p1 in flight, /calendar/1, /later and the
	// inferred /favicon.ico queued.
	if h := hostRow(r.Panels.Hosts, "a.test"); len(h) != 6 || h[3] != "2" || h[2] != "4" || h[1] != "6" {
		t.Errorf("hosts: a.test row %q, want 6 URLs, 4 queued and 2 captured; rows %q", h, r.Panels.Hosts)
	}
	if hostRow(r.Panels.Hosts, "slow.test") == nil {
		t.Errorf("hosts: no slow.test in %q", r.Panels.Hosts)
	}
	if hostRow(r.Panels.Codes, "200") == nil || hostRow(r.Panels.Codes, "404") == nil || r.Panels.Bars == 0 {
		t.Errorf("status codes %q (want 200 and 404), %d timeline bars", r.Panels.Codes, r.Panels.Bars)
	}
	var snap crawl.Snapshot
	if err := json.Unmarshal([]byte(get(t, base+"/status")), &snap); err != nil || !snap.Paused {
		t.Fatalf("/status after the page's pause: paused %v, err %v", snap.Paused, err)
	}
	close(p1)
	ctltest.WaitFor(t, "p1 done, a.test's links queued", func() bool {
		var s crawl.Snapshot
		json.Unmarshal([]byte(get(t, base+"/status")), &s)
		return s.Frontier.InFlight == 1 && s.Frontier.Queued >= 2
	})
	before := site.Total()
	time.Sleep(300 * time.Millisecond) // what a paused crawl must not do, it would do by now
	if n := site.Total(); n != before {
		t.Errorf("%d requests while paused", n-before)
	}

	r = evaluatePage(t, chromium, base+"/", blockJS)
	if r.Block != "block: ok" || !strings.HasPrefix(r.Unblock, "unblock: error: ") || !strings.Contains(r.Unblock, "not a block rule") ||
		r.Resume != "resume: ok" || r.Paused != "no" {
		t.Errorf("page after block, unblock and resume: %+v", r)
	}
	ctltest.WaitFor(t, "a.test done but for the blocked", func() bool {
		var s crawl.Snapshot
		json.Unmarshal([]byte(get(t, base+"/status")), &s)
		return site.Count("a.test/later") == 1 && s.Frontier.Queued == 0 && s.Frontier.InFlight == 1
	})

	// The scope panel shows what the block rule left out, and a.test's row counts it.
	r = evaluatePage(t, chromium, base+"/", scopeJS)
	if h := hostRow(r.Panels.Hosts, "a.test"); len(h) != 6 || h[5] != "2" {
		t.Errorf("hosts: a.test row %q, want 2 left out", h)
	}
	var view live.View
	if err := json.Unmarshal([]byte(get(t, base+"/live.json")), &view); err != nil || view.Status.Collection != cfg.Collection || len(view.Timeline) == 0 {
		t.Errorf("/live.json: %v, %+v", err, view)
	}

	// Plain HTTP: what /control refuses, and what it takes, on loopback.
	ok := map[string]string{live.ControlHeader: "1"}
	with := func(k, v string) map[string]string {
		h := map[string]string{live.ControlHeader: "1"}
		h[k] = v
		return h
	}
	_, port, _ := net.SplitHostPort(addr)
	for _, tc := range []struct {
		name    string
		body    string
		headers map[string]string
		code    int
	}{
		{"no control header", `{"command":"status"}`, nil, http.StatusForbidden},
		{"control header not 1", `{"command":"status"}`, map[string]string{live.ControlHeader: "yes"}, http.StatusForbidden},
		{"rebound name", `{"command":"status"}`, with("Host", "evil.example:"+port), http.StatusForbidden},
		{"loopback look-alike name", `{"command":"status"}`, with("Host", "localhost.evil.example:"+port), http.StatusForbidden},
		{"other origin", `{"command":"status"}`, with("Origin", "http://evil.example"), http.StatusForbidden},
		{"same origin", `{"command":"status"}`, with("Origin", base), http.StatusOK},
		{"localhost", `{"command":"status"}`, with("Host", "localhost:"+port), http.StatusOK},
		{"not JSON", `pause`, ok, http.StatusBadRequest},
		{"unknown command", `{"command":"frobnicate"}`, ok, http.StatusBadRequest},
		{"status", `{"command":"status"}`, ok, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, res := postControl(t, base, tc.body, tc.headers)
			if code != tc.code || res.OK != (tc.code == http.StatusOK) || (res.OK && res.Status == nil) {
				t.Errorf("POST /control: %d %+v, want %d", code, res, tc.code)
			}
		})
	}
	if resp, err := http.Get(base + "/control"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /control: %v, %v; want 405", resp, err)
	} else {
		resp.Body.Close()
	}
	// The page and its files: same-origin only, never framed.
	for _, tc := range []struct{ path, typ string }{
		{"/", "text/html; charset=utf-8"},
		{"/live/live.js", "text/javascript; charset=utf-8"},
		{"/live/live.css", "text/css; charset=utf-8"},
	} {
		resp, err := http.Get(base + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if csp := resp.Header.Get("Content-Security-Policy"); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != tc.typ ||
			!strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: %d, Content-Type %q, CSP %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), csp)
		}
	}
	if resp, err := http.Get(base + "/nothing"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing: %v, %v; want 404", resp, err)
	} else {
		resp.Body.Close()
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, live.TokenFile)); err == nil {
		t.Errorf("%s written for a loopback server", live.TokenFile)
	}
	if code, res := postControl(t, base, `{"command":"stop"}`, ok); code != http.StatusOK || !res.OK {
		t.Fatalf("stop: %d %+v", code, res)
	}
	if rr := <-done; rr.Err != nil || rr.Res.End != crawl.EndCancelled {
		t.Fatalf("after stop: end %q, err %v; want %q", rr.Res.End, rr.Err, crawl.EndCancelled)
	}

	refused := map[string]string{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		if l.Status == status.OutOfScope {
			refused[l.URL] = strings.Join(l.Annotations, ",")
		}
	}
	for _, u := range []string{"http://a.test/calendar/1", "http://a.test/calendar/2"} {
		if refused[u] != "scope:block:contains:/calendar/" {
			t.Errorf("%s: crawl.log annotations %q, want refused with scope:block:contains:/calendar/", u, refused[u])
		}
		if n := site.Count(strings.TrimPrefix(u, "http://")); n != 0 {
			t.Errorf("%s requested %d times, blocked", u, n)
		}
	}
	var actions []string
	for _, e := range crawltest.ReadEvents(t, filepath.Join(cfg.Dir, crawl.EventsFile)) {
		if e["event.action"] == report.ActionControl {
			user, _ := e["user.name"].(string)
			actions = append(actions, fmt.Sprintf("%v %v %v", e["crawler.control.command"], e["event.outcome"], strings.HasPrefix(user, "http:127.0.0.1:")))
		}
	}
	want := []string{"pause success true", "block success true", "unblock failure true", "resume success true",
		"frobnicate failure true", "stop success true"}
	// The two forms are submitted together: block and unblock may reach the crawl in either order.
	if len(actions) > 2 && actions[1] == want[2] {
		actions[1], actions[2] = actions[2], actions[1]
	}
	if !slices.Equal(actions, want) {
		t.Errorf("control events:\n%q\nwant\n%q", actions, want)
	}
	if b, err := os.ReadFile(filepath.Join(cfg.Dir, ctl.LogFile)); err != nil || strings.Count(string(b), "\n") != len(want) {
		t.Errorf("%s: %v\n%s", ctl.LogFile, err, b)
	}
}

// TestLivePageToken: a status server bound to every address (not loopback) takes /control only
// with the token it wrote to StatusTokenFile (0600), whatever the Host.
func TestLivePageToken(t *testing.T) {
	site := ctltest.StartSite(t)
	addr := freeAddr(t, "0.0.0.0")
	_, port, _ := net.SplitHostPort(addr)
	cfg := liveConfig(t, site, addr)
	slow := site.Gate("slow.test/")
	defer close(slow)
	done := stopAtEnd(t, cfg.Dir, ctltest.Start(t, cfg))
	path := filepath.Join(cfg.Dir, live.TokenFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, %v; want mode 0600", live.TokenFile, fi, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(b))
	if len(token) < 32 {
		t.Fatalf("token %q: too short", token)
	}
	base := "http://127.0.0.1:" + port
	for _, tc := range []struct {
		name    string
		headers map[string]string
		code    int
	}{
		{"no token", map[string]string{live.ControlHeader: "1"}, http.StatusForbidden},
		{"wrong token", map[string]string{live.ControlHeader: "1", live.TokenHeader: strings.Repeat("0", len(token))}, http.StatusForbidden},
		{"token, no control header", map[string]string{live.TokenHeader: token}, http.StatusForbidden},
		{"token", map[string]string{live.ControlHeader: "1", live.TokenHeader: token}, http.StatusOK},
		{"token, the machine's name", map[string]string{live.ControlHeader: "1", live.TokenHeader: token, "Host": "crawler.example.org:" + port}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, res := postControl(t, base, `{"command":"status"}`, tc.headers)
			if code != tc.code || res.OK != (tc.code == http.StatusOK) {
				t.Errorf("POST /control: %d %+v, want %d", code, res, tc.code)
			}
		})
	}
	// The page sends the token it was opened with, and takes it out of the address bar; opened
	// without it, it shows the refusal.
	t.Run("page", func(t *testing.T) {
		chromium := crawltest.Chromium(t)
		for _, tc := range []struct {
			query, answer string
			paused        string
		}{
			{"", "pause: error: forbidden: no valid X-Amber-Token header (the token is in logs/status-token)", "no"},
			{"?token=" + token, "pause: ok", "yes"},
		} {
			r := evaluatePage(t, chromium, base+"/"+tc.query, pauseJS)
			if r.Answer != tc.answer || r.Paused != tc.paused || r.URL != base+"/" {
				t.Errorf("page %s: %+v; want answer %q, paused %q, address %s", tc.query, r, tc.answer, tc.paused, base+"/")
			}
		}
	})
	if code, res := postControl(t, base, `{"command":"stop"}`, map[string]string{live.ControlHeader: "1", live.TokenHeader: token}); code != http.StatusOK || !res.OK {
		t.Fatalf("stop: %d %+v", code, res)
	}
	if rr := <-done; rr.Err != nil || rr.Res.End != crawl.EndCancelled {
		t.Fatalf("after stop: end %q, err %v; want %q", rr.Res.End, rr.Err, crawl.EndCancelled)
	}
}
