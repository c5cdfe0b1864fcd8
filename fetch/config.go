package fetch

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults applied by NewClient to zero Config fields.
const (
	DefaultConnectTimeout   = 10 * time.Second
	DefaultFirstByteTimeout = 30 * time.Second
	DefaultResponseTimeout  = 3 * time.Minute
	DefaultMaxResponseSize  = 100 << 20
	DefaultSpillThreshold   = 1 << 20
	DefaultMaxIdlePerHost   = 4
)

// MaxHeaderBytes bounds the response header section (status line, header lines and any
// interim 1xx responses). A larger header is a Protocol error.
const MaxHeaderBytes = 1 << 20

// Config configures a Client. Zero fields take the documented defaults.
type Config struct {
	// UserAgent is sent as User-Agent unless a request sets its own. Required.
	UserAgent string
	// AllowPrivate allows connecting to loopback, private (RFC 1918, fc00::/7), link-local,
	// unspecified, multicast and CGNAT (100.64.0.0/10) addresses (design §6). The check is
	// made on the address actually dialled.
	AllowPrivate bool
	// ConnectTo maps dial targets like curl --connect-to; the first match wins. The Host
	// header and the TLS server name stay those of the URL.
	ConnectTo []ConnectTo
	// CheckAddr, when not nil, is asked before each request is written, with the request's
	// URL and the address of the connection it is to go on, before any byte of the request is
	// sent: for a new connection once connected, before the TLS handshake (a refused one is
	// closed), for one kept alive when it is taken. An error refuses the request, and Do
	// returns an *Error of kind Blocked that wraps it. It is not asked through a Proxy: the
	// connection is the proxy's, the origin's address unknown.
	CheckAddr func(url string, addr netip.Addr) error
	// VerifyTLS makes a certificate that does not verify a TLS error. When false (the
	// default) the handshake never fails on certificates and the verification outcome is
	// recorded in Exchange.TLS.
	VerifyTLS bool
	// RootCAs verifies server certificates; nil means the system roots.
	RootCAs *x509.CertPool
	// ClientCert, when not nil, is offered to every https server that asks for a client
	// certificate (LoadClientCert reads one); nil: none is offered. Not to an https proxy.
	ClientCert *tls.Certificate
	// ConnectTimeout bounds DNS, TCP connect and TLS handshake; default 10s.
	ConnectTimeout time.Duration
	// FirstByteTimeout bounds the wait from the request written to the first response
	// byte; default 30s.
	FirstByteTimeout time.Duration
	// ResponseTimeout bounds the whole exchange, from the start of Do; default 3m. A body
	// still arriving then is kept with Truncated="time".
	ResponseTimeout time.Duration
	// MaxResponseSize bounds the raw response bytes kept (header and body as on the wire)
	// and the decoded payload from Exchange.Body; default 100 MiB. A longer response is kept
	// up to the limit with Truncated="length".
	MaxResponseSize int64
	// SpillThreshold: raw responses larger than this are stored in a temporary file;
	// default 1 MiB.
	SpillThreshold int64
	// TempDir holds the spill files; default os.TempDir().
	TempDir string
	// MaxIdlePerHost is the number of idle keep-alive connections kept per (scheme, dial
	// address, TLS server name), or per origin through a proxy; default 4; negative
	// disables keep-alive reuse.
	MaxIdlePerHost int

	// Auth gives the Authorization credential of origins. It is sent only on requests
	// whose URL has exactly that origin (scheme, host and port, the default port of the
	// scheme when none is written): never to another port, scheme, host or subdomain of it,
	// so not on a redirect the caller follows to another origin either. A request that has
	// its own Authorization header, or user info in its URL, keeps that. Each origin may be
	// listed once.
	Auth []OriginAuth
	// HTTPAuthAllowed lets Auth credentials go over plain http; by default (false, like the
	// Elastic Open Crawler's http_auth_allowed) they are sent over https only.
	HTTPAuthAllowed bool
	// Header is sent on every request; OriginHeader on the requests to one origin (keyed by
	// an origin written as OriginAuth.Origin, matched exactly as Auth is). For each field
	// the request's own header wins over OriginHeader, which wins over Header; the whole
	// field is taken from the first that has it. A User-Agent or Accept field replaces the
	// client's default. NewClient refuses field names that are not tokens, values with
	// control characters, and the fields the client writes or that frame the message or
	// carry credentials: Host, Content-Length, Transfer-Encoding, TE, Trailer, Connection,
	// Keep-Alive, Upgrade, Proxy-Connection, Accept-Encoding, Authorization (use Auth) and
	// Proxy-Authorization. The fields are written sorted by canonical name (see
	// Request.Header).
	Header       http.Header
	OriginHeader map[string]http.Header
	// Proxy sends every request through an HTTP proxy, "http://[user:password@]host[:port]"
	// or "https://..." (TLS to the proxy, verified like origins when VerifyTLS is set); the
	// port defaults to the scheme's. Every request, http ones too, goes through a tunnel
	// (CONNECT host:port, with "Proxy-Authorization: Basic" when the URL has user info), so
	// the origin gets, and Exchange.Request records, the request exactly as without a
	// proxy, in origin form; the proxy needs to allow CONNECT to port 80 for http URLs. The
	// CONNECT exchange is not recorded, and Proxy-Authorization never reaches an origin.
	// Exchange.RemoteIP is the proxy's address, the address guard applies to the proxy's
	// address (and refuses a URL whose host is a blocked IP address without asking the
	// proxy), and URL host names are not resolved: the proxy resolves them. Keep-alive
	// connections are tunnels, pooled per origin. Proxy and ConnectTo cannot be combined.
	Proxy *url.URL
	// Jar, when not nil, keeps cookies: the Set-Cookie fields of every final response
	// (whatever its status, also a redirect, and also when its body is cut short) are
	// stored, and a request that has no Cookie header of its own is sent the jar's
	// cookies for its URL, after any Cookie of OriginHeader or Header (a jar cookie whose
	// name those use is left out). A request's own Cookie header (the browser fetcher passes
	// Chromium's) is sent as it is. The jar orders cookies as RFC 6265 §5.4 says when it is
	// NewJar's: longer paths first, then the earlier created. Use NewJar.
	Jar http.CookieJar
}

func (c Config) withDefaults() (Config, error) {
	if strings.TrimSpace(c.UserAgent) == "" {
		return c, fmt.Errorf("%w: empty UserAgent", ErrConfig)
	}
	if !validHeaderValue(c.UserAgent) {
		return c, fmt.Errorf("%w: UserAgent has control characters", ErrConfig)
	}
	durs := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"ConnectTimeout", &c.ConnectTimeout, DefaultConnectTimeout},
		{"FirstByteTimeout", &c.FirstByteTimeout, DefaultFirstByteTimeout},
		{"ResponseTimeout", &c.ResponseTimeout, DefaultResponseTimeout},
	}
	for _, d := range durs {
		if *d.v < 0 {
			return c, fmt.Errorf("%w: negative %s", ErrConfig, d.name)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.MaxResponseSize < 0 || c.SpillThreshold < 0 {
		return c, fmt.Errorf("%w: negative size", ErrConfig)
	}
	if c.MaxResponseSize == 0 {
		c.MaxResponseSize = DefaultMaxResponseSize
	}
	if c.SpillThreshold == 0 {
		c.SpillThreshold = DefaultSpillThreshold
	}
	if c.TempDir == "" {
		c.TempDir = os.TempDir()
	}
	if c.MaxIdlePerHost == 0 {
		c.MaxIdlePerHost = DefaultMaxIdlePerHost
	}
	if c.Proxy != nil && len(c.ConnectTo) > 0 {
		// With a proxy amber dials the proxy only, and the proxy resolves the URL's host.
		return c, fmt.Errorf("%w: Proxy and ConnectTo cannot be combined: through a proxy, the proxy resolves and connects", ErrConfig)
	}
	if c.Proxy != nil {
		p := *c.Proxy
		c.Proxy = &p
	}
	c.Auth = slices.Clone(c.Auth)
	c.ConnectTo = append([]ConnectTo(nil), c.ConnectTo...) // the caller's slice stays as it was
	for i, m := range c.ConnectTo {
		if err := m.validate(); err != nil {
			return c, fmt.Errorf("%w: ConnectTo[%d]: %w", ErrConfig, i, err)
		}
		c.ConnectTo[i].Host = strings.ToLower(m.Host)
	}
	return c, nil
}

// Redacted returns a copy of c fit for printing (crawl.yaml, warcinfo, logs): the Basic
// passwords and Raw values of Auth, the password of Proxy and the values of Cookie fields of
// Header and OriginHeader are written as "***" (an empty password stays empty). Print
// Proxy with RedactedURL, which leaves the *** unescaped. c is not changed.
func (c Config) Redacted() Config {
	const mask = "***"
	if c.Auth != nil {
		auth := make([]OriginAuth, len(c.Auth))
		for i, a := range c.Auth {
			if a.Basic != nil {
				b := *a.Basic
				if b.Password != "" {
					b.Password = mask
				}
				a.Basic = &b
			}
			if a.Raw != "" {
				a.Raw = mask
			}
			auth[i] = a
		}
		c.Auth = auth
	}
	if c.Proxy != nil {
		p := *c.Proxy
		if _, has := p.User.Password(); has {
			p.User = url.UserPassword(p.User.Username(), mask)
		}
		c.Proxy = &p
	}
	redactHeader := func(h http.Header) http.Header {
		if h == nil {
			return nil
		}
		out := h.Clone()
		for k, vs := range out {
			if http.CanonicalHeaderKey(k) == "Cookie" {
				for i := range vs {
					vs[i] = mask
				}
			}
		}
		return out
	}
	c.Header = redactHeader(c.Header)
	if c.OriginHeader != nil {
		oh := make(map[string]http.Header, len(c.OriginHeader))
		for o, h := range c.OriginHeader {
			oh[o] = redactHeader(h)
		}
		c.OriginHeader = oh
	}
	return c
}

// ConnectTo is one curl --connect-to mapping: a request to Host:Port is dialled at
// ToHost:ToPort. An empty Host or Port matches any; an empty ToHost or ToPort keeps the
// URL's. Hosts are stored without IPv6 brackets.
type ConnectTo struct {
	Host   string
	Port   string
	ToHost string
	ToPort string
}

// ParseConnectTo parses curl's "HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT". Any field may
// be empty; IPv6 addresses are written in brackets ("[::1]:443:[::1]:8443"); ports are
// decimal 1-65535. Errors wrap ErrConnectTo.
func ParseConnectTo(s string) (ConnectTo, error) {
	bad := func(why string) (ConnectTo, error) {
		return ConnectTo{}, fmt.Errorf("%w %q: %s", ErrConnectTo, s, why)
	}
	host, rest, err := cutHost(s)
	if err != nil {
		return bad(err.Error())
	}
	rest, ok := strings.CutPrefix(rest, ":")
	if !ok {
		return bad("want HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT")
	}
	port, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return bad("want HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT")
	}
	toHost, rest, err := cutHost(rest)
	if err != nil {
		return bad(err.Error())
	}
	toPort, ok := strings.CutPrefix(rest, ":")
	if !ok {
		return bad("want HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT")
	}
	c := ConnectTo{Host: strings.ToLower(host), Port: port, ToHost: toHost, ToPort: toPort}
	if err := c.validate(); err != nil {
		return bad(err.Error())
	}
	return c, nil
}

// cutHost reads a host field (bracketed IPv6 or up to the next ':') from the front of s.
func cutHost(s string) (host, rest string, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", fmt.Errorf("unclosed '['")
		}
		host = s[1:end]
		if ip := net.ParseIP(host); ip == nil || !strings.Contains(host, ":") {
			return "", "", fmt.Errorf("bad IPv6 address %q", host)
		}
		return host, s[end+1:], nil
	}
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return s, "", nil
	}
	return s[:i], s[i:], nil
}

func (c ConnectTo) validate() error {
	for _, p := range []string{c.Port, c.ToPort} {
		if p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != p {
			return fmt.Errorf("bad port %q", p)
		}
	}
	for _, h := range []string{c.Host, c.ToHost} {
		if strings.ContainsAny(h, "[]/@ \t\r\n") || (strings.Contains(h, ":") && net.ParseIP(h) == nil) {
			return fmt.Errorf("bad host %q", h)
		}
	}
	return nil
}

// String renders the mapping in the syntax ParseConnectTo reads.
func (c ConnectTo) String() string {
	return bracket(c.Host) + ":" + c.Port + ":" + bracket(c.ToHost) + ":" + c.ToPort
}

func bracket(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return h
}

// matches reports whether the mapping applies to host (lowercase, unbracketed) and port.
func (c ConnectTo) matches(host, port string) bool {
	return (c.Host == "" || c.Host == host) && (c.Port == "" || c.Port == port)
}
