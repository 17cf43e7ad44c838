package sparql

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// TestUnusedVars: only variables occurring once, in a triple pattern, and
// read by nothing but COUNT(?v) are unused.
func TestUnusedVars(t *testing.T) {
	for _, tc := range []struct {
		query  string
		unused []string
	}{
		{"SELECT ?c (COUNT(?s) AS ?n) { ?s a ?c } GROUP BY ?c", []string{"s"}},
		{"SELECT (COUNT(?m) AS ?n) { ?m <http://e/p> ?v FILTER(?v > 3) }", []string{"m"}},
		{"SELECT (COUNT(DISTINCT ?s) AS ?n) { ?s a ?c }", []string{"c"}},
		{"SELECT ?s { ?s a ?c . ?c a ?d }", []string{"d"}},
		{"SELECT * { ?s a ?c }", nil},
		{"SELECT (COUNT(*) AS ?n) { ?s a ?c }", []string{"s", "c"}},
		{"SELECT ?s (COUNT(DISTINCT *) AS ?n) { ?s ?p ?o } GROUP BY ?s", nil},
		{"SELECT ?s { ?s a ?c FILTER(BOUND(?c)) }", nil},
		{"SELECT ?s { ?s a ?c MINUS { ?x a ?c } }", []string{"x"}},
		{"SELECT ?s { ?s <http://e/p>* ?c }", nil},
		{"CONSTRUCT { ?s a ?c } WHERE { ?s a ?c . ?s ?p ?o }", nil},
		{"DESCRIBE ?s WHERE { ?s a ?c }", nil},
		{"SELECT ?s { ?s a ?c { SELECT ?s { ?s ?p ?c } } }", []string{"p"}},
	} {
		q, err := Parse(tc.query, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for v, u := range unusedVars(q) {
			if u {
				got = append(got, q.vars[v])
			}
		}
		if !reflect.DeepEqual(got, tc.unused) {
			t.Errorf("%s: unused %q, want %q", tc.query, got, tc.unused)
		}
	}
}

// TestUnusedVarsCounted: counting an undecoded variable (bound to
// unusedTerm) gives the number of its bindings, on the native store.
func TestUnusedVarsCounted(t *testing.T) {
	var qs []quad.Quad
	want := map[string]int{}
	for i := 0; i < 500; i++ {
		c := fmt.Sprintf("C%d", i%7)
		qs = append(qs, tr(fmt.Sprintf("s%d", i), "type", iri(c)))
		want[c]++
		if i%3 == 0 {
			qs = append(qs, tr(fmt.Sprintf("s%d", i), "note", quad.String("x")))
		}
	}
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for g, gq := range map[quad.IRI][]quad.Quad{"http://g/1": qs, "http://g/2": qs[:100]} {
		if err := st.PutGraph(context.Background(), g, gq); err != nil {
			t.Fatal(err)
		}
	}
	got := selectStrings(t, st, "SELECT ?c (COUNT(?s) AS ?n) (COUNT(?x) AS ?k) { ?s <http://example.org/type> ?c OPTIONAL { ?s <http://example.org/note> ?x } } GROUP BY ?c", Options{})
	var wantRows []string
	notes := map[string]int{}
	for i := 0; i < 500; i += 3 {
		notes[fmt.Sprintf("C%d", i%7)]++
	}
	for i := 0; i < 7; i++ {
		c := fmt.Sprintf("C%d", i)
		wantRows = append(wantRows, fmt.Sprintf(`c=%s> n="%d"^^<http://www.w3.org/2001/XMLSchema#integer> k="%d"^^<http://www.w3.org/2001/XMLSchema#integer>`, c, want[c], notes[c]))
	}
	if !reflect.DeepEqual(got, wantRows) {
		t.Fatalf("got %q\nwant %q", got, wantRows)
	}
}

// TestJoinOnlyVars: variables joined on within one BGP, with constant
// predicates, and read by nothing else.
func TestJoinOnlyVars(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"SELECT ?t (COUNT(?d) AS ?n) { ?m <http://e/a> ?d . ?d <http://e/t> ?t ; <http://e/v> ?v } GROUP BY ?t", []string{"d", "m", "v"}},
		{"SELECT ?t { ?m <http://e/a> ?d . ?d ?p ?t }", []string{"m", "d"}},
		{"SELECT ?t { ?m <http://e/a> ?d . ?d ?d ?t }", []string{"m"}},
		{"SELECT ?t { ?m <http://e/a> ?d . OPTIONAL { ?d <http://e/t> ?t } }", []string{"m"}},
		{"SELECT ?t { ?m <http://e/a> ?d . ?d <http://e/t> ?t FILTER(?d != <http://e/x>) }", []string{"m"}},
		{"SELECT * { ?m <http://e/a> ?d . ?d <http://e/t> ?t }", nil},
	} {
		q, err := Parse(tc.query, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for v, b := range joinOnlyVars(q) {
			if b != nil {
				got = append(got, q.vars[v])
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: join-only %q, want %q", tc.query, got, tc.want)
		}
	}
}
