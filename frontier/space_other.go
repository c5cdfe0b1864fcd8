//go:build !unix

package frontier

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"syscall"
)

// freeBytes reports no limit: this platform has no statfs, so writes are not checked.
func freeBytes(*os.File) (int64, error) { return math.MaxInt64, nil }

// allocated is the size of a file.
func allocated(fi fs.FileInfo) int64 { return fi.Size() }

// full reports whether err says the filesystem is full.
func full(err error) bool { return errors.Is(err, syscall.ENOSPC) }
