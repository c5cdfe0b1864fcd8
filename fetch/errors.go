package fetch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/amber-crawler/amber/status"
)

// Sentinel errors. They are wrapped inside *Error (or returned by the constructors and
// parsers) and are meant for errors.Is.
var (
	// ErrConfig reports an invalid Config.
	ErrConfig = errors.New("fetch: invalid config")
	// ErrConnectTo reports a --connect-to value that is not HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT.
	ErrConnectTo = errors.New("fetch: invalid connect-to")
	// ErrInvalidURL reports a request URL that cannot be fetched (not absolute http/https,
	// empty host, bad port, control characters) or an invalid method or header.
	ErrInvalidURL = errors.New("fetch: invalid request")
	// ErrBlocked reports that the address guard refused the address actually dialled
	// (loopback, private, link-local, unspecified, multicast, CGNAT) because
	// Config.AllowPrivate is false.
	ErrBlocked = errors.New("fetch: address blocked")
	// ErrHeaderTooLarge reports a response header section longer than MaxHeaderBytes
	// (or than Config.MaxResponseSize).
	ErrHeaderTooLarge = errors.New("fetch: response header too large")
	// ErrMalformed reports a response that is not HTTP/1.x (bad status line or framing).
	ErrMalformed = errors.New("fetch: malformed response")
	// ErrSpill reports that a large response could not be written to its temporary file.
	// Do returns it (wrapped, not as *Error): it is a local failure, not the server's.
	ErrSpill = errors.New("fetch: spill to temporary file")
	// ErrBodyLimit is returned by the reader from Exchange.Body once the decoded payload
	// exceeds Config.MaxResponseSize (a decompression bomb stops there).
	ErrBodyLimit = errors.New("fetch: decoded body exceeds limit")
	// ErrProxyAuth reports that the proxy answered CONNECT with 407: it wants credentials,
	// or other ones than Config.Proxy gives.
	ErrProxyAuth = errors.New("fetch: proxy authentication required")
	// ErrProxyRefused reports that the proxy answered CONNECT with a status other than 2xx
	// and 407 (it could not reach the origin, or its policy forbids the tunnel).
	ErrProxyRefused = errors.New("fetch: proxy refused the tunnel")
)

// ErrorKind classifies a fetch that produced no usable response.
type ErrorKind int

// The kinds of *Error. Their crawl.log codes are given by (*Error).Status.
const (
	// DNS: the host name did not resolve (crawl.log -6).
	DNS ErrorKind = iota + 1
	// Connect: the TCP connection could not be established, including a connect
	// timeout (-2).
	Connect
	// Timeout: no response (first byte or complete header) within the time limits (-4).
	Timeout
	// TLS: the TLS handshake failed, or certificate verification failed with
	// Config.VerifyTLS (-2).
	TLS
	// Blocked: the address guard refused every address of the host (-7, annotate "blocked").
	Blocked
	// Broken: the connection broke before a complete response header arrived (-3).
	Broken
	// InvalidURL: the request could not be made from the URL, method or headers (-7).
	InvalidURL
	// Protocol: the bytes received are not a parsable HTTP/1.x response header (-3).
	Protocol
	// Canceled: the caller's context was canceled; nothing is kept (-7000, Heritrix's
	// "processing thread killed"). The crawl is expected to re-queue the URL.
	Canceled
	// ProxyAuth: the proxy answered CONNECT with 407 Proxy Authentication Required
	// (ErrProxyAuth); the origin was not reached (-2).
	ProxyAuth
)

var kindNames = map[ErrorKind]string{
	DNS:        "dns",
	Connect:    "connect",
	Timeout:    "timeout",
	TLS:        "tls",
	Blocked:    "blocked",
	Broken:     "broken",
	InvalidURL: "invalid-url",
	Protocol:   "protocol",
	Canceled:   "canceled",
	ProxyAuth:  "proxy-auth",
}

// String returns a short lowercase name for the kind ("dns", "connect", "timeout", "tls",
// "blocked", "broken", "invalid-url", "protocol", "canceled", "proxy-auth"), suitable for a crawl.log
// annotation.
func (k ErrorKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is the error returned by Client.Do when there is no response at all.
type Error struct {
	Kind ErrorKind
	URL  string
	Err  error
}

// Error returns "fetch KIND URL: cause", with a password in the URL's user info written as
// ***. The causes the client makes never contain credentials.
func (e *Error) Error() string {
	u := redactUserinfo(e.URL)
	if e.Err == nil {
		return fmt.Sprintf("fetch %s %s", e.Kind, u)
	}
	return fmt.Sprintf("fetch %s %s: %v", e.Kind, u, e.Err)
}

// redactUserinfo replaces the password of the user info of URL string s with ***, leaving
// the rest of s as it is.
func redactUserinfo(s string) string {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	start := len(s) - len(rest)
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return s
	}
	colon := strings.IndexByte(rest[:at], ':')
	if colon < 0 {
		return s
	}
	return s[:start+colon+1] + "***" + s[start+at:]
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Status returns the Heritrix crawl.log status code for the failure:
//
//	DNS status.DNSFailed (-6), Connect, TLS and ProxyAuth status.ConnectFailed (-2),
//	Broken and Protocol status.ConnectBroken (-3), Timeout status.Timeout (-4),
//	InvalidURL and Blocked status.InvalidURL (-7; annotate Blocked with the kind name),
//	Canceled status.Killed (-7000); status.RuntimeError (-5) for an unknown kind.
func (e *Error) Status() int {
	switch e.Kind {
	case DNS:
		return status.DNSFailed
	case Connect, TLS, ProxyAuth:
		return status.ConnectFailed
	case Broken, Protocol:
		return status.ConnectBroken
	case Timeout:
		return status.Timeout
	case InvalidURL, Blocked:
		return status.InvalidURL
	case Canceled:
		return status.Killed
	}
	return status.RuntimeError // not produced by this package
}

// Retryable reports whether trying again later may help: DNS, Connect, Timeout, Broken,
// Protocol and Canceled yes; Blocked, InvalidURL, TLS and ProxyAuth no (a certificate,
// protocol mismatch or proxy credential does not heal by itself).
func (e *Error) Retryable() bool {
	switch e.Kind {
	case DNS, Connect, Timeout, Broken, Protocol, Canceled:
		return true
	}
	return false
}
