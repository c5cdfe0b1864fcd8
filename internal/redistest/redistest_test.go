package redistest

import (
	"bufio"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// do sends one inline command to addr and returns the first line of the reply.
func do(t *testing.T, addr, cmd string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "$") && line != "$-1" {
		if line, err = r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSpace(line)
	}
	return line
}

func TestRestartKeepsWrites(t *testing.T) {
	tests := []struct {
		name string
		sig  syscall.Signal
		wait time.Duration // after the write, before the signal
	}{
		{"SIGTERM", syscall.SIGTERM, 0},
		// everysec: a write is fsynced within about a second.
		{"SIGKILL after 1.5s", syscall.SIGKILL, 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t)
			if got := do(t, s.Addr, "SET k v1"); got != "+OK" {
				t.Fatalf("SET = %q", got)
			}
			time.Sleep(tt.wait)
			s.Stop(tt.sig)
			if ping(s.Addr) {
				t.Fatal("server answers after Stop")
			}
			s.Restart()
			if got := do(t, s.Addr, "GET k"); got != "v1" {
				t.Errorf("GET k after restart = %q, want v1", got)
			}
		})
	}
}

func TestURL(t *testing.T) {
	s := &Server{Addr: "127.0.0.1:6390"}
	if got, want := s.URL(3), "redis://127.0.0.1:6390/3"; got != want {
		t.Errorf("URL(3) = %q, want %q", got, want)
	}
}
