package search

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Search jobs: a search that outlives its request (PubChem's ListKey
// pattern). The REST route starts every search as a Job; when it finishes
// within the synchronous budget its hits are answered at once and the job
// is forgotten, otherwise (or when the client asks for it) the job is
// registered under an id, keeps running in the background within its own
// time budget, and its hits are read later, paged or streamed, by the key
// that started it.
//
// Jobs live in memory only: their hits are a list of ids and scores that a
// new search recomputes, so they are not worth a durable write per search;
// a restart forgets them (a job id then answers 404, as an expired one
// does). They expire JobOptions.TTL after they finish. Bounds: jobs running
// at once, overall and per key, jobs held per key, and the bytes of the
// hits held by all finished jobs (for both, the oldest finished ones are
// dropped first).

// ErrTooManySearchJobs: the key (or the service) already runs as many
// search jobs as it may.
var ErrTooManySearchJobs = errors.New("too many search jobs")

// ErrNoSearchJob: no job with that id for that key (never started,
// expired, deleted, or started before a restart).
var ErrNoSearchJob = errors.New("unknown or expired search job")

// JobOptions bound the search jobs. Zero fields take the defaults.
type JobOptions struct {
	// Timeout bounds one job's search (default 10 minutes).
	Timeout time.Duration
	// TTL: a finished job is kept this long (default 1 hour).
	TTL time.Duration
	// MaxRunning jobs run at once in the service (default 4), and
	// MaxRunningPerOwner per key (default 2).
	MaxRunning, MaxRunningPerOwner int
	// MaxHeldPerOwner jobs, running or finished, are kept per key
	// (default 16).
	MaxHeldPerOwner int
	// MaxHeldBytes bounds the hits finished jobs keep, all keys together
	// (HitBytes each; default DefaultMaxHeldBytes): past it the oldest
	// finished jobs are dropped (their id answers 404 like an expired
	// one's), never the job that just finished.
	MaxHeldBytes int64
}

// DefaultMaxHeldBytes is JobOptions.MaxHeldBytes's default: the hits of
// about 3.5 million molecules.
const DefaultMaxHeldBytes = 256 << 20

// HitBytes is what one kept hit costs against MaxHeldBytes: its id string
// (header and bytes) and score.
const HitBytes = 16 + len("mol-") + idLen + 8

// Job status values.
const (
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// Job is one search running or finished in the background.
type Job struct {
	ID      string
	Owner   string
	Request Request
	Created time.Time

	cancel context.CancelFunc
	done   chan struct{}

	// Set once, before done is closed.
	finished time.Time
	hits     []Hit
	err      error
}

// Done is closed when the job's search has finished.
func (j *Job) Done() <-chan struct{} { return j.done }

// Result is the job's outcome: ok false while it runs.
func (j *Job) Result() (hits []Hit, err error, finished time.Time, ok bool) {
	select {
	case <-j.done:
		return j.hits, j.err, j.finished, true
	default:
		return nil, nil, time.Time{}, false
	}
}

// Status is JobRunning, JobDone or JobFailed.
func (j *Job) Status() string {
	_, err, _, ok := j.Result()
	switch {
	case !ok:
		return JobRunning
	case err != nil:
		return JobFailed
	}
	return JobDone
}

// Cancel stops the job's search (a finished job is unchanged).
func (j *Job) Cancel() { j.cancel() }

// Jobs is the registry of search jobs of one service.
type Jobs struct {
	opt    JobOptions
	ctx    context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	jobs   map[string]*Job
	now    func() time.Time
	search func(context.Context, Request) ([]Hit, error)
}

// NewJobs returns a registry whose jobs run search (the index's Search).
// Close stops them.
func NewJobs(search func(context.Context, Request) ([]Hit, error), opt JobOptions) *Jobs {
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	if opt.TTL <= 0 {
		opt.TTL = time.Hour
	}
	if opt.MaxRunning <= 0 {
		opt.MaxRunning = 4
	}
	if opt.MaxRunningPerOwner <= 0 {
		opt.MaxRunningPerOwner = 2
	}
	if opt.MaxHeldPerOwner <= 0 {
		opt.MaxHeldPerOwner = 16
	}
	if opt.MaxHeldBytes <= 0 {
		opt.MaxHeldBytes = DefaultMaxHeldBytes
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Jobs{opt: opt, ctx: ctx, stop: stop, jobs: map[string]*Job{}, now: time.Now, search: search}
}

// Options are the registry's bounds, defaults filled in.
func (js *Jobs) Options() JobOptions { return js.opt }

// Close cancels every running job and waits for their searches to stop.
func (js *Jobs) Close() {
	js.stop()
	js.wg.Wait()
}

// Start runs req as a job of owner. With register false the job is not
// yet listed (Register lists it; a caller that gets its result in time
// just drops it) and the running bounds are checked by Register; with
// register true they are checked now. The job's search runs within
// JobOptions.Timeout and stops when the registry closes.
func (js *Jobs) Start(owner string, req Request, register bool) (*Job, error) {
	var b [16]byte
	rand.Read(b[:])
	ctx, cancel := context.WithTimeout(js.ctx, js.opt.Timeout)
	j := &Job{ID: "srch-" + hex.EncodeToString(b[:]), Owner: owner, Request: req, Created: js.now().UTC(),
		cancel: cancel, done: make(chan struct{})}
	if register {
		if err := js.Register(j); err != nil {
			cancel()
			return nil, err
		}
	}
	js.wg.Add(1)
	go func() {
		defer js.wg.Done()
		defer cancel()
		hits, err := js.search(ctx, req)
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) && js.ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("search job stopped after its %s budget: %w", js.opt.Timeout, err)
		}
		j.hits, j.err, j.finished = hits, err, js.now().UTC()
		close(j.done)
		js.mu.Lock()
		js.trimLocked(j)
		js.mu.Unlock()
	}()
	return j, nil
}

// Register lists j under its id, so that Get finds it, after checking the
// bounds: ErrTooManySearchJobs when the service or j's owner already runs
// as many jobs as they may. The owner's oldest finished jobs beyond
// MaxHeldPerOwner are dropped.
func (js *Jobs) Register(j *Job) error {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.expireLocked()
	running, mine := 0, 0
	var held []*Job
	for _, o := range js.jobs {
		if o.Status() == JobRunning {
			running++
			if o.Owner == j.Owner {
				mine++
			}
		}
		if o.Owner == j.Owner {
			held = append(held, o)
		}
	}
	if j.Status() == JobRunning {
		if running >= js.opt.MaxRunning {
			return fmt.Errorf("%w: the service runs %d at once", ErrTooManySearchJobs, js.opt.MaxRunning)
		}
		if mine >= js.opt.MaxRunningPerOwner {
			return fmt.Errorf("%w: a key may run %d at once", ErrTooManySearchJobs, js.opt.MaxRunningPerOwner)
		}
	}
	// Drop the oldest finished jobs to make room.
	for len(held) >= js.opt.MaxHeldPerOwner {
		oldest := -1
		for i, o := range held {
			if o.Status() != JobRunning && (oldest < 0 || o.Created.Before(held[oldest].Created)) {
				oldest = i
			}
		}
		if oldest < 0 {
			break // all running: MaxRunningPerOwner < MaxHeldPerOwner keeps this rare
		}
		delete(js.jobs, held[oldest].ID)
		held = append(held[:oldest], held[oldest+1:]...)
	}
	js.jobs[j.ID] = j
	js.trimLocked(j)
	return nil
}

// trimLocked drops the oldest finished jobs other than keep while the hits
// of the finished jobs held exceed MaxHeldBytes.
func (js *Jobs) trimLocked(keep *Job) {
	var total int64
	var fin []*Job
	for _, o := range js.jobs {
		if hits, _, _, ok := o.Result(); ok {
			total += int64(len(hits)) * int64(HitBytes)
			if o != keep {
				fin = append(fin, o)
			}
		}
	}
	if total <= js.opt.MaxHeldBytes {
		return
	}
	slices.SortFunc(fin, func(a, b *Job) int { return a.finished.Compare(b.finished) })
	for _, o := range fin {
		if total <= js.opt.MaxHeldBytes {
			break
		}
		total -= int64(len(o.hits)) * int64(HitBytes)
		delete(js.jobs, o.ID)
	}
}

// Get returns owner's job id, or ErrNoSearchJob.
func (js *Jobs) Get(owner, id string) (*Job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.expireLocked()
	j, ok := js.jobs[id]
	if !ok || j.Owner != owner {
		return nil, fmt.Errorf("%w: %s", ErrNoSearchJob, id)
	}
	return j, nil
}

// Delete cancels and forgets owner's job id.
func (js *Jobs) Delete(owner, id string) error {
	js.mu.Lock()
	defer js.mu.Unlock()
	j, ok := js.jobs[id]
	if !ok || j.Owner != owner {
		return fmt.Errorf("%w: %s", ErrNoSearchJob, id)
	}
	j.Cancel()
	delete(js.jobs, id)
	return nil
}

// Expires is when a finished job is forgotten.
func (js *Jobs) Expires(j *Job) (time.Time, bool) {
	_, _, fin, ok := j.Result()
	if !ok {
		return time.Time{}, false
	}
	return fin.Add(js.opt.TTL), true
}

func (js *Jobs) expireLocked() {
	now := js.now()
	for id, j := range js.jobs {
		if t, ok := js.Expires(j); ok && !now.Before(t) {
			delete(js.jobs, id)
		}
	}
}
