package ctl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"
)

// listen listens on the control socket in dir.
func listen(dir string, log *slog.Logger) (*net.UnixListener, error) {
	path := filepath.Join(dir, Socket)
	// The frontier's lock is held: no other crawl runs in dir, so a socket there is stale.
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
		log.Warn("replacing a control socket left by an earlier run", "path", path)
		os.Remove(path)
	}
	// Bound in a directory of its own (0700) and made 0600 before it is moved into place, so no
	// other user can connect at any moment.
	tmp, err := os.MkdirTemp(dir, ".control-")
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	defer os.RemoveAll(tmp)
	addr, done, err := socketAddr(tmp, Socket)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	done()
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(filepath.Join(tmp, Socket), 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Rename(filepath.Join(tmp, Socket), path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	return ln, nil
}

// serve accepts the socket's connections until it is closed.
func (s *Service) serve(ln *net.UnixListener) {
	for {
		conn, err := ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		s.stateMu.Lock()
		if s.closed {
			s.stateMu.Unlock()
			conn.Close()
			return
		}
		if s.conns == nil {
			s.conns = map[*net.UnixConn]bool{}
		}
		s.conns[conn] = false
		s.stateMu.Unlock()
		s.serving.Go(func() {
			s.handle(conn)
			s.stateMu.Lock()
			delete(s.conns, conn)
			s.stateMu.Unlock()
		})
	}
}

// handle answers the requests of one connection, one line each, until it is closed or idle.
func (s *Service) handle(conn *net.UnixConn) {
	defer conn.Close()
	who := peerUser(conn)
	r := bufio.NewReader(conn)
	for {
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return
		}
		if !s.setBusy(conn, true) {
			return // the socket stopped while the request came
		}
		var req Request
		var res Response
		if jerr := json.Unmarshal(line, &req); jerr != nil {
			res = Response{Error: "request is not a JSON object: " + jerr.Error(), BadRequest: true}
		} else {
			res = s.do(who, req)
		}
		b, _ := json.Marshal(res)
		_, werr := conn.Write(append(b, '\n'))
		if !s.setBusy(conn, false) || werr != nil || err != nil {
			return
		}
	}
}

// setBusy marks a connection as answering a request or idle; false once the socket has
// stopped (the connection is then done).
func (s *Service) setBusy(conn *net.UnixConn, busy bool) bool {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.closed {
		return false
	}
	s.conns[conn] = busy
	return true
}
