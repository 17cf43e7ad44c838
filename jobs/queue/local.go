package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cayleygraph/quad"
)

// Local is the in-process queue: units wait in memory and run on the
// workers of Serve, in the same process. It loses its content when the
// process ends, which the reconcile at job start (republish every pending
// unit) repairs, as it does for a lost JetStream stream.
type Local struct {
	opt Options

	mu      sync.Mutex
	wake    chan struct{} // closed and replaced when something changes
	units   []*localUnit  // in enqueue order
	byID    map[unitID]*localUnit
	results map[quad.IRI][]*localOutcome
	closed  bool
}

type unitID struct {
	job       quad.IRI
	kind, key string
}

type localUnit struct {
	u         Unit
	runs      int
	notBefore time.Time
	running   bool      // an executor has it
	deadline  time.Time // abandoned: delivered again after this
	cancel    context.CancelFunc
}

type localOutcome struct {
	o        Outcome
	out      bool // delivered, not Done, its consumer still running
	delivery int
}

// NewLocal returns an empty in-process queue.
func NewLocal(opt Options) *Local {
	return &Local{opt: opt.WithDefaults(), wake: make(chan struct{}), byID: map[unitID]*localUnit{},
		results: map[quad.IRI][]*localOutcome{}}
}

// signal wakes every waiter; l.mu held.
func (l *Local) signal() {
	close(l.wake)
	l.wake = make(chan struct{})
}

// Enqueue implements Queue.
func (l *Local) Enqueue(ctx context.Context, units []Unit) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, ErrClosed
	}
	added := 0
	for _, u := range units {
		id := unitID{u.Job, u.Kind, u.Key}
		if l.byID[id] != nil {
			continue
		}
		lu := &localUnit{u: u}
		l.byID[id] = lu
		l.units = append(l.units, lu)
		added++
	}
	if added > 0 {
		l.signal()
	}
	return added, nil
}

// ErrClosed: the queue is closed.
var ErrClosed = errors.New("queue closed")

// Outcomes implements Queue.
func (l *Local) Outcomes(ctx context.Context, job quad.IRI) (<-chan Outcome, error) {
	ch := make(chan Outcome)
	go func() {
		defer close(ch)
		var mine []*localOutcome
		defer func() {
			l.mu.Lock()
			for _, r := range mine {
				r.out = false // not Done: delivered again
			}
			l.signal()
			l.mu.Unlock()
		}()
		for {
			l.mu.Lock()
			var next *localOutcome
			for _, r := range l.results[job] {
				if !r.out {
					next = r
					break
				}
			}
			wake := l.wake
			if next != nil {
				next.out = true
				next.delivery++
				mine = append(mine, next)
			}
			closed := l.closed
			l.mu.Unlock()
			if closed {
				return
			}
			if next == nil {
				select {
				case <-ctx.Done():
					return
				case <-wake:
				}
				continue
			}
			o := next.o
			o.Delivery = next.delivery
			r := next
			o.Done = func() error {
				l.mu.Lock()
				defer l.mu.Unlock()
				rs := l.results[job]
				for i, x := range rs {
					if x == r {
						l.results[job] = append(rs[:i:i], rs[i+1:]...)
						break
					}
				}
				return nil
			}
			select {
			case ch <- o:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

// Cancel implements Queue: queued units and outcomes of job are dropped,
// running ones are cancelled.
func (l *Local) Cancel(ctx context.Context, job quad.IRI) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	keep := l.units[:0]
	for _, lu := range l.units {
		if lu.u.Job != job {
			keep = append(keep, lu)
			continue
		}
		delete(l.byID, unitID{lu.u.Job, lu.u.Kind, lu.u.Key})
		if lu.cancel != nil {
			lu.cancel()
		}
	}
	clear(l.units[len(keep):])
	l.units = keep
	delete(l.results, job)
	l.signal()
	return nil
}

// Stats implements Queue.
func (l *Local) Stats(ctx context.Context, job quad.IRI) (Stats, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var s Stats
	for _, lu := range l.units {
		if job == "" || lu.u.Job == job {
			s.Queued++
			if lu.running || !lu.deadline.IsZero() {
				s.InFlight++
			}
		}
	}
	for j, rs := range l.results {
		if job == "" || j == job {
			s.Outcomes += len(rs)
		}
	}
	return s, nil
}

// Lose drops every queued unit, as a restart of the process would (tests
// of the reconcile use it).
func (l *Local) Lose() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, lu := range l.units {
		if lu.cancel != nil {
			lu.cancel()
		}
	}
	l.units, l.byID = nil, map[unitID]*localUnit{}
	l.signal()
}

// Close implements Queue: workers stop, outcome channels close.
func (l *Local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		l.signal()
	}
	return nil
}

// LocalWorker runs the units of a Local queue in this process.
type LocalWorker struct {
	Queue *Local
	Name  string
	Slots int
	// Exec runs the units of each kind; Engine is the fingerprint it
	// accepts (units of another engine are left for other workers).
	Exec   map[string]Executor
	Engine string
	// Drain is how long running units may finish after ctx ends.
	Drain time.Duration
}

// take returns the next unit this worker may run now, or the time to look
// again (zero: when woken).
func (w *LocalWorker) take(now time.Time) (*localUnit, time.Time) {
	l := w.Queue
	var again time.Time
	later := func(t time.Time) {
		if again.IsZero() || t.Before(again) {
			again = t
		}
	}
	for _, lu := range l.units {
		if w.Exec[lu.u.Kind] == nil || lu.u.Engine != w.Engine || lu.running {
			continue
		}
		if !lu.deadline.IsZero() && now.Before(lu.deadline) {
			later(lu.deadline)
			continue
		}
		if now.Before(lu.notBefore) {
			later(lu.notBefore)
			continue
		}
		return lu, time.Time{}
	}
	return nil, again
}

// Serve implements Worker.
func (w *LocalWorker) Serve(ctx context.Context) error {
	l := w.Queue
	slots := max(1, w.Slots)
	sem := make(chan struct{}, slots)
	runCtx, stopRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRuns()
	var wg sync.WaitGroup
	defer func() {
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(w.Drain):
			stopRuns()
			<-done
		}
	}()
	for {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		l.mu.Lock()
		var lu *localUnit
		for {
			if l.closed {
				l.mu.Unlock()
				return nil
			}
			var again time.Time
			lu, again = w.take(time.Now())
			if lu != nil {
				break
			}
			wake := l.wake
			l.mu.Unlock()
			var timer <-chan time.Time
			if !again.IsZero() {
				timer = time.After(time.Until(again))
			}
			select {
			case <-ctx.Done():
				return nil
			case <-wake:
			case <-timer:
			}
			l.mu.Lock()
		}
		lu.running, lu.deadline = true, time.Time{}
		lu.runs++
		uctx, cancel := context.WithCancel(runCtx)
		lu.cancel = cancel
		u, runs := lu.u, lu.runs
		l.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer cancel()
			body, err := w.Exec[u.Kind](uctx, u, runs)
			w.finish(lu, body, err, uctx.Err() != nil)
		}()
	}
}

// finish records the end of a run of lu.
func (w *LocalWorker) finish(lu *localUnit, body []byte, err error, stopped bool) {
	l := w.Queue
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.signal()
	lu.running, lu.cancel = false, nil
	id := unitID{lu.u.Job, lu.u.Kind, lu.u.Key}
	if l.byID[id] != lu {
		return // cancelled or lost meanwhile
	}
	o := Outcome{Kind: lu.u.Kind, Key: lu.u.Key, Job: lu.u.Job, Worker: w.Name, Engine: w.Engine, Runs: lu.runs, Body: body}
	switch {
	case err == nil && !stopped:
	case errors.Is(err, ErrAbandon):
		if lu.runs >= l.opt.MaxDeliver {
			o.Body, o.Failure = nil, GaveUp(lu.runs)
			break
		}
		lu.deadline = time.Now().Add(l.opt.AckWait) // silent: as if the worker died
		return
	case stopped:
		return // drained: handed back at once
	default:
		if lu.runs >= l.opt.MaxDeliver {
			o.Body, o.Failure = nil, fmt.Sprintf("%s (last: %v)", GaveUp(lu.runs), err)
			break
		}
		lu.notBefore = time.Now().Add(l.opt.NakDelay)
		return
	}
	delete(l.byID, id)
	for i, x := range l.units {
		if x == lu {
			l.units = append(l.units[:i:i], l.units[i+1:]...)
			break
		}
	}
	l.results[lu.u.Job] = append(l.results[lu.u.Job], &localOutcome{o: o})
}
