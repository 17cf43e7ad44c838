package chem

import "syscall"

// niceThread lowers the CPU priority of the calling OS thread (Linux keeps
// a nice value per thread; setpriority with a thread id changes only that
// thread). The caller has locked its goroutine to the thread.
func niceThread(nice int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}
