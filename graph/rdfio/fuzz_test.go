package rdfio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// addSeeds adds inline seeds and, when present, the W3C suite files
// matching glob under ../shared/rdf-conformance/<dir>.
func addSeeds(f *testing.F, dir, glob string, inline ...string) {
	for _, s := range inline {
		f.Add([]byte(s))
	}
	d := sharedDir(f, filepath.Join("rdf-conformance", dir))
	files, _ := filepath.Glob(filepath.Join(d, glob))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

var turtleSeeds = []string{
	"@prefix mg: <https://w3id.org/molgraph/vocab#> .\n<http://x/m> a mg:Molecule ; mg:qed 0.55, \"1\"^^<http://www.w3.org/2001/XMLSchema#double> .",
	"PREFIX : <http://a/>\nBASE <http://b/c>\n:s :p ( 1 [ :q \"\"\"x\n\"y\"\"\" ] ) , _:b1 , <rel> .",
	"[ <http://a/p> 'x'@en-US ] <http://a/q> -1.5e+3, .5, true .",
}

func FuzzParseTurtle(f *testing.F) {
	addSeeds(f, "turtle", "*.ttl", turtleSeeds...)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseTurtle(bytes.NewReader(data), "http://example.org/base/doc")
	})
}

func FuzzParseNTriples(f *testing.F) {
	addSeeds(f, "ntriples", "*.nt", "<http://a/s> <http://a/p> \"x\\u00e9\"@en .\n_:b <http://a/p> \"1\"^^<http://a/dt> .")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseNTriples(bytes.NewReader(data))
	})
}

func FuzzParseNQuads(f *testing.F) {
	addSeeds(f, "ntriples", "*.nt", "<http://a/s> <http://a/p> \"x\" <http://a/g> .\n_:b <http://a/p> _:o _:g .")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseNQuads(bytes.NewReader(data))
	})
}

// FuzzRoundTrip: whatever Turtle our parser accepts, each writer must
// serialize, and our parsers must read back to an isomorphic graph.
func FuzzRoundTrip(f *testing.F) {
	addSeeds(f, "turtle", "*.ttl", turtleSeeds...)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return // keep the isomorphism search small
		}
		qs, err := ParseTurtle(bytes.NewReader(data), "http://example.org/base/doc")
		if err != nil || len(qs) > 200 {
			return
		}
		for _, format := range []Format{Turtle, NTriples, NQuads} {
			var buf bytes.Buffer
			if err := WriteAll(&buf, format, qs); err != nil {
				t.Fatalf("%v: cannot write parsed graph: %v", format, err)
			}
			back, err := collect(bytes.NewReader(buf.Bytes()), format, ParseOptions{})
			if err != nil {
				t.Fatalf("%v: cannot re-parse our output: %v\n%s", format, err, buf.Bytes())
			}
			if !Isomorphic(back, qs) {
				t.Fatalf("%v: round trip differs:\n%s", format, buf.Bytes())
			}
		}
	})
}

func FuzzParseJSONLD(f *testing.F) {
	for _, s := range []string{
		`{"@id": "http://a/s", "http://a/p": [{"@value": "1", "@type": "http://www.w3.org/2001/XMLSchema#integer"}, {"@id": "_:b"}]}`,
		`{"@context": {"p": "http://a/p"}, "@graph": [{"@id": "http://a/s", "p": {"@value": "x", "@language": "en"}}]}`,
		`[{"@id": "http://a/s", "http://a/p": {"@list": [1, 2, {"@list": []}]}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseJSONLD(bytes.NewReader(data), "http://example.org/base/doc")
	})
}
