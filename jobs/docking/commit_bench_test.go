package docking

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
)

// BenchmarkCommitOutcomes is the single writer's ceiling for docking
// (design M4a): canned outcomes of 9 modes, each with a 4 KB pose SDF,
// committed by the committer in groups of 64 into the Badger store with
// synced writes (serve's default), as the queued path does. ligands/s is
// the ceiling on outcomes the coordinator can store, whatever the number
// of workers.
//
// "failures" commits outcomes without poses (no blobs): the graph side
// alone, side by side in one run.
func BenchmarkCommitOutcomes(b *testing.B) {
	for _, poses := range []bool{true, false} {
		name := map[bool]string{true: "poses", false: "failures"}[poses]
		b.Run(name, func(b *testing.B) { benchCommit(b, poses) })
	}
}

func benchCommit(b *testing.B, poses bool) {
	vina, err := dk.NewVina(context.Background(), "")
	if err != nil {
		b.Skipf("vina: %v", err)
	}
	st, err := graph.Open(b.TempDir(), graph.Options{SyncWrites: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	pool, err := chem.NewPool(1)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	reg := batch.NewRegistry(st, pool, base, nil)
	task := NewTask(reg, vina, Options{})
	ctx := context.Background()
	j := jobs.Job{ID: "dock-bench", IRI: task.JobIRI("dock-bench")}
	rec := ontology.DockingJobRecord{IRI: j.IRI, Progress: ontology.DockingProgress{Total: b.N},
		Settings: ontology.DockingSettings{PocketMethod: "box", Size: [3]float64{20, 20, 20}, Exhaustiveness: 8, NumModes: 9, EnergyRange: 3, Seed: 1}}
	for i := range b.N {
		rec.Ligands = append(rec.Ligands, reg.IRI(fmt.Sprintf("mol-bench%08d", i)))
	}
	commit := func(ctx context.Context, gs []graph.NamedGraph, props []jobs.Prop) error {
		var jq []quad.Quad
		for _, p := range props {
			jq = append(jq, quad.Quad{Subject: j.IRI, Predicate: p.Predicate, Object: p.Object})
		}
		return st.PutGraphs(ctx, append(gs, graph.NamedGraph{IRI: j.IRI, Quads: jq}), nil)
	}
	c, _, err := task.newCommitter(ctx, j, rec, commit)
	if err != nil {
		b.Fatal(err)
	}
	sdf := bytes.Repeat([]byte("  1.2345   2.3456   3.4567 C   0  0  0  0  0  0  0  0  0  0  0  0\n"), 60)
	outcome := func(i int) work.DockOutcome {
		o := work.DockOutcome{Job: string(j.IRI), Ligand: fmt.Sprintf("mol-bench%08d", i), Index: i}
		if !poses {
			o.Failure = fmt.Sprintf("vina failed on ligand %d", i)
			return o
		}
		for m := 1; m <= 9; m++ {
			o.Poses = append(o.Poses, work.Pose{Mode: m, Affinity: -float64(i%90)/10 - float64(m)/100, RMSDLB: float64(m), RMSDUB: float64(2 * m),
				SDF: append(fmt.Appendf(nil, "%d %d\n", i, m), sdf...)})
		}
		return o
	}
	cpu := reportCPU(b)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i += maxCommitGroup {
		var group []work.DockOutcome
		for k := i; k < min(i+maxCommitGroup, b.N); k++ {
			group = append(group, outcome(k))
		}
		if added, _, err := c.add(ctx, group); err != nil || added != len(group) {
			b.Fatal(added, err)
		}
	}
	el := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/el.Seconds(), "ligands/s")
	cpu()
	if c.prog.Finished+c.prog.Failed != b.N {
		b.Fatalf("outcomes %+v, want %d", c.prog, b.N)
	}
}
