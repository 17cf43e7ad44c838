package graph

import (
	"context"
	"testing"

	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

// TestIndexScans checks that the kv backend answers "?s <p> ?o" and
// "all quads of graph G" from an index (Cayley's default kv indexes would
// scan every quad for both).
func TestIndexScans(t *testing.T) {
	s, err := OpenKV(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	g := ontology.ResourceIRI("http://example.org/", "molecule", "mol-1")
	p := quad.IRI(ontology.MG + "molecularWeight")
	if err := s.PutGraph(ctx, g, []quad.Quad{{Subject: g, Predicate: p, Object: ontology.Double(180.159)}}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []quad.Direction{quad.Predicate, quad.Label, quad.Subject, quad.Object} {
		var term quad.Value
		switch d {
		case quad.Predicate:
			term = p
		case quad.Label, quad.Subject:
			term = g
		case quad.Object:
			term = ontology.Double(180.159)
		}
		qs := s.b.(*cayleyBackend).qs
		it := qs.QuadIterator(d, qs.ValueOf(term))
		if _, ok := it.(*kv.QuadIterator); !ok {
			t.Errorf("lookup by %v is a %T, not an index scan", d, it)
		}
		n := 0
		for it.Next(ctx) {
			n++
		}
		it.Close()
		if n != 1 {
			t.Errorf("lookup by %v found %d quads, want 1", d, n)
		}
	}
}
