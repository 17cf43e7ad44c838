package quadstore

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// TestColumns: a view reading the columns answers every triple pattern
// with a bound predicate exactly as the Badger scan does (each triple of
// the named graphs once, the default graph left out), and a view of a
// later commit does not read columns built from an earlier one.
func TestColumns(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(7))
	var gs []Graph
	for g := 0; g < 5; g++ {
		gr := Graph{Name: iri(fmt.Sprintf("g%d", g))}
		for i := 0; i < 200; i++ {
			q := randQuad(rng, gr.Name)
			if i%5 == 0 && g > 0 {
				q = gs[g-1].Quads[i] // the same triple in two graphs
				q.Label = gr.Name
			}
			gr.Quads = append(gr.Quads, q)
		}
		gs = append(gs, gr)
	}
	if err := s.ReplaceGraphs(ctx, gs); err != nil {
		t.Fatal(err)
	}
	var def []cgraph.Delta
	for i := 0; i < 30; i++ {
		def = append(def, cgraph.Delta{Quad: randQuad(rng, nil), Action: cgraph.Add})
	}
	if err := s.ApplyDeltas(def, cgraph.IgnoreOpts{IgnoreDup: true}); err != nil {
		t.Fatal(err)
	}
	c, err := s.buildColumns(ctx)
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	s.cols.Store(c)
	withCols, err := s.NewView()
	if err != nil {
		t.Fatal(err)
	}
	defer withCols.Close()
	if withCols.Columns() == nil {
		t.Fatal("the view of the columns' commit does not read them")
	}
	plain := s.viewAt(withCols.ts)
	plain.cols = nil
	defer plain.Close()
	collect := func(v *View, p Pattern, skip [4]bool) (map[string]int, int) {
		got := map[string]int{}
		n := 0
		err := v.MatchIDs(ctx, p, MatchOptions{Triples: true, Skip: skip}, func(q quad.Quad, id [4]uint64) error {
			got[fmt.Sprint(q, id)]++
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, n
	}
	// Every pattern with a bound predicate, from the stored triples and
	// from terms that are not stored.
	var pats []Pattern
	for _, g := range gs {
		for i, q := range g.Quads {
			if i%7 != 0 {
				continue
			}
			pats = append(pats,
				Pattern{Predicate: q.Predicate},
				Pattern{Subject: q.Subject, Predicate: q.Predicate},
				Pattern{Predicate: q.Predicate, Object: q.Object},
				Pattern{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object},
				Pattern{Subject: q.Object, Predicate: q.Predicate},
				Pattern{Subject: iri("nowhere"), Predicate: q.Predicate})
		}
	}
	for _, p := range pats {
		for _, skip := range [][4]bool{{}, {true, false, false}, {false, false, true}} {
			want, wn := collect(plain, p, skip)
			got, gn := collect(withCols, p, skip)
			if gn != wn || len(got) != len(want) {
				t.Fatalf("%v skip %v: %d triples from the columns, %d from Badger", p, skip, gn, wn)
			}
			for k, n := range want {
				if got[k] != n {
					t.Fatalf("%v: %s: %d times from the columns, %d from Badger", p, k, got[k], n)
				}
			}
		}
	}
	if c.Triples() == 0 || c.Bytes() != int64(c.Triples())*16 {
		t.Fatalf("%d triples, %d bytes", c.Triples(), c.Bytes())
	}
	// A later commit: its views read Badger until the columns are rebuilt.
	if err := s.ReplaceGraphs(ctx, []Graph{{Name: iri("g0")}}); err != nil {
		t.Fatal(err)
	}
	later, err := s.NewView()
	if err != nil {
		t.Fatal(err)
	}
	if later.cols != nil && later.cols.ts != later.ts {
		t.Fatal("a view reads columns of another commit")
	}
	later.Close()
	// The builder catches up.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c := s.cols.Load(); c != nil && c.ts == s.readTs.Load() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the columns were not rebuilt after a commit")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
