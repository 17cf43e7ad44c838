package sparql

import (
	"context"
	"math/rand"
	"reflect"
	"testing"
)

// TestNotBoundRewrite compares OPTIONAL { P } FILTER(!BOUND(?v)) evaluated
// as FILTER NOT EXISTS { P } (notbound.go) with the left join (the same
// engine with the rewrite off) on the memory store and the native one with
// columns, for the forms that are rewritten and those that must not be,
// and checks which are.
func TestNotBoundRewrite(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	cases := []struct {
		query     string
		rewritten bool
		empty     bool // the answer is empty (else it must not be)
	}{
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x)) }", true, false},
		// Query 23's shape: a filter placed on the left side, COUNT.
		{"SELECT (COUNT(?a) AS ?n) WHERE { ?a ex:kind ?k ; ex:val ?w FILTER(isNumeric(?w) && ?w > 1000) OPTIONAL { ?a ex:self ?x } FILTER(!bound(?x)) }", true, false},
		// A conjunct of a condition.
		{"SELECT ?a ?k WHERE { ?a ex:kind ?k OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x) && ?k != ex:K0) }", true, false},
		{"SELECT ?a ?k WHERE { ?a ex:kind ?k OPTIONAL { ?a ex:self ?x } FILTER(?k != ex:K2 && (?k != ex:K0 && !BOUND(?x))) }", true, false},
		// Another variable of P, unused, projected, or bound on the
		// left: equal (see notbound.go).
		{"SELECT ?a WHERE { ?a ex:kind ex:K0 OPTIONAL { ?a ex:link ?b . ?b ex:self ?x } FILTER(!BOUND(?x)) }", true, false},
		{"SELECT ?a ?b WHERE { ?a ex:kind ex:K0 OPTIONAL { ?a ex:link ?b . ?b ex:self ?x } FILTER(!BOUND(?x)) }", true, false},
		{"SELECT ?a ?b WHERE { ?a ex:link ?b OPTIONAL { ?b ex:self ?x . ?b ex:kind ex:K1 } FILTER(!BOUND(?x) && ?b != ?a) }", true, false},
		// P sharing no variable: matching somewhere or nowhere.
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?y ex:self ex:s1 } FILTER(!BOUND(?y)) }", true, true},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?y ex:self ex:nothing } FILTER(!BOUND(?y)) }", true, false},
		// Inside GRAPH and in a nested group.
		{"SELECT ?g ?a WHERE { GRAPH ?g { ?a ex:kind ex:K2 OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x)) } }", true, false},
		{"SELECT ?a ?c WHERE { ?a ex:link ?c { ?c ex:kind ex:K2 OPTIONAL { ?c ex:self ?x } FILTER(!BOUND(?x)) } }", true, false},
		// Not rewritten: ?v projected, ordered on, read by another
		// filter, under || or a second !, bound on the left.
		{"SELECT ?a ?x WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x)) }", false, false},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x)) } ORDER BY ?x", false, false},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x)) FILTER(!isLiteral(?x)) }", false, true},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x) || ?x != ?a) }", false, false},
		{"SELECT ?a ?k WHERE { ?a ex:kind ?k OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x) || ?k = ex:K0) }", false, false},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x } FILTER(!(!BOUND(?x))) }", false, false},
		{"SELECT ?a WHERE { ?a ex:self ?x OPTIONAL { ?x ex:self ?a } FILTER(!BOUND(?x)) }", false, true},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x } FILTER(!BOUND(?x)) { SELECT ?x WHERE { ?x ex:kind ex:K0 } LIMIT 3 } }", false, true},
		// Not rewritten: P not one plain BGP (nested OPTIONAL, UNION,
		// a path, a filter inside), a pattern after the OPTIONAL.
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:link ?b OPTIONAL { ?b ex:self ?x } } FILTER(!BOUND(?x)) }", false, false},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { { ?a ex:self ?x } UNION { ?a ex:link ?x } } FILTER(!BOUND(?x)) }", false, true},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self+ ?x } FILTER(!BOUND(?x)) }", false, false},
		{"SELECT ?a WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x FILTER(?x != ?a) } FILTER(!BOUND(?x)) }", false, false},
		{"SELECT ?a ?b WHERE { ?a ex:kind ex:K1 OPTIONAL { ?a ex:self ?x } ?a ex:link ?b FILTER(!BOUND(?x)) }", false, false},
	}
	ctx := context.Background()
	data := hashJoinData(rand.New(rand.NewSource(7)))
	mem := openStore(t, data)
	cols := openColumnStore(t, data)
	for _, tc := range cases {
		q, err := Parse(prefix+tc.query, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		ex := newExec(ctx, plainSource{mem}, q, Options{})
		rewritten := false
		var walk func(n node)
		walk = func(n node) {
			switch x := n.(type) {
			case *nFilter:
				if ex.rewriteNotBound(x) != nil {
					rewritten = true
				}
				walk(x.p)
			case *nJoin:
				walk(x.l)
				walk(x.r)
			case *nLeftJoin:
				walk(x.l)
				walk(x.r)
			case *nGraph:
				walk(x.p)
			}
		}
		walk(q.sel.where)
		if rewritten != tc.rewritten {
			t.Errorf("%s: rewritten %v, want %v", tc.query, rewritten, tc.rewritten)
		}
		want := selectStrings(t, plainSource{mem}, prefix+tc.query, Options{noNotBound: true})
		if (len(want) == 0) != tc.empty || len(want) == 1 && want[0] == `n="0"^^<http://www.w3.org/2001/XMLSchema#integer>` {
			t.Errorf("%s: %d answers %.100v, the data does not exercise it", tc.query, len(want), want)
		}
		for name, src := range map[string]Source{"memory": plainSource{mem}, "columns": cols} {
			if got := selectStrings(t, src, prefix+tc.query, Options{}); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s\nrewritten: %d rows %.300v\nleft join: %d rows %.300v", name, tc.query, len(got), got, len(want), want)
			}
		}
	}
}
