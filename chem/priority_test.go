package chem

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestRequestBeforeBackground: with the one worker busy and background
// (batch) molecules waiting for it, a request's molecule queued after them
// is processed first.
func TestRequestBeforeBackground(t *testing.T) {
	p, err := New(Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	hold, held := make(chan struct{}), make(chan struct{})
	go p.call(ctx, func() { close(held); <-hold })
	<-held

	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	run := func(name string, ctx context.Context) {
		defer wg.Done()
		if _, err := p.Process(ctx, Input{Format: FormatSMILES, Content: "c1ccccc1O"}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	// blocked waits until n senders of a priority wait for the worker
	// (a fixed sleep was not enough on a loaded CI machine), then a
	// little more for the last to reach its channel send.
	blocked := func(prio int, n int64) {
		deadline := time.Now().Add(30 * time.Second)
		for p.waiting[prio].Load() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d senders of priority %d waiting, want %d", p.waiting[prio].Load(), prio, n)
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for range 4 {
		wg.Add(1)
		go run("background", Background(ctx))
	}
	// The background senders block on the worker first.
	blocked(1, 4)
	wg.Add(1)
	go run("request", ctx)
	blocked(0, 1)
	close(hold)
	wg.Wait()
	if len(order) != 5 || order[0] != "request" {
		t.Fatalf("order of completion %v, want the request first", order)
	}
}
