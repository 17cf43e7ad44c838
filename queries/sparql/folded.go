package sparql

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// Values folded into ids. The native store keeps, per term id, the value
// of XSD numbers, booleans and dateTimes (graph.TermValues, 9 bytes an id).
// A value-read variable (unused.go: bound by one BGP whose steps read the
// store's columns, and read only by expressions, ORDER BY, GROUP BY,
// aggregates and the result writer) is bound by those steps to its term's
// id (idTerm) instead of its decoded term. Then:
//
//   - comparisons, arithmetic, ABS/CEIL/FLOOR/ROUND and isNumeric whose
//     operand is such a variable read its number from the value column
//     (argNum), and so do SUM, AVG, MIN and MAX;
//   - ORDER BY keys of such variables are numbers from the column, other
//     terms are decoded only when a comparison needs them (sortKey);
//   - GROUP BY such a variable decodes each distinct id once (groupTerm);
//   - the result writer, CONSTRUCT templates and every other reader decode
//     the id (evalExpr of the variable does), so whatever the column cannot
//     answer (a term it has no value for, a string, an ill-typed literal)
//     takes the decoded path, and results are those of the decoded path.
//
// The number read from the column is exactly what toNum parses from the
// lexical form (values_test.go checks it), so results are identical,
// including the lexical forms and datatypes of computed values.

// idTerm is the binding of a value-read variable: the stored term with
// this id, not decoded. It never leaves the evaluator.
type idTerm struct{ id uint64 }

func (t idTerm) String() string { return "\x00id" + strconv.FormatUint(t.id, 10) }
func (t idTerm) Native() any    { return t }

var _ quad.Value = idTerm{}

// decodeID decodes the term of an id bound by a value-read variable.
func (ex *exec) decodeID(id uint64) (quad.Value, error) {
	ex.decodes++
	v, err := ex.idm.Term(id)
	if err != nil {
		return nil, ex.sourceErr(err, nil)
	}
	return v, nil
}

// decoded returns v, decoded when it is an idTerm.
func (ex *exec) decoded(v quad.Value) (quad.Value, error) {
	if t, ok := v.(idTerm); ok {
		return ex.decodeID(t.id)
	}
	return v, nil
}

// pow10 are the denominators of folded decimals.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// idNum returns the number the term of id folds to; ok is false when the
// column has no number for it (not a number, not covered, ...).
func (ex *exec) idNum(id uint64) (num, bool) {
	tv := ex.vals.Get(id)
	ex.folds++
	switch tv.Kind {
	case graph.ValueNone:
		ex.folds--
		return num{}, false
	case graph.ValueInteger:
		return num{k: kInt, i: tv.Int()}, true
	case graph.ValueDouble:
		return num{k: kDouble, f: tv.Float()}, true
	case graph.ValueFloat:
		return num{k: kFloat, f: tv.Float()}, true
	}
	if m, scale, ok := tv.Decimal(); ok {
		return num{k: kDec, r: big.NewRat(m, pow10[scale])}, true
	}
	return num{}, false
}

// argNum returns the number of an operand without decoding or parsing it
// per solution: a value-read variable bound to a folded number, or a
// numeric constant. ok is false otherwise (the operand is then evaluated
// as a term).
func (ex *exec) argNum(e expr, r row) (num, bool) {
	switch x := e.(type) {
	case *eVar:
		if t, ok := r[x.slot].(idTerm); ok && ex.vals != nil {
			return ex.idNum(t.id)
		}
	case *eConst:
		if x.isNum {
			return x.n, true
		}
		return toNum(x.v)
	}
	return num{}, false
}

// newConst is the constant v, with its number parsed once. (Executions
// of a query may share a decimal's big.Rat: numbers are never changed in
// place, arith and roundNum build new ones.)
func newConst(v quad.Value) *eConst {
	c := &eConst{v: v}
	if n, ok := toNum(v); ok {
		c.n, c.isNum = n, true
	}
	return c
}

// foldedOp evaluates the comparisons and arithmetic of x when both
// operands are numbers argNum reads; handled is false otherwise. It
// gives what evalOp gives for the same operands as literals.
func (ex *exec) foldedOp(x *eOp, r row) (v quad.Value, handled bool, err error) {
	if ex.vals == nil {
		return nil, false, nil
	}
	switch x.op {
	case "neg", "pos":
		n, ok := ex.argNum(x.args[0], r)
		if !ok {
			return nil, false, nil
		}
		if x.op == "pos" {
			return n.value(), true, nil
		}
		res, err := arith("-", num{k: kInt}, n)
		if err != nil {
			return nil, true, err
		}
		if n.k == kInt {
			return intResult(res), true, nil
		}
		return res.value(), true, nil
	case "=", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/":
	default:
		return nil, false, nil
	}
	if len(x.args) != 2 {
		return nil, false, nil
	}
	a, ok := ex.argNum(x.args[0], r)
	if !ok {
		return nil, false, nil
	}
	b, ok := ex.argNum(x.args[1], r)
	if !ok {
		return nil, false, nil
	}
	switch x.op {
	case "=", "!=":
		// equalTerms of two numbers.
		c, ok := cmpNum(a, b)
		return boolValue((ok && c == 0) == (x.op == "=")), true, nil
	case "<", ">", "<=", ">=":
		c, ok := cmpNum(a, b)
		if !ok {
			return falseValue, true, nil // NaN
		}
		switch x.op {
		case "<":
			return boolValue(c < 0), true, nil
		case ">":
			return boolValue(c > 0), true, nil
		case "<=":
			return boolValue(c <= 0), true, nil
		}
		return boolValue(c >= 0), true, nil
	}
	res, err := arith(x.op, a, b)
	if err != nil {
		return nil, true, err
	}
	if ex.bigNum(res) {
		return nil, true, errEval
	}
	return arithLiteral(res, a.k == kInt && b.k == kInt && x.op != "/"), true, nil
}

// foldedCall evaluates isNumeric, ABS, CEIL, FLOOR and ROUND of a folded
// number; handled is false otherwise.
func (ex *exec) foldedCall(x *eCall, r row) (quad.Value, bool) {
	if ex.vals == nil || len(x.args) != 1 {
		return nil, false
	}
	switch x.name {
	case "ISNUMERIC", "ABS", "CEIL", "FLOOR", "ROUND":
	default:
		return nil, false
	}
	n, ok := ex.argNum(x.args[0], r)
	if !ok {
		return nil, false
	}
	if x.name == "ISNUMERIC" {
		return trueValue, true
	}
	return roundNum(x.name, n).value(), true
}

// groupTerm returns the decoded term of an id a GROUP BY key reads,
// decoding each distinct id once per grouping (memo).
func (ex *exec) groupTerm(memo map[uint64]quad.Value, id uint64) (quad.Value, error) {
	if v, ok := memo[id]; ok {
		return v, nil
	}
	v, err := ex.decodeID(id)
	if err != nil {
		return nil, err
	}
	if err := ex.alloc(mapEntryBytes + termBytes(v)); err != nil {
		return nil, err
	}
	memo[id] = v
	return v, nil
}

// checkDecoded returns the error of a decoding done where no error could
// be returned (a sort comparison), once.
func (ex *exec) checkDecoded() error {
	err := ex.decodeErr
	ex.decodeErr = nil
	return err
}

// resolveKey decodes the term of a sort key bound to an id, when a
// comparison needs the term itself (not a folded number's value).
func (ex *exec) resolveKey(k *sortKey) {
	t, ok := k.v.(idTerm)
	if !ok {
		return
	}
	v, err := ex.decodeID(t.id)
	if err != nil {
		if ex.decodeErr == nil {
			ex.decodeErr = fmt.Errorf("sparql: order: %w", err)
		}
		return
	}
	k.v = v
	k.extra = termBytes(v) // held by the key from now on
	if !k.isNum && orderRank(v) == 3 {
		k.n, k.isNum = toNum(v)
	}
}
