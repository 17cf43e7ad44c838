package admission

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestBucketDrainsAndRefills(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	c, err := New(Limits{Rate: 2, Burst: 3, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`"key";r=2;t=1`, `"key";r=1;t=1`, `"key";r=0;t=1`} {
		q, ok, err := c.Allow("k1")
		if err != nil || !ok || q.Header() != want || q.PolicyHeader() != `"key";q=3;w=2` {
			t.Fatalf("request %d: %+v %v %v; header %s policy %s", i, q, ok, err, q.Header(), q.PolicyHeader())
		}
	}
	_, _, err = c.Allow("k1")
	var rej *Rejection
	if !errors.As(err, &rej) || !errors.Is(err, ErrRateLimited) || rej.Reason != "rate" ||
		rej.RetryAfter != 500*time.Millisecond || Seconds(rej.RetryAfter) != 1 || rej.Quota.Header() != `"key";r=0;t=1` {
		t.Fatalf("4th request: %v (%+v)", err, rej)
	}
	// Another key has its own bucket.
	if _, _, err := c.Allow("k2"); err != nil {
		t.Fatalf("k2: %v", err)
	}
	// Half a second later there is one token again, and one request passes.
	clk.Add(500 * time.Millisecond)
	if q, _, err := c.Allow("k1"); err != nil || q.Remaining != 0 {
		t.Fatalf("after refill: %+v %v", q, err)
	}
	if _, _, err := c.Allow("k1"); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("no token yet: %v", err)
	}
	// Full buckets are dropped by the sweep; a dropped key starts full.
	clk.Add(2 * sweepEvery)
	if q, _, err := c.Allow("k3"); err != nil || q.Remaining != 2 {
		t.Fatalf("k3: %+v %v", q, err)
	}
	if n := len(c.buckets.m); n != 1 {
		t.Errorf("%d buckets after the sweep, want 1 (k3)", n)
	}
}

// A slow rate gives a long Retry-After: one request per 10 s.
func TestRetryAfterSlowRate(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	c, _ := New(Limits{Rate: 0.1, Burst: 1, Now: clk.Now})
	if q, _, err := c.Allow("k"); err != nil || q.PolicyHeader() != `"key";q=1;w=10` || q.Header() != `"key";r=0;t=10` {
		t.Fatalf("%+v %v", q, err)
	}
	clk.Add(4 * time.Second)
	var rej *Rejection
	if _, _, err := c.Allow("k"); !errors.As(err, &rej) || Seconds(rej.RetryAfter) != 6 {
		t.Fatalf("%v", err)
	}
}

func TestNoRateLimit(t *testing.T) {
	c, _ := New(Limits{})
	for range 1000 {
		if _, ok, err := c.Allow("k"); ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	rel, err := c.Acquire(context.Background(), SPARQL, "")
	if err != nil {
		t.Fatal(err)
	}
	rel()
}

func TestGate(t *testing.T) {
	c, err := New(Limits{InFlight: map[Class]int{SPARQL: 1}, Wait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rel, err := c.Acquire(ctx, SPARQL, "")
	if err != nil || c.InFlight(SPARQL) != 1 {
		t.Fatal(err, c.InFlight(SPARQL))
	}
	// Other classes are not held up.
	if r2, err := c.Acquire(ctx, Chem, ""); err != nil {
		t.Fatal(err)
	} else {
		r2()
	}
	start := time.Now()
	_, err = c.Acquire(ctx, SPARQL, "")
	var rej *Rejection
	if !errors.As(err, &rej) || !errors.Is(err, ErrBusy) || rej.Reason != "wait_timeout" || rej.Class != SPARQL ||
		Seconds(rej.RetryAfter) != 1 || time.Since(start) < 50*time.Millisecond ||
		err.Error() != "capacity full: waited 50ms for one of the 1 places of sparql requests; retry in 1 s" {
		t.Fatalf("second sparql: %v after %v", err, time.Since(start))
	}
	// A waiter gets the place when it is given back.
	got := make(chan error)
	go func() {
		r, err := c.Acquire(ctx, SPARQL, "")
		if err == nil {
			r()
		}
		got <- err
	}()
	time.Sleep(10 * time.Millisecond)
	rel()
	rel() // a second call is harmless
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
	if c.InFlight(SPARQL) != 0 || c.Waiting(SPARQL) != 0 {
		t.Errorf("in flight %d, waiting %d", c.InFlight(SPARQL), c.Waiting(SPARQL))
	}
}

// The waiting line holds WaitingFactor × the cap; past it a request is
// refused at once. A cancelled waiter leaves with its context's error.
func TestGateWaitingLine(t *testing.T) {
	c, _ := New(Limits{InFlight: map[Class]int{Chem: 1}, Wait: 10 * time.Second})
	hold, err := c.Acquire(context.Background(), Chem, "")
	if err != nil {
		t.Fatal(err)
	}
	defer hold()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, WaitingFactor)
	for range WaitingFactor {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Acquire(ctx, Chem, "")
			errs <- err
		}()
	}
	for c.Waiting(Chem) < WaitingFactor {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	var rej *Rejection
	if _, err := c.Acquire(context.Background(), Chem, ""); !errors.As(err, &rej) || rej.Reason != "class_full" || time.Since(start) > time.Second ||
		!strings.Contains(err.Error(), "1 chem requests are in flight, the most this service runs at once, and 4 more are waiting") {
		t.Fatalf("past the waiting line: %v after %v", err, time.Since(start))
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrBusy) {
			t.Errorf("cancelled waiter: %v", err)
		}
	}
	// Without a wait a full class refuses at once.
	c0, _ := New(Limits{InFlight: map[Class]int{QM: 1}})
	r, _ := c0.Acquire(context.Background(), QM, "")
	defer r()
	if _, err := c0.Acquire(context.Background(), QM, ""); !errors.As(err, &rej) || rej.Reason != "class_full" {
		t.Fatalf("no wait: %v", err)
	}
}

func TestNewInvalid(t *testing.T) {
	for _, l := range []Limits{
		{Rate: -1}, {Burst: -1}, {Wait: -time.Second},
		{InFlight: map[Class]int{"nosuch": 1}}, {InFlight: map[Class]int{Light: 1}}, {InFlight: map[Class]int{SPARQL: -1}},
	} {
		if _, err := New(l); !errors.Is(err, ErrInvalid) {
			t.Errorf("New(%+v) = %v", l, err)
		}
	}
	c, err := New(Limits{Rate: 10})
	if err != nil || c.Limits().Burst != 20 {
		t.Errorf("default burst: %+v %v", c.Limits(), err)
	}
}

func TestParseInFlight(t *testing.T) {
	base := DefaultLimits().InFlight
	m, err := ParseInFlight(" sparql=3, CHEM=0 ,", base)
	if err != nil || m[SPARQL] != 3 || m[Chem] != 0 || m[GraphQL] != base[GraphQL] || base[SPARQL] != 8 {
		t.Fatalf("%v %v", m, err)
	}
	if s := FormatInFlight(base); s != "sparql=8,graphql=8,chem=32,upload=8,qm=4,receptor=2,docking=8,export=2" {
		t.Errorf("format: %s", s)
	}
	if back, err := ParseInFlight(FormatInFlight(base), nil); err != nil || len(back) != len(base) {
		t.Errorf("round trip: %v %v", back, err)
	}
	for _, bad := range []string{"sparql", "sparql=x", "sparql=-1", "light=3", "nosuch=1"} {
		if _, err := ParseInFlight(bad, base); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// BenchmarkAdmit is the cost admission adds to a request: one token and
// one place in a capped class (report allocations; timings need an idle
// machine).
func BenchmarkAdmit(b *testing.B) {
	l := DefaultLimits()
	l.Rate = 1e9 // never empty: measure the bookkeeping, not refusals
	c, _ := New(l)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := c.Allow("key-1"); err != nil {
			b.Fatal(err)
		}
		rel, err := c.Acquire(ctx, SPARQL, "")
		if err != nil {
			b.Fatal(err)
		}
		rel()
	}
}

// One key holds at most half a class's places; other keys still get in.
// Requests without a key are not counted per key.
func TestGateKeyShare(t *testing.T) {
	c, _ := New(Limits{InFlight: map[Class]int{SPARQL: 4}, Wait: 50 * time.Millisecond})
	ctx := context.Background()
	var rels []func()
	for _, key := range []string{"a", "a", "b"} {
		r, err := c.Acquire(ctx, SPARQL, key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		rels = append(rels, r)
	}
	var rej *Rejection
	start := time.Now()
	if _, err := c.Acquire(ctx, SPARQL, "a"); !errors.As(err, &rej) || rej.Reason != "key_share" ||
		time.Since(start) < 50*time.Millisecond || !strings.Contains(err.Error(), "this API key holds 2 of the 4 places of sparql") {
		t.Fatalf("a's third: %v", err)
	}
	// b takes the last place; then the class is full for everyone.
	rb, err := c.Acquire(ctx, SPARQL, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Acquire(ctx, SPARQL, "c"); !errors.As(err, &rej) || rej.Reason != "wait_timeout" {
		t.Fatalf("c with the class full: %v", err)
	}
	// a waits for its own place and then for the class's.
	got := make(chan error)
	go func() {
		r, err := c.Acquire(ctx, SPARQL, "a")
		if err == nil {
			r()
		}
		got <- err
	}()
	time.Sleep(5 * time.Millisecond)
	rels[0]() // a gives one back: a's share and a class place are free
	if err := <-got; err != nil {
		t.Fatalf("a's waiter: %v", err)
	}
	rb()
	rels[1]()
	rels[2]()
	// Without a key there is no share: four places for "".
	for range 4 {
		r, err := c.Acquire(ctx, SPARQL, "")
		if err != nil {
			t.Fatal(err)
		}
		defer r()
	}
	g := c.gates[SPARQL]
	g.mu.Lock()
	n := len(g.keys)
	g.mu.Unlock()
	if n != 0 {
		t.Errorf("%d keys still tracked after every place was given back", n)
	}
	if KeyShare(1) != 1 || KeyShare(2) != 1 || KeyShare(8) != 4 || KeyShare(5) != 3 {
		t.Error("KeyShare")
	}
}
