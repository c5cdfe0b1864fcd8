package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/status"
)

func gzipString(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

func zlibString(s string) string {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

func flateString(s string) string {
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.BestSpeed)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

func TestResponses(t *testing.T) {
	gz := gzipString("hello gzip")
	bomb := gzipString(strings.Repeat("\x00", 4<<20))
	huge := "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Big: "+strings.Repeat("a", 1000)+"\r\n", 1100) + "\r\n"
	tests := []struct {
		name   string
		script []step
		method string
		cfg    Config
		// want
		kind      ErrorKind
		status    int
		truncated string
		body      string
		bodyErr   error
		header    http.Header // subset checked
	}{
		{
			name:   "content-length",
			script: []step{{write: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"}},
			status: 200, body: "hello",
			header: http.Header{"Content-Type": {"text/plain"}, "Content-Length": {"5"}},
		},
		{
			name: "chunked with trailers",
			script: []step{{write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
				"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"}},
			status: 200, body: "hello world",
			header: http.Header{"Transfer-Encoding": {"chunked"}, "X-Trailer": nil},
		},
		{
			name:   "http/1.0 close-delimited",
			script: []step{{write: "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p>until close</p>", close: true}},
			status: 200, body: "<p>until close</p>",
		},
		{
			name:   "lying content-length",
			script: []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", close: true}},
			status: 200, truncated: "disconnect", body: "short",
		},
		{
			// Not complete framing for net/http (docs/warc.md), but nothing is missing: read
			// to the end, not truncated.
			name:   "chunked with bare LF line endings",
			script: []step{{write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\n0123456789\n0\n\n"}},
			status: 200, body: "0123456789",
		},
		{
			name:   "chunked with white space before an extension",
			script: []step{{write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na ;x=1\r\n0123456789\r\n0\r\n\r\n"}},
			status: 200, body: "0123456789",
		},
		{
			name:   "chunked cut short",
			script: []step{{write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n01234", close: true}},
			status: 200, truncated: "disconnect", body: "01234",
		},
		{
			name:   "malformed chunk size",
			script: []step{{write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n"}},
			status: 200, truncated: "unspecified", body: "abc",
		},
		{
			name:   "stall mid-body",
			script: []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"}, {stall: true}},
			cfg:    Config{ResponseTimeout: 300 * time.Millisecond},
			status: 200, truncated: "time", body: "partial",
		},
		{
			name:   "stall before first byte",
			script: []step{{stall: true}},
			cfg:    Config{FirstByteTimeout: 200 * time.Millisecond},
			kind:   Timeout,
		},
		{
			name:   "stall mid-header",
			script: []step{{write: "HTTP/1.1 200 OK\r\nX-A: "}, {stall: true}},
			cfg:    Config{ResponseTimeout: 300 * time.Millisecond},
			kind:   Timeout,
		},
		{
			name:   "close without response",
			script: []step{{close: true}},
			kind:   Broken,
		},
		{
			name:   "close mid-header",
			script: []step{{write: "HTTP/1.1 200 OK\r\nX-A: b", close: true}},
			kind:   Broken,
		},
		{
			name:   "huge header",
			script: []step{{write: huge, close: true}},
			kind:   Protocol,
		},
		{
			name:   "header larger than MaxResponseSize",
			script: []step{{write: "HTTP/1.1 200 OK\r\nX-A: " + strings.Repeat("b", 200) + "\r\n\r\n", close: true}},
			cfg:    Config{MaxResponseSize: 100},
			kind:   Protocol,
		},
		{
			name:   "not http",
			script: []step{{write: "SSH-2.0-OpenSSH_9.6\r\n", close: true}},
			kind:   Protocol,
		},
		{
			name:   "size limit",
			script: []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + strings.Repeat("x", 1000)}},
			cfg:    Config{MaxResponseSize: 100},
			status: 200, truncated: "length", body: strings.Repeat("x", 100-len("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")),
		},
		{
			name:   "gzip",
			script: []step{{write: fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", len(gz), gz)}},
			status: 200, body: "hello gzip",
		},
		{
			name: "chunked gzip",
			script: []step{{write: fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n",
				5, gz[:5], len(gz)-5, gz[5:])}},
			status: 200, body: "hello gzip",
		},
		{
			name:   "gzip label on plain body",
			script: []step{{write: "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 5\r\n\r\nplain"}},
			status: 200, body: "plain",
		},
		{
			name:   "deflate zlib",
			script: []step{{write: fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: %d\r\n\r\n%s", len(zlibString("zlib body")), zlibString("zlib body"))}},
			status: 200, body: "zlib body",
		},
		{
			name:   "deflate raw",
			script: []step{{write: fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: %d\r\n\r\n%s", len(flateString("raw body")), flateString("raw body"))}},
			status: 200, body: "raw body",
		},
		{
			name:   "brotli left encoded",
			script: []step{{write: "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 4\r\n\r\n\x8b\x01\x80x"}},
			status: 200, body: "\x8b\x01\x80x",
		},
		{
			name:   "gzip bomb",
			script: []step{{write: fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", len(bomb), bomb)}},
			cfg:    Config{MaxResponseSize: 64 << 10},
			status: 200, body: strings.Repeat("\x00", 64<<10), bodyErr: ErrBodyLimit,
		},
		{
			name:   "truncated gzip decodes what arrived",
			script: []step{{write: fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", len(bomb), bomb[:len(bomb)/2]), close: true}},
			status: 200, truncated: "disconnect", body: "*",
		},
		{
			name:   "interim 100 and 103",
			script: []step{{write: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno"}},
			status: 404, body: "no",
			header: http.Header{"Link": nil},
		},
		{
			name:   "bare LF and folded header",
			script: []step{{write: "HTTP/1.1 200\nX-Fold: a\n  b\nnot a header line\nContent-Length: 2\n\nok"}},
			status: 200, body: "ok",
			header: http.Header{"X-Fold": {"a b"}},
		},
		{
			name:   "redirect is a result",
			script: []step{{write: "HTTP/1.1 301 Moved Permanently\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n"}},
			status: 301,
			header: http.Header{"Location": {"/elsewhere"}},
		},
		{
			name:   "server error is a result",
			script: []step{{write: "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 10\r\nContent-Length: 4\r\n\r\nbusy"}},
			status: 503, body: "busy",
		},
		{
			name:   "HEAD ignores content-length",
			method: "HEAD",
			script: []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"}},
			status: 200,
		},
		{
			name:   "conflicting content-lengths read until close",
			script: []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", close: true}},
			status: 200, body: "abcd",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newRawServer(t, tt.script)
			tt.cfg.AllowPrivate = true
			tt.cfg.TempDir = t.TempDir()
			c := newTestClient(t, tt.cfg)
			ex, err := c.Do(t.Context(), Request{URL: srv.url("/x"), Method: tt.method})
			if tt.kind != 0 {
				if got := errKind(err); got != tt.kind {
					t.Fatalf("error kind = %v (%v), want %v", got, err, tt.kind)
				}
				if ex != nil {
					t.Fatalf("exchange with error")
				}
				return
			}
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			defer ex.Close()
			if ex.StatusCode != tt.status || ex.Truncated != tt.truncated {
				t.Errorf("status %d truncated %q, want %d %q", ex.StatusCode, ex.Truncated, tt.status, tt.truncated)
			}
			for k, want := range tt.header {
				if diff := cmp.Diff(want, ex.Header[k]); diff != "" {
					t.Errorf("header %s (-want +got):\n%s", k, diff)
				}
			}
			// The raw response is exactly what the server sent, up to the size limit.
			raw := readAll(t, ex.Response)
			_, sent := srv.got()
			limit := tt.cfg.MaxResponseSize
			if limit == 0 {
				limit = DefaultMaxResponseSize
			}
			if int64(len(sent)) > limit {
				sent = sent[:limit]
			}
			if !bytes.Equal(raw, sent) {
				t.Errorf("raw response differs from what was sent:\n got %q\nwant %q", trunc(raw), trunc(sent))
			}
			if ex.ResponseSize() != int64(len(raw)) {
				t.Errorf("ResponseSize %d, len %d", ex.ResponseSize(), len(raw))
			}
			rc, err := ex.Body()
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(rc)
			rc.Close()
			if !errors.Is(err, tt.bodyErr) {
				t.Errorf("body error %v, want %v", err, tt.bodyErr)
			}
			if tt.body == "*" {
				if len(body) == 0 {
					t.Errorf("empty body, want a decoded prefix")
				}
			} else if string(body) != tt.body {
				t.Errorf("body = %q, want %q", trunc(body), trunc([]byte(tt.body)))
			}
		})
	}
}

func trunc(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

func TestExactRequestBytes(t *testing.T) {
	srv := newRawServer(t, []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}})
	c := newTestClient(t, Config{AllowPrivate: true})
	ex, err := c.Do(t.Context(), Request{
		URL: srv.url("/a%2Fb/c?q=x y&z=1&b=`'\"<>#frag"),
		Header: http.Header{
			"Referer":         {"http://127.0.0.1/"},
			"Cookie":          {"a=b"},
			"Connection":      {"close"}, // client-owned: ignored
			"Accept-Encoding": {"br"},    // client-owned: ignored
			"Accept":          {"text/html"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	// The query is escaped as browsers do (weburl.EscapeQuery): "`" and "'" are sent raw.
	want := "GET /a%2Fb/c?q=x%20y&z=1&b=`'%22%3C%3E HTTP/1.1\r\n" +
		"Host: " + srv.addr() + "\r\n" +
		"User-Agent: " + testUA + "\r\n" +
		"Accept-Encoding: gzip\r\n" +
		"Accept: text/html\r\n" +
		"Cookie: a=b\r\n" +
		"Referer: http://127.0.0.1/\r\n" +
		"Connection: keep-alive\r\n\r\n"
	if diff := cmp.Diff(want, string(ex.Request)); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	received, _ := srv.got()
	if diff := cmp.Diff(string(received), string(ex.Request)); diff != "" {
		t.Errorf("recorded request differs from received (-received +recorded):\n%s", diff)
	}
	if ex.RemoteIP != "127.0.0.1" || ex.Started.Location() != time.UTC || ex.Started.IsZero() {
		t.Errorf("RemoteIP %q Started %v", ex.RemoteIP, ex.Started)
	}
}

func TestKeepAlive(t *testing.T) {
	var accepts int
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/204":
			w.WriteHeader(http.StatusNoContent)
		case "/304":
			w.WriteHeader(http.StatusNotModified)
		case "/chunked":
			w.Write([]byte("part one "))
			w.(http.Flusher).Flush()
			w.Write([]byte("part two"))
		default:
			w.Header().Set("Content-Length", "5")
			w.Write([]byte("hello"))
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepts++ // ConnState runs on the server's serving goroutines, serially per conn
		}
	}
	srv.Start()
	defer srv.Close()
	c := newTestClient(t, Config{AllowPrivate: true})
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/", 200, "hello"},
		{"HEAD", "/", 200, ""},
		{"GET", "/204", 204, ""},
		{"GET", "/304", 304, ""},
		{"GET", "/chunked", 200, "part one part two"},
		{"GET", "/again", 200, "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			ex, err := c.Do(t.Context(), Request{URL: srv.URL + tt.path, Method: tt.method})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			body := readAll(t, ex.Body)
			if ex.StatusCode != tt.status || string(body) != tt.body || ex.Truncated != "" {
				t.Errorf("got %d %q %q, want %d %q", ex.StatusCode, body, ex.Truncated, tt.status, tt.body)
			}
		})
	}
	c.Close()
	srv.Close()
	if accepts != 1 {
		t.Errorf("server accepted %d connections, want 1 (keep-alive)", accepts)
	}
}

func TestStaleConnectionRetried(t *testing.T) {
	// The server answers with a keep-alive response, then closes: the second request finds
	// the pooled connection dead and must transparently use a new one.
	srv := newRawServer(t, []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", close: true}})
	c := newTestClient(t, Config{AllowPrivate: true})
	for i := range 2 {
		ex, err := c.Do(t.Context(), Request{URL: srv.url("/")})
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		ex.Close()
		time.Sleep(50 * time.Millisecond)
	}
	if n := srv.accepts.Load(); n != 2 {
		t.Errorf("accepts = %d, want 2", n)
	}
}

func TestAddressGuard(t *testing.T) {
	srv := newRawServer(t, []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}})
	tests := []struct {
		name         string
		url          string
		connectTo    []ConnectTo
		allowPrivate bool
		kind         ErrorKind
	}{
		{name: "loopback refused", url: srv.url("/"), kind: Blocked},
		{name: "loopback allowed", url: srv.url("/"), allowPrivate: true},
		{name: "connect-to loopback refused", url: "http://example.test/",
			connectTo: []ConnectTo{{Host: "example.test", ToHost: "127.0.0.1", ToPort: srv.port()}}, kind: Blocked},
		{name: "name resolving to loopback refused", url: "http://rebind.test:" + srv.port() + "/", kind: Blocked},
		{name: "connect-to loopback allowed", url: "http://example.test/", allowPrivate: true,
			connectTo: []ConnectTo{{Host: "example.test", ToHost: "127.0.0.1", ToPort: srv.port()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: tt.allowPrivate, ConnectTo: tt.connectTo})
			ex, err := c.Do(t.Context(), Request{URL: tt.url})
			if got := errKind(err); got != tt.kind {
				t.Fatalf("kind %v (%v), want %v", got, err, tt.kind)
			}
			if err != nil {
				var fe *Error
				errors.As(err, &fe)
				if !errors.Is(err, ErrBlocked) || fe.Status() != -7 || fe.Retryable() {
					t.Errorf("blocked error %v: status %d retryable %v", err, fe.Status(), fe.Retryable())
				}
				return
			}
			ex.Close()
		})
	}
}

func TestAddrBlocked(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"127.0.0.1", true}, {"127.8.9.10", true}, {"10.1.2.3", true}, {"172.16.0.1", true},
		{"172.31.255.255", true}, {"192.168.1.1", true}, {"100.64.0.1", true}, {"100.127.255.254", true},
		{"169.254.169.254", true}, {"0.0.0.0", true}, {"0.1.2.3", true}, {"224.0.0.1", true},
		{"255.255.255.255", true}, {"::1", true}, {"::", true}, {"fc00::1", true}, {"fd12::1", true},
		{"fe80::1", true}, {"ff02::1", true}, {"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true},
		{"64:ff9b::7f00:1", true}, {"64:ff9b::a00:1", true},
		{"8.8.8.8", false}, {"93.184.216.34", false}, {"100.128.0.1", false}, {"172.32.0.1", false},
		{"2606:4700::1111", false}, {"64:ff9b::808:808", false}, {"::ffff:8.8.8.8", false},
	}
	for _, tt := range tests {
		t.Run(tt.ip, func(t *testing.T) {
			ip, err := netipParse(tt.ip)
			if err != nil {
				t.Fatal(err)
			}
			if got := addrBlocked(ip); got != tt.want {
				t.Errorf("addrBlocked(%s) = %v, want %v", tt.ip, got, tt.want)
			}
		})
	}
}

func TestConnectToHostHeader(t *testing.T) {
	var gotHost string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHost = r.Host
		io.WriteString(w, "mapped")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tests := []struct {
		name, spec, url, wantHost string
	}{
		{"exact host", "www.example.test::127.0.0.1:" + port, "http://www.example.test/p", "www.example.test"},
		{"any host on port", ":8080:127.0.0.1:" + port, "http://other.test:8080/p", "other.test:8080"},
		{"keep port", "a.test::127.0.0.1:", "http://a.test:" + port + "/p", "a.test:" + port},
		{"IDN host in punycode", "xn--bcher-kva.test::127.0.0.1:" + port, "http://Bücher.test/p", "xn--bcher-kva.test"},
		{"IDN host mapped", "e_x.test::127.0.0.1:" + port, "http://ｅ_x.test/p", "e_x.test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseConnectTo(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			c := newTestClient(t, Config{AllowPrivate: true, ConnectTo: []ConnectTo{m}})
			ex, err := c.Do(t.Context(), Request{URL: tt.url})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			if body := readAll(t, ex.Body); string(body) != "mapped" || gotHost != tt.wantHost {
				t.Errorf("body %q host %q, want host %q", body, gotHost, tt.wantHost)
			}
			if !bytes.Contains(ex.Request, []byte("\r\nHost: "+tt.wantHost+"\r\n")) {
				t.Errorf("request lacks Host %s:\n%s", tt.wantHost, ex.Request)
			}
		})
	}
}

func TestTLS(t *testing.T) {
	var sni string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sni = r.TLS.ServerName
		io.WriteString(w, "secure")
	}))
	srv.EnableHTTP2 = true // ALPN must still pick http/1.1
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	mapping := []ConnectTo{{Host: "example.com", ToHost: "127.0.0.1", ToPort: port}}
	tests := []struct {
		name     string
		cfg      Config
		url      string
		kind     ErrorKind
		verified bool
		sni      string
	}{
		{name: "self-signed recorded", url: srv.URL},
		{name: "self-signed with VerifyTLS", url: srv.URL, cfg: Config{VerifyTLS: true}, kind: TLS},
		{name: "trusted root", url: srv.URL, cfg: Config{RootCAs: roots, VerifyTLS: true}, verified: true},
		{name: "sni is the URL host", url: "https://example.com/", cfg: Config{RootCAs: roots, ConnectTo: mapping}, verified: true, sni: "example.com"},
		{name: "host name mismatch", url: "https://other.example/", cfg: Config{RootCAs: roots,
			ConnectTo: []ConnectTo{{ToHost: "127.0.0.1", ToPort: port}}}, sni: "other.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sni = ""
			tt.cfg.AllowPrivate = true
			c := newTestClient(t, tt.cfg)
			ex, err := c.Do(t.Context(), Request{URL: tt.url})
			if got := errKind(err); got != tt.kind {
				t.Fatalf("kind %v (%v), want %v", got, err, tt.kind)
			}
			if err != nil {
				return
			}
			defer ex.Close()
			if ex.TLS == nil || ex.TLS.Verified != tt.verified || (ex.TLS.VerifyError == "") != tt.verified ||
				ex.TLS.Version == "" || ex.TLS.CipherSuite == "" {
				t.Errorf("TLS = %+v, want Verified %v", ex.TLS, tt.verified)
			}
			if body := readAll(t, ex.Body); string(body) != "secure" || ex.Proto != "HTTP/1.1" {
				t.Errorf("body %q proto %q", body, ex.Proto)
			}
			if sni != tt.sni {
				t.Errorf("SNI %q, want %q", sni, tt.sni)
			}
		})
	}
}

func TestSpill(t *testing.T) {
	payload := strings.Repeat("0123456789abcdef", 8<<10) // 128 KiB
	resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(payload), payload)
	srv := newRawServer(t, []step{{write: resp}})
	dir := t.TempDir()
	c := newTestClient(t, Config{AllowPrivate: true, SpillThreshold: 4 << 10, TempDir: dir})
	ex, err := c.Do(t.Context(), Request{URL: srv.url("/big")})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("%d files in TempDir, want 1 spill file", len(files))
	}
	for i := range 2 { // Response may be read several times
		if raw := readAll(t, ex.Response); string(raw) != resp {
			t.Errorf("read %d: raw response differs (len %d, want %d)", i, len(raw), len(resp))
		}
	}
	if body := readAll(t, ex.Body); string(body) != payload {
		t.Errorf("body differs (len %d)", len(body))
	}
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("spill file left after Close: %v", files)
	}
	if err := ex.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCancel(t *testing.T) {
	srv := newRawServer(t, []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + strings.Repeat("x", 20000)}, {stall: true}})
	dir := t.TempDir()
	c := newTestClient(t, Config{AllowPrivate: true, SpillThreshold: 1024, TempDir: dir})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(150*time.Millisecond, cancel)
	_, err := c.Do(ctx, Request{URL: srv.url("/")})
	var fe *Error
	if !errors.As(err, &fe) || fe.Kind != Canceled || !fe.Retryable() {
		t.Fatalf("err = %v, want Canceled", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("spill file left after cancel: %v", files)
	}
}

func TestFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().String()
	ln.Close()
	tests := []struct {
		name   string
		req    Request
		kind   ErrorKind
		status int
		retry  bool
	}{
		{"dns", Request{URL: "http://unresolvable.test/"}, DNS, status.DNSFailed, true},
		{"refused", Request{URL: "http://" + closedPort + "/"}, Connect, status.ConnectFailed, true},
		{"ftp", Request{URL: "ftp://example.test/"}, InvalidURL, status.InvalidURL, false},
		{"no host", Request{URL: "http:///path"}, InvalidURL, status.InvalidURL, false},
		{"relative", Request{URL: "/path"}, InvalidURL, status.InvalidURL, false},
		{"bad port", Request{URL: "http://example.test:99999/"}, InvalidURL, status.InvalidURL, false},
		{"unparsable", Request{URL: "http://[::1/"}, InvalidURL, status.InvalidURL, false},
		{"control char", Request{URL: "http://example.test/a\nb"}, InvalidURL, status.InvalidURL, false},
		{"bad method", Request{URL: "http://example.test/", Method: "GE T"}, InvalidURL, status.InvalidURL, false},
		{"header injection", Request{URL: "http://example.test/", Header: http.Header{"X-A": {"a\r\nX-B: b"}}}, InvalidURL, status.InvalidURL, false},
		{"bad header name", Request{URL: "http://example.test/", Header: http.Header{"X A": {"a"}}}, InvalidURL, status.InvalidURL, false},
		{"IDN host IDNA refuses", Request{URL: "http://a\u200cb\u00e9.test/"}, InvalidURL, status.InvalidURL, false},
	}
	c := newTestClient(t, Config{AllowPrivate: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Do(t.Context(), tt.req)
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *Error", err)
			}
			got := []any{fe.Kind, fe.Status(), fe.Retryable(), fe.URL}
			want := []any{tt.kind, tt.status, tt.retry, tt.req.URL}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestErrorStatus(t *testing.T) {
	tests := []struct {
		kind   ErrorKind
		status int
		retry  bool
		name   string
	}{
		{DNS, status.DNSFailed, true, "dns"}, {Connect, status.ConnectFailed, true, "connect"}, {Timeout, status.Timeout, true, "timeout"},
		{TLS, status.ConnectFailed, false, "tls"}, {Blocked, status.InvalidURL, false, "blocked"}, {Broken, status.ConnectBroken, true, "broken"},
		{InvalidURL, status.InvalidURL, false, "invalid-url"}, {Protocol, status.ConnectBroken, true, "protocol"},
		{Canceled, status.Killed, true, "canceled"},
		{ErrorKind(99), status.RuntimeError, false, "kind(99)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Error{Kind: tt.kind, URL: "http://x/", Err: io.EOF}
			got := []any{e.Status(), e.Retryable(), tt.kind.String(), errors.Is(e, io.EOF)}
			if diff := cmp.Diff([]any{tt.status, tt.retry, tt.name, true}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConnectTo(t *testing.T) {
	tests := []struct {
		in      string
		want    ConnectTo
		wantErr bool
	}{
		{in: "example.com:443:127.0.0.1:8443", want: ConnectTo{"example.com", "443", "127.0.0.1", "8443"}},
		{in: "Example.COM:80:localhost:", want: ConnectTo{"example.com", "80", "localhost", ""}},
		{in: "::127.0.0.1:8080", want: ConnectTo{"", "", "127.0.0.1", "8080"}},
		{in: ":::", want: ConnectTo{}},
		{in: "[::1]:443:[2001:db8::1]:8443", want: ConnectTo{"::1", "443", "2001:db8::1", "8443"}},
		{in: "a.test::[::1]:", want: ConnectTo{"a.test", "", "::1", ""}},
		{in: "example.com:443:127.0.0.1", wantErr: true},
		{in: "example.com:443:127.0.0.1:8443:9", wantErr: true},
		{in: "example.com:http:127.0.0.1:80", wantErr: true},
		{in: "example.com:0:127.0.0.1:80", wantErr: true},
		{in: "example.com:80:127.0.0.1:65536", wantErr: true},
		{in: "[::1:443:127.0.0.1:80", wantErr: true},
		{in: "[example]:443:127.0.0.1:80", wantErr: true},
		{in: "::1:443:127.0.0.1:80", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseConnectTo(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrConnectTo) {
					t.Errorf("error %v does not wrap ErrConnectTo", err)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if back, err := ParseConnectTo(got.String()); err != nil || back != got {
				t.Errorf("round trip via %q: %+v, %v", got.String(), back, err)
			}
		})
	}
}

func TestNewClientConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"ok", Config{UserAgent: "a"}, false},
		{"no user agent", Config{}, true},
		{"user agent with newline", Config{UserAgent: "a\r\nX: y"}, true},
		{"negative timeout", Config{UserAgent: "a", ConnectTimeout: -1}, true},
		{"negative size", Config{UserAgent: "a", MaxResponseSize: -1}, true},
		{"bad connect-to", Config{UserAgent: "a", ConnectTo: []ConnectTo{{ToPort: "x"}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrConfig) {
					t.Errorf("error %v does not wrap ErrConfig", err)
				}
				return
			}
			c.Close()
		})
	}
}

func BenchmarkKeepAlive(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>hello</body></html>")
	}))
	defer srv.Close()
	c := newTestClient(b, Config{AllowPrivate: true})
	defer c.Close()
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ex, err := c.Do(ctx, Request{URL: srv.URL + "/"})
		if err != nil {
			b.Fatal(err)
		}
		ex.Close()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// TestNumericHosts: numeric spellings of an IPv4 address are that address (WHATWG URL), so
// the address guard refuses loopback however it is spelled, before any connection; names
// are never looked up for them. Hosts that end in a number but are no IPv4 address are
// invalid URLs.
func TestNumericHosts(t *testing.T) {
	srv := newRawServer(t, []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}})
	port := srv.port()
	tests := []struct {
		host     string
		wantHost string    // Host header when private addresses are allowed
		kind     ErrorKind // with AllowPrivate false
	}{
		{"127.0.0.1", "127.0.0.1", Blocked},
		{"2130706433", "127.0.0.1", Blocked},
		{"0x7f.1", "127.0.0.1", Blocked},
		{"0X7F.0.0.1", "127.0.0.1", Blocked},
		{"127.1", "127.0.0.1", Blocked},
		{"127.0.1", "127.0.0.1", Blocked},
		{"0177.0.0.1", "127.0.0.1", Blocked},
		{"0x7F000001", "127.0.0.1", Blocked},
		{"017700000001", "127.0.0.1", Blocked},
		{"127.0.0.1.", "127.0.0.1", Blocked},
		{"0x7f.0x0.0x0.0x1", "127.0.0.1", Blocked},
		{"１２７。１", "127.0.0.1", Blocked}, // full-width digits and full stop, mapped by IDNA
		{"[::ffff:127.0.0.1]", "[::ffff:127.0.0.1]", Blocked},
		{"[::1]", "", Blocked}, // the test server listens on IPv4 only
		// Ends in a number but is no IPv4 address: no request at all.
		{"1.2.3.4.5", "", InvalidURL},
		{"foo.0x", "", InvalidURL},
		{"foo.09", "", InvalidURL},
		{"256.0.0.1", "", InvalidURL},
		{"0x100000000", "", InvalidURL},
		{"1.2.3.08", "", InvalidURL},
		// Names: looked up (and this test's resolver knows none).
		{"0x7f.0.0.0x7g", "", DNS},
		{"10000000000.com", "", DNS},
		{"foo.09..", "", DNS},
	}
	noNames := func(ctx context.Context, host string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	guarded := newTestClient(t, Config{})
	guarded.lookup = noNames
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			u := "http://" + tt.host + ":" + port + "/"
			_, err := guarded.Do(t.Context(), Request{URL: u})
			if got := errKind(err); got != tt.kind {
				t.Fatalf("Do(%s) kind %v (%v), want %v", u, got, err, tt.kind)
			}
			var fe *Error
			errors.As(err, &fe)
			if tt.kind == Blocked && (fe.Status() != status.InvalidURL || fe.Kind.String() != "blocked" || !errors.Is(err, ErrBlocked)) {
				t.Errorf("Do(%s) = %v: status %d kind %q, want %d blocked", u, err, fe.Status(), fe.Kind, status.InvalidURL)
			}
			if tt.kind == InvalidURL && (fe.Status() != status.InvalidURL || !errors.Is(err, ErrInvalidURL)) {
				t.Errorf("Do(%s) = %v: status %d, want %d", u, err, fe.Status(), status.InvalidURL)
			}
		})
	}
	if n := srv.accepts.Load(); n != 0 {
		t.Fatalf("the loopback listener accepted %d connections with AllowPrivate false, want 0", n)
	}

	// Allowed, each spelling reaches the address it spells, and says so in Host.
	allowed := newTestClient(t, Config{AllowPrivate: true})
	allowed.lookup = noNames
	want := int32(0)
	for _, tt := range tests {
		if tt.wantHost == "" {
			continue
		}
		t.Run("allowed/"+tt.host, func(t *testing.T) {
			ex, err := allowed.Do(t.Context(), Request{URL: "http://" + tt.host + ":" + port + "/"})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			want++
			if h := "\r\nHost: " + tt.wantHost + ":" + port + "\r\n"; !bytes.Contains(ex.Request, []byte(h)) {
				t.Errorf("request lacks %q:\n%s", h, ex.Request)
			}
			if ex.RemoteIP != "127.0.0.1" {
				t.Errorf("RemoteIP %q, want 127.0.0.1", ex.RemoteIP)
			}
		})
	}
	if n := srv.accepts.Load(); n == 0 || n > want {
		t.Errorf("accepts = %d, want 1 to %d (keep-alive may reuse)", n, want)
	}
}

func TestMaxRequestLine(t *testing.T) {
	srv := newRawServer(t, []step{{write: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"}})
	c := newTestClient(t, Config{AllowPrivate: true})
	// "GET " + target + " HTTP/1.1" is MaxRequestLine bytes for a target of this length.
	atLimit := MaxRequestLine - len("GET ") - len(" HTTP/1.1")
	path := func(n int) string { return "/" + strings.Repeat("a", n-1) }
	tests := []struct {
		name string
		url  string
		ok   bool
	}{
		{"at the limit", srv.url(path(atLimit)), true},
		{"one over", srv.url(path(atLimit + 1)), false},
		{"query over", srv.url("/?" + strings.Repeat("q", atLimit)), false},
		{"escaping makes it over", srv.url("/?" + strings.Repeat("<", atLimit/3+1)), false},
		{"100 KB", srv.url(path(100 << 10)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.accepts.Load()
			ex, err := c.Do(t.Context(), Request{URL: tt.url})
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				ex.Close()
				if line, _, _ := bytes.Cut(ex.Request, []byte("\r\n")); len(line) != MaxRequestLine {
					t.Errorf("request line of %d bytes, want %d", len(line), MaxRequestLine)
				}
				return
			}
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != InvalidURL || fe.Status() != status.InvalidURL || !errors.Is(err, ErrInvalidURL) {
				t.Fatalf("Do(%d-byte URL) = %v, want an InvalidURL error", len(tt.url), err)
			}
			if n := srv.accepts.Load(); n != before {
				t.Errorf("the server accepted %d connections for a refused request", n-before)
			}
		})
	}
}
