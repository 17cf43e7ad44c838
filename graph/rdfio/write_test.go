package rdfio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

// TestLiteralRoundTrip writes each literal kind molgraph stores through
// every format, reads it back with our parsers, json-gold (JSON-LD) and
// rapper, and requires the exact lexical form and datatype.
func TestLiteralRoundTrip(t *testing.T) {
	s := quad.IRI("http://localhost:8080/id/molecule/mol-1")
	p := quad.IRI(ontology.MG + "value")
	lits := []struct {
		name string
		v    quad.Value
	}{
		{"xsd:string", ontology.String("CC(=O)Oc1ccccc1C(=O)O")},
		{"empty string", ontology.String("")},
		{"quotes and backslashes", ontology.String(`say "hi" \ 'bye' """ ''' \"`)},
		{"newlines", ontology.String("line 1\nline 2\r\nline 3\n")},
		{"ends with quote and newline", ontology.String("x\n\"")},
		{"controls", ontology.String("tab\there\bback\fform\x01\x1f\x7f")},
		{"unicode", ontology.String("é漢字 \U0001F600 ∆G‡ Å")},
		{"langString", ontology.LangString("acide acétylsalicylique", "fr")},
		{"langString subtags", ontology.LangString("aspirin", "en-GB")},
		{"integer", ontology.Integer(-42)},
		{"integer big", quad.TypedString{Value: "123456789012345678901234567890", Type: ontology.XSDInteger}},
		{"integer leading plus", quad.TypedString{Value: "+7", Type: ontology.XSDInteger}},
		{"integer not canonical", quad.TypedString{Value: " 7", Type: ontology.XSDInteger}},
		{"double", ontology.Double(180.159)},
		{"double exponent", ontology.Double(1e-5)},
		{"double negative", ontology.Double(-154.0)},
		{"double INF", ontology.Double(math.Inf(1))},
		{"double -INF", ontology.Double(math.Inf(-1))},
		{"double NaN", ontology.Double(math.NaN())},
		{"double short form", quad.TypedString{Value: "1.5E3", Type: ontology.XSDDouble}},
		{"decimal", quad.TypedString{Value: "0.10", Type: ontology.XSDDecimal}},
		{"decimal integral", quad.TypedString{Value: "10", Type: ontology.XSDDecimal}},
		{"boolean true", ontology.Boolean(true)},
		{"boolean false", ontology.Boolean(false)},
		{"boolean 1", quad.TypedString{Value: "1", Type: ontology.XSDBoolean}},
		{"dateTime", ontology.DateTime(time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC))},
		{"dateTime offset", quad.TypedString{Value: "2024-05-06T07:08:09+02:00", Type: ontology.XSDDateTime}},
		{"other datatype", quad.TypedString{Value: "P1D", Type: quad.IRI(ontology.XSD + "duration")}},
		{"custom datatype", quad.TypedString{Value: "x y", Type: quad.IRI("http://example.org/dt#t")}},
	}
	for _, l := range lits {
		t.Run(l.name, func(t *testing.T) {
			qs := []quad.Quad{{Subject: s, Predicate: p, Object: l.v}}
			for _, f := range []Format{Turtle, NTriples, NQuads} {
				out := writeAll(t, f, qs)
				back, err := collect(bytes.NewReader(out), f, ParseOptions{})
				if err != nil {
					t.Fatalf("%v: %v\n%s", f, err, out)
				}
				if len(back) != 1 || back[0].Object != l.v {
					t.Fatalf("%v: wrote\n%s\nread back %#v, want %#v", f, out, back, l.v)
				}
			}
			// JSON-LD through json-gold: json-gold lower-cases language
			// tags, which RDF 1.1 allows; compare the rest exactly.
			out := writeAll(t, JSONLD, qs)
			back, err := ParseJSONLD(bytes.NewReader(out), "")
			if err != nil || len(back) != 1 {
				t.Fatalf("jsonld: %v %v\n%s", err, back, out)
			}
			if termKey(back[0].Object) != termKey(l.v) {
				t.Fatalf("jsonld: read back %#v, want %#v\n%s", back[0].Object, l.v, out)
			}
			roundTrip(t, qs)
		})
	}
}

func TestTurtleShortForms(t *testing.T) {
	s, p := quad.IRI("http://a/s"), quad.IRI("http://a/p")
	cases := []struct {
		v    quad.Value
		want string
	}{
		{ontology.Integer(5), "5"},
		{quad.TypedString{Value: "-05", Type: ontology.XSDInteger}, "-05"},
		{quad.TypedString{Value: "5.", Type: ontology.XSDDecimal}, `"5."^^xsd:decimal`},
		{quad.TypedString{Value: "5", Type: ontology.XSDDecimal}, `"5"^^xsd:decimal`},
		{quad.TypedString{Value: ".5", Type: ontology.XSDDecimal}, ".5"},
		{ontology.Double(180.159), `"180.159"^^xsd:double`},
		{ontology.Double(1e-5), "1e-05"},
		{ontology.Double(math.Inf(1)), `"INF"^^xsd:double`},
		{quad.TypedString{Value: "1.5", Type: ontology.XSDInteger}, `"1.5"^^xsd:integer`},
		{ontology.Boolean(true), "true"},
		{quad.TypedString{Value: "TRUE", Type: ontology.XSDBoolean}, `"TRUE"^^xsd:boolean`},
		{ontology.String("a\nb"), "\"\"\"a\nb\"\"\""},
		{quad.IRI(ontology.UNIT + "PER-CentiM"), "unit:PER-CentiM"},
		{quad.IRI(ontology.MG + ""), "mg:"},
		{quad.IRI(ontology.MG + "a.b"), "mg:a.b"},
		{quad.IRI(ontology.MG + "a."), "<https://w3id.org/molgraph/vocab#a.>"},
		{quad.IRI(ontology.MG + "a/b"), "<https://w3id.org/molgraph/vocab#a/b>"},
		{quad.IRI(ontology.SIO + "SIO_000008"), "sio:SIO_000008"},
		{quad.IRI(ontology.MG + "3D"), "mg:3D"},
		{quad.IRI(ontology.MG + "-x"), "<https://w3id.org/molgraph/vocab#-x>"},
		{quad.IRI(ontology.MG + "a%20b"), "mg:a%20b"},
		{quad.IRI("urn:x"), "<urn:x>"},
	}
	for _, c := range cases {
		out := string(writeAll(t, Turtle, []quad.Quad{{Subject: s, Predicate: p, Object: c.v}}))
		want := "<http://a/s> <http://a/p> " + c.want + " .\n"
		if !strings.HasSuffix(out, want) {
			t.Errorf("%#v: got\n%s\nwant suffix %q", c.v, out, want)
		}
		roundTrip(t, []quad.Quad{{Subject: s, Predicate: p, Object: c.v}})
	}
}

func TestTurtleDeclaresAllPrefixes(t *testing.T) {
	out := string(writeAll(t, Turtle, nil))
	for _, p := range ontology.Prefixes() {
		if !strings.Contains(out, "@prefix "+p.Name+": <"+p.IRI+"> .\n") {
			t.Errorf("prefix %s not declared:\n%s", p.Name, out)
		}
	}
	rapperNT(t, "turtle", []byte(out))
}

func TestWriterRejectsInvalidTerms(t *testing.T) {
	s, p, o := quad.IRI("http://a/s"), quad.IRI("http://a/p"), quad.IRI("http://a/o")
	bad := []quad.Quad{
		{Subject: quad.String("lit"), Predicate: p, Object: o},
		{Subject: s, Predicate: quad.BNode("b"), Object: o},
		{Subject: s, Predicate: p, Object: nil},
		{Subject: nil, Predicate: p, Object: o},
		{Subject: s, Predicate: p, Object: quad.IRI("http://a/with space")},
		{Subject: s, Predicate: p, Object: quad.IRI("http://a/<x>")},
		{Subject: s, Predicate: p, Object: quad.LangString{Value: "x", Lang: "en_US"}},
		{Subject: s, Predicate: p, Object: quad.LangString{Value: "x", Lang: ""}},
		{Subject: s, Predicate: p, Object: quad.String("\xff")},
		{Subject: s, Predicate: p, Object: o, Label: quad.String("g")},
	}
	for _, f := range Formats() {
		for i, q := range bad {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, f)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteQuad(q); !errors.Is(err, ErrInvalidTerm) {
				t.Errorf("%v #%d %v: got %v, want ErrInvalidTerm", f, i, q, err)
			}
			// The writer stays usable after a rejected quad.
			if err := w.WriteQuad(quad.Quad{Subject: s, Predicate: p, Object: o}); err != nil {
				t.Errorf("%v: good quad after a bad one: %v", f, err)
			}
			if err := w.Close(); err != nil {
				t.Errorf("%v: close: %v", f, err)
			}
			if err := w.WriteQuad(quad.Quad{Subject: s, Predicate: p, Object: o}); !errors.Is(err, ErrClosed) {
				t.Errorf("%v: write after close: %v", f, err)
			}
			back, err := collect(&buf, f, ParseOptions{})
			if err != nil || len(back) != 1 {
				t.Errorf("%v: output after a rejected quad: %v %v\n%s", f, err, back, buf.String())
			}
		}
	}
}

func TestBlankNodeLabelsSanitized(t *testing.T) {
	p := quad.IRI("http://a/p")
	qs := []quad.Quad{
		{Subject: quad.BNode("ok1"), Predicate: p, Object: quad.BNode("with space")},
		{Subject: quad.BNode("with space"), Predicate: p, Object: quad.BNode("trailing.")},
		{Subject: quad.BNode("-lead"), Predicate: p, Object: quad.BNode("ok1")},
	}
	roundTrip(t, qs)
}

func TestNQuadsKeepsGraphs(t *testing.T) {
	qs := []quad.Quad{
		{Subject: quad.IRI("http://a/s"), Predicate: quad.IRI("http://a/p"), Object: quad.String("x"), Label: quad.IRI("http://a/g")},
		{Subject: quad.IRI("http://a/s"), Predicate: quad.IRI("http://a/p"), Object: quad.String("x")},
	}
	want := "<http://a/s> <http://a/p> \"x\" <http://a/g> .\n<http://a/s> <http://a/p> \"x\" .\n"
	if got := string(writeAll(t, NQuads, qs)); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	want = "<http://a/s> <http://a/p> \"x\" .\n<http://a/s> <http://a/p> \"x\" .\n"
	if got := string(writeAll(t, NTriples, qs)); got != want {
		t.Errorf("N-Triples: got %q, want %q", got, want)
	}
}

// TestNTriplesCanonical compares our output with the canonical N-Triples
// files of the W3C suite (the files in the suite are canonical: the test
// names say which character each exercises).
func TestNTriplesCanonical(t *testing.T) {
	dir := sharedDir(t, "rdf-conformance/ntriples")
	for _, name := range []string{
		"literal_all_controls.nt", "literal_all_punctuation.nt", "literal_ascii_boundaries.nt",
		"literal_with_2_dquotes.nt", "literal_with_2_squotes.nt", "literal_with_CARRIAGE_RETURN.nt",
		"literal_with_LINE_FEED.nt", "literal_with_REVERSE_SOLIDUS.nt", "literal_with_UTF8_boundaries.nt",
		"literal_with_dquote.nt", "literal_with_squote.nt", "langtagged_string.nt", "lantag_with_subtag.nt",
		"literal_true.nt", "literal_false.nt", "literal.nt",
	} {
		want := readFile(t, dir+"/"+name)
		qs, err := ParseNTriples(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		got := writeAll(t, NTriples, qs)
		if canon, ok := canonicalInSuite(want); ok && !bytes.Equal(got, canon) {
			t.Errorf("%s:\ngot  %q\nwant %q", name, got, canon)
		}
	}
}

// canonicalInSuite returns the file's triple lines when the file is
// written in canonical form (no comments, single spaces, no \t \b \f
// escapes, which canonical form writes raw).
func canonicalInSuite(b []byte) ([]byte, bool) {
	s := string(b)
	if strings.Contains(s, "#") && !strings.Contains(s, "<http") || strings.Contains(s, `\t`) ||
		strings.Contains(s, `\b`) || strings.Contains(s, `\f`) || strings.Contains(s, `\u`) || strings.Contains(s, `\U`) {
		return nil, false
	}
	return b, true
}

func TestJSONLDChunksAndGraphs(t *testing.T) {
	var qs []quad.Quad
	for i := 0; i < 50; i++ {
		g := ontology.ResourceIRI("http://localhost:8080/", ontology.KindMolecule, "mol-"+string(rune('A'+i%26))+string(rune('a'+i/26)))
		for j := 0; j < 4; j++ {
			sub := ontology.SubIRI(g, "d"+string(rune('0'+j)))
			qs = append(qs,
				quad.Quad{Subject: g, Predicate: quad.IRI(ontology.SIO + "SIO_000008"), Object: sub, Label: g},
				quad.Quad{Subject: sub, Predicate: quad.IRI(ontology.SIO + "SIO_000300"), Object: ontology.Double(float64(i) + 0.25), Label: g},
				quad.Quad{Subject: sub, Predicate: ontology.RDFType, Object: quad.IRI(ontology.SIO + "CHEMINF_000334"), Label: g},
			)
		}
	}
	for _, keep := range []bool{false, true} {
		var buf bytes.Buffer
		w, err := NewWriterOptions(&buf, JSONLD, WriterOptions{ChunkSize: 7, KeepGraphs: keep})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if err := w.WriteQuad(q); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
		if _, ok := doc["@graph"].([]any); !ok {
			t.Fatalf("no top-level @graph array")
		}
		back, err := ParseJSONLD(&buf, "")
		if err != nil {
			t.Fatal(err)
		}
		want := qs
		if !keep {
			want = dropLabels(qs)
		}
		if !Isomorphic(back, want) {
			t.Errorf("keepGraphs=%v: expansion differs", keep)
		}
	}
}

func TestJSONLDEmptyAndContextURL(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriterOptions(&buf, JSONLD, WriterOptions{ContextURL: "http://localhost:8080/v1/context.jsonld"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	if doc["@context"] != "http://localhost:8080/v1/context.jsonld" {
		t.Errorf("context: %v", doc["@context"])
	}
	if g, ok := doc["@graph"].([]any); !ok || len(g) != 0 {
		t.Errorf("graph: %v", doc["@graph"])
	}
}

func TestContextMatchesPrefixes(t *testing.T) {
	var doc struct {
		Context map[string]any `json:"@context"`
	}
	if err := json.Unmarshal(ontology.Context(), &doc); err != nil {
		t.Fatal(err)
	}
	pre := ontology.Prefixes()
	if len(doc.Context) != len(pre) {
		t.Errorf("context has %d terms, spec/GRAPH.md %d prefixes", len(doc.Context), len(pre))
	}
	for _, p := range pre {
		if doc.Context[p.Name] != p.IRI {
			t.Errorf("context maps %s to %v, want %s", p.Name, doc.Context[p.Name], p.IRI)
		}
	}
	// Compaction uses the prefixes.
	out := string(writeAll(t, JSONLD, []quad.Quad{{Subject: quad.IRI("http://a/s"), Predicate: quad.IRI(ontology.MG + "qed"), Object: ontology.Double(0.55)}}))
	if !strings.Contains(out, `"mg:qed"`) || !strings.Contains(out, `"xsd:double"`) {
		t.Errorf("not compacted with the context:\n%s", out)
	}
}

func TestSortQuads(t *testing.T) {
	p := quad.IRI("http://a/p")
	qs := []quad.Quad{
		{Subject: quad.IRI("http://a/b"), Predicate: p, Object: quad.String("2")},
		{Subject: quad.IRI("http://a/a"), Predicate: p, Object: quad.String("1")},
		{Subject: quad.IRI("http://a/b"), Predicate: p, Object: quad.String("1")},
	}
	SortQuads(qs)
	got := string(writeAll(t, Turtle, qs))
	want := "<http://a/a> <http://a/p> \"1\" .\n\n<http://a/b> <http://a/p> \"1\", \"2\" .\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("got\n%s\nwant suffix\n%s", got, want)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterIOError(t *testing.T) {
	for _, f := range Formats() {
		w, _ := NewWriter(&failWriter{}, f)
		var err error
		for i := 0; i < 20000 && err == nil; i++ {
			err = w.WriteQuad(quad.Quad{Subject: quad.IRI(fmt.Sprintf("http://a/s%d", i)), Predicate: quad.IRI("http://a/p"), Object: ontology.Integer(int64(i))})
		}
		if err == nil {
			err = w.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%v: got %v, want the write error", f, err)
		}
	}
}
