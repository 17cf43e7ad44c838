package sparql

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestSharedIDVars: which variables the analysis binds to ids across BGPs
// (shared.go).
func TestSharedIDVars(t *testing.T) {
	const p = "PREFIX : <http://e/> "
	for _, tc := range []struct {
		query string
		want  []string
	}{
		// The bench's shapes: NOT EXISTS, MINUS, OPTIONAL + COUNT(DISTINCT).
		{"SELECT (COUNT(?m) AS ?n) { ?m a :M . FILTER NOT EXISTS { ?c :species ?m } }", []string{"m"}},
		{"SELECT (COUNT(?m) AS ?n) { ?m :mw ?mw . FILTER(?mw < 5) MINUS { ?m :rot ?r } }", []string{"m"}},
		{"SELECT (COUNT(DISTINCT ?m) AS ?n) (COUNT(?g) AS ?k) { ?m a :M ; :h ?h FILTER(?h < 3) OPTIONAL { ?c :species ?m ; :gap ?g } }", []string{"m"}},
		{"SELECT ?m ?x { ?m :p ?x { ?m :q ?y } }", []string{"m"}}, // a join of groups, subject on both sides
		// Object-only on an unguarded side: literals could meet literals.
		{"SELECT ?v { { ?a :p ?v } UNION { ?b :q ?v } }", nil},
		{"SELECT ?v { ?a :p ?v { ?b :q ?v } }", nil},
		{"SELECT ?v { ?a :p ?v OPTIONAL { ?b :q ?v } }", nil},
		{"SELECT ?m { ?a :p ?m OPTIONAL { ?m :q ?y } }", nil}, // subject only on the guarded side
		{"SELECT ?m { ?x :r ?z OPTIONAL { ?m :p ?y } OPTIONAL { ?c :q ?m } }", nil},
		{"SELECT ?m { ?m :p ?y FILTER EXISTS { ?c :q ?m } }", []string{"m"}},
		{"SELECT ?m { ?m :p ?y OPTIONAL { ?m :z ?w } FILTER EXISTS { ?c :q ?w } }", []string{"m"}}, // ?w: not certain
		// Read elsewhere than by decoding readers, or not from columns.
		{"SELECT ?m { ?m :p ?y { ?m :q ?z } BIND(?m AS ?k) }", []string{"m"}},
		{"SELECT ?m { ?m :p ?y { ?m :q ?z } VALUES ?m { :a } }", nil},
		{"SELECT DISTINCT ?m { ?m :p ?y { ?m :q ?z } }", nil},
		{"SELECT ?m { ?m :p ?y { ?m ?pp ?z } }", []string{"m"}},
		{"SELECT ?m { ?m :p ?y { ?m ?m ?z } }", nil},
		{"SELECT ?m { ?m :p ?y { ?m :q* ?z } }", nil},
		{"SELECT ?m { ?m :p ?y GRAPH ?g { ?m :q ?z } }", nil},
		{"SELECT ?m { ?m :p ?y { SELECT ?m { ?m :q ?z } } }", nil},
		{"SELECT ?m FROM <http://g> { ?m :p ?y { ?m :q ?z } }", nil},
		{"DESCRIBE ?m { ?m :p ?y { ?m :q ?z } }", nil},
		{"SELECT ?m { ?m :p ?y . { ?m :q ?z } }", []string{"m"}},
	} {
		q, err := Parse(p+tc.query, "")
		if err != nil {
			t.Fatal(tc.query, err)
		}
		var got []string
		for v, ok := range sharedIDVars(q, nil) {
			if ok {
				got = append(got, q.vars[v])
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: shared %q, want %q", tc.query, got, tc.want)
		}
	}
	q, err := Parse(p+"SELECT ?m { ?m :p ?y { ?m :search ?z } }", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := sharedIDVars(q, Procedures{"http://e/search": nil}); got != nil && got[0] {
		t.Errorf("a variable of a BGP calling a procedure is shared: %v", got)
	}
}

// TestSharedMatchesTerms runs the folded tests' queries and queries whose
// variables are shared between BGPs (NOT EXISTS, MINUS, OPTIONAL, joins of
// groups, COUNT(DISTINCT), numeric range steps) with shared id variables
// and without, with cursors and without, and compares the results
// exactly; language-tag case variants sit in the object-only sides.
func TestSharedMatchesTerms(t *testing.T) {
	st := foldStore(t)
	ctx := context.Background()
	var qs []quad.Quad
	for i := 0; i < 400; i += 7 {
		m := quad.IRI(fmt.Sprintf("http://example.org/m%d", i))
		lang := "en"
		if i%2 == 0 {
			lang = "EN"
		}
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprintf("http://example.org/n%d", i)), Predicate: quad.IRI("http://example.org/note"), Object: quad.LangString{Value: "x", Lang: lang}},
			quad.Quad{Subject: m, Predicate: quad.IRI("http://example.org/label"), Object: quad.LangString{Value: "x", Lang: lang}},
			quad.Quad{Subject: quad.IRI(fmt.Sprintf("http://example.org/r%d", i)), Predicate: quad.IRI("http://example.org/about"), Object: m})
	}
	putIndexed(t, st, "http://g/2", qs)
	const pre = "PREFIX : <http://example.org/> "
	queries := append([]string{
		"SELECT (COUNT(?m) AS ?n) WHERE { ?m :type :Molecule . FILTER NOT EXISTS { ?c :species ?m } }",
		"SELECT ?m WHERE { ?m :type :Molecule . FILTER EXISTS { ?c :species ?m } } ORDER BY ?m",
		"SELECT ?m ?mw WHERE { ?m :mw ?mw FILTER(?mw < 300) FILTER NOT EXISTS { ?r :about ?m } } ORDER BY ?m",
		"SELECT (COUNT(?m) AS ?n) WHERE { ?m :mw ?mw ; :hbd ?h . FILTER(?mw <= 500 && ?h <= 5) MINUS { ?m :rot ?rot ; :tpsa ?tpsa . FILTER(?rot <= 10 && ?tpsa <= 140) } }",
		"SELECT ?m WHERE { ?m :mw ?mw . FILTER(?mw > 640) MINUS { ?m :rot ?rot FILTER(?rot > 12) } } ORDER BY ?m",
		"SELECT (COUNT(DISTINCT ?m) AS ?molecules) (COUNT(?gap) AS ?withGap) (COUNT(DISTINCT ?c) AS ?cs) WHERE { ?m :type :Molecule ; :heavy ?heavy . FILTER(?heavy < 25) OPTIONAL { ?c :species ?m ; :gap ?gap . } }",
		"SELECT ?m ?gap WHERE { ?m :heavy ?h FILTER(?h < 18) OPTIONAL { ?c :species ?m ; :gap ?gap } } ORDER BY ?m",
		"SELECT ?m ?x ?c WHERE { ?m :mw ?x FILTER(?x > 600) { ?c :species ?m } } ORDER BY ?m",
		"SELECT ?m ?l WHERE { ?m :label ?l { ?r :about ?m } } ORDER BY ?m",
		"SELECT ?m WHERE { { ?m :label ?l } UNION { ?m :heavy 20 } } ORDER BY ?m",
		"SELECT (COUNT(DISTINCT ?m) AS ?n) WHERE { { ?m :label ?l } UNION { ?m :heavy 20 } }",
		"SELECT ?l (COUNT(?n) AS ?k) WHERE { ?n :note ?l { ?m :label ?l } } GROUP BY ?l ORDER BY ?l",
		"SELECT ?n WHERE { ?n :note ?l MINUS { ?r :about ?n } } ORDER BY ?n",
		"SELECT ?m (SAMPLE(?l) AS ?s) WHERE { ?m :label ?l FILTER NOT EXISTS { ?m :heavy ?h FILTER(?h > 30) } } GROUP BY ?m ORDER BY ?m",
		"SELECT ?m ?mw WHERE { ?m :mw ?mw FILTER(?mw >= 640) OPTIONAL { ?r :about ?m } } ORDER BY ?m",
		"SELECT ?m WHERE { ?m :type :Molecule { ?m :mw ?mw FILTER(?mw < 160) } } ORDER BY ?m",
		// MINUS by ids (minusIDs), with the group's filters below it.
		"SELECT ?m ?x WHERE { ?m :mw ?mw OPTIONAL { ?m :odd ?x } MINUS { ?m :rot ?r FILTER(?r > 10) } FILTER(?mw > 300) } ORDER BY ?m",
		"SELECT ?m WHERE { ?m :mw ?mw FILTER(?mw > 600) MINUS { ?m :rot ?r FILTER(?r > 11) } MINUS { ?m :odd ?o } } ORDER BY ?m",
		"SELECT ?m WHERE { ?m :mw ?mw FILTER(?mw > 600) MINUS { VALUES ?m { :m3 :m5 :m7 } } } ORDER BY ?m",
		"SELECT ?m WHERE { ?m :mw ?mw FILTER(?mw > 600) MINUS { ?x :rot ?r FILTER(?r > 100) } } ORDER BY ?m",
		"SELECT ?m ?c WHERE { ?c :species ?m MINUS { ?m :hbd ?h FILTER(?h < 3) } } ORDER BY ?c",
	}, foldQueries...)
	for _, q := range queries {
		for _, o := range []Options{{}, {noCursor: true}, {noFold: true}} {
			off := o
			off.noShared = true
			compareRuns(t, st, pre+q, o, off, nil, true)
		}
	}
	// Groups found by id (group): two ids of one group (language tags'
	// case) fold into one, as with decoded terms.
	for _, q := range []string{
		"SELECT ?l (COUNT(?n) AS ?k) WHERE { ?n :note ?l } GROUP BY ?l ORDER BY ?l",
		"SELECT ?h (COUNT(?m) AS ?k) (SUM(?h) AS ?s) WHERE { ?m :heavy ?h } GROUP BY ?h ORDER BY ?h",
	} {
		on, errOn := runRows(st, pre+q, Options{}, nil)
		off, errOff := runRows(st, pre+q, Options{noFold: true}, nil)
		if errOn != nil || errOff != nil || len(on) == 0 || !reflect.DeepEqual(on, off) {
			t.Errorf("%s: by id %q (%v), decoded %q (%v)", q, on, errOn, off, errOff)
		}
	}
	// The shared paths ran: the bench's NOT EXISTS decodes no molecule.
	res, err := Run(ctx, st, pre+"SELECT (COUNT(?m) AS ?n) WHERE { ?m :type :Molecule . FILTER NOT EXISTS { ?c :species ?m } }", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.All(); err != nil {
		t.Fatal(err)
	}
	if res.ex.decodes > 2 {
		t.Errorf("NOT EXISTS decoded %d terms", res.ex.decodes)
	}
}
