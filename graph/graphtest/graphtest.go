// Package graphtest is the conformance suite of graph.Store: every backend
// (memory and Badger) runs Run and must pass all of it.
package graphtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// Factory returns a new, empty store for one test, and a reopen function
// that closes the store and opens it again on the same data (nil for
// volatile backends). The test closes the store it ends with.
type Factory func(t *testing.T, opt graph.Options) (s *graph.Store, reopen func(*graph.Store) *graph.Store)

// Run runs the whole suite against the backend made by f.
func Run(t *testing.T, f Factory) {
	tests := []struct {
		name string
		fn   func(t *testing.T, f Factory)
	}{
		{"PutGetGraph", testPutGet},
		{"ReplaceGraph", testReplace},
		{"DeleteGraph", testDelete},
		{"LiteralRoundTrip", testLiterals},
		{"Match", testMatch},
		{"ListByClass", testListByClass},
		{"PutGraphsChunked", testChunked},
		{"InvalidQuadsStoreNothing", testInvalid},
		{"LargeGraphAtomic", testLargeGraph},
		{"ConcurrentReadersSeeWholeGraphs", testConcurrent},
		{"Blobs", testBlobs},
		{"BlobCollect", testBlobCollect},
		{"Reopen", testReopen},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, f) })
	}
}

func open(t *testing.T, f Factory, opt graph.Options) (*graph.Store, func(*graph.Store) *graph.Store) {
	t.Helper()
	s, reopen := f(t, opt)
	return s, reopen
}

const base = "http://example.org/"

func res(kind string, i int) quad.IRI {
	return ontology.ResourceIRI(base, kind, fmt.Sprintf("%s-%06d", kind, i))
}

var (
	pType  = quad.IRI(ontology.RDF + "type")
	pMW    = quad.IRI(ontology.MG + "molecularWeight")
	pName  = quad.IRI(ontology.MG + "name")
	pAttr  = quad.IRI(ontology.SIO + "SIO_000008")
	pValue = quad.IRI(ontology.SIO + "SIO_000300")
	cMol   = quad.IRI(ontology.MG + "Molecule")
	cCalc  = quad.IRI(ontology.MG + "Calculation")
)

// molecule returns a molecule-like graph of 10 quads.
func molecule(i int) []quad.Quad {
	g := res("molecule", i)
	mw := ontology.SubIRI(g, "mw")
	return []quad.Quad{
		{Subject: g, Predicate: pType, Object: cMol},
		{Subject: g, Predicate: pName, Object: ontology.String(fmt.Sprintf("molecule %d", i))},
		{Subject: g, Predicate: pMW, Object: ontology.Double(100 + float64(i)/7)},
		{Subject: g, Predicate: quad.IRI(ontology.MG + "heavyAtoms"), Object: ontology.Integer(int64(i % 50))},
		{Subject: g, Predicate: quad.IRI(ontology.MG + "validated"), Object: ontology.Boolean(i%3 != 0)},
		{Subject: g, Predicate: quad.IRI(ontology.MG + "inchiKey"), Object: ontology.String(fmt.Sprintf("KEY%011d-UHFFFAOYSA-N", i))},
		{Subject: g, Predicate: pAttr, Object: mw},
		{Subject: mw, Predicate: pType, Object: quad.IRI(ontology.SIO + "CHEMINF_000334")},
		{Subject: mw, Predicate: pValue, Object: ontology.Double(100 + float64(i)/7)},
		{Subject: mw, Predicate: quad.IRI(ontology.SIO + "SIO_000221"), Object: quad.IRI(ontology.UNIT + "DA")},
	}
}

// sameQuads compares two quad sets, ignoring order; labels of want are set
// to g first.
func sameQuads(t *testing.T, g quad.IRI, got, want []quad.Quad) {
	t.Helper()
	w := make(map[quad.Quad]bool)
	for _, q := range want {
		q.Label = g
		w[q] = true
	}
	gs := make(map[quad.Quad]bool)
	for _, q := range got {
		gs[q] = true
		if !w[q] {
			t.Errorf("unexpected quad %v", q)
		}
	}
	for q := range w {
		if !gs[q] {
			t.Errorf("missing quad %v", q)
		}
	}
	if len(got) != len(gs) {
		t.Errorf("graph has %d quads, %d distinct", len(got), len(gs))
	}
}

func testPutGet(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	defer s.Close()
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if err := s.PutGraph(ctx, res("molecule", i), molecule(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 5; i++ {
		got, err := s.Graph(ctx, res("molecule", i))
		if err != nil {
			t.Fatal(err)
		}
		sameQuads(t, res("molecule", i), got, molecule(i))
	}
	if _, err := s.Graph(ctx, res("molecule", 99)); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("missing graph: err = %v, want ErrNotFound", err)
	}
	if ok, err := s.HasGraph(ctx, res("molecule", 3)); !ok || err != nil {
		t.Errorf("HasGraph = %v, %v", ok, err)
	}
	// Putting the same graph again writes nothing and changes nothing.
	if err := s.PutGraph(ctx, res("molecule", 0), molecule(0)); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Graph(ctx, res("molecule", 0))
	sameQuads(t, res("molecule", 0), got, molecule(0))
	var graphs []string
	if err := s.Graphs(ctx, func(g quad.IRI) error { graphs = append(graphs, string(g)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(graphs) != 5 {
		t.Errorf("Graphs listed %d graphs, want 5: %v", len(graphs), graphs)
	}
}

func testReplace(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	defer s.Close()
	ctx := context.Background()
	g1, g2 := res("molecule", 1), res("molecule", 2)
	if err := s.PutGraph(ctx, g1, molecule(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutGraph(ctx, g2, molecule(2)); err != nil {
		t.Fatal(err)
	}
	// New version of g1: drop the name, change the weight, add a quad that
	// shares nodes (the class, the unit) with g2.
	next := append([]quad.Quad(nil), molecule(1)...)
	next = append(next[:1], next[2:]...)
	next[1].Object = ontology.Double(1.5)
	next = append(next, quad.Quad{Subject: g1, Predicate: pAttr, Object: quad.IRI(ontology.UNIT + "DA")})
	if err := s.PutGraph(ctx, g1, next); err != nil {
		t.Fatal(err)
	}
	got, err := s.Graph(ctx, g1)
	if err != nil {
		t.Fatal(err)
	}
	sameQuads(t, g1, got, next)
	got, err = s.Graph(ctx, g2)
	if err != nil {
		t.Fatal(err)
	}
	sameQuads(t, g2, got, molecule(2))
	// The same quad in two graphs is two quads.
	shared := quad.Quad{Subject: quad.IRI(base + "shared"), Predicate: pName, Object: ontology.String("x")}
	if err := s.PutGraph(ctx, g1, append(next, shared)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutGraph(ctx, g2, append(molecule(2), shared)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutGraph(ctx, g1, next); err != nil {
		t.Fatal(err)
	}
	n := 0
	s.Match(ctx, graph.Pattern{Subject: shared.Subject}, func(q quad.Quad) error {
		n++
		if q.Label != g2 {
			t.Errorf("shared quad left in %v", q.Label)
		}
		return nil
	})
	if n != 1 {
		t.Errorf("shared quad found %d times, want 1", n)
	}
}

func testDelete(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	defer s.Close()
	ctx := context.Background()
	g := res("molecule", 7)
	if err := s.PutGraph(ctx, g, molecule(7)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutGraph(ctx, res("molecule", 8), molecule(8)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteGraph(ctx, g); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Graph(ctx, g); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("deleted graph: err = %v", err)
	}
	if err := s.DeleteGraph(ctx, g); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("second delete: err = %v, want ErrNotFound", err)
	}
	got, err := s.Graph(ctx, res("molecule", 8))
	if err != nil {
		t.Fatal(err)
	}
	sameQuads(t, res("molecule", 8), got, molecule(8))
	// An empty PutGraph deletes too, and the graph can come back.
	if err := s.PutGraph(ctx, res("molecule", 8), nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.HasGraph(ctx, res("molecule", 8)); ok {
		t.Error("empty PutGraph left the graph")
	}
	if err := s.PutGraph(ctx, g, molecule(7)); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Graph(ctx, g)
	sameQuads(t, g, got, molecule(7))
}

// Literals molgraph writes; each must come back as exactly the same Go
// value (type, lexical form, datatype, language).
func literals() []quad.Value {
	xsd := func(lex, typ string) quad.Value {
		return quad.TypedString{Value: quad.String(lex), Type: quad.IRI(ontology.XSD + typ)}
	}
	return []quad.Value{
		quad.String(""),
		quad.String("CC(=O)Oc1ccccc1C(=O)O"),
		quad.String("line 1\nline 2\ttab \"quoted\" back\\slash"),
		quad.String("Ünïcödé ✓ 𝔘 日本語"),
		quad.String("True"),
		quad.String("42"),
		quad.LangString{Value: "aspirin", Lang: "en"},
		quad.LangString{Value: "Acetylsalicylsäure", Lang: "de-CH"},
		ontology.Integer(0),
		ontology.Integer(-9223372036854775808),
		xsd("123456789012345678901234567890", "integer"),
		xsd("007", "integer"),
		ontology.Double(180.159),
		ontology.Double(-154.0793371),
		ontology.Double(1e-5),
		ontology.Double(6.02214076e23),
		ontology.Double(3),
		xsd("1.0E0", "double"),
		xsd("NaN", "double"),
		xsd("INF", "double"),
		xsd("-0.0", "double"),
		xsd("1.50", "decimal"),
		ontology.Boolean(true),
		ontology.Boolean(false),
		xsd("1", "boolean"),
		ontology.DateTime(time.Date(2026, 11, 21, 23, 2, 49, 123456789, time.UTC)),
		xsd("2026-11-21T23:02:49+01:00", "dateTime"),
		xsd("2026-11-21", "date"),
		quad.TypedString{Value: "<x/>", Type: quad.IRI(ontology.RDF + "XMLLiteral")},
		quad.TypedString{Value: "2", Type: quad.IRI("http://example.org/custom#type")},
	}
}

func testLiterals(t *testing.T, f Factory) {
	s, reopen := open(t, f, graph.Options{})
	ctx := context.Background()
	g := quad.IRI(base + "id/molecule/literals")
	var quads []quad.Quad
	for i, v := range literals() {
		quads = append(quads, quad.Quad{Subject: g, Predicate: quad.IRI(fmt.Sprintf("%sp%02d", ontology.MG, i)), Object: v})
	}
	if err := s.PutGraph(ctx, g, quads); err != nil {
		t.Fatal(err)
	}
	check := func(s *graph.Store) {
		t.Helper()
		for i, v := range literals() {
			p := quad.IRI(fmt.Sprintf("%sp%02d", ontology.MG, i))
			var got []quad.Value
			if err := s.Match(ctx, graph.Pattern{Subject: g, Predicate: p}, func(q quad.Quad) error {
				got = append(got, q.Object)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0] != v {
				t.Errorf("literal %d: stored %#v, read back %#v", i, v, got)
			}
			// And the literal is found by value.
			n := 0
			s.Match(ctx, graph.Pattern{Predicate: p, Object: v}, func(quad.Quad) error { n++; return nil })
			if n != 1 {
				t.Errorf("literal %d (%#v): lookup by value found %d quads", i, v, n)
			}
		}
	}
	check(s)
	if reopen != nil {
		s = reopen(s)
		check(s)
	}
	s.Close()
}

func testMatch(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	defer s.Close()
	ctx := context.Background()
	var all []quad.Quad
	for i := 0; i < 20; i++ {
		q := molecule(i)
		if err := s.PutGraph(ctx, res("molecule", i), q); err != nil {
			t.Fatal(err)
		}
		for _, x := range q {
			x.Label = res("molecule", i)
			all = append(all, x)
		}
	}
	// Every combination of bound terms, taken from real quads and from a
	// term that is not stored, must match exactly what a scan finds.
	probes := []quad.Quad{all[0], all[17], all[58], all[199]}
	probes = append(probes, quad.Quad{Subject: quad.IRI(base + "none"), Predicate: pMW, Object: ontology.Double(1), Label: quad.IRI(base + "none")})
	for _, pr := range probes {
		for mask := 0; mask < 16; mask++ {
			var p graph.Pattern
			if mask&1 != 0 {
				p.Subject = pr.Subject
			}
			if mask&2 != 0 {
				p.Predicate = pr.Predicate
			}
			if mask&4 != 0 {
				p.Object = pr.Object
			}
			if mask&8 != 0 {
				p.Label = pr.Label
			}
			want := 0
			for _, q := range all {
				if (p.Subject == nil || q.Subject == p.Subject) && (p.Predicate == nil || q.Predicate == p.Predicate) &&
					(p.Object == nil || q.Object == p.Object) && (p.Label == nil || q.Label == p.Label) {
					want++
				}
			}
			got := 0
			if err := s.Match(ctx, p, func(q quad.Quad) error {
				if (p.Subject != nil && q.Subject != p.Subject) || (p.Predicate != nil && q.Predicate != p.Predicate) ||
					(p.Object != nil && q.Object != p.Object) || (p.Label != nil && q.Label != p.Label) {
					t.Errorf("pattern %+v matched %v", p, q)
				}
				got++
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("pattern %+v: %d quads, want %d", p, got, want)
			}
			est, err := s.EstimateCount(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if est < int64(want) {
				t.Errorf("pattern %+v: estimate %d below actual %d", p, est, want)
			}
		}
	}
	// A callback error stops the scan and is returned.
	stop := errors.New("enough")
	n := 0
	err := s.Match(ctx, graph.Pattern{}, func(quad.Quad) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("callback error: err=%v after %d quads", err, n)
	}
	// A cancelled context stops it too.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Match(cctx, graph.Pattern{}, func(quad.Quad) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled match: err = %v", err)
	}
}

func testListByClass(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	defer s.Close()
	ctx := context.Background()
	var want []string
	for i := 0; i < 25; i++ {
		if err := s.PutGraph(ctx, res("molecule", i), molecule(i)); err != nil {
			t.Fatal(err)
		}
		want = append(want, string(res("molecule", i)))
	}
	calc := res("calculation", 1)
	if err := s.PutGraph(ctx, calc, []quad.Quad{{Subject: calc, Predicate: pType, Object: cCalc}}); err != nil {
		t.Fatal(err)
	}
	// A node typed mg:Molecule inside another resource's graph is not a
	// resource of its own.
	other := quad.IRI(string(calc) + "#species")
	if err := s.PutGraph(ctx, calc, []quad.Quad{{Subject: calc, Predicate: pType, Object: cCalc}, {Subject: other, Predicate: pType, Object: cMol}}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)
	var got []string
	after := quad.IRI("")
	for pages := 0; ; pages++ {
		page, more, err := s.ListByClass(ctx, cMol, after, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, iri := range page {
			got = append(got, string(iri))
		}
		if !more {
			break
		}
		after = page[len(page)-1]
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ListByClass = %v\nwant %v", got, want)
	}
	page, _, _ := s.ListByClass(ctx, cCalc, "", 10)
	if len(page) != 1 || page[0] != calc {
		t.Errorf("calculations: %v", page)
	}
	testListByClassChanges(t, f)
}

// listAll pages through class by pages of size and returns the IRIs.
func listAll(t *testing.T, s *graph.Store, class quad.IRI, size int) []string {
	t.Helper()
	var got []string
	after := quad.IRI("")
	for pages := 0; ; pages++ {
		page, more, err := s.ListByClass(context.Background(), class, after, size)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > size {
			t.Fatalf("page of %d for a limit of %d", len(page), size)
		}
		for _, iri := range page {
			got = append(got, string(iri))
		}
		if !more {
			return got
		}
		if len(page) == 0 || pages > 1000 {
			t.Fatal("pagination does not end")
		}
		after = page[len(page)-1]
	}
}

// testListByClassChanges: a graph that drops or changes its type, a
// deleted graph, IRIs of every length (some longer than any index key,
// sharing a long prefix) and a reopened store.
func testListByClassChanges(t *testing.T, f Factory) {
	s, reopen := open(t, f, graph.Options{})
	ctx := context.Background()
	long := strings.Repeat("x", 2000)
	var iris []quad.IRI
	for i := 0; i < 12; i++ {
		iris = append(iris, res("molecule", i))
	}
	// Long IRIs that share 2,000 bytes, one that is a prefix of the
	// others, and ones around them.
	for _, tail := range []string{"", "b", "a", "c2", "c10", "\u00e9"} {
		iris = append(iris, quad.IRI("https://example.org/m/"+long+tail))
	}
	iris = append(iris, quad.IRI("https://example.org/m/"+long[:900]), quad.IRI("https://example.org/m/y"))
	for _, g := range iris {
		if err := s.PutGraph(ctx, g, []quad.Quad{{Subject: g, Predicate: pType, Object: cMol}, {Subject: g, Predicate: pName, Object: quad.String("n")}}); err != nil {
			t.Fatal(err)
		}
	}
	// molecule 3 becomes a calculation, molecule 4 loses its type,
	// molecule 5 and one long IRI are deleted, molecule 6 is put again
	// unchanged.
	m := func(i int) quad.IRI { return res("molecule", i) }
	put := func(g quad.IRI, qs ...quad.Quad) {
		t.Helper()
		if err := s.PutGraph(ctx, g, qs); err != nil {
			t.Fatal(err)
		}
	}
	put(m(3), quad.Quad{Subject: m(3), Predicate: pType, Object: cCalc})
	put(m(4), quad.Quad{Subject: m(4), Predicate: pName, Object: quad.String("untyped")})
	put(m(6), quad.Quad{Subject: m(6), Predicate: pType, Object: cMol}, quad.Quad{Subject: m(6), Predicate: pName, Object: quad.String("n")})
	for _, g := range []quad.IRI{m(5), iris[14]} {
		if err := s.DeleteGraph(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for i, g := range iris {
		if g != m(3) && g != m(4) && g != m(5) && i != 14 {
			want = append(want, string(g))
		}
	}
	sort.Strings(want)
	check := func(s *graph.Store, when string) {
		t.Helper()
		for _, size := range []int{1, 2, 3, 7, 100} {
			if got := listAll(t, s, cMol, size); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s, pages of %d: ListByClass gives %d IRIs, not the %d in IRI order", when, size, len(got), len(want))
			}
		}
		// A cursor that is no member, inside the run of long IRIs.
		page, _, err := s.ListByClass(ctx, cMol, quad.IRI("https://example.org/m/"+long+"bb"), 2)
		if err != nil {
			t.Fatal(err)
		}
		i := sort.SearchStrings(want, "https://example.org/m/"+long+"bb")
		if len(page) != 2 || string(page[0]) != want[i] || string(page[1]) != want[i+1] {
			t.Errorf("%s: the page after a cursor inside the run of long IRIs is not the 2 IRIs after it", when)
		}
		if page, _, _ := s.ListByClass(ctx, cCalc, "", 0); len(page) != 1 || page[0] != m(3) {
			t.Errorf("%s: calculations = %v, want [%s]", when, page, m(3))
		}
		if all, more, _ := s.ListByClass(ctx, cMol, "", 0); more || len(all) != len(want) {
			t.Errorf("%s: limit 0 = %d members (more %v), want %d", when, len(all), more, len(want))
		}
	}
	check(s, "written")
	if reopen != nil {
		s = reopen(s)
		check(s, "reopened")
	}
	s.Close()
}

func testChunked(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{ChunkQuads: 95})
	defer s.Close()
	ctx := context.Background()
	var graphs []graph.NamedGraph
	for i := 0; i < 100; i++ {
		graphs = append(graphs, graph.NamedGraph{IRI: res("molecule", i), Quads: molecule(i)})
	}
	var calls []int
	if err := s.PutGraphs(ctx, graphs, func(done int) { calls = append(calls, done) }); err != nil {
		t.Fatal(err)
	}
	// 10-quad graphs, at most 95 quads per chunk: 9 graphs per chunk.
	if len(calls) != 12 || calls[len(calls)-1] != 100 {
		t.Errorf("progress calls = %v, want 12 chunks ending at 100", calls)
	}
	for i := 0; i < 100; i++ {
		got, err := s.Graph(ctx, res("molecule", i))
		if err != nil {
			t.Fatal(err)
		}
		sameQuads(t, res("molecule", i), got, molecule(i))
	}
	// The same graph twice in one call is a caller bug.
	if err := s.PutGraphs(ctx, []graph.NamedGraph{graphs[0], graphs[0]}, nil); !errors.Is(err, graph.ErrInvalidQuad) {
		t.Errorf("duplicate graph: err = %v", err)
	}
}

func testInvalid(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	defer s.Close()
	ctx := context.Background()
	g := res("molecule", 1)
	bad := [][]quad.Quad{
		{{Subject: ontology.String("literal subject"), Predicate: pName, Object: ontology.String("x")}},
		{{Subject: g, Predicate: quad.BNode("b"), Object: ontology.String("x")}},
		{{Subject: g, Predicate: pName, Object: nil}},
		{{Subject: g, Predicate: pName, Object: quad.Int(3)}},
		{{Subject: g, Predicate: pName, Object: quad.TypedString{Value: "3"}}},
	}
	for i, b := range bad {
		graphs := []graph.NamedGraph{{IRI: res("molecule", 2), Quads: molecule(2)}, {IRI: g, Quads: append(molecule(1), b...)}}
		if err := s.PutGraphs(ctx, graphs, nil); !errors.Is(err, graph.ErrInvalidQuad) {
			t.Errorf("bad quad %d: err = %v, want ErrInvalidQuad", i, err)
		}
	}
	if err := s.PutGraph(ctx, "", molecule(1)); !errors.Is(err, graph.ErrInvalidQuad) {
		t.Errorf("empty graph name: err = %v", err)
	}
	n := 0
	s.Match(ctx, graph.Pattern{}, func(quad.Quad) error { n++; return nil })
	if n != 0 {
		t.Errorf("rejected writes stored %d quads", n)
	}
}

// bigGraph has n quads; stock Cayley on Badger fails past ~15-20k quads in
// one transaction.
func bigGraph(g quad.IRI, n int, tag string) []quad.Quad {
	out := make([]quad.Quad, n)
	for i := range out {
		out[i] = quad.Quad{
			Subject:   ontology.SubIRI(g, fmt.Sprintf("atom-%d", i/4)),
			Predicate: quad.IRI(fmt.Sprintf("%sp%d", ontology.MG, i%4)),
			Object:    ontology.String(fmt.Sprintf("%s-%d", tag, i)),
		}
	}
	return out
}

func testLargeGraph(t *testing.T, f Factory) {
	s, reopen := open(t, f, graph.Options{ChunkQuads: 1000})
	ctx := context.Background()
	g := res("calculation", 9)
	const n = 60000
	if err := s.PutGraph(ctx, g, bigGraph(g, n, "a")); err != nil {
		t.Fatal(err)
	}
	got, err := s.Graph(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("large graph has %d quads, want %d", len(got), n)
	}
	// Replace it whole: every quad changes.
	if err := s.PutGraph(ctx, g, bigGraph(g, n, "b")); err != nil {
		t.Fatal(err)
	}
	if reopen != nil {
		s = reopen(s)
	}
	got, err = s.Graph(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	sameQuads(t, g, got, bigGraph(g, n, "b"))
	s.Close()
}

func testConcurrent(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	defer s.Close()
	ctx := context.Background()
	g := res("molecule", 1)
	versions := [][]quad.Quad{bigGraph(g, 300, "v0"), bigGraph(g, 500, "v1")}
	if err := s.PutGraph(ctx, g, versions[0]); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var reads atomic.Int64
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				got, err := s.Graph(ctx, g)
				if err != nil {
					t.Error(err)
					return
				}
				tags := map[string]int{}
				for _, q := range got {
					tags[strings.SplitN(string(q.Object.(quad.String)), "-", 2)[0]]++
				}
				if len(tags) != 1 || (tags["v0"] != 300 && tags["v1"] != 500) {
					t.Errorf("reader saw a partial graph: %v", tags)
					return
				}
				reads.Add(1)
			}
		}()
	}
	for i := 0; i < 20; i++ {
		if err := s.PutGraph(ctx, g, versions[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if reads.Load() == 0 {
		t.Error("no reads happened")
	}
}

func testBlobs(t *testing.T, f Factory) {
	s, reopen := open(t, f, graph.Options{})
	b := s.Blobs()
	// FIPS 180-2 test vector.
	ref, err := b.Put(strings.NewReader("abc"))
	if err != nil {
		t.Fatal(err)
	}
	if ref.SHA256 != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" || ref.Size != 3 {
		t.Errorf("Put(abc) = %+v", ref)
	}
	ref2, err := b.PutBytes([]byte("abc"))
	if err != nil || ref2 != ref {
		t.Errorf("second put: %+v, %v", ref2, err)
	}
	if reopen != nil {
		s = reopen(s)
		b = s.Blobs()
	}
	r, size, err := b.Open(ref.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(r)
	r.Close()
	if string(data) != "abc" || size != 3 {
		t.Errorf("read back %q (%d bytes)", data, size)
	}
	if !b.Has(ref.SHA256) {
		t.Error("Has = false")
	}
	missing := strings.Repeat("0", 64)
	if _, err := b.Get(missing); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("missing blob: %v", err)
	}
	for _, bad := range []string{"", "../../etc/passwd", strings.Repeat("A", 64), strings.Repeat("0", 63)} {
		if _, err := b.Get(bad); !errors.Is(err, graph.ErrInvalidBlobRef) {
			t.Errorf("Get(%q): %v, want ErrInvalidBlobRef", bad, err)
		}
	}
	if err := b.Delete(ref.SHA256); err != nil {
		t.Fatal(err)
	}
	if b.Has(ref.SHA256) {
		t.Error("blob still there after Delete")
	}
	s.Close()
}

func testReopen(t *testing.T, f Factory) {
	s, reopen := open(t, f, graph.Options{})
	if reopen == nil {
		s.Close()
		t.Skip("volatile backend")
	}
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		if err := s.PutGraph(ctx, res("molecule", i), molecule(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteGraph(ctx, res("molecule", 3)); err != nil {
		t.Fatal(err)
	}
	s = reopen(s)
	defer s.Close()
	for i := 0; i < 10; i++ {
		got, err := s.Graph(ctx, res("molecule", i))
		if i == 3 {
			if !errors.Is(err, graph.ErrNotFound) {
				t.Errorf("deleted graph after reopen: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		sameQuads(t, res("molecule", i), got, molecule(i))
	}
	// Writes keep working after a reopen.
	if err := s.PutGraph(ctx, res("molecule", 3), molecule(3)); err != nil {
		t.Fatal(err)
	}
}

func testClosed(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.PutGraph(ctx, res("molecule", 1), molecule(1)); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("PutGraph after Close: %v", err)
	}
	if _, err := s.Graph(ctx, res("molecule", 1)); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("Graph after Close: %v", err)
	}
	if err := s.Ready(ctx); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("Ready after Close: %v", err)
	}
}

// testBlobCollect checks what Blobs.Collect and Discard remove: an
// unreferenced blob once older than the grace period, a released one at
// once; never a referenced or pinned blob, nor one that a Put renewed after
// the graph was read.
func testBlobCollect(t *testing.T, f Factory) {
	s, _ := open(t, f, graph.Options{})
	defer s.Close()
	b := s.Blobs()
	ctx := context.Background()
	put := func(data string) string {
		t.Helper()
		ref, err := b.PutBytes([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return ref.SHA256
	}
	collect := func(use graph.BlobUses, grace time.Duration) graph.CollectStats {
		t.Helper()
		st, err := b.Collect(ctx, use, time.Now(), grace)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	const tick = 30 * time.Millisecond // above the file system's time granularity
	unref := func(string) graph.BlobUse { return graph.BlobUnreferenced }

	old := put("unreferenced")
	if st := collect(unref, time.Hour); st.Blobs != 0 || !b.Has(old) {
		t.Errorf("a young unreferenced blob was collected: %+v", st)
	}
	time.Sleep(tick)
	if st := collect(unref, tick/2); st.Blobs != 1 || b.Has(old) {
		t.Errorf("an old unreferenced blob was kept: %+v", st)
	}

	ref := put("referenced")
	released := put("released")
	uses := func(sha string) graph.BlobUse {
		switch sha {
		case ref:
			return graph.BlobReferenced
		case released:
			return graph.BlobReleased
		}
		return graph.BlobUnreferenced
	}
	time.Sleep(tick)
	if st := collect(uses, time.Hour); st.Blobs != 1 || !b.Has(ref) || b.Has(released) {
		t.Errorf("referenced %v (want kept), released %v (want removed): %+v", b.Has(ref), b.Has(released), st)
	}
	collect(uses, 0)
	if !b.Has(ref) {
		t.Error("a referenced blob was collected")
	}

	// A pin protects a blob whatever its age and use.
	pinned, unpin, err := b.PutPinned(strings.NewReader("pinned"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(tick)
	all := func(string) graph.BlobUse { return graph.BlobReleased }
	collect(all, 0)
	if !b.Has(pinned.SHA256) {
		t.Error("a pinned blob was collected")
	}
	unpin()
	unpin() // a second call does nothing
	collect(all, 0)
	if b.Has(pinned.SHA256) {
		t.Error("an unpinned released blob was kept")
	}

	// A Put of the same bytes after the graph was read renews the blob, as
	// a concurrent upload that will reference it does.
	again := put("put again")
	time.Sleep(tick)
	renewing := func(sha string) graph.BlobUse {
		if sha == again {
			put("put again")
		}
		return graph.BlobUnreferenced
	}
	collect(renewing, tick/2)
	if !b.Has(again) {
		t.Error("a blob put again during the collection was removed")
	}

	// Discard: kept while pinned by another Put or referenced.
	d1, un1, err := b.PutPinned(strings.NewReader("discard"))
	if err != nil {
		t.Fatal(err)
	}
	_, un2, err := b.PutPinned(strings.NewReader("discard"))
	if err != nil {
		t.Fatal(err)
	}
	un1()
	if err := b.Discard(d1.SHA256, unref); err != nil || !b.Has(d1.SHA256) {
		t.Errorf("discard of a blob pinned by another put: %v, present %v", err, b.Has(d1.SHA256))
	}
	un2()
	if err := b.Discard(d1.SHA256, func(string) graph.BlobUse { return graph.BlobReferenced }); err != nil || !b.Has(d1.SHA256) {
		t.Errorf("discard of a referenced blob: %v, present %v", err, b.Has(d1.SHA256))
	}
	if err := b.Discard(d1.SHA256, unref); err != nil || b.Has(d1.SHA256) {
		t.Errorf("discard: %v, present %v", err, b.Has(d1.SHA256))
	}
}
