package handlers

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
)

// BenchmarkExportStore exports a real store (the data directory named by
// MOLGRAPH_BENCH_EXPORT_DIR, e.g. a copy of the bench-sparql store of
// 100,000 drug-like molecules; skipped without it) as N-Quads to a
// counting writer, side by side: "dump" is the export's path (from ids),
// "match" the path it replaced for N-Quads (each graph matched, decoded,
// sorted and written by rdfio's writer). It reports quads per second of
// wall time and per CPU second of the process (the figure that holds on
// a busy machine).
func BenchmarkExportStore(b *testing.B) {
	dir := os.Getenv("MOLGRAPH_BENCH_EXPORT_DIR")
	if dir == "" {
		b.Skip("MOLGRAPH_BENCH_EXPORT_DIR not set")
	}
	st, err := graph.Open(dir, graph.Options{ColumnsMaxTriples: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, path := range []string{"dump", "match"} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				start, cpu0 := time.Now(), cpuTime()
				e, err := NewExporter(ctx, st, rdfio.NQuads)
				if err != nil {
					b.Fatal(err)
				}
				if path == "match" {
					e.dump = false
					if e.names, err = GraphNames(ctx, st); err != nil {
						b.Fatal(err)
					}
				}
				cw := &countWriter{}
				es, err := e.Write(ctx, cw, nil)
				e.Close()
				if err != nil {
					b.Fatal(err)
				}
				el, cpu := time.Since(start), cpuTime()-cpu0
				b.ReportMetric(float64(es.Quads)/el.Seconds(), "quads/s")
				b.ReportMetric(float64(es.Quads)/cpu.Seconds(), "quads/cpu-s")
				b.ReportMetric(float64(es.Quads), "quads")
				b.ReportMetric(float64(cw.n)/1e6, "MB")
			}
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
