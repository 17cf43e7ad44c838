package batch_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/sdf"
	"github.com/molgraph/molgraph/shapes"
)

const base = "http://localhost:8080/"

// nciSMILES is RDKit's NCI sample (Debian rdkit-data): 4999 SMILES lines.
const nciSMILES = "/usr/share/RDKit/Data/NCI/first_5K.smi"

func newPool(t testing.TB) *chem.Pool {
	t.Helper()
	pool, err := chem.NewPool(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

func openStore(t testing.TB, dir string) *graph.Store {
	t.Helper()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRegisterIdempotentAnd3D(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	pool := newPool(t)
	reg := batch.NewRegistry(st, pool, base, nil)
	ctx := context.Background()
	in := batch.Input{Format: chem.FormatSMILES, Content: "CC(=O)Oc1ccccc1C(=O)O", Name: "aspirin"}
	first, created, err := reg.Register(ctx, in)
	if err != nil || !created {
		t.Fatalf("first: created %v err %v", created, err)
	}
	// Another spelling of the same structure, another name: the stored record.
	again, created, err := reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: "OC(=O)c1ccccc1OC(C)=O", Name: "other"})
	if err != nil || created || !reflect.DeepEqual(again, first) {
		t.Fatalf("second: created %v err %v\n%+v\n%+v", created, err, again, first)
	}
	// A 3D request adds a conformer to the existing molecule.
	in.Generate3D = true
	with3D, created, err := reg.Register(ctx, in)
	if err != nil || created || !with3D.Has3D || with3D.Structure == nil || with3D.CreatedAt != first.CreatedAt || with3D.ID != first.ID {
		t.Fatalf("3D: created %v err %v rec %+v", created, err, with3D)
	}
	sdfBytes, err := st.Blobs().Get(with3D.Structure.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	xyz, err := sdf.MolfileXYZ(string(sdfBytes), "")
	if err != nil || !strings.HasPrefix(xyz, "21\n") { // C9H8O4 with hydrogens
		t.Fatalf("conformer: %v\n%s", err, xyz)
	}
	// Not a molecule: an error naming the problem, nothing stored.
	quadsBefore, _, _ := st.Stats(ctx)
	_, _, err = reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: "C1CC"})
	var me *chem.MoleculeError
	if !errors.Is(err, chem.ErrInvalidMolecule) || !errors.As(err, &me) || me.Reason == "" {
		t.Fatalf("invalid: %v", err)
	}
	if q, _, _ := st.Stats(ctx); q != quadsBefore {
		t.Errorf("quads %d -> %d after an invalid molecule", quadsBefore, q)
	}

	// A structure libinchi refuses (a dummy atom) is stored, not validated,
	// without InChI (spec/API.md: validated false, reasons in validation).
	noInChI, created, err := reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: "*CCO"})
	if err != nil || !created || noInChI.Validated || noInChI.InChI != "" || noInChI.InChIKey != "" || noInChI.SMILES != "*CCO" {
		t.Fatalf("no InChI: created %v err %v rec %+v", created, err, noInChI)
	}
	codes := map[string]string{}
	for _, is := range noInChI.Validation {
		codes[is.Code] = is.Level
	}
	if codes["inchi"] != "error" || codes["dummy_atom"] != "error" {
		t.Errorf("no InChI: validation %+v", noInChI.Validation)
	}

	// Drop every in-memory state: close and reopen the Badger store; the
	// record read back is the same.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2 := openStore(t, dir)
	defer st2.Close()
	got, err := batch.NewRegistry(st2, pool, base, nil).Get(ctx, first.ID)
	if err != nil || !reflect.DeepEqual(got, with3D) {
		t.Fatalf("after reopen: %v\n got %+v\nwant %+v", err, got, with3D)
	}
}

// spoolLines spools SMILES lines.
func spoolLines(t testing.TB, st *graph.Store, lines []string, max int) (graph.BlobRef, int, error) {
	t.Helper()
	rr := sdf.NewSMILESReader(strings.NewReader(strings.Join(lines, "\n")), 0)
	ref, n, unpin, err := batch.Spool(st.Blobs(), batch.FileSource(rr, chem.FormatSMILES, false), batch.Limits{MaxRecords: max})
	if unpin != nil {
		unpin()
	}
	return ref, n, err
}

func TestSpoolTooLarge(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	defer st.Close()
	lines := make([]string, 11)
	for i := range lines {
		lines[i] = strings.Repeat("C", i+1)
	}
	if _, n, err := spoolLines(t, st, lines, 11); err != nil || n != 11 {
		t.Fatalf("11 of 11: %d %v", n, err)
	}
	lines = append(lines, "CCCCCCCCCCCCO")
	if _, _, err := spoolLines(t, st, lines, 11); !errors.Is(err, batch.ErrBatchTooLarge) {
		t.Fatalf("12 of 11: %v", err)
	}
	// Only the first spool is stored: one file under blobs (tmp is empty).
	n := 0
	walkFiles(t, dir+"/blobs", func(string) { n++ })
	if n != 1 {
		t.Errorf("%d blob files, want 1", n)
	}
}

func walkFiles(t *testing.T, dir string, fn func(string)) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			walkFiles(t, dir+"/"+e.Name(), fn)
		} else {
			fn(dir + "/" + e.Name())
		}
	}
}

// readNCI returns the first n lines of the NCI sample (skips the test if
// rdkit-data is missing).
func readNCI(t testing.TB, n int) []string {
	f, err := os.Open(nciSMILES)
	if err != nil {
		t.Skipf("%v (apt install rdkit-data)", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		out = append(out, sc.Text())
	}
	return out
}

// runJob submits lines as a batch job and returns the runner and job.
func submit(t testing.TB, st *graph.Store, task *batch.Task, runner *jobs.Runner, lines []string) jobs.Job {
	t.Helper()
	ref, n, err := spoolLines(t, st, lines, 100000)
	if err != nil {
		t.Fatal(err)
	}
	id := jobs.NewID(batch.JobIDPrefix, time.Now())
	j, err := runner.Submit(context.Background(), task.NewJob(id, ref, n, "test.smi"))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func waitFor(t testing.TB, runner *jobs.Runner, iri quad.IRI, cond func(jobs.Job) bool) jobs.Job {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		j, err := runner.Get(context.Background(), iri)
		if err != nil {
			t.Fatal(err)
		}
		if cond(j) {
			return j
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("timeout")
	return jobs.Job{}
}

// checkJob verifies a finished job: every record has exactly one item,
// counts add up, each created molecule exists once, and the molecules of
// the store are exactly the created ones (plus preexisting).
func checkJob(t *testing.T, st *graph.Store, j jobs.Job, lines []string, preexisting int) {
	t.Helper()
	ctx := context.Background()
	c := batch.CountsOf(&j)
	if c.Total != int64(len(lines)) || c.Processed != c.Total || c.Created+c.Existing+c.Failed != c.Total {
		t.Fatalf("counts %+v for %d lines", c, len(lines))
	}
	items, more, err := batch.Items(ctx, st, j.IRI, c.Processed, 0, len(lines)+10)
	if err != nil || more || len(items) != len(lines) {
		t.Fatalf("items: %d more %v err %v", len(items), more, err)
	}
	created := map[string]bool{}
	var nc, ne, nf int64
	for i, it := range items {
		if it.Index != i {
			t.Fatalf("item %d has index %d", i, it.Index)
		}
		switch it.Status {
		case batch.ItemCreated:
			nc++
			if created[it.MoleculeID] {
				t.Errorf("molecule %s created twice", it.MoleculeID)
			}
			created[it.MoleculeID] = true
		case batch.ItemExisting:
			ne++
		case batch.ItemFailed:
			nf++
			if it.Error == "" {
				t.Errorf("item %d failed without a message", i)
			}
		}
	}
	if nc != c.Created || ne != c.Existing || nf != c.Failed {
		t.Errorf("items say %d/%d/%d, counters %+v", nc, ne, nf, c)
	}
	var all []quad.IRI
	var after quad.IRI
	for {
		page, more, err := st.ListByClass(ctx, ontology.MoleculeClass, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if !more {
			break
		}
		after = page[len(page)-1]
	}
	if len(all) != len(created)+preexisting {
		t.Errorf("%d molecules stored, %d created + %d before", len(all), len(created), preexisting)
	}
}

func TestBatchJob(t *testing.T) {
	lines := readNCI(t, 600)
	lines = append(lines, "not a smiles", "C1CC broken ring", lines[0], lines[1]) // 2 failures, 2 duplicates
	dir := t.TempDir()
	st := openStore(t, dir)
	defer st.Close()
	reg := batch.NewRegistry(st, newPool(t), base, nil)
	task := batch.NewTask(reg, batch.TaskOptions{ChunkRecords: 200})
	runner, err := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	if _, err := runner.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	j := submit(t, st, task, runner, lines)
	j = waitFor(t, runner, j.IRI, func(j jobs.Job) bool { return j.Status.Finished() })
	if j.Status != jobs.Succeeded || j.StartedAt.IsZero() || j.EndedAt.Before(j.StartedAt) {
		t.Fatalf("job %+v", j)
	}
	checkJob(t, st, j, lines, 0)
	c := batch.CountsOf(&j)
	if c.Failed < 2 || c.Existing < 2 {
		t.Errorf("counts %+v: want at least the 2 bad lines failed and the 2 repeats existing", c)
	}
	errs, err := batch.Errors(context.Background(), st, j.IRI, 100)
	if err != nil || int64(len(errs)) != c.Failed || errs[len(errs)-2].Index != 600 || !strings.Contains(errs[len(errs)-1].Error, "") {
		t.Errorf("errors %v %+v", err, errs)
	}
	// A second job of the same lines: everything exists (or fails again).
	j2 := submit(t, st, task, runner, lines)
	j2 = waitFor(t, runner, j2.IRI, func(j jobs.Job) bool { return j.Status.Finished() })
	c2 := batch.CountsOf(&j2)
	if c2.Created != 0 || c2.Existing != c.Created+c.Existing || c2.Failed != c.Failed {
		t.Errorf("second job %+v after %+v", c2, c)
	}
	// Cancelling a finished job is refused.
	if _, err := runner.Cancel(context.Background(), j2.IRI); !errors.Is(err, jobs.ErrFinished) {
		t.Errorf("cancel finished: %v", err)
	}
}

// TestBatchResume stops the runner in the middle of a job (as a shutdown
// would), closes and reopens the Badger store, and resumes: the job ends
// with every record processed exactly once.
func TestBatchResume(t *testing.T) {
	stopAndResume(t, readNCI(t, 1500), func(st *graph.Store) *batch.Task {
		return batch.NewTask(batch.NewRegistry(st, newPool(t), base, nil), batch.TaskOptions{ChunkRecords: 200})
	}, func() {})
}

// stopAndResume runs lines as a batch job of newTask(store) on a Badger
// store in a new directory, stops the runner once 200 records are
// processed (as a shutdown would) and closes the store, calls between,
// then reopens the store and resumes the job with a new task: it must
// succeed with every record processed exactly once (checkJob).
func stopAndResume(t *testing.T, lines []string, newTask func(*graph.Store) *batch.Task, between func()) {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	var iri quad.IRI
	{
		st := openStore(t, dir)
		task := newTask(st)
		runner, _ := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
		if _, err := runner.Start(ctx); err != nil {
			t.Fatal(err)
		}
		j := submit(t, st, task, runner, lines)
		iri = j.IRI
		j = waitFor(t, runner, iri, func(j jobs.Job) bool { return batch.CountsOf(&j).Processed >= 200 })
		runner.Close()
		j, _ = runner.Get(ctx, iri)
		if j.Status != jobs.Running || batch.CountsOf(&j).Processed >= int64(len(lines)) {
			t.Fatalf("after stop: %s %+v", j.Status, batch.CountsOf(&j))
		}
		t.Logf("stopped at %d of %d", batch.CountsOf(&j).Processed, len(lines))
		st.Close()
	}
	between()
	st := openStore(t, dir)
	defer st.Close()
	task := newTask(st)
	runner, _ := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	defer runner.Close()
	n, err := runner.Start(ctx)
	if err != nil || n != 1 {
		t.Fatalf("resumed %d jobs, err %v", n, err)
	}
	j := waitFor(t, runner, iri, func(j jobs.Job) bool { return j.Status.Finished() })
	if j.Status != jobs.Succeeded {
		t.Fatalf("job %+v", j)
	}
	checkJob(t, st, j, lines, 0)
}

func TestBatchCancel(t *testing.T) {
	lines := readNCI(t, 3000)
	st := openStore(t, t.TempDir())
	defer st.Close()
	reg := batch.NewRegistry(st, newPool(t), base, nil)
	task := batch.NewTask(reg, batch.TaskOptions{ChunkRecords: 100})
	runner, _ := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	defer runner.Close()
	// A queued job (runner not started) is cancelled at once.
	queued := submit(t, st, task, runner, lines[:10])
	if j, err := runner.Cancel(context.Background(), queued.IRI); err != nil || j.Status != jobs.Cancelled || j.EndedAt.IsZero() {
		t.Fatalf("cancel queued: %v %+v", err, j)
	}
	runner.Start(context.Background())
	j := submit(t, st, task, runner, lines)
	waitFor(t, runner, j.IRI, func(j jobs.Job) bool { return batch.CountsOf(&j).Processed > 0 })
	j, err := runner.Cancel(context.Background(), j.IRI)
	c := batch.CountsOf(&j)
	if err != nil || j.Status != jobs.Cancelled || c.Processed == 0 || c.Processed >= c.Total {
		t.Fatalf("cancel running: %v %s %+v", err, j.Status, c)
	}
	items, _, err := batch.Items(context.Background(), st, j.IRI, c.Processed, 0, 100000)
	if err != nil || int64(len(items)) != c.Processed {
		t.Errorf("%d items for %d processed (%v)", len(items), c.Processed, err)
	}
	if _, err := runner.Cancel(context.Background(), j.IRI); !errors.Is(err, jobs.ErrFinished) {
		t.Errorf("second cancel: %v", err)
	}
	if _, err := runner.Cancel(context.Background(), quad.IRI(base+"id/batch-job/batch-nope")); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("cancel unknown: %v", err)
	}
}

// TestBatchThroughput runs the NCI sample (the first 1000 records, or
// MOLGRAPH_BATCH_N up to 4999) through a Badger store and reports molecules
// per second of wall and CPU time and where the time went. Skipped with
// -short.
func TestBatchThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("throughput run")
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("MOLGRAPH_BATCH_N")); err == nil && v > 0 {
		n = v
	}
	lines := readNCI(t, n)
	// Durable commits (group commit) as the server's default; MOLGRAPH_BATCH_SYNC=off
	// measures without them.
	sync := os.Getenv("MOLGRAPH_BATCH_SYNC") != "off"
	st, err := graph.Open(t.TempDir(), graph.Options{SyncWrites: sync})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sync writes: %v", sync)
	if os.Getenv("MOLGRAPH_BATCH_STORE") == "memory" { // to separate the store's cost
		st.Close()
		st, _ = graph.OpenMemory(graph.Options{})
	}
	defer st.Close()
	reg := batch.NewRegistry(st, newPool(t), base, nil)
	task := batch.NewTask(reg, batch.TaskOptions{})
	runner, _ := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	defer runner.Close()
	runner.Start(context.Background())
	cpu0, t0 := sharedtest.CPUTime(), time.Now()
	j := submit(t, st, task, runner, lines)
	j = waitFor(t, runner, j.IRI, func(j jobs.Job) bool { return j.Status.Finished() })
	wall, cpu := time.Since(t0), sharedtest.CPUTime()-cpu0
	s := task.Stats()
	t.Logf("%d records in %s wall (%.0f mol/s), %s CPU (%.0f mol/CPU-s); chemistry %s wall, %s CPU in RDKit/InChI (%.0f%% of CPU); plan %s, commits %s wall",
		len(lines), wall.Round(time.Millisecond), float64(len(lines))/wall.Seconds(), cpu.Round(time.Millisecond),
		float64(len(lines))/cpu.Seconds(), s.Chemistry.Round(time.Millisecond), s.ChemistryCPU.Round(time.Millisecond),
		100*s.ChemistryCPU.Seconds()/cpu.Seconds(), s.Plan.Round(time.Millisecond), s.Commits.Round(time.Millisecond))
	if j.Status != jobs.Succeeded {
		t.Fatalf("job %+v", j)
	}
}

// TestJobGraphShapes validates a finished batch job's graph and its item
// graphs with the SHACL gate (BatchUploadJobShape, FinishedJobShape) and
// checks that they use only terms the TBox declares.
func TestJobGraphShapes(t *testing.T) {
	gate, err := shapes.NewGate()
	if err != nil {
		t.Fatal(err)
	}
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := batch.NewRegistry(st, newPool(t), base, nil)
	task := batch.NewTask(reg, batch.TaskOptions{})
	runner, _ := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	defer runner.Close()
	runner.Start(context.Background())
	j := submit(t, st, task, runner, []string{"CCO ethanol", "C1CC(( bad", "c1ccccc1"})
	j = waitFor(t, runner, j.IRI, func(j jobs.Job) bool { return j.Status.Finished() })
	var all []quad.Quad
	st.Graphs(context.Background(), func(g quad.IRI) error {
		if strings.HasPrefix(string(g), string(j.IRI)) {
			qs, err := st.Graph(context.Background(), g)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, qs...)
		}
		return nil
	})
	rep, err := gate.Validate(all)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Leaves() {
		t.Errorf("shape violation: %v %v: %s", r.FocusNode, r.Path, r.Message())
	}
	if u := gate.Undeclared(all); len(u) > 0 {
		t.Errorf("undeclared terms (the TBox needs them): %v", u)
	}
	back, err := jobs.JobFromQuads(all, []quad.IRI{batch.Class})
	if err != nil || !reflect.DeepEqual(back, j) {
		t.Errorf("job from quads: %v\n got %+v\nwant %+v", err, back, j)
	}
}
