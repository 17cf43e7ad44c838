package batch_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
)

// Environment of TestBatchProcess in a re-executed test binary.
const (
	killDirEnv   = "MOLGRAPH_TEST_BATCH_DIR"
	killInputEnv = "MOLGRAPH_TEST_BATCH_INPUT"
	killSlowEnv  = "MOLGRAPH_TEST_BATCH_SLOW_SPOOL"
)

// killChunk is the chunk size of the killed process: many commits.
const killChunk = 300

// tracedTask is the batch task with its commits reported on stdout
// ("commit-start <processed before>", "commit-done <processed after>").
type tracedTask struct{ *batch.Task }

func (t tracedTask) Run(ctx context.Context, j jobs.Job, commit jobs.CommitFunc) error {
	return t.Task.Run(ctx, j, func(ctx context.Context, gs []graph.NamedGraph, props []jobs.Prop) error {
		fmt.Printf("commit-start\n")
		err := commit(ctx, gs, props)
		if err == nil {
			c := batch.CountsOf(&jobs.Job{Props: props})
			fmt.Printf("commit-done %d\n", c.Processed)
		}
		return err
	})
}

// TestBatchProcess is not a test of its own: TestBatchKill9 runs the test
// binary again with killDirEnv set, and this function is then the server
// process. If the store holds no batch job, it spools the input (slowly
// after 100 records with killSlowEnv, printing "spooling") and submits it;
// otherwise the runner resumes the job. It prints "job <iri>" and its
// commits, "done <status>" at the end, and exits.
func TestBatchProcess(t *testing.T) {
	dir := os.Getenv(killDirEnv)
	if dir == "" {
		t.Skip("only run by TestBatchKill9")
	}
	ctx := context.Background()
	st, err := graph.Open(dir, graph.Options{SyncWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fmt.Printf("recovered %v\n", st.Recovered())
	reg := batch.NewRegistry(st, newPool(t), base, nil)
	task := batch.NewTask(reg, batch.TaskOptions{ChunkRecords: killChunk})
	runner, err := jobs.NewRunner(st, base, []jobs.Task{tracedTask{task}}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	if _, err := runner.Start(ctx); err != nil {
		t.Fatal(err)
	}
	jobsNow, _, err := st.ListByClass(ctx, batch.Class, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var iri = func() string {
		if len(jobsNow) > 0 {
			return string(jobsNow[0])
		}
		return ""
	}()
	if iri == "" {
		data, err := os.ReadFile(os.Getenv(killInputEnv))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		i := 0
		src := func() (batch.Input, error) {
			if i == len(lines) {
				return batch.Input{}, io.EOF
			}
			if i == 100 && os.Getenv(killSlowEnv) != "" {
				fmt.Printf("spooling\n")
				time.Sleep(time.Minute)
			}
			i++
			return batch.Input{Format: "smiles", Content: lines[i-1]}, nil
		}
		ref, n, unpin, err := batch.Spool(st.Blobs(), src, batch.Limits{MaxRecords: 100000})
		if err != nil {
			t.Fatal(err)
		}
		j, err := runner.Submit(ctx, task.NewJob(jobs.NewID(batch.JobIDPrefix, time.Now()), ref, n, "kill.smi"))
		unpin()
		if err != nil {
			t.Fatal(err)
		}
		iri = string(j.IRI)
	}
	fmt.Printf("job %s\n", iri)
	for {
		j, err := runner.Get(ctx, quad.IRI(iri))
		if err != nil {
			t.Fatal(err)
		}
		if j.Status.Finished() {
			fmt.Printf("done %s\n", j.Status)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// child is a running TestBatchProcess.
type child struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan struct{}
}

func startChild(t *testing.T, dir, input string, slow bool) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBatchProcess$", "-test.v")
	cmd.Env = append(os.Environ(), killDirEnv+"="+dir, killInputEnv+"="+input)
	if slow {
		cmd.Env = append(cmd.Env, killSlowEnv+"=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 1000), done: make(chan struct{})}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	go func() { cmd.Wait(); close(c.done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-c.done })
	return c
}

// until reads the child's output until a line for which stop is true, and
// returns it.
func (c *child) until(t *testing.T, stop func(string) bool) string {
	t.Helper()
	timeout := time.After(10 * time.Minute)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatal("the process ended early")
			}
			if stop(l) {
				return l
			}
		case <-timeout:
			t.Fatal("timeout waiting for the process")
		}
	}
}

func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
}

// killMolecules are n distinct molecules: CaOCbN (a, b = 1..50).
func killMolecules(n int) []string {
	var out []string
	for a := 1; a <= 50 && len(out) < n; a++ {
		for b := 1; b <= 50 && len(out) < n; b++ {
			out = append(out, strings.Repeat("C", a)+"O"+strings.Repeat("C", b)+"N")
		}
	}
	return out
}

// TestBatchKill9 is the batch kill -9 suite: a process running a batch job
// of distinct molecules gets SIGKILL at three points, and a new process on
// the same data directory finishes the job with every record once:
//   - before the spool is complete (while the upload is read): no job, and
//     nothing left in the blob store; a new upload then runs normally;
//   - during a commit, three times in a row (20, 80 and 250 ms into the
//     second commit after each restart; each restart logs whether it rolled
//     an interrupted commit back);
//   - after the last commit, before the job's end is stored.
//
// Each resumed job must succeed with exact counts (every record created
// once, no duplicate molecule, exactly n molecules stored), and its spool
// is released once it ended.
func TestBatchKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 suite")
	}
	const n = 2000
	lines := killMolecules(n)
	input := filepath.Join(t.TempDir(), "in.smi")
	if err := os.WriteFile(input, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	finish := func(t *testing.T, dir string) {
		t.Helper()
		c := startChild(t, dir, input, false)
		rec := c.until(t, func(l string) bool { return strings.HasPrefix(l, "recovered") })
		l := c.until(t, func(l string) bool { return strings.HasPrefix(l, "done ") })
		t.Logf("restart: %s; %s", rec, l)
		if l != "done succeeded" {
			t.Fatalf("resumed job: %s", l)
		}
		<-c.done
		st, err := graph.Open(dir, graph.Options{SyncWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		js, _, err := st.ListByClass(context.Background(), batch.Class, "", 10)
		if err != nil || len(js) != 1 {
			t.Fatalf("jobs %v %v", js, err)
		}
		task := batch.NewTask(batch.NewRegistry(st, newPool(t), base, nil), batch.TaskOptions{})
		runner, _ := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
		j, err := runner.Get(context.Background(), js[0])
		if err != nil {
			t.Fatal(err)
		}
		checkJob(t, st, j, lines, 0)
		if c := batch.CountsOf(&j); c.Created != n {
			t.Errorf("created %d of %d distinct molecules", c.Created, n)
		}
		uses, err := batch.BlobUses(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if u := uses(j.Source.SHA256); u != graph.BlobReleased {
			t.Errorf("the spool of the ended job is not released: %v", u)
		}
	}

	t.Run("before the spool is complete", func(t *testing.T) {
		dir := t.TempDir()
		c := startChild(t, dir, input, true)
		c.until(t, func(l string) bool { return l == "spooling" })
		c.kill(t)
		st, err := graph.Open(dir, graph.Options{SyncWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		js, _, _ := st.ListByClass(context.Background(), batch.Class, "", 10)
		mols, _, _ := st.ListByClass(context.Background(), ontology.MoleculeClass, "", 10)
		st.Close()
		if len(js) != 0 || len(mols) != 0 {
			t.Fatalf("after a kill during the upload: jobs %v, molecules %v", js, mols)
		}
		var left []string
		filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				left = append(left, p)
			}
			return nil
		})
		if len(left) != 0 {
			t.Errorf("the killed upload left %v", left)
		}
		finish(t, dir)
	})

	t.Run("during a commit", func(t *testing.T) {
		dir := t.TempDir()
		// Three kills, each some time into the second commit after a
		// (re)start: a commit of 300 records writes some 12,000 quads, so
		// one of the delays lands inside it on most machines (the next
		// start reports the rollback as "recovered true").
		for _, d := range []time.Duration{20 * time.Millisecond, 80 * time.Millisecond, 250 * time.Millisecond} {
			c := startChild(t, dir, input, false)
			rec := c.until(t, func(l string) bool { return strings.HasPrefix(l, "recovered") })
			starts := 0
			c.until(t, func(l string) bool {
				if l == "commit-start" {
					starts++
				}
				return starts == 2
			})
			time.Sleep(d)
			c.kill(t)
			t.Logf("start: %s; killed %v into a commit", rec, d)
		}
		finish(t, dir)
	})

	t.Run("after the last commit", func(t *testing.T) {
		dir := t.TempDir()
		c := startChild(t, dir, input, false)
		c.until(t, func(l string) bool { return l == "commit-done "+strconv.Itoa(n) })
		c.kill(t)
		finish(t, dir)
	})
}
