package rdfio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/cayleygraph/quad"
)

// sharedDir returns ../shared/<sub> relative to the module root (the
// directory holding go.mod), skipping the test when it is absent.
func sharedDir(t testing.TB, sub string) string {
	t.Helper()
	return sharedtest.Dir(t, sub)
}

const (
	mfNS   = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
	rdftNS = "http://www.w3.org/ns/rdftest#"
)

type w3cTest struct {
	id, name, typ  string
	action, result string // IRIs
}

// readManifest parses a W3C manifest with our own Turtle parser and lists
// its entries in order.
func readManifest(t *testing.T, path, base string) []w3cTest {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := ParseTurtle(f, base)
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	idx := map[string]map[string][]quad.Value{}
	for _, q := range qs {
		s := termKey(q.Subject)
		if idx[s] == nil {
			idx[s] = map[string][]quad.Value{}
		}
		p := string(q.Predicate.(quad.IRI))
		idx[s][p] = append(idx[s][p], q.Object)
	}
	one := func(s quad.Value, p string) quad.Value {
		if vs := idx[termKey(s)][p]; len(vs) > 0 {
			return vs[0]
		}
		return nil
	}
	str := func(v quad.Value) string {
		switch v := v.(type) {
		case quad.IRI:
			return string(v)
		case quad.String:
			return string(v)
		}
		return ""
	}
	var out []w3cTest
	list := one(quad.IRI(base), mfNS+"entries")
	for list != nil && list != quad.IRI(rdfNil) {
		e := one(list, rdfFirst)
		out = append(out, w3cTest{
			id:     str(e),
			name:   str(one(e, mfNS+"name")),
			typ:    strings.TrimPrefix(str(one(e, rdfType)), rdftNS),
			action: str(one(e, mfNS+"action")),
			result: str(one(e, mfNS+"result")),
		})
		list = one(list, rdfRest)
	}
	if len(out) == 0 {
		t.Fatal("manifest lists no tests")
	}
	return out
}

// w3cSkips lists the tests we do not run, each with its reason.
var w3cSkips = map[string]string{}

func TestW3CTurtle(t *testing.T) {
	dir := sharedDir(t, "rdf-conformance/turtle")
	const base = "https://w3c.github.io/rdf-tests/rdf/rdf11/rdf-turtle/"
	tests := readManifest(t, filepath.Join(dir, "manifest.ttl"), base+"manifest.ttl")
	if len(tests) != 313 {
		t.Errorf("manifest lists %d tests, README says 313", len(tests))
	}
	counts := map[string]int{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if why, ok := w3cSkips[tc.name]; ok {
				t.Skip(why)
			}
			local := func(iri string) string {
				return filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(iri, base)))
			}
			data, err := os.ReadFile(local(tc.action))
			if err != nil {
				t.Fatal(err)
			}
			got, perr := ParseTurtle(bytes.NewReader(data), tc.action)
			switch tc.typ {
			case "TestTurtlePositiveSyntax":
				if perr != nil {
					t.Fatalf("rejected valid document: %v\n%s", perr, data)
				}
			case "TestTurtleNegativeSyntax", "TestTurtleNegativeEval":
				if perr == nil {
					t.Fatalf("accepted invalid document:\n%s", data)
				}
			case "TestTurtleEval":
				if perr != nil {
					t.Fatalf("rejected valid document: %v\n%s", perr, data)
				}
				want := readNT(t, local(tc.result))
				if !Isomorphic(got, want) {
					t.Fatalf("graph differs from %s\ninput:\n%s\ngot:\n%s\nwant:\n%s", tc.result, data,
						dumpNT(got), dumpNT(want))
				}
				roundTrip(t, got)
			default:
				t.Fatalf("unknown test type %q", tc.typ)
			}
			counts[tc.typ]++
		})
	}
	t.Logf("passed: %v", counts)
}

func TestW3CNTriples(t *testing.T) {
	dir := sharedDir(t, "rdf-conformance/ntriples")
	const base = "https://w3c.github.io/rdf-tests/rdf/rdf11/rdf-n-triples/"
	tests := readManifest(t, filepath.Join(dir, "manifest.ttl"), base+"manifest.ttl")
	if len(tests) != 70 {
		t.Errorf("manifest lists %d tests, README says 70", len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if why, ok := w3cSkips[tc.name]; ok {
				t.Skip(why)
			}
			data, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(tc.action, base)))
			if err != nil {
				t.Fatal(err)
			}
			got, perr := ParseNTriples(bytes.NewReader(data))
			switch tc.typ {
			case "TestNTriplesPositiveSyntax":
				if perr != nil {
					t.Fatalf("rejected valid document: %v\n%s", perr, data)
				}
				roundTrip(t, got)
			case "TestNTriplesNegativeSyntax":
				if perr == nil {
					t.Fatalf("accepted invalid document:\n%s", data)
				}
			default:
				t.Fatalf("unknown test type %q", tc.typ)
			}
			// Every N-Triples document is also Turtle (and N-Quads).
			if perr == nil {
				if _, err := ParseTurtle(bytes.NewReader(data), tc.action); err != nil {
					t.Errorf("turtle parser rejects valid N-Triples: %v", err)
				}
				if _, err := ParseNQuads(bytes.NewReader(data)); err != nil {
					t.Errorf("n-quads parser rejects valid N-Triples: %v", err)
				}
			}
		})
	}
}

func readNT(t *testing.T, path string) []quad.Quad {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := ParseNTriples(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return qs
}

func dumpNT(qs []quad.Quad) string {
	var b []byte
	for _, q := range qs {
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object} {
			b = append(b, termKey(v)...)
			b = append(b, ' ')
		}
		b = append(b, ".\n"...)
	}
	return string(b)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
