package search_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/search"
)

var (
	poolOnce sync.Once
	pool1    *chem.Pool
)

func testPool(t *testing.T) *chem.Pool {
	t.Helper()
	poolOnce.Do(func() {
		var err error
		if pool1, err = chem.NewPool(0); err != nil {
			panic(err)
		}
	})
	return pool1
}

// nci returns the first n SMILES of RDKit's NCI sample.
func nci(t *testing.T, n int) []string {
	t.Helper()
	f, err := os.Open("/usr/share/RDKit/Data/NCI/first_5K.smi")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		if fs := strings.Fields(sc.Text()); len(fs) > 0 {
			out = append(out, fs[0])
		}
	}
	return out
}

func register(t *testing.T, st *graph.Store, smiles []string) {
	t.Helper()
	reg := batch.NewRegistry(st, testPool(t), base, nil)
	for _, s := range smiles {
		reg.Register(context.Background(), batch.Input{Format: chem.FormatSMILES, Content: s})
	}
}

// moleculeIDs lists the molecules of the graph.
func moleculeIDs(t *testing.T, st *graph.Store) []string {
	t.Helper()
	var out []string
	var after = ""
	for {
		page, more, err := st.ListByClass(context.Background(), ontology.MoleculeClass, ontologyIRI(after), 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, iri := range page {
			out = append(out, string(iri)[strings.LastIndexByte(string(iri), '/')+1:])
		}
		if !more || len(page) == 0 {
			break
		}
		after = out[len(out)-1]
	}
	slices.Sort(out)
	return out
}

func ontologyIRI(id string) quad.IRI {
	if id == "" {
		return ""
	}
	return ontology.ResourceIRI(base, ontology.KindMolecule, id)
}

// fpIDs lists the molecules with a fingerprint entry in the side keyspace.
func fpIDs(t *testing.T, st *graph.Store) []string {
	t.Helper()
	var out []string
	err := st.ScanSide(context.Background(), []byte("f"), func(k, _ []byte) error {
		out = append(out, string(k[1:]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func allIDs(t *testing.T, x *search.Index) []string {
	t.Helper()
	hits, err := x.Similar(context.Background(), "C", search.SimilarOptions{Threshold: 0})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	slices.Sort(out)
	return out
}

// TestIndexRestartAndRebuild: the index comes back from the store after a
// restart; entries deleted or stray are rebuilt or removed from the graph.
func TestIndexRestartAndRebuild(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := search.Open(ctx, st, testPool(t), base, search.Options{}); err != nil {
		t.Fatal(err)
	}
	register(t, st, nci(t, 150))
	mols := moleculeIDs(t, st)
	acids := func(x *search.Index) []search.Hit {
		h, err := x.Substructure(ctx, "C(=O)[OH]", search.SubOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	x0, _ := search.Open(ctx, st, testPool(t), base, search.Options{})
	want := acids(x0)
	if len(want) == 0 || len(mols) < 140 {
		t.Fatalf("%d acids among %d molecules", len(want), len(mols))
	}
	st.Close()
	st, err = graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := fpIDs(t, st); !slices.Equal(got, mols) {
		t.Fatalf("after restart %d entries for %d molecules", len(got), len(mols))
	}
	// damage: drop 10 entries, add a stray one
	kvs := lostEntries(mols[:10])
	e, err := search.Prepare("mol-aaaaaaaaaaaaaaaaaaaaaaaaaa", "CCO", "LFQSCWFLJHTTHZ-UHFFFAOYSA-N")
	if err != nil {
		t.Fatal(err)
	}
	kvs = append(kvs, e...)
	if err := st.PutSide(ctx, kvs); err != nil {
		t.Fatal(err)
	}
	x, err := search.Open(ctx, st, testPool(t), base, search.Options{CacheMolecules: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	// rebuilt: x holds every molecule of the graph, finds the acids it
	// found before, and the store holds an entry for each molecule.
	rebuilt := func(x *search.Index, when string) {
		t.Helper()
		if got := allIDs(t, x); !slices.Equal(got, mols) {
			t.Errorf("%s: index holds %d molecules, graph %d", when, len(got), len(mols))
		}
		if got := acids(x); !slices.Equal(got, want) {
			t.Errorf("acids %s: %d, before %d", when, len(got), len(want))
		}
		if got := fpIDs(t, st); !slices.Equal(got, mols) {
			t.Errorf("%s: %d entries for %d molecules", when, len(got), len(mols))
		}
	}
	rebuilt(x, "after reopen")
	if hits, _ := x.Exact(ctx, "LFQSCWFLJHTTHZ-UHFFFAOYSA-N", search.ExactOptions{}); len(hits) != 0 {
		t.Errorf("stray entry still found: %v", hits)
	}

	// every entry lost: the index is rebuilt from the graph in full
	if err := st.PutSide(ctx, lostEntries(mols)); err != nil {
		t.Fatal(err)
	}
	if got := fpIDs(t, st); len(got) != 0 {
		t.Fatalf("%d entries left after deleting all", len(got))
	}
	x2, err := search.Open(ctx, st, testPool(t), base, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x2.Close()
	rebuilt(x2, "after a full rebuild")
}

// lostEntries are side entries that delete the fingerprint ("f") and
// pickle ("p") entries of the molecules ids.
func lostEntries(ids []string) []graph.SideEntry {
	var kvs []graph.SideEntry
	for _, id := range ids {
		kvs = append(kvs, graph.SideEntry{Key: []byte("f" + id)}, graph.SideEntry{Key: []byte("p" + id)})
	}
	return kvs
}

// TestSearchSeesOnlyCommitted searches while molecules are registered:
// every hit is a molecule already in the graph.
func TestSearchSeesOnlyCommitted(t *testing.T) {
	ctx := context.Background()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := search.Open(ctx, st, testPool(t), base, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	go func() {
		register(t, st, nci(t, 300))
		done.Store(true)
	}()
	searches := 0
	for !done.Load() {
		hits, err := x.Substructure(ctx, "c1ccccc1", search.SubOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			ok, err := st.HasGraph(ctx, x.IRI(h.ID))
			if err != nil || !ok {
				t.Fatalf("hit %s is not in the graph (%v)", h.ID, err)
			}
		}
		searches++
	}
	if searches < 2 {
		t.Logf("only %d searches ran during the registration", searches)
	}
}

// Environment of TestKillChild in a re-executed test binary.
const killDirEnv = "MOLGRAPH_TEST_SEARCH_KILL_DIR"

// tracedTask is the batch task with "commit-start" printed before each
// commit, so that the parent can kill the process inside one.
type tracedTask struct{ *batch.Task }

func (t tracedTask) Run(ctx context.Context, j jobs.Job, commit jobs.CommitFunc) error {
	return t.Task.Run(ctx, j, func(ctx context.Context, gs []graph.NamedGraph, props []jobs.Prop) error {
		fmt.Println("commit-start")
		return commit(ctx, gs, props)
	})
}

// TestKillChild is not a test of its own: TestIndexKill9 runs it in a
// child process, where it submits (or resumes) a batch job of NCI
// molecules committed in chunks of 200, until it is killed.
func TestKillChild(t *testing.T) {
	dir := os.Getenv(killDirEnv)
	if dir == "" {
		t.Skip("only run by TestIndexKill9")
	}
	ctx := context.Background()
	st, err := graph.Open(dir, graph.Options{SyncWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	reg := batch.NewRegistry(st, testPool(t), base, nil)
	task := batch.NewTask(reg, batch.TaskOptions{ChunkRecords: 200})
	runner, err := jobs.NewRunner(st, base, []jobs.Task{tracedTask{task}}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := runner.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		smiles := nci(t, 5000)
		i := 0
		src := func() (batch.Input, error) {
			if i == len(smiles) {
				return batch.Input{}, io.EOF
			}
			i++
			return batch.Input{Format: chem.FormatSMILES, Content: smiles[i-1]}, nil
		}
		ref, total, unpin, err := batch.Spool(st.Blobs(), src, batch.Limits{MaxRecords: 10000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runner.Submit(ctx, task.NewJob(jobs.NewID(batch.JobIDPrefix, time.Now()), ref, total, "nci.smi")); err != nil {
			t.Fatal(err)
		}
		unpin()
	}
	time.Sleep(10 * time.Minute) // killed long before
}

// TestIndexKill9 kills a process in the middle of registering molecules
// (kill -9, several commits in flight) and checks that every molecule of
// the graph has its index entries and no entry lacks its molecule.
func TestIndexKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), killDirEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		// Killed inside the (round+2)th commit it starts, 0-4 ms in.
		deadline := time.AfterFunc(5*time.Minute, func() { cmd.Process.Kill() })
		for commits := 0; sc.Scan(); {
			if sc.Text() == "commit-start" {
				if commits++; commits == round+2 {
					break
				}
			}
		}
		deadline.Stop()
		time.Sleep(time.Duration(2*round) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		st, err := graph.Open(dir, graph.Options{SyncWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		mols := moleculeIDs(t, st)
		if got := fpIDs(t, st); !slices.Equal(got, mols) {
			t.Errorf("round %d: %d fingerprint entries for %d molecules", round, len(got), len(mols))
		}
		x, err := search.Open(context.Background(), st, testPool(t), base, search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := allIDs(t, x); !slices.Equal(got, mols) {
			t.Errorf("round %d: index holds %d molecules, graph %d", round, len(got), len(mols))
		}
		t.Logf("round %d: killed with %d molecules stored (recovered: %v)", round, len(mols), st.Recovered())
		st.Close()
	}
}
