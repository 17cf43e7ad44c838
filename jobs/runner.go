package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// CommitFunc stores the graphs of a chunk of work together with the job's
// new kind-specific properties, in one transaction. It fails with
// ErrCommitTooLarge when they hold more than Options.MaxCommitQuads quads.
// After it returns nil the chunk is durable and the job resumes after it.
type CommitFunc func(ctx context.Context, graphs []graph.NamedGraph, props []Prop) error

// Task carries out the jobs of one class (batch upload, docking). Run
// continues job j from its committed state (j.Props) and calls commit after
// each chunk of work (commit may be called from any goroutine, one call at
// a time, never after Run returns). Run returns nil when the job is done,
// ctx's error when ctx is cancelled (a cancel or a shutdown: the runner
// tells them apart), and any other error when the job as a whole cannot go
// on (it is marked failed with that message).
type Task interface {
	Class() quad.IRI
	Run(ctx context.Context, j Job, commit CommitFunc) error
}

// Options tune a Runner.
type Options struct {
	// Workers is how many jobs of one class run at once (default 1: a Task
	// parallelises its own work). Each class has a pool of its own, so a
	// long job of one class (docking) never holds up the jobs of another
	// (batch uploads).
	Workers int
	// ClassWorkers overrides Workers for the classes it names.
	ClassWorkers map[quad.IRI]int
	// MaxUnfinished caps the unfinished (queued or running) jobs of all
	// owners together; Submit past it fails with a *QuotaError (0: no cap).
	MaxUnfinished int
	// MaxUnfinishedPerOwner caps the unfinished jobs of one owner (see
	// WithOwner); Submit past it fails with a *QuotaError (0: no cap).
	MaxUnfinishedPerOwner int
	// MaxCommitQuads bounds one commit (default 20000, graph.Options'
	// default ChunkQuads: a commit must be one PutGraphs transaction).
	MaxCommitQuads int
	// Logger receives job starts, ends and failures (default: discard).
	Logger *slog.Logger
	// Now returns the time (default time.Now).
	Now func() time.Time
}

// Runner runs jobs durably; see the package documentation. It is safe for
// concurrent use.
type Runner struct {
	store *graph.Store
	base  string
	tasks map[quad.IRI]Task
	opt   Options

	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu    sync.Mutex
	pools map[quad.IRI]*pool // one per class
	// unfinished maps every queued or running job this runner knows to its
	// owner ("" for jobs resumed at Start: owners are not stored).
	unfinished map[quad.IRI]string
	perOwner   map[string]int
	running    map[quad.IRI]*active
	started    bool
	closed     bool

	onEnd atomic.Pointer[func(Job)]
}

// SetOnEnd sets a function called after a job's final state (succeeded,
// failed, cancelled) is stored, however it got there: at the end of its
// run, or cancelled while queued, when its Task never ran (serve wires the
// blob collector's Kick to it: a cancelled job's spool goes soon either
// way). It is called outside the runner's lock and may be set while jobs
// run.
func (r *Runner) SetOnEnd(fn func(Job)) { r.onEnd.Store(&fn) }

func (r *Runner) ended(j Job) {
	if fn := r.onEnd.Load(); fn != nil && *fn != nil {
		(*fn)(j)
	}
}

// pool is the queue and workers of one job class.
type pool struct {
	class   quad.IRI
	workers int
	queue   []quad.IRI
	wake    chan struct{}
}

type active struct {
	class  quad.IRI
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// errCancelled is the cause of a cancelled job's context.
var errCancelled = errors.New("job cancelled")

// WasCancelled reports whether ctx, the context of a Task's Run, ended
// because the job was cancelled (not a shutdown).
func WasCancelled(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errCancelled) }

// NewRunner returns a runner of the given tasks over store; base is the
// service's base IRI. Call Start to resume stored jobs and start working.
func NewRunner(store *graph.Store, base string, tasks []Task, opt Options) (*Runner, error) {
	if store == nil {
		return nil, fmt.Errorf("jobs: new runner: %w: no store", ErrInvalidJob)
	}
	if opt.Workers <= 0 {
		opt.Workers = 1
	}
	if opt.MaxCommitQuads <= 0 {
		opt.MaxCommitQuads = 20000
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.MaxUnfinished < 0 || opt.MaxUnfinishedPerOwner < 0 {
		return nil, fmt.Errorf("jobs: new runner: %w: negative job cap", ErrInvalidJob)
	}
	r := &Runner{store: store, base: base, tasks: map[quad.IRI]Task{}, opt: opt,
		pools: map[quad.IRI]*pool{}, unfinished: map[quad.IRI]string{}, perOwner: map[string]int{},
		running: map[quad.IRI]*active{}}
	for _, t := range tasks {
		c := t.Class()
		if _, dup := r.tasks[c]; dup {
			return nil, fmt.Errorf("jobs: new runner: %w: two tasks for %s", ErrInvalidJob, c)
		}
		r.tasks[c] = t
		n := opt.Workers
		if w := opt.ClassWorkers[c]; w > 0 {
			n = w
		}
		r.pools[c] = &pool{class: c, workers: n, wake: make(chan struct{}, 1)}
	}
	r.ctx, r.stop = context.WithCancel(context.Background())
	return r, nil
}

// MaxCommitQuads is the most quads one commit may hold.
func (r *Runner) MaxCommitQuads() int { return r.opt.MaxCommitQuads }

func (r *Runner) classes() []quad.IRI {
	var cs []quad.IRI
	for c := range r.tasks {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	return cs
}

// Get returns the stored state of the job iri (ErrNotFound if none).
func (r *Runner) Get(ctx context.Context, iri quad.IRI) (Job, error) {
	qs, err := r.store.Graph(ctx, iri)
	if errors.Is(err, graph.ErrNotFound) {
		return Job{}, fmt.Errorf("jobs: get %s: %w", iri, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("jobs: get %s: %w", iri, err)
	}
	return JobFromQuads(qs, r.classes())
}

// Submit stores j as a queued job and queues it. j needs IRI, Class (one
// of the runner's tasks) and ID; CreatedAt defaults to now. The job's owner
// is OwnerFrom(ctx); Submit fails with a *QuotaError (ErrTooManyJobs) when
// the owner or the runner already has as many unfinished jobs as
// Options allow, and then stores nothing.
func (r *Runner) Submit(ctx context.Context, j Job) (Job, error) {
	if _, ok := r.tasks[j.Class]; !ok || j.IRI == "" || j.ID == "" {
		return j, fmt.Errorf("jobs: submit %s: %w: class %s", j.IRI, ErrInvalidJob, j.Class)
	}
	j.Status = Queued
	if j.CreatedAt.IsZero() {
		j.CreatedAt = r.opt.Now().UTC()
	}
	j.StartedAt, j.EndedAt, j.Error = time.Time{}, time.Time{}, ""
	started, err := r.commitSubmitted(ctx, j)
	if err != nil {
		return j, fmt.Errorf("jobs: submit %s: %w", j.IRI, err)
	}
	// The wait for durability outside r.mu, where the submissions queued
	// behind this one commit meanwhile and share its fsync round (with it
	// inside, each waited for a round of its own per submission before
	// it). The job runs once its graph is durable.
	if err := r.store.Sync(); err != nil {
		r.mu.Lock()
		r.forget(j.IRI)
		r.mu.Unlock()
		return j, fmt.Errorf("jobs: submit %s: %w", j.IRI, err)
	}
	if started {
		r.mu.Lock()
		if !r.closed {
			r.enqueue(j.Class, j.IRI)
		}
		r.mu.Unlock()
	}
	return j, nil
}

// commitSubmitted is Submit's part under r.mu: it admits j's owner,
// commits j's graph (visible, not yet durable) and counts j as
// unfinished. It reports whether the runner is started (if not, Start
// finds the job in the store).
func (r *Runner) commitSubmitted(ctx context.Context, j Job) (started bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false, ErrClosed
	}
	owner := OwnerFrom(ctx)
	if err := r.admitLocked(owner); err != nil {
		return false, err
	}
	if err := r.store.CommitGraphs(ctx, []graph.NamedGraph{{IRI: j.IRI, Quads: j.Quads(r.base)}}, nil); err != nil {
		return false, err
	}
	r.track(j.IRI, owner)
	return r.started, nil
}

// Admit reports whether Submit would now accept a job of owner: nil, or
// the *QuotaError Submit would return. Callers check it before costly work
// (spooling an upload); Submit checks again, atomically with the store.
func (r *Runner) Admit(owner string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.admitLocked(owner)
}

// admitLocked checks the caps on unfinished jobs; r.mu must be held.
func (r *Runner) admitLocked(owner string) error {
	if m := r.opt.MaxUnfinishedPerOwner; m > 0 && owner != "" && r.perOwner[owner] >= m {
		return &QuotaError{Owner: owner, Limit: m, Unfinished: r.perOwner[owner]}
	}
	if m := r.opt.MaxUnfinished; m > 0 && len(r.unfinished) >= m {
		return &QuotaError{Limit: m, Unfinished: len(r.unfinished)}
	}
	return nil
}

// track records iri as unfinished, owned by owner; r.mu must be held.
func (r *Runner) track(iri quad.IRI, owner string) {
	if _, ok := r.unfinished[iri]; ok {
		return
	}
	r.unfinished[iri] = owner
	if owner != "" {
		r.perOwner[owner]++
	}
}

// forget drops iri from the unfinished jobs; r.mu must be held.
func (r *Runner) forget(iri quad.IRI) {
	owner, ok := r.unfinished[iri]
	if !ok {
		return
	}
	delete(r.unfinished, iri)
	if owner != "" {
		if r.perOwner[owner]--; r.perOwner[owner] <= 0 {
			delete(r.perOwner, owner)
		}
	}
}

// enqueue adds iri to the queue of its class; r.mu must be held.
func (r *Runner) enqueue(class, iri quad.IRI) {
	p := r.pools[class]
	p.queue = append(p.queue, iri)
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Limits are a Runner's job caps and worker counts, for documentation and
// metrics.
type Limits struct {
	// MaxUnfinished and MaxUnfinishedPerOwner are Options' caps (0: none).
	MaxUnfinished, MaxUnfinishedPerOwner int
	// Workers is the size of each class's pool.
	Workers map[quad.IRI]int
}

// Limits returns the runner's caps and pool sizes.
func (r *Runner) Limits() Limits {
	l := Limits{MaxUnfinished: r.opt.MaxUnfinished, MaxUnfinishedPerOwner: r.opt.MaxUnfinishedPerOwner,
		Workers: map[quad.IRI]int{}}
	for c, p := range r.pools {
		l.Workers[c] = p.workers
	}
	return l
}

// ClassStats counts the unfinished jobs of one class.
type ClassStats struct {
	Queued, Running int
}

// Stats returns the queued and running jobs per class (queued jobs
// submitted before Start count from Start on).
func (r *Runner) Stats() map[quad.IRI]ClassStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[quad.IRI]ClassStats, len(r.pools))
	for c, p := range r.pools {
		out[c] = ClassStats{Queued: len(p.queue)}
	}
	for _, a := range r.running {
		st := out[a.class]
		st.Running++
		out[a.class] = st
	}
	return out
}

// Start queues every stored job that is queued or running (oldest id
// first) and starts the workers. It returns the number of jobs resumed.
func (r *Runner) Start(ctx context.Context) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, fmt.Errorf("jobs: start: %w", ErrClosed)
	}
	if r.started {
		return 0, nil
	}
	var iris []quad.IRI
	for _, st := range []Status{Queued, Running} {
		err := r.store.Match(ctx, graph.Pattern{Predicate: quad.IRI(ontology.MG + "status"), Object: ontology.String(string(st))},
			func(q quad.Quad) error {
				if s, ok := q.Subject.(quad.IRI); ok && q.Label == s {
					iris = append(iris, s)
				}
				return nil
			})
		if err != nil {
			return 0, fmt.Errorf("jobs: start: %w", err)
		}
	}
	slices.Sort(iris)
	iris = slices.Compact(iris)
	n := 0
	for _, iri := range iris {
		j, err := r.Get(ctx, iri)
		if err != nil || j.Status.Finished() {
			continue // a graph of a class without a task here
		}
		r.track(iri, "") // owners are not stored: resumed jobs count only overall
		r.enqueue(j.Class, iri)
		n++
	}
	r.started = true
	for _, c := range r.classes() {
		p := r.pools[c]
		for range p.workers {
			r.wg.Add(1)
			go r.worker(p)
		}
	}
	return n, nil
}

// Close stops the workers: running jobs are interrupted after their
// current commit and keep their "running" state, to resume at the next
// Start. Close waits for them.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.stop()
	r.wg.Wait()
	return nil
}

// Cancel cancels the job iri: a queued job at once, a running one after
// its current commit (Cancel waits for that, bounded by ctx). It returns
// the job's final state, or ErrFinished (with the state) for a job that
// had already finished.
func (r *Runner) Cancel(ctx context.Context, iri quad.IRI) (Job, error) {
	r.mu.Lock()
	if a := r.running[iri]; a != nil {
		a.cancel(errCancelled)
		r.mu.Unlock()
		select {
		case <-a.done:
		case <-ctx.Done():
			return Job{}, fmt.Errorf("jobs: cancel %s: %w", iri, ctx.Err())
		}
		return r.Get(ctx, iri)
	}
	j, err := r.cancelQueued(ctx, iri)
	r.mu.Unlock()
	if err == nil {
		r.ended(j)
	}
	return j, err
}

// cancelQueued stores a job that is not running as cancelled and drops it
// from its queue; r.mu must be held.
func (r *Runner) cancelQueued(ctx context.Context, iri quad.IRI) (Job, error) {
	j, err := r.Get(ctx, iri)
	if err != nil {
		return j, err
	}
	if j.Status.Finished() {
		return j, fmt.Errorf("jobs: cancel %s: %w (%s)", iri, ErrFinished, j.Status)
	}
	j.Status, j.EndedAt = Cancelled, r.opt.Now().UTC()
	if j.StartedAt.After(j.EndedAt) {
		j.EndedAt = j.StartedAt
	}
	if err := r.store.PutGraph(ctx, iri, j.Quads(r.base)); err != nil {
		return j, fmt.Errorf("jobs: cancel %s: %w", iri, err)
	}
	if p := r.pools[j.Class]; p != nil {
		p.queue = slices.DeleteFunc(p.queue, func(q quad.IRI) bool { return q == iri })
	}
	r.forget(iri)
	return j, nil
}

// worker runs the jobs of p's class, one at a time, until the runner stops.
func (r *Runner) worker(p *pool) {
	defer r.wg.Done()
	for {
		r.mu.Lock()
		if len(p.queue) == 0 {
			r.mu.Unlock()
			select {
			case <-r.ctx.Done():
				return
			case <-p.wake:
				continue
			}
		}
		iri := p.queue[0]
		p.queue = p.queue[1:]
		if len(p.queue) > 0 {
			select {
			case p.wake <- struct{}{}:
			default:
			}
		}
		r.mu.Unlock()
		if r.ctx.Err() != nil {
			return
		}
		r.run(iri)
	}
}

// run carries out one job until it finishes, is cancelled or the runner
// stops.
func (r *Runner) run(iri quad.IRI) {
	log := r.opt.Logger.With("job", string(iri))
	r.mu.Lock()
	if r.running[iri] != nil {
		r.mu.Unlock()
		return
	}
	j, err := r.Get(r.ctx, iri)
	if err != nil || j.Status.Finished() {
		if r.ctx.Err() == nil {
			r.forget(iri)
		}
		r.mu.Unlock()
		if err != nil {
			log.Error("job unreadable", "error", err)
		}
		return
	}
	task := r.tasks[j.Class]
	ctx, cancel := context.WithCancelCause(r.ctx)
	a := &active{class: j.Class, cancel: cancel, done: make(chan struct{})}
	r.running[iri] = a
	r.mu.Unlock()
	defer func() {
		cancel(nil)
		r.mu.Lock()
		delete(r.running, iri)
		r.mu.Unlock()
		close(a.done)
	}()

	bg := context.WithoutCancel(ctx)
	if j.Status == Queued {
		j.Status, j.StartedAt = Running, r.opt.Now().UTC()
		if err := r.store.PutGraph(bg, iri, j.Quads(r.base)); err != nil {
			log.Error("job start not stored", "error", err)
			return
		}
	}
	log.Info("job running", "class", string(j.Class))

	var cmu sync.Mutex
	cur := j
	commit := func(_ context.Context, graphs []graph.NamedGraph, props []Prop) error {
		cmu.Lock()
		defer cmu.Unlock()
		next := cur
		next.Props = slices.Clone(props)
		slices.SortStableFunc(next.Props, func(a, b Prop) int {
			switch {
			case a.Predicate < b.Predicate:
				return -1
			case a.Predicate > b.Predicate:
				return 1
			}
			return 0
		})
		jq := next.Quads(r.base)
		n := len(jq)
		all := make([]graph.NamedGraph, 0, len(graphs)+1)
		for _, g := range graphs {
			if g.IRI == iri {
				return fmt.Errorf("jobs: commit %s: %w: a task may not write the job graph", iri, ErrInvalidJob)
			}
			n += len(g.Quads)
			all = append(all, g)
		}
		if n > r.opt.MaxCommitQuads {
			return fmt.Errorf("jobs: commit %s: %w: %d quads, at most %d", iri, ErrCommitTooLarge, n, r.opt.MaxCommitQuads)
		}
		all = append(all, graph.NamedGraph{IRI: iri, Quads: jq})
		// Not cancellable: the commit happens whole or not at all.
		if err := r.store.PutGraphs(bg, all, nil); err != nil {
			return fmt.Errorf("jobs: commit %s: %w", iri, err)
		}
		cur = next
		return nil
	}
	runErr := task.Run(ctx, j, commit)
	cmu.Lock()
	final := cur
	cmu.Unlock()
	switch {
	case runErr == nil:
		final.Status = Succeeded
	case errors.Is(context.Cause(ctx), errCancelled):
		final.Status = Cancelled
	case r.ctx.Err() != nil:
		log.Info("job interrupted by shutdown; it resumes at the next start")
		return
	default:
		final.Status, final.Error = Failed, runErr.Error()
	}
	final.EndedAt = r.opt.Now().UTC()
	if final.EndedAt.Before(final.StartedAt) {
		final.EndedAt = final.StartedAt
	}
	if err := r.store.PutGraph(bg, iri, final.Quads(r.base)); err != nil {
		log.Error("job end not stored", "error", err)
		return
	}
	r.mu.Lock()
	r.forget(iri)
	r.mu.Unlock()
	log.Info("job finished", "status", string(final.Status), "error", final.Error)
	r.ended(final)
}
