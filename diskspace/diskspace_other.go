//go:build !unix

package diskspace

import (
	"errors"
	"fmt"
)

// Of returns an error wrapping errors.ErrUnsupported: this platform has no statfs.
func Of(dir string) (Usage, error) {
	return Usage{}, fmt.Errorf("free space of %s: %w", dir, errors.ErrUnsupported)
}
