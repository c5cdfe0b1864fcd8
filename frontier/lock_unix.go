//go:build unix

package frontier

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockedByOther reports whether another process holds the store's directory lock (badger
// takes an exclusive flock on the directory and does not wrap the error it gets).
func lockedByOther(dir string) bool {
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer d.Close()
	err = unix.Flock(int(d.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if err == nil {
		unix.Flock(int(d.Fd()), unix.LOCK_UN)
		return false
	}
	return errors.Is(err, unix.EWOULDBLOCK)
}
