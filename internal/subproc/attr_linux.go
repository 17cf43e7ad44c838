package subproc

import "syscall"

// sysProcAttr: a process group of its own (so that cancellation can kill
// the child and anything it starts) and SIGKILL when the forking thread,
// which Run keeps alive for the child's life, dies with the server. Go's
// fork code re-checks the parent after setting the signal, so a server
// that dies during the fork does not leave the child behind either.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
