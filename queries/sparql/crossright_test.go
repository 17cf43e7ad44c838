package sparql

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// TestCrossProductRightSide: a right side (OPTIONAL, EXISTS, NOT EXISTS,
// a joined group) whose patterns share no variable, like
// OPTIONAL { ?b ex:val ?x . ?a ex:kind ?k } after a left side binding ?a
// and ?b, is a cross product alone (1,500 x 1,500 solutions here) and two
// lookups per left solution. It used to be evaluated alone, up to the
// memory budget, before the lookups went on (seconds here, minutes on
// larger data). The work is counted, not timed: the solutions evaluated
// alone stay within a small multiple of the data; the answers are the
// substituted evaluation's (hashed joins off) and, for the OPTIONAL count,
// a count computed here from the triples.
func TestCrossProductRightSide(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	queries := []string{
		"SELECT (COUNT(*) AS ?n) WHERE { ?a ex:link ?b OPTIONAL { ?b ex:val ?x . ?a ex:kind ?k } }",
		"SELECT ?a ?b ?x ?k WHERE { ?a ex:link ?b OPTIONAL { ?b ex:self ?x . ?a ex:kind ?k } }",
		"SELECT ?a ?b WHERE { ?a ex:link ?b FILTER EXISTS { ?b ex:self ?x . ?a ex:self ?y } }",
		"SELECT ?a ?b WHERE { ?a ex:link ?b FILTER NOT EXISTS { ?b ex:self ?x . ?a ex:self ?y } }",
		"SELECT ?a ?b ?x WHERE { ?a ex:link ?b { ?b ex:self ?x } { ?a ex:kind ex:K1 } }",
		"SELECT ?a ?b ?x WHERE { ?a ex:link ?b OPTIONAL { { ?b ex:self ?x } { ?a ex:kind ?k } } }",
	}
	ctx := context.Background()
	data := hashJoinData(rand.New(rand.NewSource(7)))
	mem := openStore(t, data)
	cols, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cols.Close() })
	native, err := graph.Open(t.TempDir(), graph.Options{ColumnsMaxTriples: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { native.Close() })
	distinct := map[quad.Quad]bool{}
	for g, qs := range data {
		for _, s := range []*graph.Store{cols, native} {
			if err := s.PutGraph(ctx, quad.IRI(g), qs); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range qs {
			distinct[quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}] = true
		}
	}
	waitColumns(t, cols)

	// The first query's count from the triples: each link (a, b) with
	// vals(b) * kinds(a) solutions, or one when that is 0.
	objs := map[[2]quad.Value]int{}
	var links [][2]quad.Value
	for q := range distinct {
		objs[[2]quad.Value{q.Subject, q.Predicate}]++
		if q.Predicate == iri("link") {
			links = append(links, [2]quad.Value{q.Subject, q.Object})
		}
	}
	count := 0
	for _, l := range links {
		count += max(1, objs[[2]quad.Value{l[1], iri("val")}]*objs[[2]quad.Value{l[0], iri("kind")}])
	}
	wantCount := fmt.Sprintf(`n="%d"^^<http://www.w3.org/2001/XMLSchema#integer>`, count)

	for i, qs := range queries {
		q, err := Parse(prefix+qs, "")
		if err != nil {
			t.Fatal(err)
		}
		want := selectStrings(t, plainSource{mem}, prefix+qs, Options{noHashedRight: true})
		if len(want) == 0 {
			t.Fatalf("%s: no answers, the data does not exercise it", qs)
		}
		if i == 0 && !reflect.DeepEqual(want, []string{wantCount}) {
			t.Fatalf("%s: substituted %v, counted from the triples %s", qs, want, wantCount)
		}
		for name, src := range map[string]Source{"memory": plainSource{mem}, "native": native, "columns": cols} {
			res, err := Exec(ctx, src, q, Options{Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			sols, err := res.All()
			if err != nil {
				t.Fatalf("%s: %s: %v", name, qs, err)
			}
			if got := solutionStrings(res, sols); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s\ngot %d rows %.200v\nwant %d rows %.200v", name, qs, len(got), got, len(want), want)
			}
			if res.ex.aloneRows > 2*len(distinct) {
				t.Errorf("%s: %s: %d solutions of right sides evaluated alone (%d triples)", name, qs, res.ex.aloneRows, len(distinct))
			}
		}
	}
}

// solutionStrings formats solutions as selectStrings does.
func solutionStrings(res *Result, sols []Solution) []string {
	var out []string
	for _, s := range sols {
		var parts []string
		for i, v := range s {
			if v != nil {
				parts = append(parts, res.Vars[i]+"="+strings.TrimPrefix(ntTerm(v), "<"+ex))
			}
		}
		out = append(out, strings.Join(parts, " "))
	}
	sort.Strings(out)
	return out
}

// TestExistsIDs: EXISTS and NOT EXISTS whose pattern shares only a
// shared id variable with the outer solutions are answered from a set of
// ids (existsIDs), also when a solution of the pattern leaves it unbound
// (compatible with everything) and within a budget too small for the set
// (the general paths then); answers as with substitution.
func TestExistsIDs(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	cases := []struct {
		q     string
		ids   bool // answered from an id set
		empty bool // no answer (else there must be some)
	}{
		{"SELECT ?a ?k WHERE { ?a ex:kind ?k FILTER NOT EXISTS { ?a ex:self ?x } }", true, false},
		{"SELECT ?a ?k WHERE { ?a ex:kind ?k FILTER EXISTS { ?a ex:link ?x . ?x ex:kind ex:K2 } }", true, false},
		{"SELECT (COUNT(?a) AS ?n) WHERE { ?a ex:kind ?k OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x)) }", true, false},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 FILTER EXISTS { { ?a ex:self ?x } UNION { ?y ex:kind ex:K0 } } }", true, false},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 FILTER NOT EXISTS { { ?a ex:self ?x } UNION { ?y ex:kind ex:K0 } } }", true, true},
		// One pattern: a seek in the column per row (existsCursor),
		// with a constant other end, by object, none stored.
		{"SELECT ?a WHERE { ?a ex:kind ?k FILTER EXISTS { ?a ex:self ex:s3 } }", true, true},
		{"SELECT ?a ?k WHERE { ?a ex:kind ?k FILTER NOT EXISTS { ?a ex:kind ex:K1 } }", true, false},
		{"SELECT ?b WHERE { ?a ex:link ?b FILTER NOT EXISTS { ?x ex:self ?b } }", false, false}, // ?b no shared id (an object)
		{"SELECT ?a WHERE { ?a ex:kind ?k FILTER NOT EXISTS { ?a ex:nothing ?x } }", false, false},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 FILTER NOT EXISTS { ?x ex:link ?a } }", true, false},
		{"SELECT ?a WHERE { ?a ex:kind ?k FILTER EXISTS { ?a ex:self ?a } }", true, false},
		// ?k is bound outside too: two shared variables, not by ids.
		{"SELECT ?a ?k WHERE { ?a ex:kind ?k FILTER NOT EXISTS { ?a ex:link ?x . ?x ex:kind ?k } }", false, false},
	}
	ctx := context.Background()
	data := hashJoinData(rand.New(rand.NewSource(11)))
	mem := openStore(t, data)
	cols := openColumnStore(t, data)
	for _, tc := range cases {
		want := selectStrings(t, plainSource{mem}, prefix+tc.q, Options{noHashedRight: true})
		if (len(want) == 0) != tc.empty || len(want) == 1 && strings.HasSuffix(want[0], `"0"^^<http://www.w3.org/2001/XMLSchema#integer>`) {
			t.Fatalf("%s: no answers, the data does not exercise it", tc.q)
		}
		q, err := Parse(prefix+tc.q, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int64{0, 16 << 10} {
			res, err := Exec(ctx, cols, q, Options{MaxMemory: budget})
			if err != nil {
				t.Fatal(err)
			}
			sols, err := res.All()
			if err != nil {
				t.Fatalf("%s (budget %d): %v", tc.q, budget, err)
			}
			if got := solutionStrings(res, sols); !reflect.DeepEqual(got, want) {
				t.Errorf("%s (budget %d):\ngot %d rows %.200v\nwant %d rows %.200v", tc.q, budget, len(got), got, len(want), want)
			}
			built := 0 // id sets built or column cursors read
			for _, st := range res.ex.idSets {
				if st.built {
					built++
				}
			}
			for _, c := range res.ex.cursors {
				if c.c != nil {
					built++
				}
			}
			if budget == 0 && (built > 0) != tc.ids {
				t.Errorf("%s: %d id sets built, want them %v", tc.q, built, tc.ids)
			}
		}
	}
}
