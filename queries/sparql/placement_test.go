package sparql

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// TestFilterPlacement: a group's filter conjuncts go below MINUS,
// OPTIONAL (onto its left side), a join (onto the side that binds their
// variables) and BIND when the pattern there binds all their variables
// in every solution, and stay above otherwise (placeFilters). The
// answers are worked out by hand from the SPARQL 1.1 semantics over the
// data below (m1 h=1 v=5, m2 h=3 and no v, m3 h=4 v=2), on the memory
// store and the native one with columns.
func TestFilterPlacement(t *testing.T) {
	qs := []quad.Quad{
		tr("m1", "h", xsdLit("1", "integer")), tr("m1", "v", xsdLit("5", "integer")),
		tr("m2", "h", xsdLit("3", "integer")),
		tr("m3", "h", xsdLit("4", "integer")), tr("m3", "v", xsdLit("2", "integer")),
	}
	const prefix = "PREFIX ex: <" + ex + ">\n"
	cases := []struct {
		query string
		shape string // the algebra, filters as F[n conjuncts]
		want  []string
	}{
		{"SELECT ?m { ?m ex:h ?h OPTIONAL { ?m ex:v ?v } FILTER(?h > 2 && !BOUND(?v)) }",
			"F1(LJ(F1(BGP),BGP))", []string{"m=m2>"}},
		{"SELECT ?m { ?m ex:h ?h OPTIONAL { ?m ex:v ?v } FILTER(?h > 0 && ?v > 3) }",
			"F1(LJ(F1(BGP),BGP))", []string{"m=m1>"}},
		// The OPTIONAL's own filter is its condition and sees ?h.
		{"SELECT ?m ?v { ?m ex:h ?h OPTIONAL { ?m ex:v ?v FILTER(?h > 2) } FILTER(?h >= 1) }",
			"LJ(F1(BGP),BGP)", []string{"m=m1>", "m=m2>", `m=m3> v="2"^^<http://www.w3.org/2001/XMLSchema#integer>`}},
		{"SELECT ?m { ?m ex:h ?h { ?m ex:v ?v } FILTER(?v < 3 && ?h > 3) }",
			"J(F1(BGP),F1(BGP))", []string{"m=m3>"}},
		{"SELECT ?m ?d { ?m ex:h ?h BIND(?h * 2 AS ?d) FILTER(?h > 2 && ?d < 8) }",
			"F1(E(F1(BGP)))", []string{`m=m2> d="6"^^<http://www.w3.org/2001/XMLSchema#integer>`}},
		{"SELECT ?m { ?m ex:h ?h OPTIONAL { ?m ex:v ?v } MINUS { ?m ex:v 2 } FILTER(?h < 4) }",
			"M(LJ(F1(BGP),BGP),BGP)", []string{"m=m1>", "m=m2>"}},
		// EXISTS and constant conditions stay on top.
		{"SELECT ?m { ?m ex:h ?h OPTIONAL { ?m ex:v ?v } FILTER(NOT EXISTS { ?m ex:v ?w } && ?h > 1) }",
			"F1(LJ(F1(BGP),BGP))", []string{"m=m2>"}},
		{"SELECT ?m { ?m ex:h ?h OPTIONAL { ?m ex:v ?v } FILTER(true && 1 < 2) }",
			"F2(LJ(BGP,BGP))", []string{"m=m1>", "m=m2>", "m=m3>"}},
	}
	mem := openStore(t, map[string][]quad.Quad{ex + "g": qs})
	cols, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cols.Close() })
	putIndexed(t, cols, iri("g"), qs)
	for _, tc := range cases {
		q, err := Parse(prefix+tc.query, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := shapeOf(q.sel.where); got != tc.shape {
			t.Errorf("%s: algebra %s, want %s", tc.query, got, tc.shape)
		}
		for name, src := range map[string]Source{"memory": mem, "columns": cols} {
			if got := selectStrings(t, src, prefix+tc.query, Options{}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: %s\n got %q\nwant %q", name, tc.query, got, tc.want)
			}
		}
	}
}

// shapeOf renders the operators of an algebra tree.
func shapeOf(n node) string {
	var b strings.Builder
	var walk func(n node)
	two := func(name string, l, r node) {
		b.WriteString(name + "(")
		walk(l)
		b.WriteString(",")
		walk(r)
		b.WriteString(")")
	}
	walk = func(n node) {
		switch x := n.(type) {
		case *nBGP:
			b.WriteString("BGP")
		case *nFilter:
			b.WriteString("F" + itoa(len(x.conds))[:len(itoa(len(x.conds)))-1] + "(")
			walk(x.p)
			b.WriteString(")")
		case *nLeftJoin:
			two("LJ", x.l, x.r)
		case *nJoin:
			two("J", x.l, x.r)
		case *nMinus:
			two("M", x.l, x.r)
		case *nExtend:
			b.WriteString("E(")
			walk(x.p)
			b.WriteString(")")
		default:
			b.WriteString("?")
		}
	}
	walk(n)
	return b.String()
}
