package docking

import (
	"context"
	"fmt"
	"testing"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
)

// TestCommitIdempotent feeds the committer the same outcome twice, in one
// group and again in a later one and after a restart (a redelivered
// unit): each ligand keeps one outcome, its first, and the counters count
// it once.
func TestCommitIdempotent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var ids []string
	for _, smi := range []string{"CCO", "CCCO", "CCCCO"} {
		m, _, err := f.reg.Register(ctx, batch.Input{Format: chem.FormatSMILES, Content: smi})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	j, err := f.task.NewJob(ctx, "dock-idem", Request{Receptor: "rec-1iep", Ligands: ids, Pocket: "box",
		Box: &dk.Box{Center: [3]float64{15.190, 53.903, 16.917}, Size: [3]float64{10, 10, 10}}})
	if err != nil {
		t.Fatal(err)
	}
	commits := 0
	commit := func(ctx context.Context, gs []graph.NamedGraph, _ []jobs.Prop) error {
		commits++
		return f.store.PutGraphs(ctx, gs, nil)
	}
	// The job is not submitted (no vina here): its record is its ligands
	// and settings.
	rec := ontology.DockingJobRecord{IRI: j.IRI, Progress: ontology.DockingProgress{Total: len(ids)},
		Settings: ontology.DockingSettings{PocketMethod: "box", Size: [3]float64{10, 10, 10}, Exhaustiveness: 1, NumModes: 9, EnergyRange: 3, Seed: 1}}
	for _, id := range ids {
		rec.Ligands = append(rec.Ligands, f.reg.IRI(id))
	}
	c, pending, err := f.task.newCommitter(ctx, j, rec, commit)
	if err != nil || len(pending) != 3 {
		t.Fatalf("pending %v, %v", pending, err)
	}
	posed := func(id string, aff float64) work.DockOutcome {
		return work.DockOutcome{Job: string(j.IRI), Ligand: id, Poses: []work.Pose{
			{Mode: 1, Affinity: aff, SDF: fmt.Appendf(nil, "%s %v\n$$$$\n", id, aff)},
			{Mode: 2, Affinity: aff + 0.5, RMSDLB: 1, RMSDUB: 2, SDF: fmt.Appendf(nil, "%s %v 2\n$$$$\n", id, aff)}}}
	}
	a := posed(ids[0], -5)
	b := work.DockOutcome{Job: string(j.IRI), Ligand: ids[1], Failure: "vina failed"}
	added, dropped, err := c.add(ctx, []work.DockOutcome{a, a, b})
	if err != nil || added != 2 || dropped != 1 || commits != 1 {
		t.Fatalf("first group: added %d dropped %d commits %d: %v", added, dropped, commits, err)
	}
	want := c.prog
	if want.Finished != 1 || want.Failed != 1 || want.BestAffinity == nil || *want.BestAffinity != -5 {
		t.Fatalf("counters %+v", want)
	}
	// The same ligand again, with another (better) affinity, and a unit of
	// another job: both dropped, nothing committed, counters unchanged.
	other := posed(ids[2], -9)
	other.Job = "http://localhost:8080/id/job/dock-other"
	added, dropped, err = c.add(ctx, []work.DockOutcome{posed(ids[0], -7), other})
	if err != nil || added != 0 || dropped != 2 || commits != 1 {
		t.Fatalf("second group: added %d dropped %d commits %d: %v", added, dropped, commits, err)
	}
	if c.prog.Finished != want.Finished || c.prog.Failed != want.Failed || *c.prog.BestAffinity != -5 {
		t.Fatalf("counters changed: %+v", c.prog)
	}
	// After a restart: only the third ligand is pending; a late copy of b
	// is dropped.
	c2, pending, err := f.task.newCommitter(ctx, j, rec, commit)
	if err != nil || len(pending) != 1 || pending[0].Ligand != ids[2] {
		t.Fatalf("pending after restart %v, %v", pending, err)
	}
	if added, dropped, err := c2.add(ctx, []work.DockOutcome{b}); err != nil || added != 0 || dropped != 1 {
		t.Fatalf("late copy: added %d dropped %d: %v", added, dropped, err)
	}
	poses, failure, err := f.task.Result(ctx, j.IRI, ids[0])
	if err != nil || failure != nil || len(poses) != 2 || poses[0].Affinity != -5 {
		t.Fatalf("ligand 0: %+v %+v %v", poses, failure, err)
	}
	if _, failure, err := f.task.Result(ctx, j.IRI, ids[1]); err != nil || failure == nil || failure.Error != "vina failed" {
		t.Fatalf("ligand 1: %+v %v", failure, err)
	}
}
