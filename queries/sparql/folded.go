package sparql

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

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
	tv, hit := ex.vcache.get(id)
	if !hit {
		tv = ex.vals.Get(id)
	}
	n, ok := numOf(tv)
	if ok {
		ex.folds++
	}
	return n, ok
}

// valueCache holds the folded values of the ids a star's batch binds
// (starRun.bind), read by one tight loop over the batch (Gather): the
// expressions, ORDER BY keys and aggregates that then read them one
// solution at a time find them here instead of taking a cache miss in
// the value column per id (its ids are in no useful order). Direct-mapped:
// a later id takes an earlier one's place, which is then read from the
// column again.
type valueCache struct {
	ids  [valueCacheSize]uint64
	vals [valueCacheSize]graph.TermValue
}

const valueCacheSize = 1 << 12

func valueCacheSlot(id uint64) int { return int((id * 0x9E3779B97F4A7C15) >> (64 - 12)) }

// get returns the cached value of id (hit false: not cached).
func (c *valueCache) get(id uint64) (graph.TermValue, bool) {
	if c == nil {
		return graph.TermValue{}, false
	}
	i := valueCacheSlot(id)
	if c.ids[i] != id || id == 0 {
		return graph.TermValue{}, false
	}
	return c.vals[i], true
}

// fill caches the values of ids, read from vals at once.
func (c *valueCache) fill(vals *graph.TermValues, ids []uint32, kinds []graph.ValueKind, bits []uint64) {
	vals.Gather(ids, kinds, bits)
	for i, id := range ids {
		j := valueCacheSlot(uint64(id))
		c.ids[j], c.vals[j] = uint64(id), graph.TermValue{Kind: kinds[i], Bits: bits[i]}
	}
}

// numOf is the number of a folded value; ok is false when it is none.
func numOf(tv graph.TermValue) (num, bool) {
	switch tv.Kind {
	case graph.ValueDouble:
		return num{k: kDouble, f: math.Float64frombits(tv.Bits)}, true
	case graph.ValueInteger:
		return num{k: kInt, i: int64(tv.Bits)}, true
	case graph.ValueNone:
		return num{}, false
	}
	return otherNumOf(tv)
}

// otherNumOf is numOf of the rarer kinds (kept apart so that numOf is
// inlined).
func otherNumOf(tv graph.TermValue) (num, bool) {
	if tv.Kind == graph.ValueFloat {
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
		switch t := r[x.slot].(type) {
		case idTerm:
			if ex.vals != nil {
				return ex.idNum(t.id)
			}
		case quad.TypedString:
			// The number just computed (foldedOp) or read (numOf).
			if ex.lastNumOK && ex.lastIsNum && t == ex.lastNumTerm {
				return ex.lastNum, true
			}
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
		if n.k == kDec {
			n.f, _ = n.r.Float64()
			n.fOK = true
		}
		c.n, c.isNum = n, true
	}
	if classify(v) == cDateTime {
		if t, hasTZ, _ := toDateTime(v); hasTZ && t.Year() >= 1678 && t.Year() <= 2261 {
			c.dt, c.isDT = t.UnixNano(), true
		}
	}
	return c
}

// Folded dateTimes. The value column holds a dateTime with a timezone as
// its UTC instant (graph.ValueDateTime, or ValueDateTimeUTC when it was
// written in UTC). Two dateTimes with timezones compare by instant
// (cmpDates), so a comparison of such a variable with another or with a
// constant dateTime with a timezone reads the column; one without a
// timezone takes the decoded path (the XSD partial order). YEAR, MONTH,
// DAY, HOURS, MINUTES and SECONDS read the fields in the lexical form's
// own timezone: from the column only for ValueDateTimeUTC.

// dateOperand returns the UTC nanoseconds of an operand that is a
// value-read variable bound to a folded dateTime or a dateTime constant
// with a timezone; utc tells the fields are those of the lexical form.
func (ex *exec) dateOperand(e expr, r row) (ns int64, utc, ok bool) {
	switch x := e.(type) {
	case *eVar:
		if t, isID := r[x.slot].(idTerm); isID && ex.vals != nil {
			tv, hit := ex.vcache.get(t.id)
			if !hit {
				tv = ex.vals.Get(t.id)
			}
			switch tv.Kind {
			case graph.ValueDateTime, graph.ValueDateTimeUTC:
				ex.folds++
				return int64(tv.Bits), tv.Kind == graph.ValueDateTimeUTC, true
			}
		}
		// A dateTime the query computed (an aggregate's MIN, a BIND) is
		// a term, not an id: read as a constant is, so that a folded
		// variable compared with it does not decode every row.
		// The last one parsed is kept: the same term (a sub-SELECT's
		// MIN joined to every row) was parsed per row (100,000 parses,
		// a third of bench query 40).
		if v, isLit := r[x.slot].(quad.TypedString); isLit && v.Type == xsdDateTime {
			if ex.lastDateOK && v == ex.lastDateTerm {
				return ex.lastDateNs, false, ex.lastDateUsable
			}
			t, hasTZ, ok := toDateTime(v)
			usable := ok && hasTZ && t.Year() >= 1678 && t.Year() <= 2261
			ex.lastDateTerm, ex.lastDateOK, ex.lastDateUsable = v, true, usable
			if usable {
				ex.lastDateNs = t.UnixNano()
				return ex.lastDateNs, false, true
			}
		}
	case *eConst:
		return x.dt, false, x.isDT
	}
	return 0, false, false
}

// foldedDateCmp compares two dateOperands; handled is false when either
// is not one.
func (ex *exec) foldedDateCmp(x *eOp, r row) (v quad.Value, handled bool) {
	a, _, ok := ex.dateOperand(x.args[0], r)
	if !ok {
		return nil, false
	}
	b, _, ok := ex.dateOperand(x.args[1], r)
	if !ok {
		return nil, false
	}
	switch x.op {
	case "=":
		return boolValue(a == b), true
	case "!=":
		return boolValue(a != b), true
	case "<":
		return boolValue(a < b), true
	case ">":
		return boolValue(a > b), true
	case "<=":
		return boolValue(a <= b), true
	}
	return boolValue(a >= b), true
}

// notNumber reports whether e is a variable bound to an id whose term the
// value column knows is no number literal (toNum rejects it).
func (ex *exec) notNumber(e expr, r row) bool {
	x, ok := e.(*eVar)
	if !ok {
		return false
	}
	t, ok := r[x.slot].(idTerm)
	if !ok {
		return false
	}
	switch ex.vals.Get(t.id).Kind {
	case graph.ValueOther, graph.ValueBoolean, graph.ValueDateTime, graph.ValueDateTimeUTC:
		return true
	}
	return false
}

// numOperand returns the number an operand evaluates to when it can be
// computed without decoding or building literals: argNum's operands, and
// arithmetic and ABS/CEIL/FLOOR/ROUND over them. The number is the one
// the decoded path parses back from the literal it builds (exactNum).
// ok is false when the operand is not such an expression (it is then
// evaluated as a term); err is the expression's error (division by zero,
// a decimal beyond MaxLiteral).
func (ex *exec) numOperand(e expr, r row) (n num, ok bool, err error) {
	switch x := e.(type) {
	case *eVar, *eConst:
		n, ok := ex.argNum(e, r)
		return n, ok, nil
	case *eOp:
		res, ints, ok, err := ex.arithOp(x, r)
		if !ok || err != nil {
			return num{}, ok, err
		}
		return exactNum(res, ints), true, nil
	case *eCall:
		res, ok, err := ex.roundCall(x, r)
		if !ok || err != nil {
			return num{}, ok, err
		}
		return exactNum(res, false), true, nil
	}
	return num{}, false, nil
}

// exactNum is toNum(arithLiteral(res, ints)): res itself for integers and
// doubles (their literals parse back exactly), else parsed from the
// literal (a decimal's is rounded to 24 digits, a float's to float32).
func exactNum(res num, ints bool) num {
	if res.k == kInt || res.k == kDouble {
		return res
	}
	n, _ := toNum(arithLiteral(res, ints))
	return n
}

// arithOp computes + - * / neg pos over numOperand operands: the number
// and whether the literal is an xsd:integer (see arithLiteral); ok is
// false when x is not such an operation.
func (ex *exec) arithOp(x *eOp, r row) (res num, ints, ok bool, err error) {
	switch x.op {
	case "neg", "pos":
		n, ok, err := ex.numOperand(x.args[0], r)
		if !ok || err != nil {
			return num{}, false, ok, err
		}
		if x.op == "pos" {
			return n, false, true, nil // n.value()
		}
		res, err := arith("-", num{k: kInt}, n)
		return res, n.k == kInt, true, err
	case "+", "-", "*", "/":
	default:
		return num{}, false, false, nil
	}
	if len(x.args) != 2 {
		return num{}, false, false, nil
	}
	a, ok, err := ex.numOperand(x.args[0], r)
	if !ok || err != nil {
		return num{}, false, ok, err
	}
	b, ok, err := ex.numOperand(x.args[1], r)
	if !ok || err != nil {
		return num{}, false, ok, err
	}
	res, err = arith(x.op, a, b)
	if err != nil {
		return num{}, false, true, err
	}
	if ex.bigNum(res) {
		return num{}, false, true, errEval
	}
	return res, a.k == kInt && b.k == kInt && x.op != "/", true, nil
}

// roundCall computes ABS, CEIL, FLOOR and ROUND of a numOperand.
func (ex *exec) roundCall(x *eCall, r row) (num, bool, error) {
	switch x.name {
	case "ABS", "CEIL", "FLOOR", "ROUND":
	default:
		return num{}, false, nil
	}
	if len(x.args) != 1 {
		return num{}, false, nil
	}
	n, ok, err := ex.numOperand(x.args[0], r)
	if !ok || err != nil {
		return num{}, ok, err
	}
	return roundNum(x.name, n), true, nil
}

// foldedOp evaluates comparisons and arithmetic whose operands are
// numOperands; handled is false otherwise. It gives what evalOp gives for
// the same operands as literals.
func (ex *exec) foldedOp(x *eOp, r row) (v quad.Value, handled bool, err error) {
	if ex.vals == nil {
		return nil, false, nil
	}
	switch x.op {
	case "=", "!=", "<", ">", "<=", ">=":
	default:
		res, ints, ok, err := ex.arithOp(x, r)
		if !ok || err != nil {
			return nil, ok, err
		}
		lit := arithLiteral(res, ints)
		if ts, isTS := lit.(quad.TypedString); isTS && (res.k == kInt || res.k == kDouble) {
			// What numOf would parse back out of the literal (a double
			// is written exactly): a FILTER or ORDER BY reading the
			// BIND's variable next finds it without parsing.
			ex.lastNumTerm, ex.lastNum, ex.lastIsNum, ex.lastNumOK = ts, res, true, true
		}
		return lit, true, nil
	}
	if len(x.args) != 2 {
		return nil, false, nil
	}
	a, ok, err := ex.numOperand(x.args[0], r)
	if err != nil {
		return nil, ok, err
	}
	if !ok {
		// Not a number: perhaps two dateTimes (read only now, so that
		// numeric comparisons read the value column once per operand).
		v, ok := ex.foldedDateCmp(x, r)
		return v, ok, nil
	}
	b, ok, err := ex.numOperand(x.args[1], r)
	if !ok || err != nil {
		return nil, ok, err
	}
	c, ok := cmpNum(a, b)
	switch x.op {
	case "=", "!=":
		// equalTerms of two numbers.
		return boolValue((ok && c == 0) == (x.op == "=")), true, nil
	}
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

// foldedIn evaluates IN and NOT IN whose left operand is a numOperand and
// whose list holds only numeric constants; handled is false otherwise. A
// number equals another exactly when cmpNum says so (equalTerms of two
// numbers), and two numbers never raise an error, so it gives what
// evalIn gives for the same operands as literals.
func (ex *exec) foldedIn(x *eIn, r row) (v quad.Value, handled bool, err error) {
	if ex.vals == nil || len(x.list) == 0 {
		return nil, false, nil
	}
	for _, it := range x.list {
		if c, ok := it.(*eConst); !ok || !c.isNum {
			return nil, false, nil
		}
	}
	a, ok, err := ex.numOperand(x.left, r)
	if !ok || err != nil {
		return nil, ok, err
	}
	for _, it := range x.list {
		if c, ok := cmpNum(a, it.(*eConst).n); ok && c == 0 {
			return boolValue(!x.not), true, nil
		}
	}
	return boolValue(x.not), true, nil
}

// foldedCall evaluates isNumeric, ABS, CEIL, FLOOR and ROUND of a
// numOperand; handled is false otherwise.
func (ex *exec) foldedCall(x *eCall, r row) (v quad.Value, handled bool, err error) {
	if ex.vals == nil || len(x.args) != 1 {
		return nil, false, nil
	}
	if x.name == "ISNUMERIC" {
		_, ok, err := ex.numOperand(x.args[0], r)
		if !ok && ex.notNumber(x.args[0], r) {
			return falseValue, true, nil
		}
		if !ok || err != nil {
			return nil, ok, err
		}
		return trueValue, true, nil
	}
	switch x.name {
	case "YEAR", "MONTH", "DAY", "HOURS", "MINUTES", "SECONDS":
		if ns, utc, ok := ex.dateOperand(x.args[0], r); ok && utc {
			if _, isVar := x.args[0].(*eVar); isVar {
				return datePart(x.name, time.Unix(0, ns).UTC()), true, nil
			}
		}
		return nil, false, nil
	}
	res, ok, err := ex.roundCall(x, r)
	if !ok || err != nil {
		return nil, ok, err
	}
	return res.value(), true, nil
}

// groupTerm returns the decoded term of an id a GROUP BY key reads,
// decoding each distinct id once per grouping (memo); charged grows by
// the bytes charged to the budget for the memo.
func (ex *exec) groupTerm(memo map[uint64]quad.Value, id uint64, charged *int) (quad.Value, error) {
	if v, ok := memo[id]; ok {
		return v, nil
	}
	v, err := ex.decodeID(id)
	if err != nil {
		return nil, err
	}
	n := mapEntryBytes + termBytes(v)
	*charged += n
	if err := ex.alloc(n); err != nil {
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
