package sparql

import "github.com/cayleygraph/quad"

// The algebra follows section 18 of the SPARQL 1.1 Query Language
// recommendation: the parser translates group graph patterns directly into
// these nodes (BGP, Join, LeftJoin, Union, Minus, Filter, Extend, Values,
// Graph, sub-select), and the evaluator walks them.

// term is a constant RDF term or a variable slot (slot >= 0).
type term struct {
	v    quad.Value
	slot int
}

func constTerm(v quad.Value) term { return term{v: v, slot: -1} }
func varTerm(slot int) term       { return term{slot: slot} }
func (t term) isVar() bool        { return t.slot >= 0 }

// triplePat is one triple pattern; path is nil for a plain predicate term.
type triplePat struct {
	s, p, o term
	path    pathExpr
}

// Property path expressions.
type (
	pathExpr interface{}
	pLink    struct{ iri quad.IRI }
	pInv     struct{ p pathExpr }
	pSeq     struct{ a, b pathExpr }
	pAlt     struct{ a, b pathExpr }
	// pMod is p?, p* or p+ (max -1 means unbounded).
	pMod struct {
		p        pathExpr
		min, max int
	}
	pNeg struct{ fwd, inv []quad.IRI }
)

// Algebra nodes.
type (
	node interface{}
	nBGP struct {
		pats []triplePat
	}
	nJoin     struct{ l, r node }
	nLeftJoin struct {
		l, r node
		cond expr // nil = true
	}
	nUnion  struct{ l, r node }
	nMinus  struct{ l, r node }
	nFilter struct {
		conds []expr
		p     node
	}
	nExtend struct {
		p    node
		slot int
		e    expr
	}
	nValues struct {
		slots []int
		rows  [][]quad.Value // nil entry = UNDEF
	}
	nGraph struct {
		g term
		p node
	}
	nSub struct{ q *selectQuery }
)

// Expressions.
type (
	expr interface{}
	// eConst is a constant; n is its number when isNum (newConst).
	eConst struct {
		v     quad.Value
		n     num
		isNum bool
		// dt is a dateTime constant with a timezone as UTC nanoseconds
		// (isDT; see dateOperand).
		dt   int64
		isDT bool
	}
	eVar struct{ slot int }
	// eOp is an operator: "||" "&&" "=" "!=" "<" ">" "<=" ">=" "+" "-" "*"
	// "/" "!" "neg" "pos".
	eOp struct {
		op   string
		args []expr
	}
	// eCall is a built-in function call; name is upper case.
	eCall struct {
		name string
		args []expr
	}
	// eFunc is a call of a function named by IRI (casts).
	eFunc struct {
		iri  quad.IRI
		args []expr
	}
	eExists struct {
		not bool
		p   node
	}
	eIn struct {
		not  bool
		left expr
		list []expr
	}
	// eAgg is an aggregate; during grouping its value is stored in slot.
	eAgg struct {
		name     string
		distinct bool
		arg      expr // nil for COUNT(*)
		sep      string
		slot     int
	}
)

type projItem struct {
	slot int
	e    expr // nil for a plain variable
}

type groupItem struct {
	e    expr
	slot int // -1 when the condition binds no variable
}

type orderItem struct {
	e    expr
	desc bool
}

// selectQuery is a SELECT (also the body of ASK/CONSTRUCT/DESCRIBE and of
// sub-selects).
type selectQuery struct {
	distinct, reduced bool
	star              bool
	proj              []projItem
	where             node
	groupBy           []groupItem
	having            []expr
	aggs              []*eAgg
	grouped           bool // GROUP BY or aggregates present
	orderBy           []orderItem
	limit, offset     int64 // -1: none
	values            *nValues
}
