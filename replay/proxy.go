package replay

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/warc"
)

// maxRequestBody is how much of a request's body (a POST's) is read for its key: warcio.js
// keys at most 4,096 characters of it.
const maxRequestBody = 64 << 10

// Timeouts of the intercepted connections.
const (
	handshakeTimeout = 30 * time.Second // from CONNECT to the first byte of the tunnel
	headerTimeout    = 30 * time.Second // a request's header, the TLS handshake
	idleTimeout      = 2 * time.Minute  // between two requests of a connection
)

// replay answers a request for the absolute http(s) URL target.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, target string) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		http.Error(w, "amber replay: not an http or https URL: "+target, http.StatusBadRequest)
		return
	}
	if strings.EqualFold(u.Hostname(), StartHost) {
		s.own(w, r)
		return
	}
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		preflight(w, r)
		return
	}
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	key := warc.CDXKey(target)
	if !get {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
		if err != nil {
			http.Error(w, "amber replay: read request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		raw := fmt.Appendf(nil, "%s %s HTTP/1.1\r\nContent-Type: %s\r\n\r\n", r.Method, u.RequestURI(), r.Header.Get("Content-Type"))
		key = warc.LookupKey(target, append(raw, body...))
	}
	at := s.At()
	if t, err := http.ParseTime(r.Header.Get("Accept-Datetime")); err == nil {
		at = t.UTC() // this request's choice
	}
	cands, err := s.lookup(u, key, get, at)
	if err != nil {
		reason := err.Error()
		if !errors.Is(err, errNotFound) {
			reason = "the archive cannot be read: " + reason
		}
		s.miss(w, r, target, reason)
		return
	}
	var reasons []string
	for i, c := range cands {
		if i == tryLimit {
			break
		}
		a, err := s.open(c)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s (%s): %v", c.URL, c.Time.Format(time.RFC3339), err))
			continue
		}
		if isRedirectTo(a, u) {
			reasons = append(reasons, fmt.Sprintf("%s (%s): a redirect to itself", c.URL, c.Time.Format(time.RFC3339)))
			continue
		}
		rp, err := s.prepare(r, a)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s (%s): %v", c.URL, c.Time.Format(time.RFC3339), err))
			continue
		}
		s.log.Debug("replay", "url", target, "status", rp.status, "captured", c.URL, "at", c.Time, "fuzzy", c.rules)
		rp.write(w, r, s.log)
		return
	}
	s.miss(w, r, target, "no capture could be replayed: "+strings.Join(reasons, "; "))
}

// preflight allows a CORS preflight the archive does not answer: the request it precedes is
// replayed, and the archived response's own Access-Control fields decide whether the page
// may read it.
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if o := r.Header.Get("Origin"); o != "" {
		h.Set("Access-Control-Allow-Origin", o)
		h.Set("Access-Control-Allow-Credentials", "true")
	} else {
		h.Set("Access-Control-Allow-Origin", "*")
	}
	h.Set("Access-Control-Allow-Methods", r.Header.Get("Access-Control-Request-Method"))
	if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
		h.Set("Access-Control-Allow-Headers", rh)
	}
	h.Set("Vary", "Origin")
	h.Set("Amber-Replay", "preflight")
	w.WriteHeader(http.StatusNoContent)
}

// missPage is the body of the 404 of a URL that is not in the archive.
var missPage = template.Must(template.New("miss").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Not in the archive</title></head>
<body style="font-family: sans-serif; max-width: 50em; margin: 2em auto">
<h1>Not in the archive</h1>
<p><code style="word-break: break-all">{{.URL}}</code> is not in the archive replayed here: {{.Reason}}.</p>
<p>amber replay serves captures only; nothing was fetched from the live web.
<a href="http://` + StartHost + `/">The archive's pages</a>.</p>
</body></html>
`))

// miss answers a request the archive cannot and records it.
func (s *Server) miss(w http.ResponseWriter, r *http.Request, target, reason string) {
	m := missFrom(r, target, reason)
	s.record(m)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Amber-Replay", "miss")
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		_ = missPage.Execute(w, m)
	}
}

// record keeps a miss in memory and appends it to the misses file.
func (s *Server) record(m Miss) {
	s.log.Info("not in the archive", "url", m.URL, "method", m.Method, "referer", m.Referer, "reason", m.Reason)
	line, err := json.Marshal(m)
	if err != nil {
		return
	}
	s.missMu.Lock()
	s.misses = append(s.misses, m)
	s.missMu.Unlock()
	// One write of a line to a file opened O_APPEND: lines of concurrent misses do not mix.
	if _, err := s.missFile.Write(append(line, '\n')); err != nil {
		s.log.Error("replay: record a miss", "err", err)
	}
}

// connect answers CONNECT: the tunnel is taken over, and what the browser sends through it
// is answered by the Server (TLS with a certificate of its authority, or plain HTTP).
func (s *Server) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "443"
	}
	host = strings.Trim(host, "[]")
	if host == "" {
		http.Error(w, "amber replay: CONNECT without a host", http.StatusBadRequest)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "amber replay: cannot take the connection over", http.StatusInternalServerError)
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		s.log.Debug("replay: CONNECT", "host", r.Host, "err", err)
		return
	}
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		conn.Close()
		return
	}
	var rd io.Reader = conn
	if n := brw.Reader.Buffered(); n > 0 {
		early, _ := brw.Reader.Peek(n)
		rd = io.MultiReader(bytes.NewReader(bytes.Clone(early)), conn)
	}
	s.mitm.take(&tunnel{Conn: conn, r: rd, host: host, port: port})
}

// tunnel is a connection taken over by CONNECT: the bytes read with the CONNECT request
// first, and where the browser meant to go.
type tunnel struct {
	net.Conn
	r          io.Reader
	host, port string
}

func (t *tunnel) Read(p []byte) (int, error) { return t.r.Read(p) }

// origin returns the scheme, host and port of what the tunnel carries, as a URL's start,
// without the scheme's default port.
func (t *tunnel) origin(scheme string) string {
	host := t.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if scheme == "https" && t.port == "443" || scheme == "http" && t.port == "80" {
		return scheme + "://" + host
	}
	return scheme + "://" + host + ":" + t.port
}

// mitm serves the connections taken over by CONNECT with one http.Server, fed by a listener
// the CONNECT handler hands them to.
type mitm struct {
	s    *Server
	srv  *http.Server
	ln   *connListener
	done chan struct{} // closed when Serve returned

	mu      sync.Mutex // guards pending
	pending map[net.Conn]bool
}

// originKey is the context key of the origin of a plain-HTTP tunnel's requests.
type originKey struct{}

func newMITM(s *Server) *mitm {
	m := &mitm{s: s, ln: newConnListener(), done: make(chan struct{}), pending: map[net.Conn]bool{}}
	m.srv = &http.Server{
		Handler:           m,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          log.New(logWriter{s.log}, "", 0),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if t, ok := c.(*tunnel); ok {
				return context.WithValue(ctx, originKey{}, t.origin("http"))
			}
			return ctx
		},
	}
	go func() {
		_ = m.srv.Serve(m.ln)
		close(m.done)
	}()
	return m
}

// take serves a tunnel: TLS when its first byte is a handshake's, else plain HTTP.
func (m *mitm) take(t *tunnel) {
	m.mu.Lock()
	m.pending[t.Conn] = true
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.pending, t.Conn)
		m.mu.Unlock()
	}()
	_ = t.SetReadDeadline(time.Now().Add(handshakeTimeout))
	br := &peekReader{r: t.r}
	first, err := br.peek()
	_ = t.SetReadDeadline(time.Time{})
	if err != nil {
		t.Close()
		return
	}
	t.r = br
	if first != 0x16 { // not a TLS handshake record
		m.ln.push(t)
		return
	}
	cfg := &tls.Config{
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			name := hello.ServerName
			if name == "" {
				name = t.host // an IP address: no SNI
			}
			return m.s.ca.leaf(name)
		},
	}
	m.ln.push(tls.Server(t, cfg))
}

// close stops the server and every connection it serves or is about to.
func (m *mitm) close() error {
	m.mu.Lock()
	for c := range m.pending {
		c.Close()
	}
	m.mu.Unlock()
	err := m.srv.Close()
	<-m.done
	return err
}

// ServeHTTP answers a request that came through a tunnel.
func (m *mitm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.IsAbs() { // the absolute form, as some clients send it to proxies
		m.s.replay(w, r, r.URL.String())
		return
	}
	var origin string
	if r.TLS != nil {
		host := r.Host
		if host == "" {
			host = r.TLS.ServerName
		}
		if host == "" {
			http.Error(w, "amber replay: no Host", http.StatusBadRequest)
			return
		}
		origin = "https://" + strings.TrimSuffix(host, ":443")
	} else {
		origin, _ = r.Context().Value(originKey{}).(string)
		if r.Host != "" {
			origin = "http://" + strings.TrimSuffix(r.Host, ":80")
		}
	}
	m.s.replay(w, r, origin+r.URL.RequestURI())
}

// peekReader reads one byte ahead.
type peekReader struct {
	r     io.Reader
	first []byte
}

func (p *peekReader) peek() (byte, error) {
	var b [1]byte
	if _, err := io.ReadFull(p.r, b[:]); err != nil {
		return 0, err
	}
	p.first = b[:]
	return b[0], nil
}

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.first) > 0 {
		n := copy(b, p.first)
		p.first = p.first[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// connListener is a net.Listener of the connections handed to it.
type connListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newConnListener() *connListener {
	return &connListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

// push hands c to Accept; after Close it closes c.
func (l *connListener) push(c net.Conn) {
	select {
	case l.ch <- c:
	case <-l.done:
		c.Close()
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }
