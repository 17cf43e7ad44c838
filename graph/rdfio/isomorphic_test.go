package rdfio

import (
	"strings"
	"testing"
)

func TestIsomorphic(t *testing.T) {
	cases := []struct {
		name string
		a, b string
		want bool
	}{
		{"identical ground", `<http://a/s> <http://a/p> "x" .`, `<http://a/s> <http://a/p> "x" .`, true},
		{"different literal", `<http://a/s> <http://a/p> "x" .`, `<http://a/s> <http://a/p> "y" .`, false},
		{"datatype matters", `<http://a/s> <http://a/p> "1" .`, `<http://a/s> <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`, false},
		{"xsd:string is plain", `<http://a/s> <http://a/p> "1" .`, `<http://a/s> <http://a/p> "1"^^<http://www.w3.org/2001/XMLSchema#string> .`, true},
		{"lang case", `<http://a/s> <http://a/p> "x"@EN .`, `<http://a/s> <http://a/p> "x"@en .`, true},
		{"renamed blank", "_:a <http://a/p> _:b .\n_:b <http://a/p> \"x\" .", "_:y <http://a/p> _:z .\n_:z <http://a/p> \"x\" .", true},
		{"blank direction", "_:a <http://a/p> _:b .\n_:b <http://a/p> \"x\" .", "_:y <http://a/p> _:z .\n_:y <http://a/p> \"x\" .", false},
		{"duplicates ignored", "_:a <http://a/p> \"x\" .\n_:a <http://a/p> \"x\" .", "_:b <http://a/p> \"x\" .", true},
		{"one blank vs two", "_:a <http://a/p> \"x\" .\n_:a <http://a/q> \"y\" .", "_:a <http://a/p> \"x\" .\n_:b <http://a/q> \"y\" .", false},
		// A 6-cycle versus two 3-cycles: colour refinement alone cannot
		// tell them apart; the search must.
		{"cycle6 vs 2 cycle3",
			"_:a <http://a/p> _:b .\n_:b <http://a/p> _:c .\n_:c <http://a/p> _:d .\n_:d <http://a/p> _:e .\n_:e <http://a/p> _:f .\n_:f <http://a/p> _:a .",
			"_:a <http://a/p> _:b .\n_:b <http://a/p> _:c .\n_:c <http://a/p> _:a .\n_:d <http://a/p> _:e .\n_:e <http://a/p> _:f .\n_:f <http://a/p> _:d .",
			false},
		{"cycle6 relabelled",
			"_:a <http://a/p> _:b .\n_:b <http://a/p> _:c .\n_:c <http://a/p> _:d .\n_:d <http://a/p> _:e .\n_:e <http://a/p> _:f .\n_:f <http://a/p> _:a .",
			"_:f <http://a/p> _:e .\n_:e <http://a/p> _:d .\n_:d <http://a/p> _:c .\n_:c <http://a/p> _:b .\n_:b <http://a/p> _:a .\n_:a <http://a/p> _:f .",
			true},
	}
	for _, c := range cases {
		a, err := ParseNTriples(strings.NewReader(c.a))
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseNTriples(strings.NewReader(c.b))
		if err != nil {
			t.Fatal(err)
		}
		if got := Isomorphic(a, b); got != c.want {
			t.Errorf("%s: Isomorphic = %v, want %v", c.name, got, c.want)
		}
		if got := Isomorphic(b, a); got != c.want {
			t.Errorf("%s (swapped): Isomorphic = %v, want %v", c.name, got, c.want)
		}
	}
}
