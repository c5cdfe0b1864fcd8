// Package testproxy is a forward proxy for end-to-end tests: it serves CONNECT (amber tunnels
// both http and https through a proxy), asks for Basic credentials when given some, dials
// every target at one address (the test site's listener on 127.0.0.1, which serves every host
// name) and keeps what it saw: each CONNECT's target and credentials, and any request that
// was not a CONNECT.
package testproxy

import (
	"encoding/base64"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
)

// Connect is one CONNECT request the proxy received.
type Connect struct {
	Target             string // the request target, host:port
	ProxyAuthorization string // as sent
	Status             int    // the proxy's answer
}

// Proxy is a running test proxy. Close it when done.
type Proxy struct {
	srv  *httptest.Server
	dial string // address every tunnel is dialled at
	user string // Basic credentials it wants; "" means none
	pass string
	wg   sync.WaitGroup

	mu       sync.Mutex // guards the fields below
	connects []Connect
	others   []string
	conns    []net.Conn
	closed   bool
}

// Start listens on 127.0.0.1 and tunnels every CONNECT to dial. With user not "", a CONNECT
// without those Basic credentials in Proxy-Authorization is answered 407.
func Start(dial, user, pass string) *Proxy {
	p, err := StartAt("127.0.0.1:0", dial, user, pass)
	if err != nil {
		panic(err) // 127.0.0.1:0 is always there
	}
	return p
}

// StartAt is Start listening on listen (host:port), e.g. another loopback address than the
// test site's, so that a WARC-IP-Address tells which of the two was dialled.
func StartAt(listen, dial, user, pass string) (*Proxy, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	p := &Proxy{dial: dial, user: user, pass: pass}
	p.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(p.serve)}}
	p.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	p.srv.Start()
	return p, nil
}

// Tunnels counts the tunnels opened (CONNECTs answered 200) by target.
func (p *Proxy) Tunnels() map[string]int {
	n := map[string]int{}
	for _, c := range p.Connects() {
		if c.Status == http.StatusOK {
			n[c.Target]++
		}
	}
	return n
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.srv.Listener.Addr().String() }

// URL is the proxy's URL, without credentials.
func (p *Proxy) URL() *url.URL {
	return &url.URL{Scheme: "http", Host: p.Addr()}
}

// Connects returns the CONNECT requests received so far.
func (p *Proxy) Connects() []Connect {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Connect(nil), p.connects...)
}

// Others returns the request lines of requests that were not CONNECT (answered 405).
func (p *Proxy) Others() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.others...)
}

// Close stops the proxy and its tunnels.
func (p *Proxy) Close() {
	p.srv.Close()
	p.mu.Lock()
	p.closed = true
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) note(c Connect) {
	p.mu.Lock()
	p.connects = append(p.connects, c)
	p.mu.Unlock()
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		p.mu.Lock()
		p.others = append(p.others, r.Method+" "+r.RequestURI)
		p.mu.Unlock()
		http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
		return
	}
	c := Connect{Target: r.RequestURI, ProxyAuthorization: r.Header.Get("Proxy-Authorization")}
	if p.user != "" && c.ProxyAuthorization != "Basic "+base64.StdEncoding.EncodeToString([]byte(p.user+":"+p.pass)) {
		c.Status = http.StatusProxyAuthRequired
		p.note(c)
		w.Header().Set("Proxy-Authenticate", `Basic realm="testproxy"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
		return
	}
	if _, _, err := net.SplitHostPort(r.RequestURI); err != nil {
		c.Status = http.StatusBadRequest
		p.note(c)
		http.Error(w, "bad target", http.StatusBadRequest)
		return
	}
	origin, err := net.Dial("tcp", p.dial)
	if err != nil {
		c.Status = http.StatusBadGateway
		p.note(c)
		http.Error(w, "origin unreachable", http.StatusBadGateway)
		return
	}
	client, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		origin.Close()
		return
	}
	c.Status = http.StatusOK
	p.note(c)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		client.Close()
		origin.Close()
		return
	}
	p.conns = append(p.conns, client, origin)
	p.wg.Add(2)
	p.mu.Unlock()
	io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() {
		defer p.wg.Done()
		io.Copy(origin, rw.Reader) // what the client sent after CONNECT, buffered or not
		if tc, ok := origin.(*net.TCPConn); ok {
			tc.CloseWrite() // the origin still answers what it was sent
			return
		}
		origin.Close()
	}()
	go func() {
		defer p.wg.Done()
		io.Copy(client, origin)
		origin.Close()
		client.Close()
	}()
}
