package sparql

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/cayleygraph/quad"
)

// parStore is foldStoreN with 6,000 molecules (about six star batches
// per scan) and, committed apart (so the columns have a delta), twelve
// tags per molecule: a multi-valued step whose batches outgrow starJobMax.
func parStore(t *testing.T) Source {
	t.Helper()
	st := foldStoreN(t, 6000)
	var qs []quad.Quad
	for i := 0; i < 6000; i += 2 {
		for j := range 12 {
			qs = append(qs, tr(fmt.Sprintf("m%d", i), "tag", xsdLit(fmt.Sprint((i+j)%17), "integer")))
		}
	}
	putIndexed(t, st, "http://g/2", qs)
	return st
}

// parQueries add to foldQueries stars whose order, limits and fan-out
// matter to the parallel path.
var parQueries = []string{
	"SELECT ?m ?mw WHERE { ?m :type :Molecule ; :mw ?mw ; :hbd ?h FILTER(?mw < 400 && ?h < 4) }",
	"SELECT ?m ?mw WHERE { ?m :type :Molecule ; :mw ?mw ; :hbd ?h FILTER(?mw < 400 && ?h < 4) } LIMIT 2500",
	"SELECT ?m ?t ?h WHERE { ?m :type :Molecule ; :tag ?t ; :hbd ?h FILTER(?h < 5 && ?t > 3) }",
	"SELECT ?t (COUNT(?m) AS ?n) (SUM(?h) AS ?s) (GROUP_CONCAT(?h) AS ?hs) (SAMPLE(?m) AS ?x) WHERE { ?m :tag ?t ; :hbd ?h ; :mw ?mw FILTER(?mw > 300) } GROUP BY ?t",
	"SELECT (COUNT(DISTINCT ?h) AS ?n) (AVG(?mw) AS ?a) (AVG(?lp) AS ?b) WHERE { ?m :mw ?mw ; :logp ?lp ; :hbd ?h ; :odd ?o FILTER(?mw > 200) }",
	"SELECT ?m ?o WHERE { ?m :mw ?mw ; :odd ?o FILTER(?mw > 200 && ?o > 0) }",
	"SELECT ?m WHERE { ?m :mw ?mw ; :qed ?q FILTER(?mw > 200 && ?q > 0.3) MINUS { ?m :tag ?t FILTER(?t > 9) } }",
	"SELECT ?m ?s WHERE { ?m :qed ?q ; :smiles ?s ; :rot ?r FILTER(?q > 0.2 && ?r >= 2) FILTER(STRSTARTS(?s, \"C1\")) }",
	"ASK { ?m :mw ?mw ; :qed ?q FILTER(?mw > 640 && ?q > 0.99) }",
}

// TestParallelStar runs parallelStarMatches and parallelStarLimits on one
// store (building it is most of the test's time under -race).
func TestParallelStar(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("GOMAXPROCS < 2: no spare core to lend")
	}
	st := parStore(t)
	t.Run("MatchesSequential", func(t *testing.T) { parallelStarMatches(t, st) })
	t.Run("Limits", func(t *testing.T) { parallelStarLimits(t, st) })
}

// parallelStarMatches runs the benchmark's kinds of queries
// and tricky ones on a store of 6,000 molecules with a star's helpers
// starting after its first batch and without helpers, and compares the
// answers exactly, in order (also without ORDER BY: the parallel path
// keeps the sequential order). Run with -race.
func parallelStarMatches(t *testing.T, st Source) {
	const pre = "PREFIX : <http://example.org/> "
	h := NewHelpers(3)
	par := Options{Helpers: h, parAfter: 1}
	var jobs, helped, fallbacks int
	for _, q := range append(append([]string{}, foldQueries...), parQueries...) {
		seq, errSeq := runRows(st, pre+q, Options{}, nil)
		res, err := Run(context.Background(), st, pre+q, "", par)
		if err != nil {
			t.Fatal(err)
		}
		got, err := resultRows(res)
		jobs += res.ex.parJobs
		helped += res.ex.parHelped
		fallbacks += res.ex.parFallbacks
		if fmt.Sprint(err) != fmt.Sprint(errSeq) {
			t.Errorf("%s: error %v in parallel, %v sequentially", q, err, errSeq)
			continue
		}
		if !reflect.DeepEqual(got, seq) {
			t.Errorf("%s: %d rows in parallel, %d sequentially; first difference at %d", q, len(got), len(seq), firstDiff(got, seq))
		}
	}
	if jobs < 50 || helped == 0 || fallbacks == 0 || fallbacks == jobs {
		t.Errorf("%d batches in parallel parts, %d run by helpers, %d run again sequentially: the parallel path was not exercised", jobs, helped, fallbacks)
	}
	t.Logf("%d batches in parallel parts, %d run by helpers, %d run again sequentially", jobs, helped, fallbacks)
	if n := h.take(3); n != 3 {
		t.Errorf("%d of 3 helpers returned", n)
	}
}

// parallelStarLimits: the row cap, a consumer's error, a cancelled
// context and a memory budget with no room end a parallel star as they
// end a sequential one, and every helper is returned.
func parallelStarLimits(t *testing.T, st Source) {
	const q = "PREFIX : <http://example.org/> SELECT ?m ?t WHERE { ?m :type :Molecule ; :tag ?t ; :hbd ?h ; :mw ?mw FILTER(?h < 6 && ?mw > 0) }"
	h := NewHelpers(2)
	// The row cap.
	for _, opts := range []Options{{MaxRows: 20000}, {MaxRows: 20000, Helpers: h, parAfter: 1}} {
		res, err := Run(context.Background(), st, q, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = res.Solutions(func(Solution) error { n++; return nil })
		if !errors.Is(err, ErrRowLimit) || n != 20000 {
			t.Errorf("%+v: %d rows, %v; want 20000 and ErrRowLimit", opts, n, err)
		}
	}
	// The cap passed in the star's last batch (whose errors the
	// sequential path dropped before: sourceErr(nil, err) is nil).
	const q2 = "PREFIX : <http://example.org/> SELECT ?m WHERE { ?m :type :Molecule ; :hbd ?h ; :mw ?mw FILTER(?h < 7 && ?mw > 0) }"
	for _, opts := range []Options{{MaxRows: 5997}, {MaxRows: 5997, Helpers: h, parAfter: 1}} {
		res, err := Run(context.Background(), st, q2, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := res.All()
		if !errors.Is(err, ErrRowLimit) {
			t.Errorf("%s (%+v): %d rows, %v; want ErrRowLimit (6,000 solutions)", q2, opts, len(rows), err)
		}
	}
	// A consumer's error and a cancellation mid-star.
	stop := errors.New("stop")
	for _, cancelIt := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		res, err := Run(ctx, st, q, "", Options{Helpers: h, parAfter: 1})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = res.Solutions(func(Solution) error {
			if n++; n == 15000 {
				if cancelIt {
					cancel()
					return nil
				}
				return stop
			}
			return nil
		})
		cancel()
		if cancelIt && (err == nil || errors.Is(err, stop)) || !cancelIt && !errors.Is(err, stop) {
			t.Errorf("cancel %v: %v after %d rows", cancelIt, err, n)
		}
		if res.ex.parJobs == 0 {
			t.Errorf("cancel %v: no helper batch", cancelIt)
		}
	}
	// No room in the memory budget for the batches: sequential.
	res, err := Run(context.Background(), st, "PREFIX : <http://example.org/> SELECT (COUNT(?m) AS ?n) WHERE { ?m :type :Molecule ; :hbd ?h ; :mw ?mw FILTER(?h < 6 && ?mw > 0) }", "", Options{Helpers: h, parAfter: 1, MaxMemory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.All(); err != nil || res.ex.parJobs != 0 {
		t.Errorf("1 MiB budget: %v, %d helper batches", err, res.ex.parJobs)
	}
	if n := h.take(2); n != 2 {
		t.Errorf("%d of 2 helpers returned", n)
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
