// Package servechild runs `molgraph serve` as a child process for the
// benchmark drivers (cmd/molgraph-load, cmd/molgraph-benchsparql): on a
// free loopback port, waited for through /readyz, with the admin key the
// server wrote to its data directory on first start, and never outliving
// the driver (parent-death signal).
package servechild

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Server is a running molgraph serve process.
type Server struct {
	Base    string // http://127.0.0.1:port
	Key     string // the bootstrap admin key
	LogPath string
	ExitErr error // how the process ended, once stopped

	cmd     *exec.Cmd
	done    chan error
	stopped bool
}

// Start runs binary serve --addr <free loopback port> --data-dir dataDir
// and the arguments args returns for that address, with its output in
// logPath, and waits up to ready for /readyz. The calling goroutine's OS
// thread stays locked until Stop: Pdeathsig fires when the thread that
// forked exits, and the server must not outlive the driver.
func Start(ctx context.Context, binary, dataDir, logPath string, ready time.Duration, args func(addr string) []string) (*Server, error) {
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("%w (build it: make build)", err)
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	addr, err := FreePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", addr, "--data-dir", dataDir}, args(addr)...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "MOLGRAPH_API_KEY=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		runtime.UnlockOSThread()
		logf.Close()
		return nil, err
	}
	s := &Server{Base: "http://" + addr, LogPath: logPath, cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait(); logf.Close() }()
	deadline := time.Now().Add(ready)
	for {
		select {
		case err := <-s.done:
			s.stopped = true
			runtime.UnlockOSThread()
			return nil, fmt.Errorf("molgraph serve exited before it was ready (%v); see %s", err, logPath)
		case <-ctx.Done():
			s.Stop(io.Discard, 30*time.Second)
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if resp, err := http.Get(s.Base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			s.Stop(io.Discard, 30*time.Second)
			return nil, fmt.Errorf("molgraph serve not ready after %v; see %s", ready, logPath)
		}
	}
	key, err := os.ReadFile(filepath.Join(dataDir, "bootstrap-key"))
	if err != nil {
		s.Stop(io.Discard, 30*time.Second)
		return nil, fmt.Errorf("bootstrap key: %w", err)
	}
	s.Key = strings.TrimSpace(string(key))
	return s, nil
}

// Stop interrupts the server (a clean shutdown) and kills it after grace;
// it reports on out when the server did not exit cleanly and returns
// ExitErr. A second Stop does nothing.
func (s *Server) Stop(out io.Writer, grace time.Duration) error {
	if s.stopped {
		return s.ExitErr
	}
	s.stopped = true
	defer runtime.UnlockOSThread()
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-s.done:
		s.ExitErr = err
		if err != nil {
			fmt.Fprintf(out, "molgraph serve exited: %v (log: %s)\n", err, s.LogPath)
		}
	case <-time.After(grace):
		s.cmd.Process.Kill()
		<-s.done
		s.ExitErr = fmt.Errorf("killed after %v", grace)
		fmt.Fprintf(out, "molgraph serve did not stop within %v of SIGINT; killed (log: %s)\n", grace, s.LogPath)
	}
	return s.ExitErr
}

// Pid is the server process's id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// FreePort returns a loopback address nothing listens on now.
func FreePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
