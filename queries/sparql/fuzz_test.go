package sparql

import (
	"context"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// FuzzParse checks that no input makes the parser (or the evaluation of a
// query it accepts) panic, and that no accepted query is nested deeper
// than MaxDepth. The seed corpus covers the grammar's main productions;
// testdata/fuzz/FuzzParse adds deep nesting of every construct and large
// sizes; more seeds are the W3C syntax tests (read by TestW3CSyntax).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT * WHERE { ?s ?p ?o }`,
		`PREFIX : <http://e/> BASE <http://b/> SELECT DISTINCT ?s (COUNT(?o) AS ?n) FROM <g> FROM NAMED <h> WHERE { ?s :p/:q* ?o ; ^:r [ :s ( 1 2.5 3e1 "x"@en ) ] . FILTER(?o > 3 && regex(str(?s), "^a", "i")) } GROUP BY ?s HAVING (COUNT(?o) > 1) ORDER BY DESC(?n) LIMIT 10 OFFSET 2`,
		`ASK { GRAPH ?g { ?s !(<p>|^<q>) ?o } MINUS { ?s <x> ?y } OPTIONAL { ?s <y> ?z FILTER NOT EXISTS { ?z <w> 1 } } }`,
		`CONSTRUCT { ?s <p> _:b } WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 1 } UNION { BIND(IRI("x") AS ?s) } }`,
		`CONSTRUCT WHERE { ?s ?p ?o }`,
		`DESCRIBE <http://e/x> ?y WHERE { ?y <p> ?z } VALUES ?z { 1 UNDEF }`,
		`SELECT (GROUP_CONCAT(DISTINCT ?x; SEPARATOR=";") AS ?g) (IF(BOUND(?x), COALESCE(?x, 1), <http://www.w3.org/2001/XMLSchema#integer>("2")) AS ?h) {}`,
		"SELECT * { ?s ?p '''long\nstring''' . ?s ?p \"\\u0041\" }",
		`SELECT ?x { ?x <p> ?y FILTER(?y IN (1, 2) && ?y NOT IN (3) && -?y < +4 && !sameTerm(?x, ?y)) }`,
	} {
		f.Add(s)
	}
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	err = st.PutGraph(ctx, "http://e/g", []quad.Quad{
		{Subject: quad.IRI("http://e/a"), Predicate: quad.IRI("http://e/p"), Object: quad.IRI("http://e/b")},
		{Subject: quad.IRI("http://e/b"), Predicate: quad.IRI("http://e/p"), Object: quad.TypedString{Value: "2", Type: xsdInteger}},
		{Subject: quad.IRI("http://e/b"), Predicate: quad.IRI("http://e/q"), Object: quad.LangString{Value: "x", Lang: "en"}},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, query string) {
		q, err := Parse(query, "http://e/base")
		if err != nil {
			return
		}
		if d := trueDepth(q); d > MaxDepth {
			t.Fatalf("accepted a query %d levels deep (MaxDepth %d)", d, MaxDepth)
		}
		res, err := Exec(ctx, st, q, Options{Timeout: 200 * time.Millisecond, MaxRows: 100})
		if err != nil {
			return
		}
		switch q.Form() {
		case Select:
			_, _ = res.All()
		case Construct, Describe:
			_, _ = res.Quads()
		}
	})
}
