// Package diskspace reports the space of the filesystem that holds a directory, as statfs(2)
// and stat(2) see it, and recognises the errors a write gets when that filesystem is full.
package diskspace

import (
	"errors"
	"syscall"
)

// Usage is the space of the filesystem holding a directory.
type Usage struct {
	// Free is the number of bytes an unprivileged process may still write (statfs f_bavail
	// times the block size): what is left before writes fail with ENOSPC.
	Free int64
	// Total is the size of the filesystem in bytes (f_blocks times the block size).
	Total int64
	// Device identifies the filesystem (stat st_dev of the directory): two directories are on
	// one filesystem when their Devices are equal.
	Device uint64
}

// IsNoSpace reports whether err says a filesystem is full: ENOSPC (no space left on device)
// or EDQUOT (disk quota exceeded), however deeply wrapped.
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
