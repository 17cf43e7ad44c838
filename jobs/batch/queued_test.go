package batch_test

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/queue/jsq"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
)

// twiceQueue delivers every outcome of its queue twice (the second copy
// at once after the first, as a redelivery after a lost ack would come):
// the commit must drop each copy, from its re-order buffer or below its
// watermark.
type twiceQueue struct{ queue.Queue }

func (q twiceQueue) Outcomes(ctx context.Context, job quad.IRI) (<-chan queue.Outcome, error) {
	in, err := q.Queue.Outcomes(ctx, job)
	if err != nil {
		return nil, err
	}
	out := make(chan queue.Outcome)
	go func() {
		defer close(out)
		for o := range in {
			dup := o
			dup.Done = func() error { return nil }
			for _, x := range []queue.Outcome{o, dup} {
				select {
				case out <- x:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// runBatchJob runs lines as one batch job of task on a new store and
// returns the store (closed with the test) and the finished job.
func runBatchJob(t *testing.T, reg func(*graph.Store) *batch.Task, lines []string) (*graph.Store, jobs.Job) {
	t.Helper()
	st := openStore(t, t.TempDir())
	t.Cleanup(func() { st.Close() })
	return st, runJobOn(t, st, reg(st), lines)
}

// runJobOn runs lines as one batch job of task on st with a runner of its
// own and returns the job, failing t unless it succeeded.
func runJobOn(t *testing.T, st *graph.Store, task *batch.Task, lines []string) jobs.Job {
	t.Helper()
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
	if j.Status != jobs.Succeeded {
		t.Fatalf("job %+v", j)
	}
	return j
}

// TestQueuedBatchNATS (scale-out T5): the NCI sample (4,999 records, 1,000
// with -short, plus two invalid lines and two repeats) registered by a
// batch job whose chemistry runs on two chemistry workers over NATS
// JetStream (an embedded server; each worker its own connection and chem
// pool, running work.ChemExecutor as `molgraph worker --kinds chem`
// does) gives the same molecule graphs (but for their creation time),
// structure-search entries, item graphs (but for the job's IRI), items
// and counters as the job run in process. The first unit of one worker is
// abandoned (a worker that died: redelivered after the ack wait) and
// every outcome reaches the commit twice (a lost ack): each copy is
// dropped, and the queue is empty afterwards.
func TestQueuedBatchNATS(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 1000
	}
	lines := readNCI(t, n)
	lines = append(lines, "not a smiles", "C1CC broken ring", lines[0], lines[1])
	pool := newPool(t)
	localSt, localJob := runBatchJob(t, func(st *graph.Store) *batch.Task {
		return batch.NewTask(batch.NewRegistry(st, pool, base, nil), batch.TaskOptions{})
	}, lines)

	srv, err := jsq.StartEmbedded(jsq.EmbeddedOptions{Dir: t.TempDir(), Listen: "none"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	nc, err := jsq.ConnectInProcess(srv, "coordinator")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	cfg := jsq.Config{Deployment: "t5", Options: queue.Options{AckWait: 2 * time.Second, NakDelay: 200 * time.Millisecond},
		ResultAckWait: time.Minute}
	ctx := context.Background()
	jq, err := jsq.New(ctx, nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jq.Close() })
	engine := work.ChemEngine("test", chem.RDKitVersion())
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	var mu sync.Mutex
	abandoned, ran := "", map[string]int{}
	for _, name := range []string{"chem-a", "chem-b"} {
		wnc, err := jsq.ConnectInProcess(srv, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(wnc.Close)
		wpool, err := chem.NewPool(1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { wpool.Close() })
		exec := work.ChemExecutor(wpool, 2)
		w := &jsq.Worker{NC: wnc, Config: cfg, Name: name, Slots: 2, Engine: engine, Drain: time.Second,
			Exec: map[string]queue.Executor{work.KindChem: func(ctx context.Context, u queue.Unit, runs int) ([]byte, error) {
				mu.Lock()
				ran[u.Key]++
				abandon := name == "chem-a" && abandoned == ""
				if abandon {
					abandoned = u.Key
				}
				mu.Unlock()
				if abandon {
					return nil, queue.ErrAbandon
				}
				return exec(ctx, u, runs)
			}}}
		wg.Add(1)
		go func() { defer wg.Done(); w.Serve(wctx) }()
	}
	var task *batch.Task
	queuedSt, queuedJob := runBatchJob(t, func(st *graph.Store) *batch.Task {
		task = batch.NewTask(batch.NewRegistry(st, pool, base, nil), batch.TaskOptions{Queue: twiceQueue{jq}, Engine: engine,
			Window: 1000, Stall: time.Minute})
		return task
	}, lines)

	units := (len(lines) + batch.ItemBlock - 1) / batch.ItemBlock
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != units || abandoned == "" || ran[abandoned] != 2 {
		t.Errorf("%d units ran (want %d), the abandoned one %q %d times (want 2)", len(ran), units, abandoned, ran[abandoned])
	}
	// Every outcome came twice; the copy of the last one comes after the
	// job ended (the job's outcomes are removed then).
	if d := task.Stats().Duplicates; d != int64(units-1) {
		t.Errorf("%d duplicates dropped, want %d (every outcome twice but the last)", d, units-1)
	}
	if s, err := jq.Stats(ctx, ""); err != nil || s.Queued != 0 || s.Outcomes != 0 {
		t.Errorf("queue after the job: %+v %v", s, err)
	}
	lc, qc := batch.CountsOf(&localJob), batch.CountsOf(&queuedJob)
	if lc != qc || lc.Failed < 2 || lc.Existing < 2 || lc.Processed != int64(len(lines)) {
		t.Errorf("counters: local %+v, queued %+v", lc, qc)
	}
	sameBatchResults(t, localSt, localJob, queuedSt, queuedJob)
}

// sameBatchResults compares two runs of one upload on two stores: their
// items, item graphs (modulo the job IRI), molecule graphs (modulo
// prov:generatedAtTime, the creation time) and side entries.
func sameBatchResults(t *testing.T, aSt *graph.Store, a jobs.Job, bSt *graph.Store, b jobs.Job) {
	t.Helper()
	ctx := context.Background()
	n := batch.CountsOf(&a).Processed
	ai, _, err1 := batch.Items(ctx, aSt, a.IRI, n, 0, int(n))
	bi, _, err2 := batch.Items(ctx, bSt, b.IRI, n, 0, int(n))
	if err1 != nil || err2 != nil || int64(len(ai)) != n || !reflect.DeepEqual(ai, bi) {
		t.Fatalf("items differ (%v %v): %d and %d", err1, err2, len(ai), len(bi))
	}
	graphQuads := func(st *graph.Store, g, job quad.IRI) []string {
		qs, err := st.Graph(ctx, g)
		if err != nil {
			t.Fatalf("graph %s: %v", g, err)
		}
		var out []string
		for _, q := range qs {
			if strings.HasSuffix(fmt.Sprint(q.Predicate), "generatedAtTime>") {
				continue
			}
			s := q.String()
			if job != "" {
				s = strings.ReplaceAll(s, string(job), "JOB")
			}
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	for first := int64(0); first < n; first += batch.ItemBlock {
		frag := fmt.Sprintf("items-%09d", first)
		ga, gb := graphQuads(aSt, ontology.SubIRI(a.IRI, frag), a.IRI), graphQuads(bSt, ontology.SubIRI(b.IRI, frag), b.IRI)
		if !slices.Equal(ga, gb) || len(ga) == 0 {
			t.Fatalf("item graph %s differs:\n%v\n%v", frag, ga, gb)
		}
	}
	mols := func(st *graph.Store) []quad.IRI {
		var all []quad.IRI
		var after quad.IRI
		for {
			page, more, err := st.ListByClass(ctx, ontology.MoleculeClass, after, 1000)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page...)
			if !more {
				return all
			}
			after = page[len(page)-1]
		}
	}
	am, bm := mols(aSt), mols(bSt)
	if !slices.Equal(am, bm) || len(am) == 0 {
		t.Fatalf("molecules: %d and %d", len(am), len(bm))
	}
	for _, m := range am {
		if ga, gb := graphQuads(aSt, m, ""), graphQuads(bSt, m, ""); !slices.Equal(ga, gb) {
			t.Fatalf("molecule graph %s differs:\n%v\n%v", m, ga, gb)
		}
	}
	side := func(st *graph.Store) map[string]string {
		m := map[string]string{}
		if err := st.ScanSide(ctx, nil, func(k, v []byte) error {
			m[string(k)] = string(v)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	as, bs := side(aSt), side(bSt)
	if len(as) < 2*len(am) || !maps.Equal(as, bs) {
		t.Errorf("side entries: %d and %d for %d molecules", len(as), len(bs), len(am))
	}
}

// TestQueuedBatchResume (scale-out T3 for batch): a queued batch job
// (queue.Local, one worker running work.ChemExecutor) is stopped mid-job
// with outcomes waiting, the store closed and reopened and the queue's
// content lost (a wiped NATS store); the resumed job enqueues its pending
// units again and ends with every record processed exactly once, like
// the in-process job.
func TestQueuedBatchResume(t *testing.T) {
	lines := readNCI(t, 1500)
	ctx := context.Background()
	q := queue.NewLocal(queue.Options{AckWait: time.Second, NakDelay: 100 * time.Millisecond})
	defer q.Close()
	pool := newPool(t)
	w := &queue.LocalWorker{Queue: q, Name: "chem", Slots: 2, Engine: "e1", Drain: time.Second,
		Exec: map[string]queue.Executor{work.KindChem: work.ChemExecutor(pool, 2)}}
	wctx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() { defer close(served); w.Serve(wctx) }()
	defer func() { stop(); <-served }()
	opt := batch.TaskOptions{Queue: q, Engine: "e1", Window: 400, Stall: time.Minute}
	stopAndResume(t, lines, func(st *graph.Store) *batch.Task {
		return batch.NewTask(batch.NewRegistry(st, pool, base, nil), opt)
	}, q.Lose)
	if s, _ := q.Stats(ctx, ""); s.Queued != 0 || s.Outcomes != 0 {
		t.Errorf("queue after the job: %+v", s)
	}
}

// TestQueuedBatchUnitTooLarge: units whose body exceeds MaxUnitBody (a
// record too large for a message) are prepared by the coordinator: with
// every unit too large and no worker at all, the queued job ends as the
// in-process one would.
func TestQueuedBatchUnitTooLarge(t *testing.T) {
	lines := readNCI(t, 250)
	q := queue.NewLocal(queue.Options{})
	defer q.Close()
	pool := newPool(t)
	st, j := runBatchJob(t, func(st *graph.Store) *batch.Task {
		return batch.NewTask(batch.NewRegistry(st, pool, base, nil), batch.TaskOptions{Queue: q, Engine: "e1", MaxUnitBody: 10})
	}, lines)
	checkJob(t, st, j, lines, 0)
	if s, _ := q.Stats(context.Background(), ""); s.Queued != 0 {
		t.Errorf("queue after the job: %+v", s)
	}
}
