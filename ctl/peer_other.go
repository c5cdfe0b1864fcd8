//go:build !linux

package ctl

import "net"

// peerUser names the user at the other end of a control connection; without SO_PEERCRED it
// cannot be known, and every request is "local".
func peerUser(*net.UnixConn) string { return "local" }
