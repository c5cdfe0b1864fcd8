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

// lockDir takes the store's directory lock (badger's: an exclusive flock on the directory)
// until unlock is called; ok is false when another process holds it, or it cannot be taken.
func lockDir(dir string) (unlock func(), ok bool) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(d.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		d.Close()
		return nil, false
	}
	return func() {
		unix.Flock(int(d.Fd()), unix.LOCK_UN)
		d.Close()
	}, true
}
