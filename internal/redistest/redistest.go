// Package redistest starts Debian's redis-server for tests: on a free 127.0.0.1 port, with its
// persistence (AOF, fsync every second, no RDB snapshots) in a directory of the test's, and
// stops it by PID. A test can kill the server (SIGTERM or SIGKILL) and start it again on the
// same directory and port, to check what survives a Redis restart.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ServerPath is where Debian's redis-server package installs the server.
const ServerPath = "/usr/bin/redis-server"

// Server is a redis-server process started by Start. Its methods are for the test goroutine.
type Server struct {
	// Addr is the server's address, 127.0.0.1:PORT; it stays the same across Restart.
	Addr string
	// Dir holds the server's AOF files; it stays the same across Restart.
	Dir string

	t    testing.TB
	port int
	cmd  *exec.Cmd // nil while stopped
	wait chan error
}

// Start starts a redis-server for t and stops it when t ends. Without redis-server at
// ServerPath the test is skipped, except in CI (CI=true), where that is a failure
// (`apt-get install -y redis-server`).
func Start(t testing.TB) *Server {
	t.Helper()
	if st, err := os.Stat(ServerPath); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not found at %s (CI needs it: apt-get install -y redis-server)", ServerPath)
		}
		t.Skipf("redis-server not found at %s (apt-get install -y redis-server)", ServerPath)
	}
	s := &Server{t: t, Dir: t.TempDir()}
	var err error
	// A free port may be taken by another process between the probe and the server's bind:
	// try a few.
	for range 5 {
		if s.port, err = freePort(); err != nil {
			t.Fatalf("redistest: %v", err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(func() {
		if s.cmd != nil {
			s.stop(syscall.SIGKILL)
		}
	})
	return s
}

// URL is the redis:// URL of database db on the server.
func (s *Server) URL(db int) string { return fmt.Sprintf("redis://%s/%d", s.Addr, db) }

// Stop sends sig (syscall.SIGTERM: Redis writes its AOF out and exits; syscall.SIGKILL: a
// crash, which loses what the AOF had not fsynced) to the server's PID and waits for it to
// exit.
func (s *Server) Stop(sig syscall.Signal) {
	s.t.Helper()
	if s.cmd == nil {
		s.t.Fatal("redistest: Stop of a stopped server")
	}
	s.stop(sig)
}

// Restart starts a stopped server again on the same port and directory; it returns once the
// server has loaded its AOF and answers PING.
func (s *Server) Restart() {
	s.t.Helper()
	if s.cmd != nil {
		s.t.Fatal("redistest: Restart of a running server")
	}
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restart: %v", err)
	}
}

func (s *Server) stop(sig syscall.Signal) {
	_ = s.cmd.Process.Signal(sig)
	<-s.wait
	s.cmd = nil
}

// start runs redis-server and waits until it answers PING.
func (s *Server) start() error {
	cmd := exec.Command(ServerPath,
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--dir", s.Dir,
		"--appendonly", "yes",
		"--appendfsync", "everysec",
		"--save", "",
		"--daemonize", "no",
		"--protected-mode", "yes",
		"--logfile", "redis.log",
	)
	cmd.Dir = s.Dir
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", ServerPath, err)
	}
	wait := make(chan error, 1)
	go func() { wait <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-wait:
			log, _ := os.ReadFile(s.Dir + "/redis.log")
			return fmt.Errorf("redis-server on %s exited: %v\n%s", s.Addr, err, lastLines(string(log), 5))
		default:
		}
		if ping(s.Addr) {
			s.cmd, s.wait = cmd, wait
			return nil
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-wait
			return fmt.Errorf("redis-server on %s did not answer PING within 10s", s.Addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping reports whether a Redis server at addr answers PING with PONG (not with LOADING while
// it reads its AOF).
func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.TrimSpace(line) == "+PONG"
}

// freePort returns a port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(len(ls)-n, 0):], "\n")
}
