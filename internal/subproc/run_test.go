package subproc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"
)

// TestRunEnvironment: a child sees PATH and the locale, never the
// server's MOLGRAPH_* configuration (the bootstrap key) or other secrets
// in the server's environment.
func TestRunEnvironment(t *testing.T) {
	t.Setenv("MOLGRAPH_API_KEY", "bootstrap-secret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "cloud-secret")
	t.Setenv("LC_ALL", "C")
	out, err := Run(context.Background(), Cmd{Path: "env"})
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(out.Stdout)
	for _, want := range []string{"\nPATH=", "\nLC_ALL=C\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("child environment lacks %q:%s", want[1:], env)
		}
	}
	for _, secret := range []string{"bootstrap-secret", "cloud-secret", "MOLGRAPH_"} {
		if strings.Contains(env, secret) {
			t.Errorf("child environment holds %q:%s", secret, env)
		}
	}
}

// TestRunOutputBounded: output past MaxStdout is read and dropped (the
// child is not blocked and finishes), OnStdout still sees all of it; a
// program that writes without end is stopped by its timeout with no more
// than the bound kept.
func TestRunOutputBounded(t *testing.T) {
	ctx := context.Background()
	var seen atomic.Int64
	out, err := Run(ctx, Cmd{Path: "head", Args: []string{"-c", "300000", "/dev/zero"}, MaxStdout: 1000,
		OnStdout: func(b []byte) { seen.Add(int64(len(b))) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Stdout) != 1000 || !out.StdoutTruncated || seen.Load() != 300000 {
		t.Errorf("kept %d bytes (truncated %v), saw %d; want 1000, true, 300000", len(out.Stdout), out.StdoutTruncated, seen.Load())
	}
	start := time.Now()
	out, err = Run(ctx, Cmd{Path: "yes", Timeout: 300 * time.Millisecond, MaxStdout: 4096})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("yes: %v, want ErrTimeout", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("timeout of 300ms took %v", el)
	}
	if len(out.Stdout) != 4096 || !out.StdoutTruncated || !bytes.HasPrefix(out.Stdout, []byte("y\ny\n")) {
		t.Errorf("yes: kept %d bytes %.8q (truncated %v)", len(out.Stdout), out.Stdout, out.StdoutTruncated)
	}
	if sharedtest.Running(out.Pid) {
		t.Errorf("yes (pid %d) still runs after its timeout", out.Pid)
	}
}

// TestRunErrors: a missing program, a failing one, stdin and stderr.
func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Run(ctx, Cmd{Path: filepath.Join(t.TempDir(), "none")}); !errors.Is(err, ErrStart) {
		t.Errorf("missing program: %v, want ErrStart", err)
	}
	_, err := Run(ctx, Cmd{Path: "false"})
	var ee *exec.ExitError
	if !errors.Is(err, ErrFailed) || !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("false: %v, want ErrFailed with exit status 1", err)
	}
	out, err := Run(ctx, Cmd{Path: "cat", Stdin: strings.NewReader("in and out")})
	if err != nil || string(out.Stdout) != "in and out" {
		t.Errorf("cat: %q, %v", out.Stdout, err)
	}
	out, err = Run(ctx, Cmd{Path: "cat", Args: []string{"/nonexistent/file"}, MaxStderr: 10})
	if !errors.Is(err, ErrFailed) || len(out.Stderr) != 10 || !out.StderrTruncated {
		t.Errorf("cat of a missing file: %v, stderr %q (truncated %v)", err, out.Stderr, out.StderrTruncated)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cctx, Cmd{Path: "true"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v", err)
	}
}

// TestRunCancelKillsGroup: cancelling the context kills the child and
// what the child started (its process group), and Run reports the
// context's error. The test's shell is only a way to make a grandchild.
func TestRunCancelKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	grand := make(chan int, 1)
	var once sync.Once
	res := make(chan error, 1)
	var child int
	go func() {
		out, err := Run(ctx, Cmd{Path: "sh", Args: []string{"-c", "sleep 60 & echo $!; wait"},
			OnStdout: func(b []byte) {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					once.Do(func() { grand <- pid })
				}
			}})
		child = out.Pid
		res <- err
	}()
	var g int
	select {
	case g = <-grand:
	case <-time.After(10 * time.Second):
		t.Fatal("no grandchild pid")
	}
	if !sharedtest.Running(g) {
		t.Fatalf("grandchild %d not running", g)
	}
	cancel()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if sharedtest.Running(child) {
		t.Errorf("child %d runs after cancel", child)
	}
	if !sharedtest.GoneWithin(g, 2*time.Second) {
		syscall.Kill(g, syscall.SIGKILL)
		t.Errorf("grandchild %d (sleep 60) survived the cancel", g)
	}
}

// TestPdeathsigFollowsThread shows why Run locks its OS thread: a child
// started with the parent-death signal from a thread that then exits is
// killed although the process that started it lives on. Here the thread
// ends because its goroutine exits locked to it. (The runtime never ends
// the main thread, so the forking goroutine must not be on it: a
// goroutine that finds itself there holds it while another one forks.)
func TestPdeathsigFollowsThread(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = sysProcAttr()
	release := make(chan struct{})
	defer close(release)
	started := make(chan error, 1)
	for attempt := 0; ; attempt++ {
		onMain := make(chan bool, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
			if syscall.Gettid() == os.Getpid() {
				onMain <- true
				<-release
				runtime.UnlockOSThread()
				return
			}
			onMain <- false
			started <- cmd.Start()
		}()
		if !<-onMain {
			break
		}
		if attempt > 10 {
			t.Fatal("every goroutine ran on the main thread")
		}
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !sharedtest.GoneWithin(pid, 2*time.Second) {
		cmd.Process.Kill()
		t.Errorf("child %d outlived the thread that forked it: no parent-death signal?", pid)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("wait: %v, want killed", err)
	}
}

// TestRunSurvivesThreadExits: while Run's child runs, goroutines that exit
// locked to their threads end OS threads; Run's forking thread is never
// among them, so the child finishes normally.
func TestRunSurvivesThreadExits(t *testing.T) {
	res := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Cmd{Path: "sleep", Args: []string{"1"}})
		res <- err
	}()
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			time.Sleep(time.Millisecond)
		}()
		time.Sleep(10 * time.Millisecond)
	}
	wg.Wait()
	if err := <-res; err != nil {
		t.Errorf("sleep 1 under thread exits: %v", err)
	}
}

// TestTempDirsSweep: OpenTempDirs removes the directories of processes
// that do not run (a pid that is gone, a pid now held by another process)
// and keeps those of live processes and names it did not make.
func TestTempDirsSweep(t *testing.T) {
	if _, err := processStart(os.Getpid()); err != nil {
		t.Skip("no /proc")
	}
	root := t.TempDir()
	// A live process other than this one, and a pid that is gone.
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	liveStart, err := processStart(live.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	selfStart, _ := processStart(os.Getpid())
	tag := func(pid int, start uint64) string {
		return strconv.Itoa(pid) + "." + strconv.FormatUint(start, 10) + "."
	}
	dirs := map[string]bool{ // name -> kept
		tag(done.Process.Pid, 12345) + "vina-1":      false, // pid gone
		tag(os.Getpid(), selfStart+1) + "vina-2":     false, // pid reused by this process
		tag(live.Process.Pid, liveStart) + "batch-3": true,
		tag(os.Getpid(), selfStart) + "obabel-4":     true,
		"notes":                                      true,
		"12.x.vina":                                  true,
	}
	for d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	td, n, err := OpenTempDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("swept %d, want 2", n)
	}
	for d, kept := range dirs {
		if _, err := os.Stat(filepath.Join(root, d)); (err == nil) != kept {
			t.Errorf("%s: kept=%v, want %v", d, err == nil, kept)
		}
	}
	mine, err := td.Make("vina")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(mine) != root || !strings.HasPrefix(filepath.Base(mine), tag(os.Getpid(), selfStart)+"vina-") {
		t.Errorf("Make: %s", mine)
	}
	if n, err := td.Sweep(); n != 0 || err != nil {
		t.Errorf("second sweep removed %d (%v)", n, err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a live directory was swept: %v", err)
	}
	// A root removed under a running server is made again.
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if again, err := td.Make("vina"); err != nil || filepath.Dir(again) != root {
		t.Errorf("Make after the root was removed: %q, %v", again, err)
	}
}
