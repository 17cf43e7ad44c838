package quadstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestTermFilter: no false negatives, and a false positive rate near the
// design's 1% at capacity.
func TestTermFilter(t *testing.T) {
	const n = 200000
	defer func(old uint64) { filterMinKeys = old }(filterMinKeys)
	filterMinKeys = 1
	f := newTermFilter(n, 0)
	for i := 0; i < n; i++ {
		f.add(fmt.Appendf(nil, "tkey-%d", i))
	}
	for i := 0; i < n; i++ {
		if !f.mayContain(fmt.Appendf(nil, "tkey-%d", i)) {
			t.Fatalf("key %d added but absent", i)
		}
	}
	fp := 0
	for i := 0; i < n; i++ {
		if f.mayContain(fmt.Appendf(nil, "other-%d", i)) {
			fp++
		}
	}
	if rate := float64(fp) / n; rate > 0.02 {
		t.Errorf("false positive rate %.4f, want <= 0.02", rate)
	} else {
		t.Logf("false positive rate %.4f at %d of %d keys", rate, n, f.capacity)
	}
	if got := f.added.Load(); got != n {
		t.Errorf("added = %d, want %d", got, n)
	}
}

// TestFilterAfterReopen: after a reopen the filter is scanned from the
// dictionary; every stored term is still found through it, and a term
// the filter says is absent is absent.
func TestFilterAfterReopen(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	var gs []Graph
	for i := 0; i < 50; i++ {
		g := iri(fmt.Sprintf("g%d", i))
		gs = append(gs, Graph{Name: g, Quads: []quad.Quad{
			{Subject: g, Predicate: iri("label"), Object: quad.String(fmt.Sprintf("name %d", i))},
			{Subject: g, Predicate: iri("long"), Object: quad.String(fmt.Sprintf("%0600d", i))}, // a hashed dictionary key
		}})
	}
	if err := s.ReplaceGraphs(ctx, gs); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s)
	defer s.Close()
	s.waitFilter()
	f := s.filter.Load()
	if f == nil {
		t.Fatal("no term filter after the scan")
	}
	if got := f.added.Load(); got != s.st.nodes {
		t.Errorf("filter scanned %d keys, store has %d nodes", got, s.st.nodes)
	}
	for i := 0; i < 50; i++ {
		for _, o := range []quad.Value{quad.String(fmt.Sprintf("name %d", i)), quad.String(fmt.Sprintf("%0600d", i))} {
			if got := all(t, s, Pattern{Object: o}); len(got) != 1 {
				t.Errorf("object %.20v: %d quads, want 1", o, len(got))
			}
		}
	}
	if got := all(t, s, Pattern{Object: quad.String("never stored")}); len(got) != 0 {
		t.Errorf("an unknown term matched %d quads", len(got))
	}
}

// TestFilterOldSnapshot: a filter scanned after a term was deleted does
// not hold the term, so a snapshot from before the deletion must not use
// it; the snapshot still finds the term.
func TestFilterOldSnapshot(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	ctx := context.Background()
	g, gone := iri("g"), quad.String("deleted later")
	if err := s.ReplaceGraphs(ctx, []Graph{{Name: g, Quads: []quad.Quad{{Subject: g, Predicate: iri("p"), Object: gone}}}}); err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	defer snap.Close()
	if err := s.ReplaceGraphs(ctx, []Graph{{Name: g, Quads: []quad.Quad{{Subject: g, Predicate: iri("p"), Object: quad.String("now")}}}}); err != nil {
		t.Fatal(err)
	}
	s.wmu.Lock()
	s.startFilterBuild(1)
	s.wmu.Unlock()
	s.waitFilter()
	if f := s.filter.Load(); f == nil || f.mayContain(termKey(mustTerm(t, gone))) {
		t.Fatal("the rebuilt filter should not hold the deleted term (or there is none)")
	}
	n := 0
	err := snap.Match(ctx, Pattern{Object: gone}, func(quad.Quad) error { n++; return nil })
	if err != nil || n != 1 {
		t.Errorf("old snapshot: %d quads with the deleted term (err %v), want 1", n, err)
	}
	if got := all(t, s, Pattern{Object: gone}); len(got) != 0 {
		t.Errorf("current state: %d quads with the deleted term, want 0", len(got))
	}
}

func mustTerm(t *testing.T, v quad.Value) []byte {
	t.Helper()
	enc, err := AppendTerm(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestFilterBuildDuringCommits: terms committed while a filter is being
// scanned (from an older commit) are in the filter that replaces the old
// one.
func TestFilterBuildDuringCommits(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	ctx := context.Background()
	put := func(name string) {
		g := iri(name)
		if err := s.ReplaceGraphs(ctx, []Graph{{Name: g, Quads: []quad.Quad{{Subject: g, Predicate: iri("p"), Object: quad.String(name)}}}}); err != nil {
			t.Fatal(err)
		}
	}
	put("before")
	release := make(chan struct{})
	defer func() { filterScanHook = nil }()
	filterScanHook = func() { <-release }
	s.wmu.Lock()
	s.startFilterBuild(1)
	s.wmu.Unlock()
	put("during") // committed after the scan's snapshot
	close(release)
	s.waitFilter()
	put("after")
	s.terms = newTermCache(16) // lookups go to the filter and Badger
	for _, name := range []string{"before", "during", "after"} {
		if got := all(t, s, Pattern{Object: quad.String(name)}); len(got) != 1 {
			t.Errorf("%s: %d quads, want 1", name, len(got))
		}
	}
}
