package quadstore

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// TestColumnCursor: after commits that leave overlays (added and deleted
// triples over a base), a cursor's Seek answers, for every key in
// ascending order, in random order and repeated, exactly what the
// columns' scan answers for that key, in both orders.
func TestColumnCursor(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	s.colb.foldMin.Store(1 << 30) // keep the overlays
	ctx := context.Background()
	rng := rand.New(rand.NewSource(5))
	var stored []quad.Quad
	for commit := 0; commit < 6; commit++ {
		var ds []cgraph.Delta
		for i := 0; i < 300; i++ {
			if len(stored) > 0 && rng.Intn(4) == 0 {
				k := rng.Intn(len(stored))
				ds = append(ds, cgraph.Delta{Quad: stored[k], Action: cgraph.Delete})
				stored = append(stored[:k], stored[k+1:]...)
				continue
			}
			q := quad.Quad{Subject: iri(fmt.Sprintf("s%d", rng.Intn(60))), Predicate: iri(fmt.Sprintf("p%d", rng.Intn(3))),
				Object: iri(fmt.Sprintf("o%d", rng.Intn(50))), Label: iri("g")}
			ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Add})
			stored = append(stored, q)
		}
		if err := s.ApplyDeltas(ds, cgraph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}); err != nil {
			t.Fatal(err)
		}
		stored = stored[:0]
		if err := s.Match(ctx, Pattern{}, func(q quad.Quad) error { stored = append(stored, q); return nil }); err != nil {
			t.Fatal(err)
		}
		if commit == 0 {
			if err := s.BuildColumns(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitColumns(t, s)
	v, err := s.NewView()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.cols == nil {
		t.Fatal("no columns")
	}
	overlays := 0
	for p, pc := range v.cols.preds {
		overlays += pc.overlay()
		for _, bySubject := range []bool{true, false} {
			col := pc.base.so.a
			if !bySubject {
				col = pc.base.os.a
			}
			var keys []uint64
			for k := uint64(0); k <= uint64(slices.Max(col))+3; k++ {
				keys = append(keys, k)
			}
			want := func(k uint64) []uint32 {
				var out []uint32
				bound := ids{0, p, 0}
				mask := [4]bool{bySubject, true, !bySubject}
				if bySubject {
					bound[0] = k
				} else {
					bound[2] = k
				}
				err := v.cols.scan(ctx, bound, mask, func(q ids) error {
					if bySubject {
						out = append(out, uint32(q[2]))
					} else {
						out = append(out, uint32(q[0]))
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			shuffled := slices.Clone(keys)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			c := v.ColumnCursor(p, bySubject)
			for _, order := range [][]uint64{keys, shuffled, keys} {
				found := 0
				for _, k := range order {
					for rep := 0; rep < 2; rep++ {
						got := c.Seek(k)
						if w := want(k); !reflect.DeepEqual(append([]uint32{}, got...), append([]uint32{}, w...)) {
							t.Fatalf("predicate %d bySubject %v key %d: %v, want %v", p, bySubject, k, got, w)
						}
						found += len(got)
					}
					// After: no key strictly between k and it finds
					// anything, and it is above k.
					after := c.After()
					if after <= k {
						t.Fatalf("predicate %d key %d: After %d", p, k, after)
					}
					for j := k + 1; j < after && j <= k+64; j++ {
						if w := want(j); len(w) > 0 {
							t.Fatalf("predicate %d bySubject %v: key %d between %d and After %d finds %v", p, bySubject, j, k, after, w)
						}
					}
				}
				if found == 0 {
					t.Fatalf("predicate %d: nothing found", p)
				}
			}
			// Stats: the triples exactly, the distinct keys at least
			// those that find something (an upper bound between folds)
			// and at most the triples.
			top := slices.Max(col)
			if add := pc.addSO.a; bySubject && len(add) > 0 {
				top = max(top, slices.Max(add))
			} else if add := pc.addOS.a; !bySubject && len(add) > 0 {
				top = max(top, slices.Max(add))
			}
			triples, distinct := 0, 0
			for k := uint64(0); k <= uint64(top); k++ {
				if n := len(want(k)); n > 0 {
					triples += n
					distinct++
				}
			}
			if n, d := c.Stats(); n != int64(triples) || d < int64(distinct) || d > n {
				t.Fatalf("predicate %d bySubject %v: Stats %d triples %d keys, want %d triples, >= %d keys", p, bySubject, n, d, triples, distinct)
			}
		}
	}
	if overlays == 0 {
		t.Fatal("no overlays: the test reads bases only")
	}
	if c := v.ColumnCursor(1<<40, true); c == nil || len(c.Seek(1)) != 0 || len(c.Seek(1<<33)) != 0 {
		t.Fatal("an absent predicate or a key beyond 32 bits finds something")
	}
}

// TestGallop checks gallop against a linear search.
func TestGallop(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < 70; n++ {
		col := make([]uint32, n)
		for i := range col {
			col[i] = uint32(rng.Intn(40))
		}
		slices.Sort(col)
		for v := uint32(0); v < 42; v++ {
			want := 0
			for want < n && col[want] < v {
				want++
			}
			for from := 0; from <= want; from++ {
				if got := gallop(col, from, v); got != want {
					t.Fatalf("%v from %d v %d: %d, want %d", col, from, v, got, want)
				}
			}
		}
	}
}
