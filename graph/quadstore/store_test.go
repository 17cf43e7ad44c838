package quadstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

const ex = "http://example.org/"

func iri(s string) quad.IRI { return quad.IRI(ex + s) }

func reopen(t *testing.T, s *Store) *Store {
	t.Helper()
	dir := s.db.Opts().Dir
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	return s2
}

func all(t *testing.T, s *Store, p Pattern) map[quad.Quad]bool {
	t.Helper()
	out := make(map[quad.Quad]bool)
	err := s.Match(context.Background(), p, func(q quad.Quad) error {
		if out[q] {
			t.Errorf("quad %v returned twice", q)
		}
		out[q] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// model is the reference: a set of quads.
type model map[quad.Quad]bool

func (m model) match(p Pattern) map[quad.Quad]bool {
	out := make(map[quad.Quad]bool)
	for q := range m {
		if (p.Subject == nil || q.Subject == p.Subject) && (p.Predicate == nil || q.Predicate == p.Predicate) &&
			(p.Object == nil || q.Object == p.Object) && (p.Label == nil || q.Label == p.Label) {
			out[q] = true
		}
	}
	return out
}

func (m model) nodes() int {
	n := make(map[quad.Value]bool)
	for q := range m {
		for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
			if v != nil {
				n[v] = true
			}
		}
	}
	return len(n)
}

func sameSet(t *testing.T, what string, got, want map[quad.Quad]bool) {
	t.Helper()
	for q := range want {
		if !got[q] {
			t.Errorf("%s: missing %v", what, q)
		}
	}
	for q := range got {
		if !want[q] {
			t.Errorf("%s: unexpected %v", what, q)
		}
	}
}

// checkModel compares the store with the model: every quad, the patterns
// of some probes with every combination of bound terms, the exact counts
// and Cayley's view.
func checkModel(t *testing.T, s *Store, m model, rng *rand.Rand) {
	t.Helper()
	sameSet(t, "all quads", all(t, s, Pattern{}), m)
	wantGraphs := map[quad.Value]bool{}
	for q := range m {
		if q.Label != nil {
			wantGraphs[q.Label] = true
		}
	}
	gotGraphs := map[quad.Value]bool{}
	if err := s.Graphs(context.Background(), func(g quad.Value) error {
		if gotGraphs[g] {
			t.Errorf("Graphs: %v twice", g)
		}
		gotGraphs[g] = true
		return nil
	}); err != nil || len(gotGraphs) != len(wantGraphs) {
		t.Errorf("Graphs = %v, %v; want %v", gotGraphs, err, wantGraphs)
	}
	q, n, err := s.Counts()
	if err != nil || q != int64(len(m)) || n != int64(m.nodes()) {
		t.Errorf("Counts = %d quads, %d nodes, %v; want %d, %d", q, n, err, len(m), m.nodes())
	}
	var probes []quad.Quad
	for q := range m {
		probes = append(probes, q)
		if len(probes) == 4 {
			break
		}
	}
	probes = append(probes, quad.Quad{Subject: iri("none"), Predicate: iri("p0"), Object: quad.String("v1"), Label: iri("g0")})
	for _, pr := range probes {
		for mask := 0; mask < 16; mask++ {
			var p Pattern
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
			want := m.match(p)
			sameSet(t, fmt.Sprintf("pattern %+v", p), all(t, s, p), want)
			if c, err := s.Count(context.Background(), p); err != nil || c != int64(len(want)) {
				t.Errorf("Count(%+v) = %d, %v; want %d", p, c, err, len(want))
			}
		}
	}
	// Cayley's view: the size of every direction iterator of a probe.
	for _, pr := range probes[:len(probes)-1] {
		for d := quad.Subject; d <= quad.Label; d++ {
			v := pr.Get(d)
			if v == nil {
				continue // the default graph has no node
			}
			want := 0
			for q := range m {
				if q.Get(d) == v {
					want++
				}
			}
			sz, err := s.QuadIteratorSize(context.Background(), d, s.ValueOf(v))
			if err != nil || sz.Size != int64(want) {
				t.Errorf("QuadIteratorSize(%v, %v) = %v, %v; want %d", d, v, sz, err, want)
			}
		}
	}
}

func randQuad(rng *rand.Rand, g quad.Value) quad.Quad {
	objs := []quad.Value{
		quad.String(fmt.Sprintf("v%d", rng.Intn(6))), iri(fmt.Sprintf("s%d", rng.Intn(6))),
		ontology.Double(float64(rng.Intn(5)) / 2), quad.LangString{Value: "x", Lang: "en"},
	}
	return quad.Quad{
		Subject:   iri(fmt.Sprintf("s%d", rng.Intn(6))),
		Predicate: iri(fmt.Sprintf("p%d", rng.Intn(3))),
		Object:    objs[rng.Intn(len(objs))],
		Label:     g,
	}
}

// TestModel applies random ReplaceGraphs and ApplyDeltas (mixed adds and
// deletes, duplicates, missing quads, quads in several graphs, the default
// graph) and compares the store with a plain set of quads after each, and
// after reopening; once with commits in one part, once cut into parts of
// 3 quad changes (as large commits are cut into parts of 4,096).
//
// A third run uses term filters of 16 keys, so that the filter fills up
// and is rebuilt (scanned on a goroutine while commits go on) many times;
// a fourth graph chunks of 2 quads.
func TestModel(t *testing.T) {
	for _, part := range []int{partChanges, 3} {
		t.Run(fmt.Sprintf("parts of %d", part), func(t *testing.T) {
			defer func(old int) { partChanges = old }(partChanges)
			partChanges = part
			testModel(t)
		})
	}
	t.Run("small term filters", func(t *testing.T) {
		defer func(old uint64) { filterMinKeys = old }(filterMinKeys)
		filterMinKeys = 16
		testModel(t)
	})
	// The table trimmer every millisecond, concurrently with everything.
	t.Run("trimming every ms", func(t *testing.T) {
		defer func(old time.Duration) { testTrim = old }(testTrim)
		testTrim = time.Millisecond
		testModel(t)
	})
	// Graph chunks of at most 2 quads: graphs of many chunks, which
	// commits split, empty and re-key.
	t.Run("chunks of 2", func(t *testing.T) {
		defer func(old int) { chunkMax = old }(chunkMax)
		chunkMax = 2
		testModel(t)
	})
}

func testModel(t *testing.T) {
	s := openTest(t)
	defer func() { s.Close() }()
	rng := rand.New(rand.NewSource(7))
	m := model{}
	ctx := context.Background()
	graphs := []quad.Value{iri("g0"), iri("g1"), iri("g2"), nil}
	for step := 0; step < 60; step++ {
		if rng.Intn(2) == 0 {
			var gs []Graph
			for _, g := range graphs[:3] {
				if rng.Intn(2) == 0 {
					continue
				}
				var qs []quad.Quad
				for i := rng.Intn(12); i > 0; i-- {
					qs = append(qs, randQuad(rng, g))
				}
				gs = append(gs, Graph{Name: g, Quads: qs})
				for q := range m {
					if q.Label == g {
						delete(m, q)
					}
				}
				for _, q := range qs {
					m[q] = true
				}
			}
			if err := s.ReplaceGraphs(ctx, gs); err != nil {
				t.Fatal(err)
			}
		} else {
			var ds []cgraph.Delta
			next := model{}
			for q := range m {
				next[q] = true
			}
			for i := rng.Intn(20); i > 0; i-- {
				q := randQuad(rng, graphs[rng.Intn(len(graphs))])
				if rng.Intn(3) == 0 && len(m) > 0 {
					for mq := range m { // a stored quad
						q = mq
						break
					}
				}
				if rng.Intn(2) == 0 {
					ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Add})
					next[q] = true
				} else {
					ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Delete})
					delete(next, q)
				}
			}
			if err := s.ApplyDeltas(ds, cgraph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}); err != nil {
				t.Fatal(err)
			}
			m = next
		}
		checkModel(t, s, m, rng)
		if t.Failed() {
			t.Fatalf("step %d", step)
		}
		if step%20 == 19 {
			s = reopen(t, s)
			checkModel(t, s, m, rng)
		}
	}
}

// TestNodeLosesMoreThanItGains: one delta list in which a subject loses
// more quads than it gains (the case Cayley's kv layer, molgraph's first
// backend, got wrong) stores exactly the net result.
func TestNodeLosesMoreThanItGains(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	g, subj := iri("g"), iri("mol")
	var before []quad.Quad
	for i := 0; i < 5; i++ {
		before = append(before, quad.Quad{Subject: subj, Predicate: iri(fmt.Sprintf("p%d", i)), Object: ontology.Integer(int64(i)), Label: g})
	}
	var ds []cgraph.Delta
	for _, q := range before {
		ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Add})
	}
	if err := s.ApplyDeltas(ds, cgraph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	added := []quad.Quad{
		{Subject: subj, Predicate: iri("p9"), Object: ontology.Double(1.5), Label: g},
		{Subject: subj, Predicate: iri("p0"), Object: quad.String("new"), Label: g},
	}
	ds = ds[:0]
	for _, q := range before[:4] {
		ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Delete})
	}
	for _, q := range added {
		ds = append(ds, cgraph.Delta{Quad: q, Action: cgraph.Add})
	}
	// Additions first, deletions last, too.
	ds = append(ds[4:], ds[:4]...)
	if err := s.ApplyDeltas(ds, cgraph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	want := map[quad.Quad]bool{before[4]: true, added[0]: true, added[1]: true}
	sameSet(t, "graph", all(t, s, Pattern{Label: g}), want)
	sameSet(t, "subject", all(t, s, Pattern{Subject: subj}), want)
	s = reopen(t, s)
	sameSet(t, "after reopen", all(t, s, Pattern{Subject: subj}), want)
	if q, n, _ := s.Counts(); q != 3 || n != 8 {
		t.Errorf("Counts = %d quads, %d nodes; want 3, 8", q, n)
	}
	// The terms of the deleted quads left the dictionary.
	if s.ValueOf(ontology.Integer(1)) != nil || s.ValueOf(iri("p1")) != nil {
		t.Error("terms of deleted quads are still in the dictionary")
	}
}

func TestApplyDeltasErrorsWriteNothing(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	q1 := quad.Quad{Subject: iri("a"), Predicate: iri("p"), Object: quad.String("x"), Label: iri("g")}
	q2 := quad.Quad{Subject: iri("b"), Predicate: iri("p"), Object: quad.String("y"), Label: iri("g")}
	if err := s.ApplyDeltas([]cgraph.Delta{{Quad: q1, Action: cgraph.Add}}, cgraph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		ds   []cgraph.Delta
		want error
	}{
		{"add existing", []cgraph.Delta{{Quad: q2, Action: cgraph.Add}, {Quad: q1, Action: cgraph.Add}}, cgraph.ErrQuadExists},
		{"delete missing", []cgraph.Delta{{Quad: q2, Action: cgraph.Add}, {Quad: q2, Action: cgraph.Delete}, {Quad: q2, Action: cgraph.Delete}}, cgraph.ErrQuadNotExist},
		{"bad action", []cgraph.Delta{{Quad: q2, Action: cgraph.Add}, {Quad: q2, Action: 7}}, cgraph.ErrInvalidAction},
		{"nil object", []cgraph.Delta{{Quad: q2, Action: cgraph.Add}, {Quad: quad.Quad{Subject: iri("c"), Predicate: iri("p")}, Action: cgraph.Add}}, ErrInvalidTerm},
		{"unknown type", []cgraph.Delta{{Quad: quad.Quad{Subject: iri("c"), Predicate: iri("p"), Object: otherValue{}}, Action: cgraph.Add}}, ErrInvalidTerm},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.ApplyDeltas(c.ds, cgraph.IgnoreOpts{})
			var de *cgraph.DeltaError
			if !errors.As(err, &de) || !errors.Is(de.Err, c.want) {
				t.Fatalf("err = %v, want a DeltaError with %v", err, c.want)
			}
			sameSet(t, "store", all(t, s, Pattern{}), map[quad.Quad]bool{q1: true})
		})
	}
	if err := s.ReplaceGraphs(context.Background(), []Graph{{Name: nil, Quads: []quad.Quad{q2}}}); !errors.Is(err, ErrInvalidTerm) {
		t.Errorf("graph without name: err = %v", err)
	}
	if err := s.ReplaceGraphs(context.Background(), []Graph{{Name: iri("g"), Quads: []quad.Quad{q2}}, {Name: iri("g")}}); !errors.Is(err, ErrInvalidTerm) {
		t.Errorf("graph given twice: err = %v", err)
	}
	sameSet(t, "store", all(t, s, Pattern{}), map[quad.Quad]bool{q1: true})
}

// TestLiteralRoundTrip stores every literal and reads it back, and finds it
// by value, before and after reopening.
func TestLiteralRoundTrip(t *testing.T) {
	s := openTest(t)
	defer func() { s.Close() }()
	g := iri("literals")
	vals := roundTripValues()
	var qs []quad.Quad
	for i, v := range vals {
		qs = append(qs, quad.Quad{Subject: g, Predicate: iri(fmt.Sprintf("p%02d", i)), Object: v})
	}
	if err := s.ReplaceGraphs(context.Background(), []Graph{{Name: g, Quads: qs}}); err != nil {
		t.Fatal(err)
	}
	check := func() {
		for i, v := range vals {
			var got []quad.Value
			s.Match(context.Background(), Pattern{Subject: g, Predicate: iri(fmt.Sprintf("p%02d", i))}, func(q quad.Quad) error {
				got = append(got, q.Object)
				return nil
			})
			if len(got) != 1 || !sameValue(v, got[0]) {
				t.Errorf("literal %d: stored %#v, read %#v", i, v, got)
			}
			if n := len(all(t, s, Pattern{Object: v, Label: g})); n != 1 {
				t.Errorf("literal %d (%#v): found %d times by value", i, v, n)
			}
		}
	}
	check()
	s.names = newNameCache(16) // read through the dictionary, not the cache
	s.terms.reset()
	check()
	s = reopen(t, s)
	check()
}

// TestLongTerms stores terms longer than the inline key limit.
func TestLongTerms(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	long := quad.String(strings.Repeat("C1CC", 5000))
	longIRI := iri(strings.Repeat("x", 2000))
	g := iri("g")
	if err := s.ReplaceGraphs(context.Background(), []Graph{{Name: g, Quads: []quad.Quad{{Subject: longIRI, Predicate: iri("p"), Object: long}}}}); err != nil {
		t.Fatal(err)
	}
	s.names = newNameCache(16)
	s.terms.reset()
	got := all(t, s, Pattern{Object: long})
	if len(got) != 1 || !got[quad.Quad{Subject: longIRI, Predicate: iri("p"), Object: long, Label: g}] {
		t.Errorf("long terms: %v", got)
	}
}

// ratOf is the exact value of a numeric literal per XSD, computed
// independently of the store with math/big.
func ratOf(t *testing.T, v quad.Value) (*big.Rat, bool) {
	ts, ok := v.(quad.TypedString)
	if !ok {
		return nil, false
	}
	lex := strings.TrimSpace(string(ts.Value))
	switch strings.TrimPrefix(string(ts.Type), ontology.XSD) {
	case "double":
		f, err := strconvParse(lex)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(f), true
	case "integer", "decimal":
		r, ok := new(big.Rat).SetString(lex)
		return r, ok
	}
	return nil, false
}

// TestNumericRange compares NumericRange with an exact brute-force filter
// over literals of several datatypes, including values that collide as
// float64 and bounds that equal stored values.
func TestNumericRange(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	p := iri("mw")
	lexes := []quad.Value{
		xsd("500", "double"), xsd("499.99", "double"), xsd("500.0000001", "double"), xsd("-3", "double"),
		xsd("-0.0", "double"), xsd("0", "integer"), xsd("1e2", "double"), xsd("NaN", "double"),
		xsd("INF", "double"), xsd("-INF", "double"), xsd("abc", "double"),
		xsd("9007199254740993", "integer"), xsd("9007199254740992", "integer"), xsd("9007199254740992.5", "decimal"),
		xsd("500", "integer"), xsd("499.999999999999999999", "decimal"), xsd("500.000000000000000001", "decimal"),
		xsd("7", "string"), quad.String("12"),
	}
	var gs []Graph
	for i, v := range lexes {
		g := iri(fmt.Sprintf("m%d", i))
		gs = append(gs, Graph{Name: g, Quads: []quad.Quad{{Subject: g, Predicate: p, Object: v}, {Subject: g, Predicate: iri("other"), Object: v}}})
	}
	if err := s.ReplaceGraphs(context.Background(), gs); err != nil {
		t.Fatal(err)
	}
	ranges := []Range{
		{Min: math.Inf(-1), Max: 500, MaxExclusive: true},
		{Min: math.Inf(-1), Max: 500},
		{Min: 500, Max: math.Inf(1)},
		{Min: 500, Max: math.Inf(1), MinExclusive: true},
		{Min: 9007199254740992, Max: 9007199254740992},
		{Min: 0, Max: 0},
		{Min: math.Inf(-1), Max: math.Inf(1)},
		{Min: 1, Max: -1},
	}
	for _, r := range ranges {
		want := map[string]bool{}
		for _, v := range lexes {
			x, ok := ratOf(t, v)
			inf := false
			if ts, isTS := v.(quad.TypedString); isTS && strings.HasSuffix(string(ts.Type), "#double") {
				switch ts.Value {
				case "INF":
					inf, ok = true, r.Max == math.Inf(1) && !r.MaxExclusive
				case "-INF":
					inf, ok = true, r.Min == math.Inf(-1) && !r.MinExclusive
				}
			}
			if !ok {
				continue
			}
			if inf {
				want[v.String()] = true
				continue
			}
			in := true
			if !math.IsInf(r.Min, -1) {
				c := x.Cmp(new(big.Rat).SetFloat64(r.Min))
				in = c > 0 || (c == 0 && !r.MinExclusive)
			}
			if in && !math.IsInf(r.Max, 1) {
				c := x.Cmp(new(big.Rat).SetFloat64(r.Max))
				in = c < 0 || (c == 0 && !r.MaxExclusive)
			}
			if in && r.Min <= r.Max {
				want[v.String()] = true
			}
		}
		got := map[string]bool{}
		var order []float64
		err := s.NumericRange(context.Background(), p, r, func(q quad.Quad) error {
			if q.Predicate != p {
				t.Errorf("range %+v: quad %v", r, q)
			}
			got[q.Object.String()] = true
			n, _ := numericOf(q.Object)
			order = append(order, n.f)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !sort.Float64sAreSorted(order) {
			t.Errorf("range %+v: not in ascending order: %v", r, order)
		}
		for k := range want {
			if !got[k] {
				t.Errorf("range %+v: missing %s", r, k)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("range %+v: unexpected %s", r, k)
			}
		}
	}
	// Deleting a graph removes its index entries.
	if err := s.ReplaceGraphs(context.Background(), []Graph{{Name: iri("m0")}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	s.NumericRange(context.Background(), p, Range{Min: 500, Max: 500}, func(quad.Quad) error { n++; return nil })
	if n != 1 { // integer 500 remains
		t.Errorf("after delete: %d values equal to 500, want 1", n)
	}
}

// TestSnapshotIsolation: a snapshot keeps seeing its commit while writers
// replace graphs, and concurrent readers only ever see whole graphs.
func TestSnapshotIsolation(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	ctx := context.Background()
	version := func(v, n int) []quad.Quad {
		var qs []quad.Quad
		for i := 0; i < n; i++ {
			qs = append(qs, quad.Quad{Subject: iri(fmt.Sprintf("atom%d", i)), Predicate: iri("version"), Object: ontology.Integer(int64(v))})
		}
		return qs
	}
	g := iri("calc")
	if err := s.ReplaceGraphs(ctx, []Graph{{Name: g, Quads: version(0, 3000)}}); err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				seen := map[quad.Value]int{}
				n := 0
				err := s.Match(ctx, Pattern{Label: g}, func(q quad.Quad) error { seen[q.Object]++; n++; return nil })
				if err != nil {
					errs <- err
					return
				}
				if len(seen) != 1 || (n != 3000 && n != 1500) {
					errs <- fmt.Errorf("reader saw %d quads of %d versions", n, len(seen))
					return
				}
			}
		}()
	}
	for v := 1; v <= 10; v++ {
		n := 3000
		if v%2 == 1 {
			n = 1500
		}
		if err := s.ReplaceGraphs(ctx, []Graph{{Name: g, Quads: version(v, n)}}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	err := snap.Match(ctx, Pattern{Label: g}, func(q quad.Quad) error {
		if q.Object != ontology.Integer(0) {
			t.Fatalf("snapshot sees %v", q)
		}
		n++
		return nil
	})
	if err != nil || n != 3000 {
		t.Errorf("snapshot: %d quads, %v", n, err)
	}
	// Cayley's iterators on the snapshot see the same commit.
	it := snap.QuadIterator(quad.Label, snap.ValueOf(g))
	n = 0
	for it.Next(ctx) {
		if snap.Quad(it.Result()).Object != ontology.Integer(0) {
			t.Fatal("snapshot iterator sees a later commit")
		}
		n++
	}
	if n != 3000 {
		t.Errorf("snapshot iterator: %d quads", n)
	}
	it.Close()
	snap.Close()
	if err := snap.ApplyDeltas(nil, cgraph.IgnoreOpts{}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("write to snapshot: %v", err)
	}
}

// TestUnchangedWriteWritesNothing: a write that changes nothing (a graph
// replaced by the same quads, a duplicate add that is ignored) writes no
// commit at all.
func TestUnchangedWriteWritesNothing(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	ctx := context.Background()
	g := benchMolecule(1)
	if err := s.ReplaceGraphs(ctx, []Graph{g}); err != nil {
		t.Fatal(err)
	}
	ts, top := s.readTs.Load(), s.db.MaxVersion()
	if err := s.ReplaceGraphs(ctx, []Graph{g}); err != nil {
		t.Fatal(err)
	}
	q := g.Quads[0]
	q.Label = g.Name
	if err := s.ApplyDeltas([]cgraph.Delta{{Quad: q, Action: cgraph.Add}}, cgraph.IgnoreOpts{IgnoreDup: true}); err != nil {
		t.Fatal(err)
	}
	if s.readTs.Load() != ts || s.db.MaxVersion() != top {
		t.Errorf("unchanged writes committed: timestamp %d -> %d, newest version %d -> %d", ts, s.readTs.Load(), top, s.db.MaxVersion())
	}
	if n, _, err := s.Counts(); n != 10 || err != nil {
		t.Errorf("%d quads, %v", n, err)
	}
}

// TestLargeCommit writes 300,000 quads in one atomic commit (far beyond one
// Badger transaction) and deletes them in another.
func TestLargeCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	s := openTest(t)
	defer s.Close()
	ctx := context.Background()
	var gs []Graph
	for i := 0; i < 30000; i++ {
		gs = append(gs, benchMolecule(i))
	}
	if err := s.ReplaceGraphs(ctx, gs); err != nil {
		t.Fatal(err)
	}
	if q, _, err := s.Counts(); q != 300000 || err != nil {
		t.Fatalf("%d quads, %v", q, err)
	}
	for i := range gs {
		gs[i].Quads = nil
	}
	if err := s.ReplaceGraphs(ctx, gs); err != nil {
		t.Fatal(err)
	}
	if q, n, err := s.Counts(); q != 0 || n != 0 || err != nil {
		t.Fatalf("after delete: %d quads, %d nodes, %v", q, n, err)
	}
}

func TestClosed(t *testing.T) {
	s := openTest(t)
	s.Close()
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Match(context.Background(), Pattern{}, func(quad.Quad) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Match: %v", err)
	}
	if err := s.ApplyDeltas(nil, cgraph.IgnoreOpts{}); !errors.Is(err, ErrClosed) {
		t.Errorf("ApplyDeltas: %v", err)
	}
}
