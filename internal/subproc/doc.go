// Package subproc starts the external programs molgraph runs (vina,
// obabel) so that none of them outlives the server, and gives their runs
// private working directories under one root that a restart sweeps.
//
// # Children die with us
//
// Run starts a program from an argument list (never a shell) in its own
// process group with the Linux parent-death signal set to SIGKILL. The
// kernel sends that signal when the *thread* that forked the child exits,
// not when the process does, and the Go runtime may end an OS thread while
// the process lives on (a goroutine that exits while locked to its thread
// takes the thread with it). So Run forks from a goroutine locked to its
// OS thread, and that goroutine stays locked until the child has been
// waited for: the forking thread lives exactly as long as the child needs
// it, and dies only with the process. kill -9 of the server then kills
// every child at once; a cancelled context or a timeout kills the child's
// whole process group.
//
// A child sees only the variables Environ passes on: never the server's
// MOLGRAPH_* configuration (the bootstrap API key among it).
//
// Captured output is bounded (Cmd.MaxStdout, Cmd.MaxStderr): a program
// that writes without end costs no more memory than the bound.
//
// # Temporary directories
//
// TempDirs makes the working directories of child runs under one root
// (molgraph serve: --tmp-dir, default <data-dir>/tmp). Each name starts
// with the creating process's pid and start time, so OpenTempDirs can
// remove what processes that no longer run left behind (kill -9, power
// loss) and leave alone the directories of a live process that shares the
// root. Each run removes its own directory when it ends.
package subproc
