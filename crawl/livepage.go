package crawl

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// The live page of the status server: GET / is a page that polls /status every second (the
// figures and a chart of fetched and queued over time) and steers the crawl with POST /control,
// the control socket's requests over HTTP (ControlRequest in, ControlResponse out), carried out
// by the same code and recorded the same way, with "http:" and the client's address as the
// user.
//
// /control takes a request only with the header ControlHeader: 1, which a form or a simple
// request from another site cannot send (a cross-site fetch with it needs a CORS preflight the
// server never grants), and with an Origin, when there is one, of the server itself. On a
// loopback address the Host must name the loopback (localhost or a loopback IP), so a page whose
// name is made to resolve to 127.0.0.1 (DNS rebinding) gets nothing. On any other address
// (0.0.0.0 included) the request also needs the token written to StatusTokenFile at start, in
// the header TokenHeader; the page sends the one it was opened with (/?token=...).

// StatusTokenFile holds the token /control asks for when the status server is bound to an
// address that is not a loopback one (mode 0600, written at every start).
const StatusTokenFile = "logs/status-token"

// The headers of a /control request.
const (
	ControlHeader = "X-Amber-Control" // required, "1"
	TokenHeader   = "X-Amber-Token"   // the token, when the server is not on loopback
)

//go:embed livepage
var livePageFS embed.FS

// liveControl answers /control.
type liveControl struct {
	ctl   *control
	token string // "" on loopback: no token asked
}

// newLiveControl makes the /control handler for a server listening at addr. Off loopback it
// makes a token and writes it to StatusTokenFile.
func (c *crawler) newLiveControl(addr net.Addr) (*liveControl, error) {
	lc := &liveControl{ctl: c.ctl}
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return lc, nil
	}
	b := make([]byte, 24)
	rand.Read(b)
	lc.token = fmt.Sprintf("%x", b)
	path := filepath.Join(c.cfg.Dir, StatusTokenFile)
	os.Remove(path) // a token file left by another user's crawl would keep its owner and mode
	if err := os.WriteFile(path, []byte(lc.token+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write status token: %w", err)
	}
	c.log.Info("status server is not on loopback: /control needs the token", "path", path,
		"page", fmt.Sprintf("http://%s/?token=(the token in %s)", addr, StatusTokenFile))
	return lc, nil
}

// errForbidden is the answer to a /control request refused by its headers.
var errForbidden = errors.New("forbidden")

// allow checks a request's headers (see the package comment on the live page).
func (lc *liveControl) allow(r *http.Request) error {
	if r.Header.Get(ControlHeader) != "1" {
		return fmt.Errorf("%w: no %s: 1 header", errForbidden, ControlHeader)
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return fmt.Errorf("%w: origin %q is not this server", errForbidden, o)
	}
	if lc.token == "" {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("%w: host %q is not a loopback name", errForbidden, r.Host)
		}
		return nil
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), []byte(lc.token)) != 1 {
		return fmt.Errorf("%w: no valid %s header (the token is in %s)", errForbidden, TokenHeader, StatusTokenFile)
	}
	return nil
}

func (lc *liveControl) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	answer := func(code int, res ControlResponse) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(res)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		answer(http.StatusMethodNotAllowed, ControlResponse{Error: "POST a JSON request"})
		return
	}
	if err := lc.allow(r); err != nil {
		lc.ctl.c.log.Warn("status server: control request refused", "remote", r.RemoteAddr, "err", err)
		answer(http.StatusForbidden, ControlResponse{Error: err.Error()})
		return
	}
	lc.ctl.connMu.Lock()
	started, closed := lc.ctl.started, lc.ctl.closed
	lc.ctl.connMu.Unlock()
	switch {
	case closed:
		answer(http.StatusServiceUnavailable, ControlResponse{Error: "the run is ending: no more changes"})
		return
	case !started:
		// The status server starts a moment before the crawl's control does.
		answer(http.StatusServiceUnavailable, ControlResponse{Error: "the run is starting: try again in a moment"})
		return
	}
	var req ControlRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	if err := dec.Decode(&req); err != nil {
		answer(http.StatusBadRequest, ControlResponse{Error: "request is not a JSON object: " + err.Error(), BadRequest: true})
		return
	}
	res := lc.ctl.do("http:"+r.RemoteAddr, req)
	code := http.StatusOK
	switch {
	case res.BadRequest:
		code = http.StatusBadRequest
	case !res.OK:
		code = http.StatusInternalServerError
	}
	answer(code, res)
}

// serveLivePage serves the page (/) and its script and style (/live/...), from livepage/.
func serveLivePage(mux *http.ServeMux) {
	files := func(name, typ string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, err := livePageFS.ReadFile("livepage/" + name)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			h := w.Header()
			h.Set("Content-Type", typ)
			h.Set("Cache-Control", "no-store")
			// Same-origin everything, no inline script, and never in a frame (the buttons
			// steer the crawl: no clickjacking).
			h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'none'")
			h.Set("X-Frame-Options", "DENY")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "no-referrer")
			w.Write(b)
		}
	}
	mux.HandleFunc("GET /{$}", files("index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /live/live.js", files("live.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /live/live.css", files("live.css", "text/css; charset=utf-8"))
}
