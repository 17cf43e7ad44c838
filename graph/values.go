package graph

import (
	"context"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph/quadstore"
)

// TermValues is the native store's value column: the folded XSD value of
// each term id (see quadstore.Values). TermValue is one term's value.
type (
	TermValues = quadstore.Values
	TermValue  = quadstore.TermValue
	ValueKind  = quadstore.ValueKind
)

// The kinds of folded values (quadstore.ValueKind).
const (
	ValueNone     = quadstore.ValueNone
	ValueInteger  = quadstore.ValueInteger
	ValueDouble   = quadstore.ValueDouble
	ValueFloat    = quadstore.ValueFloat
	ValueBoolean  = quadstore.ValueBoolean
	ValueDateTime = quadstore.ValueDateTime
	// ValueDateTimeUTC is a dateTime written in UTC (Z, +00:00, -00:00).
	ValueDateTimeUTC = quadstore.ValueDateTimeUTC
	ValueOther       = quadstore.ValueOther
	ValueDecimal     = quadstore.ValueDecimal
)

// TermValues returns the value column the view's term ids may be read
// through, nil when the backend has none (or it is not built yet). Ids
// it does not cover have no value (ValueNone).
func (v *View) TermValues() *TermValues {
	if v.nv == nil {
		return nil
	}
	return v.nv.Values()
}

// Term decodes the term whose id (from the view's id methods) is id.
func (v *View) Term(id uint64) (quad.Value, error) {
	if v.nv == nil {
		return nil, ErrNoIDs
	}
	if v.s.closed.Load() {
		return nil, ErrClosed
	}
	return v.nv.Term(id)
}

// BuildValues extends the native backend's value column to the last
// commit now (it is otherwise extended on a goroutine after commits).
// Other backends have none: it does nothing.
func (s *Store) BuildValues(ctx context.Context) error {
	nb, ok := s.b.(*nativeBackend)
	if !ok {
		return nil
	}
	return nb.qs.BuildValues(ctx)
}

// ColumnCursor reads one predicate's triples from the native backend's
// in-memory columns by subject or by object, for joins over keys that
// arrive in ascending order (see quadstore.ColumnCursor).
type ColumnCursor = quadstore.ColumnCursor

// ColumnCursor returns a cursor over the triples of the predicate with id
// p (from the view's id methods) in the view's columns, keyed by subject
// when bySubject is set, by object otherwise; nil when the view reads no
// columns.
func (v *View) ColumnCursor(p uint64, bySubject bool) *ColumnCursor {
	if v.nv == nil || v.s.closed.Load() {
		return nil
	}
	return v.nv.ColumnCursor(p, bySubject)
}

// ColumnPredicates returns the ids of the predicates with triples in the
// view's columns, ascending; nil when the view reads no columns.
func (v *View) ColumnPredicates() []uint64 {
	if v.nv == nil || v.s.closed.Load() {
		return nil
	}
	return v.nv.ColumnPredicates()
}
