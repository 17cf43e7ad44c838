package sparql

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/internal/sharedtest"
)

// BenchmarkBenchStore runs the queries of bench/sparql/*.rq in process
// over a real store: the data directory named by MOLGRAPH_BENCH_SPARQL_DIR
// (e.g. a copy of the bench-sparql store of 100,000 drug-like molecules;
// skipped without it), its columns and value column built first, as the
// server has them. BENCH_QUERIES (a regexp over the file names) picks
// queries, BENCH_QUERY_DIR reads them from another directory; BENCH_PARALLEL=1 runs each query alternately without and with
// NumCPU-1 helpers (name/seq-vs-par: median wall times and their ratio,
// helper batches per run). For profiles of the engine without
// HTTP (-cpuprofile); make bench-sparql is the benchmark.
func BenchmarkBenchStore(b *testing.B) {
	dir := os.Getenv("MOLGRAPH_BENCH_SPARQL_DIR")
	if dir == "" {
		b.Skip("MOLGRAPH_BENCH_SPARQL_DIR not set")
	}
	qdir := os.Getenv("BENCH_QUERY_DIR")
	if qdir == "" {
		qdir = "../../bench/sparql"
	}
	files, err := filepath.Glob(filepath.Join(qdir, "*.rq"))
	if err != nil || len(files) == 0 {
		b.Fatal("no bench/sparql/*.rq", err)
	}
	pick := regexp.MustCompile(os.Getenv("BENCH_QUERIES"))
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.BuildColumns(ctx); err != nil {
		b.Fatal(err)
	}
	if err := st.BuildValues(ctx); err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".rq")
		if !pick.MatchString(name) {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		q, err := Parse(string(text), "")
		if err != nil {
			b.Fatal(name, err)
		}
		run := func(b *testing.B, opts Options) (*Result, int) {
			res, err := Exec(ctx, st, q, opts)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			if q.form == Select {
				err = res.Solutions(func(Solution) error { n++; return nil })
			} else {
				err = res.Triples(func(quad.Quad) error { n++; return nil })
			}
			if err != nil {
				b.Fatal(err)
			}
			return res, n
		}
		if os.Getenv("BENCH_PARALLEL") != "" {
			// Sequential and parallel runs alternate, so that both see
			// the same machine load: the ratio of their medians is the
			// figure on a shared machine.
			h := NewHelpers(runtime.NumCPU() - 1)
			b.Run(name+"/seq-vs-par", func(b *testing.B) {
				var seq, par []time.Duration
				helped, batches := 0, 0
				for b.Loop() {
					t0 := time.Now()
					run(b, Options{})
					seq = append(seq, time.Since(t0))
					t0 = time.Now()
					res, _ := run(b, Options{Helpers: h})
					par = append(par, time.Since(t0))
					helped += res.ex.parHelped
					batches += res.ex.parJobs
				}
				med := func(d []time.Duration) float64 {
					slices.Sort(d)
					return float64(d[len(d)/2]) / 1e6
				}
				b.ReportMetric(med(seq), "seq-ms")
				b.ReportMetric(med(par), "par-ms")
				b.ReportMetric(med(par)/med(seq), "par/seq")
				b.ReportMetric(float64(helped)/float64(len(par)), "helped")
				b.ReportMetric(float64(batches)/float64(len(par)), "batches")
			})
			continue
		}
		b.Run(name, func(b *testing.B) {
			var cpu time.Duration
			runs := 0
			for b.Loop() {
				runs++
				cpu0 := sharedtest.CPUTime()
				_, n := run(b, Options{})
				cpu += sharedtest.CPUTime() - cpu0
				b.ReportMetric(float64(n), "rows")
			}
			b.ReportMetric(float64(cpu)/1e6/float64(runs), "cpu-ms/op")
		})
	}
}
