package sparql

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestStarFilteredSteps runs stars whose consecutive steps all have
// compiled filters over more solutions than a batch holds, so that a
// step's flush runs the next filtered steps while it is still pushing
// (each step keeps its own candidates: a shared buffer was overwritten),
// and compares with the memory store (decoded, no batches).
func TestStarFilteredSteps(t *testing.T) {
	const prefix = "PREFIX ex: <" + ex + ">\n"
	xint := func(i int) quad.Value {
		return quad.TypedString{Value: quad.String(strconv.Itoa(i)), Type: quad.IRI(nsXSD + "integer")}
	}
	var qs []quad.Quad
	for i := 0; i < 6000; i++ {
		s := fmt.Sprintf("m%05d", i)
		qs = append(qs, tr(s, "a", xint(i)), tr(s, "d", xint(i%3)))
		for k := 0; k < 3; k++ { // three values each: a step pushes more than it reads
			qs = append(qs, tr(s, "b", xint((i+k)%7)), tr(s, "c", xint((i*13+k*1000)%2011)))
		}
	}
	data := map[string][]quad.Quad{ex + "g": qs}
	mem := openStore(t, data)
	cols := openColumnStore(t, data)
	if err := cols.BuildValues(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT (COUNT(*) AS ?n) (SUM(?x) AS ?sx) (SUM(?z) AS ?sz) WHERE { ?s ex:a ?x ; ex:b ?y ; ex:c ?z ; ex:d ?w FILTER(?x >= 10 && ?y < 6 && ?z > 5 && ?w IN (0, 2)) }",
		"SELECT ?s ?z WHERE { ?s ex:a ?x ; ex:c ?z ; ex:b ?y FILTER(?x < 5000 && ?z > 3 && ?y != 3) } ORDER BY ?s ?z",
		"SELECT ?y (COUNT(?s) AS ?n) WHERE { ?s ex:b ?y ; ex:c ?z ; ex:a ?x FILTER(?y <= 5 && ?z NOT IN (7, 8, 1001) && ?x > 100) } GROUP BY ?y ORDER BY ?y",
	} {
		want := selectStrings(t, mem, prefix+q, Options{})
		if got := selectStrings(t, cols, prefix+q, Options{}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %d %.300v\nwant %d %.300v", q, len(got), got, len(want), want)
		}
	}
}
