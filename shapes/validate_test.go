package shapes

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph/rdfio"
)

func TestWellFormed(t *testing.T) {
	x := func(s string) quad.IRI { return quad.IRI(nsXSD + s) }
	for _, tc := range []struct {
		lex  string
		dt   quad.IRI
		want bool
	}{
		{"1", x("integer"), true}, {"+1", x("integer"), true}, {"1.0", x("integer"), false},
		{"127", x("byte"), true}, {"128", x("byte"), false}, {"-129", x("byte"), false},
		{"0", x("positiveInteger"), false}, {"255", x("unsignedByte"), true},
		{"1.5", x("decimal"), true}, {".5", x("decimal"), true}, {"1e3", x("decimal"), false},
		{"1.0E-5", x("double"), true}, {"INF", x("double"), true}, {"inf", x("double"), false}, {"abc", x("double"), false},
		{"true", x("boolean"), true}, {"1", x("boolean"), true}, {"yes", x("boolean"), false},
		{"2002-10-10T12:00:00-05:00", x("dateTime"), true}, {"2002-10-10T12:00:00", x("dateTime"), true},
		{"2002-02-30T12:00:00Z", x("dateTime"), false}, {"2002-10-10", x("dateTime"), false},
		{"2002-10-10", x("date"), true}, {"2002-13-10", x("date"), false},
		{"anything", x("string"), true}, {"x", "http://example.org/custom", true},
	} {
		if got := wellFormed(tc.lex, tc.dt); got != tc.want {
			t.Errorf("wellFormed(%q, %s) = %v, want %v", tc.lex, tc.dt, got, tc.want)
		}
	}
}

func TestCompare(t *testing.T) {
	lit := func(lex, dt string) quad.Value {
		return quad.TypedString{Value: quad.String(lex), Type: quad.IRI(nsXSD + dt)}
	}
	for _, tc := range []struct {
		a, b quad.Value
		want int
		ok   bool
	}{
		{lit("1", "integer"), lit("1.5", "decimal"), -1, true},
		{lit("2", "integer"), lit("1.5E0", "double"), 1, true},
		{lit("NaN", "double"), lit("1", "integer"), 0, false},
		{lit("1", "integer"), quad.String("1"), 0, false},
		{quad.String("a"), quad.String("b"), -1, true},
		{lit("2002-10-10T12:00:00Z", "dateTime"), lit("2002-10-10T07:00:00-05:00", "dateTime"), 0, true},
		// Without a time zone the order is known only beyond +-14 h.
		{lit("2002-10-10T12:00:00", "dateTime"), lit("2002-10-10T12:00:00-05:00", "dateTime"), 0, false},
		{lit("2002-10-09T12:00:00", "dateTime"), lit("2002-10-10T12:00:00-05:00", "dateTime"), -1, true},
		{quad.IRI("http://ex/a"), lit("1", "integer"), 0, false},
	} {
		got, ok := compare(tc.a, tc.b)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("compare(%v, %v) = %d, %v; want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}

func parse(t testing.TB, ttl string) []quad.Quad {
	t.Helper()
	qs, err := rdfio.ParseTurtle(strings.NewReader(ttl), "http://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

const prefixes = `@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
`

func TestIllFormedShapes(t *testing.T) {
	for _, ttl := range []string{
		`ex:s sh:targetNode ex:a ; sh:path [ sh:inversePath _:p ] . _:p sh:zeroOrMorePath _:p .`,
		`ex:s sh:targetNode ex:a ; sh:in ex:notAList .`,
		`ex:s sh:targetNode ex:a ; sh:pattern "(" .`,
		`ex:s sh:targetNode ex:a ; sh:datatype "xsd:string" .`,
		`ex:s sh:targetNode ex:a ; sh:property [ sh:minCount 1 ] .`,
		`ex:s sh:targetNode ex:a ; sh:path ex:p ; sh:minCount "one" .`,
	} {
		if _, err := Compile(parse(t, prefixes+ttl)); !errors.Is(err, ErrShapesGraph) {
			t.Errorf("%s: err = %v, want ErrShapesGraph", ttl, err)
		}
	}
}

// A recursive shape over cyclic data terminates (taken as conforming).
func TestRecursiveShape(t *testing.T) {
	qs := parse(t, prefixes+`
ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:knows ; sh:node ex:S ; sh:minCount 1 ] .
ex:a ex:knows ex:b . ex:b ex:knows ex:a .`)
	rep, err := Validate(qs, qs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Conforms {
		t.Errorf("recursive shape over a cycle: results %v", rep.Results)
	}
}

// sh:targetClass and sh:class follow rdfs:subClassOf in the TBox.
func TestTBoxInference(t *testing.T) {
	shapes := parse(t, prefixes+`ex:S a sh:NodeShape ; sh:targetClass ex:Animal ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .`)
	data := parse(t, prefixes+`ex:rex a ex:Dog .`)
	tbox := parse(t, prefixes+`ex:Dog rdfs:subClassOf ex:Mammal . ex:Mammal rdfs:subClassOf ex:Animal .`)
	rep, err := Validate(shapes, data, Options{})
	if err != nil || !rep.Conforms {
		t.Fatalf("without TBox: %v %v, want no target and conformance", rep, err)
	}
	rep, err = Validate(shapes, data, Options{TBox: tbox})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].FocusNode != quad.IRI("http://example.org/rex") {
		t.Fatalf("with TBox: results %v, want one for ex:rex", rep.Results)
	}
}

// The report serializes to JSON and to Turtle that parses back to the same
// graph.
func TestReportSerializations(t *testing.T) {
	qs := parse(t, prefixes+`
ex:S a sh:NodeShape ; sh:targetNode ex:a ;
  sh:property [ sh:path ( ex:p [ sh:inversePath ex:q ] ) ; sh:datatype xsd:integer ; sh:message "must be an integer"@en ] .
ex:a ex:p ex:b . ex:c ex:q ex:b . ex:c ex:q "x" .`)
	rep, err := Validate(qs, qs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("results %v, want 1", rep.Results)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Conforms bool `json:"conforms"`
		Results  []map[string]string
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	r := got.Results[0]
	if got.Conforms || r["focus_node"] != "http://example.org/a" || r["value"] != "http://example.org/c" ||
		r["result_path"] != "<http://example.org/p>/^<http://example.org/q>" || r["message"] != "must be an integer" ||
		r["severity"] != string(Violation) || r["source_constraint_component"] != nsSH+"DatatypeConstraintComponent" {
		t.Errorf("JSON: %s", js)
	}
	var buf bytes.Buffer
	if err := rdfio.WriteAll(&buf, rdfio.Turtle, rep.Quads()); err != nil {
		t.Fatal(err)
	}
	back, err := rdfio.ParseTurtle(&buf, "")
	if err != nil {
		t.Fatalf("re-parse report Turtle: %v\n%s", err, buf.String())
	}
	if !rdfio.Isomorphic(back, rep.Quads()) {
		t.Errorf("report Turtle does not round-trip:\n%s", buf.String())
	}
}

// BenchmarkGateCalculation validates a calculation of about 1,000 triples
// (the CO2 example with its geometry repeated to 60 atoms).
func BenchmarkGateCalculation(b *testing.B) {
	gate := newTestGate(b)
	data := loadTurtle(b, "testdata/calculation-co2.ttl")
	mol := quad.IRI(calcNS + "molecule")
	for i := 4; len(data) < 1000; i++ {
		atom := quad.IRI(calcNS + "atom-x" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
		data = append(data, quad.Quad{Subject: mol, Predicate: quad.IRI(gcNS + "hasAtom"), Object: atom},
			quad.Quad{Subject: atom, Predicate: rdfType, Object: quad.IRI(gcNS + "Atom")},
			quad.Quad{Subject: atom, Predicate: quad.IRI(gcNS + "isElement"), Object: quad.IRI("http://www.daml.org/2003/01/periodictable/PeriodicTable.owl#C")})
		for _, axis := range []string{"X", "Y", "Z"} {
			v := quad.IRI(string(atom) + "-" + axis)
			data = append(data, quad.Quad{Subject: atom, Predicate: quad.IRI(gcNS + "hasAtomCoordinate" + axis), Object: v},
				quad.Quad{Subject: v, Predicate: rdfType, Object: quad.IRI(gcNS + "FloatValue")},
				quad.Quad{Subject: v, Predicate: quad.IRI(gcNS + "hasValue"), Object: quad.TypedString{Value: "1.5", Type: quad.IRI(nsXSD + "double")}},
				quad.Quad{Subject: v, Predicate: quad.IRI(gcNS + "hasUnit"), Object: quad.IRI("http://qudt.org/vocab/unit/ANGSTROM")})
		}
	}
	b.ReportMetric(float64(len(data)), "triples")
	for b.Loop() {
		rep, err := gate.Validate(data)
		if err != nil || !rep.Conforms {
			b.Fatalf("%v %v", err, rep)
		}
	}
}
