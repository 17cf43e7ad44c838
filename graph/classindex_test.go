package graph

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestClassIndexBuiltAtOpen: a store written without the class index (its
// entries and marker removed, as a store of an earlier version) gets it at
// the next Open, and lists every member in IRI order.
func TestClassIndexBuiltAtOpen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	class := quad.IRI("https://w3id.org/molgraph/vocab#Molecule")
	var want []quad.IRI
	var graphs []NamedGraph
	for i := range 300 {
		g := quad.IRI(fmt.Sprintf("https://example.org/molecules/%x", i*7919))
		want = append(want, g)
		graphs = append(graphs, NamedGraph{IRI: g, Quads: []quad.Quad{{Subject: g, Predicate: quad.IRI(rdfType), Object: class}}})
	}
	if err := s.PutGraphs(ctx, graphs, nil); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	var dels []SideEntry
	if err := s.ScanSide(ctx, []byte{0}, func(k, _ []byte) error {
		dels = append(dels, SideEntry{Key: bytes.Clone(k)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(dels) != len(want)+1 {
		t.Fatalf("%d class index entries and marker, want %d", len(dels), len(want)+1)
	}
	if err := s.PutSide(ctx, dels); err != nil {
		t.Fatal(err)
	}
	if page, _, _ := s.ListByClass(ctx, class, "", 10); len(page) != 0 {
		t.Fatalf("index removed, yet a page of %d", len(page))
	}
	s.Close()
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, more, err := s.ListByClass(ctx, class, want[99], 100)
	if err != nil {
		t.Fatal(err)
	}
	if !more || !slices.Equal(got, want[100:200]) {
		t.Errorf("after the rebuild: page %v (more %v), want %v", got, more, want[100:200])
	}
}
