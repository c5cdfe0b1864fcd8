package fetch

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/weburl"
)

// proxy is a validated Config.Proxy.
type proxy struct {
	tls   bool   // an https proxy: TLS to the proxy, then CONNECT inside it
	host  string // lowercase ASCII, unbracketed
	port  string
	addr  string // host:port, the proxy as errors name it (never with credentials)
	authz string // the Proxy-Authorization value; "" without credentials
}

// parseProxy validates Config.Proxy. Its errors show the URL with the password as ***.
func parseProxy(u *url.URL) (*proxy, error) {
	bad := func(why string) (*proxy, error) {
		return nil, fmt.Errorf("%w: Proxy %s: %s", ErrConfig, RedactedURL(u), why)
	}
	p := &proxy{}
	defPort := ""
	switch strings.ToLower(u.Scheme) {
	case "http":
		defPort = "80"
	case "https":
		defPort = "443"
		p.tls = true
	default:
		return bad("scheme must be http or https")
	}
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return bad("want scheme://[user:password@]host[:port] only")
	}
	host, err := weburl.Host(u.Hostname())
	if err != nil || host == "" {
		return bad("invalid host")
	}
	p.host, p.port = host, u.Port()
	if p.port == "" {
		p.port = defPort
	} else if n, err := strconv.Atoi(p.port); err != nil || n < 1 || n > 65535 {
		return bad("invalid port")
	}
	p.addr = net.JoinHostPort(p.host, p.port)
	if u.User != nil {
		name := u.User.Username()
		pw, _ := u.User.Password()
		if strings.Contains(name, ":") || !validHeaderValue(name+pw) {
			return bad("user name contains ':' or credentials contain control characters")
		}
		p.authz = basicValue(name, pw)
	}
	return p, nil
}

// RedactedURL returns u as a string with its password, if any, written as *** (unescaped):
// "http://user:***@proxy.example:3128". It is how the proxy is to be printed in logs,
// crawl.yaml and warcinfo records.
func RedactedURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	if _, has := u.User.Password(); !has {
		return u.String()
	}
	c := *u
	c.User = url.User(u.User.Username())
	s := c.String()
	// The user name, escaped, is followed by the '@' that ends the user info.
	at := strings.Index(s, "@")
	return s[:at] + ":***" + s[at:]
}

// tunnel opens a tunnel through the proxy cn is connected to, to t's host and port: a TLS
// handshake first with an https proxy, then CONNECT host:port with Proxy-Authorization
// when the proxy has credentials. The CONNECT exchange is not part of the recorded
// exchange. A non-2xx answer is an error: 407 a ProxyAuth error (ErrProxyAuth), any other a
// Connect error (ErrProxyRefused).
func (c *Client) tunnel(dctx, ctx context.Context, cn *conn, t *target) error {
	p := c.proxy
	fail := func(k ErrorKind, err error) error {
		return &Error{Kind: k, URL: t.url, Err: fmt.Errorf("proxy %s: %w", p.addr, err)}
	}
	ioFail := func(err error) error {
		if k, ok := ctxKind(ctx, dctx); ok {
			return fail(k, err)
		}
		if isTimeout(err) {
			return fail(Timeout, err)
		}
		return fail(Connect, err)
	}
	if p.tls {
		tc := tls.Client(cn.nc, &tls.Config{
			ServerName:         p.host,
			RootCAs:            c.cfg.RootCAs,
			InsecureSkipVerify: !c.cfg.VerifyTLS, // as for origins: Config.VerifyTLS decides
			NextProtos:         []string{"http/1.1"},
			MinVersion:         tls.VersionTLS12,
		})
		if err := tc.HandshakeContext(dctx); err != nil {
			if k, ok := ctxKind(ctx, dctx); ok {
				return fail(k, err)
			}
			return fail(TLS, err)
		}
		cn.nc = tc
	}

	if by, ok := dctx.Deadline(); ok {
		cn.nc.SetDeadline(by)
	}
	stop := context.AfterFunc(dctx, func() { cn.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	authority := net.JoinHostPort(t.hostname, t.port)
	req := make([]byte, 0, 256)
	req = append(req, "CONNECT "+authority+" HTTP/1.1\r\n"...)
	req = appendField(req, "Host", authority)
	if p.authz != "" {
		req = appendField(req, "Proxy-Authorization", p.authz)
	}
	req = appendField(req, "User-Agent", c.cfg.UserAgent)
	req = append(req, "\r\n"...)
	if _, err := cn.nc.Write(req); err != nil {
		return ioFail(err)
	}

	br := bufio.NewReaderSize(cn.nc, 4<<10)
	w := &wire{br: br, rec: &rawStore{threshold: MaxHeaderBytes}, limit: MaxHeaderBytes}
	budget := MaxHeaderBytes
	var h *head
	for interim := 0; ; interim++ {
		var err error
		if h, err = w.readHead(&budget); err != nil {
			if errors.Is(err, ErrHeaderTooLarge) || errors.Is(err, ErrMalformed) {
				return fail(Protocol, fmt.Errorf("answer to CONNECT: %w", err))
			}
			return ioFail(err)
		}
		if h.status >= 200 {
			break
		}
		if interim == 10 {
			return fail(Protocol, fmt.Errorf("%w: too many interim responses to CONNECT", ErrMalformed))
		}
	}
	switch {
	case h.status == http.StatusProxyAuthRequired:
		return &Error{Kind: ProxyAuth, URL: t.url, Err: fmt.Errorf("%w: proxy %s answered %d to CONNECT %s",
			ErrProxyAuth, p.addr, h.status, authority)}
	case h.status < 200 || h.status > 299:
		return &Error{Kind: Connect, URL: t.url, Err: fmt.Errorf("%w: proxy %s answered %d to CONNECT %s",
			ErrProxyRefused, p.addr, h.status, authority)}
	case br.Buffered() > 0:
		// The origin cannot have spoken yet: these bytes would be lost with the reader.
		return fail(Protocol, fmt.Errorf("%w: data after the answer to CONNECT", ErrMalformed))
	}
	cn.nc.SetDeadline(time.Time{})
	return nil
}
