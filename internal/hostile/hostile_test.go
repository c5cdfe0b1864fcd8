package hostile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestBomb(t *testing.T) {
	for _, tc := range []struct {
		size int64
		want int64
	}{
		{1, 1 << 20},
		{1 << 20, 1 << 20},
		{2 << 20, 2 << 20},
		{5<<20 + 1, 6 << 20},
	} {
		b := Bomb(tc.size)
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("Bomb(%d): %v", tc.size, err)
		}
		var n int64
		buf := make([]byte, 1<<16)
		for {
			k, err := zr.Read(buf)
			for _, c := range buf[:k] {
				if c != 0 {
					t.Fatalf("Bomb(%d): non-zero byte at %d", tc.size, n)
				}
			}
			n += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Bomb(%d): inflate: %v after %d bytes", tc.size, err, n)
			}
		}
		if n != tc.want {
			t.Errorf("Bomb(%d) inflates to %d bytes, want %d", tc.size, n, tc.want)
		}
		if ratio := n / int64(len(b)); ratio < 500 {
			t.Errorf("Bomb(%d): %d bytes on the wire, ratio %d, want >= 500", tc.size, len(b), ratio)
		}
	}
}

// get sends one request for path with a Host header and returns everything the server wrote.
func get(t *testing.T, addr, host, path string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
	b, _ := io.ReadAll(bufio.NewReader(c))
	return string(b)
}

func TestServer(t *testing.T) {
	s, err := Start(Config{BombSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tests := []struct {
		host, path string
		prefix     string
		contains   string
	}{
		{Host(Slow), "/", "HTTP/1.1 200 OK\r\n", `href="/case"`},
		{Host(RobotsLoop), "/robots2.txt", "HTTP/1.1 302 ", "Location: /robots.txt"},
		{Host(ManyLinks), "/case", "HTTP/1.1 200 OK\r\n", `<a href=//o.hostile.test/199999></a>`},
		{Host(RedirectLoop), "/case", "HTTP/1.1 302 Found\r\n", "Location: /loop\r\n"},
		{Host(RedirectLoop), "/loop", "HTTP/1.1 302 Found\r\n", "Location: /case\r\n"},
		{Host(RedirectChain), "/hop/29", "HTTP/1.1 302 Found\r\n", "Location: /hop/30\r\n"},
		{Host(RedirectChain), "/hop/30", "HTTP/1.1 200 OK\r\n", "end of the chain"},
		{Host(HTTP09), "/case", "<!doctype html>", "HTTP/0.9"},
		{Host(BadStatus), "/case", "HTTP/1.1 2OO OK\r\n", ""},
		{Host(ChunkUnterminated), "/case", "HTTP/1.1 200 OK\r\n", "\r\n\r\nf\r\n<p>first chunk\n\r\n"},
		{Host(ChunkTrailers), "/case", "HTTP/1.1 200 OK\r\n", "\r\n0\r\nX-Checksum: 5d41402a\r\nX-Status: complete\r\n\r\n"},
		{Host(ChunkExtensions), "/case", "HTTP/1.1 200 OK\r\n", "\r\nf;name=value\r\n<p>first chunk\n\r\n"},
		{Host(Calendar), "/cal/2026/12/", "HTTP/1.1 200 OK\r\n", `href="/cal/2027/1/"`},
		{Host(PathTrap), "/a/a/", "HTTP/1.1 200 OK\r\n", `href="a/"`},
		{Host(Robots500), "/robots.txt", "HTTP/1.1 500 ", ""},
		{Host(RobotsLoop), "/robots.txt", "HTTP/1.1 302 ", "Location: /robots2.txt"},
		{Host(Loopback), "/case", "HTTP/1.1 200 OK\r\n", `href="http://0x7f.1:`},
		{"nowhere.example", "/", "HTTP/1.1 404 ", ""},
	}
	for _, tc := range tests {
		got := get(t, s.Addr, tc.host, tc.path)
		if !strings.HasPrefix(got, tc.prefix) || !strings.Contains(got, tc.contains) {
			t.Errorf("%s%s: got %.200q, want prefix %q containing %q", tc.host, tc.path, got, tc.prefix, tc.contains)
		}
	}
	if got := s.Hits(Host(RedirectLoop), "/case"); got != 1 {
		t.Errorf("Hits(redirect-loop /case) = %d, want 1", got)
	}
	if got := s.HostConns(Host(RedirectChain)); got != 2 {
		t.Errorf("HostConns(redirect-chain) = %d, want 2", got)
	}
	if got, want := s.Conns(), len(tests); got != want {
		t.Errorf("Conns() = %d, want %d", got, want)
	}

	// The stalls end when the server closes.
	c, err := net.Dial("tcp", s.StallAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c2, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	io.WriteString(c2, "GET /case HTTP/1.1\r\nHost: "+Host(StallHeaders)+"\r\n\r\n")
	time.Sleep(50 * time.Millisecond)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the stalls")
	}
	if got := s.StallConns(); got != 1 {
		t.Errorf("StallConns() = %d, want 1", got)
	}
}

// TestChunkCases reads each chunked case with net/http: what it de-chunks before the framing
// ends or breaks, and whether it breaks, are what the case's doc says.
func TestChunkCases(t *testing.T) {
	s, err := Start(Config{BombSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const first, second = "<p>first chunk\n", "<p>second chunk</p>\n"
	tests := []struct {
		host    string
		body    string // de-chunked
		broken  bool   // the framing breaks or ends early
		trailer string // X-Checksum trailer field
	}{
		{ChunkBadSize, first, true, ""},
		{ChunkBadFirstSize, "", true, ""},
		{ChunkLong, "<p>th", true, ""},
		{ChunkUnterminated, first, true, ""},
		{ChunkShort, "<p>announced as 1,024 bytes, sent 41</p>\n", true, ""},
		{ChunkExtensions, first + second, false, ""},
		{ChunkTrailers, first + second, false, "5d41402a"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			raw := get(t, s.Addr, Host(tt.host), "/case")
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			if string(body) != tt.body || (err != nil) != tt.broken {
				t.Errorf("de-chunked %q, error %v; want %q, broken %v", body, err, tt.body, tt.broken)
			}
			if got := resp.Trailer.Get("X-Checksum"); got != tt.trailer {
				t.Errorf("trailer X-Checksum %q, want %q", got, tt.trailer)
			}
		})
	}
}
