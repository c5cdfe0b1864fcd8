package fetch

import (
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var errTestRefused = errors.New("refused by the test's CheckAddr")

// TestCheckAddr: Config.CheckAddr sees each request's URL and its connection's address, on a
// new connection (then closed when refused) and on one kept alive (then kept), and a refused
// request sends nothing.
func TestCheckAddr(t *testing.T) {
	ok := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	srv := newRawServer(t, []step{{write: ok}})
	var mu sync.Mutex
	var seen []string
	c := newTestClient(t, Config{AllowPrivate: true, CheckAddr: func(u string, a netip.Addr) error {
		mu.Lock()
		seen = append(seen, u+" "+a.String())
		mu.Unlock()
		if strings.Contains(u, "/refused") {
			return errTestRefused
		}
		return nil
	}})
	tests := []struct {
		path    string
		refused bool
	}{
		{"/refused-first", true}, // on a new connection
		{"/a", false},
		{"/refused-again", true}, // on the connection kept alive
		{"/b", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			ex, err := c.Do(t.Context(), Request{URL: srv.url(tt.path)})
			if !tt.refused {
				if err != nil {
					t.Fatal(err)
				}
				ex.Close()
				return
			}
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != Blocked || !errors.Is(err, errTestRefused) {
				t.Fatalf("Do = %v, want a Blocked *Error wrapping the check's error", err)
			}
		})
	}
	c.Close()
	srv.close()
	srv.mu.Lock()
	received := string(srv.received)
	srv.mu.Unlock()
	if strings.Contains(received, "/refused") {
		t.Errorf("a refused request reached the server:\n%s", received)
	}
	if n := strings.Count(received, "GET "); n != 2 {
		t.Errorf("server got %d requests, want 2:\n%s", n, received)
	}
	want := []string{srv.url("/refused-first") + " 127.0.0.1", srv.url("/a") + " 127.0.0.1",
		srv.url("/refused-again") + " 127.0.0.1", srv.url("/b") + " 127.0.0.1"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("CheckAddr saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	// The first request was refused on its new connection, which was closed; the next ones
	// went on one connection kept alive.
	if got := srv.accepts.Load(); got != 2 {
		t.Errorf("server accepted %d connections, want 2", got)
	}
}

// TestCheckAddrBeforeTLS: an https request refused by Config.CheckAddr makes no TLS handshake.
func TestCheckAddrBeforeTLS(t *testing.T) {
	var hellos atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		hellos.Add(1)
		return nil, nil
	}}
	srv.StartTLS()
	defer srv.Close()
	c := newTestClient(t, Config{AllowPrivate: true, CheckAddr: func(string, netip.Addr) error { return errTestRefused }})
	defer c.Close()
	_, err := c.Do(t.Context(), Request{URL: srv.URL + "/"})
	if !errors.Is(err, errTestRefused) {
		t.Fatalf("Do = %v, want the check's refusal", err)
	}
	if n := hellos.Load(); n != 0 {
		t.Errorf("the server got %d TLS ClientHellos, want 0", n)
	}
}
