package quadstore

// Benchmarks on the data of graph/bench_test.go: 100,000 molecule records
// of 10 quads each, one named graph per record.
//
//	go test -run '^$' -bench . -benchtime 1x ./graph/quadstore/

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/cayleygraph/cayley/graph/path"
	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

const benchResources = 100000

var (
	bMW    = quad.IRI(ontology.MG + "molecularWeight")
	bType  = quad.IRI(ontology.RDF + "type")
	bAttr  = quad.IRI(ontology.SIO + "SIO_000008")
	bValue = quad.IRI(ontology.SIO + "SIO_000300")
)

func benchIRI(i int) quad.IRI {
	return ontology.ResourceIRI("http://localhost:8080/", "molecule", fmt.Sprintf("mol-%07d", i))
}

// benchMolecule is graph/bench_test.go's benchMolecule: a 10-quad record.
func benchMolecule(i int) Graph {
	g := benchIRI(i)
	mw := ontology.SubIRI(g, "mw")
	w := 100 + float64(i%9000)/10
	return Graph{Name: g, Quads: []quad.Quad{
		{Subject: g, Predicate: bType, Object: quad.IRI(ontology.MG + "Molecule")},
		{Subject: g, Predicate: quad.IRI(ontology.MG + "canonicalSmiles"), Object: ontology.String(fmt.Sprintf("C%dCO", i))},
		{Subject: g, Predicate: quad.IRI(ontology.MG + "inchiKey"), Object: ontology.String(fmt.Sprintf("K%013d-UHFFFAOYSA-N", i))},
		{Subject: g, Predicate: bMW, Object: ontology.Double(w)},
		{Subject: g, Predicate: quad.IRI(ontology.MG + "logP"), Object: ontology.Double(float64(i%100) / 17)},
		{Subject: g, Predicate: quad.IRI(ontology.MG + "validated"), Object: ontology.Boolean(i%7 != 0)},
		{Subject: g, Predicate: bAttr, Object: mw},
		{Subject: mw, Predicate: bType, Object: quad.IRI(ontology.SIO + "CHEMINF_000334")},
		{Subject: mw, Predicate: bValue, Object: ontology.Double(w)},
		{Subject: mw, Predicate: quad.IRI(ontology.SIO + "SIO_000221"), Object: quad.IRI(ontology.UNIT + "DA")},
	}}
}

// loadBench writes resources [from, to) in commits of batch graphs.
func loadBench(tb testing.TB, s *Store, from, to, batch int) {
	ctx := context.Background()
	for start := from; start < to; start += batch {
		end := min(start+batch, to)
		graphs := make([]Graph, 0, end-start)
		for i := start; i < end; i++ {
			graphs = append(graphs, benchMolecule(i))
		}
		if err := s.ReplaceGraphs(ctx, graphs); err != nil {
			tb.Fatal(err)
		}
	}
}

var bench struct {
	once sync.Once
	s    *Store
	dir  string
}

// TestMain removes the benchmarks' shared store.
func TestMain(m *testing.M) {
	code := m.Run()
	if bench.s != nil {
		bench.s.Close()
		os.RemoveAll(bench.dir)
	}
	if large.dir != "" {
		os.RemoveAll(large.dir)
	}
	os.Exit(code)
}

func benchStore(b *testing.B) *Store {
	bench.once.Do(func() {
		dir, err := os.MkdirTemp("", "quadstore-bench-")
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(dir, Options{MemoryLimitMB: benchMemoryLimitMB})
		if err != nil {
			b.Fatal(err)
		}
		loadBench(b, s, 0, benchResources, 2000)
		bench.s, bench.dir = s, dir
	})
	return bench.s
}

// benchMemoryLimitMB is the soft memory limit of the load benchmarks
// (Options.MemoryLimitMB), as a server sets it with GOMEMLIMIT.
const benchMemoryLimitMB = 400

// BenchmarkLoad writes 1,000,000 quads (100k graphs of 10) per op, in
// commits of 2,000 graphs as graph.Store.PutGraphs does (20,000 quads).
func BenchmarkLoad(b *testing.B) {
	cpu0 := sharedtest.CPUTime().Seconds()
	for n := 0; n < b.N; n++ {
		dir := b.TempDir()
		s, err := Open(dir, Options{MemoryLimitMB: benchMemoryLimitMB})
		if err != nil {
			b.Fatal(err)
		}
		loadBench(b, s, 0, benchResources, 2000)
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchResources*10*b.N)/b.Elapsed().Seconds(), "quads/s")
	b.ReportMetric(sharedtest.PeakRSSMB(), "peak-RSS-MB")
	b.ReportMetric((sharedtest.CPUTime().Seconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkReadGraph reads one resource's graph (10 quads) by its name.
func BenchmarkReadGraph(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		t0 := time.Now()
		var got int
		err := s.Match(ctx, Pattern{Label: benchIRI(n * 7919 % benchResources)}, func(quad.Quad) error { got++; return nil })
		lat = append(lat, time.Since(t0))
		if err != nil || got != 10 {
			b.Fatalf("%d quads, %v", got, err)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "median-µs")
}

// BenchmarkNumericFilter: molecules with mg:molecularWeight < 500, by a
// range scan of the numeric index.
func BenchmarkNumericFilter(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	want := 0
	for i := 0; i < benchResources; i++ {
		if 100+float64(i%9000)/10 < 500 {
			want++
		}
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		got := 0
		err := s.NumericRange(ctx, bMW, Range{Min: math.Inf(-1), Max: 500, MaxExclusive: true}, func(quad.Quad) error {
			got++
			return nil
		})
		if err != nil || got != want {
			b.Fatalf("%d matches, want %d: %v", got, want, err)
		}
	}
	b.ReportMetric(sharedtest.PeakRSSMB(), "peak-RSS-MB")
}

// BenchmarkTwoHopJoin: for 1,000 molecules, molecule -SIO_000008->
// descriptor -SIO_000300-> value, as per-node Match calls.
func BenchmarkTwoHopJoin(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		got := 0
		for i := 0; i < 1000; i++ {
			err := s.Match(ctx, Pattern{Subject: benchIRI(i * 97), Predicate: bAttr}, func(q quad.Quad) error {
				return s.Match(ctx, Pattern{Subject: q.Object, Predicate: bValue}, func(quad.Quad) error {
					got++
					return nil
				})
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		if got != 1000 {
			b.Fatalf("%d results, want 1000", got)
		}
	}
}

// BenchmarkTwoHopJoinPath is the same join through Cayley's path API and
// optimizer, on one snapshot.
func BenchmarkTwoHopJoinPath(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	starts := make([]quad.Value, 1000)
	for i := range starts {
		starts[i] = benchIRI(i * 97)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		got := 0
		err := s.View(ctx, func(snap *Snapshot) error {
			return path.StartPath(snap, starts...).Out(bAttr).Out(bValue).Iterate(ctx).EachValue(snap, func(quad.Value) {
				got++
			})
		})
		if err != nil || got != 1000 {
			b.Fatalf("%d results, want 1000: %v", got, err)
		}
	}
}

// BenchmarkReopen closes the loaded store and opens it again.
func BenchmarkReopen(b *testing.B) {
	s := benchStore(b)
	dir := s.db.Opts().Dir
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		var err error
		s, err = Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if q, _, err := s.Counts(); err != nil || q != benchResources*10 {
			b.Fatalf("%d quads after reopen: %v", q, err)
		}
	}
	bench.s = s
}

// large is BenchmarkReopenLarge's store, loaded once per process (the
// benchmark function runs more than once).
var large struct {
	n   int
	dir string
}

// BenchmarkReopenLarge loads QUADSTORE_BENCH_RESOURCES resources (10 quads
// each; skipped when unset) into a new store once and measures closing and
// reopening it, e.g. QUADSTORE_BENCH_RESOURCES=1000000 for 10M quads. The
// load's rate, CPU time and peak RSS go to stderr at once.
func BenchmarkReopenLarge(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("QUADSTORE_BENCH_RESOURCES"))
	if n <= 0 {
		b.Skip("set QUADSTORE_BENCH_RESOURCES")
	}
	if large.n != n {
		dir, err := os.MkdirTemp("", "quadstore-large-")
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(dir, Options{MemoryLimitMB: benchMemoryLimitMB})
		if err != nil {
			b.Fatal(err)
		}
		t0, cpu0 := time.Now(), sharedtest.CPUTime().Seconds()
		loadBench(b, s, 0, n, 2000)
		loadTime := time.Since(t0)
		fmt.Fprintf(os.Stderr, "loaded %d quads in %v (%.0f quads/s, %.1f CPU-s, peak RSS %.0f MB)\n", 10*n, loadTime,
			float64(10*n)/loadTime.Seconds(), sharedtest.CPUTime().Seconds()-cpu0, sharedtest.PeakRSSMB())
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		large.n, large.dir = n, dir
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Open(large.dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if q, _, err := s.Counts(); err != nil || q != int64(10*n) {
			b.Fatalf("%d quads after reopen: %v", q, err)
		}
		b.StopTimer()
		if i == 0 {
			// Open starts the term filter's scan of the dictionary on a
			// goroutine; until it is done, lookups of new terms read
			// Badger.
			t0 := time.Now()
			s.waitFilter()
			fmt.Fprintf(os.Stderr, "term filter of %d keys scanned in the background in %v\n", s.filter.Load().added.Load(), time.Since(t0))
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkLoadColumns writes 300,000 quads (30k graphs of 10) per op in
// commits of 200 graphs, as the batch API does, with the columns kept
// (on) and without them (off): cpu-s/op is what keeping them costs.
func BenchmarkLoadColumns(b *testing.B) {
	for _, c := range []struct {
		name string
		max  int64
	}{{"on", 0}, {"off", -1}} {
		b.Run(c.name, func(b *testing.B) {
			cpu0 := sharedtest.CPUTime().Seconds()
			for n := 0; n < b.N; n++ {
				s, err := Open(b.TempDir(), Options{MemoryLimitMB: benchMemoryLimitMB, ColumnsMaxTriples: c.max})
				if err != nil {
					b.Fatal(err)
				}
				loadBench(b, s, 0, 30000, 200)
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((sharedtest.CPUTime().Seconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}
