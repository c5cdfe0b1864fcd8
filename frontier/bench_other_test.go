//go:build !linux

package frontier

import "time"

// cpuTime is 0: the CPU time of the process is read only on Linux.
func cpuTime() time.Duration { return 0 }
