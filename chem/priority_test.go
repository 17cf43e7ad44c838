package chem

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestRequestBeforeBackground: with the one worker busy and background
// (batch) work waiting for it, a request's work queued after it is taken
// first. Five rounds: a worker choosing between the two queues at random
// would pass one round in two.
func TestRequestBeforeBackground(t *testing.T) {
	p, err := New(Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	// blocked waits until n senders of a priority wait for the worker
	// (fixed sleeps were outrun on a loaded CI machine), then a little
	// more for the last to reach its channel send.
	blocked := func(prio int, n int64) {
		deadline := time.Now().Add(30 * time.Second)
		for p.waiting[prio].Load() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d senders of priority %d waiting, want %d", p.waiting[prio].Load(), prio, n)
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for round := range 5 {
		hold, held := make(chan struct{}), make(chan struct{})
		go p.call(ctx, func() { close(held); <-hold })
		<-held
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		// Each sender's work records its name on the worker's thread:
		// the order in which the worker took them (the order in which
		// their callers return is the scheduler's, not the pool's).
		run := func(name string, ctx context.Context) {
			defer wg.Done()
			err := p.call(ctx, func() {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
			})
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		for range 4 {
			wg.Add(1)
			go run("background", Background(ctx))
		}
		blocked(1, 4) // the background senders wait first
		wg.Add(1)
		go run("request", ctx)
		blocked(0, 1)
		close(hold)
		wg.Wait()
		if len(order) != 5 || order[0] != "request" {
			t.Fatalf("round %d: order taken %v, want the request first", round, order)
		}
	}
	// Process goes through the same queues.
	if _, err := p.Process(Background(ctx), Input{Format: FormatSMILES, Content: "c1ccccc1O"}); err != nil {
		t.Fatal(err)
	}
}
