package sparql

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// memoryStore holds n subjects, each with a 1 KiB literal (<p>), a link to
// the next subject (<next>, a chain for paths) and an integer (<n>).
func memoryStore(t testing.TB, n int) Source {
	return fillStore(t, openStore(t, nil), n)
}

// fillStore adds memoryStore's data to st.
func fillStore(t testing.TB, st *graph.Store, n int) Source {
	var qs []quad.Quad
	pad := strings.Repeat("x", 1000)
	for i := 0; i < n; i++ {
		s := quad.IRI(fmt.Sprintf("http://e/s%d", i))
		qs = append(qs,
			quad.Quad{Subject: s, Predicate: quad.IRI("http://e/p"), Object: quad.String(fmt.Sprintf("%s%06d", pad, i))},
			quad.Quad{Subject: s, Predicate: quad.IRI("http://e/next"), Object: quad.IRI(fmt.Sprintf("http://e/s%d", i+1))},
			quad.Quad{Subject: s, Predicate: quad.IRI("http://e/n"), Object: quad.TypedString{Value: quad.String(fmt.Sprint(i % 7)), Type: xsdInteger}})
	}
	if err := st.PutGraph(context.Background(), "http://e/g", qs); err != nil {
		t.Fatal(err)
	}
	return st
}

func runAll(src Source, query string, opts Options) error {
	res, err := Run(context.Background(), src, query, "", opts)
	if err != nil {
		return err
	}
	switch res.Form {
	case Select:
		_, err = res.All()
	case Construct, Describe:
		_, err = res.Quads()
	}
	return err
}

// TestMemoryBudget: each kind of table the budget covers refuses a query
// over 1 MiB (about 2,000 rows of 1 KiB here) with ErrMemoryLimit naming
// the budget, and the same query runs within a budget that fits it.
func TestMemoryBudget(t *testing.T) {
	src := memoryStore(t, 2000)
	mib := Options{MaxMemory: 1 << 20, MaxLiteral: 16 << 20}
	for _, tc := range []struct {
		name, query string
		budget      int64
	}{
		{"order by", "SELECT ?s ?o WHERE { ?s <http://e/p> ?o } ORDER BY ?o", 1 << 20},
		{"order by key", "SELECT ?s WHERE { ?s <http://e/n> ?o } ORDER BY DESC(CONCAT(STR(?s), STR(?o)))", 100 << 10},
		{"group by", "SELECT ?o (COUNT(*) AS ?c) WHERE { ?s <http://e/p> ?o } GROUP BY ?o LIMIT 1", 1 << 20},
		{"group_concat", "SELECT (GROUP_CONCAT(?o) AS ?g) WHERE { ?s <http://e/p> ?o }", 1 << 20},
		{"count distinct", "SELECT (COUNT(DISTINCT ?o) AS ?c) WHERE { ?s <http://e/p> ?o }", 1 << 20},
		{"distinct", "SELECT DISTINCT ?o WHERE { ?s <http://e/p> ?o } LIMIT 1990", 1 << 20},
		{"sub-select", "SELECT ?s WHERE { ?s <http://e/n> 3 . { SELECT ?s ?o WHERE { ?s <http://e/p> ?o } } } LIMIT 1", 1 << 20},
		{"minus", "SELECT ?s WHERE { ?s <http://e/n> 3 MINUS { ?s <http://e/p> ?o } }", 1 << 20},
		{"construct", "CONSTRUCT { ?s <http://e/q> ?o } WHERE { ?s <http://e/p> ?o }", 1 << 20},
		{"describe", "DESCRIBE ?s WHERE { ?s <http://e/n> ?n }", 1 << 20},
		{"path", "SELECT (COUNT(?x) AS ?c) WHERE { <http://e/s0> <http://e/next>* ?x }", 100 << 10},
		{"path all", "SELECT (COUNT(*) AS ?c) WHERE { ?x <http://e/next>+ <http://e/s1999> }", 100 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := mib
			opts.MaxMemory = tc.budget
			err := runAll(src, tc.query, opts)
			if !errors.Is(err, ErrMemoryLimit) || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", tc.budget)) {
				t.Fatalf("%d byte budget: %v", tc.budget, err)
			}
			opts.MaxMemory = 64 << 20
			if err := runAll(src, tc.query, opts); err != nil {
				t.Fatalf("64 MiB budget: %v", err)
			}
		})
	}
}

// TestMemoryBudgetHashJoin: a hash table that does not fit the budget is
// not built; the join keeps its index lookups and gives the same answer.
func TestMemoryBudgetHashJoin(t *testing.T) {
	src := memoryStore(t, 3000)
	q := "SELECT (COUNT(*) AS ?c) WHERE { ?s <http://e/n> ?n . ?s <http://e/p> ?o }"
	for _, budget := range []int64{-1, 256 << 10} {
		got := selectStrings(t, src, q, Options{MaxMemory: budget})
		if len(got) != 1 || got[0] != `c="3000"^^<http://www.w3.org/2001/XMLSchema#integer>` {
			t.Fatalf("budget %d: %v", budget, got)
		}
	}
}

// TestMemoryBudgetBoundsHeap: sorting 20,000 rows of 1 KiB holds ~24 MiB
// without a budget; with a 2 MiB budget the query is refused having
// allocated a fraction of that.
func TestMemoryBudgetBoundsHeap(t *testing.T) {
	// The native store decodes every value it returns, so the rows a sort
	// holds are the query's own memory (the memory store shares them).
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	src := fillStore(t, st, 20000)
	q := "SELECT ?s ?o WHERE { ?s <http://e/p> ?o } ORDER BY ?o"
	measure := func(opts Options) (uint64, error) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := runAll(src, q, opts)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, err
	}
	unbounded, err := measure(Options{MaxMemory: -1})
	if err != nil {
		t.Fatal(err)
	}
	bounded, err := measure(Options{MaxMemory: 2 << 20})
	if !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("2 MiB budget: %v", err)
	}
	t.Logf("allocated %d MiB without a budget, %d MiB with 2 MiB", unbounded>>20, bounded>>20)
	if unbounded < 20<<20 || bounded > unbounded/4 {
		t.Fatalf("allocated %d bytes without a budget, %d with one", unbounded, bounded)
	}
	// With a LIMIT the sort keeps the first rows only (top-k): the same
	// sort fits the 2 MiB budget and gives the smallest value.
	sols := selectStrings(t, src, q+" LIMIT 2", Options{MaxMemory: 2 << 20})
	all := selectStrings(t, src, q, Options{MaxMemory: -1})
	if len(sols) != 2 || len(all) != 20000 {
		t.Fatalf("top-k: %d rows, full sort %d", len(sols), len(all))
	}
	if !strings.Contains(sols[0], "000000\"") || !strings.Contains(sols[1], "000001\"") {
		t.Fatalf("top-k: %q", sols)
	}
}

// TestDescribeVariable: DESCRIBE ?x WHERE { ... } describes the resources
// bound to ?x (it described nothing: ?x was not projected).
func TestDescribeVariable(t *testing.T) {
	src := memoryStore(t, 10)
	res, err := Run(context.Background(), src, "DESCRIBE ?s WHERE { ?s <http://e/n> 3 }", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := res.Quads()
	// s3 alone has n = 3 among s0..s9: its three triples.
	if err != nil || len(qs) != 3 || qs[0].Subject != quad.IRI("http://e/s3") {
		t.Fatalf("%v %v", qs, err)
	}
}
