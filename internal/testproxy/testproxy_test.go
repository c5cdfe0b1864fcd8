package testproxy

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// connect sends a CONNECT for target with auth (when not "") and, when it is answered 200,
// a GET through the tunnel; it returns the CONNECT's status and the tunnelled body.
func connect(t *testing.T, p *Proxy, target, auth string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n", target, target)
	if auth != "" {
		fmt.Fprintf(c, "Proxy-Authorization: %s\r\n", auth)
	}
	io.WriteString(c, "\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, ""
	}
	fmt.Fprintf(c, "GET /x HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	got, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Body.Close()
	b, _ := io.ReadAll(got.Body)
	return resp.StatusCode, string(b)
}

func TestProxy(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Host, r.URL.Path)
	}))
	defer origin.Close()
	good := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))
	for _, tc := range []struct {
		name, user, auth string
		status           int
	}{
		{"open", "", "", 200},
		{"credentials", "u", good, 200},
		{"missing", "u", "", 407},
		{"wrong", "u", "Basic eDp5", 407},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Start(origin.Listener.Addr().String(), tc.user, "p")
			defer p.Close()
			status, body := connect(t, p, "www.example.com:80", tc.auth)
			if status != tc.status {
				t.Fatalf("status %d, want %d", status, tc.status)
			}
			if status == 200 && body != "www.example.com:80 /x" && body != "www.example.com /x" {
				t.Errorf("tunnelled body %q", body)
			}
			cs := p.Connects()
			if len(cs) != 1 || cs[0].Target != "www.example.com:80" || cs[0].Status != tc.status || cs[0].ProxyAuthorization != tc.auth {
				t.Errorf("connects %+v", cs)
			}
		})
	}
}

func TestNotConnect(t *testing.T) {
	p := Start("127.0.0.1:1", "", "")
	defer p.Close()
	resp, err := http.Get("http://" + p.Addr() + "/plain")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("status %d", resp.StatusCode)
	}
	if o := p.Others(); len(o) != 1 || !strings.HasPrefix(o[0], "GET /plain") {
		t.Errorf("others %q", o)
	}
	if p.URL().Host != p.Addr() {
		t.Errorf("URL %v", p.URL())
	}
}
