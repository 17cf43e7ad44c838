package sparql

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// hashJoinData is a graph large enough for lookups to switch to hash joins:
// 1500 subjects linked at random, with values of several kinds (some
// shared, so object joins match), some triples repeated in other graphs,
// some self-loops.
func hashJoinData(rng *rand.Rand) map[string][]quad.Quad {
	const n = 1500
	vals := []quad.Value{
		quad.String("a"), quad.LangString{Value: "a", Lang: "en"}, quad.LangString{Value: "a", Lang: "EN"},
		quad.TypedString{Value: "1", Type: quad.IRI(nsXSD + "integer")},
		quad.TypedString{Value: "01", Type: quad.IRI(nsXSD + "integer")},
		quad.TypedString{Value: "1.0", Type: quad.IRI(nsXSD + "double")},
		quad.TypedString{Value: "a", Type: quad.IRI(nsXSD + "string")},
		iri("v"), quad.BNode("b1"),
	}
	graphs := map[string][]quad.Quad{}
	add := func(q quad.Quad) {
		g := ex + fmt.Sprintf("g%d", rng.Intn(5))
		graphs[g] = append(graphs[g], q)
		if rng.Intn(4) == 0 {
			g2 := ex + fmt.Sprintf("g%d", rng.Intn(5))
			if g2 != g {
				graphs[g2] = append(graphs[g2], q)
			}
		}
	}
	s := func(i int) string { return fmt.Sprintf("s%d", i) }
	for i := 0; i < n; i++ {
		add(tr(s(i), "link", iri(s(rng.Intn(n)))))
		if rng.Intn(3) > 0 {
			add(tr(s(i), "link", iri(s(rng.Intn(n)))))
		}
		var v quad.Value
		if rng.Intn(8) == 0 {
			v = vals[rng.Intn(len(vals))]
		} else {
			v = quad.TypedString{Value: quad.String(fmt.Sprint(rng.Intn(3 * n))), Type: quad.IRI(nsXSD + "integer")}
		}
		add(tr(s(i), "val", v))
		if rng.Intn(5) == 0 {
			add(tr(s(i), "self", iri(s(i))))
		} else if rng.Intn(3) == 0 {
			add(tr(s(i), "self", iri(s(rng.Intn(n)))))
		}
		add(tr(s(i), "kind", iri(fmt.Sprintf("K%d", rng.Intn(3)))))
	}
	return graphs
}

// TestHashJoin compares hash joins (native store, read view) with index
// nested loops (the memory store without its optional interfaces) on joins
// through subjects, objects, repeated variables and constants, and checks
// that hash tables were built.
func TestHashJoin(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	queries := []string{
		"SELECT ?a ?b ?v WHERE { ?a ex:link ?b . ?b ex:val ?v }",
		"SELECT ?a ?b WHERE { ?a ex:val ?v . ?b ex:val ?v . ?a ex:kind ex:K1 }",
		"SELECT ?x ?y WHERE { ?x ex:link ?y . ?y ex:self ?y }",
		"SELECT ?x ?z WHERE { ?x ex:link ?y . ?y ex:self ?z }",
		"SELECT ?a (COUNT(?c) AS ?n) WHERE { ?a ex:link ?b . ?b ex:link ?c } GROUP BY ?a",
		"SELECT ?a ?b WHERE { ?a ex:link ?b . ?b ex:kind ex:K2 }",
		"SELECT ?a ?b ?k WHERE { ?a ex:link ?b . ?b ex:kind ?k . ?a ex:kind ?k }",
		"SELECT ?a ?v WHERE { ?a ex:link ?b . ?b ex:val ?v FILTER(isLiteral(?v) && ?v != \"a\") }",
		"SELECT ?a ?b WHERE { ?a ex:link ?b OPTIONAL { ?b ex:self ?c } FILTER(!BOUND(?c)) }",
	}
	ctx := context.Background()
	for seed := int64(1); seed <= 2; seed++ {
		rng := rand.New(rand.NewSource(seed))
		data := hashJoinData(rng)
		mem := openStore(t, data)
		// native reads Badger (hash joins); cols reads the in-memory
		// columns (index lookups by id, no hash tables).
		native, err := graph.Open(t.TempDir(), graph.Options{ColumnsMaxTriples: -1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { native.Close() })
		cols, err := graph.Open(t.TempDir(), graph.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cols.Close() })
		for g, qs := range data {
			if err := native.PutGraph(ctx, quad.IRI(g), qs); err != nil {
				t.Fatal(err)
			}
			if err := cols.PutGraph(ctx, quad.IRI(g), qs); err != nil {
				t.Fatal(err)
			}
		}
		waitColumns(t, cols)
		for _, q := range queries {
			want := selectStrings(t, plainSource{mem}, prefix+q, Options{})
			if len(want) == 0 {
				t.Fatalf("seed %d: %s: no answers, the data does not exercise it", seed, q)
			}
			for name, src := range map[string]Source{"native": native, "memory": mem, "columns": cols} {
				if got := selectStrings(t, src, prefix+q, Options{}); !reflect.DeepEqual(got, want) {
					t.Errorf("seed %d, %s: %s\nhash join: %d rows %.200v\nnested loops: %d rows %.200v", seed, name, q, len(got), got, len(want), want)
				}
			}
		}
		// A two-hop join over every subject must build hash tables.
		pq, err := Parse(prefix+queries[0], "")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Exec(ctx, native, pq, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := res.All(); err != nil {
			t.Fatal(err)
		}
		built, byID := 0, 0
		for _, h := range res.ex.hashes {
			if h.built {
				built++
			}
			if h.byID != nil {
				byID++
			}
		}
		if built == 0 || byID == 0 {
			t.Errorf("seed %d: %d hash tables built for %s, %d keyed by term id", seed, built, queries[0], byID)
		}
	}
}

// openColumnStore opens an on-disk store holding graphs and waits until its
// read views read the columns (the engine's id-column paths).
func openColumnStore(t testing.TB, graphs map[string][]quad.Quad) *graph.Store {
	t.Helper()
	st := openNativeStore(t, graphs, graph.Options{})
	waitColumns(t, st)
	return st
}

// openNativeStore opens a native store with opts in a temporary directory
// (closed when the test ends) and puts the graphs.
func openNativeStore(t testing.TB, graphs map[string][]quad.Quad, opts graph.Options) *graph.Store {
	t.Helper()
	st, err := graph.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	putGraphs(t, st, graphs)
	return st
}

// waitColumns waits until the store's read views read its columns.
func waitColumns(t testing.TB, st *graph.Store) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := st.ReadView(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ok := v.HasColumns()
		v.Close()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the store's columns were not built")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
