package docking

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"
	"github.com/molgraph/molgraph/internal/subproc"
)

// fakeServerEnv selects TestFakeServer's mode in a re-executed test
// binary: "ours" docks through Vina.Dock (package subproc), "plain" starts
// vina as this package did before (its own process group, no parent-death
// signal). fakeServerTmp is the temp root of "ours".
const (
	fakeServerEnv = "MOLGRAPH_TEST_FAKE_SERVER"
	fakeServerTmp = "MOLGRAPH_TEST_FAKE_SERVER_TMP"
)

// TestFakeServer is not a test of its own: TestVinaDiesWithServer runs
// the test binary again with fakeServerEnv set, and this function is then
// the "server", which starts one long vina run (imatinib into 1iep at
// exhaustiveness 8, about a minute) and waits to be killed.
func TestFakeServer(t *testing.T) {
	mode := os.Getenv(fakeServerEnv)
	if mode == "" {
		t.Skip("only run by TestVinaDiesWithServer")
	}
	receptor := filepath.Join(corpus(t), "vina-examples/1iep/1iep_receptor.pdbqt")
	ligand := filepath.Join(corpus(t), "vina-examples/1iep/1iep_ligand.pdbqt")
	switch mode {
	case "ours":
		tmp, _, err := subproc.OpenTempDirs(os.Getenv(fakeServerTmp))
		if err != nil {
			t.Fatal(err)
		}
		v := newVina(t).WithTempDirs(tmp)
		_, err = v.Dock(context.Background(), receptor, Ligand{Name: "imatinib", PDBQT: readCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt")},
			box1iep, Params{Exhaustiveness: 8, CPU: 1}, nil)
		t.Fatalf("vina returned before the server was killed: %v", err)
	case "plain":
		cmd := exec.Command(newVina(t).Path(), "--receptor", receptor, "--ligand", ligand, "--out", filepath.Join(t.TempDir(), "out.pdbqt"),
			"--center_x", "15.19", "--center_y", "53.903", "--center_z", "16.917", "--size_x", "20", "--size_y", "20", "--size_z", "20",
			"--exhaustiveness", "8", "--cpu", "1", "--seed", "1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err := cmd.Run()
		t.Fatalf("vina returned before the server was killed: %v", err)
	}
}

// TestVinaDiesWithServer: a "server" process (this test binary again, see
// TestFakeServer) runs a long vina through Vina.Dock and is killed with
// SIGKILL; its vina must be gone within 2 s, and the temp directory it
// left is removed by the next OpenTempDirs on the same root. The same
// with vina started as before (no parent-death signal) leaves vina
// running, which shows that the check can fail.
func TestVinaDiesWithServer(t *testing.T) {
	newVina(t)
	corpus(t)
	for _, tc := range []struct {
		mode     string
		survives bool
	}{{"ours", false}, {"plain", true}} {
		t.Run(tc.mode, func(t *testing.T) {
			root := t.TempDir()
			srv := exec.Command(os.Args[0], "-test.run=^TestFakeServer$", "-test.count=1", "-test.timeout=5m")
			srv.Env = append(os.Environ(), fakeServerEnv+"="+tc.mode, fakeServerTmp+"="+root)
			var out strings.Builder
			srv.Stdout, srv.Stderr = &out, &out
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- srv.Wait() }()
			vina := findDocking(t, srv.Process.Pid, exited, &out)
			if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-exited
			killed := time.Now()
			gone := sharedtest.GoneWithin(vina.Pid, 2*time.Second)
			if gone {
				t.Logf("vina %d gone %v after the server's exit", vina.Pid, time.Since(killed).Round(time.Millisecond))
			}
			if !gone {
				syscall.Kill(vina.Pid, syscall.SIGKILL) // the test's own cleanup
			}
			switch {
			case tc.survives && gone:
				t.Errorf("vina (pid %d) started without a parent-death signal died with the server: the check cannot tell", vina.Pid)
			case !tc.survives && !gone:
				t.Errorf("vina (pid %d, %s) outlived the killed server by 2 s", vina.Pid, strings.Join(vina.Args, " "))
			}
			if tc.mode != "ours" {
				return
			}
			left, _ := os.ReadDir(root)
			if len(left) != 1 {
				t.Errorf("the killed server left %d temp dirs in %s, want its vina dir", len(left), root)
			}
			if _, n, err := subproc.OpenTempDirs(root); err != nil || n != len(left) {
				t.Errorf("sweep after restart: removed %d of %d (%v)", n, len(left), err)
			}
			if left, _ := os.ReadDir(root); len(left) != 0 {
				t.Errorf("after the sweep: %v left", left)
			}
		})
	}
}

// findDocking waits (at most a minute) for a vina docking run (not vina
// --version) whose parent is ppid.
func findDocking(t *testing.T, ppid int, exited <-chan error, out fmt.Stringer) sharedtest.Proc {
	t.Helper()
	p, ok := sharedtest.WaitProc(func(p sharedtest.Proc) bool {
		return p.PPid == ppid && filepath.Base(p.Args[0]) == "vina" && slices.Contains(p.Args, "--receptor")
	}, time.Minute, exited)
	if !ok {
		t.Fatalf("the server started no vina run (or exited):\n%s", out)
	}
	return p
}
