package docking

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking/interact"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
)

// CommitStats count the work of the docking commit since the start.
type CommitStats struct {
	Outcomes, Duplicates, Groups int64
	CommitSeconds                float64 // total time of group commits
}

// commitStats is CommitStats, updated atomically.
type commitStats struct {
	outcomes, duplicates, groups, nanos atomic.Int64
}

// Stats returns the commit counters (for /metrics).
func (t *Task) Stats() CommitStats {
	return CommitStats{Outcomes: t.stats.outcomes.Load(), Duplicates: t.stats.duplicates.Load(),
		Groups: t.stats.groups.Load(), CommitSeconds: float64(t.stats.nanos.Load()) / 1e9}
}

// maxCommitGroup is the most outcomes one group commit takes.
const maxCommitGroup = 64

// committer stores the outcomes of one running job: the idempotent commit
// of the single writer. One goroutine at a time calls add.
type committer struct {
	t      *Task
	j      jobs.Job
	set    ontology.DockingSettings
	prog   ontology.DockingProgress // committed counters
	index  map[string]int           // ligand id -> position in the job
	commit jobs.CommitFunc
	// receptor is the job's receptor IRI (the residues of interactions)
	receptor quad.IRI
	// dups counts the outcomes dropped because their ligand already had
	// one (or is not a ligand of the job).
	dups int
}

// newCommitter returns the committer of job j (record rec) and the units
// of the ligands that have no outcome yet, in ligand order (their Input
// is left empty: the local path reads it just before docking).
func (t *Task) newCommitter(ctx context.Context, j jobs.Job, rec ontology.DockingJobRecord, commit jobs.CommitFunc) (*committer, []work.DockUnit, error) {
	// Which ligands have an outcome: one read per results graph.
	rs, err := t.readAllResults(ctx, rec)
	if err != nil {
		return nil, nil, err
	}
	// A job stored without a results index (an earlier version) gets it
	// here, from the results just read.
	indexMu.Lock()
	ok, err := t.hasIndex(ctx, rec.IRI)
	if err == nil && !ok {
		err = t.rebuildIndex(ctx, rec, rs)
	}
	indexMu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	done := map[string]bool{}
	for _, r := range rs {
		done[r.Ligand] = true
	}
	c := &committer{t: t, j: j, set: rec.Settings, prog: rec.Progress, index: map[string]int{}, commit: commit, receptor: rec.Receptor}
	var pending []work.DockUnit
	for i, l := range rec.Ligands {
		id := LigandID(l)
		c.index[id] = i
		if !done[id] {
			pending = append(pending, work.DockUnit{Job: string(j.IRI), Ligand: id, Index: i})
		}
	}
	return c, pending, nil
}

// resultsDelta is what the outcomes added to one results graph change in
// the job's counters.
type resultsDelta struct {
	g                graph.NamedGraph
	have             map[string]bool
	finished, failed int
	best             *float64
}

// add commits outs: an outcome whose ligand already has one (in the
// store or earlier in outs) is dropped, the others are added to their
// results graphs, their pose files written, and the graphs committed with
// the new counters, in as few commits as the commit size allows (each
// results graph whole in one). It returns how many outcomes were added
// and dropped. A commit error leaves the counters as committed.
func (c *committer) add(ctx context.Context, outs []work.DockOutcome) (added, dropped int, err error) {
	start := time.Now()
	defer func() {
		st := &c.t.stats
		st.groups.Add(1)
		st.nanos.Add(int64(time.Since(start)))
		st.duplicates.Add(int64(dropped))
		if err == nil {
			st.outcomes.Add(int64(added))
		}
	}()
	fail := func(lig string, err error) (int, int, error) {
		return added, dropped, fmt.Errorf("docking job %s: ligand %s: %w", c.j.ID, lig, err)
	}
	byGraph := map[int]*resultsDelta{}
	var order []int
	for _, o := range outs {
		i, ok := c.index[o.Ligand]
		if !ok || o.Job != string(c.j.IRI) {
			dropped++
			continue
		}
		k := i / ResultsPerGraph
		d := byGraph[k]
		if d == nil {
			d = &resultsDelta{g: graph.NamedGraph{IRI: ResultsIRI(c.j.IRI, k)}, have: map[string]bool{}}
			cur, err := c.t.store.Graph(ctx, d.g.IRI)
			if err != nil && !errors.Is(err, graph.ErrNotFound) {
				return fail(o.Ligand, err)
			}
			d.g.Quads = cur
			for lig := range splitResults(c.j.IRI, cur) {
				d.have[lig] = true
			}
			byGraph[k] = d
			order = append(order, k)
		}
		if d.have[o.Ligand] {
			dropped++
			continue
		}
		poses, failure, err := c.t.records(c.j, c.receptor, o)
		if err != nil {
			return fail(o.Ligand, err)
		}
		qs, err := ontology.DockingResultQuads(ResultIRI(c.j.IRI, o.Ligand), c.j.IRI, poses, failure)
		if err != nil {
			return fail(o.Ligand, err)
		}
		iqs, err := ontology.DockingIsomerQuads(ResultIRI(c.j.IRI, o.Ligand), c.j.IRI, isomerRecords(c.t.reg.IRI(o.Ligand), o))
		if err != nil {
			return fail(o.Ligand, err)
		}
		qs = append(qs, iqs...)
		d.g.Quads = append(d.g.Quads, qs...)
		// The ligand's results index entry commits with its graph.
		d.g.Side = append(d.g.Side, indexEntry(c.j.IRI, o.Ligand, k, poses, failure))
		d.have[o.Ligand] = true
		if failure != nil {
			d.failed++
		} else {
			d.finished++
			for _, p := range poses {
				if d.best == nil || p.Affinity < *d.best {
					a := p.Affinity
					d.best = &a
				}
			}
		}
		added++
	}
	next := c.prog
	var chunk []graph.NamedGraph
	quads := 0
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		props, err := propsOf(c.set, next)
		if err == nil {
			err = c.commit(ctx, chunk, props)
		}
		if err != nil {
			return fmt.Errorf("docking job %s: commit: %w", c.j.ID, err)
		}
		c.prog = next
		chunk, quads = nil, 0
		return nil
	}
	for _, k := range order {
		d := byGraph[k]
		if d.finished+d.failed == 0 {
			continue
		}
		if quads+len(d.g.Quads) > c.t.opt.MaxCommitQuads {
			if err := flush(); err != nil {
				return added, dropped, err
			}
		}
		chunk = append(chunk, d.g)
		quads += len(d.g.Quads)
		next.Finished += d.finished
		next.Failed += d.failed
		if d.best != nil && (next.BestAffinity == nil || *d.best < *next.BestAffinity) {
			a := *d.best
			next.BestAffinity = &a
		}
	}
	if err := flush(); err != nil {
		return added, dropped, err
	}
	c.dups += dropped
	return added, dropped, nil
}

// records turns an outcome into its pose records (writing each pose's SDF
// to the blob store) or its failure.
func (t *Task) records(j jobs.Job, receptor quad.IRI, o work.DockOutcome) ([]ontology.DockingPoseRecord, *ontology.DockingFailure, error) {
	lig := t.reg.IRI(o.Ligand)
	if o.Failure != "" || len(o.Poses) == 0 {
		msg := o.Failure
		if msg == "" {
			msg = "docking: no poses"
		}
		return nil, &ontology.DockingFailure{Ligand: lig, Error: msg}, nil
	}
	out := make([]ontology.DockingPoseRecord, 0, len(o.Poses))
	for _, p := range o.Poses {
		ref, err := t.store.Blobs().PutBytes(p.SDF)
		if err != nil {
			return nil, nil, err
		}
		rec := ontology.DockingPoseRecord{Ligand: lig, Mode: p.Mode, Affinity: p.Affinity,
			RMSDLB: p.RMSDLB, RMSDUB: p.RMSDUB, FileIRI: ontology.BlobIRI(t.base, ref.SHA256),
			File: ontology.ReceptorFile{SHA256: ref.SHA256, Bytes: ref.Size, MediaType: ontology.MediaTypeSDF,
				Filename: fmt.Sprintf("%s_%s_%d.sdf", j.ID, o.Ligand, p.Mode)},
			Receptor: receptor, Interactions: poseInteractions(p.Interactions), Isomer: o.Isomer, CheckError: p.CheckError}
		if len(p.Checks) > 0 {
			valid := chem.PoseValid(p.Checks)
			rec.Valid = &valid
			for _, c := range p.Checks {
				rec.Checks = append(rec.Checks, ontology.PoseCheck{Name: c.Name, Pass: c.Pass, Value: c.Value})
			}
		}
		out = append(out, rec)
	}
	return out, nil, nil
}

// poseInteractions is the fingerprint of a pose's interactions as the
// graph states it: one entry per (residue, type).
func poseInteractions(in []interact.Interaction) []ontology.PoseInteraction {
	var out []ontology.PoseInteraction
	seen := map[ontology.PoseInteraction]bool{}
	for _, it := range in {
		pi := ontology.PoseInteraction{Type: string(it.Type), Residue: ontology.PoseResidue{Chain: it.Residue.Chain,
			Number: it.Residue.Number, ICode: it.Residue.ICode, Name: it.Residue.Name}}
		if !seen[pi] {
			seen[pi] = true
			out = append(out, pi)
		}
	}
	return out
}

// isomerRecords are the stereoisomers a docked outcome of ligand lig
// names (none for a failure).
func isomerRecords(lig quad.IRI, o work.DockOutcome) []ontology.DockingIsomer {
	if o.Failure != "" || len(o.Poses) == 0 {
		return nil
	}
	out := make([]ontology.DockingIsomer, len(o.Isomers))
	for k, iso := range o.Isomers {
		out[k] = ontology.DockingIsomer{Ligand: lig, Index: k + 1, SMILES: iso.SMILES, InChIKey: iso.InChIKey,
			Affinity: iso.Affinity, Error: iso.Failure, Total: max(o.StereoTotal, len(o.Isomers))}
		if out[k].Affinity == nil && out[k].Error == "" {
			out[k].Error = "not docked"
		}
	}
	return out
}
