//go:build !linux

package subproc

import "syscall"

// sysProcAttr: a process group of its own. Only Linux has a parent-death
// signal; elsewhere a child may outlive a server killed with SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
