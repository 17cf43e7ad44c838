package sparql

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// The real store is a Source.
var _ Source = (*graph.Store)(nil)

const ex = "http://example.org/"

func iri(s string) quad.IRI { return quad.IRI(ex + s) }

func openStore(t testing.TB, graphs map[string][]quad.Quad) *graph.Store {
	t.Helper()
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	putGraphs(t, st, graphs)
	return st
}

// putGraphs puts each graph into st.
func putGraphs(t testing.TB, st *graph.Store, graphs map[string][]quad.Quad) {
	t.Helper()
	for g, qs := range graphs {
		if err := st.PutGraph(context.Background(), quad.IRI(g), qs); err != nil {
			t.Fatal(err)
		}
	}
}

func tr(s, p string, o quad.Value) quad.Quad {
	return quad.Quad{Subject: iri(s), Predicate: iri(p), Object: o}
}

// selectStrings runs a SELECT and renders each solution as "v=term ..."
// sorted, for order-independent comparison.
func selectStrings(t *testing.T, src Source, query string, opts Options) []string {
	t.Helper()
	res, err := Run(context.Background(), src, query, "", opts)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	sols, err := res.All()
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
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

func TestSyntaxErrorPosition(t *testing.T) {
	tests := []struct {
		query     string
		line, col int
	}{
		{"SELECT * WHERE { ?s ?p }", 1, 24},                           // "}" where an object is needed
		{"SELECT *\nWHERE {\n  ?s ?p ?o .\n  FILTER(?o >) }", 4, 14},  // ")" starts no expression
		{"PREFIX ex: <http://e/>\nSELECT * { ex:a foo:b ?o }", 2, 17}, // undefined prefix
		{"SELECT ?x { ?x ?p \"abc }", 1, 19},                          // unterminated string
		{"SELEC * {}", 1, 1},
		{"SELECT (COUNT(?x) AS ?c) { FILTER(COUNT(?x) > 1) }", 1, 35}, // aggregate in FILTER
	}
	for _, tc := range tests {
		_, err := Parse(tc.query, "")
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: err = %v, want a *SyntaxError", tc.query, err)
			continue
		}
		if se.Line != tc.line || se.Column != tc.col {
			t.Errorf("%q: position %d:%d, want %d:%d (%v)", tc.query, se.Line, se.Column, tc.line, tc.col, err)
		}
	}
}

// TestUnionDefaultGraph checks molgraph's dataset: without FROM or a
// protocol dataset, the default graph is the RDF merge of all graphs (a
// triple stored in two graphs counts once) and GRAPH ?g sees each graph.
func TestUnionDefaultGraph(t *testing.T) {
	st := openStore(t, map[string][]quad.Quad{
		ex + "g1": {tr("a", "p", iri("b")), tr("a", "type", iri("Mol"))},
		ex + "g2": {tr("c", "p", iri("d")), tr("a", "type", iri("Mol"))},
	})
	tests := []struct {
		query string
		opts  Options
		want  []string
	}{
		{`SELECT ?s ?o { ?s <` + ex + `p> ?o }`, Options{}, []string{"s=a> o=b>", "s=c> o=d>"}},
		{`SELECT (COUNT(*) AS ?n) { ?s <` + ex + `type> ?o }`, Options{},
			[]string{`n="1"^^<http://www.w3.org/2001/XMLSchema#integer>`}},
		{`SELECT ?g ?s { GRAPH ?g { ?s <` + ex + `type> ?o } }`, Options{}, []string{"g=g1> s=a>", "g=g2> s=a>"}},
		{`SELECT ?g { GRAPH ?g { } }`, Options{}, []string{"g=g1>", "g=g2>"}},
		{`SELECT ?s { ?s <` + ex + `p> ?o }`, Options{Dataset: &Dataset{Default: []quad.IRI{iri("g2")}}}, []string{"s=c>"}},
		{`SELECT ?s FROM <` + ex + `g1> { ?s <` + ex + `p> ?o }`, Options{}, []string{"s=a>"}},
		// FROM without FROM NAMED: no named graphs.
		{`SELECT ?g FROM <` + ex + `g1> { GRAPH ?g { ?s ?p ?o } }`, Options{}, nil},
		{`SELECT ?s { GRAPH <` + ex + `g2> { ?s <` + ex + `p> ?o } }`, Options{}, []string{"s=c>"}},
	}
	for _, tc := range tests {
		got := selectStrings(t, st, tc.query, tc.opts)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s\n got %q\nwant %q", tc.query, got, tc.want)
		}
	}
}

// TestPathUnboundStart is the case where Cayley's recursive follow is
// wrong (rdf-conformance README, section 8): with a p b, b p c, d p b,
// ?x p+ ?y has 5 solutions.
func TestPathUnboundStart(t *testing.T) {
	st := openStore(t, map[string][]quad.Quad{
		ex + "g": {tr("a", "p", iri("b")), tr("b", "p", iri("c")), tr("d", "p", iri("b"))},
	})
	tests := []struct {
		query string
		want  []string
	}{
		{`SELECT ?x ?y { ?x <` + ex + `p>+ ?y }`, []string{"x=a> y=b>", "x=a> y=c>", "x=b> y=c>", "x=d> y=b>", "x=d> y=c>"}},
		{`SELECT ?y { <` + ex + `a> <` + ex + `p>+ ?y }`, []string{"y=b>", "y=c>"}},
		{`SELECT ?x { ?x <` + ex + `p>* <` + ex + `c> }`, []string{"x=a>", "x=b>", "x=c>", "x=d>"}},
		// zero-length path from a constant that is not in the graph
		{`SELECT ?y { <` + ex + `z> <` + ex + `p>* ?y }`, []string{"y=z>"}},
		{`SELECT ?x ?y { ?x ^<` + ex + `p>/<` + ex + `p> ?y }`, []string{"x=b> y=b>", "x=b> y=b>", "x=c> y=c>"}},
	}
	for _, tc := range tests {
		got := selectStrings(t, st, tc.query, Options{})
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s\n got %q\nwant %q", tc.query, got, tc.want)
		}
	}
}

func TestTimeoutAndRowLimit(t *testing.T) {
	var qs []quad.Quad
	for i := 0; i < 200; i++ {
		qs = append(qs, tr("s"+strings.Repeat("x", i%7)+string(rune('a'+i%26)), "p", quad.String(strings.Repeat("v", i))))
	}
	st := openStore(t, map[string][]quad.Quad{ex + "g": qs})
	// 200^3 = 8 million solutions: far more than 100 ms of work.
	start := time.Now()
	res, err := Run(context.Background(), st, `SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }`, "", Options{Timeout: 100 * time.Millisecond})
	if err == nil {
		_, err = res.All()
	}
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("timeout took %v", d)
	}
	// ASK is evaluated by Exec.
	_, err = Run(context.Background(), st, `ASK { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i FILTER(STR(?c) = CONCAT(STR(?f), STR(?i), "x")) }`, "", Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("ASK err = %v, want ErrTimeout", err)
	}

	res, err = Run(context.Background(), st, `SELECT ?s { ?s ?p ?o }`, "", Options{MaxRows: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = res.Solutions(func(Solution) error { n++; return nil })
	if !errors.Is(err, ErrRowLimit) || n != 5 {
		t.Errorf("row cap: %d rows, err %v; want 5 rows and ErrRowLimit", n, err)
	}
	// At the cap exactly there is no error.
	res, _ = Run(context.Background(), st, `SELECT ?s { ?s ?p ?o } LIMIT 5`, "", Options{MaxRows: 5})
	if _, err := res.All(); err != nil {
		t.Errorf("LIMIT 5 with MaxRows 5: %v", err)
	}
}

// TestWriters checks the serializations against the examples of the W3C
// result format recommendations (SPARQL 1.1 Query Results JSON section 3,
// CSV and TSV sections 3 and 4): term encodings, escaping and headers.
func TestWriters(t *testing.T) {
	st := openStore(t, map[string][]quad.Quad{
		ex + "g": {
			tr("s", "p", quad.LangString{Value: "chat", Lang: "fr"}),
			tr("s", "q", quad.String("a,\"b\"\nc")),
			tr("s", "r", quad.TypedString{Value: "1.5", Type: xsdDecimal}),
		},
	})
	q := `SELECT ?p ?o { <` + ex + `s> ?p ?o } ORDER BY ?p`
	run := func(w func(*bytes.Buffer, *Result) error) string {
		res, err := Run(context.Background(), st, q, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w(&b, res); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	csv := run(func(b *bytes.Buffer, r *Result) error { return WriteCSV(b, r) })
	wantCSV := "p,o\r\n" + ex + "p,chat\r\n" + ex + "q,\"a,\"\"b\"\"\nc\"\r\n" + ex + "r,1.5\r\n"
	if csv != wantCSV {
		t.Errorf("CSV:\n%q\nwant\n%q", csv, wantCSV)
	}
	tsv := run(func(b *bytes.Buffer, r *Result) error { return WriteTSV(b, r) })
	wantTSV := "?p\t?o\n<" + ex + "p>\t\"chat\"@fr\n<" + ex + "q>\t\"a,\\\"b\\\"\\nc\"\n<" + ex + "r>\t\"1.5\"^^<http://www.w3.org/2001/XMLSchema#decimal>\n"
	if tsv != wantTSV {
		t.Errorf("TSV:\n%q\nwant\n%q", tsv, wantTSV)
	}
	js := run(func(b *bytes.Buffer, r *Result) error { return WriteJSON(b, r) })
	for _, frag := range []string{`"head":{"vars":["p","o"]}`, `{"type":"literal","value":"chat","xml:lang":"fr"}`,
		`{"type":"literal","value":"1.5","datatype":"http://www.w3.org/2001/XMLSchema#decimal"}`, `{"type":"uri","value":"` + ex + `p"}`} {
		if !strings.Contains(js, frag) {
			t.Errorf("JSON lacks %s:\n%s", frag, js)
		}
	}
	res, err := Run(context.Background(), st, `ASK { ?s ?p ?o }`, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, res); err != nil || strings.TrimSpace(b.String()) != `{"head":{},"boolean":true}` {
		t.Errorf("ASK JSON = %q, %v", b.String(), err)
	}
	if err := WriteCSV(&b, res); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ASK as CSV: err = %v, want ErrUnsupported", err)
	}
}

func TestConstructStream(t *testing.T) {
	st := openStore(t, map[string][]quad.Quad{
		ex + "g": {tr("a", "p", iri("b")), tr("c", "p", iri("d"))},
	})
	res, err := Run(context.Background(), st, `CONSTRUCT { ?o <`+ex+`inv> ?s . ?s <`+ex+`node> [ <`+ex+`v> ?o ] } WHERE { ?s <`+ex+`p> ?o }`, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := res.Quads()
	if err != nil {
		t.Fatal(err)
	}
	// 2 solutions x 3 template triples, with a fresh blank node per solution.
	if len(qs) != 6 {
		t.Fatalf("got %d triples: %v", len(qs), qs)
	}
	bnodes := map[quad.Value]bool{}
	for _, q := range qs {
		if b, ok := q.Object.(quad.BNode); ok {
			bnodes[b] = true
		}
	}
	if len(bnodes) != 2 {
		t.Errorf("blank nodes %v, want 2 distinct", bnodes)
	}
}
