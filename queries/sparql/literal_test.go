package sparql

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLiteralLimitDoubling is the case of issue 15: ~1 KB of chained
// BIND(CONCAT(?v, ?v)) doubles a string 40 times (2 TiB without a limit;
// 26 doublings built 64 MiB in 0.3 s). With the default limit the chain
// stops at 1 MiB: the first longer step and all after it are unbound, the
// query finishes at once and allocates a few MiB.
func TestLiteralLimitDoubling(t *testing.T) {
	src := openStore(t, nil)
	var b strings.Builder
	b.WriteString(`SELECT ?len19 ?len20 ?v40 WHERE { BIND("ab" AS ?v0) `)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "BIND(CONCAT(?v%d, ?v%d) AS ?v%d) ", i, i, i+1)
	}
	b.WriteString("BIND(STRLEN(?v19) AS ?len19) BIND(STRLEN(?v20) AS ?len20) }")
	if b.Len() > 2000 {
		t.Fatalf("query is %d bytes", b.Len())
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	got := selectStrings(t, src, b.String(), Options{})
	el := time.Since(start)
	runtime.ReadMemStats(&after)
	// 2 * 2^19 = 1 MiB exactly is within the limit; 2 MiB is not.
	want := `len19="1048576"^^<http://www.w3.org/2001/XMLSchema#integer>`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %v, want [%s]", got, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Fatalf("allocated %d MiB", alloc>>20)
	}
	if el > 5*time.Second {
		t.Fatalf("took %s", el)
	}
}

// TestLiteralLimitFunctions: every string-building function, GROUP_CONCAT
// and decimal arithmetic give an expression error past Options.MaxLiteral
// (here 10 bytes): unbound in SELECT and BIND expressions, false in FILTER.
func TestLiteralLimitFunctions(t *testing.T) {
	src := openStore(t, nil)
	opts := Options{MaxLiteral: 10}
	for _, tc := range []struct {
		expr, want string // want "" = unbound
	}{
		{`CONCAT("abcde", "abcde")`, `"abcdeabcde"`},
		{`CONCAT("abcdef", "abcdef")`, ``},
		{`CONCAT("abcdef"@en, "abcdef"@en)`, ``},
		{`REPLACE("abcdef", "a", "x")`, `"xbcdef"`},
		{`REPLACE("abcdef", "a", "xxxxxx")`, ``},
		{`REPLACE("aaaaaaaaaa", "a", "$0$0")`, ``},
		{`REPLACE("aaaaa", "a", "$0$0")`, `"aaaaaaaaaa"`},
		{`UCASE("abcdefghij")`, `"ABCDEFGHIJ"`},
		{`UCASE("abcdefghijk")`, ``},
		{`LCASE("ABCDEFGHIJK")`, ``},
		{`ENCODE_FOR_URI("a b c")`, `"a%20b%20c"`},
		{`ENCODE_FOR_URI("a b c d")`, ``},
		{`SUBSTR("abcdefghijklmnop", 3, 5)`, `"cdefg"`},
		{`SUBSTR("abcdefghijklmnop", 2)`, ``},
		{`STRBEFORE("abcdefghijklz", "z")`, ``},
		{`STRAFTER("zabcdefghijkl", "z")`, ``},
		{`STRAFTER("zabc", "z")`, `"abc"`},
		{`STR(<http://e/abcdefgh>)`, ``},
		{`IRI("http://e/abcdefgh")`, ``},
		{`IRI("http://e/")`, `<http://e/>`},
		{`BNODE("abcdefgh")`, ``},
		{`STRLANG("abcdefghijk", "en")`, ``},
		{`STRDT("abcdefghijk", <http://e/dt>)`, ``},
		{`3.5 * 2.0`, `"7.0"^^<http://www.w3.org/2001/XMLSchema#decimal>`},
		{`1000000.5 * 1000000.5`, ``},
		{`9223372036854775807 * 9223372036854775807`, ``},
		{`<http://www.w3.org/2001/XMLSchema#string>(1000000.5 * 1000000.5)`, ``},
	} {
		q := "SELECT ?x WHERE { BIND(" + tc.expr + " AS ?x) }"
		got := selectStrings(t, src, q, opts)
		want := "x=" + tc.want
		if tc.want == "" {
			want = ""
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: got %q, want %q", tc.expr, got, want)
		}
		// The same expression in a SELECT expression and in a FILTER.
		got = selectStrings(t, src, "SELECT ("+tc.expr+" AS ?x) WHERE {}", opts)
		if len(got) != 1 || got[0] != want {
			t.Errorf("SELECT (%s AS ?x): got %q, want %q", tc.expr, got, want)
		}
		got = selectStrings(t, src, "SELECT ?y WHERE { BIND(1 AS ?y) FILTER(BOUND(?y) && !ISBLANK("+tc.expr+")) }", opts)
		if n := map[bool]int{true: 0, false: 1}[tc.want == ""]; len(got) != n {
			t.Errorf("FILTER(%s): %d rows, want %d", tc.expr, len(got), n)
		}
	}
	for _, tc := range []struct {
		rows int
		want string
	}{{2, `n="abcd abcd"`}, {3, ``}} {
		values := strings.Repeat(`"abcd" `, tc.rows)
		q := "SELECT (GROUP_CONCAT(?v) AS ?n) WHERE { VALUES ?v { " + values + "} }"
		// VALUES rows that are the same term stay separate rows.
		got := selectStrings(t, src, q, opts)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("GROUP_CONCAT of %d: got %q, want %q", tc.rows, got, tc.want)
		}
	}
	// Negative: no limit.
	got := selectStrings(t, src, `SELECT ?x WHERE { BIND(CONCAT("abcdef", "abcdef") AS ?x) }`, Options{MaxLiteral: -1})
	if len(got) != 1 || got[0] != `x="abcdefabcdef"` {
		t.Fatalf("no limit: %q", got)
	}
	_ = context.Background
}
