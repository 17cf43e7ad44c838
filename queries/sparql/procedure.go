package sparql

import (
	"context"
	"errors"
	"fmt"

	"github.com/cayleygraph/quad"
)

// A Procedure is a search the engine evaluates in place of the triple
// patterns whose predicate is the procedure's IRI, in the style of
// IDSM/Sachem's SPARQL procedures: the pattern binds its subject (and any
// outputs) to the hits, and joins with the rest of the query like any other
// pattern. Two forms are recognised in a basic graph pattern:
//
//	?m mgs:hasSubstructure "c1ccccc1C(=O)N" .
//	?m mgs:similarTo [ mgs:query "CCO" ; mgs:threshold 0.6 ; mgs:score ?score ] .
//
// In the first, the object is the call's Input. In the second, the object is
// a blank node (or a variable used nowhere else) whose properties are the
// call's arguments: a property with a constant object goes to Args, one
// with a variable object is an output the procedure fills in each hit. The
// triples of the blank node are consumed by the call; they are not matched
// against the data.
//
// Options.Procedures registers procedures by predicate IRI. A procedure's
// errors stop the query; an *ArgError (see BadCall) is the client's fault
// (a query that does not parse, a threshold out of range) and is reported
// as such (errors.Is(err, ErrBadCall)).
type Procedure interface {
	// Call runs the search and calls emit once per hit. emit's error (a
	// row limit, a cancelled query) must be returned as is. Call must
	// honour ctx.
	Call(ctx context.Context, c ProcCall, emit func(ProcHit) error) error
}

// ProcCall is one evaluation of a procedure pattern.
type ProcCall struct {
	// Predicate is the procedure's IRI.
	Predicate quad.IRI
	// Subject is the pattern's subject when it is a constant (a procedure
	// may use it to test one molecule instead of searching all); nil when
	// it is a variable.
	Subject quad.Value
	// Input is the pattern's object when it is a constant; nil in the
	// blank-node form.
	Input quad.Value
	// Args are the blank node's properties whose objects are constants,
	// by property IRI.
	Args map[quad.IRI]quad.Value
	// Outputs are the blank node's properties whose objects are variables:
	// each hit gives a value for them (in ProcHit.Outputs, same order), or
	// nil to leave that variable unbound.
	Outputs []quad.IRI
}

// ProcHit is one result of a procedure call.
type ProcHit struct {
	// Subject is the value bound to the pattern's subject (a molecule IRI).
	Subject quad.Value
	// Outputs are the values of ProcCall.Outputs, in order.
	Outputs []quad.Value
}

// Procedures maps predicate IRIs to their procedures.
type Procedures map[quad.IRI]Procedure

// ArgError is a procedure call the client got wrong: a missing or invalid
// argument, a structure query that does not parse. The endpoint answers it
// like a query error (400), naming the procedure and the problem.
type ArgError struct {
	Predicate quad.IRI
	Msg       string
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("%s: %s", e.Predicate.String(), e.Msg)
}

// BadCall returns an *ArgError for the procedure c.
func BadCall(c ProcCall, format string, args ...any) error {
	return &ArgError{Predicate: c.Predicate, Msg: fmt.Sprintf(format, args...)}
}

// ErrBadCall is what every *ArgError wraps (errors.Is(err, ErrBadCall)).
var ErrBadCall = errors.New("sparql: bad procedure call")

func (e *ArgError) Unwrap() error { return ErrBadCall }
