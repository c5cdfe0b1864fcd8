package fetch

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
)

// bigBodySize is the body of the large responses of TestFetchBody: far more than the socket
// buffers of a loopback connection hold, so a client that read it would show in what the
// server wrote.
const bigBodySize = 64 << 20

// bodySite serves the responses of TestFetchBody, their bodies made as they are written and
// never held whole, counting the body bytes the server wrote (those its writes took).
type bodySite struct {
	written atomic.Int64
}

func (s *bodySite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var out io.Writer = w
	flush := func() {}
	switch r.URL.Path {
	case "/length":
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Length", strconv.Itoa(bigBodySize))
	case "/chunked":
		w.Header().Set("Content-Type", "application/zip")
		flush = w.(http.Flusher).Flush // no Content-Length: chunked
	case "/close":
		// Delimited by the connection's close, which net/http does not do on its own.
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nConnection: close\r\n\r\n")
		out, flush = bw, func() { bw.Flush() }
	case "/missing":
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Length", strconv.Itoa(bigBodySize))
		w.WriteHeader(http.StatusNotFound)
	case "/small":
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Length", "5")
		io.WriteString(w, "hello")
		return
	case "/304":
		w.WriteHeader(http.StatusNotModified)
		return
	}
	chunk := bytes.Repeat([]byte("z"), 32<<10)
	for n := 0; n < bigBodySize; n += len(chunk) {
		if _, err := out.Write(chunk); err != nil {
			return // the client closed the connection
		}
		flush()
		s.written.Add(int64(len(chunk)))
	}
}

// TestFetchBody: a response whose head Request.FetchBody refuses is not read: the exchange
// holds its head alone, with the length of the body its head declared, and the connection is
// closed; the server gets to write a small part of the body at most (what the connection's
// buffers take). FetchBody is asked once per response that has a body, with its status and
// header; its yes reads the body as without it.
func TestFetchBody(t *testing.T) {
	tests := []struct {
		name, method, path string
		fetch              bool // FetchBody's answer
		asked              bool // FetchBody is asked
		status             int
		notFetched         bool
		notFetchedSize     int64
		body               string
		conns              int // connections the request and a second one to /small take
	}{
		{"refused, Content-Length", "GET", "/length", false, true, 200, true, bigBodySize, "", 2},
		{"refused, chunked", "GET", "/chunked", false, true, 200, true, -1, "", 2},
		{"refused, until the close", "GET", "/close", false, true, 200, true, -1, "", 2},
		{"refused, a 404", "GET", "/missing", false, true, 404, true, bigBodySize, "", 2},
		{"accepted", "GET", "/small", true, true, 200, false, 0, "hello", 1},
		{"no body: HEAD", "HEAD", "/length", false, false, 200, false, 0, "", 1},
		{"no body: 304", "GET", "/304", false, false, 304, false, 0, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := &bodySite{}
			conns := 0
			srv := httptest.NewUnstartedServer(site)
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns++ // ConnState runs on the server's serving goroutines, serially per conn
				}
			}
			srv.Start()
			defer srv.Close()
			c := newTestClient(t, Config{AllowPrivate: true})
			var asked []string
			req := Request{URL: srv.URL + tt.path, Method: tt.method, FetchBody: func(status int, h http.Header) bool {
				asked = append(asked, fmt.Sprintf("%d %s", status, h.Get("Content-Type")))
				return tt.fetch
			}}
			ex, err := c.Do(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			if want := []string{fmt.Sprintf("%d application/zip", tt.status)}; tt.asked && fmt.Sprint(asked) != fmt.Sprint(want) || !tt.asked && len(asked) > 0 {
				t.Errorf("FetchBody asked %q, want it asked %v", asked, tt.asked)
			}
			if ex.StatusCode != tt.status || ex.BodyNotFetched != tt.notFetched || ex.NotFetchedSize != tt.notFetchedSize || ex.Truncated != "" {
				t.Errorf("status %d, not fetched %v (%d bytes), truncated %q; want %d, %v (%d bytes), not truncated",
					ex.StatusCode, ex.BodyNotFetched, ex.NotFetchedSize, ex.Truncated, tt.status, tt.notFetched, tt.notFetchedSize)
			}
			if body := readAll(t, ex.Body); string(body) != tt.body {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			raw := readAll(t, ex.Response)
			if tt.notFetched {
				if head, _, _ := bytes.Cut(raw, []byte("\r\n\r\n")); len(raw) != len(head)+4 || ex.BodySize() != 0 || ex.ResponseSize() != int64(len(raw)) {
					t.Errorf("response of %d bytes (body size %d): %q..., want the head alone", len(raw), ex.BodySize(), raw[:min(len(raw), 300)])
				}
			}
			if ex2, err := c.Do(t.Context(), Request{URL: srv.URL + "/small"}); err != nil {
				t.Fatal(err)
			} else {
				ex2.Close()
			}
			c.Close()
			srv.Close() // waits for the handlers: the counts are final
			if conns != tt.conns {
				t.Errorf("%d connections, want %d", conns, tt.conns)
			}
			written := site.written.Load()
			t.Logf("the server wrote %d body bytes", written)
			if tt.notFetched && written > bigBodySize/4 {
				t.Errorf("the server wrote %d of the %d body bytes, want a small part", written, bigBodySize)
			}
		})
	}
}

// TestFetchBodyChallenge: Request.FetchBody is asked about the response Do returns: a 401
// whose challenge a realm credential answers is read whole (the exchange's Challenge), the
// answer's body refused; a 401 no credential answers is the response, and asked about.
func TestFetchBodyChallenge(t *testing.T) {
	site := &bodySite{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="r"`)
			w.Header().Set("Content-Type", "application/zip")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "denied")
			return
		}
		r.URL.Path = "/length"
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	tests := []struct {
		name      string
		realm     string // of the credential
		asked     string
		status    int
		challenge string // the Challenge's body; "" for none
	}{
		{"answered", "r", "200 application/zip", 200, "denied"},
		{"not answered", "other", "401 application/zip", 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: true, HTTPAuthAllowed: true,
				Auth: []OriginAuth{{Origin: srv.URL, Realm: tt.realm, Basic: &BasicAuth{Username: "u", Password: "pw"}}}})
			var asked []string
			ex, err := c.Do(t.Context(), Request{URL: srv.URL + "/", FetchBody: func(status int, h http.Header) bool {
				asked = append(asked, fmt.Sprintf("%d %s", status, h.Get("Content-Type")))
				return false
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			if fmt.Sprint(asked) != fmt.Sprint([]string{tt.asked}) || ex.StatusCode != tt.status || !ex.BodyNotFetched {
				t.Errorf("asked %q, status %d, body not fetched %v; want [%s], %d, not fetched", asked, ex.StatusCode, ex.BodyNotFetched, tt.asked, tt.status)
			}
			switch {
			case tt.challenge == "" && ex.Challenge != nil:
				t.Errorf("a challenge %d, want none", ex.Challenge.StatusCode)
			case tt.challenge != "" && ex.Challenge == nil:
				t.Errorf("no challenge, want the 401")
			case tt.challenge != "":
				if body := readAll(t, ex.Challenge.Body); string(body) != tt.challenge || ex.Challenge.BodyNotFetched {
					t.Errorf("challenge body %q (not fetched %v), want %q read", body, ex.Challenge.BodyNotFetched, tt.challenge)
				}
			}
		})
	}
}
