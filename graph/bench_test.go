package graph_test

// Benchmarks of the store on molecule-like data: 100,000 resources of 10
// quads each, in resource-sized named graphs. `make bench` runs them once
// each (-benchtime=1x for the load) and prints quads/s, CPU-s and peak RSS.
//
//	go test -run '^$' -bench . -benchtime 1x ./graph/

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/molgraph/molgraph/internal/sharedtest"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/path"
	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
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

// benchMolecule is a 10-quad molecule record: shortcut properties plus one
// PubChem-style descriptor node.
func benchMolecule(i int) graph.NamedGraph {
	g := benchIRI(i)
	mw := ontology.SubIRI(g, "mw")
	w := 100 + float64(i%9000)/10
	return graph.NamedGraph{IRI: g, Quads: []quad.Quad{
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

func load(b *testing.B, s *graph.Store) {
	ctx := context.Background()
	const batch = 5000
	for start := 0; start < benchResources; start += batch {
		graphs := make([]graph.NamedGraph, 0, batch)
		for i := start; i < start+batch; i++ {
			graphs = append(graphs, benchMolecule(i))
		}
		if err := s.PutGraphs(ctx, graphs, nil); err != nil {
			b.Fatal(err)
		}
	}
}

type loaded struct {
	once sync.Once
	s    *graph.Store
	dir  string
}

var stores = map[string]*loaded{"memory": {}, "badger": {}}

// backends are benchmarked side by side: Cayley's memstore and the native
// Badger quad store.
var backends = []string{"memory", "badger"}

// openBench opens an empty store; dir is its directory ("" in memory), for
// the caller to remove.
func openBench(b *testing.B, backend string) (s *graph.Store, dir string) {
	if backend == "memory" {
		s, err := graph.OpenMemory(graph.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return s, ""
	}
	dir, err := os.MkdirTemp("", "molgraph-bench-")
	if err != nil {
		b.Fatal(err)
	}
	s, err = graph.Open(dir, graph.Options{})
	if err != nil {
		os.RemoveAll(dir)
		b.Fatal(err)
	}
	return s, dir
}

// TestMain closes and removes the stores the read benchmarks loaded.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, l := range stores {
		if l.s != nil {
			l.s.Close()
			if l.dir != "" {
				os.RemoveAll(l.dir)
			}
		}
	}
	os.Exit(code)
}

// loadedStore returns a store holding the 100k resources, loading it once
// per process.
func loadedStore(b *testing.B, backend string) *graph.Store {
	l := stores[backend]
	l.once.Do(func() {
		l.s, l.dir = openBench(b, backend)
		load(b, l.s)
	})
	return l.s
}

// badgerMemoryLimit is the Go soft memory limit the native store's load
// runs under (a server sets 1 GiB, or GOMEMLIMIT): Badger's memtables are
// large short-lived allocations, and without a limit the heap grows to
// twice the live memory before the garbage collector returns them. The
// load's live memory is smaller than a batch job's, hence the lower limit.
const badgerMemoryLimit = 400 << 20

// BenchmarkLoad writes 1,000,000 quads (100k graphs of 10) per op.
func BenchmarkLoad(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			if backend == "badger" {
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(badgerMemoryLimit))
			}
			cpu0 := sharedtest.CPUTime().Seconds()
			for n := 0; n < b.N; n++ {
				s, dir := openBench(b, backend)
				load(b, s)
				s.Close()
				if dir != "" {
					os.RemoveAll(dir)
				}
			}
			b.ReportMetric(float64(benchResources*10*b.N)/b.Elapsed().Seconds(), "quads/s")
			b.ReportMetric(sharedtest.PeakRSSMB(), "peak-RSS-MB")
			b.ReportMetric((sharedtest.CPUTime().Seconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}

func BenchmarkReadGraph(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			s := loadedStore(b, backend)
			ctx := context.Background()
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				q, err := s.Graph(ctx, benchIRI(n*7919%benchResources))
				if err != nil || len(q) != 10 {
					b.Fatalf("%d quads, %v", len(q), err)
				}
			}
		})
	}
}

// BenchmarkNumericFilter: molecules with mg:molecularWeight < 500, by a
// predicate scan and a numeric comparison of every value.
func BenchmarkNumericFilter(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			s := loadedStore(b, backend)
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
				err := s.Match(ctx, graph.Pattern{Predicate: bMW}, func(q quad.Quad) error {
					ts, ok := q.Object.(quad.TypedString)
					if !ok {
						return nil
					}
					if f, err := strconv.ParseFloat(string(ts.Value), 64); err == nil && f < 500 {
						got++
					}
					return nil
				})
				if err != nil || got != want {
					b.Fatalf("%d matches, want %d: %v", got, want, err)
				}
			}
			b.ReportMetric(sharedtest.PeakRSSMB(), "peak-RSS-MB")
		})
	}
}

// BenchmarkNumericRange: the same filter through Store.NumericRange (the
// native store's numeric index; a predicate scan for the others).
func BenchmarkNumericRange(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			s := loadedStore(b, backend)
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
				err := s.NumericRange(ctx, bMW, graph.Range{Min: math.Inf(-1), Max: 500, MaxExclusive: true}, func(quad.Quad) error {
					got++
					return nil
				})
				if err != nil || got != want {
					b.Fatalf("%d matches, want %d: %v", got, want, err)
				}
			}
		})
	}
}

// BenchmarkTwoHopJoin: for 1,000 molecules, molecule -SIO_000008-> descriptor
// -SIO_000300-> value, as per-node index lookups through Store.Match.
func BenchmarkTwoHopJoin(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			s := loadedStore(b, backend)
			ctx := context.Background()
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				got := 0
				for i := 0; i < 1000; i++ {
					err := s.Match(ctx, graph.Pattern{Subject: benchIRI(i * 97), Predicate: bAttr}, func(q quad.Quad) error {
						return s.Match(ctx, graph.Pattern{Subject: q.Object, Predicate: bValue}, func(quad.Quad) error {
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
		})
	}
}

// BenchmarkTwoHopJoinPath is the same join through Cayley's path API and
// its optimizer.
func BenchmarkTwoHopJoinPath(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			s := loadedStore(b, backend)
			ctx := context.Background()
			starts := make([]quad.Value, 1000)
			for i := range starts {
				starts[i] = benchIRI(i * 97)
			}
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				got := 0
				err := s.View(ctx, func(qs cgraph.QuadStore) error {
					return path.StartPath(qs, starts...).Out(bAttr).Out(bValue).Iterate(ctx).EachValue(qs, func(quad.Value) {
						got++
					})
				})
				if err != nil || got != 1000 {
					b.Fatalf("%d results, want 1000: %v", got, err)
				}
			}
		})
	}
}

// BenchmarkListByClass: a page of 30 molecules of the 100k, in IRI order
// (GET /v1/molecules), side by side: "page" is ListByClass (the class
// index on Badger: a seek and 31 keys), "scan" reads every member's type
// quad and keeps the 30 smallest IRIs, as ListByClass did before the index
// (and still does on the memory backend).
func BenchmarkListByClass(b *testing.B) {
	class := quad.IRI(ontology.MG + "Molecule")
	for _, backend := range backends {
		s := loadedStore(b, backend)
		ctx := context.Background()
		b.Run(backend+"/page", func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				after := benchIRI(n * 7919 % (benchResources - 100))
				page, more, err := s.ListByClass(ctx, class, after, 30)
				if err != nil || len(page) != 30 || !more || page[0] <= after {
					b.Fatalf("page of %d after %s (more %v): %v", len(page), after, more, err)
				}
			}
		})
		b.Run(backend+"/scan", func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				after := benchIRI(n * 7919 % (benchResources - 100))
				var page []quad.IRI
				err := s.Match(ctx, graph.Pattern{Predicate: bType, Object: class}, func(q quad.Quad) error {
					if iri, ok := q.Subject.(quad.IRI); ok && q.Label == iri && iri > after {
						page = append(page, iri)
						if len(page) > 60 {
							slices.Sort(page)
							page = page[:31]
						}
					}
					return nil
				})
				if err != nil || len(page) < 30 {
					b.Fatalf("scan: %d, %v", len(page), err)
				}
			}
		})
	}
}
