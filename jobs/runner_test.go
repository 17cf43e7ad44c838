package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/ontology"
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
