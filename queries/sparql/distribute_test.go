package sparql

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// TestDistributeJoinOverUnion checks the rewrite of a BGP joined with a
// UNION into the UNION's branches (distribute.go): where it applies and
// where it must not, and that the answers equal those of the same query
// with the BGP wrapped in a sub-select (which the rewrite leaves alone,
// so it is evaluated as written), on the memory store, the native store
// and the native store with columns and folded values.
func TestDistributeJoinOverUnion(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	cases := []struct {
		bgp, union string
		applies    bool
	}{
		{"?a ex:kind ?k", `{ ?a ex:val ?v FILTER(?v > 1000) BIND("big" AS ?r) } UNION { ?a ex:val ?v FILTER(?v < 100) BIND("small" AS ?r) }`, true},
		{"?a ex:kind ex:K1 . ?a ex:val ?w", `{ ?a ex:link ?b } UNION { ?a ex:self ?b } UNION { ?b ex:link ?a }`, true},
		{"?a ex:val ?v", `{ ?a ex:self ?a } UNION { ?a ex:link ?b . ?b ex:val ?v }`, true},
		{"?a ex:kind ?k", `{ ?a ex:val ?v FILTER(isLiteral(?v) && STR(?v) = "a") } UNION { ?a ex:self ?c FILTER(?c != ?a) }`, true},
		// Not applied: a filter or BIND reading the BGP's variable, a
		// BIND of a variable the BGP binds, EXISTS, an OPTIONAL branch.
		{"?a ex:kind ?k", `{ ?a ex:link ?b FILTER(?k = ex:K1) } UNION { ?a ex:self ?b }`, false},
		{"?a ex:kind ?k", `{ ?a ex:link ?b BIND(?k AS ?w) } UNION { ?a ex:self ?w }`, false},
		{"?a ex:kind ?k", `{ ?a ex:link ?b BIND(ex:K1 AS ?k) } UNION { ?a ex:self ?b }`, false},
		{"?a ex:kind ?k", `{ ?a ex:link ?b FILTER NOT EXISTS { ?b ex:kind ?k } } UNION { ?a ex:self ?b }`, false},
		{"?a ex:kind ?k", `{ ?a ex:link ?b OPTIONAL { ?b ex:val ?v } } UNION { ?a ex:self ?b }`, false},
	}
	ctx := context.Background()
	data := hashJoinData(rand.New(rand.NewSource(11)))
	// Without "a"@EN beside "a"@en, nor "a"^^xsd:string beside "a": a
	// join of groups compares terms by sameTerm (which takes each pair
	// as one term), a BGP's join by the term as stored, so the two forms
	// differ on such pairs alone (see distribute.go).
	for g, qs := range data {
		kept := qs[:0]
		for _, q := range qs {
			l, lang := q.Object.(quad.LangString)
			ts, typed := q.Object.(quad.TypedString)
			if lang && l.Lang != strings.ToLower(l.Lang) || typed && ts.Type == quad.IRI(nsXSD+"string") {
				continue
			}
			kept = append(kept, q)
		}
		data[g] = kept
	}
	mem := openStore(t, data)
	native := openNativeStore(t, data, graph.Options{ColumnsMaxTriples: -1})
	cols := openColumnStore(t, data)
	if err := cols.BuildValues(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, head := range []string{"SELECT * WHERE", "SELECT (COUNT(?a) AS ?n) (SAMPLE(?a) AS ?s) WHERE"} {
			q := prefix + head + " { " + c.bgp + " " + c.union + " }"
			pq, err := Parse(q, "")
			if err != nil {
				t.Fatal(q, err)
			}
			_, isUnion := pq.sel.where.(*nUnion)
			if isUnion != c.applies {
				t.Errorf("%s: rewritten %v, want %v", q, isUnion, c.applies)
			}
			if strings.Contains(head, "SAMPLE") {
				// SAMPLE is any value: only the count is compared.
				q = strings.Replace(q, "(SAMPLE(?a) AS ?s) ", "", 1)
			}
			oracle := prefix + strings.Replace(head, "(SAMPLE(?a) AS ?s) ", "", 1) + " { { SELECT * WHERE { " + c.bgp + " } } " + c.union + " }"
			want := selectStrings(t, mem, oracle, Options{})
			if len(want) == 0 || want[0] == "n="+`"0"^^<http://www.w3.org/2001/XMLSchema#integer>` {
				t.Fatalf("%s: no answers, the data does not exercise it", oracle)
			}
			for name, src := range map[string]Source{"memory": mem, "native": native, "columns": cols} {
				if got := selectStrings(t, src, q, Options{}); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s\n got %d rows %.300v\nwant %d rows %.300v", name, q, len(got), got, len(want), want)
				}
			}
		}
	}
}

// TestVariableTwiceInPattern checks a pattern that repeats a variable
// ("?a ex:self ?a") where the variable is bound without its term (only
// counted, or joined on inside the BGP): the columns' scan must compare
// the two ids (it compared two placeholders, which are always equal, and
// counted every ex:self triple).
func TestVariableTwiceInPattern(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	data := hashJoinData(rand.New(rand.NewSource(3)))
	mem := openStore(t, data)
	cols := openColumnStore(t, data)
	// Counted from the data: subjects with a self-link and a value.
	self, val := map[quad.Value]bool{}, map[quad.Value]int{}
	seen := map[quad.Quad]bool{}
	for _, qs := range data {
		for _, q := range qs {
			q.Label = nil
			if seen[q] {
				continue
			}
			seen[q] = true
			switch q.Predicate {
			case iri("self"):
				if q.Subject == q.Object {
					self[q.Subject] = true
				}
			case iri("val"):
				val[q.Subject]++
			}
		}
	}
	n := 0
	for s := range self {
		n += val[s]
	}
	if n == 0 {
		t.Fatal("the data has no self-link with a value")
	}
	want := []string{fmt.Sprintf(`n="%d"^^<http://www.w3.org/2001/XMLSchema#integer>`, n)}
	for _, q := range []string{
		"SELECT (COUNT(?a) AS ?n) WHERE { ?a ex:val ?v . ?a ex:self ?a }",
		"SELECT (COUNT(*) AS ?n) WHERE { ?a ex:self ?a . ?a ex:val ?v }",
	} {
		for name, src := range map[string]Source{"memory": mem, "columns": cols} {
			if got := selectStrings(t, src, prefix+q, Options{}); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s: %v, want %v", name, q, got, want)
			}
		}
	}
}

// TestCountDistinctSubjects checks COUNT(DISTINCT ?v) of a subject-only
// variable, counted by id (unused.go), against the memory store's
// decoded count, with a triple in two named graphs, the variable in a
// UNION bound by both branches, and a variable that is also an object
// (decoded).
func TestCountDistinctSubjects(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	data := hashJoinData(rand.New(rand.NewSource(7)))
	mem := openStore(t, data)
	cols := openColumnStore(t, data)
	for _, q := range []string{
		"SELECT ?k (COUNT(DISTINCT ?a) AS ?n) WHERE { ?a ex:kind ?k } GROUP BY ?k",
		"SELECT (COUNT(DISTINCT ?a) AS ?n) (COUNT(?a) AS ?m) WHERE { { ?a ex:link ?b } UNION { ?a ex:self ?b } }",
		"SELECT (COUNT(DISTINCT ?a) AS ?n) WHERE { ?a ex:link ?b . ?c ex:self ?a }",
		"SELECT ?k (COUNT(DISTINCT ?b) AS ?n) WHERE { ?a ex:kind ?k ; ex:link ?b } GROUP BY ?k",
	} {
		want := selectStrings(t, mem, prefix+q, Options{})
		if got := selectStrings(t, cols, prefix+q, Options{}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}

// TestVariablePredicateColumns checks patterns with an unbound variable
// predicate read from the columns, predicate by predicate
// (matchAnyPredicate), against the memory store.
func TestVariablePredicateColumns(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	ctx := context.Background()
	data := hashJoinData(rand.New(rand.NewSource(9)))
	mem := openStore(t, data)
	cols := openColumnStore(t, data)
	if err := cols.BuildValues(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
		"SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p",
		"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }",
		"SELECT DISTINCT ?p WHERE { ?s ?p ?o }",
		"SELECT ?p ?o WHERE { ex:s7 ?p ?o }",
		"SELECT ?s ?p WHERE { ?s ?p ex:s7 }",
		"SELECT ?s ?p ?o WHERE { ?s ex:kind ex:K1 ; ?p ?o FILTER(isLiteral(?o) && ?o > 4000) }",
		"SELECT ?p (SUM(?o) AS ?t) WHERE { ?s ?p ?o FILTER(isNumeric(?o)) } GROUP BY ?p",
		"SELECT ?s WHERE { ?s ?p ?s }",
		"SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?o ?q ?s }",
	} {
		want := selectStrings(t, mem, prefix+q, Options{})
		if len(want) == 0 {
			t.Fatalf("%s: no answers", q)
		}
		if got := selectStrings(t, cols, prefix+q, Options{}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %d %.300v\nwant %d %.300v", q, len(got), got, len(want), want)
		}
	}
}
