//go:build !unix

package frontier

// lockedByOther cannot tell on this platform.
func lockedByOther(string) bool { return false }

// lockDir cannot lock on this platform: ok is false.
func lockDir(string) (unlock func(), ok bool) { return nil, false }
