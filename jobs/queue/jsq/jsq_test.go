package jsq

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/queue/queuetest"
)

// TestJetStreamConformance runs the suite on an embedded server with
// the two users of serve: the coordinator (in process, every permission)
// and the workers (WorkerPermissions, through the listener). A worker
// that needed a subject its permissions deny fails the case.
func TestJetStreamConformance(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) *queuetest.Harness {
		cfg := Config{Deployment: "test", Options: queuetest.Options, ResultAckWait: queuetest.Options.AckWait}
		a := startAuth(t, cfg.Deployment)
		nc := a.coordinator(t)
		q, err := New(context.Background(), nc, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		return &queuetest.Harness{Queue: q,
			Lose: func() {
				// A wiped store: the task stream is gone and comes back
				// empty.
				js, _ := jetstream.New(nc)
				if err := js.DeleteStream(context.Background(), q.n.tasks()); err != nil {
					t.Fatal(err)
				}
				if err := Setup(context.Background(), js, cfg); err != nil {
					t.Fatal(err)
				}
			},
			NewWorker: func(name string, slots int, exec queue.Executor) queue.Worker {
				wnc, denied := a.worker(t, name)
				t.Cleanup(func() {
					if d := denied(); len(d) > 0 {
						t.Errorf("worker %s was denied: %q", name, d)
					}
				})
				return &Worker{NC: wnc, Config: cfg, Name: name, Slots: slots, Engine: queuetest.Engine,
					Exec: map[string]queue.Executor{queuetest.Kind: exec}}
			}}
	})
}

// TestInputs: an input put by the coordinator comes back on a worker,
// from the object store, then from its cache; a corrupt cache entry is
// fetched again.
func TestInputs(t *testing.T) {
	cfg := Config{Deployment: "inputs"}
	a := startAuth(t, cfg.Deployment)
	nc := a.coordinator(t)
	wnc, denied := a.worker(t, "w")
	ctx := context.Background()
	q, err := New(ctx, nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	data := bytes.Repeat([]byte("ATOM receptor line\n"), 20_000) // several chunks
	coord := &Inputs{NC: nc, Config: cfg}
	sha, err := coord.PutInput(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := coord.PutInput(ctx, data); err != nil || again != sha {
		t.Fatalf("second put: %s %v", again, err)
	}
	dir := t.TempDir()
	w := &Inputs{NC: wnc, Config: cfg, CacheDir: dir} // with the workers' permissions
	for i := range 2 {
		got, err := w.GetInput(ctx, sha)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("get %d: %d bytes, %v", i, len(got), err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, sha), []byte("corrupt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := w.GetInput(ctx, sha); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after a corrupt cache entry: %d bytes, %v", len(got), err)
	}
	if _, err := w.GetInput(ctx, strings.Repeat("0", 64)); !errors.Is(err, queue.ErrFault) {
		t.Errorf("unknown input: %v, want a worker fault", err)
	}
	if d := denied(); len(d) > 0 {
		t.Errorf("the worker was denied: %q", d)
	}
	// A worker cannot put an input.
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := w.PutInput(pctx, []byte("forged receptor")); err == nil {
		t.Error("a worker put an input")
	}
}

// TestLateOutcomesExpire: an outcome published for a job nobody consumes
// (cancelled or finished: the worker finished its unit after the purge)
// leaves the results stream after ResultMaxAge instead of filling it.
func TestLateOutcomesExpire(t *testing.T) {
	s, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Listen: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	nc, err := ConnectInProcess(s, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	cfg := Config{Deployment: "late", ResultMaxAge: time.Second}
	q, err := New(ctx, nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	job := quad.IRI("http://example.org/id/docking-job/dock-cancelled")
	if err := q.Cancel(ctx, job); err != nil {
		t.Fatal(err)
	}
	if err := q.publishOutcome(ctx, queue.Outcome{Kind: "dock", Key: "mol-1", Job: job, Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if st, err := q.Stats(ctx, job); err != nil || st.Outcomes != 1 {
		t.Fatalf("after the late publish: %+v %v", st, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := q.Stats(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if st.Outcomes == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the late outcome is still in the results stream: %+v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
