package rdfio

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
)

func TestParseErrorPositions(t *testing.T) {
	tests := []struct {
		name      string
		f         Format
		in        string
		line, col int
		msg       string
	}{
		{"nt missing dot", NTriples, "<http://a/s> <http://a/p> <http://a/o>\n", 1, 39, "expected '.'"},
		{"nt relative IRI", NTriples, "<http://a/s> <p> <http://a/o> .\n", 1, 14, "relative IRI"},
		{"nt second line", NTriples, "<http://a/s> <http://a/p> \"x\" .\n<http://a/s> <http://a/p> 'x' .\n", 2, 27, "expected object"},
		{"nt two triples on a line", NTriples, "<http://a/s> <http://a/p> <http://a/o> . <http://a/s> <http://a/p> <http://a/o> .\n", 1, 42, "expected end of line"},
		{"nt bad escape", NTriples, `<http://a/s> <http://a/p> "a\qb" .`, 1, 30, "invalid string escape"},
		{"nt space in IRI", NTriples, "<http://a/s x> <http://a/p> <http://a/o> .", 1, 12, "not allowed in an IRI"},
		{"nq literal graph", NQuads, `<http://a/s> <http://a/p> <http://a/o> "g" .`, 1, 40, "expected '.'"},
		{"ttl undeclared prefix", Turtle, "@prefix ex: <http://a/> .\n\nex:s ex:p foo:o .", 3, 11, "undeclared prefix \"foo\""},
		{"ttl unterminated long string", Turtle, "<http://a/s> <http://a/p> \"\"\"abc\n\ndef .", 1, 27, "unterminated long string"},
		{"ttl literal subject", Turtle, `"s" <http://a/p> <http://a/o> .`, 1, 1, "unexpected"},
		{"ttl keyword as predicate", Turtle, `<http://a/s> true <http://a/o> .`, 1, 14, "expected predicate"},
		{"ttl missing dot at end", Turtle, "<http://a/s> <http://a/p> <http://a/o>", 1, 39, "expected '.'"},
		{"ttl bad unicode escape", Turtle, `<http://a/s> <http://a/p> "\uD800" .`, 1, 28, "no Unicode scalar value"},
		{"ttl invalid utf8", Turtle, "<http://a/s> <http://a/p> \"\xff\" .", 1, 28, "invalid UTF-8"},
		{"ttl nesting bomb", Turtle, "<http://a/s> <http://a/p> " + strings.Repeat("[ <http://a/p> ", 600), 1, 27 + 15*512, "nesting deeper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := collect(strings.NewReader(tc.in), tc.f, ParseOptions{})
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("got %v, want a *SyntaxError", err)
			}
			if se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("got %d:%d %q, want %d:%d containing %q", se.Line, se.Col, se.Msg, tc.line, tc.col, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "rdfio: parse "+tc.f.String()+":") {
				t.Errorf("message %q does not name the operation", err)
			}
		})
	}
}

// TestParseLiteralsExact checks that lexical forms and datatypes survive
// parsing unchanged (no numeric conversion, full datatype IRIs).
func TestParseLiteralsExact(t *testing.T) {
	const x = "http://www.w3.org/2001/XMLSchema#"
	doc := `@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://a/s> <http://a/p> 1, -05, +1.50, .5, 1E+01, 1.e3, true, false,
  "1.0"^^xsd:double, "2024-01-02T03:04:05.123456789Z"^^xsd:dateTime, "plain", "typed"^^xsd:string,
  "chat"@fr, "Chat"@EN-gb, """long
"quoted" ""x"" text""", '''single 'q' ''', "\t\u00e9\U0001F600" .`
	qs, err := ParseTurtle(strings.NewReader(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []quad.Value{
		quad.TypedString{Value: "1", Type: x + "integer"},
		quad.TypedString{Value: "-05", Type: x + "integer"},
		quad.TypedString{Value: "+1.50", Type: x + "decimal"},
		quad.TypedString{Value: ".5", Type: x + "decimal"},
		quad.TypedString{Value: "1E+01", Type: x + "double"},
		quad.TypedString{Value: "1.e3", Type: x + "double"},
		quad.TypedString{Value: "true", Type: x + "boolean"},
		quad.TypedString{Value: "false", Type: x + "boolean"},
		quad.TypedString{Value: "1.0", Type: x + "double"},
		quad.TypedString{Value: "2024-01-02T03:04:05.123456789Z", Type: x + "dateTime"},
		quad.String("plain"),
		quad.String("typed"),
		quad.LangString{Value: "chat", Lang: "fr"},
		quad.LangString{Value: "Chat", Lang: "EN-gb"},
		quad.String("long\n\"quoted\" \"\"x\"\" text"),
		quad.String("single 'q' "),
		quad.String("\té\U0001F600"),
	}
	if len(qs) != len(want) {
		t.Fatalf("got %d quads, want %d", len(qs), len(want))
	}
	for i, q := range qs {
		if q.Object != want[i] {
			t.Errorf("object %d: got %#v, want %#v", i, q.Object, want[i])
		}
	}
}

func TestParseTurtleBase(t *testing.T) {
	doc := `<a> <#p> <../b?q#f> .
@base <http://other/x/y> .
<c> <//host/p> <> .
BASE <z/>
<d> <http://a/p> <./e/../f> .`
	qs, err := ParseTurtle(strings.NewReader(doc), "http://ex.org/dir/doc")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"<http://ex.org/dir/a> <http://ex.org/dir/doc#p> <http://ex.org/b?q#f>",
		"<http://other/x/c> <http://host/p> <http://other/x/y>",
		"<http://other/x/z/d> <http://a/p> <http://other/x/z/f>",
	}
	for i, q := range qs {
		got := termKey(q.Subject) + " " + termKey(q.Predicate) + " " + termKey(q.Object)
		if got != want[i] {
			t.Errorf("triple %d: got %s, want %s", i, got, want[i])
		}
	}
}

// TestResolveRFC3986 runs the examples of RFC 3986, section 5.4.
func TestResolveRFC3986(t *testing.T) {
	const base = "http://a/b/c/d;p?q"
	cases := map[string]string{
		"g:h": "g:h", "g": "http://a/b/c/g", "./g": "http://a/b/c/g", "g/": "http://a/b/c/g/",
		"/g": "http://a/g", "//g": "http://g", "?y": "http://a/b/c/d;p?y", "g?y": "http://a/b/c/g?y",
		"#s": "http://a/b/c/d;p?q#s", "g#s": "http://a/b/c/g#s", "g?y#s": "http://a/b/c/g?y#s",
		";x": "http://a/b/c/;x", "g;x": "http://a/b/c/g;x", "g;x?y#s": "http://a/b/c/g;x?y#s",
		"": "http://a/b/c/d;p?q", ".": "http://a/b/c/", "./": "http://a/b/c/", "..": "http://a/b/",
		"../": "http://a/b/", "../g": "http://a/b/g", "../..": "http://a/", "../../": "http://a/",
		"../../g": "http://a/g", "../../../g": "http://a/g", "../../../../g": "http://a/g",
		"/./g": "http://a/g", "/../g": "http://a/g", "g.": "http://a/b/c/g.", ".g": "http://a/b/c/.g",
		"g..": "http://a/b/c/g..", "..g": "http://a/b/c/..g", "./../g": "http://a/b/g",
		"./g/.": "http://a/b/c/g/", "g/./h": "http://a/b/c/g/h", "g/../h": "http://a/b/c/h",
		"g;x=1/./y": "http://a/b/c/g;x=1/y", "g;x=1/../y": "http://a/b/c/y", "g?y/./x": "http://a/b/c/g?y/./x",
		"g?y/../x": "http://a/b/c/g?y/../x", "g#s/./x": "http://a/b/c/g#s/./x", "g#s/../x": "http://a/b/c/g#s/../x",
		"http:g": "http:g",
	}
	for ref, want := range cases {
		if got := ResolveIRI(base, ref); got != want {
			t.Errorf("resolve(%q) = %q, want %q", ref, got, want)
		}
	}
}

func TestParseNQuads(t *testing.T) {
	doc := "<http://a/s> <http://a/p> \"o\"@en <http://a/g> .\n" +
		"_:b <http://a/p> <http://a/o> _:g . # comment\n\n" +
		"<http://a/s> <http://a/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\r\n"
	qs, err := ParseNQuads(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 {
		t.Fatalf("got %d quads", len(qs))
	}
	if qs[0].Label != quad.IRI("http://a/g") || qs[2].Label != nil {
		t.Errorf("labels: %v, %v", qs[0].Label, qs[2].Label)
	}
	if _, ok := qs[1].Label.(quad.BNode); !ok {
		t.Errorf("blank graph label: %#v", qs[1].Label)
	}
	// N-Triples rejects the graph label.
	if _, err := ParseNTriples(strings.NewReader(doc)); !errors.Is(err, ErrSyntax) {
		t.Errorf("N-Triples accepted a quad: %v", err)
	}
}

func TestBlankNodesPerDocument(t *testing.T) {
	doc := "_:x <http://a/p> _:x .\n"
	a, err := ParseNTriples(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseNTriples(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Subject != a[0].Object {
		t.Error("same label, different nodes within one document")
	}
	if a[0].Subject == b[0].Subject {
		t.Error("two documents share a blank node")
	}
	var got []quad.Quad
	err = Parse(strings.NewReader("[] <http://a/p> [] ."), Turtle, ParseOptions{BlankNodePrefix: "d1_", Graph: quad.IRI("http://g")},
		func(q quad.Quad) error { got = append(got, q); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Subject != quad.BNode("d1_a1") || got[0].Object != quad.BNode("d1_a2") || got[0].Label != quad.IRI("http://g") {
		t.Errorf("got %v", got[0])
	}
}

func TestParseCallbackStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Parse(strings.NewReader("<http://a/s> <http://a/p> 1, 2, 3 ."), Turtle, ParseOptions{},
		func(quad.Quad) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("got %v after %d quads", err, n)
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestParseReadError(t *testing.T) {
	for _, f := range []Format{Turtle, NTriples, NQuads} {
		_, err := collect(failReader{}, f, ParseOptions{})
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%v: got %v, want the read error", f, err)
		}
	}
}
