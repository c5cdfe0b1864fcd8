package live

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/ctl"
)

// TokenFile holds the token /control asks for when the status server is bound to an address
// that is not a loopback one (mode 0600, written at every start).
const TokenFile = crawldir.StatusTokenFile

// The headers of a /control request.
const (
	ControlHeader = "X-Amber-Control" // required, "1"
	TokenHeader   = "X-Amber-Token"   // the token, when the server is not on loopback
)

// control answers /control.
type control struct {
	ctl   *ctl.Service // nil: none
	log   *slog.Logger
	token string // "" on loopback: no token asked
}

// newControl makes the /control handler for a server listening at addr. Off loopback it
// makes a token and writes it to TokenFile.
func newControl(h *crawl.Handle, svc *ctl.Service, addr net.Addr) (*control, error) {
	cc := &control{ctl: svc, log: h.Log()}
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return cc, nil
	}
	b := make([]byte, 24)
	rand.Read(b)
	cc.token = fmt.Sprintf("%x", b)
	path := filepath.Join(h.Dir(), TokenFile)
	os.Remove(path) // a token file left by another user's crawl would keep its owner and mode
	if err := os.WriteFile(path, []byte(cc.token+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write status token: %w", err)
	}
	h.Log().Info("status server is not on loopback: /control needs the token", "path", path,
		"page", fmt.Sprintf("http://%s/?token=(the token in %s)", addr, TokenFile))
	return cc, nil
}

// errForbidden is the answer to a /control request refused by its headers.
var errForbidden = errors.New("forbidden")

// allow checks a request's headers (see the package doc).
func (cc *control) allow(r *http.Request) error {
	if r.Header.Get(ControlHeader) != "1" {
		return fmt.Errorf("%w: no %s: 1 header", errForbidden, ControlHeader)
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return fmt.Errorf("%w: origin %q is not this server", errForbidden, o)
	}
	if cc.token == "" {
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
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), []byte(cc.token)) != 1 {
		return fmt.Errorf("%w: no valid %s header (the token is in %s)", errForbidden, TokenHeader, TokenFile)
	}
	return nil
}

func (cc *control) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	answer := func(code int, res ctl.Response) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(res)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		answer(http.StatusMethodNotAllowed, ctl.Response{Error: "POST a JSON request"})
		return
	}
	if err := cc.allow(r); err != nil {
		cc.log.Warn("status server: control request refused", "remote", r.RemoteAddr, "err", err)
		answer(http.StatusForbidden, ctl.Response{Error: err.Error()})
		return
	}
	if cc.ctl == nil {
		answer(http.StatusServiceUnavailable, ctl.Response{Error: "no live control"})
		return
	}
	var req ctl.Request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	if err := dec.Decode(&req); err != nil {
		answer(http.StatusBadRequest, ctl.Response{Error: "request is not a JSON object: " + err.Error(), BadRequest: true})
		return
	}
	res, err := cc.ctl.Do("http:"+r.RemoteAddr, req)
	code := http.StatusOK
	switch {
	case err != nil:
		// The run is starting or ending: no change is made now.
		code, res = http.StatusServiceUnavailable, ctl.Response{Error: err.Error()}
	case res.BadRequest:
		code = http.StatusBadRequest
	case !res.OK:
		code = http.StatusInternalServerError
	}
	answer(code, res)
}
