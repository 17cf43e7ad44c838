package sharedtest

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system) the process has used so far:
// on a shared machine a steadier measure of a benchmark's cost than its
// wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PeakRSSMB is the process's peak resident set size in MB.
func PeakRSSMB() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024
}
