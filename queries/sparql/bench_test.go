package sparql

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// Benchmarks on 100,000 molecule-like subjects, in the memory store and in
// the native Badger store (graph.Open): each molecule graph has a type, a
// molecular weight, a logP and a link to a calculation; each calculation
// graph has a type and a HOMO energy. Values are deterministic (no
// randomness) so runs compare.

const benchMolecules = 100000

// benchBackends are the stores the benchmarks run on; "native-scan" is the
// native store seen without its NumericRanger (the plan before numeric
// range pushdown).
var benchBackends = []string{"memory", "native", "native-scan"}

type benchLoaded struct {
	once sync.Once
	st   *graph.Store
	err  error
}

var (
	benchStores = map[string]*benchLoaded{"memory": {}, "native": {}}
	benchDir    string
)

// TestMain removes the native benchmark store's directory, which outlives
// single benchmarks.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, l := range benchStores {
		if l.st != nil {
			l.st.Close()
		}
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchValues gives molecule i's molecular weight (100 .. 1000), logP
// (-3 .. 7) and HOMO energy, for benchData and benchExpected.
func benchValues(i int) (mw, logp, homo float64) {
	return 100 + float64((i*7919)%90000)/100,
		-3 + float64((i*104729)%1000)/100,
		-0.4 + float64((i*31)%300)/1000
}

// plainSource hides every method of a Source but the interface's (so no
// NumericRanger).
type plainSource struct{ Source }

func benchData(b *testing.B, backend string) Source {
	name := strings.TrimSuffix(backend, "-scan")
	l := benchStores[name]
	l.once.Do(func() {
		if name == "memory" {
			l.st, l.err = graph.OpenMemory(graph.Options{})
		} else {
			benchDir, l.err = os.MkdirTemp("", "sparql-bench-")
			if l.err == nil {
				l.st, l.err = graph.Open(benchDir, graph.Options{})
			}
		}
		if l.err != nil {
			return
		}
		mg := func(s string) quad.IRI { return quad.IRI(ontology.MG + s) }
		var graphs []graph.NamedGraph
		for i := 0; i < benchMolecules; i++ {
			m := quad.IRI(fmt.Sprintf("http://localhost:8080/molecules/m%06d", i))
			c := quad.IRI(fmt.Sprintf("http://localhost:8080/calculations/c%06d", i))
			mw, logp, homo := benchValues(i)
			graphs = append(graphs,
				graph.NamedGraph{IRI: m, Quads: []quad.Quad{
					{Subject: m, Predicate: rdfType, Object: mg("Molecule")},
					{Subject: m, Predicate: mg("molecularWeight"), Object: ontology.Double(mw)},
					{Subject: m, Predicate: mg("logP"), Object: ontology.Double(logp)},
					{Subject: m, Predicate: mg("hasCalculation"), Object: c},
				}},
				graph.NamedGraph{IRI: c, Quads: []quad.Quad{
					{Subject: c, Predicate: rdfType, Object: mg("Calculation")},
					{Subject: c, Predicate: mg("homoEnergy"), Object: ontology.Double(homo)},
				}})
		}
		l.err = l.st.PutGraphs(context.Background(), graphs, nil)
	})
	if l.err != nil {
		b.Fatal(l.err)
	}
	if strings.HasSuffix(backend, "-scan") {
		return plainSource{l.st}
	}
	return l.st
}

func benchQuery(b *testing.B, query string, wantRows int) {
	for _, backend := range benchBackends {
		b.Run(backend, func(b *testing.B) {
			st := benchData(b, backend)
			q, err := Parse(query, "")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Exec(context.Background(), st, q, Options{})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				if err := res.Solutions(func(Solution) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
				if wantRows >= 0 && n != wantRows {
					b.Fatalf("%d rows, want %d", n, wantRows)
				}
			}
		})
	}
}

// The queries (a), (b), (c), also timed against Oxigraph
// (oxBenchQueries).
const (
	benchQueryFilter = `PREFIX mg: <` + ontology.MG + `>
SELECT ?m WHERE { ?m mg:molecularWeight ?w ; mg:logP ?l . FILTER(?w < 500 && ?l < 5) }`
	benchQueryTwoHop = `PREFIX mg: <` + ontology.MG + `>
SELECT ?m ?h WHERE { ?m a mg:Molecule ; mg:hasCalculation ?c . ?c mg:homoEnergy ?h }`
	benchQueryAggregate = `PREFIX mg: <` + ontology.MG + `>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT ?bucket (COUNT(?m) AS ?n) (AVG(?l) AS ?avgLogP) WHERE {
  ?m mg:molecularWeight ?w ; mg:logP ?l .
  BIND(xsd:integer(?w / 100) AS ?bucket)
} GROUP BY ?bucket`
)

// BenchmarkNumericFilter is the query (a).
func BenchmarkNumericFilter(b *testing.B) { benchQuery(b, benchQueryFilter, -1) }

// BenchmarkTwoHopJoin is query (b): molecule -> calculation -> HOMO.
func BenchmarkTwoHopJoin(b *testing.B) { benchQuery(b, benchQueryTwoHop, benchMolecules) }

// BenchmarkAggregate is query (c): COUNT and AVG per molecular-weight bucket.
func BenchmarkAggregate(b *testing.B) { benchQuery(b, benchQueryAggregate, 9) }
