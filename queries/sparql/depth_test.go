package sparql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// nestings are the constructs the nesting limit covers, each as a query
// generator for n levels. They run against depthStore's data (a <p> a, a
// <p> 1, a <q> "x"), so every level matches something.
var nestings = []struct {
	name string
	gen  func(n int) string
}{
	{"parentheses", func(n int) string {
		return "SELECT * WHERE { FILTER(" + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + ") }"
	}},
	{"groups", func(n int) string {
		return "SELECT * WHERE " + strings.Repeat("{ ", n) + "?s <http://e/p> ?o" + strings.Repeat(" }", n)
	}},
	{"optional", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o " + strings.Repeat("OPTIONAL { ?s <http://e/p> ?o ", n) + strings.Repeat("} ", n) + "}"
	}},
	{"minus", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o " + strings.Repeat("MINUS { ?s <http://e/q> ?z ", n) + strings.Repeat("} ", n) + "}"
	}},
	{"union", func(n int) string {
		return "SELECT * WHERE " + strings.Repeat("{ { ?s <http://e/q> ?o } UNION ", n) + "{ ?s <http://e/p> ?o }" + strings.Repeat(" }", n)
	}},
	{"graph", func(n int) string {
		return "SELECT * WHERE { " + strings.Repeat("GRAPH ?g { ", n) + "?s <http://e/p> ?o" + strings.Repeat(" }", n) + " }"
	}},
	{"subquery", func(n int) string {
		return "SELECT * WHERE { " + strings.Repeat("SELECT * WHERE { ", n) + "?s <http://e/p> ?o" + strings.Repeat(" }", n) + " }"
	}},
	{"exists", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o " + strings.Repeat("FILTER EXISTS { ?s <http://e/p> ?o ", n) + strings.Repeat("} ", n) + "}"
	}},
	{"not exists", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o " + strings.Repeat("FILTER NOT EXISTS { ?s <http://e/nope> ?o ", n) + strings.Repeat("} ", n) + "}"
	}},
	{"negation", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o FILTER(" + strings.Repeat("!", 2*(n/2)) + "true) }"
	}},
	{"unary minus", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o FILTER(" + strings.Repeat("- ", 2*(n/2)) + "1 = 1) }"
	}},
	{"function arguments", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/q> ?o FILTER(" + strings.Repeat("STR(", n) + "?o" + strings.Repeat(")", n) + " = \"x\") }"
	}},
	{"arithmetic chain", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o FILTER(0" + strings.Repeat(" + 0", n) + " = 0) }"
	}},
	{"bind chain", func(n int) string {
		var b strings.Builder
		b.WriteString("SELECT * WHERE { ?s <http://e/p> ?o ")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "BIND(1 AS ?v%d) ", i)
		}
		return b.String() + "}"
	}},
	{"optional chain", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o " + strings.Repeat("OPTIONAL { ?s <http://e/q> ?z } ", n) + "}"
	}},
	{"path parentheses", func(n int) string {
		return "SELECT * WHERE { ?s " + strings.Repeat("(", n) + "<http://e/p>" + strings.Repeat(")", n) + " ?o }"
	}},
	{"path sequence", func(n int) string {
		return "SELECT * WHERE { <http://e/a> (<http://e/p>" + strings.Repeat("/<http://e/p>", n) + ")* ?o }"
	}},
	{"path closure", func(n int) string {
		return "SELECT * WHERE { <http://e/a> " + strings.Repeat("(", n) + "<http://e/p>" + strings.Repeat(")*", n) + " ?o }"
	}},
	{"collections", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o . OPTIONAL { ?x <http://e/p> " + strings.Repeat("( ", n) + "1" + strings.Repeat(" )", n) + " } }"
	}},
	{"blank node property lists", func(n int) string {
		return "SELECT * WHERE { ?s <http://e/p> ?o . OPTIONAL { ?x <http://e/p> " + strings.Repeat("[ <http://e/p> ", n) + "1" + strings.Repeat(" ]", n) + " } }"
	}},
}

func depthStore(t testing.TB) Source {
	return openStore(t, map[string][]quad.Quad{"http://e/g": {
		{Subject: quad.IRI("http://e/a"), Predicate: quad.IRI("http://e/p"), Object: quad.IRI("http://e/a")},
		{Subject: quad.IRI("http://e/a"), Predicate: quad.IRI("http://e/p"), Object: quad.TypedString{Value: "1", Type: xsdInteger}},
		{Subject: quad.IRI("http://e/a"), Predicate: quad.IRI("http://e/q"), Object: quad.String("x")},
	}})
}

// TestNestingLimit: for every construct, 100,000 levels (the crash of
// issue 15 was 2,000,000 parentheses: a fatal stack overflow) are a
// *SyntaxError naming the limit and a position; the deepest query the
// parser accepts is exactly one level short of the first it refuses,
// its trees are at most MaxDepth deep (checked by an independent walk),
// and it evaluates without error.
func TestNestingLimit(t *testing.T) {
	src := depthStore(t)
	for _, c := range nestings {
		t.Run(c.name, func(t *testing.T) {
			huge := c.gen(100_000)
			_, err := Parse(huge, "")
			checkDepthError(t, err)

			// The largest accepted n, by bisection (acceptance is monotone).
			lo, hi := 0, MaxDepth+8
			if _, err := Parse(c.gen(hi), ""); err == nil {
				t.Fatalf("%d levels accepted (MaxDepth %d)", hi, MaxDepth)
			}
			for hi-lo > 1 {
				m := (lo + hi) / 2
				if _, err := Parse(c.gen(m), ""); err == nil {
					lo = m
				} else {
					hi = m
				}
			}
			if lo < MaxDepth/2-4 {
				t.Fatalf("only %d levels accepted; the limit is %d", lo, MaxDepth)
			}
			_, err = Parse(c.gen(hi), "")
			checkDepthError(t, err)
			q, err := Parse(c.gen(lo), "")
			if err != nil {
				t.Fatal(err)
			}
			if d := trueDepth(q); d > MaxDepth {
				t.Fatalf("accepted a query %d deep (MaxDepth %d)", d, MaxDepth)
			}
			res, err := Exec(context.Background(), src, q, Options{Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := res.All(); err != nil {
				t.Fatalf("%d levels: %v", lo, err)
			}
		})
	}
}

func checkDepthError(t *testing.T, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
		t.Fatalf("want a *SyntaxError, got %v", err)
	}
	if !strings.Contains(se.Msg, fmt.Sprint(MaxDepth)) || se.Line < 1 || se.Column < 2 {
		t.Fatalf("the error names neither the limit nor a position: %v", err)
	}
}

// TestBalancedChains: long chains of associative operators (||, &&,
// UNION) are built balanced, so generated queries with thousands of
// alternatives (a thousand UNION branches: MaxPatterns counts them) stay
// far below the nesting limit, and they mean the same.
func TestBalancedChains(t *testing.T) {
	src := depthStore(t)
	var alts, conj, union []string
	for i := 0; i < 5000; i++ {
		alts = append(alts, fmt.Sprintf("?o = %d", i+2))
		conj = append(conj, "?o != 0")
		if i < 1000 {
			union = append(union, fmt.Sprintf("{ BIND(%d AS ?v) }", i))
		}
	}
	alts = append(alts, "?o = 1")
	tests := []struct {
		query string
		want  []string
	}{
		{"SELECT ?o WHERE { ?s <http://e/p> ?o FILTER(" + strings.Join(alts, " || ") + ") }", []string{`o="1"^^<http://www.w3.org/2001/XMLSchema#integer>`}},
		{"SELECT ?o WHERE { ?s <http://e/p> ?o FILTER(isLiteral(?o) && " + strings.Join(conj, " && ") + ") }", []string{`o="1"^^<http://www.w3.org/2001/XMLSchema#integer>`}},
		{"SELECT (COUNT(*) AS ?n) WHERE { " + strings.Join(union, " UNION ") + " }", []string{`n="1000"^^<http://www.w3.org/2001/XMLSchema#integer>`}},
	}
	for _, tc := range tests {
		q, err := Parse(tc.query, "")
		if err != nil {
			t.Fatal(err)
		}
		if d := trueDepth(q); d > 20 {
			t.Errorf("depth %d for a chain of 1000 or 5000", d)
		}
		got := selectStrings(t, src, tc.query, Options{})
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("got %v, want %v", got, tc.want)
		}
	}
	// The order of UNION's solutions is the order of its branches.
	res, err := Run(context.Background(), src, "SELECT ?v WHERE { "+strings.Join(union[:300], " UNION ")+" }", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	sols, err := res.All()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sols {
		if n, _ := toNum(s[0]); n.i != int64(i) {
			t.Fatalf("solution %d is %v", i, s[0])
		}
	}
}

// trueDepth measures the depth of a parsed query's trees by walking them,
// independently of the parser's bookkeeping (test only: it recurses
// without a bound of its own).
func trueDepth(q *Query) int {
	return selectDepth(q.sel)
}

func selectDepth(sq *selectQuery) int {
	d := nodeDepth(sq.where)
	for _, p := range sq.proj {
		d = max(d, exprDepth(p.e))
	}
	for _, g := range sq.groupBy {
		d = max(d, exprDepth(g.e))
	}
	for _, h := range sq.having {
		d = max(d, exprDepth(h))
	}
	for _, o := range sq.orderBy {
		d = max(d, exprDepth(o.e))
	}
	return d
}

func nodeDepth(n node) int {
	switch x := n.(type) {
	case *nBGP:
		d := 0
		for _, tp := range x.pats {
			d = max(d, pathTreeDepth(tp.path))
		}
		return d + 1
	case *nJoin:
		return 1 + max(nodeDepth(x.l), nodeDepth(x.r))
	case *nLeftJoin:
		return 1 + max(nodeDepth(x.l), nodeDepth(x.r), exprDepth(x.cond))
	case *nUnion:
		return 1 + max(nodeDepth(x.l), nodeDepth(x.r))
	case *nMinus:
		return 1 + max(nodeDepth(x.l), nodeDepth(x.r))
	case *nFilter:
		d := nodeDepth(x.p)
		for _, c := range x.conds {
			d = max(d, exprDepth(c))
		}
		return d + 1
	case *nExtend:
		return 1 + max(nodeDepth(x.p), exprDepth(x.e))
	case *nGraph:
		return 1 + nodeDepth(x.p)
	case *nSub:
		return 1 + selectDepth(x.q)
	case nil:
		return 0
	}
	return 1
}

func exprDepth(e expr) int {
	d := 0
	switch x := e.(type) {
	case nil:
		return 0
	case *eOp:
		for _, a := range x.args {
			d = max(d, exprDepth(a))
		}
	case *eCall:
		for _, a := range x.args {
			d = max(d, exprDepth(a))
		}
	case *eFunc:
		for _, a := range x.args {
			d = max(d, exprDepth(a))
		}
	case *eIn:
		d = exprDepth(x.left)
		for _, a := range x.list {
			d = max(d, exprDepth(a))
		}
	case *eExists:
		d = nodeDepth(x.p)
	case *eAgg:
		d = exprDepth(x.arg)
	}
	return d + 1
}

func pathTreeDepth(p pathExpr) int {
	switch x := p.(type) {
	case nil:
		return 0
	case pInv:
		return 1 + pathTreeDepth(x.p)
	case pSeq:
		return 1 + max(pathTreeDepth(x.a), pathTreeDepth(x.b))
	case pAlt:
		return 1 + max(pathTreeDepth(x.a), pathTreeDepth(x.b))
	case pMod:
		return 1 + pathTreeDepth(x.p)
	}
	return 1
}

// TestPatternLimit: a query of more than MaxPatterns triple patterns and
// operators is refused at parse, with the position, before planning
// (60,000 patterns planned for six minutes past their deadline); at the
// limit it parses and runs.
func TestPatternLimit(t *testing.T) {
	src := depthStore(t)
	for _, tc := range []struct {
		name string
		gen  func(n int) string
	}{
		{"one BGP", func(n int) string {
			return "SELECT (COUNT(*) AS ?c) WHERE { " + strings.Repeat("?a <http://e/p> ?b . ", n) + "}"
		}},
		{"collection", func(n int) string {
			return "ASK { ?s <http://e/p> (" + strings.Repeat(" 1", n/2) + " ) }"
		}},
		{"union", func(n int) string {
			return "SELECT (COUNT(*) AS ?c) WHERE { { ?a <http://e/p> ?b }" + strings.Repeat(" UNION { ?a <http://e/p> ?b }", n/2-1) + " }"
		}},
		{"construct template", func(n int) string {
			return "CONSTRUCT { " + strings.Repeat("?a <http://e/p> ?b . ", n) + "} WHERE { ?a <http://e/p> ?b }"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.gen(60_000), "")
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, fmt.Sprint(MaxPatterns)) || se.Column < 2 {
				t.Fatalf("60,000: %v", err)
			}
			q, err := Parse(tc.gen(MaxPatterns-10), "")
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := Exec(context.Background(), src, q, Options{Timeout: 20 * time.Second})
			if err == nil {
				switch q.Form() {
				case Select:
					_, err = res.All()
				case Construct:
					_, err = res.Quads()
				}
			}
			if err != nil || time.Since(start) > 10*time.Second {
				t.Fatalf("%v after %s", err, time.Since(start))
			}
		})
	}
}
