package docking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/work"
)

// runQueued docks the pending ligands of job j on the queue's workers:
// every pending ligand is enqueued (the queue skips those still queued,
// so this is also the reconcile after a restart or a lost stream), the
// outcomes are committed in groups by c, and only then acknowledged. No
// outcome for Stall while ligands are pending enqueues them all again.
func (t *Task) runQueued(ctx context.Context, j jobs.Job, c *committer, dj work.DockJob, receptor []byte, pending []work.DockUnit) error {
	q, log := t.opt.Queue, t.opt.Logger.With("job", j.ID)
	inputs := t.opt.Inputs
	if inputs == nil {
		inputs, _ = q.(queue.Inputs)
	}
	if inputs == nil {
		return fmt.Errorf("docking job %s: the queue has no input store", j.ID)
	}
	var sha string
	err := queue.Retry(ctx, log, "put receptor", func() (err error) {
		sha, err = inputs.PutInput(ctx, receptor)
		return err
	})
	if err != nil {
		return t.queuedEnd(ctx, j)
	}
	units := make([]queue.Unit, 0, len(pending))
	remaining := map[string]bool{}
	for _, u := range pending {
		in, smiles, err := LigandInput(ctx, t.reg, u.Ligand)
		if err != nil {
			return fmt.Errorf("docking job %s: ligand %s: %w", j.ID, u.Ligand, err)
		}
		u.Input, u.SMILES = in, smiles
		body, err := json.Marshal(work.DockTask{Job: dj, Receptor: sha, Unit: u})
		if err != nil {
			return err
		}
		units = append(units, queue.Unit{Kind: work.KindDock, Key: u.Ligand, Engine: t.opt.Engine, Job: j.IRI, Body: body})
		remaining[u.Ligand] = true
	}
	enqueue := func(why string) error {
		var us []queue.Unit
		for _, u := range units {
			if remaining[u.Key] {
				us = append(us, u)
			}
		}
		n, err := queue.EnqueueRetrying(ctx, log, q, us)
		if err != nil {
			return err
		}
		log.Info("docking units enqueued", "why", why, "pending", len(us), "added", n)
		return nil
	}
	if err := enqueue("start"); err != nil {
		return t.queuedEnd(ctx, j)
	}
	octx, stop := context.WithCancel(ctx)
	defer stop()
	outs, err := queue.OutcomesRetrying(octx, log, q, j.IRI)
	if err != nil {
		return t.queuedEnd(ctx, j)
	}
	stall := time.NewTimer(t.opt.Stall)
	defer stall.Stop()
	for len(remaining) > 0 {
		var group []queue.Outcome
		select {
		case o, ok := <-outs:
			if !ok {
				return t.queuedEnd(ctx, j)
			}
			group = appendReady(append(group, o), outs, maxCommitGroup)
		case <-stall.C:
			if err := enqueue("stalled"); err != nil {
				return t.queuedEnd(ctx, j)
			}
			stall.Reset(t.opt.Stall)
			continue
		}
		dos := make([]work.DockOutcome, 0, len(group))
		kept := group[:0]
		for _, o := range group {
			// An executor's outcome from a worker of another engine
			// fingerprint (a worker built differently never receives
			// the job's units: a forged or misrouted message) does not
			// count: it is dropped, and the unit, still pending, is
			// enqueued again at the next stall.
			if o.Failure == "" && o.Engine != t.opt.Engine {
				log.Warn("outcome from another engine dropped", "ligand", o.Key, "worker", o.Worker, "engine", o.Engine)
				if err := o.Done(); err != nil {
					log.Warn("acknowledging an outcome", "ligand", o.Key, "err", err)
				}
				continue
			}
			kept = append(kept, o)
		}
		group = kept
		for _, o := range group {
			d := work.DockOutcome{Job: string(o.Job), Ligand: o.Key, Failure: o.Failure, Worker: o.Worker}
			if o.Failure == "" {
				// A worker's outcome that does not decode, names another
				// ligand or job, or holds values no vina run gives is
				// stored as that ligand's failure, never in part.
				err := json.Unmarshal(o.Body, &d)
				why := ""
				switch {
				case err != nil:
					why = "does not decode"
				case d.Ligand != o.Key || d.Job != string(o.Job):
					why = "names another ligand or job"
				default:
					why = checkOutcome(&d, c.set)
				}
				if why != "" {
					log.Warn("invalid docking outcome", "ligand", o.Key, "worker", o.Worker, "why", why)
					d = work.DockOutcome{Job: string(o.Job), Ligand: o.Key,
						Failure: fmt.Sprintf("invalid outcome from worker %.64q: %s", o.Worker, why)}
				}
			}
			dos = append(dos, d)
		}
		added, dropped, err := c.add(ctx, dos)
		if err != nil {
			if ctx.Err() != nil {
				return t.queuedEnd(ctx, j)
			}
			return err
		}
		// The commit is durable here when the store syncs its writes
		// (serve turns --sync-writes on in nats mode): only then are the
		// outcomes acknowledged.
		for _, o := range group {
			delete(remaining, o.Key)
			if err := o.Done(); err != nil {
				log.Warn("acknowledging an outcome", "ligand", o.Key, "err", err)
			}
		}
		if dropped > 0 {
			log.Info("duplicate outcomes dropped", "dropped", dropped, "added", added)
		}
		stall.Reset(t.opt.Stall)
	}
	// Done: the job's consumer and any late unit go.
	if err := q.Cancel(context.WithoutCancel(ctx), j.IRI); err != nil {
		log.Warn("removing the job's queue state", "err", err)
	}
	if c.prog.Finished == 0 && c.prog.Failed > 0 {
		return fmt.Errorf("docking job %s: all %d ligands failed", j.ID, c.prog.Failed)
	}
	return nil
}

// queuedEnd is the end of a queued run stopped by ctx: a cancelled job's
// units leave the queue; at a shutdown they stay, and the workers go on
// (their outcomes are committed after the restart).
func (t *Task) queuedEnd(ctx context.Context, j jobs.Job) error {
	if jobs.WasCancelled(ctx) {
		if err := t.opt.Queue.Cancel(context.WithoutCancel(ctx), j.IRI); err != nil {
			t.opt.Logger.Warn("cancelling queued units", "job", j.ID, "err", err)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return errors.New("docking: the outcome stream ended")
}

// appendReady appends to group what ch holds at once, until group has max
// items or ch is empty or closed: one commit group out of a burst of
// outcomes, without waiting for more.
func appendReady[T any](group []T, ch <-chan T, max int) []T {
	for len(group) < max {
		select {
		case o, ok := <-ch:
			if !ok {
				return group
			}
			group = append(group, o)
		default:
			return group
		}
	}
	return group
}
