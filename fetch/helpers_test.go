package fetch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testUA = "amber-test/1.0 (+https://example.org/bot)"

// step is one action of a scripted raw server response.
type step struct {
	write string
	stall bool // block until the client goes away (or 5s)
	close bool
}

// rawServer is a hostile or exact-bytes test server on 127.0.0.1: for every request it
// runs the next script (the last one repeats), recording what it received and sent.
type rawServer struct {
	ln      net.Listener
	scripts [][]step
	accepts atomic.Int32
	wg      sync.WaitGroup

	mu       sync.Mutex // guards the fields below
	received []byte
	sent     []byte
	served   int
	conns    []net.Conn
	closed   bool
}

func newRawServer(t testing.TB, scripts ...[]step) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, scripts: scripts}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(s.close)
	return s
}

func (s *rawServer) addr() string { return s.ln.Addr().String() }

func (s *rawServer) port() string {
	_, p, _ := net.SplitHostPort(s.addr())
	return p
}

func (s *rawServer) url(path string) string { return "http://" + s.addr() + path }

func (s *rawServer) close() {
	s.ln.Close()
	s.mu.Lock()
	s.closed = true
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *rawServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.accepts.Add(1)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.handle(c)
	}
}

func (s *rawServer) handle(c net.Conn) {
	defer s.wg.Done()
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := readRequestHead(br)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.received = append(s.received, req...)
		script := s.scripts[min(s.served, len(s.scripts)-1)]
		s.served++
		s.mu.Unlock()
		for _, st := range script {
			if st.write != "" {
				// Recorded before the write: once the bytes are on the wire the client
				// may finish and the test may read s.sent before this goroutine runs again.
				s.mu.Lock()
				s.sent = append(s.sent, st.write...)
				s.mu.Unlock()
				if _, err := io.WriteString(c, st.write); err != nil {
					return
				}
			}
			if st.stall {
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				io.Copy(io.Discard, br)
				return
			}
			if st.close {
				return
			}
		}
	}
}

// readRequestHead reads one request up to its blank line (amber requests have no body).
func readRequestHead(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		line, err := br.ReadBytes('\n')
		buf = append(buf, line...)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(line, []byte("\r\n")) {
			return buf, nil
		}
	}
}

func (s *rawServer) got() (received, sent []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.received), bytes.Clone(s.sent)
}

func newTestClient(t testing.TB, cfg Config) *Client {
	t.Helper()
	if cfg.UserAgent == "" {
		cfg.UserAgent = testUA
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// No test may resolve names: every name maps to 127.0.0.1.
	c.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "unresolvable.test" {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readAll(t testing.TB, open func() (io.ReadCloser, error)) []byte {
	t.Helper()
	rc, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func errKind(err error) ErrorKind {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return 0
}

func netipParse(s string) (netip.Addr, error) { return netip.ParseAddr(s) }
