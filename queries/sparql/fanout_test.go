package sparql

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// TestFanoutStart: over data where the smallest pattern fans out (two
// jobs of 600 items each, a molecule per item) and a selective filter
// narrows another, the planner starts from the filtered pattern when the
// columns' statistics are there (counted in fanoutStarts), and every
// query gives exactly what the same store gives without columns (the
// greedy plan of estimates only), solutions in the same order.
func TestFanoutStart(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(7))
	var qs []quad.Quad
	for j := 0; j < 2; j++ {
		job := fmt.Sprintf("job%d", j)
		qs = append(qs, tr(job, "type", iri("Job")))
		for i := 0; i < 600; i++ {
			it, m := fmt.Sprintf("item%d_%d", j, i), fmt.Sprintf("m%d_%d", j, i)
			qs = append(qs, tr(it, "partOf", iri(job)), tr(it, "registered", iri(m)),
				tr(m, "qed", xsdLit(fmt.Sprintf("%.4f", rng.Float64()), "double")),
				tr(m, "type", iri("Molecule")))
			for k := 0; k < 1+i%4; k++ {
				d := fmt.Sprintf("%s_d%d", m, k)
				qs = append(qs, tr(m, "attr", iri(d)), tr(d, "type", iri(fmt.Sprintf("T%d", k))),
					tr(d, "value", xsdLit(fmt.Sprint(rng.Intn(200)), "integer")))
			}
		}
	}
	plain, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.PutGraph(ctx, "http://g/1", qs); err != nil {
		t.Fatal(err)
	}
	cols, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cols.Close()
	putIndexed(t, cols, "http://g/1", qs)

	const pre = "PREFIX : <http://example.org/> "
	for _, tc := range []struct {
		q      string
		starts bool // fanoutStart changes the plan
	}{
		{"SELECT ?job (COUNT(?m) AS ?n) WHERE { ?job :type :Job ; ^:partOf/:registered ?m . ?m :qed ?q FILTER(?q > 0.95) } GROUP BY ?job ORDER BY ?job", true},
		{"SELECT ?job ?m ?q WHERE { ?job :type :Job . ?it :partOf ?job ; :registered ?m . ?m :qed ?q FILTER(?q > 0.97) } ORDER BY ?m", true},
		// The greedy start (the rarest type) is already narrow; stars and
		// unselective filters keep the greedy start.
		{"SELECT (COUNT(*) AS ?n) WHERE { ?it :registered ?m . ?m :attr ?d . ?d :type :T3 . ?d :value ?v FILTER(?v > 150) }", false},
		{"SELECT (COUNT(?m) AS ?n) WHERE { ?m :qed ?q ; :type :Molecule FILTER(?q > 0.5) }", false},
		{"SELECT ?job (COUNT(?m) AS ?n) WHERE { ?job :type :Job ; ^:partOf/:registered ?m . ?m :qed ?q FILTER(?q > 0.01) } GROUP BY ?job ORDER BY ?job", false},
	} {
		want, err := Run(ctx, plain, pre+tc.q, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		wantRows, err := want.All()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Run(ctx, cols, pre+tc.q, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		ex := got.ex
		gotRows, err := got.All()
		if err != nil {
			t.Fatal(err)
		}
		if len(wantRows) == 0 {
			t.Fatalf("%s: no results", tc.q)
		}
		if !reflect.DeepEqual(gotRows, wantRows) {
			t.Errorf("%s:\n got %v\nwant %v", tc.q, gotRows, wantRows)
		}
		if (ex.fanoutStarts > 0) != tc.starts {
			t.Errorf("%s: fanoutStarts %d, want changed start %v", tc.q, ex.fanoutStarts, tc.starts)
		}
	}
}
