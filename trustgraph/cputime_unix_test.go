//go:build unix

package trustgraph

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time: on a shared machine,
// the time the benchmark was on a core, beside the wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
