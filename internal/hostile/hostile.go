// Package hostile serves a web that misbehaves, for the tests that show a crawl survives it:
// stalls, redirect loops, lying framing, resets, a gzip bomb, an endless body, huge and
// malformed headers, HTTP/0.9, bad chunking, pages too large to hold in memory, robots.txt that
// fails, TLS faults, crawler traps and links to numeric spellings of the loopback address.
//
// One plain HTTP listener serves every case; the Host header picks it (CASE.hostile.test, see
// Hosts). Every host answers "/" with an index page that links "/case" (the misbehaving
// resource, documented on each Host constant) and then "/after" (a normal page), so a test can
// see that the crawl went on after the hostile resource. A TLS listener serves the same hosts
// over https with a self-signed certificate, and a second port accepts connections and never
// answers (a TLS handshake that stalls). A crawl reaches the hosts with ConnectTo's mappings.
//
// The server writes its answers byte by byte on the raw connection (no net/http), closes every
// connection after one response, and counts connections and requests per host and path.
package hostile

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Domain is the parent domain of every case host.
const Domain = "hostile.test"

// The case hosts (the first label; the full name is Host + "." + Domain). Unless said
// otherwise "/case" is the misbehaving resource and "/" and "/after" are normal pages.
const (
	// StallHeaders: /case reads the request and never answers.
	StallHeaders = "stall-headers"
	// StallBody: /case sends a 200 header announcing 100,000 bytes, 100 bytes of HTML, then
	// nothing more.
	StallBody = "stall-body"
	// Slow: /case sends a 200 header announcing 100,000 bytes, then one byte a second.
	Slow = "slow"
	// RedirectLoop: /case redirects (302) to /loop, which redirects back to /case.
	RedirectLoop = "redirect-loop"
	// RedirectChain: /case redirects to /hop/1, /hop/N to /hop/N+1, and /hop/30 is a page:
	// 30 redirects in a row.
	RedirectChain = "redirect-chain"
	// ShortBody: /case announces Content-Length 100,000, sends 1,000 bytes of HTML and closes.
	ShortBody = "short-body"
	// Reset: /case announces Content-Length 100,000, sends 1,000 bytes of HTML and resets the
	// connection (RST).
	Reset = "reset"
	// GzipBomb: /case is HTML with Content-Encoding gzip that inflates to Config.BombSize
	// bytes of zeros.
	GzipBomb = "gzip-bomb"
	// Endless: /case is a 200 text/html response without Content-Length whose body never
	// ends (HTML paragraphs until the client closes).
	Endless = "endless"
	// HugeHeader: /case answers 200 with a 2 MiB header field, then a short page.
	HugeHeader = "huge-header"
	// BadHeader: /case has header lines that are not fields (no colon, a folded line, a
	// space before the colon) among valid ones, and a valid short page.
	BadHeader = "bad-header"
	// BadStatus: /case answers with the status line "HTTP/1.1 2OO OK" (letters O).
	BadStatus = "bad-status"
	// HTTP09: /case answers HTTP/0.9 style: an HTML body with no status line and no header,
	// then closes.
	HTTP09 = "http09"
	// ChunkBadSize: /case is chunked: a valid chunk, then a chunk-size line that is not
	// hexadecimal ("zz"), more data and the last chunk.
	ChunkBadSize = "chunk-bad-size"
	// ChunkBadFirstSize: /case is chunked and its first chunk-size line is not hexadecimal.
	ChunkBadFirstSize = "chunk-bad-first-size"
	// ChunkLong: /case is chunked with a first chunk carrying more bytes than its size line
	// says, then the last chunk.
	ChunkLong = "chunk-long"
	// ChunkUnterminated: /case is chunked and closes after a valid data chunk, without the
	// last (zero-size) chunk.
	ChunkUnterminated = "chunk-unterminated"
	// ChunkShort: /case is chunked with one chunk announced as 1,024 bytes, of which 41 are
	// sent before the server closes.
	ChunkShort = "chunk-short"
	// ChunkExtensions: /case is valid chunked framing whose size lines carry chunk extensions
	// (";name=value", a quoted value, a name alone).
	ChunkExtensions = "chunk-extensions"
	// ChunkTrailers: /case is valid chunked framing with two trailer fields after the last
	// chunk.
	ChunkTrailers = "chunk-trailers"
	// ManyLinks: /case is a page of 7.4 MB with 200,000 links, to http://o.hostile.test/N
	// (Offsite, a host no seed names, so a crawl seeded with this host does not fetch them).
	ManyLinks = "many-links"
	// LongURL: /case links a same-host URL of 100,000 bytes (/long/xxx...) and then /after2.
	LongURL = "long-url"
	// DeepNesting: /case is a page of 100,000 nested <div> elements with a link in the
	// innermost one to /inner (a normal page).
	DeepNesting = "deep-nesting"
	// Robots500: /robots.txt answers 500.
	Robots500 = "robots-500"
	// RobotsStall: /robots.txt reads the request and never answers.
	RobotsStall = "robots-stall"
	// RobotsHuge: /robots.txt is 5 MiB: "User-agent: *", "Disallow: /private", then comments.
	// "/" also links /private.
	RobotsHuge = "robots-huge"
	// RobotsLoop: /robots.txt redirects to /robots2.txt, which redirects back, forever.
	RobotsLoop = "robots-loop"
	// TLSStall: reached over https, the connection is accepted and the handshake never
	// answered (ConnectTo maps this host's port 443 to the stall port).
	TLSStall = "tls-stall"
	// PlainOnTLS: reached over https, the server speaks plain HTTP: the ClientHello gets an
	// HTTP/1.1 400 answer (ConnectTo maps this host's port 443 to the plain port).
	PlainOnTLS = "plain-on-tls"
	// TLSOK: a normal host over https (self-signed certificate).
	TLSOK = "tls-ok"
	// Calendar: a calendar trap: /cal/Y/M/ links the next month, forever. "/" links
	// /cal/2026/11/.
	Calendar = "calendar"
	// PathTrap: a path trap: every /a/.../ page links a/ below itself, forever. "/" links /a/.
	PathTrap = "path-trap"
	// Loopback: /case links the loopback address spelled as numbers a browser reads as IPv4
	// (LoopbackSpellings), each with the server's plain port.
	Loopback = "loopback"
	// Offsite: the host of the ManyLinks links; it serves normal pages.
	Offsite = "o"
	// Normal: nothing hostile, "/" links /case and /after, both normal pages. A second seed
	// on this host shows that a crawl went on whatever the first one did.
	Normal = "normal"
)

// Hosts lists every case host (first labels), in a fixed order.
var Hosts = []string{
	StallHeaders, StallBody, Slow, RedirectLoop, RedirectChain, ShortBody, Reset, GzipBomb,
	Endless, HugeHeader, BadHeader, BadStatus, HTTP09, ChunkBadSize, ChunkBadFirstSize, ChunkLong,
	ChunkUnterminated, ChunkShort, ChunkExtensions, ChunkTrailers, ManyLinks, LongURL, DeepNesting, Robots500, RobotsStall, RobotsHuge,
	RobotsLoop, TLSStall, PlainOnTLS, TLSOK, Calendar, PathTrap, Loopback, Normal,
}

// LoopbackSpellings are host spellings of 127.0.0.1 that WHATWG URL parsing (and so every
// browser) reads as that IPv4 address: decimal, hexadecimal with a short form, the short
// form, and octal.
var LoopbackSpellings = []string{"2130706433", "0x7f.1", "127.1", "0177.0.0.1"}

// Sizes of the generated cases.
const (
	ManyLinksCount   = 200_000
	LongURLBytes     = 100_000
	NestingDepth     = 100_000
	HugeHeaderBytes  = 2 << 20
	RobotsHugeBytes  = 5 << 20
	ChainLength      = 30
	AnnouncedLength  = 100_000
	DefaultBombSize  = 1 << 30
	maxRequestHeader = 64 << 10
)

// Config configures a Server.
type Config struct {
	// BombSize is how many bytes the gzip bomb inflates to; rounded up to a whole MiB.
	// Default DefaultBombSize (1 GiB, about 1 MB on the wire). The bomb is built once, on
	// the first request for it.
	BombSize int64
}

// Server is a running hostile server.
type Server struct {
	Addr      string // plain HTTP, 127.0.0.1:PORT
	TLSAddr   string // https with a self-signed certificate, 127.0.0.1:PORT
	StallAddr string // accepts connections and never reads or writes, 127.0.0.1:PORT

	cfg       Config
	plain     net.Listener
	tls       net.Listener
	stall     net.Listener
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup

	bombOnce  sync.Once
	bomb      []byte
	linksOnce sync.Once
	links     []byte // the ManyLinks page
	deepOnce  sync.Once
	deep      []byte // the DeepNesting page

	mu    sync.Mutex          // guards conns, hits, open
	conns map[string]int      // listener name + " " + host of the first request ("" for none) -> connections
	hits  map[string]int      // "host path" -> requests
	open  map[net.Conn]string // connections open now, for Close
	total int                 // connections accepted on every listener
}

// Start serves the suite on three free ports of 127.0.0.1.
func Start(cfg Config) (*Server, error) {
	if cfg.BombSize < 0 {
		return nil, fmt.Errorf("hostile: negative BombSize")
	}
	if cfg.BombSize == 0 {
		cfg.BombSize = DefaultBombSize
	}
	s := &Server{cfg: cfg, done: make(chan struct{}), conns: map[string]int{}, hits: map[string]int{},
		open: map[net.Conn]string{}}
	cert, err := selfSigned()
	if err != nil {
		return nil, err
	}
	var lns []net.Listener
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			return nil, fmt.Errorf("hostile: listen: %w", err)
		}
		lns = append(lns, ln)
	}
	s.plain, s.stall = lns[0], lns[2]
	s.tls = tls.NewListener(lns[1], &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	s.Addr, s.TLSAddr, s.StallAddr = lns[0].Addr().String(), lns[1].Addr().String(), lns[2].Addr().String()
	s.wg.Add(3)
	go s.serve(s.plain, "plain")
	go s.serve(s.tls, "tls")
	go s.serve(s.stall, "stall")
	return s, nil
}

// Host returns the full name of a case host: Host(Slow) is "slow.hostile.test".
func Host(name string) string { return name + "." + Domain }

// URL returns the http URL of path on a case host ("https" for TLSStall, PlainOnTLS and TLSOK).
func URL(name, path string) string {
	scheme := "http"
	switch name {
	case TLSStall, PlainOnTLS, TLSOK:
		scheme = "https"
	}
	return scheme + "://" + Host(name) + path
}

// ConnectTo returns curl --connect-to mappings (HOST:PORT:ADDR:PORT) that send every case
// host, and Offsite, to this server: port 80 to the plain listener, and port 443
// of TLSOK to the TLS listener, of TLSStall to the stall port, of PlainOnTLS to the plain
// listener. There is no catch-all: any other host (a numeric spelling of the loopback
// address, say) is dialled as it is.
func (s *Server) ConnectTo() []string {
	plainHost, plainPort, _ := net.SplitHostPort(s.Addr)
	_, tlsPort, _ := net.SplitHostPort(s.TLSAddr)
	_, stallPort, _ := net.SplitHostPort(s.StallAddr)
	var out []string
	for _, h := range append(append([]string(nil), Hosts...), Offsite) {
		port, to := "80", plainPort
		switch h {
		case TLSOK:
			port, to = "443", tlsPort
		case TLSStall:
			port, to = "443", stallPort
		case PlainOnTLS:
			port = "443"
		}
		out = append(out, Host(h)+":"+port+":"+plainHost+":"+to)
	}
	return out
}

// Conns returns how many connections the server accepted on all its ports.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// HostConns returns how many connections brought a first request for host (a full name, as
// sent in the Host header without port) on the plain or the TLS listener; "" counts the
// connections that sent no parsable request.
func (s *Server) HostConns(host string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns["plain "+host] + s.conns["tls "+host]
}

// StallConns returns how many connections the stall port accepted.
func (s *Server) StallConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns["stall "]
}

// Hits returns how many requests for path (with its query, as sent) host received.
func (s *Server) Hits(host, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[host+" "+path]
}

// Close stops the listeners, closes every open connection (ending every stall) and waits for
// the connection goroutines to end.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		s.plain.Close()
		s.tls.Close()
		s.stall.Close()
		s.mu.Lock()
		for c := range s.open {
			c.Close()
		}
		s.mu.Unlock()
	})
	s.wg.Wait()
	return nil
}

func (s *Server) serve(ln net.Listener, name string) {
	defer s.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		select {
		case <-s.done:
			s.mu.Unlock()
			c.Close()
			return
		default:
		}
		s.total++
		s.open[c] = name
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.open, c)
				s.mu.Unlock()
				c.Close()
			}()
			if name == "stall" {
				s.count(name, "")
				s.stallConn(c)
				return
			}
			s.handle(c, name)
		}()
	}
}

func (s *Server) count(listener, host string) {
	s.mu.Lock()
	s.conns[listener+" "+host]++
	s.mu.Unlock()
}

// request is what the server reads of a request: the target and the Host header.
type request struct {
	host string // lowercase, without port
	path string // the request target as sent
}

// readRequest reads one request head. A head that is not HTTP/1.x (a TLS ClientHello on the
// plain port, say) is an error.
func readRequest(br *bufio.Reader) (request, error) {
	var r request
	n := 0
	first := true
	for {
		line, err := br.ReadSlice('\n')
		n += len(line)
		if err != nil {
			return r, fmt.Errorf("hostile: read request: %w", err)
		}
		if n > maxRequestHeader {
			return r, errors.New("hostile: request header too large")
		}
		l := strings.TrimRight(string(line), "\r\n")
		if first {
			first = false
			f := strings.Fields(l)
			if len(f) != 3 || !strings.HasPrefix(f[2], "HTTP/1.") {
				return r, fmt.Errorf("hostile: bad request line %q", l)
			}
			r.path = f[1]
			continue
		}
		if l == "" {
			return r, nil
		}
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, "Host") {
			h := strings.ToLower(strings.TrimSpace(v))
			if hh, _, err := net.SplitHostPort(h); err == nil {
				h = hh
			}
			r.host = h
		}
	}
}

func (s *Server) handle(c net.Conn, listener string) {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	r, err := readRequest(br)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		s.count(listener, "")
		// What a plain HTTP server says to bytes that are not a request (a TLS ClientHello).
		c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nConnection: close\r\n\r\nBad Request\n"))
		return
	}
	s.count(listener, r.host)
	s.mu.Lock()
	s.hits[r.host+" "+r.path]++
	s.mu.Unlock()
	bw := bufio.NewWriterSize(c, 64<<10)
	s.route(c, bw, r)
	bw.Flush()
}

// stallConn holds a connection open, reading and discarding, until the client or Close ends
// it.
func (s *Server) stallConn(c net.Conn) {
	go func() {
		<-s.done
		c.Close()
	}()
	buf := make([]byte, 4096)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

// sleep waits d or until Close; it reports whether the server is still running.
func (s *Server) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.done:
		return false
	}
}

func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("hostile: generate key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "*." + Domain},
		DNSNames:     []string{"*." + Domain},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("hostile: create certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// head writes a status line and header fields (with Connection: close).
func head(bw *bufio.Writer, status string, fields ...string) {
	bw.WriteString("HTTP/1.1 " + status + "\r\n")
	for _, f := range fields {
		bw.WriteString(f + "\r\n")
	}
	bw.WriteString("Connection: close\r\n\r\n")
}

// page writes a complete response.
func page(bw *bufio.Writer, status, ctype string, body []byte) {
	head(bw, status, "Content-Type: "+ctype, "Content-Length: "+strconv.Itoa(len(body)))
	bw.Write(body)
}

func html(bw *bufio.Writer, body string) {
	page(bw, "200 OK", "text/html; charset=utf-8", []byte("<!doctype html><html><head><title>hostile</title></head><body>"+body+"</body></html>\n"))
}

func redirect(bw *bufio.Writer, to string) {
	head(bw, "302 Found", "Location: "+to, "Content-Length: 0")
}

// filler returns n bytes of HTML text.
func filler(n int) []byte {
	b := bytes.Repeat([]byte("<p>hostile filler text</p>\n"), n/27+1)
	return b[:n]
}

// resetConn makes Close send a RST instead of a FIN.
func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
}
