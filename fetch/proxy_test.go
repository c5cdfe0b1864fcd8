package fetch

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// proxyIP is the address the test proxies listen on: another loopback address than the
// origin servers' 127.0.0.1, so that Exchange.RemoteIP tells which one was dialled.
const proxyIP = "127.0.0.2"

// connectSeen is one CONNECT request a testProxy received.
type connectSeen struct {
	Target             string // the request target (host:port)
	ProxyAuthorization string
	Authorization      string
}

// testProxy is a forward proxy serving CONNECT, as a proxy does for https: it answers 407
// unless the request carries the credentials it wants (when it wants some), maps every
// host name to 127.0.0.1 (where the origin servers of the tests are), and keeps what it
// saw, including the bytes the client sent through its tunnels.
type testProxy struct {
	srv    *httptest.Server
	user   string // Basic credentials it wants; no user means none
	pass   string
	refuse int // when not 0, every CONNECT is answered with this status
	wg     sync.WaitGroup

	mu        sync.Mutex // guards the fields below
	connects  []connectSeen
	others    []string // request lines of requests other than CONNECT
	tunnelled []byte   // what clients sent through the tunnels, all tunnels in a row
	hijacked  []net.Conn
}

func newTestProxy(t *testing.T, tlsProxy bool, user, pass string, refuse int) *testProxy {
	t.Helper()
	p := &testProxy{user: user, pass: pass, refuse: refuse}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	ln, err := net.Listen("tcp", proxyIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	p.srv.Listener.Close()
	p.srv.Listener = ln
	p.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if tlsProxy {
		p.srv.StartTLS()
	} else {
		p.srv.Start()
	}
	t.Cleanup(func() {
		p.srv.Close()
		p.mu.Lock()
		for _, c := range p.hijacked {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// url returns the proxy's URL, with user info when user is not "".
func (p *testProxy) url(user, pass string) *url.URL {
	u, err := url.Parse(p.srv.URL)
	if err != nil {
		panic(err)
	}
	if user != "" {
		u.User = url.UserPassword(user, pass)
	}
	return u
}

func (p *testProxy) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		p.mu.Lock()
		p.others = append(p.others, r.Method+" "+r.RequestURI)
		p.mu.Unlock()
		http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
		return
	}
	p.mu.Lock()
	p.connects = append(p.connects, connectSeen{
		Target:             r.RequestURI,
		ProxyAuthorization: r.Header.Get("Proxy-Authorization"),
		Authorization:      r.Header.Get("Authorization"),
	})
	p.mu.Unlock()
	if p.refuse != 0 {
		http.Error(w, "refused", p.refuse)
		return
	}
	if p.user != "" && r.Header.Get("Proxy-Authorization") != basicValue(p.user, p.pass) {
		w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
		return
	}
	_, port, err := net.SplitHostPort(r.RequestURI)
	if err != nil {
		http.Error(w, "bad target", http.StatusBadRequest)
		return
	}
	origin, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		http.Error(w, "origin unreachable", http.StatusBadGateway)
		return
	}
	client, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		origin.Close()
		return
	}
	p.mu.Lock()
	p.hijacked = append(p.hijacked, client, origin)
	p.mu.Unlock()
	io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n")
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := rw.Reader.Read(buf)
			if n > 0 {
				p.mu.Lock()
				p.tunnelled = append(p.tunnelled, buf[:n]...)
				p.mu.Unlock()
				if _, werr := origin.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		origin.Close()
		client.Close()
	}()
	go func() {
		defer p.wg.Done()
		io.Copy(client, origin)
		origin.Close()
		client.Close()
	}()
}

// seen returns what the proxy received so far.
func (p *testProxy) seen() (connects []connectSeen, others []string, tunnelled []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]connectSeen(nil), p.connects...), append([]string(nil), p.others...), bytes.Clone(p.tunnelled)
}

// recordLookups makes c's resolver record the names it is asked for. It maps
// proxy.example.com to proxyIP and every other name to 127.0.0.1, as newTestClient does.
func recordLookups(c *Client) func() []string {
	var mu sync.Mutex
	var names []string
	c.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		mu.Lock()
		names = append(names, host)
		mu.Unlock()
		if host == "proxy.example.com" {
			return []netip.Addr{netip.MustParseAddr(proxyIP)}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), names...)
	}
}

// TestProxy fetches http and https origins through http and https proxies, with and without
// proxy credentials and origin credentials, and checks what the proxy and the origin saw and
// what was recorded.
func TestProxy(t *testing.T) {
	var mu sync.Mutex
	var originGot []string // Authorization values the origins received
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		originGot = append(originGot, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Proxy-Authorization") != "" {
			http.Error(w, "proxy credentials leaked", http.StatusTeapot)
			return
		}
		io.WriteString(w, "origin "+r.Host+r.URL.RequestURI())
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	secure := httptest.NewUnstartedServer(handler)
	secure.Config.ErrorLog = log.New(io.Discard, "", 0)
	secure.StartTLS()
	defer secure.Close()
	roots := x509.NewCertPool()
	roots.AddCert(secure.Certificate()) // httptest's servers share one certificate
	plainPort := portOf(t, plain.URL)
	securePort := portOf(t, secure.URL)

	const originSecret = "origin-s3cret"
	tests := []struct {
		name       string
		tlsProxy   bool
		proxyUser  string // the proxy wants user:proxy-pw when not ""
		clientUser string // the client's proxy credentials
		clientPass string
		url        string
		originAuth bool // Auth for the URL's origin
		wantKind   ErrorKind
		wantErr    error
		wantBody   string
	}{
		{name: "http origin", url: "http://www.example.com:" + plainPort + "/a?b=1", wantBody: "origin www.example.com:" + plainPort + "/a?b=1"},
		{name: "https origin", url: "https://www.example.com:" + securePort + "/s", wantBody: "origin www.example.com:" + securePort + "/s"},
		{name: "ip origin", url: "http://127.0.0.1:" + plainPort + "/", wantBody: "origin 127.0.0.1:" + plainPort + "/"},
		{name: "proxy credentials", proxyUser: "pu", clientUser: "pu", clientPass: "proxy-pw",
			url: "http://www.example.com:" + plainPort + "/", wantBody: "origin www.example.com:" + plainPort + "/"},
		{name: "proxy credentials https", proxyUser: "pu", clientUser: "pu", clientPass: "proxy-pw",
			url: "https://www.example.com:" + securePort + "/", wantBody: "origin www.example.com:" + securePort + "/"},
		{name: "https proxy", tlsProxy: true, proxyUser: "pu", clientUser: "pu", clientPass: "proxy-pw",
			url: "https://www.example.com:" + securePort + "/", wantBody: "origin www.example.com:" + securePort + "/"},
		{name: "https proxy http origin", tlsProxy: true, url: "http://www.example.com:" + plainPort + "/",
			wantBody: "origin www.example.com:" + plainPort + "/"},
		{name: "origin credentials http", url: "http://www.example.com:" + plainPort + "/", originAuth: true,
			wantBody: "origin www.example.com:" + plainPort + "/"},
		{name: "origin credentials https", url: "https://www.example.com:" + securePort + "/", originAuth: true,
			wantBody: "origin www.example.com:" + securePort + "/"},
		{name: "no proxy credentials", proxyUser: "pu", url: "http://www.example.com:" + plainPort + "/",
			wantKind: ProxyAuth, wantErr: ErrProxyAuth},
		{name: "wrong proxy credentials", proxyUser: "pu", clientUser: "pu", clientPass: "wrong-pw",
			url: "https://www.example.com:" + securePort + "/", wantKind: ProxyAuth, wantErr: ErrProxyAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			originGot = nil
			mu.Unlock()
			p := newTestProxy(t, tt.tlsProxy, tt.proxyUser, "proxy-pw", 0)
			cfg := Config{AllowPrivate: true, RootCAs: roots, VerifyTLS: true, HTTPAuthAllowed: true,
				Proxy: p.url(tt.clientUser, tt.clientPass)}
			var wantLookups []string
			if tt.tlsProxy {
				// By a name its certificate (httptest's) has.
				cfg.Proxy.Host = "proxy.example.com:" + portOf(t, p.srv.URL)
				wantLookups = []string{"proxy.example.com"}
			}
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if tt.originAuth {
				cfg.Auth = []OriginAuth{{Origin: u.Scheme + "://" + u.Host, Basic: &BasicAuth{"ou", originSecret}}}
			}
			c := newTestClient(t, cfg)
			lookups := recordLookups(c)
			ex, err := c.Do(t.Context(), Request{URL: tt.url})
			connects, others, tunnelled := p.seen()
			wantConnect := connectSeen{Target: u.Host}
			if tt.clientUser != "" {
				wantConnect.ProxyAuthorization = basicValue(tt.clientUser, tt.clientPass)
			}
			if diff := cmp.Diff([]connectSeen{wantConnect}, connects); diff != "" {
				t.Errorf("CONNECT requests (-want +got):\n%s", diff)
			}
			if len(others) > 0 {
				t.Errorf("the proxy got requests other than CONNECT: %q", others)
			}
			if diff := cmp.Diff(wantLookups, lookups()); diff != "" {
				t.Errorf("names resolved, only the proxy's may be (-want +got):\n%s", diff)
			}
			if tt.wantKind != 0 {
				if errKind(err) != tt.wantKind || !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want kind %v wrapping %v", err, tt.wantKind, tt.wantErr)
				}
				if strings.Contains(err.Error(), "proxy-pw") || strings.Contains(err.Error(), "wrong-pw") {
					t.Errorf("error shows the proxy password: %v", err)
				}
				if len(tunnelled) > 0 || len(originGot) > 0 {
					t.Errorf("the origin was reached: tunnelled %q, origin got %q", tunnelled, originGot)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			if body := readAll(t, ex.Body); string(body) != tt.wantBody || ex.StatusCode != 200 {
				t.Errorf("status %d body %q, want 200 %q", ex.StatusCode, body, tt.wantBody)
			}
			wantLine := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n"
			if !bytes.HasPrefix(ex.Request, []byte(wantLine)) || bytes.Contains(ex.Request, []byte("Proxy-")) {
				t.Errorf("recorded request is not the origin-form request without proxy fields:\n%s", ex.Request)
			}
			if ex.RemoteIP != proxyIP {
				t.Errorf("RemoteIP %q, want the proxy's %q", ex.RemoteIP, proxyIP)
			}
			wantAuth := ""
			if tt.originAuth {
				wantAuth = basicValue("ou", originSecret)
			}
			mu.Lock()
			got := originGot
			mu.Unlock()
			if diff := cmp.Diff([]string{wantAuth}, got); diff != "" {
				t.Errorf("origin got Authorization (-want +got):\n%s", diff)
			}
			if u.Scheme == "http" {
				// What went through the tunnel is exactly the recorded request.
				if !bytes.Equal(tunnelled, ex.Request) {
					t.Errorf("tunnelled bytes differ from the recorded request:\n%q\n%q", tunnelled, ex.Request)
				}
			} else {
				if ex.TLS == nil || !ex.TLS.Verified {
					t.Errorf("TLS = %+v, want the origin's verified session", ex.TLS)
				}
				if bytes.Contains(tunnelled, []byte("GET ")) || bytes.Contains(tunnelled, []byte(wantAuth)) && wantAuth != "" {
					t.Errorf("the proxy saw the https request in clear")
				}
			}
		})
	}
}

func portOf(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// TestProxyRefused: a CONNECT answered with a status other than 2xx and 407 is a Connect
// error, not a capture of the proxy's answer.
func TestProxyRefused(t *testing.T) {
	for _, code := range []int{http.StatusForbidden, http.StatusBadGateway, http.StatusServiceUnavailable} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			p := newTestProxy(t, false, "", "", code)
			c := newTestClient(t, Config{AllowPrivate: true, Proxy: p.url("u", "pw-123")})
			ex, err := c.Do(t.Context(), Request{URL: "http://site.test/"})
			if err == nil {
				ex.Close()
				t.Fatalf("got a capture of status %d, want an error", ex.StatusCode)
			}
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != Connect || !errors.Is(err, ErrProxyRefused) || !fe.Retryable() {
				t.Fatalf("err = %v, want a retryable Connect error wrapping ErrProxyRefused", err)
			}
			if strings.Contains(err.Error(), "pw-123") {
				t.Errorf("error shows the proxy password: %v", err)
			}
		})
	}
}

// TestProxyKeepAlive: tunnels are kept alive and pooled per origin.
func TestProxyKeepAlive(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	port := portOf(t, srv.URL)
	p := newTestProxy(t, false, "", "", 0)
	c := newTestClient(t, Config{AllowPrivate: true, Proxy: p.url("", "")})
	urls := []string{
		"http://a.test:" + port + "/1", "http://a.test:" + port + "/2",
		"http://b.test:" + port + "/1", "http://a.test:" + port + "/3", "http://b.test:" + port + "/2",
	}
	for _, u := range urls {
		ex, err := c.Do(t.Context(), Request{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, ex.Body)
		ex.Close()
	}
	connects, _, _ := p.seen()
	want := []connectSeen{{Target: "a.test:" + port}, {Target: "b.test:" + port}}
	if diff := cmp.Diff(want, connects); diff != "" {
		t.Errorf("CONNECT requests (-want +got):\n%s", diff)
	}
}

// TestProxyGuard: the address guard applies to the proxy's address, the one dialled; a URL
// whose host is a blocked address is refused without asking the proxy.
func TestProxyGuard(t *testing.T) {
	tests := []struct {
		name      string
		proxy     string // "" for the test proxy
		url       string
		wantDials []string // addresses the dialler was asked for
		wantNames []string // names resolved
	}{
		{name: "proxy on loopback", url: "http://93.184.215.14/", wantDials: []string{"PROXY"}},
		{name: "proxy name on loopback", proxy: "http://proxy.test:PORT", url: "http://www.example.com/",
			wantDials: []string{"127.0.0.1:PORT"}, wantNames: []string{"proxy.test"}},
		{name: "private target", url: "http://10.1.2.3/"},
		{name: "loopback target", url: "http://127.0.0.1:8080/"},
		{name: "mapped loopback target", url: "http://[::ffff:127.0.0.1]/"},
		{name: "numeric loopback target", url: "http://2130706433/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestProxy(t, false, "", "", 0)
			_, port, _ := net.SplitHostPort(p.srv.Listener.Addr().String())
			proxyURL := p.url("", "")
			if tt.proxy != "" {
				var err error
				if proxyURL, err = url.Parse(strings.ReplaceAll(tt.proxy, "PORT", port)); err != nil {
					t.Fatal(err)
				}
			}
			c := newTestClient(t, Config{Proxy: proxyURL})
			names := recordLookups(c)
			var mu sync.Mutex
			var dials []string
			c.dialer.Control = func(network, address string, rc syscall.RawConn) error {
				mu.Lock()
				dials = append(dials, address)
				mu.Unlock()
				return guardControl(network, address, rc)
			}
			ex, err := c.Do(t.Context(), Request{URL: tt.url})
			if err == nil {
				ex.Close()
			}
			if errKind(err) != Blocked || !errors.Is(err, ErrBlocked) {
				t.Fatalf("err = %v, want Blocked", err)
			}
			var want []string
			for _, d := range tt.wantDials {
				want = append(want, strings.NewReplacer("PROXY", p.srv.Listener.Addr().String(), "PORT", port).Replace(d))
			}
			mu.Lock()
			got := dials
			mu.Unlock()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("dialled (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNames, names()); diff != "" {
				t.Errorf("resolved (-want +got):\n%s", diff)
			}
			if connects, _, _ := p.seen(); len(connects) > 0 {
				t.Errorf("the proxy got %v", connects)
			}
		})
	}
}

// TestProxyConfig: NewClient refuses proxies it cannot use, and its errors never show the
// proxy password.
func TestProxyConfig(t *testing.T) {
	tests := []struct {
		name    string
		proxy   string
		connect []ConnectTo
		wantErr bool
	}{
		{name: "http", proxy: "http://u:p@proxy.example:3128"},
		{name: "https", proxy: "https://proxy.example"},
		{name: "trailing slash", proxy: "http://proxy.example:3128/"},
		{name: "ipv6", proxy: "http://[::1]:3128"},
		{name: "socks", proxy: "socks5://u:s3cr3t@proxy.example:1080", wantErr: true},
		{name: "path", proxy: "http://u:s3cr3t@proxy.example:3128/x", wantErr: true},
		{name: "query", proxy: "http://u:s3cr3t@proxy.example:3128?x", wantErr: true},
		{name: "bad port", proxy: "http://u:s3cr3t@proxy.example:0", wantErr: true},
		{name: "no host", proxy: "http://u:s3cr3t@:3128", wantErr: true},
		{name: "colon in user", proxy: "http://a%3Ab:s3cr3t@proxy.example:3128", wantErr: true},
		{name: "control in password", proxy: "http://u:s3cr3t%0D%0A@proxy.example:3128", wantErr: true},
		{name: "with connect-to", proxy: "http://u:s3cr3t@proxy.example:3128",
			connect: []ConnectTo{{Host: "a.test", ToHost: "127.0.0.1"}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.proxy)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewClient(Config{UserAgent: testUA, Proxy: u, ConnectTo: tt.connect})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrConfig) {
					t.Errorf("error %v does not wrap ErrConfig", err)
				}
				if strings.Contains(err.Error(), "s3cr3t") {
					t.Errorf("error shows the password: %v", err)
				}
				return
			}
			c.Close()
		})
	}
}

// TestProxyUnreachable: a proxy that cannot be reached is a Connect error naming the proxy
// without its password.
func TestProxyUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", proxyIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	u := &url.URL{Scheme: "http", Host: addr, User: url.UserPassword("u", "pw-987")}
	c := newTestClient(t, Config{AllowPrivate: true, Proxy: u})
	_, err = c.Do(t.Context(), Request{URL: "http://user:origin-pw@site.test/"})
	if errKind(err) != Connect {
		t.Fatalf("err = %v, want Connect", err)
	}
	for _, secret := range []string{"pw-987", "origin-pw", base64.StdEncoding.EncodeToString([]byte("u:pw-987"))} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error shows %q: %v", secret, err)
		}
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error does not name the proxy %s: %v", addr, err)
	}
}
