// Package queuetest is the conformance suite every queue.Queue
// implementation must pass (queue.Local and jsq.Queue run the same
// cases): idempotent enqueue, redelivery without ack (of units and of
// outcomes), nak with delay, cancel purges, a lost queue rebuilt by
// re-enqueueing (the reconcile), and MaxDeliver turning into a failure
// outcome.
package queuetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/jobs/queue"
)

// Harness is one implementation under test.
type Harness struct {
	Queue queue.Queue
	// NewWorker returns a worker running units of kind Kind and engine
	// Engine with exec, slots at a time.
	NewWorker func(name string, slots int, exec queue.Executor) queue.Worker
	// Lose drops every queued unit (a restarted in-process queue, a wiped
	// stream).
	Lose func()
}

// The kind and engine of the suite's units.
const (
	Kind   = "t"
	Engine = "e1"
)

// Timings the implementations are set up with.
var Options = queue.Options{AckWait: 2 * time.Second, NakDelay: 700 * time.Millisecond, MaxDeliver: 3}

// Run runs every case, each on a fresh harness from newHarness.
func Run(t *testing.T, newHarness func(t *testing.T) *Harness) {
	cases := []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		{"EnqueueTwice", enqueueTwice},
		{"RedeliverUnit", redeliverUnit},
		{"RedeliverOutcome", redeliverOutcome},
		{"NakDelay", nakDelay},
		{"CancelPurges", cancelPurges},
		{"Reconcile", reconcile},
		{"MaxDeliver", maxDeliver},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newHarness(t)) })
	}
}

func units(job quad.IRI, keys ...string) []queue.Unit {
	var out []queue.Unit
	for _, k := range keys {
		out = append(out, queue.Unit{Kind: Kind, Key: k, Engine: Engine, Job: job, Body: []byte("in " + k)})
	}
	return out
}

// runs records the runs of an executor per key.
type runs struct {
	mu sync.Mutex
	at map[string][]time.Time
}

func (r *runs) add(k string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at == nil {
		r.at = map[string][]time.Time{}
	}
	r.at[k] = append(r.at[k], time.Now())
	return len(r.at[k])
}

func (r *runs) get(k string) []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.at[k]...)
}

// serve starts w until the test ends.
func serve(t *testing.T, w queue.Worker) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Serve(ctx); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// collect receives n outcomes of job (calling Done on each when done is
// true) within d.
func collect(t *testing.T, q queue.Queue, job quad.IRI, n int, d time.Duration, done bool) []queue.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	ch, err := q.Outcomes(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	var out []queue.Outcome
	for o := range ch {
		if done {
			if err := o.Done(); err != nil {
				t.Errorf("done %s: %v", o.Key, err)
			}
		}
		out = append(out, o)
		if len(out) == n {
			cancel()
			for range ch {
			}
			break
		}
	}
	if len(out) < n {
		t.Fatalf("%d outcomes of %s within %v, want %d", len(out), job, d, n)
	}
	return out
}

func echo(r *runs) queue.Executor {
	return func(ctx context.Context, u queue.Unit, n int) ([]byte, error) {
		r.add(u.Key)
		return append([]byte("out "), u.Body...), nil
	}
}

func enqueueTwice(t *testing.T, h *Harness) {
	ctx := context.Background()
	job := quad.IRI("http://x/job/twice")
	if n, err := h.Queue.Enqueue(ctx, units(job, "a", "b")); err != nil || n != 2 {
		t.Fatalf("first enqueue: %d %v", n, err)
	}
	if n, err := h.Queue.Enqueue(ctx, units(job, "a", "b", "c")); err != nil || n != 1 {
		t.Fatalf("second enqueue: %d added, want 1 (%v)", n, err)
	}
	if s, err := h.Queue.Stats(ctx, job); err != nil || s.Queued != 3 {
		t.Errorf("stats %+v %v, want 3 queued", s, err)
	}
	var r runs
	serve(t, h.NewWorker("w1", 2, echo(&r)))
	got := collect(t, h.Queue, job, 3, 20*time.Second, true)
	keys := map[string]bool{}
	for _, o := range got {
		keys[o.Key] = true
		if string(o.Body) != "out in "+o.Key || o.Failure != "" || o.Job != job || o.Kind != Kind {
			t.Errorf("outcome %+v", o)
		}
	}
	time.Sleep(300 * time.Millisecond)
	for _, k := range []string{"a", "b", "c"} {
		if !keys[k] || len(r.get(k)) != 1 {
			t.Errorf("unit %s: outcome %v, %d runs, want 1", k, keys[k], len(r.get(k)))
		}
	}
}

func redeliverUnit(t *testing.T, h *Harness) {
	ctx := context.Background()
	job := quad.IRI("http://x/job/redeliver")
	var r runs
	serve(t, h.NewWorker("w1", 1, func(ctx context.Context, u queue.Unit, n int) ([]byte, error) {
		if r.add(u.Key) == 1 {
			return nil, queue.ErrAbandon // a worker dying silently
		}
		return []byte("ok"), nil
	}))
	if _, err := h.Queue.Enqueue(ctx, units(job, "x")); err != nil {
		t.Fatal(err)
	}
	o := collect(t, h.Queue, job, 1, 30*time.Second, true)[0]
	at := r.get("x")
	if len(at) != 2 || o.Runs != 2 || string(o.Body) != "ok" {
		t.Fatalf("runs %d, outcome %+v", len(at), o)
	}
	if gap := at[1].Sub(at[0]); gap < Options.AckWait*8/10 {
		t.Errorf("redelivered after %v, before the ack wait %v", gap, Options.AckWait)
	}
}

func redeliverOutcome(t *testing.T, h *Harness) {
	ctx := context.Background()
	job := quad.IRI("http://x/job/outcome")
	var r runs
	serve(t, h.NewWorker("w1", 1, echo(&r)))
	if _, err := h.Queue.Enqueue(ctx, units(job, "y")); err != nil {
		t.Fatal(err)
	}
	first := collect(t, h.Queue, job, 1, 20*time.Second, false)[0] // not Done: a committer that died
	second := collect(t, h.Queue, job, 1, 20*time.Second, true)[0]
	if first.Key != "y" || second.Key != "y" || second.Delivery <= first.Delivery || len(r.get("y")) != 1 {
		t.Fatalf("first %+v, second %+v, %d runs", first, second, len(r.get("y")))
	}
	// Done: not delivered again.
	cctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	ch, err := h.Queue.Outcomes(cctx, job)
	if err != nil {
		t.Fatal(err)
	}
	for o := range ch {
		t.Errorf("outcome delivered after Done: %+v", o)
	}
}

func nakDelay(t *testing.T, h *Harness) {
	ctx := context.Background()
	job := quad.IRI("http://x/job/nak")
	var r runs
	serve(t, h.NewWorker("w1", 1, func(ctx context.Context, u queue.Unit, n int) ([]byte, error) {
		if r.add(u.Key) == 1 {
			return nil, fmt.Errorf("%w: vina missing", queue.ErrFault)
		}
		return []byte("ok"), nil
	}))
	if _, err := h.Queue.Enqueue(ctx, units(job, "z")); err != nil {
		t.Fatal(err)
	}
	o := collect(t, h.Queue, job, 1, 20*time.Second, true)[0]
	at := r.get("z")
	if len(at) != 2 || o.Runs != 2 || o.Failure != "" {
		t.Fatalf("runs %d, outcome %+v", len(at), o)
	}
	if gap := at[1].Sub(at[0]); gap < Options.NakDelay*8/10 || gap > Options.AckWait {
		t.Errorf("run again after %v, want the nak delay %v", gap, Options.NakDelay)
	}
}

func cancelPurges(t *testing.T, h *Harness) {
	ctx := context.Background()
	job, other := quad.IRI("http://x/job/cancelled"), quad.IRI("http://x/job/other")
	if _, err := h.Queue.Enqueue(ctx, units(job, "c1", "c2", "c3")); err != nil {
		t.Fatal(err)
	}
	if err := h.Queue.Cancel(ctx, job); err != nil {
		t.Fatal(err)
	}
	if s, err := h.Queue.Stats(ctx, job); err != nil || s.Queued != 0 {
		t.Errorf("after cancel: %+v %v", s, err)
	}
	var r runs
	serve(t, h.NewWorker("w1", 2, echo(&r)))
	if _, err := h.Queue.Enqueue(ctx, units(other, "o1")); err != nil {
		t.Fatal(err)
	}
	collect(t, h.Queue, other, 1, 20*time.Second, true)
	for _, k := range []string{"c1", "c2", "c3"} {
		if n := len(r.get(k)); n != 0 {
			t.Errorf("cancelled unit %s ran %d times", k, n)
		}
	}
	// A cancelled job's units may be enqueued again (a resubmission).
	if n, err := h.Queue.Enqueue(ctx, units(job, "c1")); err != nil || n != 1 {
		t.Errorf("enqueue after cancel: %d %v", n, err)
	}
	_ = h.Queue.Cancel(ctx, job)
}

func reconcile(t *testing.T, h *Harness) {
	ctx := context.Background()
	job := quad.IRI("http://x/job/reconcile")
	if _, err := h.Queue.Enqueue(ctx, units(job, "r1", "r2")); err != nil {
		t.Fatal(err)
	}
	h.Lose()
	// The reconcile republishes every pending unit: the lost ones come
	// back, a still-queued one is skipped.
	if n, err := h.Queue.Enqueue(ctx, units(job, "r1", "r2", "r3")); err != nil || n != 3 {
		t.Fatalf("reconcile after a loss: %d added, want 3 (%v)", n, err)
	}
	if n, err := h.Queue.Enqueue(ctx, units(job, "r1", "r2", "r3")); err != nil || n != 0 {
		t.Fatalf("reconcile with nothing lost: %d added, want 0 (%v)", n, err)
	}
	var r runs
	serve(t, h.NewWorker("w1", 2, echo(&r)))
	got := collect(t, h.Queue, job, 3, 20*time.Second, true)
	seen := map[string]bool{}
	for _, o := range got {
		seen[o.Key] = true
	}
	if len(seen) != 3 {
		t.Errorf("outcomes %v", seen)
	}
}

func maxDeliver(t *testing.T, h *Harness) {
	ctx := context.Background()
	job := quad.IRI("http://x/job/poison")
	var r runs
	serve(t, h.NewWorker("w1", 1, func(ctx context.Context, u queue.Unit, n int) ([]byte, error) {
		r.add(u.Key)
		return nil, fmt.Errorf("%w: crashes every worker", queue.ErrFault)
	}))
	if _, err := h.Queue.Enqueue(ctx, units(job, "p")); err != nil {
		t.Fatal(err)
	}
	o := collect(t, h.Queue, job, 1, 30*time.Second, true)[0]
	if o.Key != "p" || !strings.Contains(o.Failure, queue.GaveUp(Options.MaxDeliver)) || o.Body != nil {
		t.Fatalf("outcome %+v", o)
	}
	if n := len(r.get("p")); n != Options.MaxDeliver {
		t.Errorf("%d runs, want %d", n, Options.MaxDeliver)
	}
	// The unit is gone: it may be enqueued again.
	if n, err := h.Queue.Enqueue(ctx, units(job, "p")); err != nil || n != 1 {
		t.Errorf("enqueue after the failure: %d %v", n, err)
	}
	_ = h.Queue.Cancel(ctx, job)
}
