package docking

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/internal/sharedtest"
	"github.com/molgraph/molgraph/internal/subproc"
	"github.com/molgraph/molgraph/jobs"
)

// Environment of TestRunnerProcess in a re-executed test binary: the
// store directory and the temp root.
const (
	runnerDirEnv = "MOLGRAPH_TEST_RUNNER_DIR"
	runnerTmpEnv = "MOLGRAPH_TEST_RUNNER_TMP"
)

// TestRunnerProcess is not a test of its own: TestKillDuringDocking runs
// the test binary again with runnerDirEnv set, and this function is then
// the server process. It submits the small job of submitSmall, prints
// "job <id>" and "commit <n>" after each durable ligand commit, and waits
// to be killed.
func TestRunnerProcess(t *testing.T) {
	dir := os.Getenv(runnerDirEnv)
	if dir == "" {
		t.Skip("only run by TestKillDuringDocking")
	}
	tmp, _, err := subproc.OpenTempDirs(os.Getenv(runnerTmpEnv))
	if err != nil {
		t.Fatal(err)
	}
	vina, err := dk.NewVina(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	s := startService(t, dir, vina.WithTempDirs(tmp), -1)
	s.gate.onCommit = func(n int) { fmt.Printf("commit %d\n", n) }
	j, _ := s.submitSmall(t)
	fmt.Printf("job %s\n", j.ID)
	time.Sleep(5 * time.Minute)
	t.Fatal("not killed in 5 minutes")
}

// TestKillDuringDocking is the docking kill -9 suite: a server process
// (TestRunnerProcess) runs a four-ligand docking job and gets SIGKILL
// while vina docks a ligand, after 0 and after 2 durable ligand commits.
// Its vina must be gone within 2 s. A new process on the same store and
// temp root removes the dead process's temp dirs at start, resumes the
// job and finishes it with exactly one outcome per ligand; afterwards no
// vina of the root runs and the root is empty.
func TestKillDuringDocking(t *testing.T) {
	vina, err := dk.NewVina(context.Background(), "")
	if err != nil {
		t.Skipf("vina: %v", err)
	}
	corpus(t, "vina-examples/1iep/1iep_receptor.pdbqt")
	for _, after := range []int{0, 2} {
		t.Run("after "+strconv.Itoa(after)+" commits", func(t *testing.T) {
			dir, root := t.TempDir(), t.TempDir()
			srv := exec.Command(os.Args[0], "-test.run=^TestRunnerProcess$", "-test.count=1", "-test.timeout=6m")
			srv.Env = append(os.Environ(), runnerDirEnv+"="+dir, runnerTmpEnv+"="+root)
			var logMu sync.Mutex
			var logs strings.Builder
			logText := func() string {
				logMu.Lock()
				defer logMu.Unlock()
				return logs.String()
			}
			srv.Stderr = &lockedBuilder{mu: &logMu, b: &logs}
			stdout, err := srv.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer srv.Process.Kill()
			// The server's lines: the job id, then one per durable commit.
			var job string
			reached := make(chan struct{})
			exited := make(chan error, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					line := sc.Text()
					logMu.Lock()
					logs.WriteString(line + "\n")
					if id, ok := strings.CutPrefix(line, "job "); ok {
						job = id
					}
					logMu.Unlock()
					if line == "commit "+strconv.Itoa(after) {
						close(reached)
					}
				}
				exited <- srv.Wait()
			}()
			if after > 0 {
				select {
				case <-reached:
				case err := <-exited:
					t.Fatalf("server exited: %v\n%s", err, logText())
				case <-time.After(5 * time.Minute):
					t.Fatalf("no commit %d in 5 minutes\n%s", after, logText())
				}
			}
			// Kill while vina docks the next ligand.
			v, ok := sharedtest.WaitProc(func(p sharedtest.Proc) bool {
				return p.PPid == srv.Process.Pid && filepath.Base(p.Args[0]) == "vina" && slices.Contains(p.Args, "--receptor")
			}, 5*time.Minute, exited)
			if !ok {
				t.Fatalf("the server started no vina run\n%s", logText())
			}
			if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-exited
			if !sharedtest.GoneWithin(v.Pid, 2*time.Second) {
				syscall.Kill(v.Pid, syscall.SIGKILL)
				t.Errorf("vina %d outlived the killed server by 2 s", v.Pid)
			}
			logMu.Lock()
			jobID := job
			logMu.Unlock()
			if jobID == "" {
				t.Fatalf("no job line\n%s", logText())
			}
			left, _ := os.ReadDir(root)
			if len(left) == 0 {
				t.Errorf("the killed server left no temp dir (its batch and vina dirs expected)")
			}

			// Restart on the same store and temp root.
			tmp, swept, err := subproc.OpenTempDirs(root)
			if err != nil || swept != len(left) {
				t.Errorf("sweep at restart removed %d of %d (%v)", swept, len(left), err)
			}
			s2 := startService(t, dir, vina.WithTempDirs(tmp), -1)
			stopped := false
			defer func() {
				if !stopped {
					s2.stop()
				}
			}()
			if s2.resume != 1 {
				t.Errorf("resumed %d jobs, want 1", s2.resume)
			}
			rec := mustRecord(t, s2.task, jobID)
			var ids []string
			for _, l := range rec.Ligands {
				ids = append(ids, LigandID(l))
			}
			before := rec.Progress.Finished
			if before < after {
				t.Errorf("%d ligands committed before the kill, the server printed %d", before, after)
			}
			s2.checkFinished(t, jobs.Job{ID: jobID, IRI: rec.IRI}, ids)
			if n := s2.gate.count(); n != len(ids)-before {
				t.Errorf("the restarted process committed %d ligands, want the %d without an outcome", n, len(ids)-before)
			}
			s2.stop()
			stopped = true
			if ps := sharedtest.Procs(func(p sharedtest.Proc) bool {
				return slices.ContainsFunc(p.Args, func(a string) bool { return strings.HasPrefix(a, root) })
			}); len(ps) > 0 {
				t.Errorf("processes of the temp root still run: %+v", ps)
			}
			if left, _ := os.ReadDir(root); len(left) != 0 {
				t.Errorf("temp dirs left after the job: %v", left)
			}
		})
	}
}

// lockedBuilder is a strings.Builder shared with the line reader.
type lockedBuilder struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedBuilder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
