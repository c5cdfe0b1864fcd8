//go:build unix

package wacz

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockState takes the crawl state's directory lock, the one a running crawl holds (badger's
// exclusive flock on the directory), so no crawl starts while the package is written. It
// fails with ErrInUse when a crawl holds it.
func lockState(dir string) (unlock func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("wacz: lock crawl state: %w", err)
	}
	if err := unix.Flock(int(d.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		d.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is locked", ErrInUse, dir)
		}
		return nil, fmt.Errorf("wacz: lock crawl state %s: %w", dir, err)
	}
	return func() {
		_ = unix.Flock(int(d.Fd()), unix.LOCK_UN)
		d.Close()
	}, nil
}
