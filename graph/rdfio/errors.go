package rdfio

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error returned by this package wraps one of them
// (test with errors.Is) and names the operation that failed.
var (
	// ErrSyntax: the input is not valid in the format being parsed. The
	// concrete error is a *SyntaxError carrying line and column.
	ErrSyntax = errors.New("syntax error")
	// ErrUnknownFormat: a format name or media type is not one we serve.
	ErrUnknownFormat = errors.New("unknown format")
	// ErrNotAcceptable: an Accept header admits none of the offered formats.
	ErrNotAcceptable = errors.New("no acceptable format")
	// ErrInvalidTerm: a quad cannot be serialized (a literal as subject, a
	// non-IRI predicate, an IRI with characters IRIs may not hold, a bad
	// language tag, ...).
	ErrInvalidTerm = errors.New("invalid term")
	// ErrClosed: a Writer was used after Close.
	ErrClosed = errors.New("writer closed")
)

// SyntaxError reports where parsing failed. It wraps ErrSyntax.
type SyntaxError struct {
	Format string // "turtle", "ntriples", "nquads"
	Line   int    // 1-based line
	Col    int    // 1-based column, counted in Unicode code points
	Msg    string // lower-case description
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("rdfio: parse %s: %d:%d: %s", e.Format, e.Line, e.Col, e.Msg)
}

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
