package rdfio

import "github.com/cayleygraph/quad"

// AppendTerm appends v to b in the canonical N-Triples form the N-Triples
// and N-Quads writers use (native Cayley values as XSD typed literals,
// invalid blank node labels mapped as the writers map them). It fails
// with an error wrapping ErrInvalidTerm for a term that form cannot
// express (an IRI with characters IRIREF forbids, text that is not UTF-8,
// a bad language tag). A caller that writes many quads over few terms
// (the store's export) formats each term once with it and copies the
// bytes for every quad.
func AppendTerm(b []byte, v quad.Value) ([]byte, error) { return appendNTTerm(b, v) }
