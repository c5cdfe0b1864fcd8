// Package testsite serves the multi-host test sites of testdata/ on loopback, for end-to-end
// tests and `make demo`. One listener serves every host: the Host header picks the directory
// (ROOT/HOST/PATH), so a crawl reaches it with --connect-to ::127.0.0.1:PORT.
//
// ROOT/_routes.txt may list special answers, one per line: `HOST PATH STATUS [LOCATION]`
// (a redirect, a 500, ...). A path ending in "/" serves its index.html.
//
// _routes.txt also guards paths and sets cookies, one rule per line (PATH ending in "*" is a
// prefix; every rule of a request applies, in file order):
//
//	HOST PATH basic USER PASSWORD   401 with a Basic challenge unless the request has them
//	HOST PATH bearer TOKEN          401 unless "Authorization: Bearer TOKEN"
//	HOST PATH set-cookie NAME=VALUE the answer sets the cookie (Path=/)
//	HOST PATH need-cookie NAME=VALUE 403 unless the request sends the cookie
//
// Every request to a site served from files is logged with its Authorization and Cookie
// headers (Requests), so a test can check which credentials went where.
package testsite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// route is a special answer from _routes.txt.
type route struct {
	status   int
	location string
}

// guard is an access or cookie rule from _routes.txt.
type guard struct {
	host, path string // path ending in "*": a prefix
	kind       string // basic, bearer, set-cookie, need-cookie
	args       []string
}

func (g guard) matches(host, p string) bool {
	if g.host != host {
		return false
	}
	if prefix, ok := strings.CutSuffix(g.path, "*"); ok {
		return strings.HasPrefix(p, prefix)
	}
	return g.path == p
}

// Request is one request the server received.
type Request struct {
	Host          string // without the port, lowercase
	URI           string // path and query
	Authorization string
	Cookie        string
}

// Server is a running test site.
type Server struct {
	Addr string // 127.0.0.1:PORT

	root   string
	routes map[string]route // "host path" -> answer
	guards []guard
	extra  map[string]http.Handler
	srv    *http.Server
	ln     net.Listener

	mu   sync.Mutex     // guards hits, reqs and extra
	hits map[string]int // "host path?query" -> requests
	reqs []Request
}

// Start serves root (a directory of host directories) on 127.0.0.1 on a free port.
func Start(root string) (*Server, error) {
	s := &Server{root: root, routes: map[string]route{}, extra: map[string]http.Handler{}, hits: map[string]int{}}
	if err := s.loadRoutes(filepath.Join(root, "_routes.txt")); err != nil {
		return nil, err
	}
	return s, s.listen("127.0.0.1:0")
}

// StartHandler serves an arbitrary handler (generated sites) with hit counting.
func StartHandler(h http.Handler) (*Server, error) {
	s := &Server{routes: map[string]route{}, extra: map[string]http.Handler{"": h}, hits: map[string]int{}}
	return s, s.listen("127.0.0.1:0")
}

// Handle makes host serve h instead of files (for hosts whose answers are computed).
// It may be called while the server serves.
func (s *Server) Handle(host string, h http.Handler) {
	s.mu.Lock()
	s.extra[host] = h
	s.mu.Unlock()
}

func (s *Server) listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("testsite: %w", err)
	}
	s.ln = ln
	s.Addr = ln.Addr().String()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return nil
}

// ConnectTo is the --connect-to value that sends every host and port to this server.
func (s *Server) ConnectTo() string {
	host, port, _ := net.SplitHostPort(s.Addr)
	return "::" + host + ":" + port
}

// Hits returns how often host served path (path may include a query).
func (s *Server) Hits(host, p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[host+" "+p]
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

func (s *Server) loadRoutes(p string) error {
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("testsite: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		if len(fs) < 3 {
			return fmt.Errorf("testsite: %s:%d: want HOST PATH STATUS [LOCATION] or HOST PATH RULE ARGS", p, n)
		}
		if want, ok := guardArgs[fs[2]]; ok {
			if len(fs)-3 != want {
				return fmt.Errorf("testsite: %s:%d: %s takes %d arguments", p, n, fs[2], want)
			}
			if strings.HasSuffix(fs[2], "cookie") && !strings.Contains(fs[3], "=") {
				return fmt.Errorf("testsite: %s:%d: %s wants NAME=VALUE", p, n, fs[2])
			}
			s.guards = append(s.guards, guard{host: fs[0], path: fs[1], kind: fs[2], args: fs[3:]})
			continue
		}
		code, err := strconv.Atoi(fs[2])
		if err != nil {
			return fmt.Errorf("testsite: %s:%d: %w", p, n, err)
		}
		r := route{status: code}
		if len(fs) > 3 {
			r.location = fs[3]
		}
		s.routes[fs[0]+" "+fs[1]] = r
	}
	return sc.Err()
}

// guardArgs are the rules of _routes.txt and their numbers of arguments.
var guardArgs = map[string]int{"basic": 2, "bearer": 1, "set-cookie": 1, "need-cookie": 1}

// guarded applies the guards of host and p: it answers 401 or 403 and returns true when one
// refuses, and sets the cookies of the set-cookie rules otherwise.
func (s *Server) guarded(w http.ResponseWriter, r *http.Request, host, p string) bool {
	for _, g := range s.guards {
		if !g.matches(host, p) {
			continue
		}
		switch g.kind {
		case "basic":
			if u, pw, ok := r.BasicAuth(); !ok || u != g.args[0] || pw != g.args[1] {
				w.Header().Set("WWW-Authenticate", `Basic realm="testsite"`)
				refuse(w, http.StatusUnauthorized)
				return true
			}
		case "bearer":
			if r.Header.Get("Authorization") != "Bearer "+g.args[0] {
				w.Header().Set("WWW-Authenticate", `Bearer realm="testsite"`)
				refuse(w, http.StatusUnauthorized)
				return true
			}
		case "need-cookie":
			name, value, _ := strings.Cut(g.args[0], "=")
			if c, err := r.Cookie(name); err != nil || c.Value != value {
				refuse(w, http.StatusForbidden)
				return true
			}
		case "set-cookie":
			name, value, _ := strings.Cut(g.args[0], "=")
			http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/"})
		}
	}
	return false
}

func refuse(w http.ResponseWriter, code int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", code, http.StatusText(code))
}

// ServeHTTP answers from routes, computed hosts, or files.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(host)
	s.mu.Lock()
	s.hits[host+" "+r.URL.RequestURI()]++
	if s.root != "" { // not the generated sites of the benchmarks: millions of requests
		s.reqs = append(s.reqs, Request{Host: host, URI: r.URL.RequestURI(),
			Authorization: r.Header.Get("Authorization"), Cookie: r.Header.Get("Cookie")})
	}
	h, ok := s.extra[host]
	if !ok {
		h, ok = s.extra[""]
	}
	s.mu.Unlock()

	if ok {
		h.ServeHTTP(w, r)
		return
	}
	if s.guarded(w, r, host, r.URL.Path) {
		return
	}
	if rt, ok := s.routes[host+" "+r.URL.Path]; ok {
		if rt.location != "" {
			w.Header().Set("Location", rt.location)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(rt.status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", rt.status, http.StatusText(rt.status))
		return
	}
	p := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") {
		p = path.Join(p, "index.html")
	}
	file := filepath.Join(s.root, host, filepath.FromSlash(p))
	data, err := os.ReadFile(file)
	if err != nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html><body><h1>404 Not Found</h1></body></html>\n")
		return
	}
	ct := mime.TypeByExtension(path.Ext(p))
	if ct == "" {
		ct = http.DetectContentType(data)
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
	w.Write(data)
}
