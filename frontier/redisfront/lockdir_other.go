//go:build !unix

package redisfront

import "os"

// lockDir creates dir; there is no flock here, so nothing stops a second process in it.
func lockDir(dir string) (unlock func(), err error) {
	return func() {}, os.MkdirAll(dir, 0o755)
}
