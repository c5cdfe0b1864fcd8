//go:build !unix

package frontier

// lockedByOther cannot tell on this platform.
func lockedByOther(string) bool { return false }
