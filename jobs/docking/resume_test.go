package docking

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
)

// gate is a jobs.Task around the docking task that counts the commits of
// its Run and, after allow commits (allow < 0: no limit), holds every
// further commit until the job's context ends and then fails it: the
// ligand being committed is lost exactly as if the process had died before
// its transaction, and the runner's shutdown interrupts the job.
type gate struct {
	*Task
	allow   int
	mu      sync.Mutex
	commits int
	reached chan struct{} // closed when allow commits are durable
	// onCommit, when set, is called with the count after each durable
	// commit (under the gate's lock).
	onCommit func(n int)
}

func newGate(t *Task, allow int) *gate {
	return &gate{Task: t, allow: allow, reached: make(chan struct{})}
}

func (g *gate) Run(ctx context.Context, j jobs.Job, commit jobs.CommitFunc) error {
	return g.Task.Run(ctx, j, func(cctx context.Context, graphs []graph.NamedGraph, props []jobs.Prop) error {
		g.mu.Lock()
		if g.allow >= 0 && g.commits >= g.allow {
			g.mu.Unlock()
			<-ctx.Done()
			return ctx.Err()
		}
		g.mu.Unlock()
		if err := commit(cctx, graphs, props); err != nil {
			return err
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		g.commits++
		if g.commits == g.allow {
			close(g.reached)
		}
		if g.onCommit != nil {
			g.onCommit(g.commits)
		}
		return nil
	})
}

func (g *gate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.commits
}

// service is one "process": a Badger store on dir, a registry, the
// docking task behind a gate and a started runner.
type service struct {
	store  *graph.Store
	pool   *chem.Pool
	reg    *batch.Registry
	task   *Task
	gate   *gate
	runner *jobs.Runner
	resume int // jobs the runner resumed at Start
}

func startService(t *testing.T, dir string, vina *dk.Vina, allow int) *service {
	t.Helper()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := chem.NewPool(runtime.GOMAXPROCS(0))
	if err != nil {
		t.Fatal(err)
	}
	s := &service{store: st, pool: pool, reg: batch.NewRegistry(st, pool, base, nil)}
	s.task = NewTask(s.reg, vina, Options{Workers: 1})
	s.gate = newGate(s.task, allow)
	if s.runner, err = jobs.NewRunner(st, base, []jobs.Task{s.gate}, jobs.Options{}); err != nil {
		t.Fatal(err)
	}
	if s.resume, err = s.runner.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// submitSmall stores the receptor, registers four small, nearly rigid
// ligands and submits a job docking them at exhaustiveness 1 in a 14 Å
// box (about a second per ligand). It returns the job and the ligand ids
// (sorted: the job's order).
func (s *service) submitSmall(t *testing.T) (jobs.Job, []string) {
	t.Helper()
	ctx := context.Background()
	storeReceptor(t, s.store)
	var ids []string
	for _, smi := range []string{"Oc1ccccc1", "OC(=O)c1ccccc1", "c1ccc2ccccc2c1", "Nc1ccncc1"} {
		m, _, err := s.reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: smi, Generate3D: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	box := &dk.Box{Center: [3]float64{15.190, 53.903, 16.917}, Size: [3]float64{14, 14, 14}}
	j, err := s.task.NewJob(ctx, jobs.NewID(JobIDPrefix, time.Now()), Request{Receptor: "rec-1iep", Ligands: ids,
		Pocket: "box", Box: box, Params: dk.Params{Exhaustiveness: 1, NumModes: 3, Seed: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if j, err = s.runner.Submit(ctx, j); err != nil {
		t.Fatal(err)
	}
	return j, ids
}

// stop is a shutdown: the runner first (the running job keeps its state),
// then the store.
func (s *service) stop() {
	s.runner.Close()
	s.pool.Close()
	s.store.Close()
}

// storeReceptor stores the corpus 1iep receptor (Meeko's PDBQT) as
// rec-1iep with the given pockets (the jobs here give their box; the
// task tests' fixture adds the crystal ligand's pocket).
func storeReceptor(t *testing.T, st *graph.Store, pockets ...ontology.ReceptorPocket) {
	t.Helper()
	rp := corpus(t, "vina-examples/1iep/1iep_receptor.pdbqt")
	ref, err := st.Blobs().PutBytes(rp)
	if err != nil {
		t.Fatal(err)
	}
	f := ontology.ReceptorFile{SHA256: ref.SHA256, Bytes: ref.Size, MediaType: ontology.MediaTypePDBQT}
	rec := &ontology.ReceptorRecord{Name: "1iep", Format: "pdbqt", Atoms: 1, Residues: 1, Chains: 1,
		Pockets: pockets, Source: f, Prepared: f, CreatedAt: time.Now().UTC()}
	qs, err := ontology.ReceptorQuads(base, "rec-1iep", rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutGraph(context.Background(), ontology.ResourceIRI(base, ontology.KindReceptor, "rec-1iep"), qs); err != nil {
		t.Fatal(err)
	}
}

// TestResumeAfterRestart: a docking job interrupted by a shutdown after one
// ligand's commit (the second ligand docked but not committed) resumes in
// a new process on the same store with the three ligands that have no
// result, docks each once, and ends with exactly one result per ligand.
// Vina time is kept small: four small, nearly rigid ligands, exhaustiveness
// 1, a 14 Å box (about a second per ligand).
func TestResumeAfterRestart(t *testing.T) {
	vina, err := dk.NewVina(context.Background(), "")
	if err != nil {
		t.Skipf("vina: %v", err)
	}
	dir := t.TempDir()
	ctx := context.Background()

	// Process 1: register, submit, stop after one committed ligand.
	s1 := startService(t, dir, vina, 1)
	j, ids := s1.submitSmall(t)
	select {
	case <-s1.gate.reached:
	case <-time.After(5 * time.Minute):
		t.Fatal("no ligand committed in 5 minutes")
	}
	s1.stop()

	// The stored state between the processes: running, one ligand done.
	s2 := startService(t, dir, vina, -1)
	defer s2.stop()
	if s2.resume != 1 {
		t.Errorf("runner resumed %d jobs, want 1", s2.resume)
	}
	// (The second runner may already be docking; the first ligand's result
	// is what process 1 committed, which the second must keep as it is.)
	first, err := s2.task.Results(ctx, mustRecord(t, s2.task, j.ID))
	if err != nil {
		t.Fatal(err)
	}
	if len(first) < 1 || first[0].Ligand != ids[0] || len(first[0].Poses) == 0 {
		t.Fatalf("after process 1: results %+v, want ligand %s docked", first, ids[0])
	}
	firstPoses := first[0].Poses

	// Process 2 finishes the job.
	all := s2.checkFinished(t, j, ids)
	if n := s2.gate.count(); n != 3 {
		t.Errorf("process 2 committed %d ligands, want the 3 without a result", n)
	}
	if !slices.EqualFunc(all[0].Poses, firstPoses, func(a, b ontology.DockingPoseRecord) bool { return reflect.DeepEqual(a, b) }) {
		t.Errorf("ligand %s was redone: %+v, then %+v", ids[0], firstPoses, all[0].Poses)
	}
}

// checkFinished waits (at most 5 minutes) for job j to end and checks that
// it succeeded with exactly one outcome, a docked one, per ligand of ids
// and no pose node stored twice. It returns the results.
func (s *service) checkFinished(t *testing.T, j jobs.Job, ids []string) []LigandResult {
	t.Helper()
	ctx := context.Background()
	var rec ontology.DockingJobRecord
	for end := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		rec = mustRecord(t, s.task, j.ID)
		if jobs.Status(rec.Status).Finished() {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("job not finished: %+v", rec)
		}
	}
	n := len(ids)
	if rec.Status != "succeeded" || rec.Progress.Finished != n || rec.Progress.Failed != 0 || rec.Progress.Total != n {
		t.Fatalf("job after resume: status %s, progress %+v, want %d ligands docked", rec.Status, rec.Progress, n)
	}
	all, err := s.task.Results(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range all {
		got = append(got, r.Ligand)
		if r.Failure != nil || len(r.Poses) == 0 {
			t.Errorf("ligand %s: failure %v, %d poses", r.Ligand, r.Failure, len(r.Poses))
		}
		for k, p := range r.Poses {
			if p.Mode != k+1 {
				t.Errorf("ligand %s: modes %v", r.Ligand, r.Poses)
				break
			}
		}
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("results for %v, want %v", got, ids)
	}
	// No duplicate pose nodes anywhere in the store.
	seen := map[quad.Value]int{}
	err = s.store.Match(ctx, graph.Pattern{Predicate: ontology.RDFType, Object: ontology.DockingPoseClass}, func(q quad.Quad) error {
		if strings.HasPrefix(string(q.Subject.(quad.IRI)), string(j.IRI)) {
			seen[q.Subject]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	nodes := 0
	for s, c := range seen {
		if c != 1 {
			t.Errorf("pose %v stored %d times", s, c)
		}
		nodes++
	}
	want := 0
	for _, r := range all {
		want += len(r.Poses)
	}
	if nodes != want {
		t.Errorf("%d pose nodes in the store, %d in the results", nodes, want)
	}
	return all
}

func mustRecord(t *testing.T, task *Task, id string) ontology.DockingJobRecord {
	t.Helper()
	r, err := task.Record(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fakeOutcome is a made-up outcome for ligand i (no vina): every seventh
// ligand fails, the others get 1 + i%3 poses with a pose file blob.
func fakeOutcome(t testing.TB, st *graph.Store, reg *batch.Registry, i int, id string) ([]ontology.DockingPoseRecord, *ontology.DockingFailure) {
	if i%7 == 3 {
		return nil, &ontology.DockingFailure{Ligand: reg.IRI(id), Error: fmt.Sprintf("failure %d", i)}
	}
	var poses []ontology.DockingPoseRecord
	for m := 1; m <= 1+i%3; m++ {
		ref, err := st.Blobs().PutBytes(fmt.Appendf(nil, "pose %s %d\n$$$$\n", id, m))
		if err != nil {
			t.Fatal(err)
		}
		poses = append(poses, ontology.DockingPoseRecord{Ligand: reg.IRI(id), Mode: m,
			Affinity: -float64(i%50)/10 - 1 + float64(m)/100, RMSDLB: float64(m - 1), RMSDUB: 2 * float64(m-1),
			FileIRI: ontology.BlobIRI(base, ref.SHA256),
			File:    ontology.ReceptorFile{SHA256: ref.SHA256, Bytes: ref.Size, MediaType: ontology.MediaTypeSDF}})
	}
	return poses, nil
}

// TestResultsBulk: the outcomes of 70 ligands, stored the way Run stores
// them (addResult, one commit per ligand, in completion order), come back
// from Results (three graph reads) equal to what was stored and to the
// per-ligand Result, one per ligand; storing a ligand again keeps its first
// outcome (addResult reports it as existing).
func TestResultsBulk(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var ids []string
	for i := range 70 {
		m, _, err := f.reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: strings.Repeat("C", i+1) + "O"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	j, err := f.task.NewJob(ctx, "dock-bulk", Request{Receptor: "rec-1iep", Ligands: ids, Pocket: "box",
		Box: &dk.Box{Center: [3]float64{15.190, 53.903, 16.917}, Size: [3]float64{10, 10, 10}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]LigandResult{}
	// Completion order differs from ligand order (workers finish out of order).
	for k := range ids {
		i := (k * 37) % len(ids)
		poses, failure := fakeOutcome(t, f.store, f.reg, i, ids[i])
		g, existed, err := f.task.addResult(ctx, j.IRI, i, ids[i], poses, failure)
		if err != nil || existed {
			t.Fatal(existed, err)
		}
		if err := f.store.PutGraphs(ctx, []graph.NamedGraph{g}, nil); err != nil {
			t.Fatal(err)
		}
		want[ids[i]] = LigandResult{Ligand: ids[i], Poses: poses, Failure: failure}
	}
	// Ligand 5 again, now failed: the first outcome stays.
	redo := &ontology.DockingFailure{Ligand: f.reg.IRI(ids[5]), Error: "redone"}
	g, existed, err := f.task.addResult(ctx, j.IRI, 5, ids[5], nil, redo)
	if err != nil || !existed {
		t.Fatalf("second outcome of ligand 5: existed %v, %v", existed, err)
	}
	if err := f.store.PutGraphs(ctx, []graph.NamedGraph{g}, nil); err != nil {
		t.Fatal(err)
	}

	var graphs []quad.IRI
	err = f.store.Graphs(ctx, func(g quad.IRI) error {
		if strings.HasPrefix(string(g), string(j.IRI)+"/") && g != InputsIRI(j.IRI) {
			graphs = append(graphs, g)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(graphs)
	var wantG []quad.IRI // one per ResultsPerGraph ligands
	for k := 0; k*ResultsPerGraph < len(ids); k++ {
		wantG = append(wantG, ResultsIRI(j.IRI, k))
	}
	slices.Sort(wantG)
	if len(wantG) != (len(ids)+ResultsPerGraph-1)/ResultsPerGraph || !slices.Equal(graphs, wantG) {
		t.Errorf("result graphs %v, want %v", graphs, wantG)
	}

	// The job is not submitted (no vina here): its record is its ligands.
	rec := ontology.DockingJobRecord{IRI: j.IRI}
	for _, id := range ids {
		rec.Ligands = append(rec.Ligands, f.reg.IRI(id))
	}
	got, err := f.task.Results(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ids) {
		t.Fatalf("%d results, want %d", len(got), len(ids))
	}
	for k, r := range got {
		if r.Ligand != ids[k] {
			t.Fatalf("result %d is %s, want %s (ligand order)", k, r.Ligand, ids[k])
		}
		w := want[r.Ligand]
		if !equalResult(r, w) {
			t.Errorf("ligand %s: got %+v %+v, want %+v %+v", r.Ligand, r.Poses, r.Failure, w.Poses, w.Failure)
		}
		poses, failure, err := f.task.Result(ctx, j.IRI, r.Ligand)
		if err != nil || !equalResult(LigandResult{Ligand: r.Ligand, Poses: poses, Failure: failure}, w) {
			t.Errorf("Result(%s) = %+v %+v %v, want %+v %+v", r.Ligand, poses, failure, err, w.Poses, w.Failure)
		}
	}
	if p, fl, err := f.task.Result(ctx, j.IRI, "mol-none"); p != nil || fl != nil || err != nil {
		t.Errorf("Result of a ligand without one: %v %v %v", p, fl, err)
	}

	// Paging asks again with the same counters: the cached answer. A new
	// commit changes the counters and the answer.
	if again, err := f.task.Results(ctx, rec); err != nil || &again[0] != &got[0] {
		t.Errorf("same counters: results read again (%v)", err)
	}
	rec.Progress.Failed++
	if again, err := f.task.Results(ctx, rec); err != nil || len(again) != len(ids) || &again[0] == &got[0] || !equalResult(again[6], want[ids[6]]) {
		t.Errorf("new counters: %v %+v", err, again[6])
	}
}

func equalResult(a, b LigandResult) bool {
	if a.Ligand != b.Ligand || (a.Failure == nil) != (b.Failure == nil) || len(a.Poses) != len(b.Poses) {
		return false
	}
	if a.Failure != nil && *a.Failure != *b.Failure {
		return false
	}
	for i := range a.Poses {
		x, y := a.Poses[i], b.Poses[i]
		x.File.Filename, y.File.Filename = "", ""
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// BenchmarkResults lists the results of a 2,000-ligand job with 9 modes
// per ligand on the Badger store, A/B in one run: "grouped" is Results on
// the results graphs (one read per ResultsPerGraph ligands), "per-ligand"
// the former layout and listing (one graph per ligand, one read each) on
// the same quads under a second job. Both uncached; cpu-ms/op is the
// process's CPU time per listing.
func BenchmarkResults(b *testing.B) {
	const n, modes = 2_000, 9
	st, err := graph.Open(b.TempDir(), graph.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	reg := batch.NewRegistry(st, nil, base, nil)
	task := &Task{store: st, reg: reg, base: base}
	ctx := context.Background()
	job, old := task.JobIRI("dock-bench"), task.JobIRI("dock-bench-old")
	rec := ontology.DockingJobRecord{IRI: job}
	var grouped, perLigand []graph.NamedGraph
	for g := 0; g*ResultsPerGraph < n; g++ {
		var qs []quad.Quad
		for i := g * ResultsPerGraph; i < min(n, (g+1)*ResultsPerGraph); i++ {
			id := fmt.Sprintf("mol-%06d", i)
			rec.Ligands = append(rec.Ligands, reg.IRI(id))
			var poses []ontology.DockingPoseRecord
			for m := 1; m <= modes; m++ {
				sha := fmt.Sprintf("%064d", i*modes+m)
				poses = append(poses, ontology.DockingPoseRecord{Ligand: reg.IRI(id), Mode: m, Affinity: -float64(i%90) / 10,
					RMSDLB: float64(m), RMSDUB: float64(m), FileIRI: ontology.BlobIRI(base, sha),
					File: ontology.ReceptorFile{SHA256: sha, Bytes: 100, MediaType: ontology.MediaTypeSDF}})
			}
			rq, err := ontology.DockingResultQuads(ResultIRI(job, id), job, poses, nil)
			if err != nil {
				b.Fatal(err)
			}
			qs = append(qs, rq...)
			oq, err := ontology.DockingResultQuads(ResultIRI(old, id), old, poses, nil)
			if err != nil {
				b.Fatal(err)
			}
			perLigand = append(perLigand, graph.NamedGraph{IRI: ResultIRI(old, id), Quads: oq})
		}
		grouped = append(grouped, graph.NamedGraph{IRI: ResultsIRI(job, g), Quads: qs})
	}
	if err := st.PutGraphs(ctx, append(grouped, perLigand...), nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.Run("grouped", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			rs, err := task.readAllResults(ctx, rec) // uncached
			if err != nil || len(rs) != n || len(rs[n-1].Poses) != modes {
				b.Fatal(len(rs), err)
			}
		}
	})
	b.Run("per-ligand", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			for _, l := range rec.Ligands {
				qs, err := st.Graph(ctx, ResultIRI(old, LigandID(l)))
				if err != nil {
					b.Fatal(err)
				}
				poses, _, err := ontology.DockingResultFromQuads(qs)
				if err != nil || len(poses) != modes {
					b.Fatal(len(poses), err)
				}
			}
		}
	})
}

// reportCPU reports the process's CPU time per op (user+system, GC
// included), steadier than wall time on a shared machine.
func reportCPU(b *testing.B) func() {
	start := sharedtest.CPUTime()
	return func() { b.ReportMetric(float64(sharedtest.CPUTime()-start)/float64(b.N)/1e6, "cpu-ms/op") }
}
