package rdfio

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/cayleygraph/quad"
)

// ParseOptions tune the parsers. The zero value is ready to use.
type ParseOptions struct {
	// Base is the base IRI against which Turtle resolves relative IRIs
	// (RFC 3986). Empty: relative IRIs are kept as written unless the
	// document sets @base. N-Triples and N-Quads ignore it.
	Base string
	// BlankNodePrefix is put before every blank node label of the document,
	// so that the blank nodes of different documents never collide. Empty: a
	// random prefix is chosen for each call. The label _:x becomes
	// quad.BNode(prefix+"b"+"x"); anonymous nodes ([] and collections)
	// become prefix+"a"+counter.
	BlankNodePrefix string
	// Graph is the label given to triples (Turtle, N-Triples, and the
	// default-graph statements of N-Quads). Nil: the default graph.
	Graph quad.Value
	// MaxTermBytes bounds one term: an IRI, a literal's lexical form, a
	// prefixed name, a blank node label, a language tag or a number
	// (default DefaultMaxTermBytes). A longer one is a *SyntaxError. With
	// it, a parser's memory is bounded by a few terms (it streams), and an
	// N-Triples or N-Quads line by four terms plus a comment (which is
	// skipped, not kept).
	MaxTermBytes int
}

// blanks mints the blank nodes of one document.
type blanks struct {
	prefix string
	anon   int
}

func newBlanks(prefix string) (*blanks, error) {
	if prefix == "" {
		var b [5]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("rdfio: blank node prefix: %w", err)
		}
		prefix = "r" + hex.EncodeToString(b[:]) + "_"
	}
	return &blanks{prefix: prefix}, nil
}

func (b *blanks) labeled(l string) quad.BNode { return quad.BNode(b.prefix + "b" + l) }

func (b *blanks) fresh() quad.BNode {
	b.anon++
	return quad.BNode(fmt.Sprintf("%sa%d", b.prefix, b.anon))
}

// Parse reads a document in format f from r and calls fn for each quad in
// document order, as soon as it is complete; parsing stops at the first
// error from fn, which is returned as is. Syntax errors are *SyntaxError
// values (wrapping ErrSyntax) with line and column. JSON-LD documents are
// read whole (see ParseJSONLD); the other formats stream.
func Parse(r io.Reader, f Format, opts ParseOptions, fn func(quad.Quad) error) error {
	bn, err := newBlanks(opts.BlankNodePrefix)
	if err != nil {
		return err
	}
	switch f {
	case NTriples:
		return parseLines(newScanner(r, "ntriples", opts.MaxTermBytes), false, bn, opts.Graph, fn)
	case NQuads:
		return parseLines(newScanner(r, "nquads", opts.MaxTermBytes), true, bn, opts.Graph, fn)
	case Turtle:
		p := &turtleParser{s: newScanner(r, "turtle", opts.MaxTermBytes), bn: bn, emit: fn, graph: opts.Graph,
			prefixes: map[string]string{}}
		if opts.Base != "" {
			p.base = opts.Base
		}
		return p.parse()
	case JSONLD:
		qs, err := ParseJSONLD(r, opts.Base)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if opts.Graph != nil && q.Label == nil {
				q.Label = opts.Graph
			}
			if err := fn(q); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("rdfio: parse: %w: %v", ErrUnknownFormat, f)
}

func collect(r io.Reader, f Format, opts ParseOptions) ([]quad.Quad, error) {
	var out []quad.Quad
	err := Parse(r, f, opts, func(q quad.Quad) error {
		out = append(out, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ParseTurtle reads a whole Turtle 1.1 document, resolving relative IRIs
// against base (may be empty). Blank nodes get a random per-call prefix.
func ParseTurtle(r io.Reader, base string) ([]quad.Quad, error) {
	return collect(r, Turtle, ParseOptions{Base: base})
}

// ParseNTriples reads a whole N-Triples document.
func ParseNTriples(r io.Reader) ([]quad.Quad, error) {
	return collect(r, NTriples, ParseOptions{})
}

// ParseNQuads reads a whole N-Quads document.
func ParseNQuads(r io.Reader) ([]quad.Quad, error) {
	return collect(r, NQuads, ParseOptions{})
}

// literal builds the quad value of a literal, keeping its lexical form:
// xsd:string becomes quad.String, a language tag quad.LangString, any other
// datatype quad.TypedString with the datatype's full IRI.
func literal(lex, lang string, dt string) quad.Value {
	switch {
	case lang != "":
		return quad.LangString{Value: quad.String(lex), Lang: lang}
	case dt == "" || dt == xsdString:
		return quad.String(lex)
	}
	return quad.TypedString{Value: quad.String(lex), Type: quad.IRI(dt)}
}

const (
	xsdNS      = "http://www.w3.org/2001/XMLSchema#"
	rdfNS      = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	xsdString  = xsdNS + "string"
	xsdInteger = xsdNS + "integer"
	xsdDecimal = xsdNS + "decimal"
	xsdDouble  = xsdNS + "double"
	xsdBoolean = xsdNS + "boolean"
	rdfType    = rdfNS + "type"
	rdfFirst   = rdfNS + "first"
	rdfRest    = rdfNS + "rest"
	rdfNil     = rdfNS + "nil"
)

// parseLines parses N-Triples (quads=false) or N-Quads.
func parseLines(s *scanner, quads bool, bn *blanks, graph quad.Value, fn func(quad.Quad) error) error {
	skipWS := func() {
		for c := s.peek(0); c == ' ' || c == '\t'; c = s.peek(0) {
			s.advance(1)
		}
	}
	// skipEnd skips blanks, a comment and the end of line; it reports
	// whether something other than those follows on the line.
	skipEnd := func() error {
		skipWS()
		if s.peek(0) == '#' {
			for c := s.peek(0); c >= 0 && c != '\n' && c != '\r'; c = s.peek(0) {
				s.advance(1)
			}
		}
		c := s.peek(0)
		if c >= 0 && c != '\n' && c != '\r' {
			return s.errorf("expected end of line, found %s", s.describe())
		}
		for c := s.peek(0); c == '\n' || c == '\r'; c = s.peek(0) {
			s.advance(1)
		}
		return nil
	}
	for {
		skipWS()
		if c := s.peek(0); c == '#' || c == '\n' || c == '\r' {
			if err := skipEnd(); err != nil {
				return err
			}
			continue
		}
		if s.atEOF() {
			if s.rerr != nil {
				return s.errorf("")
			}
			return nil
		}
		var q quad.Quad
		var err error
		// subject
		switch s.peek(0) {
		case '<':
			q.Subject, err = readAbsIRI(s)
		case '_':
			var l string
			l, err = s.readBlankLabel()
			q.Subject = bn.labeled(l)
		default:
			err = s.errorf("expected subject (IRI or blank node), found %s", s.describe())
		}
		if err != nil {
			return err
		}
		skipWS()
		if s.peek(0) != '<' {
			return s.errorf("expected predicate IRI, found %s", s.describe())
		}
		if q.Predicate, err = readAbsIRI(s); err != nil {
			return err
		}
		skipWS()
		switch s.peek(0) {
		case '<':
			q.Object, err = readAbsIRI(s)
		case '_':
			var l string
			l, err = s.readBlankLabel()
			q.Object = bn.labeled(l)
		case '"':
			q.Object, err = readNTLiteral(s)
		default:
			err = s.errorf("expected object (IRI, blank node or literal), found %s", s.describe())
		}
		if err != nil {
			return err
		}
		skipWS()
		q.Label = graph
		if quads {
			switch s.peek(0) {
			case '<':
				q.Label, err = readAbsIRI(s)
			case '_':
				var l string
				l, err = s.readBlankLabel()
				q.Label = bn.labeled(l)
			}
			if err != nil {
				return err
			}
			skipWS()
		}
		if s.peek(0) != '.' {
			return s.errorf("expected '.', found %s", s.describe())
		}
		s.advance(1)
		if err := skipEnd(); err != nil {
			return err
		}
		if err := fn(q); err != nil {
			return err
		}
	}
}

func readAbsIRI(s *scanner) (quad.Value, error) {
	line, col := s.line, s.col
	iri, err := s.readIRIREF()
	if err != nil {
		return nil, err
	}
	if !HasScheme(iri) {
		return nil, s.errAt(line, col, "relative IRI <%s> not allowed", iri)
	}
	return quad.IRI(iri), nil
}

func readNTLiteral(s *scanner) (quad.Value, error) {
	lex, err := s.readShortString('"')
	if err != nil {
		return nil, err
	}
	switch {
	case s.peek(0) == '@':
		lang, err := s.readLangTag()
		if err != nil {
			return nil, err
		}
		return literal(lex, lang, ""), nil
	case s.hasPrefix("^^"):
		s.advance(2)
		if s.peek(0) != '<' {
			return nil, s.errorf("expected datatype IRI, found %s", s.describe())
		}
		dt, err := readAbsIRI(s)
		if err != nil {
			return nil, err
		}
		return literal(lex, "", string(dt.(quad.IRI))), nil
	}
	return literal(lex, "", ""), nil
}
