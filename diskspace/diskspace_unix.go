//go:build unix

package diskspace

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Of returns the space of the filesystem holding dir. It costs two system calls (statfs and
// stat), a few microseconds: cheap enough to call before every large write.
func Of(dir string) (Usage, error) {
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		return Usage{}, fmt.Errorf("statfs %s: %w", dir, err)
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return Usage{}, fmt.Errorf("stat %s: %w", dir, err)
	}
	bs := int64(fs.Bsize)
	return Usage{
		Free:   int64(fs.Bavail) * bs,
		Total:  int64(fs.Blocks) * bs,
		Device: uint64(st.Dev),
	}, nil
}
