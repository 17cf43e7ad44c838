package docking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/work"
)

// TestQueuedHostileOutcomes runs a queued docking job whose worker (one
// holding the NATS credentials can publish anything) answers most units
// with forged outcomes: one that does not decode, one naming another
// ligand, more poses than num_modes, poses numbered twice, an absurd
// affinity, a pose without an SDF, a 1 MB failure message. Each becomes
// that ligand's failure, naming the worker and the reason, with nothing of
// it stored; the one honest outcome is stored whole; the job ends.
func TestQueuedHostileOutcomes(t *testing.T) {
	q := queue.NewLocal(queue.Options{AckWait: 5 * time.Second, NakDelay: 200 * time.Millisecond})
	defer q.Close()
	inputs := &queue.MemInputs{}
	f := newFixtureWith(t, Options{Workers: 1, Queue: q, Inputs: inputs, Engine: "test-engine", Stall: time.Minute})
	ctx := context.Background()
	smiles := []string{"Oc1ccccc1", "Nc1ccncc1", "CCO", "CCN", "CCC", "CCCl", "CCBr", "OCCO"}
	var ids []string
	for _, smi := range smiles {
		m, _, err := f.reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: smi, Generate3D: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	honest := ids[0]
	exec := work.DockExecutor(&work.Docker{Vina: f.task.Vina(), Pool: f.reg.Pool(), Worker: "w1"}, inputs)
	sdf := []byte("x\n\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n")
	forged := func(u queue.Unit, k int) []byte {
		o := work.DockOutcome{Job: string(u.Job), Ligand: u.Key}
		pose := func(mode int, aff float64) work.Pose { return work.Pose{Mode: mode, Affinity: aff, SDF: sdf} }
		switch k {
		case 1:
			return []byte(`{"job": "` + string(u.Job) + `", "ligand": ` + "\x00garbage")
		case 2:
			o.Ligand = honest
			o.Poses = []work.Pose{pose(1, -30)}
		case 3:
			for m := 1; m <= 50; m++ {
				o.Poses = append(o.Poses, pose(m, -5))
			}
		case 4:
			o.Poses = []work.Pose{pose(1, -5), pose(1, -4)}
		case 5:
			o.Poses = []work.Pose{pose(1, -1e300)}
		case 6:
			o.Poses = []work.Pose{{Mode: 1, Affinity: -5}}
		case 7:
			o.Failure = strings.Repeat("vina died ", 100_000)
		}
		b, _ := json.Marshal(o)
		return b
	}
	w := &queue.LocalWorker{Queue: q, Name: "mallory", Slots: 2, Engine: "test-engine",
		Exec: map[string]queue.Executor{work.KindDock: func(ctx context.Context, u queue.Unit, n int) ([]byte, error) {
			for k, id := range ids {
				if id == u.Key && k > 0 {
					return forged(u, k), nil
				}
			}
			return exec(ctx, u, n)
		}}}
	wctx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() { defer close(served); w.Serve(wctx) }()
	defer func() { stop(); <-served }()

	j := f.submit(t, Request{Receptor: "rec-1iep", Ligands: ids, Pocket: "box",
		Box:    &dk.Box{Center: [3]float64{15.190, 53.903, 16.917}, Size: [3]float64{14, 14, 14}},
		Params: dk.Params{Exhaustiveness: 1, NumModes: 3, Seed: 7}})
	rec := f.wait(t, j.ID, 5*time.Minute)
	if rec.Status != "succeeded" || rec.Progress.Finished != 1 || rec.Progress.Failed != len(ids)-1 {
		t.Fatalf("job: %s, progress %+v", rec.Status, rec.Progress)
	}
	rs, err := f.task.Results(ctx, rec)
	if err != nil || len(rs) != len(ids) {
		t.Fatalf("results: %d, %v", len(rs), err)
	}
	want := map[string]string{ids[1]: "does not decode", ids[2]: "names another ligand", ids[3]: "50 poses for num_modes 3",
		ids[4]: "pose 2 numbered 1", ids[5]: "affinity -1e+300", ids[6]: "not an SDF record"}
	for _, r := range rs {
		switch {
		case r.Ligand == honest:
			if r.Failure != nil || len(r.Poses) == 0 || r.Poses[0].Affinity > -2 || r.Poses[0].Affinity < -20 {
				t.Errorf("honest ligand: failure %v, %d poses", r.Failure, len(r.Poses))
			}
		case r.Ligand == ids[7]:
			if r.Failure == nil || len(r.Failure.Error) > 5000 || !strings.HasPrefix(r.Failure.Error, "vina died") {
				t.Errorf("long failure kept as %d bytes", len(r.Failure.Error))
			}
		default:
			if r.Failure == nil || len(r.Poses) != 0 || !strings.Contains(r.Failure.Error, `invalid outcome from worker "mallory"`) ||
				!strings.Contains(r.Failure.Error, want[r.Ligand]) {
				t.Errorf("%s: failure %+v, %d poses; want one saying %q", r.Ligand, r.Failure, len(r.Poses), want[r.Ligand])
			}
		}
	}
	// No forged pose file was written.
	sum := sha256.Sum256(sdf)
	if f.reg.Store().Blobs().Has(hex.EncodeToString(sum[:])) {
		t.Error("a forged pose file was stored")
	}
}

// forgingQueue is queue.Local whose first outcome for key carries
// another engine fingerprint, as a worker built differently (or anyone
// with the credentials) publishing a result would.
type forgingQueue struct {
	*queue.Local
	key    string
	forged atomic.Bool
}

func (q *forgingQueue) Outcomes(ctx context.Context, job quad.IRI) (<-chan queue.Outcome, error) {
	in, err := q.Local.Outcomes(ctx, job)
	if err != nil {
		return nil, err
	}
	out := make(chan queue.Outcome)
	go func() {
		defer close(out)
		for o := range in {
			if o.Key == q.key && q.forged.CompareAndSwap(false, true) {
				o.Engine = "other-engine"
				var d work.DockOutcome
				json.Unmarshal(o.Body, &d)
				for i := range d.Poses {
					d.Poses[i].Affinity = -99
				}
				o.Body, _ = json.Marshal(d)
			}
			select {
			case out <- o:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// TestQueuedOutcomeOtherEngine: an outcome whose engine fingerprint is not
// the job's is dropped, never stored; the ligand, still pending, is
// enqueued again at the stall and docked by a worker of the right engine.
func TestQueuedOutcomeOtherEngine(t *testing.T) {
	local := queue.NewLocal(queue.Options{AckWait: 5 * time.Second, NakDelay: 200 * time.Millisecond})
	defer local.Close()
	inputs := &queue.MemInputs{}
	q := &forgingQueue{Local: local}
	f := newFixtureWith(t, Options{Workers: 1, Queue: q, Inputs: inputs, Engine: "test-engine", Stall: 2 * time.Second})
	ctx := context.Background()
	m, _, err := f.reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: "Oc1ccccc1", Generate3D: true})
	if err != nil {
		t.Fatal(err)
	}
	q.key = m.ID
	runs := atomic.Int32{}
	exec := work.DockExecutor(&work.Docker{Vina: f.task.Vina(), Pool: f.reg.Pool(), Worker: "w1"}, inputs)
	w := &queue.LocalWorker{Queue: local, Name: "w1", Slots: 1, Engine: "test-engine",
		Exec: map[string]queue.Executor{work.KindDock: func(ctx context.Context, u queue.Unit, n int) ([]byte, error) {
			runs.Add(1)
			return exec(ctx, u, n)
		}}}
	wctx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() { defer close(served); w.Serve(wctx) }()
	defer func() { stop(); <-served }()
	j := f.submit(t, Request{Receptor: "rec-1iep", Ligands: []string{m.ID}, Pocket: "box",
		Box:    &dk.Box{Center: [3]float64{15.190, 53.903, 16.917}, Size: [3]float64{14, 14, 14}},
		Params: dk.Params{Exhaustiveness: 1, NumModes: 1, Seed: 7}})
	rec := f.wait(t, j.ID, 3*time.Minute)
	if !q.forged.Load() || rec.Status != "succeeded" || rec.Progress.Finished != 1 || runs.Load() != 2 {
		t.Fatalf("job %s %+v after %d runs (forged %v)", rec.Status, rec.Progress, runs.Load(), q.forged.Load())
	}
	rs, err := f.task.Results(ctx, rec)
	if err != nil || len(rs) != 1 || len(rs[0].Poses) != 1 || rs[0].Poses[0].Affinity < -20 {
		t.Fatalf("results %+v %v", rs, err)
	}
}
