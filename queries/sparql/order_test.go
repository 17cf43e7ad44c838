package sparql

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestTopKMatchesFullSort: ORDER BY with LIMIT/OFFSET (a top-k heap) gives
// exactly the rows of the full sort sliced, for ties (kept in input order),
// mixed term kinds, numbers of several types and descending keys.
func TestTopKMatchesFullSort(t *testing.T) {
	var qs []quad.Quad
	for i := 0; i < 300; i++ {
		s := iri(fmt.Sprintf("s%03d", i))
		var o quad.Value
		switch i % 6 {
		case 0:
			o = quad.TypedString{Value: quad.String(fmt.Sprint(i % 17)), Type: xsdInteger}
		case 1:
			o = quad.TypedString{Value: quad.String(fmt.Sprintf("%d.5", i%13)), Type: xsdDecimal}
		case 2:
			o = quad.TypedString{Value: quad.String(fmt.Sprintf("%de0", i%11)), Type: xsdDouble}
		case 3:
			o = quad.String(fmt.Sprintf("str%d", i%7))
		case 4:
			o = iri(fmt.Sprintf("o%d", i%5))
		case 5:
			o = quad.LangString{Value: quad.String(fmt.Sprintf("l%d", i%4)), Lang: "en"}
		}
		qs = append(qs, tr(fmt.Sprintf("s%03d", i), "p", o), quad.Quad{Subject: s, Predicate: iri("k"), Object: quad.String(fmt.Sprint(i % 3))})
	}
	st := openStore(t, map[string][]quad.Quad{"http://g/1": qs})
	rows := func(q string) []string {
		res, err := Run(context.Background(), st, q, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		sols, err := res.All()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range sols {
			out = append(out, fmt.Sprint(s))
		}
		return out
	}
	for _, order := range []string{"?o", "DESC(?o)", "?k DESC(?o)", "DESC(?k) ?s", "STR(?o)"} {
		q := fmt.Sprintf("SELECT ?s ?o ?k { ?s <%sp> ?o ; <%sk> ?k } ORDER BY %s", ex, ex, order)
		full := rows(q)
		if len(full) != 300 {
			t.Fatalf("%s: %d rows", q, len(full))
		}
		for _, sl := range [][2]int{{0, 1}, {0, 20}, {7, 15}, {290, 50}, {0, 300}, {0, 0}} {
			got := rows(fmt.Sprintf("%s OFFSET %d LIMIT %d", q, sl[0], sl[1]))
			end := min(sl[0]+sl[1], len(full))
			want := full[min(sl[0], end):end]
			if len(want) == 0 {
				want = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ORDER BY %s OFFSET %d LIMIT %d:\n got %v\nwant %v", order, sl[0], sl[1], got, want)
			}
		}
	}
}

// TestMinusHashed: MINUS by hashed right side agrees with the definition
// (shared variable and compatible), including right rows binding
// different variable sets and no shared variable.
func TestMinusHashed(t *testing.T) {
	var qs []quad.Quad
	for i := 0; i < 200; i++ {
		s := fmt.Sprintf("s%d", i)
		qs = append(qs, tr(s, "a", quad.String(fmt.Sprint(i%10))))
		if i%3 == 0 {
			qs = append(qs, tr(s, "b", quad.String(fmt.Sprint(i%4))))
		}
	}
	st := openStore(t, map[string][]quad.Quad{"http://g/1": qs})
	count := func(q string) string {
		got := selectStrings(t, st, "PREFIX ex: <http://example.org/> "+q, Options{})
		if len(got) != 1 {
			t.Fatalf("%s: %v", q, got)
		}
		return got[0]
	}
	n := func(k int) string { return fmt.Sprintf(`n="%d"^^<http://www.w3.org/2001/XMLSchema#integer>`, k) }
	cases := []struct {
		q    string
		want int
	}{
		// subjects with a "b": i%3 == 0 -> 67 of 200
		{`SELECT (COUNT(*) AS ?n) { ?s ex:a ?x MINUS { ?s ex:b ?y } }`, 133},
		// no shared variable: nothing removed
		{`SELECT (COUNT(*) AS ?n) { ?s ex:a ?x MINUS { ?t ex:b ?y } }`, 200},
		// shared ?s and ?x: b's value equal to a's: i%3==0 and i%10 == i%4 (as strings)
		{`SELECT (COUNT(*) AS ?n) { ?s ex:a ?x MINUS { ?s ex:b ?x } }`, 200 - countIf(200, func(i int) bool { return i%3 == 0 && i%10 == i%4 })},
		// right rows with different domains (OPTIONAL inside MINUS)
		{`SELECT (COUNT(*) AS ?n) { ?s ex:a ?x MINUS { ?s ex:a ?x OPTIONAL { ?s ex:b ?y } FILTER(?x = "3") } }`, 180},
	}
	for _, tc := range cases {
		if got := count(tc.q); got != n(tc.want) {
			t.Errorf("%s: %s, want %d", tc.q, got, tc.want)
		}
	}
}

func countIf(n int, f func(int) bool) int {
	c := 0
	for i := 0; i < n; i++ {
		if f(i) {
			c++
		}
	}
	return c
}
