package sparql

import (
	"fmt"
	"slices"
	"sync"

	"github.com/molgraph/molgraph/graph"
)

// Stars on more than one core. A large star (star.go) spends most of its
// time in its steps' cursor seeks and in the value-column reads of its
// folded filters, which read only immutable data (the commit's columns and
// the value column); binding the surviving solutions into the row and
// everything after the star (expressions, GROUP BY, aggregates, DISTINCT,
// ORDER BY, the row cap) stays on the query's goroutine. After parAfter
// batches have run sequentially (so that small stars, and stars evaluated
// once per outer solution, never pay for goroutines), the star borrows
// spare workers from Options.Helpers without waiting (none free: it stays
// sequential) and from then on the scan hands each raw batch of 1,024
// first-step pairs to an idle helper or, when none is idle, runs it
// itself. Each worker runs a batch through all the star's steps with its
// own column cursors into the batch's output; the query's goroutine binds
// the outputs strictly in batch order, so the solutions reach the rest of
// the plan in the same order as sequentially and every operator after the
// star sees the same input: the results (ORDER BY or not, aggregates'
// errors and AVG of mixed numerics included) are the sequential ones.
// A batch whose filters meet an id the value column has no number for (the
// filter must then be evaluated on the decoded term, with the query's
// state) or whose output would pass starJobMax solutions (a multi-valued
// step) is run again sequentially, at its turn, by the query's goroutine,
// the original code. At most starPending batches wait to be bound, so the
// extra memory is bounded (charged to MaxMemory up front; a query without
// room stays sequential); the helpers check the context (timeout,
// cancellation) before each batch and are stopped and waited for before
// the star returns, error or not.

// Helpers is a pool of spare workers that queries may borrow to run a
// large star on more than one core (star_par.go). It is shared by all the
// queries of a process, so the extra goroutines of all queries together
// never exceed its size: a loaded server runs its queries sequentially
// (one core each) and only a query that finds a worker free uses two.
// The zero of *Helpers (nil) lends none.
type Helpers struct {
	free chan struct{}
}

// NewHelpers returns a pool of n spare workers (nil when n <= 0).
func NewHelpers(n int) *Helpers {
	if n <= 0 {
		return nil
	}
	h := &Helpers{free: make(chan struct{}, n)}
	for range n {
		h.free <- struct{}{}
	}
	return h
}

// take borrows up to max workers without waiting and returns how many.
func (h *Helpers) take(max int) int {
	if h == nil {
		return 0
	}
	n := 0
	for n < max {
		select {
		case <-h.free:
			n++
		default:
			return n
		}
	}
	return n
}

// give returns n borrowed workers.
func (h *Helpers) give(n int) {
	for range n {
		h.free <- struct{}{}
	}
}

const (
	// defaultParAfter is the number of batches a star runs sequentially
	// before it asks for helpers: 8,192 first-step triples, a few ms.
	defaultParAfter = 8
	// starJobMax is the most solutions one batch's output may hold
	// before it is left to the sequential path.
	starJobMax = 8 * starBatch
	// starPending is the most batches waiting to be bound per worker.
	starPending = 4
)

// starWorker is what one worker needs to run batches: its own column
// cursors (not safe for concurrent use) and the levels between steps.
type starWorker struct {
	curs []*graph.ColumnCursor
	lv   []starLevel // lv[j]: the solutions past step j
}

// starJob is one batch of first-step pairs and its output.
type starJob struct {
	in, out starLevel
	// fallback: the batch must be run by the sequential path.
	fallback bool
	// helped: a helper ran the batch.
	helped bool
	folds  int
	err    error
	done   chan struct{}
}

// starPar is the parallel part of one star evaluation.
type starPar struct {
	sr      *starRun
	helpers int
	jobs    chan *starJob
	wg      sync.WaitGroup
	main    *starWorker
	raw     *starJob // the batch the scan is filling
	pending []*starJob
	spare   []*starJob
	mem     int
	stopped bool
}

func (sr *starRun) newLevel() starLevel {
	return starLevel{o: make([][]uint32, len(sr.sg.steps))}
}

func (sr *starRun) newWorker() *starWorker {
	k := len(sr.sg.steps)
	w := &starWorker{curs: make([]*graph.ColumnCursor, k), lv: make([]starLevel, k)}
	for j := range k {
		w.lv[j] = sr.newLevel()
		if j > 0 {
			if w.curs[j] = sr.cs.ColumnCursor(sr.pid[j], true); w.curs[j] == nil {
				return nil
			}
		}
	}
	return w
}

// startPar borrows helpers for the rest of the star's scan; nil when it
// gets none (or the memory budget has no room for the batches).
func (sr *starRun) startPar() *starPar {
	ex := sr.ex
	if ex.helpers == nil {
		return nil
	}
	k := len(sr.sg.steps)
	// Per worker: starPending batches of input and output, and its levels.
	perWorker := (starPending*(starBatch+starJobMax) + k*starJobMax) * 4 * (k + 1)
	if !ex.fits(2 * perWorker) {
		return nil
	}
	n := ex.helpers.take(cap(ex.helpers.free))
	if n == 0 {
		return nil
	}
	for n > 1 && !ex.fits((n+1)*perWorker) {
		ex.helpers.give(1)
		n--
	}
	ws := make([]*starWorker, n)
	for i := range ws {
		if ws[i] = sr.newWorker(); ws[i] == nil {
			ex.helpers.give(n)
			return nil
		}
	}
	p := &starPar{sr: sr, helpers: n, jobs: make(chan *starJob), mem: (n + 1) * perWorker}
	_ = ex.alloc(p.mem) // it fits
	p.main = &starWorker{curs: sr.curs, lv: make([]starLevel, k)}
	for j := range k {
		p.main.lv[j] = sr.newLevel()
	}
	ctx := ex.ctx
	for _, w := range ws {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for jb := range p.jobs {
				jb.helped = true
				if err := ctx.Err(); err != nil {
					jb.err = ctxErr(err)
				} else {
					sr.runJobSafe(w, jb)
				}
				close(jb.done)
			}
		}()
	}
	return p
}

// job returns an empty job.
func (p *starPar) job() *starJob {
	var jb *starJob
	if n := len(p.spare); n > 0 {
		jb = p.spare[n-1]
		p.spare = p.spare[:n-1]
		jb.in.reset()
		jb.fallback, jb.helped, jb.folds, jb.err = false, false, 0, nil
	} else {
		jb = &starJob{in: p.sr.newLevel(), out: p.sr.newLevel()}
	}
	jb.done = make(chan struct{})
	return jb
}

// add appends a first-step pair (o is ignored when the first step's
// object is a constant) and submits the batch when it is full.
func (p *starPar) add(s, o uint32) error {
	if p.raw == nil {
		p.raw = p.job()
	}
	in := &p.raw.in
	in.s = append(in.s, s)
	if p.sr.sg.steps[0].obj >= 0 {
		in.o[0] = append(in.o[0], o)
	}
	if len(in.s) < starBatch {
		return nil
	}
	return p.submit()
}

// submit hands the batch being filled to an idle helper, or runs it here
// when none is idle, and binds the batches done in order.
func (p *starPar) submit() error {
	jb := p.raw
	p.raw = nil
	select {
	case p.jobs <- jb:
	default:
		p.sr.runJobSafe(p.main, jb)
		close(jb.done)
	}
	p.pending = append(p.pending, jb)
	return p.drain(false)
}

// drain binds the outputs of the batches at the head of the queue that
// are done (with all, waiting for each; otherwise waiting only while
// more than starPending per worker wait).
func (p *starPar) drain(all bool) error {
	for len(p.pending) > 0 {
		jb := p.pending[0]
		if all || len(p.pending) > starPending*(p.helpers+1) {
			<-jb.done
		} else {
			select {
			case <-jb.done:
			default:
				return nil
			}
		}
		p.pending[0] = nil
		p.pending = p.pending[1:]
		err := p.sr.bindJob(jb)
		p.spare = append(p.spare, jb)
		if err != nil {
			return err
		}
	}
	return nil
}

// finish runs the last batch and binds every output.
func (p *starPar) finish() error {
	if p.raw != nil && len(p.raw.in.s) > 0 {
		if err := p.submit(); err != nil {
			return err
		}
	}
	return p.drain(true)
}

// stop stops the helpers, waits for them and returns them and the memory.
func (p *starPar) stop() {
	if p.stopped {
		return
	}
	p.stopped = true
	close(p.jobs)
	p.wg.Wait()
	p.sr.ex.helpers.give(p.helpers)
	p.sr.ex.free(p.mem)
}

// bindJob binds the output of a batch done (or runs it sequentially).
func (sr *starRun) bindJob(jb *starJob) error {
	ex := sr.ex
	if jb.err != nil {
		return jb.err
	}
	if err := ex.ctx.Err(); err != nil {
		return ctxErr(err)
	}
	ex.parJobs++
	if jb.helped {
		ex.parHelped++
	}
	if jb.fallback {
		ex.parFallbacks++
		return sr.runSequential(jb)
	}
	ex.folds += jb.folds
	if len(jb.out.s) == 0 {
		return nil
	}
	return sr.bind(&jb.out)
}

// runSequential runs a batch of first-step pairs through the sequential
// path (starPass with the query's state, level's flushes).
func (sr *starRun) runSequential(jb *starJob) error {
	first := &sr.sg.steps[0]
	in := &sr.lv[1]
	in.reset()
	for t, s := range jb.in.s {
		if first.obj >= 0 {
			in.o[0] = append(in.o[0], jb.in.o[0][t])
		}
		in.s = append(in.s, s)
	}
	if err := sr.filterFirst(in); err != nil || len(in.s) == 0 {
		return err
	}
	err := sr.level(1)
	in.reset()
	return err
}

// runJobSafe is runJob with a panic turned into the batch's error: a
// helper's panic would otherwise end the process.
func (sr *starRun) runJobSafe(w *starWorker, jb *starJob) {
	defer func() {
		if v := recover(); v != nil {
			jb.err = fmt.Errorf("sparql: evaluate: star worker: %v", v)
		}
	}()
	sr.runJob(w, jb)
}

// runJob runs a batch through the star's steps into jb.out, reading only
// immutable data (w's cursors, the value column), as level and starPass
// would; it sets jb.fallback instead where they would need the query's
// state (a filter on a term without a folded number) or where the output
// grows past starJobMax.
func (sr *starRun) runJob(w *starWorker, jb *starJob) {
	steps := sr.sg.steps
	vals := sr.vals
	cur := &w.lv[0]
	cur.reset()
	first := &steps[0]
	for t, s := range jb.in.s {
		if first.obj >= 0 {
			o := jb.in.o[0][t]
			pass, ok := passNum(vals, first, o, &jb.folds)
			if !ok {
				jb.fallback = true
				return
			}
			if !pass {
				continue
			}
			cur.o[0] = append(cur.o[0], o)
		}
		cur.s = append(cur.s, s)
	}
	for j := 1; j < len(steps); j++ {
		st := &steps[j]
		next := &w.lv[j]
		next.reset()
		c := w.curs[j]
		for t, s := range cur.s {
			objs := c.Seek(uint64(s))
			if len(objs) == 0 {
				continue
			}
			if st.obj < 0 {
				if _, found := slices.BinarySearch(objs, uint32(sr.oid[j])); found {
					pushTo(steps, cur, next, t, j, 0)
				}
			} else {
				for _, o := range objs {
					pass, ok := passNum(vals, st, o, &jb.folds)
					if !ok {
						jb.fallback = true
						return
					}
					if pass {
						pushTo(steps, cur, next, t, j, o)
					}
				}
			}
			if len(next.s) > starJobMax {
				jb.fallback = true
				return
			}
		}
		cur = next
	}
	// The output is the last level: swap it with the job's (the worker
	// resets its levels before use).
	*cur, jb.out = jb.out, *cur
}

// passNum evaluates the compiled filters of st on the object id o from the
// value column alone; ok is false when the column has no number for o.
func passNum(vals *graph.TermValues, st *starStep, o uint32, folds *int) (pass, ok bool) {
	if len(st.comp) == 0 {
		return true, true
	}
	pass, ok = st.passFolded(vals.Get(uint64(o)))
	if ok {
		*folds += len(st.comp)
	}
	return pass, ok
}
