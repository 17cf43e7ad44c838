package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/sdf"
)

const base = "http://localhost:8080/"

// stepTask is a job kind for the runner's own tests: it writes one small
// graph per step and counts steps in mg:processedRecords; it fails with
// failWith at step failAt.
type stepTask struct {
	steps, failAt int
	failWith      error
	big           bool
}

var (
	stepClass = quad.IRI(ontology.MG + "BatchUploadJob")
	stepProp  = quad.IRI(ontology.MG + "processedRecords")
)

func (t *stepTask) Class() quad.IRI { return stepClass }

func (t *stepTask) Run(ctx context.Context, j jobs.Job, commit jobs.CommitFunc) error {
	for i := int(j.Int(stepProp)); i < t.steps; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i == t.failAt && t.failWith != nil {
			return t.failWith
		}
		g := quad.IRI(fmt.Sprintf("%s#step-%d", j.IRI, i))
		qs := []quad.Quad{{Subject: g, Predicate: ontology.RDFType, Object: quad.IRI(ontology.MG + "Step")}}
		if t.big {
			for k := 0; k < 30; k++ {
				qs = append(qs, quad.Quad{Subject: g, Predicate: quad.IRI(ontology.MG + "p"), Object: ontology.Integer(int64(k))})
			}
		}
		if err := commit(ctx, []graph.NamedGraph{{IRI: g, Quads: qs}}, []jobs.Prop{jobs.IntProp(stepProp, int64(i+1))}); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

func newRunner(t *testing.T, st *graph.Store, task jobs.Task, opt jobs.Options) *jobs.Runner {
	t.Helper()
	r, err := jobs.NewRunner(st, base, []jobs.Task{task}, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func submitStep(t *testing.T, r *jobs.Runner) jobs.Job {
	t.Helper()
	id := jobs.NewID("batch", time.Now())
	j, err := r.Submit(context.Background(), jobs.Job{ID: id, IRI: ontology.ResourceIRI(base, ontology.KindBatchJob, id), Class: stepClass,
		Source: &jobs.File{SHA256: strings.Repeat("ab", 32), Bytes: 10, MediaType: "text/plain", Filename: "in.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func wait(t *testing.T, r *jobs.Runner, iri quad.IRI) jobs.Job {
	t.Helper()
	for range 2000 {
		j, err := r.Get(context.Background(), iri)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status.Finished() {
			return j
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("timeout")
	return jobs.Job{}
}

func TestRunnerLifecycle(t *testing.T) {
	st, _ := graph.OpenMemory(graph.Options{})
	defer st.Close()
	tests := []struct {
		name   string
		task   *stepTask
		opt    jobs.Options
		status jobs.Status
		steps  int64
		errSub string
	}{
		{"succeeds", &stepTask{steps: 20}, jobs.Options{}, jobs.Succeeded, 20, ""},
		{"fails", &stepTask{steps: 20, failAt: 7, failWith: errors.New("upload unreadable")}, jobs.Options{}, jobs.Failed, 7, "upload unreadable"},
		{"commit too large", &stepTask{steps: 5, big: true}, jobs.Options{MaxCommitQuads: 20}, jobs.Failed, 0, "commit too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunner(t, st, tt.task, tt.opt)
			if _, err := r.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			j := wait(t, r, submitStep(t, r).IRI)
			if j.Status != tt.status || j.Int(stepProp) != tt.steps || !strings.Contains(j.Error, tt.errSub) ||
				j.StartedAt.IsZero() || j.EndedAt.Before(j.StartedAt) || j.Source == nil || j.Source.Filename != "in.txt" {
				t.Fatalf("job %+v", j)
			}
			// Every committed step's graph exists; none after.
			for i := 0; i < 21; i++ {
				has, _ := st.HasGraph(context.Background(), quad.IRI(fmt.Sprintf("%s#step-%d", j.IRI, i)))
				if has != (int64(i) < tt.steps) {
					t.Errorf("step %d stored: %v", i, has)
				}
			}
		})
	}
}

func TestRunnerErrors(t *testing.T) {
	st, _ := graph.OpenMemory(graph.Options{})
	defer st.Close()
	r := newRunner(t, st, &stepTask{steps: 1}, jobs.Options{})
	if _, err := r.Submit(context.Background(), jobs.Job{ID: "x", IRI: "http://x/j", Class: "http://x/Unknown"}); !errors.Is(err, jobs.ErrInvalidJob) {
		t.Errorf("unknown class: %v", err)
	}
	if _, err := r.Get(context.Background(), "http://x/none"); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("get unknown: %v", err)
	}
	if _, err := jobs.NewRunner(st, base, []jobs.Task{&stepTask{}, &stepTask{}}, jobs.Options{}); !errors.Is(err, jobs.ErrInvalidJob) {
		t.Errorf("two tasks for one class: %v", err)
	}
	r.Close()
	if _, err := r.Submit(context.Background(), jobs.Job{ID: "y", IRI: "http://x/y", Class: stepClass}); !errors.Is(err, jobs.ErrClosed) {
		t.Errorf("submit after close: %v", err)
	}
	a, b := jobs.NewID("batch", time.Unix(100, 0)), jobs.NewID("batch", time.Unix(200, 0))
	if !(a < b) || len(a) != len("batch-")+26 || a == jobs.NewID("batch", time.Unix(100, 0)) {
		t.Errorf("ids %s %s", a, b)
	}
}

// blockTask stands in for a long docking job: it runs until released (or
// cancelled) and reports when it has started.
type blockTask struct {
	class   quad.IRI
	started chan quad.IRI
	release chan struct{}
}

func newBlockTask(class quad.IRI) *blockTask {
	return &blockTask{class: class, started: make(chan quad.IRI, 100), release: make(chan struct{})}
}

func (t *blockTask) Class() quad.IRI { return t.class }

func (t *blockTask) Run(ctx context.Context, j jobs.Job, _ jobs.CommitFunc) error {
	t.started <- j.IRI
	select {
	case <-t.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func submitClass(ctx context.Context, r *jobs.Runner, class quad.IRI, kind string) (jobs.Job, error) {
	id := jobs.NewID(kind, time.Now())
	return r.Submit(ctx, jobs.Job{ID: id, IRI: quad.IRI(base + "id/" + kind + "/" + id), Class: class})
}

// A job of one class does not wait for a running job of another: each
// class has its own pool (with one shared worker, the step job would wait
// until the blocking job ends).
func TestRunnerClassPools(t *testing.T) {
	st, _ := graph.OpenMemory(graph.Options{})
	defer st.Close()
	dock := newBlockTask(ontology.DockingJobClass)
	r, err := jobs.NewRunner(st, base, []jobs.Task{&stepTask{steps: 10}, dock}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, err := submitClass(context.Background(), r, ontology.DockingJobClass, "docking")
	if err != nil {
		t.Fatal(err)
	}
	<-dock.started
	j := wait(t, r, submitStep(t, r).IRI) // fails the test after 10 s
	if j.Status != jobs.Succeeded || j.Int(stepProp) != 10 {
		t.Fatalf("step job behind a running docking job: %+v", j)
	}
	if got, _ := r.Get(context.Background(), d.IRI); got.Status != jobs.Running {
		t.Fatalf("docking job %s, want still running", got.Status)
	}
	stats := r.Stats()
	if stats[ontology.DockingJobClass].Running != 1 || stats[stepClass] != (jobs.ClassStats{}) {
		t.Errorf("stats %+v", stats)
	}
	if l := r.Limits(); l.Workers[stepClass] != 1 || l.Workers[ontology.DockingJobClass] != 1 {
		t.Errorf("limits %+v", l)
	}
	close(dock.release)
	if j := wait(t, r, d.IRI); j.Status != jobs.Succeeded {
		t.Errorf("docking job %s", j.Status)
	}
}

// ClassWorkers sizes one class's pool: two blocking jobs of a class with
// two workers run together, the third waits.
func TestRunnerClassWorkers(t *testing.T) {
	st, _ := graph.OpenMemory(graph.Options{})
	defer st.Close()
	dock := newBlockTask(ontology.DockingJobClass)
	r, err := jobs.NewRunner(st, base, []jobs.Task{dock},
		jobs.Options{ClassWorkers: map[quad.IRI]int{ontology.DockingJobClass: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := submitClass(context.Background(), r, ontology.DockingJobClass, "docking"); err != nil {
			t.Fatal(err)
		}
	}
	<-dock.started
	<-dock.started
	select {
	case iri := <-dock.started:
		t.Fatalf("a third job %s started with two workers", iri)
	case <-time.After(200 * time.Millisecond):
	}
	if s := r.Stats()[ontology.DockingJobClass]; s.Running != 2 || s.Queued != 1 {
		t.Errorf("stats %+v", s)
	}
	close(dock.release)
}

// The caps on unfinished jobs: per owner and overall, checked before
// anything is stored, released when a job finishes or is cancelled.
func TestRunnerJobCaps(t *testing.T) {
	st, _ := graph.OpenMemory(graph.Options{})
	defer st.Close()
	dock := newBlockTask(ontology.DockingJobClass)
	r, err := jobs.NewRunner(st, base, []jobs.Task{dock},
		jobs.Options{MaxUnfinished: 3, MaxUnfinishedPerOwner: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	as, bs, cs := jobs.WithOwner(context.Background(), "key-a"), jobs.WithOwner(context.Background(), "key-b"),
		jobs.WithOwner(context.Background(), "key-c")
	a1, err := submitClass(as, r, ontology.DockingJobClass, "docking")
	if err != nil {
		t.Fatal(err)
	}
	<-dock.started // a1 runs, a2 is queued: both count
	a2, err := submitClass(as, r, ontology.DockingJobClass, "docking")
	if err != nil {
		t.Fatal(err)
	}
	var qe *jobs.QuotaError
	a3, err := submitClass(as, r, ontology.DockingJobClass, "docking")
	if !errors.As(err, &qe) || !errors.Is(err, jobs.ErrTooManyJobs) || qe.Owner != "key-a" || qe.Limit != 2 || qe.Unfinished != 2 {
		t.Fatalf("third job of key-a: %v", err)
	}
	if has, _ := st.HasGraph(context.Background(), a3.IRI); has {
		t.Error("a refused job was stored")
	}
	if err := r.Admit("key-a"); !errors.Is(err, jobs.ErrTooManyJobs) {
		t.Errorf("Admit(key-a) = %v", err)
	}
	if _, err := submitClass(bs, r, ontology.DockingJobClass, "docking"); err != nil {
		t.Fatalf("first job of key-b: %v", err)
	}
	// Overall cap (3) reached: key-c is refused although it has none.
	if _, err := submitClass(cs, r, ontology.DockingJobClass, "docking"); !errors.As(err, &qe) || qe.Owner != "" || qe.Limit != 3 {
		t.Fatalf("key-c past the overall cap: %v", err)
	}
	// Jobs without an owner count overall only.
	if err := r.Admit(""); !errors.Is(err, jobs.ErrTooManyJobs) {
		t.Errorf("Admit(\"\") = %v", err)
	}
	// Cancelling the queued a2 frees a place for key-a and overall.
	if j, err := r.Cancel(context.Background(), a2.IRI); err != nil || j.Status != jobs.Cancelled {
		t.Fatalf("cancel a2: %v %v", j.Status, err)
	}
	if err := r.Admit("key-a"); err != nil {
		t.Errorf("after a cancel, Admit(key-a) = %v", err)
	}
	// Finishing the running a1 (and the others) frees the rest.
	close(dock.release)
	wait(t, r, a1.IRI)
	for range 200 {
		if r.Admit("key-c") == nil && r.Stats()[ontology.DockingJobClass] == (jobs.ClassStats{}) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := r.Admit("key-c"); err != nil {
		t.Errorf("after the jobs ended, Admit(key-c) = %v", err)
	}
	if _, err := jobs.NewRunner(st, base, []jobs.Task{dock}, jobs.Options{MaxUnfinished: -1}); !errors.Is(err, jobs.ErrInvalidJob) {
		t.Errorf("negative cap: %v", err)
	}
}

// Jobs resumed at Start count against the overall cap (their owners are
// not stored, so not against any owner's).
func TestRunnerCapsAfterResume(t *testing.T) {
	st, _ := graph.OpenMemory(graph.Options{})
	defer st.Close()
	dock := newBlockTask(ontology.DockingJobClass)
	r1, err := jobs.NewRunner(st, base, []jobs.Task{dock}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r1.Start(context.Background())
	if _, err := submitClass(jobs.WithOwner(context.Background(), "key-a"), r1, ontology.DockingJobClass, "docking"); err != nil {
		t.Fatal(err)
	}
	<-dock.started
	r1.Close() // the job stays "running" and resumes below
	r2, err := jobs.NewRunner(st, base, []jobs.Task{dock}, jobs.Options{MaxUnfinished: 1, MaxUnfinishedPerOwner: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if n, err := r2.Start(context.Background()); n != 1 || err != nil {
		t.Fatalf("resumed %d, %v", n, err)
	}
	var qe *jobs.QuotaError
	if err := r2.Admit("key-a"); !errors.As(err, &qe) || qe.Owner != "" {
		t.Errorf("Admit after resume = %v, want the overall cap", err)
	}
	close(dock.release)
}

// A real 10-record batch upload (RDKit, Badger) submitted while a docking
// job runs starts and finishes within seconds: batch and docking jobs have
// pools of their own. The docking job is a task that blocks until the end
// of the test (a real Vina run would take minutes and prove nothing more
// about the runner).
func TestBatchBehindRunningDocking(t *testing.T) {
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pool, err := chem.NewPool(0)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	task := batch.NewTask(batch.NewRegistry(st, pool, base, nil), batch.TaskOptions{})
	dock := newBlockTask(ontology.DockingJobClass)
	r, err := jobs.NewRunner(st, base, []jobs.Task{task, dock}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer close(dock.release)
	d, err := submitClass(context.Background(), r, ontology.DockingJobClass, "docking")
	if err != nil {
		t.Fatal(err)
	}
	<-dock.started

	var lines []string
	for i := 1; i <= 10; i++ {
		lines = append(lines, fmt.Sprintf("%s mol%d", strings.Repeat("C", i)+"O", i))
	}
	rr := sdf.NewSMILESReader(strings.NewReader(strings.Join(lines, "\n")), 0)
	ref, n, unpin, err := batch.Spool(st.Blobs(), batch.FileSource(rr, chem.FormatSMILES, false), batch.Limits{MaxRecords: 100})
	if err != nil || n != 10 {
		t.Fatalf("spool: %d records, %v", n, err)
	}
	defer unpin()
	start := time.Now()
	id := jobs.NewID(batch.JobIDPrefix, start)
	j, err := r.Submit(context.Background(), task.NewJob(id, ref, n, "ten.smi"))
	if err != nil {
		t.Fatal(err)
	}
	for j.Status != jobs.Succeeded {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("batch job still %s after %v behind a running docking job", j.Status, time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
		if j, err = r.Get(context.Background(), j.IRI); err != nil {
			t.Fatal(err)
		}
		if j.Status.Finished() && j.Status != jobs.Succeeded {
			t.Fatalf("batch job %s: %s", j.Status, j.Error)
		}
	}
	t.Logf("10-record batch finished %v after submission, docking job still running", time.Since(start).Round(time.Millisecond))
	// stepProp is mg:processedRecords, the batch task's counter too.
	if got := j.Int(stepProp); got != 10 {
		t.Errorf("processed %d of 10", got)
	}
	if dj, _ := r.Get(context.Background(), d.IRI); dj.Status != jobs.Running {
		t.Errorf("docking job %s, want running", dj.Status)
	}
}

// SetOnEnd's function hears of every job that reaches a final state: one
// that ran, and one cancelled while queued (its Task never ran).
func TestRunnerOnEnd(t *testing.T) {
	st, _ := graph.OpenMemory(graph.Options{})
	defer st.Close()
	r := newRunner(t, st, &stepTask{steps: 2}, jobs.Options{})
	ended := make(chan jobs.Job, 4)
	r.SetOnEnd(func(j jobs.Job) { ended <- j })
	queued := submitStep(t, r) // before Start: stays queued
	if _, err := r.Cancel(context.Background(), queued.IRI); err != nil {
		t.Fatal(err)
	}
	if j := <-ended; j.IRI != queued.IRI || j.Status != jobs.Cancelled {
		t.Fatalf("cancelled while queued: %s %s", j.IRI, j.Status)
	}
	if _, err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ran := submitStep(t, r)
	select {
	case j := <-ended:
		if j.IRI != ran.IRI || j.Status != jobs.Succeeded {
			t.Fatalf("ran: %s %s", j.IRI, j.Status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no end reported for a job that ran")
	}
}
