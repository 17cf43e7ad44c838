package batch

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/internal/sharedtest"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/work"
)

// BenchmarkCommitPrepared is the single writer's ceiling for batch
// registration (design M4b): the NCI sample's 4,999 records, prepared
// once beforehand (work.Chemistry, as a worker would, and sent through
// the wire form), committed per iteration into a fresh Badger store with
// synced writes (serve's default) by commitChunk in chunks of 800
// records, as the queued path does: planning (existence checks), quads,
// side entries and commits, with no chemistry. records/s bounds how fast
// any number of chemistry workers can register molecules.
func BenchmarkCommitPrepared(b *testing.B) {
	f, err := os.Open("/usr/share/RDKit/Data/NCI/first_5K.smi")
	if err != nil {
		b.Skipf("%v (apt install rdkit-data)", err)
	}
	defer f.Close()
	var task work.ChemTask
	var ins []Input
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		smi, name, _ := strings.Cut(sc.Text(), "\t")
		ins = append(ins, Input{Format: chem.FormatSMILES, Content: smi, Name: name})
		task.Records = append(task.Records, ins[len(ins)-1].chem())
	}
	pool, err := chem.NewPool(0)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	out, err := work.Chemistry(ctx, pool, 2*pool.Workers(), task)
	if err != nil {
		b.Fatal(err)
	}
	body, err := work.EncodeChemOutcome(out)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var total, cpu time.Duration
	n := 0
	for range b.N {
		b.StopTimer()
		st, err := graph.Open(b.TempDir(), graph.Options{SyncWrites: true})
		if err != nil {
			b.Fatal(err)
		}
		t := NewTask(NewRegistry(st, pool, "http://localhost:8080/", nil), TaskOptions{})
		j := jobs.Job{ID: "batch-bench", IRI: "http://localhost:8080/id/batch-job/batch-bench"}
		commit := func(ctx context.Context, gs []graph.NamedGraph, props []jobs.Prop) error {
			return st.PutGraphs(ctx, gs, nil)
		}
		b.StartTimer()
		t0, c0 := time.Now(), sharedtest.CPUTime()
		co, err := work.DecodeChemOutcome(body)
		if err != nil {
			b.Fatal(err)
		}
		var counts Counts
		for start := 0; start < len(co.Results); start += 800 {
			end := min(start+800, len(co.Results))
			chunk := t.chemResults(&queuedUnit{first: start, ins: ins[start:end]}, work.ChemOutcome{First: start, Results: co.Results[start:end]}, "")
			if err := t.commitChunk(ctx, &j, &counts, chunk, commit); err != nil {
				b.Fatal(err)
			}
		}
		total += time.Since(t0)
		cpu += sharedtest.CPUTime() - c0
		n += int(counts.Processed)
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)/total.Seconds(), "records/s")
	// The CPU the process spent per record (all threads: Badger's
	// compactions included): the ceiling on an idle 2-core machine is
	// about 2 / this, whatever the load was during the run.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "CPU-ms/record")
	b.ReportMetric(0, "ns/op")
}
