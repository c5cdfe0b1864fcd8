package fetch

import (
	"bytes"
	"io"
	"net/url"
	"testing"
	"time"
)

func FuzzParseConnectTo(f *testing.F) {
	for _, s := range []string{"example.com:443:127.0.0.1:8443", "::127.0.0.1:", "[::1]:80:[::2]:81", ":::", "a:b:c:d", "[:1]:::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConnectTo(s)
		if err != nil {
			return
		}
		back, err := ParseConnectTo(c.String())
		if err != nil || back != c {
			t.Fatalf("%q parsed to %+v, which renders as %q and parses to %+v, %v", s, c, c.String(), back, err)
		}
	})
}

func FuzzParseRobots(f *testing.F) {
	f.Add(200, []byte("User-agent: *\nDisallow: /private\nAllow: /private/ok\nCrawl-delay: 2\n"), "amber/1.0", "/private/x")
	f.Add(200, []byte("User-agent: amber\nDisallow: /*.pdf$\nSitemap: http://x/s.xml\n"), "Mozilla/5.0 (compatible; amber/1.0)", "/a.pdf")
	f.Add(200, []byte("Crawl-delay: 1e400\nuser-agent:*\ndisallow:\n"), "", "")
	f.Add(503, []byte(nil), "amber", "/")
	f.Fuzz(func(t *testing.T, status int, body []byte, ua, path string) {
		p := ParseRobots(status, body, ua)
		p.Allowed(path)
		if d := p.CrawlDelay(); d < 0 || d > MaxCrawlDelay {
			t.Fatalf("crawl delay %v out of range", d)
		}
		if p.Temporary() && p.Allowed(path) {
			t.Fatalf("temporary policy allows %q", path)
		}
	})
}

// FuzzResponse feeds arbitrary bytes to the client as a server's response: the client must
// not panic or hang, the recorded bytes must be a part of what was sent, and Body must end.
func FuzzResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nT: 1\r\n\r\n",
		"HTTP/1.0 200 OK\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"\r\n\nHTTP/1.1 200\nContent-Length: 1\n\nx",
		"HTTP/1.1 200 OK\r\nContent-Encoding: deflate, gzip\r\nContent-Length: 3\r\n\r\nabc",
	} {
		f.Add([]byte(s))
	}
	srv := newRawServer(f, []step{{close: true}})
	c := newTestClient(f, Config{
		AllowPrivate:     true,
		MaxIdlePerHost:   -1,
		FirstByteTimeout: time.Second,
		ResponseTimeout:  2 * time.Second,
		MaxResponseSize:  1 << 20,
		SpillThreshold:   4 << 10,
		TempDir:          f.TempDir(),
	})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			in = []byte{'\n'}
		}
		// The server writes the input and closes the connection.
		srv.mu.Lock()
		srv.scripts = [][]step{{{write: string(in), close: true}}}
		srv.received, srv.sent = nil, nil
		srv.mu.Unlock()
		ex, err := c.Do(t.Context(), Request{URL: srv.url("/")})
		if err != nil {
			if errKind(err) == 0 {
				t.Fatalf("error is not *Error: %v", err)
			}
			return
		}
		defer ex.Close()
		raw := readAll(t, ex.Response)
		if !bytes.Contains(in, raw) {
			t.Fatalf("recorded bytes %q are not part of what was sent %q", raw, in)
		}
		rc, err := ex.Body()
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, rc)
		rc.Close()
	})
}

// FuzzConnectAnswer feeds arbitrary bytes to the client as a proxy's answer to CONNECT: the
// client must not panic or hang, every failure is an *Error, a ProxyAuth error comes only
// from a 407, and the CONNECT request carries the proxy's credentials and no origin's.
func FuzzConnectAnswer(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 Connection established\r\n\r\n",
		"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n",
		"HTTP/1.0 502 Bad Gateway\r\nContent-Length: 3\r\n\r\nbad",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"SSH-2.0-OpenSSH\r\n",
	} {
		f.Add([]byte(s))
	}
	srv := newRawServer(f, []step{{close: true}})
	c := newTestClient(f, Config{
		AllowPrivate:     true,
		MaxIdlePerHost:   -1,
		ConnectTimeout:   time.Second,
		FirstByteTimeout: time.Second,
		ResponseTimeout:  2 * time.Second,
		HTTPAuthAllowed:  true,
		Auth:             []OriginAuth{{Origin: "http://site.test", Raw: "Bearer origin"}},
		Proxy:            &url.URL{Scheme: "http", Host: srv.addr(), User: url.UserPassword("u", "pw")},
	})
	f.Fuzz(func(t *testing.T, in []byte) {
		srv.mu.Lock()
		srv.scripts = [][]step{{{write: string(in), close: true}}}
		srv.received, srv.sent = nil, nil
		srv.mu.Unlock()
		ex, err := c.Do(t.Context(), Request{URL: "http://site.test/"})
		if err == nil {
			ex.Close()
		} else if k := errKind(err); k == 0 || (k == ProxyAuth && !bytes.Contains(in, []byte("407"))) {
			t.Fatalf("error %v (kind %v) for answer %q", err, k, in)
		}
		received, _ := srv.got()
		connect, _, _ := bytes.Cut(received, []byte("\r\n\r\n"))
		if !bytes.HasPrefix(connect, []byte("CONNECT site.test:80 HTTP/1.1\r\n")) ||
			!bytes.Contains(connect, []byte("\r\nProxy-Authorization: Basic dTpwdw==")) ||
			bytes.Contains(connect, []byte("Bearer origin")) {
			t.Fatalf("CONNECT request %q", connect)
		}
	})
}
