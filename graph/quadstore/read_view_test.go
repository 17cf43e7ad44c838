package quadstore

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// TestView compares a View with the Store's own reads on random data
// (quads in several graphs and in the default graph): Match with every
// combination of bound terms, Match with Triples (each triple of the named
// graphs once), MatchIDs with skipped positions, Count, Estimate and
// NumericRange; and checks that a view keeps reading its snapshot after a
// later commit.
func TestView(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(3))
	var gs []Graph
	for g := 0; g < 4; g++ {
		gr := Graph{Name: iri(fmt.Sprintf("g%d", g))}
		for i := 0; i < 120; i++ {
			gr.Quads = append(gr.Quads, randQuad(rng, gr.Name))
		}
		gs = append(gs, gr)
	}
	if err := s.ReplaceGraphs(ctx, gs); err != nil {
		t.Fatal(err)
	}
	// Quads of the default graph, some also in named graphs.
	var def []cgraph.Delta
	for i := 0; i < 40; i++ {
		q := randQuad(rng, nil)
		if i%4 == 0 {
			q = gs[i%3].Quads[i]
			q.Label = nil
		}
		def = append(def, cgraph.Delta{Quad: q, Action: cgraph.Add})
	}
	if err := s.ApplyDeltas(def, cgraph.IgnoreOpts{IgnoreDup: true}); err != nil {
		t.Fatal(err)
	}
	before := all(t, s, Pattern{})

	v, err := s.NewView()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	// A later commit is not seen by the view.
	if err := s.ReplaceGraphs(ctx, []Graph{{Name: iri("g0")}}); err != nil {
		t.Fatal(err)
	}

	var quads []quad.Quad
	for q := range before {
		quads = append(quads, q)
	}
	sort.Slice(quads, func(i, j int) bool { return quads[i].String() < quads[j].String() })
	var pats []Pattern
	pats = append(pats, Pattern{}, Pattern{Subject: iri("missing")})
	for i := 0; i < 60; i++ {
		q := quads[rng.Intn(len(quads))]
		var p Pattern
		if rng.Intn(2) == 0 {
			p.Subject = q.Subject
		}
		if rng.Intn(2) == 0 {
			p.Predicate = q.Predicate
		}
		if rng.Intn(2) == 0 {
			p.Object = q.Object
		}
		if rng.Intn(3) == 0 {
			p.Label = q.Label
		}
		pats = append(pats, p)
	}
	matches := func(p Pattern, q quad.Quad) bool {
		for d, t := range p.terms() {
			if t != nil && t != q.Get(quad.Direction(d+1)) {
				return false
			}
		}
		return true
	}
	for _, p := range pats {
		want := map[quad.Quad]bool{}
		wantTriples := map[quad.Quad]bool{}
		for q := range before {
			if matches(p, q) {
				want[q] = true
				if q.Label != nil {
					wantTriples[quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}] = true
				}
			}
		}
		got := map[quad.Quad]bool{}
		if err := v.Match(ctx, p, MatchOptions{}, func(q quad.Quad) error {
			if got[q] {
				t.Errorf("%v: %v twice", p, q)
			}
			got[q] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sameSet(t, fmt.Sprintf("view match %v", p), got, want)

		n, err := v.Count(ctx, p)
		if err != nil || n != int64(len(want)) {
			t.Errorf("Count(%v) = %d, %v; want %d", p, n, err, len(want))
		}
		e, err := v.Estimate(ctx, p, 5)
		if err != nil || e < n || len(want) <= 5 && e != n {
			t.Errorf("Estimate(%v, 5) = %d, %v; count %d", p, e, err, n)
		}
		if p.Label != nil {
			continue
		}
		got = map[quad.Quad]bool{}
		if err := v.Match(ctx, p, MatchOptions{Triples: true}, func(q quad.Quad) error {
			if got[q] {
				t.Errorf("%v triples: %v twice", p, q)
			}
			got[q] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sameSet(t, fmt.Sprintf("view triples %v", p), got, wantTriples)

		// Skipped positions are nil; the ids name the same terms.
		skip := [4]bool{rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0, false}
		err = v.MatchIDs(ctx, p, MatchOptions{Triples: true, Skip: skip}, func(q quad.Quad, id [4]uint64) error {
			for d := 0; d < 3; d++ {
				term := q.Get(quad.Direction(d + 1))
				bound := p.terms()[d] != nil
				if skip[d] && !bound && term != nil {
					t.Errorf("%v: position %d decoded though skipped", p, d)
				}
				if term == nil {
					continue
				}
				want, err := v.ID(term)
				if err != nil || want != id[d] {
					t.Errorf("%v: id of %v = %d, %v; MatchIDs said %d", p, term, want, err, id[d])
				}
			}
			if id[3] != 0 {
				t.Errorf("%v: label id %d with Triples", p, id[3])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// Numeric ranges, against a filter over the snapshot's quads.
	for i := 0; i < 20; i++ {
		r := Range{Min: float64(rng.Intn(6))/2 - 0.5, Max: math.Inf(1)}
		if rng.Intn(2) == 0 {
			r.Max = r.Min + float64(rng.Intn(4))/2
		}
		r.MinExclusive, r.MaxExclusive = rng.Intn(2) == 0, rng.Intn(2) == 0
		pred := iri(fmt.Sprintf("p%d", rng.Intn(3)))
		want, wantTriples := map[quad.Quad]bool{}, map[quad.Quad]bool{}
		for q := range before {
			if q.Predicate != pred {
				continue
			}
			if n, ok := numericOf(q.Object); ok && r.contains(n) {
				want[q] = true
				if q.Label != nil {
					wantTriples[quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}] = true
				}
			}
		}
		for _, triples := range []bool{false, true} {
			got := map[quad.Quad]bool{}
			err := v.NumericRange(ctx, pred, r, MatchOptions{Triples: triples}, func(q quad.Quad) error {
				if got[q] {
					t.Errorf("range %v: %v twice", r, q)
				}
				got[q] = true
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			w := want
			if triples {
				w = wantTriples
			}
			sameSet(t, fmt.Sprintf("view range %v %v triples=%v", pred, r, triples), got, w)
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := v.Match(ctx, Pattern{}, MatchOptions{}, func(quad.Quad) error { return nil }); err != ErrClosed {
		t.Errorf("Match on a closed view: %v, want ErrClosed", err)
	}
}
