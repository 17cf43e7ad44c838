package subproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Errors of Run, wrapped with the program name (test with errors.Is). A
// cancelled context is reported as the context's own error.
var (
	// ErrTimeout: the program ran longer than Cmd.Timeout and was killed.
	ErrTimeout = errors.New("time limit exceeded")
	// ErrFailed: the program exited with a non-zero status or was killed
	// by a signal that was not ours (the error also wraps the
	// *exec.ExitError).
	ErrFailed = errors.New("program failed")
	// ErrStart: the program could not be started (not found, not
	// executable).
	ErrStart = errors.New("program could not be started")
)

// Default output bounds of Run.
const (
	DefaultMaxStdout = 1 << 20
	DefaultMaxStderr = 64 << 10
	// waitDelay is how long Run waits, after the child exited or was
	// killed, for its output pipes to close (a grandchild may hold them).
	waitDelay = 5 * time.Second
)

// Cmd is one run of an external program.
type Cmd struct {
	// Path is the program: an absolute path, or a name looked up in PATH.
	Path string
	// Args are the arguments after the program name, passed as they are
	// (no shell ever sees them).
	Args []string
	// Dir is the working directory ("" is the server's).
	Dir string
	// Stdin is the program's standard input (nil: /dev/null).
	Stdin io.Reader
	// Timeout bounds the run (0: only ctx bounds it). Past it the process
	// group is killed and Run returns ErrTimeout.
	Timeout time.Duration
	// MaxStdout and MaxStderr bound the captured output: the first so
	// many bytes are kept, the rest is read and dropped (0: the defaults,
	// DefaultMaxStdout and DefaultMaxStderr).
	MaxStdout, MaxStderr int
	// OnStdout, when not nil, sees every chunk of standard output as it
	// arrives (all of it, not only the captured part), from one goroutine
	// at a time. It must not keep b.
	OnStdout func(b []byte)
}

// Output is what Run captured.
type Output struct {
	Stdout, Stderr []byte
	// StdoutTruncated and StderrTruncated say that output past the bound
	// was dropped.
	StdoutTruncated, StderrTruncated bool
	// Pid is the child's process id (0 if it did not start).
	Pid int
	// CPU is the child's user + system time (0 if it did not start).
	CPU time.Duration
}

// Run runs c and waits for it, with the environment Environ gives. The
// child is its own process group leader and gets SIGKILL when the server
// dies (see the package comment); when ctx is cancelled or c.Timeout
// passes, the whole group gets SIGKILL. The output captured so far is
// returned with every error.
func Run(ctx context.Context, c Cmd) (Output, error) {
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if c.Timeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, c.Timeout)
	}
	defer cancel()
	stdout := &capture{max: orDefault(c.MaxStdout, DefaultMaxStdout), each: c.OnStdout}
	stderr := &capture{max: orDefault(c.MaxStderr, DefaultMaxStderr)}
	cmd := exec.CommandContext(rctx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = Environ()
	cmd.Stdin = c.Stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error {
		// A negative pid signals the whole process group the child leads.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay

	// Start and Wait run on one goroutine locked to its OS thread for the
	// child's whole life. The parent-death signal is tied to the thread
	// that forked: were this goroutine unlocked, the runtime could later
	// run on that thread a goroutine that locks it and exits (which ends
	// the thread), and the kernel would kill our child while the server
	// lives. Once Wait has returned the child is reaped and the thread may
	// go back to the pool.
	started := make(chan int, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- 0
			done <- err
			return
		}
		started <- cmd.Process.Pid
		done <- cmd.Wait()
	}()
	out := Output{Pid: <-started}
	err := <-done
	if ps := cmd.ProcessState; ps != nil {
		out.CPU = ps.UserTime() + ps.SystemTime()
	}
	out.Stdout, out.StdoutTruncated = stdout.buf, stdout.dropped
	out.Stderr, out.StderrTruncated = stderr.buf, stderr.dropped
	switch {
	case err == nil:
		return out, nil
	case out.Pid == 0:
		return out, fmt.Errorf("%s: %w: %v", c.Path, ErrStart, err)
	case ctx.Err() != nil:
		return out, ctx.Err()
	case errors.Is(rctx.Err(), context.DeadlineExceeded):
		return out, fmt.Errorf("%s: %w: ran longer than %v", c.Path, ErrTimeout, c.Timeout)
	}
	// Both wrapped: errors.As finds the *exec.ExitError (exit status or
	// signal).
	return out, fmt.Errorf("%s: %w: %w", c.Path, ErrFailed, err)
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// capture keeps the first max bytes written to it and reads the rest
// without keeping it, so that the child never blocks on a full pipe.
// os/exec writes to it from one goroutine.
type capture struct {
	max     int
	buf     []byte
	dropped bool
	each    func([]byte)
}

func (w *capture) Write(b []byte) (int, error) {
	if w.each != nil {
		w.each(b)
	}
	room := w.max - len(w.buf)
	if len(b) > room {
		w.dropped = true
		if room > 0 {
			w.buf = append(w.buf, b[:room]...)
		}
		return len(b), nil
	}
	w.buf = append(w.buf, b...)
	return len(b), nil
}
