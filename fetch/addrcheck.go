package fetch

import (
	"fmt"
	"net/netip"
)

// checkAddr asks Config.CheckAddr about the connection a request is to be written on. It is
// not asked through a proxy (the connection's address is the proxy's).
func (c *Client) checkAddr(t *target, cn *conn) error {
	if c.cfg.CheckAddr == nil || c.proxy != nil {
		return nil
	}
	a, err := netip.ParseAddr(cn.remoteIP)
	if err != nil {
		return &Error{Kind: Blocked, URL: t.url, Err: fmt.Errorf("fetch: connection without an address: %q", cn.remoteIP)}
	}
	if err := c.cfg.CheckAddr(t.url, a); err != nil {
		return &Error{Kind: Blocked, URL: t.url, Err: err}
	}
	return nil
}
