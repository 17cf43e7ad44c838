package docking

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/work"
)

// TestQueuedDocking runs a docking job through a queue (queue.Local, its
// worker running the work.DockExecutor the way `molgraph worker` does),
// with the first run of every ligand abandoned by its worker (a worker
// that died): each ligand is redelivered after the ack wait and docked
// again, the job succeeds with one outcome per ligand, and the affinities
// equal those of the same job docked in process (fixed seed).
func TestQueuedDocking(t *testing.T) {
	q := queue.NewLocal(queue.Options{AckWait: 500 * time.Millisecond, NakDelay: 200 * time.Millisecond})
	defer q.Close()
	inputs := &queue.MemInputs{}
	f := newFixtureWith(t, Options{Workers: 1, Queue: q, Inputs: inputs, Engine: "test-engine", Stall: time.Minute})
	ctx := context.Background()
	var ids []string
	// 1-phenylethanol, racemic and without 3D: its two enantiomers are
	// docked in one unit, on the worker as in process.
	for _, smi := range []string{"Oc1ccccc1", "Nc1ccncc1", "CC(O)c1ccccc1"} {
		m, _, err := f.reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: smi, Generate3D: smi != "CC(O)c1ccccc1"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	var mu sync.Mutex
	runs := map[string]int{}
	exec := work.DockExecutor(&work.Docker{Vina: f.task.Vina(), Pool: f.reg.Pool(), Worker: "w1"}, inputs)
	w := &queue.LocalWorker{Queue: q, Name: "w1", Slots: 2, Engine: "test-engine",
		Exec: map[string]queue.Executor{work.KindDock: func(ctx context.Context, u queue.Unit, n int) ([]byte, error) {
			body, err := exec(ctx, u, n)
			mu.Lock()
			defer mu.Unlock()
			runs[u.Key]++
			if runs[u.Key] == 1 {
				return nil, queue.ErrAbandon // done, but the worker died before publishing
			}
			return body, err
		}}}
	wctx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() { defer close(served); w.Serve(wctx) }()
	defer func() { stop(); <-served }()

	req := Request{Receptor: "rec-1iep", Ligands: ids, Pocket: "box",
		Box:    &dk.Box{Center: [3]float64{15.190, 53.903, 16.917}, Size: [3]float64{14, 14, 14}},
		Params: dk.Params{Exhaustiveness: 1, NumModes: 3, Seed: 7}}
	j := f.submit(t, req)
	rec := f.wait(t, j.ID, 5*time.Minute)
	if rec.Status != "succeeded" || rec.Progress.Finished != 3 || rec.Progress.Failed != 0 {
		t.Fatalf("queued job: %+v", rec)
	}
	for _, id := range ids {
		if runs[id] != 2 {
			t.Errorf("ligand %s ran %d times, want 2", id, runs[id])
		}
	}
	queued, err := f.task.Results(ctx, rec)
	if err != nil || len(queued) != 3 {
		t.Fatalf("results %v %v", queued, err)
	}
	if s, _ := q.Stats(ctx, ""); s.Queued != 0 || s.Outcomes != 0 {
		t.Errorf("queue not empty after the job: %+v", s)
	}

	// The reference: the same job in process.
	f.task.opt.Queue = nil
	ref := f.wait(t, f.submit(t, req).ID, 5*time.Minute)
	local, err := f.task.Results(ctx, ref)
	if err != nil || len(local) != 3 {
		t.Fatalf("local results %v %v", local, err)
	}
	for i := range local {
		a, b := local[i], queued[i]
		if a.Ligand != b.Ligand || len(a.Poses) != len(b.Poses) || len(a.Poses) == 0 {
			t.Fatalf("ligand %d: local %+v, queued %+v", i, a, b)
		}
		for k := range a.Poses {
			if a.Poses[k].Affinity != b.Poses[k].Affinity || a.Poses[k].File.SHA256 == "" || a.Poses[k].Isomer != b.Poses[k].Isomer {
				t.Errorf("%s mode %d: local %v, queued %v", a.Ligand, k+1, a.Poses[k], b.Poses[k])
			}
		}
		want := 1
		if a.Ligand == ids[2] {
			want = 2
		}
		if len(a.Isomers) != want || !reflect.DeepEqual(a.Isomers, b.Isomers) {
			t.Errorf("%s: isomers local %+v, queued %+v, want %d", a.Ligand, a.Isomers, b.Isomers, want)
		}
	}
}
