// Package rdfio reads and writes RDF as molgraph serves it: N-Triples,
// N-Quads, Turtle and JSON-LD, over values of github.com/cayleygraph/quad
// (quad.IRI, quad.BNode, quad.String, quad.LangString, quad.TypedString).
//
// # Writing
//
// NewWriter(w, format) returns a Writer taking one quad at a time
// (WriteQuad) and finishing with Close. Every writer streams through a
// 64 KiB buffer: a million triples never sit in memory as one string.
//
//   - N-Triples and N-Quads are canonical (RDF 1.1 N-Triples, section 4):
//     only '"', '\', LF and CR are escaped, with ECHAR.
//   - Turtle declares every prefix of spec/GRAPH.md (ontology.Prefixes),
//     groups consecutive quads of one subject with ';' and of one
//     predicate with ',', writes rdf:type as "a", uses a prefixed name
//     only when the local part is a PN_LOCAL needing no escape, and writes
//     xsd:integer, xsd:decimal, xsd:double and xsd:boolean literals bare
//     only when Turtle reads the bare token back as the same lexical form
//     and datatype ("180.159"^^xsd:double stays quoted, 1e-05 does not).
//     Pass quads sorted by subject (SortQuads) for one group per subject.
//   - JSON-LD goes through github.com/piprate/json-gold and is compacted
//     with the service context (ontology.Context). Its memory bound is one
//     chunk (WriterOptions.ChunkSize quads, 10,000 by default, cut where
//     the subject or graph changes): the document is one object whose
//     "@graph" array receives the node objects of each chunk as it is
//     converted, so a whole-store export streams as a sequence of per-graph
//     objects (WriterOptions.KeepGraphs) in one "@graph" array.
//
// Turtle and N-Triples drop graph labels; N-Quads keeps them.
//
// # Reading
//
// Parse(r, format, options, fn) streams quads to a callback; ParseTurtle,
// ParseNTriples, ParseNQuads and ParseJSONLD return slices. The Turtle
// parser implements the whole Turtle 1.1 grammar (prefixes, base and
// RFC 3986 resolution, collections, blank node property lists, numeric and
// boolean short forms, long strings, escapes) and passes the W3C Turtle and
// N-Triples suites. Literals keep their exact lexical form and full
// datatype IRI; "x"^^xsd:string becomes quad.String. Blank node labels are
// prefixed per document (ParseOptions.BlankNodePrefix, random by default)
// so documents never share blank nodes. Syntax errors are *SyntaxError
// values with line and column, wrapping ErrSyntax.
//
// Hostile input is bounded: every term (IRI, lexical form, prefixed name,
// blank node label, language tag, number) is at most
// ParseOptions.MaxTermBytes (DefaultMaxTermBytes, 4 MiB), so a parser holds
// a few terms at most whatever it reads; Turtle's collections and blank node
// property lists, and JSON-LD's arrays and objects, nest at most 512 deep
// (the parsers recurse per level). Past a bound the error is a syntax error
// naming it.
//
// # Formats and comparison
//
// ParseFormat maps the names of spec/API.md (turtle|ttl, jsonld|json-ld,
// ntriples|nt, nquads|nq) to a Format; FormatForMediaType negotiates an
// Accept header; Format.MediaType gives the Content-Type. Isomorphic
// compares two datasets up to blank node renaming, for tests of any
// package.
package rdfio
