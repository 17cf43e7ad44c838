package main

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"
)

// blockingWriter blocks every Write until release is closed, as a log
// file on a stalled disk does.
type blockingWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// TestAsyncWriter: records written while the output is stalled return at
// once, come out whole and in order, and Close waits for all of them; a
// record after Close is written directly.
func TestAsyncWriter(t *testing.T) {
	out := &blockingWriter{release: make(chan struct{})}
	a := newAsyncWriter(out)
	var want bytes.Buffer
	start := time.Now()
	for i := range 1000 {
		rec := fmt.Appendf(nil, `{"msg":"request","n":%d}`+"\n", i)
		want.Write(rec)
		if _, err := a.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec[2] = 'X' // the writer keeps its own copy
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("1000 writes to a stalled output took %s", d)
	}
	close(out.release)
	a.Close()
	a.Write([]byte("after close\n"))
	want.WriteString("after close\n")
	if out.buf.String() != want.String() {
		t.Errorf("output differs from the records written in order (%d bytes, want %d)", out.buf.Len(), want.Len())
	}
}
