package graphql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// hostileBound is how long a refused hostile query may take in these tests.
// The refusals measured ~5 ms on a loaded 2-core machine; before the limits
// the first two queries below took 17.8 s and 15.8 s.
const hostileBound = 2 * time.Second

// fullTypeFragments is the fragments of introspectionQuery.
var fullTypeFragments = introspectionQuery[strings.Index(introspectionQuery, "fragment FullType"):]

// aliased repeats field n times under the aliases a0, a1, ...
func aliased(n int, field string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	return b.String()
}

// spreads spreads n distinct fragments into one selection.
func spreads(n int) string {
	var b strings.Builder
	b.WriteString(`{ molecule(id: "mol-aspirin") {`)
	for i := range n {
		fmt.Fprintf(&b, " ...F%d", i)
	}
	b.WriteString(" } }")
	for i := range n {
		fmt.Fprintf(&b, " fragment F%d on Molecule { a%d: id }", i, i)
	}
	return b.String()
}

func TestHostileQueriesRefusedFast(t *testing.T) {
	e := newTestExecutor(t, Options{})
	// Doubling fragments: F0 spreads F1 twice, ... 2^30 copies of id.
	var chain strings.Builder
	chain.WriteString(`{ molecule(id: "mol-aspirin") { ...F0 } }`)
	for i := range 30 {
		fmt.Fprintf(&chain, " fragment F%d on Molecule { ...F%d ... on Molecule { ...F%d } }", i, i+1, i+1)
	}
	chain.WriteString(" fragment F30 on Molecule { id }")
	tests := []struct {
		name, query, code, limit string
	}{
		// The reproduction: one field 20,000 times (60 KB).
		{"field repeated 20000 times", `{ molecules(first: 1) { nodes {` + strings.Repeat(" id", 20000) + ` } } }`,
			"QUERY_TOO_MANY_TOKENS", "10000 tokens"},
		// The reproduction: 600 aliased introspection trees.
		{"600 introspection trees", `{` + aliased(600, `__schema { types { ...FullType } }`) + ` }` + fullTypeFragments,
			"QUERY_TOO_MANY_SELECTIONS", "2000 selections"},
		// 600 small trees pass the selection count; each answers ~80
		// fields, which the cost model now charges.
		{"600 small introspection trees", `{` + aliased(600, `__schema { types { name } }`) + ` }`,
			"QUERY_TOO_COMPLEX", "exceeds the limit of 10000"},
		{"4 full introspection queries", `{` + aliased(4, `__schema { types { ...FullType } directives { name args { ...InputValue } } }`) + ` }` + fullTypeFragments,
			"QUERY_TOO_COMPLEX", "exceeds the limit of 10000"},
		{"2001 aliases", `{ molecules(first: 1) { nodes {` + aliased(2001, "id") + ` } } }`,
			"QUERY_TOO_MANY_SELECTIONS", "2000 selections"},
		{"101 copies of one field", `{ molecules(first: 1) { nodes {` + strings.Repeat(" id", 101) + ` } } }`,
			"QUERY_FIELD_REPEATED", `100 fields answer under the response name "id"`},
		// 11 copies of m, each with 10 ids: 110 fields on the path m.nodes.id,
		// though no selection set has more than 10.
		{"repeats merged across a path", `{` + strings.Repeat(` m: molecules(first: 1) { nodes { ...T } }`, 11) + ` } fragment T on Molecule {` + strings.Repeat(" id", 10) + ` }`,
			"QUERY_FIELD_REPEATED", `"id"`},
		// Validation compares every pair of them (700: 0.23 s).
		{"201 fragments in one selection", spreads(201), "QUERY_TOO_MANY_FRAGMENTS", "200 distinct fragments"},
		// Caught by the repeats of id first; with that limit off (below),
		// by the selection count.
		{"doubling fragments", chain.String(), "QUERY_FIELD_REPEATED", `"id"`},
	}
	noRepeatLimit := newTestExecutor(t, Options{MaxFieldsPerName: 1 << 30})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := e.Execute(context.Background(), Request{Query: tt.query})
			if tt.name == "doubling fragments" {
				if res := noRepeatLimit.Execute(context.Background(), Request{Query: tt.query}); len(res.Errors) != 1 ||
					res.Errors[0].Extensions["code"] != "QUERY_TOO_MANY_SELECTIONS" {
					t.Errorf("without the repeat limit: %v", res.Errors)
				}
			}
			took := time.Since(start)
			t.Logf("%d bytes refused in %v", len(tt.query), took)
			if took > hostileBound {
				t.Errorf("took %v", took)
			}
			if res.HasData || len(res.Errors) != 1 {
				t.Fatalf("want one request error, got %d errors, data %v", len(res.Errors), res.HasData)
			}
			ge := res.Errors[0]
			if !errors.Is(ge.Err, ErrTooComplex) || ge.Extensions["code"] != tt.code || !strings.Contains(ge.Message, tt.limit) {
				t.Fatalf("error %q (%v, %v), want %s naming %q", ge.Message, ge.Err, ge.Extensions, tt.code, tt.limit)
			}
		})
	}
}

// countAnswer counts the keys and the object elements of arrays in an
// introspection answer: what the cost model charges for it.
func countAnswer(v any) int64 {
	var n int64
	switch v := v.(type) {
	case map[string]any:
		for _, c := range v {
			n += 1 + countAnswer(c)
		}
	case []any:
		for _, c := range v {
			if _, ok := c.(map[string]any); ok {
				n++
			}
			n += countAnswer(c)
		}
	}
	return n
}

// The full introspection query (GraphiQL's) runs under the default limits,
// and its cost is exactly the size of its answer: it passes a cost limit of
// that size and fails one below it.
func TestLimitsAllowIntrospection(t *testing.T) {
	out, res := run(t, newTestExecutor(t, Options{}), introspectionQuery, nil)
	if len(res.Errors) > 0 || !res.HasData {
		t.Fatalf("full introspection refused: %v", res.Errors)
	}
	size := countAnswer(out["data"])
	t.Logf("introspection answer: %d fields and objects", size)
	if size < 1000 || size > DefaultMaxCost {
		t.Fatalf("answer size %d", size)
	}
	if res := newTestExecutor(t, Options{MaxCost: int(size)}).Execute(context.Background(), Request{Query: introspectionQuery}); len(res.Errors) > 0 {
		t.Fatalf("at cost limit %d: %v", size, res.Errors)
	}
	res = newTestExecutor(t, Options{MaxCost: int(size) - 1}).Execute(context.Background(), Request{Query: introspectionQuery})
	if len(res.Errors) != 1 || res.Errors[0].Extensions["code"] != "QUERY_TOO_COMPLEX" {
		t.Fatalf("at cost limit %d: %v", size-1, res.Errors)
	}
	// Queries at the limits pass: 100 copies of a field, 2000 selections,
	// 200 fragments.
	e := newTestExecutor(t, Options{})
	for _, q := range []string{
		spreads(200),
		`{ molecules(first: 1) { nodes {` + strings.Repeat(" id", 100) + ` } } }`,
		`{ molecules(first: 1) { nodes {` + aliased(1996, "id") + ` } } }`, // + molecules, nodes: 1998
	} {
		if res := e.Execute(context.Background(), Request{Query: q}); len(res.Errors) > 0 {
			t.Fatalf("refused: %v", res.Errors[0].Message)
		}
	}
}

// first: 0 answers no nodes (it used to list every node of the class) and
// its selection is charged once.
func TestFirstZero(t *testing.T) {
	e := newTestExecutor(t, Options{MaxCost: 150})
	out, res := run(t, e, `{ molecules(first: 0) { nodes { id } pageInfo { hasNextPage } } }`, nil)
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	got, _ := json.Marshal(out["data"])
	if string(got) != `{"molecules":{"nodes":[],"pageInfo":{"hasNextPage":true}}}` {
		t.Fatalf("%s", got)
	}
	// 1 + 1 × (nodes 1 + calculations 1 + 100 × (nodes 1 + id 1)) = 203
	res = e.Execute(context.Background(), Request{Query: `{ molecules(first: 0) { nodes { calculations(first: 100) { nodes { id } } } } }`})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "cost 203 ") {
		t.Fatalf("%v", res.Errors)
	}
}

// Validation errors suggest names only for queries of a few KiB (an edit
// distance per candidate made 1,000 unknown 1,000-character arguments cost
// 3.4 s of CPU), and at most maxErrors are returned.
func TestValidationBounded(t *testing.T) {
	e := newTestExecutor(t, Options{})
	res := e.Execute(context.Background(), Request{Query: `{ molecules { nodez { id } } }`})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, `Did you mean "nodes"?`) {
		t.Fatalf("small query: %v", res.Errors)
	}
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, " x%d%s: 1", i, strings.Repeat("y", 1000))
	}
	q := `{ molecules(` + b.String() + `) { nodes { id } } }`
	start := time.Now()
	res = e.Execute(context.Background(), Request{Query: q})
	took := time.Since(start)
	t.Logf("%d bytes, %d unknown arguments: %v", len(q), 1000, took)
	if took > hostileBound {
		t.Errorf("took %v", took)
	}
	if len(res.Errors) != maxErrors+1 || !errors.Is(res.Errors[0].Err, ErrInvalidQuery) ||
		strings.Contains(res.Errors[0].Message, "Did you mean") || res.Errors[maxErrors].Message != "900 more validation errors" {
		t.Fatalf("%d errors: %v ... %v", len(res.Errors), res.Errors[0], res.Errors[len(res.Errors)-1])
	}
}

// TestSearchCost: a structure search costs SearchCost more than a plain
// list, so a handful of aliased searches run and hundreds are refused
// before any search runs.
func TestSearchCost(t *testing.T) {
	e := newTestExecutor(t, Options{})
	for _, c := range []struct {
		n       int
		field   string
		refused bool
	}{
		{5, `molecules(similarTo: "CCO") { nodes { id } }`, false},
		{5, `molecules(substructure: "c1ccccc1") { nodes { id } }`, false},
		{300, `molecules(similarTo: "CCO", first: 1) { nodes { id } }`, true},
		{300, `molecules(substructure: "C", first: 1) { nodes { id } }`, true},
		{25, `molecules(similarTo: "CCO", first: 1) { nodes { id } }`, true},
		// the same number of plain lists is fine
		{300, `molecules(first: 1) { nodes { id } }`, false},
	} {
		res := e.Execute(context.Background(), Request{Query: "{" + aliased(c.n, c.field) + " }"})
		refused := len(res.Errors) == 1 && errors.Is(res.Errors[0].Err, ErrTooComplex) && res.Errors[0].Extensions["code"] == "QUERY_TOO_COMPLEX"
		if refused != c.refused {
			t.Errorf("%d x %s: refused %v, want %v (%v)", c.n, c.field, refused, c.refused, res.Errors)
		}
	}
}
