package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/work"
)

// queuedUnit is a chemistry unit dispatched and not yet committed.
type queuedUnit struct {
	first int
	ins   []Input
	u     queue.Unit
	res   []result       // nil until its outcome arrives
	dones []func() error // the deliveries of its outcome, acknowledged after the commit
}

// runQueued runs the chemistry of the job's records on the queue's
// workers (work.ChemExecutor, in `molgraph worker --kinds chem` or serve's
// own slots) and commits their outcomes here, in record order, with the
// same commitChunk as the in-process path, so that both give the same
// molecules, items and counters.
//
// Records are read from the processed count on and dispatched as units
// of at most one item block (fewer records when their content exceeds
// UnitBytes), while fewer than Window records are dispatched and not
// committed. Outcomes arrive in any order and wait in a re-order buffer;
// the contiguous run from the watermark (processed) is committed as soon
// as it ends on an item block, and only then are its outcomes
// acknowledged. An outcome of a unit below the watermark is a duplicate
// (a redelivery after a lost ack) and is acknowledged without a write.
// Every unit not committed is enqueued again at the start and when no
// outcome comes for Stall; the queue skips those still queued, so this is
// also the reconcile after a restart or a lost stream.
func (t *Task) runQueued(ctx context.Context, j *jobs.Job, counts *Counts, sp *spoolReader, commit jobs.CommitFunc) error {
	q, log := t.opt.Queue, t.opt.Logger.With("job", j.ID)
	var (
		open  []*queuedUnit // from the watermark on, in record order
		byKey = map[string]*queuedUnit{}
		next  = int(counts.Processed) // the next record to read
		eof   bool
	)
	// read dispatches the records of the next item block as units.
	read := func() ([]queue.Unit, error) {
		var added []queue.Unit
		var cur *queuedUnit
		bytes := 0
		emit := func() error {
			if cur == nil {
				return nil
			}
			task := work.ChemTask{First: cur.first, Records: t.reg.chemInputs(cur.ins)}
			body, err := json.Marshal(task)
			if err != nil {
				return err
			}
			key := strconv.Itoa(cur.first)
			cur.u = queue.Unit{Kind: work.KindChem, Key: key, Engine: t.opt.Engine, Job: j.IRI, Body: body}
			open = append(open, cur)
			byKey[key] = cur
			if len(body) > t.opt.MaxUnitBody {
				// One record too large for a message (a raised
				// --batch-max-sd-record): prepared here.
				o, err := work.Chemistry(ctx, t.reg.pool, t.opt.Parallel, task)
				if err != nil {
					return err
				}
				cur.res = t.chemResults(cur, o, "")
			} else {
				added = append(added, cur.u)
			}
			cur, bytes = nil, 0
			return nil
		}
		for !eof && (cur == nil || next%ItemBlock != 0) {
			i, in, err := sp.next()
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				return nil, err
			}
			if cur != nil && bytes+len(in.Content) > t.opt.UnitBytes {
				if err := emit(); err != nil {
					return nil, err
				}
			}
			if cur == nil {
				cur = &queuedUnit{first: i}
			}
			cur.ins = append(cur.ins, in)
			bytes += len(in.Content)
			next = i + 1
		}
		return added, emit()
	}
	enqueue := func(us []queue.Unit, why string) error {
		if len(us) == 0 {
			return nil
		}
		n, err := queue.EnqueueRetrying(ctx, log, q, us)
		if err == nil && why != "" {
			log.Info("chemistry units enqueued", "why", why, "units", len(us), "added", n)
		}
		return err
	}
	// fill dispatches item blocks while the window has room.
	fill := func(why string) error {
		var us []queue.Unit
		for !eof && next-int(counts.Processed) < t.opt.Window {
			added, err := read()
			if err != nil {
				return fmt.Errorf("batch %s: %w", j.ID, err)
			}
			us = append(us, added...)
		}
		return enqueue(us, why)
	}
	if err := fill("start"); err != nil {
		return t.queuedEnd(ctx, j, err)
	}
	octx, stop := context.WithCancel(ctx)
	defer stop()
	outs, err := queue.OutcomesRetrying(octx, log, q, j.IRI)
	if err != nil {
		return t.queuedEnd(ctx, j, err)
	}
	// commitReady commits the contiguous run of results from the
	// watermark that ends on an item block (or at the end of the upload),
	// then acknowledges its outcomes and dispatches more, as long as
	// there is such a run (units prepared here have their results at
	// once).
	commitReady := func() error {
		for {
			k, end := 0, 0
			for i, u := range open {
				if u.res == nil {
					break
				}
				last := u.first + len(u.ins)
				if last%ItemBlock == 0 || (eof && i == len(open)-1) {
					k, end = i+1, last
				}
			}
			if k == 0 {
				return nil
			}
			chunk := make([]result, 0, end-int(counts.Processed))
			for _, u := range open[:k] {
				chunk = append(chunk, u.res...)
			}
			if err := t.commitChunk(ctx, j, counts, chunk, commit); err != nil {
				return err
			}
			// The commit is durable here when the store syncs its writes
			// (serve's default, --sync-writes): only then are the outcomes
			// acknowledged.
			for _, u := range open[:k] {
				for _, done := range u.dones {
					if err := done(); err != nil {
						log.Warn("acknowledging an outcome", "unit", u.u.Key, "err", err)
					}
				}
				delete(byKey, u.u.Key)
			}
			open = append(open[:0:0], open[k:]...)
			if err := fill(""); err != nil {
				return err
			}
		}
	}
	if err := commitReady(); err != nil {
		if ctx.Err() != nil {
			return t.queuedEnd(ctx, j, err)
		}
		return err
	}
	stall := time.NewTimer(t.opt.Stall)
	defer stall.Stop()
	duplicates := 0
	for len(open) > 0 {
		var o queue.Outcome
		select {
		case o2, ok := <-outs:
			if !ok {
				return t.queuedEnd(ctx, j, errors.New("batch: the outcome stream ended"))
			}
			o = o2
		case <-stall.C:
			var us []queue.Unit
			for _, u := range open {
				if u.res == nil {
					us = append(us, u.u)
				}
			}
			if err := enqueue(us, "stalled"); err != nil {
				return t.queuedEnd(ctx, j, err)
			}
			stall.Reset(t.opt.Stall)
			continue
		}
		stall.Reset(t.opt.Stall)
		u := byKey[o.Key]
		switch {
		case u == nil:
			// Committed already (or no unit of this job): a duplicate.
			duplicates++
			t.duplicates.Add(1)
			if err := o.Done(); err != nil {
				log.Warn("acknowledging a duplicate outcome", "unit", o.Key, "err", err)
			}
			continue
		case u.res != nil:
			// A second delivery of a buffered outcome: acknowledged with
			// the first, after the commit.
			duplicates++
			t.duplicates.Add(1)
			u.dones = append(u.dones, o.Done)
			continue
		}
		u.res, u.dones = t.outcomeResults(u, o), append(u.dones, o.Done)
		if err := commitReady(); err != nil {
			if ctx.Err() != nil {
				return t.queuedEnd(ctx, j, err)
			}
			return err
		}
	}
	if duplicates > 0 {
		log.Info("duplicate chemistry outcomes dropped", "dropped", duplicates)
	}
	// Done: the job's consumer and any late unit go.
	if err := q.Cancel(context.WithoutCancel(ctx), j.IRI); err != nil {
		log.Warn("removing the job's queue state", "err", err)
	}
	return nil
}

// outcomeResults turns the outcome of unit u into its records' results:
// the molecules a worker prepared, or, for a unit the queue gave up on or
// an outcome that does not fit the unit, a failure of each record.
func (t *Task) outcomeResults(u *queuedUnit, o queue.Outcome) []result {
	fail := o.Failure
	var co work.ChemOutcome
	if fail == "" {
		var err error
		co, err = work.DecodeChemOutcome(o.Body)
		if err != nil || co.First != u.first || len(co.Results) != len(u.ins) {
			fail = fmt.Sprintf("invalid chemistry outcome from worker %s", o.Worker)
		}
	}
	return t.chemResults(u, co, fail)
}

// chemResults are the results of u's records from co, or each a failure
// with the message fail.
func (t *Task) chemResults(u *queuedUnit, co work.ChemOutcome, fail string) []result {
	res := make([]result, len(u.ins))
	for i, in := range u.ins {
		res[i] = result{index: u.first + i, in: in}
	}
	for i := range res {
		switch {
		case fail != "":
			res[i].err = errors.New(fail)
		case co.Results[i].Error != "" || co.Results[i].Molecule == nil:
			msg := co.Results[i].Error
			if msg == "" {
				msg = "invalid chemistry outcome: a record without a molecule nor an error"
			}
			res[i].err = errors.New(msg)
		default:
			res[i].p = t.reg.prepared(co.Results[i].Molecule)
			t.chemCPUNS.Add(int64(res[i].p.CPU))
		}
	}
	return res
}

// queuedEnd is the end of a queued run stopped by ctx or a queue error: a
// cancelled job's units leave the queue; at a shutdown they stay, and the
// workers go on (their outcomes are committed after the restart).
func (t *Task) queuedEnd(ctx context.Context, j *jobs.Job, err error) error {
	if jobs.WasCancelled(ctx) {
		if err := t.opt.Queue.Cancel(context.WithoutCancel(ctx), j.IRI); err != nil {
			t.opt.Logger.Warn("cancelling queued units", "job", j.ID, "err", err)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func (g *Registry) chemInputs(ins []Input) []work.ChemInput {
	out := make([]work.ChemInput, len(ins))
	for i, in := range ins {
		out[i] = g.chemInput(in)
	}
	return out
}
