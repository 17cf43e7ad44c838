package main

import (
	"bytes"
	"io"
	"sync"
)

// asyncWriter passes the server's log records to its output from a
// goroutine of its own, so that a request never waits for the write of its
// access-log line: the line is written after the handler returns but
// before net/http sends the answer, under the logger's lock, so one
// write(2) that blocks on a busy disk (a log file on the file system of the
// store, which fsyncs for every group commit) would hold back every answer
// of the moment. Standard slog has no asynchronous handler, and the whole
// of it is this queue, hence no library.
//
// The queue holds asyncQueueRecords records; when it is full, Write waits
// (a slow log slows the server down rather than losing lines or growing
// without bound). Records are written in order, several per write when
// they queued up. Close writes what is queued and waits for it; a Write
// after Close writes directly. Records still queued when the process is
// killed are lost (a few milliseconds' worth).
type asyncWriter struct {
	out  io.Writer
	ch   chan []byte
	done chan struct{}

	mu     sync.Mutex
	closed bool
}

// asyncQueueRecords bounds the queue: some 10 s of access log at the
// 300 requests/s of make bench-load, at most a few MiB.
const asyncQueueRecords = 4096

func newAsyncWriter(out io.Writer) *asyncWriter {
	a := &asyncWriter{out: out, ch: make(chan []byte, asyncQueueRecords), done: make(chan struct{})}
	go a.run()
	return a
}

// Write queues a copy of p (slog writes one record per call).
func (a *asyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return a.out.Write(p)
	}
	a.ch <- bytes.Clone(p)
	return len(p), nil
}

func (a *asyncWriter) run() {
	defer close(a.done)
	var buf []byte
	for rec := range a.ch {
		buf = append(buf[:0], rec...)
	queued:
		for len(buf) < 64<<10 {
			select {
			case rec, ok := <-a.ch:
				if !ok {
					break queued
				}
				buf = append(buf, rec...)
			default:
				break queued
			}
		}
		// A failed write has nowhere to be reported but the log itself.
		a.out.Write(buf)
	}
}

// Close writes the queued records and returns once they are written.
func (a *asyncWriter) Close() error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.ch)
	}
	a.mu.Unlock()
	<-a.done
	return nil
}
