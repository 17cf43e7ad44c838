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
	for range 4 {
		wg.Add(1)
		go run("background", Background(ctx))
	}
	// Let the background senders block on the worker first.
	time.Sleep(300 * time.Millisecond)
	wg.Add(1)
	go run("request", ctx)
	time.Sleep(300 * time.Millisecond)
	close(hold)
	wg.Wait()
	if len(order) != 5 || order[0] != "request" {
		t.Fatalf("order of completion %v, want the request first", order)
	}
}
