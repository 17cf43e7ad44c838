package rdfio

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Hostile documents end in a *SyntaxError naming the bound, quickly, and
// without the parser's memory growing past a few terms.
func TestParseBounds(t *testing.T) {
	const max = 1000 // MaxTermBytes for the term cases
	long := strings.Repeat("a", max+1)
	digits := strings.Repeat("1", max+1)
	pre := "@prefix p: <http://a/> .\n"
	tests := []struct {
		name string
		f    Format
		in   string
		msg  string
	}{
		{"ttl nested collections", Turtle, "<http://a/s> <http://a/p> " + strings.Repeat("( ", 1<<20), "nesting deeper than 512"},
		{"ttl nested property lists", Turtle, "<http://a/s> <http://a/p> " + strings.Repeat("[ <http://a/p> ", 1<<16), "nesting deeper than 512"},
		{"ttl nested subject lists", Turtle, strings.Repeat("[ <http://a/p> ", 1<<16), "nesting deeper than 512"},
		{"ttl mixed nesting", Turtle, "<http://a/s> <http://a/p> " + strings.Repeat("( [ <http://a/p> ", 1<<15), "nesting deeper than 512"},
		{"ttl long IRI", Turtle, "<http://a/" + long + "> <http://a/p> 1 .", "IRI longer than 1000 bytes"},
		{"ttl long escaped IRI", Turtle, "<http://a/" + strings.Repeat(`\u0041`, max) + "> <http://a/p> 1 .", "IRI longer than 1000 bytes"},
		{"ttl long string", Turtle, `<http://a/s> <http://a/p> "` + long + `" .`, "string longer than 1000 bytes"},
		{"ttl long unicode string", Turtle, `<http://a/s> <http://a/p> "` + strings.Repeat("é", max) + `" .`, "string longer than 1000 bytes"},
		{"ttl long long string", Turtle, `<http://a/s> <http://a/p> """` + long + `""" .`, "string longer than 1000 bytes"},
		{"ttl long language tag", Turtle, `<http://a/s> <http://a/p> "x"@` + long + ` .`, "language tag longer than 1000 bytes"},
		{"ttl long subtag", Turtle, `<http://a/s> <http://a/p> "x"@en-` + long + ` .`, "language tag longer than 1000 bytes"},
		{"ttl long integer", Turtle, `<http://a/s> <http://a/p> ` + digits + ` .`, "number longer than 1000 bytes"},
		{"ttl long fraction", Turtle, `<http://a/s> <http://a/p> 1.` + digits + ` .`, "number longer than 1000 bytes"},
		{"ttl long exponent", Turtle, `<http://a/s> <http://a/p> 1e` + digits + ` .`, "number longer than 1000 bytes"},
		{"ttl long integer in a list", Turtle, `<http://a/s> <http://a/p> ( ` + digits + ` ) .`, "number longer than 1000 bytes"},
		{"ttl long prefix", Turtle, long + `:x <http://a/p> 1 .`, "prefix longer than 1000 bytes"},
		{"ttl long local name", Turtle, pre + `p:` + long + ` <http://a/p> 1 .`, "local name longer than 1000 bytes"},
		{"ttl long dotted local name", Turtle, pre + `p:a` + strings.Repeat(".", max+1) + `b <http://a/p> 1 .`, "local name longer than 1000 bytes"},
		{"ttl long blank label", Turtle, `_:` + long + ` <http://a/p> 1 .`, "blank node label longer than 1000 bytes"},
		{"nt long IRI", NTriples, "<http://a/s> <http://a/" + long + "> <http://a/o> .\n", "IRI longer than 1000 bytes"},
		{"nt long literal", NTriples, `<http://a/s> <http://a/p> "` + long + "\" .\n", "string longer than 1000 bytes"},
		{"nt long language tag", NTriples, `<http://a/s> <http://a/p> "x"@` + long + " .\n", "language tag longer than 1000 bytes"},
		{"nt long blank label", NTriples, `_:` + long + " <http://a/p> <http://a/o> .\n", "blank node label longer than 1000 bytes"},
		{"nq long graph label", NQuads, `<http://a/s> <http://a/p> <http://a/o> _:` + long + " .\n", "blank node label longer than 1000 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := collect(strings.NewReader(tc.in), tc.f, ParseOptions{MaxTermBytes: max})
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("took %v", took)
			}
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, tc.msg) {
				t.Fatalf("got %v, want a syntax error containing %q", err, tc.msg)
			}
		})
	}
	// At the bound a term is accepted; the default bound is 4 MiB.
	qs, err := collect(strings.NewReader(`<http://a/s> <http://a/p> "`+long[1:]+`", `+digits[1:]+`, "x"@`+long[1:]+` .`), Turtle, ParseOptions{MaxTermBytes: max})
	if err != nil || len(qs) != 3 {
		t.Fatalf("terms of %d bytes: %v", max, err)
	}
	big := strings.Repeat("a", DefaultMaxTermBytes+1)
	_, err = ParseNTriples(strings.NewReader(`<http://a/s> <http://a/p> "` + big + "\" .\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "string longer than 4194304 bytes") {
		t.Fatalf("default bound: %v", err)
	}
	if _, err := ParseNTriples(strings.NewReader(`<http://a/s> <http://a/p> "` + big[1:] + "\" .\n")); err != nil {
		t.Fatalf("a literal of DefaultMaxTermBytes: %v", err)
	}
}

func TestParseJSONLDDepth(t *testing.T) {
	doc := strings.Repeat(`{"http://a/p": `, 600) + `"x"` + strings.Repeat("}", 600)
	_, err := ParseJSONLD(strings.NewReader(doc), "")
	if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "nested deeper than 512") {
		t.Fatalf("%v", err)
	}
	// Brackets inside strings do not count.
	qs, err := ParseJSONLD(strings.NewReader(`{"@id": "http://a/s", "http://a/p": "`+strings.Repeat(`[{\"`, 600)+`"}`), "")
	if err != nil || len(qs) != 1 {
		t.Fatalf("%v %v", qs, err)
	}
}
