// Package zinctest runs the search-index tests' server: ZincSearch v0.4.10, an independent
// Elasticsearch-compatible server in Go, built by `make tools` as bin/zincsearch (see
// scripts/zincsearch.sh). A Server listens on a free 127.0.0.1 port with its data in a
// directory of its own; its Elasticsearch API is under URL (…/es). A test can stop the server
// and start it again on the same port and data, to check what survives an outage.
//
// Without bin/zincsearch the tests that need it are skipped, except in CI (CI=true), where
// that is a failure.
package zinctest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary is where `make tools` builds ZincSearch, relative to the module root.
const Binary = "bin/zincsearch"

// The administrator the server is started with.
const (
	User     = "admin"
	Password = "amber-test-password"
)

// Server is a ZincSearch process. Its methods are for one goroutine at a time.
type Server struct {
	// URL is the base URL of its Elasticsearch API, http://127.0.0.1:PORT/es; it stays the
	// same across Restart.
	URL string
	// Dir holds the server's data; it stays the same across Restart.
	Dir string

	bin  string
	port int
	cmd  *exec.Cmd // nil while stopped
	wait chan error
	log  logBuffer
}

// logBuffer is the server's output, written by exec's copying goroutines.
type logBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}

// Path returns the absolute path of bin/zincsearch, or "" and why when it is not there.
func Path() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", Binary)
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s not found (make tools builds it): %w", Binary, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable", Binary)
	}
	return filepath.Clean(p), nil
}

// Require skips t when bin/zincsearch is missing, or fails it in CI.
func Require(t testing.TB) {
	t.Helper()
	if _, err := Path(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("zinctest: %v (CI needs it)", err)
		}
		t.Skipf("zinctest: %v", err)
	}
}

// Start starts a server with its data in dir (created if missing).
func Start(dir string) (*Server, error) {
	bin, err := Path()
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, bin: bin}
	// A free port may be taken between the probe and the server's bind: try a few.
	for range 5 {
		if s.port, err = freePort(); err != nil {
			return nil, err
		}
		s.URL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) + "/es"
		if err = s.start(); err == nil {
			return s, nil
		}
	}
	return nil, err
}

// StartT starts a server for t in a temporary directory and stops it when t ends; it skips
// t (fails it in CI) without bin/zincsearch.
func StartT(t testing.TB) *Server {
	t.Helper()
	Require(t)
	s, err := Start(t.TempDir())
	if err != nil {
		t.Fatalf("zinctest: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Close stops the server if it runs (SIGKILL).
func (s *Server) Close() error {
	if s.cmd == nil {
		return nil
	}
	s.stop(syscall.SIGKILL)
	return nil
}

// Stop stops the server with sig and waits for it to exit.
func (s *Server) Stop(sig syscall.Signal) error {
	if s.cmd == nil {
		return errors.New("zinctest: Stop of a stopped server")
	}
	s.stop(sig)
	return nil
}

// Restart starts a stopped server again on the same port and data.
func (s *Server) Restart() error {
	if s.cmd != nil {
		return errors.New("zinctest: Restart of a running server")
	}
	return s.start()
}

func (s *Server) stop(sig syscall.Signal) {
	_ = s.cmd.Process.Signal(sig)
	<-s.wait
	s.cmd = nil
}

// start runs the server and waits until its API answers.
func (s *Server) start() error {
	cmd := exec.Command(s.bin)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(),
		"ZINC_FIRST_ADMIN_USER="+User,
		"ZINC_FIRST_ADMIN_PASSWORD="+Password,
		"ZINC_DATA_PATH="+filepath.Join(s.Dir, "data"),
		"ZINC_SERVER_ADDRESS=127.0.0.1",
		"ZINC_SERVER_PORT="+strconv.Itoa(s.port),
		// Nothing leaves the machine: no telemetry, no error reports.
		"ZINC_TELEMETRY=false",
		"ZINC_SENTRY=false",
		"ZINC_PROFILER=false",
		"GIN_MODE=release",
		// Documents are searchable once the write-ahead log is synced (default every second).
		"ZINC_WAL_SYNC_INTERVAL=10ms",
	)
	s.log.Reset()
	cmd.Stdout, cmd.Stderr = &s.log, &s.log
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("zinctest: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("zinctest: start %s: %w", s.bin, err)
	}
	wait := make(chan error, 1)
	go func() { wait <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-wait:
			return fmt.Errorf("zinctest: %s exited: %v\n%s", s.bin, err, lastLines(s.log.String(), 10))
		default:
		}
		if s.ping() {
			s.cmd, s.wait = cmd, wait
			return nil
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-wait
			return fmt.Errorf("zinctest: %s on port %d did not answer within 30s", s.bin, s.port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) ping() bool {
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/", nil)
	req.SetBasicAuth(User, Password)
	c := http.Client{Timeout: time.Second}
	res, err := c.Do(req)
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// Do sends a request with the administrator's credentials to the Elasticsearch API (path
// after /es, such as "/INDEX/_search") and decodes the JSON answer into out (when not nil).
// A status other than 2xx is an error.
func (s *Server) Do(method, path string, body any, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, r)
	if err != nil {
		return err
	}
	req.SetBasicAuth(User, Password)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("zinctest: %s %s: %s: %s", method, path, res.Status, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// Hit is one document found by Search.
type Hit struct {
	ID     string         `json:"_id"`
	Source map[string]any `json:"_source"`
}

// Search returns every document of index that the query matches (a query_string query; "*"
// for all), up to 10,000.
func (s *Server) Search(index, query string) ([]Hit, error) {
	var res struct {
		Hits struct {
			Hits []Hit `json:"hits"`
		} `json:"hits"`
	}
	q := map[string]any{"query": map[string]any{"query_string": map[string]any{"query": query}}, "size": 10000}
	if query == "*" {
		q["query"] = map[string]any{"match_all": map[string]any{}}
	}
	if err := s.Do(http.MethodPost, "/"+index+"/_search", q, &res); err != nil {
		return nil, err
	}
	return res.Hits.Hits, nil
}

// Log is what the server printed since it last started.
func (s *Server) Log() string { return s.log.String() }

// freePort returns a port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("zinctest: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(len(ls)-n, 0):], "\n")
}
