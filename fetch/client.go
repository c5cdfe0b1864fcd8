// Package fetch is amber's recording HTTP/1.1 client, the only code of the crawler that talks
// to the sites it crawls: the plain fetcher's requests and every request Chromium makes for
// the browser fetcher go through it (the frontier's Redis server and live control's socket
// are packages redisfront and ctl). Each Do returns an Exchange holding the exact request and
// response bytes as they crossed the wire, for WARC records. It also holds the crawl's one
// name resolution (Resolver, with the --connect-to host mapping) that the address guard and
// package addrgate use, the cookie jars, and the robots.txt parser and cache.
package fetch

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/weburl"
)

// Request is one request to make.
type Request struct {
	URL    string // absolute http or https URL; a fragment is ignored
	Method string // "" means GET
	// Header holds extra request headers (Referer, Cookie, ...), written in sorted order
	// after the client's own. The client writes Host, Accept-Encoding: gzip and
	// Connection: keep-alive itself (values given here for those, and for Content-Length,
	// Transfer-Encoding, TE, Trailer, Upgrade, Keep-Alive, Proxy-Connection and
	// Proxy-Authorization, are ignored); User-Agent and Accept default to Config.UserAgent
	// and "*/*" unless set here. A field set here replaces the same field of
	// Config.OriginHeader and Config.Header; an Authorization or Cookie here is sent instead
	// of Config.Auth's or Config.Jar's.
	Header http.Header
	// Body is sent after the header with its Content-Length (a form's
	// application/x-www-form-urlencoded fields, say: set Content-Type in Header). A POST,
	// PUT or PATCH without one is sent "Content-Length: 0". Exchange.Request holds it.
	Body []byte
	// Admit, when set, is asked by a fetcher that makes requests of its own for the URL (a
	// browser's subresources and the redirects it follows; Client makes none) about each of
	// them before it is sent; a request it gives a reason for is not made (Result.Blocked).
	Admit Admit
	// FetchBody, when set, is asked whether to read the body of the final response once its
	// head has arrived, with its status and header fields (which it must not change); only for
	// a response that has a body by its framing (not a HEAD's, 1xx, 204 or 304), and not for
	// a 401 whose challenge Client answers (Exchange.Challenge is read whole). When it says
	// no, the body is not read and the connection is closed: the exchange holds the response's
	// head alone (Exchange.BodyNotFetched). A browser's requests of its own do not carry it.
	// Heritrix's FetchHTTP shouldFetchBodyRule.
	FetchBody func(status int, header http.Header) bool
}

// Client is the recording HTTP/1.1 client. It is safe for concurrent use.
type Client struct {
	cfg          Config
	auth         *authTable        // Config.Auth; nil without credentials
	header       fields            // Config.Header
	originHeader map[string]fields // Config.OriginHeader by origin key
	proxy        *proxy            // Config.Proxy; nil without a proxy
	dialer       net.Dialer
	// lookup resolves host names; tests replace it so that no test leaves 127.0.0.1.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)

	mu     sync.Mutex         // guards idle and closed
	idle   map[string][]*conn // keep-alive connections by poolKey, most recent last
	closed bool
}

// conn is one connection to a server.
type conn struct {
	nc        net.Conn
	br        *bufio.Reader
	key       string
	remoteIP  string
	tls       *TLSInfo
	idleSince time.Time
}

const maxIdleTime = 60 * time.Second

// MaxRequestLine bounds the request line the client sends (method, request target and
// version): 64 KiB. Do refuses a longer one as an InvalidURL error, without connecting.
// Servers refuse much shorter lines (8 KiB is common), and the crawl's scope refuses URLs
// longer than its own limit (2,083 characters by default) before they get here: this bound
// only keeps a runaway URL off the wire.
const MaxRequestLine = 64 << 10

// NewClient validates cfg, applies the defaults and returns a Client.
func NewClient(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, idle: map[string][]*conn{}}
	if c.auth, err = newAuthTable(cfg.Auth); err != nil {
		return nil, err
	}
	if c.header, err = configFields(cfg.Header, "Header"); err != nil {
		return nil, err
	}
	if c.originHeader, err = originFields(cfg.OriginHeader); err != nil {
		return nil, err
	}
	if cfg.Proxy != nil {
		if c.proxy, err = parseProxy(cfg.Proxy); err != nil {
			return nil, err
		}
	}
	c.dialer = net.Dialer{KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivate {
		c.dialer.Control = guardControl
	}
	c.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	return c, nil
}

// Close closes the idle connections. A Client may still be used after Close, but it no
// longer keeps connections alive.
func (c *Client) Close() error {
	c.mu.Lock()
	idle := c.idle
	c.idle = map[string][]*conn{}
	c.closed = true
	c.mu.Unlock()
	for _, cs := range idle {
		for _, cn := range cs {
			cn.nc.Close()
		}
	}
	return nil
}

// target is a prepared request.
type target struct {
	url        string
	method     string
	scheme     string
	hostname   string // lowercase ASCII, unbracketed
	port       string
	dialHost   string
	dialPort   string
	serverName string
	origin     string   // origin key, as parseOrigin makes it
	reqTarget  string   // the request target (path and query) as sent
	auth       string   // the Authorization value the client sends ("": none)
	ownAuth    bool     // the request has its own Authorization (its header or user info)
	jarURL     *url.URL // the URL as the cookie jar sees it (normalised host)
	key        string
	request    []byte
	fetchBody  func(int, http.Header) bool // Request.FetchBody
}

// Do performs one request. No redirect is followed (a 3xx is a result) and any HTTP status
// is a result with a nil error. The host is read as browsers read it (weburl.Host): a numeric
// spelling of an IPv4 address ("http://2130706433/", "http://0x7f.1/", "http://127.1/") is
// that address, dialled directly (through the address guard) and sent as Host: 127.0.0.1; a
// host that ends in a number but is no IPv4 address ("http://1.2.3.4.5/") is an InvalidURL
// error, as is a request line longer than MaxRequestLine. A response cut short after its header arrived is a result
// with Truncated set. When there is no response at all the error is an *Error. A 401 whose
// Basic challenge names the realm of a Config.Auth credential covering the URL is answered:
// the request is sent once more with it, and that exchange is returned with the 401 as its
// Challenge (when the second request gets no response, the 401 is returned).
func (c *Client) Do(ctx context.Context, req Request) (*Exchange, error) {
	t, err := c.prepare(req, "")
	if err != nil {
		return nil, &Error{Kind: InvalidURL, URL: req.URL, Err: err}
	}
	ex, err := c.do(ctx, t)
	if err != nil {
		return ex, err
	}
	// A challenge for a realm of Config.Auth: answered once, and remembered for the
	// directory of the URL.
	value, ok := c.challengeAnswer(t, ex.StatusCode, ex.Header)
	if !ok {
		return ex, nil
	}
	t2, err := c.prepare(req, value)
	if err != nil {
		return ex, nil
	}
	again, err := c.do(ctx, t2)
	if err != nil {
		if ctx.Err() != nil {
			ex.Close()
			return nil, err
		}
		return ex, nil // the 401 is the answer there is
	}
	again.Challenge = ex
	if again.StatusCode != http.StatusUnauthorized {
		c.auth.learn(t.origin, t.reqTarget, value)
	}
	return again, nil
}

// challengeAnswer returns the Authorization value Do answers a response to t with: a 401
// whose Basic challenge names the realm of a Config.Auth credential covering the URL, when t
// had no Authorization of its own and sent another value; ok is false for any other response.
func (c *Client) challengeAnswer(t *target, status int, h http.Header) (value string, ok bool) {
	if status != http.StatusUnauthorized || t.ownAuth || !c.authAllowed(t) {
		return "", false
	}
	value, ok = c.auth.answer(t.origin, t.reqTarget, h.Values("WWW-Authenticate"))
	return value, ok && value != t.auth
}

// authAllowed reports whether Config.Auth credentials may go with t: over https, or over
// http with HTTPAuthAllowed.
func (c *Client) authAllowed(t *target) bool {
	return t.scheme == "https" || c.cfg.HTTPAuthAllowed
}

// do performs one prepared request.
func (c *Client) do(ctx context.Context, t *target) (*Exchange, error) {
	start := time.Now()
	deadline := start.Add(c.cfg.ResponseTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for attempt := 0; ; attempt++ {
		cn, reused, err := c.getConn(ctx, t, deadline)
		if err != nil {
			return nil, err
		}
		if reused { // a new connection was checked when it was dialled
			if err := c.checkAddr(t, cn); err != nil {
				c.putIdle(cn) // nothing was written on it
				return nil, err
			}
		}
		ex, retry, err := c.roundTrip(ctx, cn, t, deadline)
		if retry && reused && attempt == 0 {
			continue // the server closed an idle connection; try a fresh one
		}
		return ex, err
	}
}

// prepare checks req and writes its request. answer, when not "", is the Authorization
// value of a realm credential answering a challenge, sent in place of Config.Auth's.
func (c *Client) prepare(req Request, answer string) (*target, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password; *Error has it
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	t := &target{url: req.URL, method: req.Method, fetchBody: req.FetchBody}
	if t.method == "" {
		t.method = http.MethodGet
	}
	if !validToken(t.method) {
		return nil, fmt.Errorf("%w: method %q", ErrInvalidURL, t.method)
	}
	host := ""
	if t.scheme, host, t.port, err = originParts(u); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	t.hostname = host
	t.origin = originKey(t.scheme, host, t.port)
	hostHeader := bracket(host)
	if t.port != weburl.DefaultPort(t.scheme) {
		hostHeader += ":" + t.port
	}

	t.dialHost, t.dialPort = host, t.port
	for _, m := range c.cfg.ConnectTo {
		if m.matches(host, t.port) {
			if m.ToHost != "" {
				t.dialHost = strings.ToLower(m.ToHost)
			}
			if m.ToPort != "" {
				t.dialPort = m.ToPort
			}
			break
		}
	}
	if t.scheme == "https" {
		t.serverName = host
	}
	if c.proxy != nil {
		// A tunnel leads to one origin whatever address the proxy reached it at.
		t.key = "proxy|" + t.scheme + "|" + net.JoinHostPort(host, t.port) + "|" + t.serverName
	} else {
		t.key = t.scheme + "|" + net.JoinHostPort(t.dialHost, t.dialPort) + "|" + t.serverName
	}

	target := requestTarget(u)
	if !strings.HasPrefix(target, "/") {
		return nil, fmt.Errorf("%w: path %q", ErrInvalidURL, u.EscapedPath())
	}
	t.reqTarget = target
	if n := len(t.method) + 1 + len(target) + len(" HTTP/1.1"); n > MaxRequestLine {
		return nil, fmt.Errorf("%w: request line of %d bytes, over %d", ErrInvalidURL, n, MaxRequestLine)
	}
	if c.cfg.Jar != nil {
		t.jarURL = &url.URL{Scheme: t.scheme, Host: hostHeader, Path: u.Path, RawPath: u.RawPath}
	}

	b := make([]byte, 0, 256)
	b = append(b, t.method...)
	b = append(b, ' ')
	b = append(b, target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, hostHeader...)
	b = append(b, "\r\n"...)
	switch {
	case u.User != nil:
		pw, _ := u.User.Password()
		t.auth, t.ownAuth = basicValue(u.User.Username(), pw), true
	case hasField(req.Header, "Authorization"):
		t.ownAuth = true
	case !c.authAllowed(t):
	case answer != "":
		t.auth = answer
	default:
		t.auth = c.auth.aheadValue(t.origin, t.reqTarget)
	}
	if t.request, err = c.appendHeader(b, t, req); err != nil {
		return nil, err
	}
	t.request = append(t.request, req.Body...)
	return t, nil
}

// hasField reports whether h has the field name (canonical) under any spelling.
func hasField(h http.Header, name string) bool {
	for k := range h {
		if http.CanonicalHeaderKey(k) == name {
			return true
		}
	}
	return false
}

// clientOwned header fields are written by the client (or never sent).
var clientOwned = map[string]bool{
	"Host": true, "User-Agent": true, "Accept-Encoding": true, "Connection": true,
	"Content-Length": true, "Transfer-Encoding": true, "Te": true, "Trailer": true,
	"Upgrade": true, "Keep-Alive": true, "Proxy-Connection": true, "Proxy-Authorization": true,
}

func appendField(b []byte, k, v string) []byte {
	b = append(b, k...)
	b = append(b, ": "...)
	b = append(b, v...)
	return append(b, "\r\n"...)
}

// validToken reports whether s is an RFC 9110 token (method, field name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue rejects control characters other than HTAB (CR/LF would split the
// request).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// getConn returns an idle connection for t or dials a new one.
func (c *Client) getConn(ctx context.Context, t *target, deadline time.Time) (*conn, bool, error) {
	if cn := c.takeIdle(t.key); cn != nil {
		return cn, true, nil
	}
	cn, err := c.dial(ctx, t, deadline)
	return cn, false, err
}

func (c *Client) takeIdle(key string) *conn {
	now := time.Now()
	var stale []*conn
	var found *conn
	c.mu.Lock()
	cs := c.idle[key]
	for len(cs) > 0 {
		cn := cs[len(cs)-1]
		cs = cs[:len(cs)-1]
		if now.Sub(cn.idleSince) > maxIdleTime {
			stale = append(stale, cn)
			continue
		}
		found = cn
		break
	}
	if len(cs) == 0 {
		delete(c.idle, key)
	} else {
		c.idle[key] = cs
	}
	c.mu.Unlock()
	for _, cn := range stale {
		cn.nc.Close()
	}
	return found
}

func (c *Client) putIdle(cn *conn) {
	cn.idleSince = time.Now()
	cn.nc.SetDeadline(time.Time{})
	c.mu.Lock()
	if c.closed || c.cfg.MaxIdlePerHost < 0 || len(c.idle[cn.key]) >= c.cfg.MaxIdlePerHost {
		c.mu.Unlock()
		cn.nc.Close()
		return
	}
	c.idle[cn.key] = append(c.idle[cn.key], cn)
	c.mu.Unlock()
}

// dial resolves, connects (through the address guard), opens a tunnel through the proxy if
// there is one and, for https, handshakes.
func (c *Client) dial(ctx context.Context, t *target, deadline time.Time) (*conn, error) {
	fail := func(k ErrorKind, err error) (*conn, error) {
		return nil, &Error{Kind: k, URL: t.url, Err: err}
	}
	connectBy := time.Now().Add(c.cfg.ConnectTimeout)
	if deadline.Before(connectBy) {
		connectBy = deadline
	}
	dctx, cancel := context.WithDeadline(ctx, connectBy)
	defer cancel()

	dialHost, dialPort := t.dialHost, t.dialPort
	if c.proxy != nil {
		if ip, err := netip.ParseAddr(t.hostname); err == nil && !c.cfg.AllowPrivate && addrBlocked(ip) {
			// The proxy would connect to it for us: refuse it as if it were dialled.
			return fail(Blocked, fmt.Errorf("%w: %s", ErrBlocked, ip))
		}
		dialHost, dialPort = c.proxy.host, c.proxy.port
		inner := fail
		fail = func(k ErrorKind, err error) (*conn, error) {
			return inner(k, fmt.Errorf("proxy %s: %w", c.proxy.addr, err))
		}
	}

	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(dialHost); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		addrs, err = c.lookup(dctx, dialHost)
		if err != nil {
			if k, ok := ctxKind(ctx, nil); ok {
				return fail(k, err)
			}
			return fail(DNS, err)
		}
		if len(addrs) == 0 {
			return fail(DNS, fmt.Errorf("fetch: no addresses for %s", dialHost))
		}
	}

	var nc net.Conn
	var errs []error
	allBlocked := true
	for _, ip := range addrs {
		var err error
		nc, err = c.dialer.DialContext(dctx, "tcp", net.JoinHostPort(ip.Unmap().String(), dialPort))
		if err == nil {
			break
		}
		errs = append(errs, err)
		if !errors.Is(err, ErrBlocked) {
			allBlocked = false
		}
		if dctx.Err() != nil {
			break
		}
	}
	if nc == nil {
		err := errors.Join(errs...)
		if allBlocked {
			return fail(Blocked, err)
		}
		if k, ok := ctxKind(ctx, nil); ok {
			return fail(k, err)
		}
		return fail(Connect, err)
	}
	cn := &conn{nc: nc, key: t.key}
	if ap, err := netip.ParseAddrPort(nc.RemoteAddr().String()); err == nil {
		cn.remoteIP = ap.Addr().Unmap().WithZone("").String()
	}
	if err := c.checkAddr(t, cn); err != nil {
		nc.Close() // refused before the TLS handshake
		return nil, err
	}
	if c.proxy != nil {
		if err := c.tunnel(dctx, ctx, cn, t); err != nil {
			cn.nc.Close()
			return nil, err
		}
	}
	if t.scheme == "https" {
		if err := c.handshake(dctx, ctx, cn, t); err != nil {
			nc.Close()
			return nil, err
		}
	}
	cn.br = bufio.NewReaderSize(cn.nc, 16<<10)
	return cn, nil
}

// ctxKind classifies an error that happened because a context ended: Canceled when the
// caller canceled, Timeout when a deadline passed.
func ctxKind(ctx, inner context.Context) (ErrorKind, bool) {
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.Canceled) {
			return Canceled, true
		}
		return Timeout, true
	}
	if inner != nil && inner.Err() != nil {
		return Timeout, true
	}
	return 0, false
}

func (c *Client) handshake(dctx, ctx context.Context, cn *conn, t *target) error {
	info := &TLSInfo{}
	cfg := &tls.Config{
		ServerName:         t.serverName,
		InsecureSkipVerify: true, // verified below, so that the outcome can be recorded
		NextProtos:         []string{"http/1.1"},
		MinVersion:         tls.VersionTLS10,
		CipherSuites:       allCipherSuites,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if c.cfg.ClientCert != nil {
				return c.cfg.ClientCert, nil
			}
			return &tls.Certificate{}, nil // none: the server decides whether that will do
		},
		VerifyConnection: func(cs tls.ConnectionState) error {
			err := verifyChain(cs, t.hostname, c.cfg.RootCAs)
			info.Verified = err == nil
			if err != nil {
				info.VerifyError = err.Error()
				if c.cfg.VerifyTLS {
					return err
				}
			}
			return nil
		},
	}
	tc := tls.Client(cn.nc, cfg)
	if err := tc.HandshakeContext(dctx); err != nil {
		if k, ok := ctxKind(ctx, dctx); ok {
			return &Error{Kind: k, URL: t.url, Err: err}
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return &Error{Kind: Timeout, URL: t.url, Err: err}
		}
		return &Error{Kind: TLS, URL: t.url, Err: err}
	}
	st := tc.ConnectionState()
	info.Version = tls.VersionName(st.Version)
	info.CipherSuite = tls.CipherSuiteName(st.CipherSuite)
	cn.nc = tc
	cn.tls = info
	return nil
}

// allCipherSuites offers the insecure suites too: an archive wants the capture, and the
// session parameters are recorded in TLSInfo.
var allCipherSuites = func() []uint16 {
	var ids []uint16
	for _, s := range tls.CipherSuites() {
		ids = append(ids, s.ID)
	}
	for _, s := range tls.InsecureCipherSuites() {
		ids = append(ids, s.ID)
	}
	return ids
}()

func verifyChain(cs tls.ConnectionState, host string, roots *x509.CertPool) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("fetch: no peer certificate")
	}
	opts := x509.VerifyOptions{Roots: roots, DNSName: host, Intermediates: x509.NewCertPool()}
	for _, ic := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(ic)
	}
	_, err := cs.PeerCertificates[0].Verify(opts)
	return err
}

// roundTrip writes the request and reads the response on cn. retry is true when nothing at
// all came back on the connection (a stale keep-alive connection).
func (c *Client) roundTrip(ctx context.Context, cn *conn, t *target, deadline time.Time) (ex *Exchange, retry bool, err error) {
	stop := context.AfterFunc(ctx, func() { cn.nc.SetDeadline(time.Unix(1, 0)) })
	reusable := false
	defer func() {
		if !stop() || !reusable {
			cn.nc.Close()
			return
		}
		c.putIdle(cn)
	}()

	ex = c.newExchange(cn, t)
	raw := ex.raw // a failed return sets ex to nil before the deferred calls
	ok := false
	defer func() {
		if !ok {
			raw.remove()
		}
	}()
	start := time.Now()
	ex.Started = start.UTC()
	if retry, err = c.send(ctx, cn, t, start, deadline); err != nil {
		return nil, retry, err
	}
	cn.nc.SetReadDeadline(deadline)

	w := &wire{br: cn.br, rec: raw, limit: c.cfg.MaxResponseSize}
	h, err := readFinalHead(ctx, w, t.url)
	if err != nil {
		return nil, false, err
	}
	if c.cfg.Jar != nil {
		// Before the body: its cookies count whatever becomes of the body.
		storeCookies(c.cfg.Jar, t.jarURL, h.header)
	}
	ex.StatusCode = h.status
	ex.Proto = h.proto
	ex.Header = h.header
	ex.bodyStart = raw.size
	f := bodyFraming(t.method, h)
	ex.chunked = f.chunked

	complete := false
	if c.refusesBody(t, f, h) {
		// Left unread: the connection is closed under whatever of the body is on its way.
		ex.BodyNotFetched, ex.NotFetchedSize = true, f.length
	} else {
		var berr error
		if complete, berr = w.readBody(f); !complete {
			if ex.Truncated, err = truncation(ctx, t.url, berr); err != nil {
				return nil, false, err
			}
		}
	}
	if err := raw.finish(); err != nil {
		return nil, false, err
	}
	ex.Duration = time.Since(start)
	reusable = complete && f.keepAlive && cn.br.Buffered() == 0 && ctx.Err() == nil
	ok = true
	return ex, false, nil
}

// refusesBody reports whether t's Request.FetchBody refuses the body of the response whose
// head is h and framing f: asked about a response that has a body, unless it is a challenge
// Do answers.
func (c *Client) refusesBody(t *target, f framing, h *head) bool {
	if f.noBody || t.fetchBody == nil {
		return false
	}
	if _, answered := c.challengeAnswer(t, h.status, h.header); answered {
		return false
	}
	return !t.fetchBody(h.status, h.header)
}

// newExchange returns the exchange of t's request on cn, before the request is sent: its
// bytes and the response's are recorded in a rawStore that spills to a file in
// Config.TempDir above Config.SpillThreshold.
func (c *Client) newExchange(cn *conn, t *target) *Exchange {
	ex := &Exchange{
		URL:      t.url,
		Method:   t.method,
		Request:  t.request,
		RemoteIP: cn.remoteIP,
		maxBody:  c.cfg.MaxResponseSize,
		raw:      &rawStore{threshold: c.cfg.SpillThreshold, dir: c.cfg.TempDir},
	}
	if cn.tls != nil {
		info := *cn.tls
		ex.TLS = &info
	}
	return ex
}

// send writes t's request on cn and waits for the first byte of the response, until
// Config.FirstByteTimeout after start or deadline, whichever is first. The error is an
// *Error; retry is true when the connection broke before anything came back on it.
func (c *Client) send(ctx context.Context, cn *conn, t *target, start, deadline time.Time) (retry bool, err error) {
	firstBy := start.Add(c.cfg.FirstByteTimeout)
	if deadline.Before(firstBy) {
		firstBy = deadline
	}
	cn.nc.SetDeadline(firstBy)
	if _, err := cn.nc.Write(t.request); err != nil {
		if k, ok := ctxKind(ctx, nil); ok {
			return false, &Error{Kind: k, URL: t.url, Err: err}
		}
		if isTimeout(err) {
			return false, &Error{Kind: Timeout, URL: t.url, Err: err}
		}
		return true, &Error{Kind: Broken, URL: t.url, Err: err}
	}
	if _, err := cn.br.Peek(1); err != nil {
		if k, ok := ctxKind(ctx, nil); ok {
			return false, &Error{Kind: k, URL: t.url, Err: err}
		}
		if isTimeout(err) {
			err = fmt.Errorf("no first byte within %v: %w", c.cfg.FirstByteTimeout, err)
			return false, &Error{Kind: Timeout, URL: t.url, Err: err}
		}
		return true, &Error{Kind: Broken, URL: t.url, Err: err}
	}
	return false, nil
}

// readFinalHead reads the head of the final response from w: interim (1xx) responses other
// than 101 are recorded and passed over, at most 10 of them, and all the heads together
// within MaxHeaderBytes. The error is ErrSpill, or an *Error for rawURL.
func readFinalHead(ctx context.Context, w *wire, rawURL string) (*head, error) {
	fail := func(k ErrorKind, err error) (*head, error) {
		return nil, &Error{Kind: k, URL: rawURL, Err: err}
	}
	budget := MaxHeaderBytes
	for interim := 0; ; interim++ {
		h, err := w.readHead(&budget)
		if err != nil {
			if k, ok := ctxKind(ctx, nil); ok {
				return fail(k, err)
			}
			switch {
			case errors.Is(err, ErrSpill):
				return nil, err
			case isTimeout(err):
				return fail(Timeout, err)
			case errors.Is(err, ErrHeaderTooLarge), errors.Is(err, ErrMalformed):
				return fail(Protocol, err)
			}
			return fail(Broken, err)
		}
		if h.status >= 200 || h.status == http.StatusSwitchingProtocols {
			return h, nil
		}
		if interim == 10 {
			return fail(Protocol, fmt.Errorf("%w: too many interim responses", ErrMalformed))
		}
	}
}

// truncation returns why err cut a response's body short, as Exchange.Truncated says it
// ("length", "time", "unspecified" or "disconnect"), or the error that leaves no exchange at
// all: ErrSpill, or a Canceled *Error for rawURL when the request was canceled.
func truncation(ctx context.Context, rawURL string, err error) (string, error) {
	if errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled) {
		return "", &Error{Kind: Canceled, URL: rawURL, Err: err}
	}
	switch {
	case errors.Is(err, ErrSpill):
		return "", err
	case errors.Is(err, errLimit):
		return "length", nil
	case isTimeout(err) || ctx.Err() != nil:
		return "time", nil
	case errors.Is(err, ErrMalformed):
		return "unspecified", nil
	}
	return "disconnect", nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
