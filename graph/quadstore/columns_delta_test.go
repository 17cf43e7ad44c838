package quadstore

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"sync"
	"testing"
	"time"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// waitColumns waits until the columns are those of the last commit.
func waitColumns(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c := s.cols.Load(); c != nil && c.ts == s.readTs.Load() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the columns did not catch up with the last commit")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// columnTriples reads every triple of the predicates preds in v, through
// the columns when v has them, and the triples of some subjects and
// objects, as sorted strings.
func columnTriples(t *testing.T, v *View, pats []Pattern) []string {
	t.Helper()
	var out []string
	for _, p := range pats {
		var ps []string
		var prev [4]uint64
		err := v.MatchIDs(context.Background(), p, MatchOptions{Triples: true}, func(q quad.Quad, id [4]uint64) error {
			ps = append(ps, fmt.Sprint(p, "|", q.Subject, q.Predicate, q.Object, id))
			// The columns read in the order of their permutation: POS
			// with the object bound, PSO otherwise.
			a, b := id[0], id[2]
			if p.Object != nil {
				a, b = b, a
			}
			if v.cols != nil && len(ps) > 1 && (a < prev[0] || a == prev[0] && b <= prev[1]) {
				t.Fatalf("%v: the columns read out of order", p)
			}
			prev = [4]uint64{a, b}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(ps)
		out = append(out, ps...)
	}
	return out
}

// TestColumnsDeltas: after each of many random commits (adds and deletes
// in several named graphs and the default graph, a triple often in two
// graphs), the view of the commit reads its columns, maintained from the
// commit's changes, and they answer exactly what Badger answers at that
// commit, read in the order of their permutation; old views keep
// answering for their commit; folds (small here) and a fold installed
// after later commits (rebased) change nothing.
func TestColumnsDeltas(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	s.colb.foldMin.Store(1 << 30) // no folds before commit 40
	ctx := context.Background()
	rng := rand.New(rand.NewSource(11))
	term := func(n int) quad.Value { return iri(fmt.Sprintf("n%d", rng.Intn(n))) }
	randQ := func() quad.Quad {
		var g quad.Value
		if k := rng.Intn(4); k > 0 {
			g = iri(fmt.Sprintf("g%d", k))
		}
		var o quad.Value = term(40)
		if rng.Intn(3) == 0 {
			o = quad.String(fmt.Sprintf("v%d", rng.Intn(30)))
		}
		return quad.Quad{Subject: term(40), Predicate: iri(fmt.Sprintf("p%d", rng.Intn(4))), Object: o, Label: g}
	}
	var stored []quad.Quad
	waitColumns(t, s)
	pats := func() []Pattern {
		ps := []Pattern{}
		for p := 0; p < 5; p++ {
			ps = append(ps, Pattern{Predicate: iri(fmt.Sprintf("p%d", p))})
		}
		for i := 0; i < 12; i++ {
			q := randQ()
			ps = append(ps, Pattern{Subject: q.Subject, Predicate: q.Predicate},
				Pattern{Predicate: q.Predicate, Object: q.Object},
				Pattern{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object})
		}
		return ps
	}
	type past struct {
		v    *View
		pats []Pattern
		want []string
	}
	var olds []past
	var stale *Columns
	for commit := 0; commit < 60; commit++ {
		var ds []cgraph.Delta
		for i := rng.Intn(40); i >= 0; i-- {
			if len(stored) > 0 && rng.Intn(3) == 0 {
				k := rng.Intn(len(stored))
				ds = append(ds, cgraph.Delta{Quad: stored[k], Action: cgraph.Delete})
				stored = append(stored[:k], stored[k+1:]...)
				continue
			}
			q := randQ()
			ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Add})
			stored = append(stored, q)
			if rng.Intn(4) == 0 { // the same triple in another graph
				q2 := q
				q2.Label = iri("g9")
				ds = append(ds, cgraph.Delta{Quad: q2, Action: cgraph.Add})
				stored = append(stored, q2)
			}
		}
		if commit%10 == 9 { // a whole graph replaced
			ds = ds[:0]
			var keep []quad.Quad
			for _, q := range stored {
				if q.Label != iri("g1") {
					keep = append(keep, q)
				}
			}
			stored = keep
			g := Graph{Name: iri("g1")}
			for i := 0; i < 30; i++ {
				q := randQ()
				q.Label = iri("g1")
				g.Quads = append(g.Quads, q)
				stored = append(stored, q)
			}
			if err := s.ReplaceGraphs(ctx, []Graph{g}); err != nil {
				t.Fatal(err)
			}
		} else if err := s.ApplyDeltas(ds, cgraph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}); err != nil {
			t.Fatal(err)
		}
		// stored may list a quad twice (added twice); keep it in step
		// with the store by reading it back.
		stored = stored[:0]
		if err := s.Match(ctx, Pattern{}, func(q quad.Quad) error { stored = append(stored, q); return nil }); err != nil {
			t.Fatal(err)
		}
		v, err := s.NewView()
		if err != nil {
			t.Fatal(err)
		}
		if v.cols == nil {
			t.Fatalf("commit %d: the view of the last commit has no columns", commit)
		}
		if commit == 20 {
			stale = v.cols
		}
		if commit == 40 { // a fold of commit 20's columns, installed now
			s.colb.foldMin.Store(1)
			s.foldColumns(ctx, stale)
			s.colb.foldMin.Store(16)
			v.Close()
			if v, err = s.NewView(); err != nil {
				t.Fatal(err)
			}
			rebased := 0
			for p, pc := range stale.preds {
				if now := v.cols.preds[p]; now != nil && pc.needsFold(1) {
					if now.base == pc.base {
						t.Fatal("the fold was not installed")
					}
					rebased++
				}
			}
			if rebased == 0 {
				t.Fatal("nothing to fold")
			}
		}
		plain := s.viewAt(v.ts)
		plain.cols = nil
		ps := pats()
		got, want := columnTriples(t, v, ps), columnTriples(t, plain, ps)
		plain.Close()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("commit %d: the columns read\n%v\nBadger\n%v", commit, got, want)
		}
		n := 0
		for _, pc := range v.cols.preds {
			n += pc.n
			if pc.n != pc.base.so.len()-pc.delSO.len()+pc.addSO.len() || pc.addSO.len() != pc.addOS.len() {
				t.Fatalf("commit %d: inconsistent predicate columns", commit)
			}
		}
		if n != v.cols.n || v.cols.Bytes() != int64(v.cols.n+2*v.cols.over)*16 {
			t.Fatalf("commit %d: %d triples counted, %d in the columns", commit, n, v.cols.n)
		}
		if commit%7 == 0 {
			olds = append(olds, past{v, ps, want})
		} else {
			v.Close()
		}
	}
	for _, o := range olds {
		if got := columnTriples(t, o.v, o.pats); fmt.Sprint(got) != fmt.Sprint(o.want) {
			t.Fatalf("an old view reads another commit's triples")
		}
		o.v.Close()
	}
	// A reopened store builds its columns again.
	s = reopen(t, s)
	waitColumns(t, s)
	v, _ := s.NewView()
	plain := s.viewAt(v.ts)
	plain.cols = nil
	ps := pats()
	if got, want := columnTriples(t, v, ps), columnTriples(t, plain, ps); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatal("after reopening, the columns differ from Badger")
	}
	v.Close()
	plain.Close()
}

// TestColumnsConcurrentFolds: readers read views while a writer commits
// and the builder folds (-race): each view reads exactly its commit.
func TestColumnsConcurrentFolds(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	s.colb.foldMin.Store(8)
	ctx := context.Background()
	waitColumns(t, s)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				v, err := s.NewView()
				if err != nil {
					errs <- err
					return
				}
				// The count of p0's triples must be what Badger counts.
				count := func(v *View) int {
					n := 0
					_ = v.MatchIDs(ctx, Pattern{Predicate: iri("p0")}, MatchOptions{Triples: true}, func(quad.Quad, [4]uint64) error { n++; return nil })
					return n
				}
				got := count(v)
				plain := s.viewAt(v.ts)
				plain.cols = nil
				want := count(plain)
				plain.Close()
				v.Close()
				if got != want {
					errs <- fmt.Errorf("a view read %d triples, Badger %d", got, want)
					return
				}
			}
		}()
	}
	rng := rand.New(rand.NewSource(3))
	var last []quad.Quad
	for i := 0; i < 150; i++ {
		var ds []cgraph.Delta
		for _, q := range last {
			if rng.Intn(2) == 0 {
				ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Delete})
			}
		}
		last = last[:0]
		for k := 0; k < 20; k++ {
			q := quad.Quad{Subject: iri(fmt.Sprintf("s%d", rng.Intn(300))), Predicate: iri("p0"), Object: iri(fmt.Sprintf("o%d", rng.Intn(50))), Label: iri("g")}
			ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Add})
			last = append(last, q)
		}
		if err := s.ApplyDeltas(ds, cgraph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	waitColumns(t, s)
	if c := s.cols.Load(); c.preds[mustID(t, s, iri("p0"))].base.so.len() == 0 {
		t.Fatal("no fold happened")
	}
}

func mustID(t *testing.T, s *Store, v quad.Value) uint64 {
	t.Helper()
	w, err := s.NewView()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id, err := w.ID(v)
	if err != nil || id == 0 {
		t.Fatal(v, id, err)
	}
	return id
}
