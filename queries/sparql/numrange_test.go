package sparql

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// *graph.Store offers numeric range scans.
var _ NumericRanger = (*graph.Store)(nil)

// countingRanger counts the NumericRange calls the engine makes.
type countingRanger struct {
	*graph.Store
	calls int
}

// ReadView hides the Store's, so that every NumericRange call is counted
// here (the engine then reads through the Store itself).
func (c *countingRanger) ReadView() {}

func (c *countingRanger) NumericRange(ctx context.Context, pred quad.IRI, r graph.Range, fn func(quad.Quad) error) error {
	c.calls++
	return c.Store.NumericRange(ctx, pred, r, fn)
}

// numObjects are the objects of the randomized data: numbers of every
// numeric type (including forms only the lexical rules tell apart, NaN and
// the infinities), strings and other literals that look like numbers,
// ill-typed numeric literals, IRIs.
func numObjects() []quad.Value {
	typed := func(v, t string) quad.Value {
		return quad.TypedString{Value: quad.String(v), Type: quad.IRI(nsXSD + t)}
	}
	return []quad.Value{
		typed("0", "integer"), typed("1", "integer"), typed("-1", "integer"), typed("5", "integer"),
		typed("+5", "integer"), typed("007", "integer"), typed("500", "integer"), typed("-0", "integer"),
		typed("9007199254740993", "integer"), typed("123456789012345678901234567890", "integer"),
		typed("5", "int"), typed("120", "byte"), typed("300", "byte"), typed("7", "unsignedShort"),
		typed("-3", "nonPositiveInteger"), typed("4", "long"),
		typed("0.1", "decimal"), typed("5.0", "decimal"), typed(".5", "decimal"), typed("5.", "decimal"),
		typed("-2.5", "decimal"), typed("4.99999999999999999999", "decimal"), typed("5.00000000000000000001", "decimal"),
		typed("499.99", "decimal"), typed("500.0000000000000000001", "decimal"),
		typed("0.1", "double"), typed("5", "double"), typed("5.0E0", "double"), typed("-1e2", "double"),
		typed("4.999999999999999", "double"), typed("1.e1", "double"), typed("INF", "double"),
		typed("-INF", "double"), typed("NaN", "double"), typed("-0.0", "double"), typed("499.99", "double"),
		typed("0.1", "float"), typed("5", "float"), typed("0.100000001", "float"), typed("NaN", "float"),
		typed("INF", "float"), typed("3.4e38", "float"), typed("16777217", "float"), typed("1e-400", "double"),
		typed("abc", "integer"), typed("5.5", "integer"), typed("1e3", "decimal"), typed("", "double"),
		typed(" 5", "integer"), typed("0x10", "double"), typed("Infinity", "double"),
		quad.String("5"), quad.String("0.1"), quad.String("INF"), quad.LangString{Value: "5", Lang: "en"},
		typed("5", "string"), typed("true", "boolean"), typed("1", "boolean"),
		typed("2020-01-01", "date"), quad.TypedString{Value: "5", Type: "http://example.org/myNumber"},
		iri("five"), quad.BNode("b5"),
	}
}

// outOfRange are numeric literals beyond the double range (the engine
// reads them as +-INF, or exactly; so do the stores' numeric ranges).
func outOfRange() []quad.Value {
	typed := func(v, t string) quad.Value {
		return quad.TypedString{Value: quad.String(v), Type: quad.IRI(nsXSD + t)}
	}
	return []quad.Value{typed("1e400", "double"), typed("-1e400", "decimal"),
		typed("1"+strings.Repeat("0", 400), "integer")}
}

// numConstants are the constants of the generated filters.
var numConstants = []string{
	"0", "1", "5", "-1", "500", "0.1", "5.0", "4.99999999999999999999", ".5", "499.99",
	"0.1e0", "5e0", "-1E2", "1e400", "-1e400", `"INF"^^xsd:double`, `"-INF"^^xsd:double`,
	`"NaN"^^xsd:double`, `"0.1"^^xsd:float`, `"0.100000001"^^xsd:float`, `"5"^^xsd:byte`,
	"9007199254740992", "123456789012345678901234567890", "16777216",
}

// randFilter returns a FILTER body over ?o (and sometimes ?x): mostly
// conjunctions of comparisons with constants, sometimes a disjunction or
// a comparison that must not bound the scan.
func randFilter(rng *rand.Rand) string {
	ops := []string{"<", "<=", ">", ">=", "="}
	cmp := func() string {
		c := numConstants[rng.Intn(len(numConstants))]
		op := ops[rng.Intn(len(ops))]
		switch rng.Intn(10) {
		case 0:
			return c + " " + op + " ?o"
		case 1:
			return "?o != " + c
		case 2:
			return "?x " + op + " " + c
		}
		return "?o " + op + " " + c
	}
	n := 1 + rng.Intn(3)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = cmp()
	}
	join := " && "
	if rng.Intn(6) == 0 {
		join = " || "
	}
	return strings.Join(parts, join)
}

// numRangeQuery wraps a filter into one of several query shapes.
func numRangeQuery(rng *rand.Rand) string {
	f := randFilter(rng)
	prefix := "PREFIX ex: <" + ex + ">\nPREFIX xsd: <" + nsXSD + ">\n"
	shapes := []string{
		"SELECT ?s ?o ?x WHERE { ?s ex:p ?o . ?s ex:q ?x FILTER(%s) }",
		"SELECT ?s ?o WHERE { ?s ex:p ?o FILTER(%s) OPTIONAL { ?s ex:q ?x } }",
		"SELECT ?s ?o ?x WHERE { ?s ex:p ?o FILTER(%s) FILTER(?x != 3 || true) ?s ex:q ?x }",
		"SELECT ?g ?s ?o WHERE { GRAPH ?g { ?s ex:p ?o . ?s ex:q ?x FILTER(%s) } }",
		"SELECT ?s ?o FROM <" + ex + "g1> FROM <" + ex + "g2> WHERE { ?s ex:p ?o ; ex:q ?x FILTER(%s) }",
		"SELECT ?g ?s ?o FROM NAMED <" + ex + "g1> FROM NAMED <" + ex + "g3> WHERE { GRAPH ?g { ?s ex:p ?o ; ex:q ?x FILTER(%s) } }",
		"SELECT ?s ?o WHERE { GRAPH <" + ex + "g0> { ?s ex:p ?o ; ex:q ?x FILTER(%s) } }",
		"SELECT ?s ?o WHERE { ?s ex:q ?x OPTIONAL { ?s ex:p ?o FILTER(%s) } }",
		"SELECT ?s ?o WHERE { ?s ex:p ?o . ?s ex:p ?x FILTER(%s) }",
		"SELECT (COUNT(*) AS ?n) WHERE { ?s ex:p ?o FILTER(%s) ?s ex:q ?x }",
	}
	return prefix + fmt.Sprintf(shapes[rng.Intn(len(shapes))], f)
}

// numRangeData puts random objects on ex:p and ex:q of 60 subjects spread
// over four graphs, some triples repeated in several graphs.
func numRangeData(rng *rand.Rand, native bool) map[string][]quad.Quad {
	objs := append(numObjects(), outOfRange()...)
	graphs := map[string][]quad.Quad{}
	for i := 0; i < 60; i++ {
		s := fmt.Sprintf("s%d", i)
		for _, p := range []string{"p", "p", "q"} {
			t := tr(s, p, objs[rng.Intn(len(objs))])
			g := ex + fmt.Sprintf("g%d", rng.Intn(4))
			graphs[g] = append(graphs[g], t)
			if rng.Intn(5) == 0 {
				g2 := ex + fmt.Sprintf("g%d", rng.Intn(4))
				if g2 != g {
					graphs[g2] = append(graphs[g2], t)
				}
			}
		}
	}
	return graphs
}

func TestNumericRangePushdown(t *testing.T) {
	backends := []struct {
		name string
		open func(t *testing.T) *graph.Store
	}{
		{"native", func(t *testing.T) *graph.Store {
			st, err := graph.Open(t.TempDir(), graph.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
		{"memory", func(t *testing.T) *graph.Store { return openStore(t, nil) }},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for seed := int64(1); seed <= 4; seed++ {
				rng := rand.New(rand.NewSource(seed))
				st := b.open(t)
				for g, qs := range numRangeData(rng, b.name == "native") {
					if err := st.PutGraph(context.Background(), quad.IRI(g), qs); err != nil {
						t.Fatal(err)
					}
				}
				src := &countingRanger{Store: st}
				pushedQueries, nonEmpty := 0, 0
				for i := 0; i < 150; i++ {
					query := numRangeQuery(rng)
					before := src.calls
					got := selectStrings(t, src, query, Options{})
					want := selectStrings(t, plainSource{st}, query, Options{})
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("seed %d: %s\nwith range scan: %v\nwithout:         %v", seed, query, got, want)
					}
					// The same through the store's read view (the default).
					if viewed := selectStrings(t, st, query, Options{}); !reflect.DeepEqual(viewed, want) {
						t.Fatalf("seed %d: %s\nthrough a read view: %v\nwithout range scan:  %v", seed, query, viewed, want)
					}
					if src.calls > before {
						pushedQueries++
						if len(want) > 0 {
							nonEmpty++
						}
					}
				}
				// The comparison must exercise the range scan, on queries
				// with answers.
				if pushedQueries < 50 || nonEmpty < 25 {
					t.Errorf("seed %d: range scan used in %d queries (%d with answers)", seed, pushedQueries, nonEmpty)
				}
			}
		})
	}
}

// TestNumericRangeFor checks the intervals derived from filters: which
// filters bound a variable and that the bounds contain the constant.
func TestNumericRangeFor(t *testing.T) {
	tests := []struct {
		filter   string
		ok       bool
		min, max float64 // the constant the bound is widened from
	}{
		{"?o < 500", true, math.Inf(-1), 500},
		{"?o >= 1.5 && ?o < 2", true, 1.5, 2},
		{"2 > ?o && 1 <= ?o", true, 1, 2},
		{"?o = 5", true, 5, 5},
		{"?o > 1 && ?o > 3 && ?o < 10 && ?o < 7", true, 3, 7},
		{"?o < 5 || ?o > 10", false, 0, 0},
		{"?o != 5", false, 0, 0},
		{"?o < \"5\"", false, 0, 0},
		{"?o < \"NaN\"^^<" + nsXSD + "double>", false, 0, 0},
		{"?x < 5", false, 0, 0},
		{"!(?o < 5)", false, 0, 0},
		{"?o < ?x", false, 0, 0},
		{"?o > \"INF\"^^<" + nsXSD + "double>", true, math.Inf(1), math.Inf(1)},
	}
	for _, tc := range tests {
		q, err := Parse("SELECT * { ?s ?p ?o . ?s ?p ?x FILTER("+tc.filter+") }", "")
		if err != nil {
			t.Fatal(err)
		}
		f := q.sel.where.(*nFilter)
		o := -1
		for i, v := range q.vars {
			if v == "o" {
				o = i
			}
		}
		var ps []pushed
		for _, c := range f.conds {
			ps = append(ps, pushed{e: c})
		}
		r, ok := numericRangeFor(o, ps)
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v", tc.filter, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if r.MinExclusive || r.MaxExclusive || r.Min > tc.min || r.Max < tc.max ||
			!math.IsInf(tc.min, 0) && r.Min == tc.min || !math.IsInf(tc.max, 0) && r.Max == tc.max {
			t.Errorf("%s: range %+v does not strictly contain [%v, %v]", tc.filter, r, tc.min, tc.max)
		}
		if !math.IsInf(tc.min, 0) && tc.min-r.Min > 1e-6*math.Max(1, math.Abs(tc.min)) {
			t.Errorf("%s: min %v is far below %v", tc.filter, r.Min, tc.min)
		}
	}
}
