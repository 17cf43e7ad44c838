package search

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestJobsBounds: finished jobs expire after the TTL, a key holds at most
// MaxHeldPerOwner (the oldest finished dropped first), the service runs at
// most MaxRunning, and Close stops running searches.
func TestJobsBounds(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	block := make(chan struct{})
	fn := func(ctx context.Context, req Request) ([]Hit, error) {
		if req.Query == "block" {
			select {
			case <-block:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return []Hit{{ID: "mol-" + req.Query}}, nil
	}
	js := NewJobs(fn, JobOptions{TTL: time.Hour, MaxRunning: 3, MaxRunningPerOwner: 2, MaxHeldPerOwner: 3})
	js.now = clock
	start := func(owner, q string) (*Job, error) {
		j, err := js.Start(owner, Request{Query: q}, true)
		if err == nil {
			advance(time.Second)
		}
		return j, err
	}
	wait := func(j *Job) {
		t.Helper()
		select {
		case <-j.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("job did not finish")
		}
	}
	var done []*Job
	for _, q := range []string{"a", "b", "c"} {
		j, err := start("k1", q)
		if err != nil {
			t.Fatal(err)
		}
		wait(j)
		done = append(done, j)
	}
	// A fourth job drops the oldest finished one.
	j4, err := start("k1", "d")
	if err != nil {
		t.Fatal(err)
	}
	wait(j4)
	if _, err := js.Get("k1", done[0].ID); !errors.Is(err, ErrNoSearchJob) {
		t.Errorf("oldest job still held: %v", err)
	}
	if _, err := js.Get("k1", done[1].ID); err != nil {
		t.Errorf("second job: %v", err)
	}
	if _, err := js.Get("k2", done[1].ID); !errors.Is(err, ErrNoSearchJob) {
		t.Errorf("another key sees the job: %v", err)
	}
	if hits, err, _, ok := j4.Result(); !ok || err != nil || len(hits) != 1 || hits[0].ID != "mol-d" || j4.Status() != JobDone {
		t.Errorf("result %v %v %v %s", hits, err, ok, j4.Status())
	}
	// Running bounds: 2 per key, 3 in all.
	r1, _ := start("k2", "block")
	r2, _ := start("k2", "block")
	if _, err := start("k2", "block"); !errors.Is(err, ErrTooManySearchJobs) {
		t.Errorf("third running job of a key: %v", err)
	}
	r3, _ := start("k3", "block")
	if _, err := start("k4", "block"); !errors.Is(err, ErrTooManySearchJobs) {
		t.Errorf("fourth running job: %v", err)
	}
	close(block)
	for _, j := range []*Job{r1, r2, r3} {
		wait(j)
	}
	// Expiry: an hour after finishing.
	advance(59 * time.Minute)
	if _, err := js.Get("k1", j4.ID); err != nil {
		t.Errorf("job expired early: %v", err)
	}
	advance(2 * time.Minute)
	if _, err := js.Get("k1", j4.ID); !errors.Is(err, ErrNoSearchJob) {
		t.Errorf("job not expired: %v", err)
	}
	// Close stops a running job's search.
	js2 := NewJobs(func(ctx context.Context, _ Request) ([]Hit, error) { <-ctx.Done(); return nil, ctx.Err() }, JobOptions{})
	j, err := js2.Start("k", Request{}, true)
	if err != nil {
		t.Fatal(err)
	}
	js2.Close()
	if _, err, _, ok := j.Result(); !ok || !errors.Is(err, context.Canceled) || j.Status() != JobFailed {
		t.Errorf("after Close: %v %v %s", err, ok, j.Status())
	}
}

// TestJobsByteBudget: the hits finished jobs keep, all keys together, stay
// within MaxHeldBytes: the oldest finished jobs are dropped (404 like an
// expired one), the newest kept even when it alone is over.
func TestJobsByteBudget(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	fn := func(ctx context.Context, req Request) ([]Hit, error) {
		mu.Lock()
		now = now.Add(time.Second)
		mu.Unlock()
		n := 100
		if req.Query == "big" {
			n = 1000
		}
		return make([]Hit, n), nil
	}
	// room for 250 hits; each key may hold many jobs
	js := NewJobs(fn, JobOptions{MaxHeldBytes: 250 * int64(HitBytes), MaxHeldPerOwner: 100})
	js.now = clock
	defer js.Close()
	run := func(owner, q string) *Job {
		t.Helper()
		j, err := js.Start(owner, Request{Query: q}, true)
		if err != nil {
			t.Fatal(err)
		}
		<-j.Done()
		// the trim runs just after done closes
		for i := 0; i < 1000; i++ {
			if held(js) <= js.opt.MaxHeldBytes || heldJobs(js) == 1 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		return j
	}
	a := run("k1", "a")
	b := run("k2", "b")
	if _, err := js.Get("k1", a.ID); err != nil {
		t.Fatal("200 hits within the budget: job a dropped")
	}
	c := run("k3", "c") // 300 hits: a goes
	if _, err := js.Get("k1", a.ID); !errors.Is(err, ErrNoSearchJob) {
		t.Fatalf("over the budget, the oldest job is kept (%v)", err)
	}
	for _, j := range []*Job{b, c} {
		if _, err := js.Get(j.Owner, j.ID); err != nil {
			t.Fatal(err)
		}
	}
	big := run("k1", "big") // alone over: kept, the others dropped
	if _, err := js.Get("k1", big.ID); err != nil {
		t.Fatal(err)
	}
	if n := heldJobs(js); n != 1 {
		t.Fatalf("%d jobs held, want only the newest", n)
	}
}

func held(js *Jobs) int64 {
	js.mu.Lock()
	defer js.mu.Unlock()
	var n int64
	for _, j := range js.jobs {
		if hits, _, _, ok := j.Result(); ok {
			n += int64(len(hits)) * int64(HitBytes)
		}
	}
	return n
}

func heldJobs(js *Jobs) int {
	js.mu.Lock()
	defer js.mu.Unlock()
	return len(js.jobs)
}
