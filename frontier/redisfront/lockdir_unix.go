//go:build unix

package redisfront

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/amber-crawler/amber/frontier"
)

// lockDir takes an exclusive flock on dir (created if missing), the lock badger takes on its
// directory: a second crawl in the same directory fails with frontier.ErrLocked.
func lockDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(d.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		d.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s", frontier.ErrLocked, dir)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		_ = unix.Flock(int(d.Fd()), unix.LOCK_UN)
		d.Close()
	}, nil
}
