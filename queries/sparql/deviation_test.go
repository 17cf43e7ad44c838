package sparql

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestVirtuosoDeviations pins the answers of held-out query shapes on
// which Virtuoso 7.2 answers otherwise on the bench store (so they are
// not bench queries); each expected answer follows from the
// recommendation's text, cited, not from either engine: molgraph's
// answers are checked on the memory store and the native one with
// columns.
func TestVirtuosoDeviations(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	xint := func(s string) string { return `"` + s + `"^^<http://www.w3.org/2001/XMLSchema#integer>` }
	cases := []struct {
		why, query string
		want       []string
	}{
		{
			// 8.3.1: "MINUS ... with no shared variables" removes
			// nothing (dom(μ) ∩ dom(μ') empty). Virtuoso: 0.
			"MINUS with no shared variable",
			"SELECT (COUNT(?m) AS ?n) WHERE { ?m ex:heavy 44 MINUS { ?x ex:heavy 45 } }",
			[]string{"n=" + xint("2")},
		},
		{
			// 17.4.1.2: IF raises an error when its condition does
			// (LCASE of an unbound variable); 17.4.1.3: COALESCE
			// returns its first argument that is not an error. Virtuoso
			// takes the condition as false ("other").
			"IF on an error inside COALESCE",
			`SELECT ?m ?status WHERE { ?m ex:heavy ?h OPTIONAL { ?m ex:msg ?msg } BIND(COALESCE(IF(CONTAINS(LCASE(?msg), "stereo"), "stereo", "other"), "clean") AS ?status) }`,
			[]string{`m=a> status="stereo"`, `m=b> status="other"`, `m=c> status="clean"`},
		},
		{
			// 18.5.1.3 Sum: "Sum({}) = 0"; 18.5.1.4 Avg: "Avg({}) = 0"
			// (xsd:integer); Min, Max and Sample of nothing are errors,
			// so unbound; GROUP_CONCAT of nothing is "". One group: no
			// GROUP BY (18.2.4.1). Virtuoso leaves SUM and AVG unbound.
			"aggregates over no solution",
			`SELECT (COUNT(?h) AS ?n) (SUM(?h) AS ?s) (AVG(?h) AS ?a) (MIN(?h) AS ?lo) (SAMPLE(?h) AS ?any) (GROUP_CONCAT(STR(?h)) AS ?all) WHERE { ?m ex:heavy ?h FILTER(?h > 5000) }`,
			[]string{"n=" + xint("0") + " s=" + xint("0") + " a=" + xint("0") + ` all=""`},
		},
		{
			// 9.1 and 18.4: with no rdfs:subClassOf triple,
			// rdf:type/rdfs:subClassOf* C is rdf:type C (the
			// zero-length path of C); Virtuoso answered 0 next to a
			// numeric filter on some loads of the bench store (bench
			// query 33 moved the path into FILTER EXISTS).
			"type/subClassOf* next to a numeric filter",
			"PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> SELECT (COUNT(?m) AS ?n) WHERE { ?m a/rdfs:subClassOf* ex:C ; ex:heavy ?h FILTER(?h > 44) }",
			[]string{"n=" + xint("1")},
		},
		{
			// 13.1 and RDF 1.1 Semantics (merge): the default graph,
			// molgraph's union of the named graphs, is an RDF graph, a
			// set of triples, so a triple stated in two named graphs
			// is one solution of "?s a ?c". Virtuoso's default graph
			// counts it once per graph (bench 11 counts distinct
			// subjects for that reason).
			"a triple in two named graphs",
			"SELECT (COUNT(?s) AS ?n) WHERE { ?s a ex:C }",
			[]string{"n=" + xint("2")},
		},
		{
			// 17.3 (numeric-subtract, op:numeric-less-than on
			// xsd:double): |2.5038 - 2.5| < |2.4961999999999995 - 2.5|
			// in IEEE doubles, so d comes first; Virtuoso ordered
			// them as equal (ties by IRI: e first).
			"ORDER BY a double expression",
			"SELECT ?m WHERE { ?m ex:logp ?l } ORDER BY ABS(?l - 2.5) ?m",
			nil, // checked in order below
		},
	}
	dbl := func(s string) quad.Value {
		return quad.TypedString{Value: quad.String(s), Type: quad.IRI(nsXSD + "double")}
	}
	n := func(i int) quad.Value {
		return quad.TypedString{Value: quad.String(strconv.Itoa(i)), Type: quad.IRI(nsXSD + "integer")}
	}
	data := map[string][]quad.Quad{ex + "g": {
		tr("a", "heavy", n(44)), tr("b", "heavy", n(44)), tr("c", "heavy", n(45)),
		tr("a", "msg", quad.String("Undefined STEREO centre")), tr("b", "msg", quad.String("charge")),
		tr("e", "logp", dbl("2.4961999999999995")), tr("d", "logp", dbl("2.5038")),
		{Subject: iri("a"), Predicate: quad.IRI(nsRDF + "type"), Object: iri("C")},
		{Subject: iri("c"), Predicate: quad.IRI(nsRDF + "type"), Object: iri("C")},
	}, ex + "g2": {
		{Subject: iri("a"), Predicate: quad.IRI(nsRDF + "type"), Object: iri("C")},
	}}
	ctx := context.Background()
	mem := openStore(t, data)
	cols := openColumnStore(t, data)
	for _, tc := range cases {
		for name, src := range map[string]Source{"memory": mem, "columns": cols} {
			if tc.want == nil {
				res, err := Run(ctx, src, prefix+tc.query, "", Options{})
				if err != nil {
					t.Fatal(err)
				}
				sols, err := res.All()
				if err != nil {
					t.Fatal(err)
				}
				var got []quad.Value
				for _, s := range sols {
					got = append(got, s[0])
				}
				if want := []quad.Value{iri("d"), iri("e")}; !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %s: %v, want %v", tc.why, name, got, want)
				}
				continue
			}
			if got := selectStrings(t, src, prefix+tc.query, Options{}); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s, %s:\ngot  %v\nwant %v", tc.why, name, got, tc.want)
			}
		}
	}
}
