package ctl

import (
	"net"
	"os/user"
	"strconv"

	"golang.org/x/sys/unix"
)

// peerUser names the user of the process at the other end of a control connection
// (SO_PEERCRED): the user name, "uid:N" when it has none, or "local" when it cannot be known.
func peerUser(conn *net.UnixConn) string {
	raw, err := conn.SyscallConn()
	if err != nil {
		return "local"
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return "local"
	}
	uid := strconv.FormatUint(uint64(cred.Uid), 10)
	if u, err := user.LookupId(uid); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid:" + uid
}
