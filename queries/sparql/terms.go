package sparql

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/rdfio"
)

const (
	xsdString   = quad.IRI(nsXSD + "string")
	xsdInteger  = quad.IRI(nsXSD + "integer")
	xsdDecimal  = quad.IRI(nsXSD + "decimal")
	xsdFloat    = quad.IRI(nsXSD + "float")
	xsdDouble   = quad.IRI(nsXSD + "double")
	xsdBoolean  = quad.IRI(nsXSD + "boolean")
	xsdDateTime = quad.IRI(nsXSD + "dateTime")
	xsdDate     = quad.IRI(nsXSD + "date")
	rdfLangStr  = quad.IRI(nsRDF + "langString")
)

// integerTypes are xsd:integer and the types derived from it.
var integerTypes = map[quad.IRI]bool{
	xsdInteger: true, nsXSD + "int": true, nsXSD + "long": true, nsXSD + "short": true,
	nsXSD + "byte": true, nsXSD + "nonNegativeInteger": true, nsXSD + "nonPositiveInteger": true,
	nsXSD + "positiveInteger": true, nsXSD + "negativeInteger": true, nsXSD + "unsignedLong": true,
	nsXSD + "unsignedInt": true, nsXSD + "unsignedShort": true, nsXSD + "unsignedByte": true,
}

type numKind int

const (
	kInt numKind = iota
	kDec
	kFloat
	kDouble
)

// num is a numeric value with its XSD type (integer, decimal, float, double).
type num struct {
	k numKind
	i int64
	r *big.Rat // kDec
	f float64  // kFloat, kDouble; a kDec constant's value as a double when fOK
	// fOK: f holds a kDec's double (newConst: a decimal constant compared
	// with doubles row after row is converted once).
	fOK bool
}

func isNumericType(t quad.IRI) bool {
	return integerTypes[t] || t == xsdDecimal || t == xsdFloat || t == xsdDouble
}

// toNum converts a literal into a number; ok is false for non-numeric or
// ill-typed terms.
func toNum(v quad.Value) (num, bool) {
	ts, ok := v.(quad.TypedString)
	if !ok {
		return num{}, false
	}
	s := string(ts.Value)
	switch {
	case ts.Type == xsdDouble || ts.Type == xsdFloat:
		// Checked first: the commonest, and cheaper than the map.
		f, ok := rdfio.ParseDouble(s)
		if !ok {
			return num{}, false
		}
		k := kDouble
		if ts.Type == xsdFloat {
			k = kFloat
			f = float64(float32(f))
		}
		return num{k: k, f: f}, true
	case ts.Type == xsdInteger || integerTypes[ts.Type]:
		if !rdfio.ValidInteger(s) {
			return num{}, false
		}
		i, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
		if err != nil {
			r, ok := new(big.Rat).SetString(strings.TrimPrefix(s, "+"))
			if !ok {
				return num{}, false
			}
			return num{k: kDec, r: r}, true
		}
		return num{k: kInt, i: i}, true
	case ts.Type == xsdDecimal:
		if !rdfio.ValidDecimal(s) {
			return num{}, false
		}
		r, ok := new(big.Rat).SetString(rdfio.FixDecimal(s))
		if !ok {
			return num{}, false
		}
		return num{k: kDec, r: r}, true
	}
	return num{}, false
}

func (n num) rat() *big.Rat {
	switch n.k {
	case kInt:
		return new(big.Rat).SetInt64(n.i)
	case kDec:
		return n.r
	}
	r := new(big.Rat)
	if math.IsInf(n.f, 0) || math.IsNaN(n.f) {
		return r
	}
	r.SetFloat64(n.f)
	return r
}

func (n num) float() float64 {
	switch n.k {
	case kInt:
		return float64(n.i)
	case kDec:
		if n.fOK {
			return n.f
		}
		f, _ := n.r.Float64()
		return f
	}
	return n.f
}

// promote brings a and b to their common type.
func promote(a, b num) (num, num) {
	k := a.k
	if b.k > k {
		k = b.k
	}
	return a.as(k), b.as(k)
}

func (n num) as(k numKind) num {
	if n.k == k {
		return n
	}
	switch k {
	case kDec:
		return num{k: kDec, r: n.rat()}
	case kFloat:
		return num{k: kFloat, f: float64(float32(n.float()))}
	case kDouble:
		return num{k: kDouble, f: n.float()}
	}
	return n
}

// cmpNum compares numbers; ok is false when either is NaN.
func cmpNum(a, b num) (int, bool) {
	a, b = promote(a, b)
	switch a.k {
	case kInt:
		switch {
		case a.i < b.i:
			return -1, true
		case a.i > b.i:
			return 1, true
		}
		return 0, true
	case kDec:
		return a.r.Cmp(b.r), true
	}
	if math.IsNaN(a.f) || math.IsNaN(b.f) {
		return 0, false
	}
	switch {
	case a.f < b.f:
		return -1, true
	case a.f > b.f:
		return 1, true
	}
	return 0, true
}

func arith(op string, a, b num) (num, error) {
	a, b = promote(a, b)
	switch a.k {
	case kInt:
		switch op {
		case "+":
			if s := a.i + b.i; (s > a.i) == (b.i > 0) {
				return num{k: kInt, i: s}, nil
			}
		case "-":
			if s := a.i - b.i; (s < a.i) == (b.i > 0) {
				return num{k: kInt, i: s}, nil
			}
		case "*":
			if a.i == 0 || b.i == 0 {
				return num{k: kInt}, nil
			}
			if s := a.i * b.i; s/b.i == a.i && !(a.i == -1 && b.i == math.MinInt64) && !(b.i == -1 && a.i == math.MinInt64) {
				return num{k: kInt, i: s}, nil
			}
		case "/":
			if b.i == 0 {
				return num{}, errEval
			}
			return num{k: kDec, r: new(big.Rat).SetFrac(big.NewInt(a.i), big.NewInt(b.i))}, nil
		}
		// Overflow: compute as decimal, the result is still an integer.
		r, err := arith(op, a.as(kDec), b.as(kDec))
		if err != nil {
			return r, err
		}
		return r, nil
	case kDec:
		r := new(big.Rat)
		switch op {
		case "+":
			r.Add(a.r, b.r)
		case "-":
			r.Sub(a.r, b.r)
		case "*":
			r.Mul(a.r, b.r)
		case "/":
			if b.r.Sign() == 0 {
				return num{}, errEval
			}
			r.Quo(a.r, b.r)
		}
		return num{k: kDec, r: r}, nil
	}
	var f float64
	switch op {
	case "+":
		f = a.f + b.f
	case "-":
		f = a.f - b.f
	case "*":
		f = a.f * b.f
	case "/":
		f = a.f / b.f
	}
	if a.k == kFloat {
		f = float64(float32(f))
	}
	return num{k: a.k, f: f}, nil
}

// value turns a number back into a literal.
func (n num) value() quad.Value {
	switch n.k {
	case kInt:
		return quad.TypedString{Value: quad.String(strconv.FormatInt(n.i, 10)), Type: xsdInteger}
	case kDec:
		return quad.TypedString{Value: quad.String(formatDecimal(n.r)), Type: xsdDecimal}
	case kFloat:
		return quad.TypedString{Value: quad.String(formatDouble(n.f, 32)), Type: xsdFloat}
	}
	return quad.TypedString{Value: quad.String(formatDouble(n.f, 64)), Type: xsdDouble}
}

// intValue is an integer result that may have overflowed into a decimal.
func intResult(n num) quad.Value {
	if n.k == kDec && n.r.IsInt() {
		return quad.TypedString{Value: quad.String(n.r.Num().String()), Type: xsdInteger}
	}
	return n.value()
}

func formatDecimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String() + ".0"
	}
	s := r.FloatString(24)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

func formatDouble(f float64, bits int) string {
	switch {
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case math.IsNaN(f):
		return "NaN"
	}
	s := strconv.FormatFloat(f, 'E', -1, bits)
	// Go writes 1.5E+00; XSD canonical form is 1.5E0.
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// ---- booleans, strings, dates ----

func boolValue(b bool) quad.Value {
	if b {
		return quad.TypedString{Value: "true", Type: xsdBoolean}
	}
	return quad.TypedString{Value: "false", Type: xsdBoolean}
}

var (
	trueValue  = boolValue(true)
	falseValue = boolValue(false)
)

// ebv computes the effective boolean value (section 17.2.2).
func ebv(v quad.Value) (bool, error) {
	switch x := v.(type) {
	case quad.String:
		return x != "", nil
	case quad.TypedString:
		switch {
		case x.Type == xsdBoolean:
			switch x.Value {
			case "true", "1":
				return true, nil
			}
			return false, nil
		case x.Type == xsdString:
			return x.Value != "", nil
		case isNumericType(x.Type):
			n, ok := toNum(x)
			if !ok {
				return false, nil
			}
			switch n.k {
			case kInt:
				return n.i != 0, nil
			case kDec:
				return n.r.Sign() != 0, nil
			}
			return n.f != 0 && !math.IsNaN(n.f), nil
		}
	}
	return false, errEval
}

// stringLit returns the lexical form and language of a simple literal,
// xsd:string or language-tagged literal.
func stringLit(v quad.Value) (s string, lang string, ok bool) {
	switch x := v.(type) {
	case quad.String:
		return string(x), "", true
	case quad.LangString:
		return string(x.Value), x.Lang, true
	case quad.TypedString:
		if x.Type == xsdString {
			return string(x.Value), "", true
		}
	}
	return "", "", false
}

func isLiteral(v quad.Value) bool {
	switch v.(type) {
	case quad.String, quad.LangString, quad.TypedString:
		return true
	}
	return false
}

// datatypeOf returns the datatype IRI of a literal.
func datatypeOf(v quad.Value) (quad.IRI, bool) {
	switch x := v.(type) {
	case quad.String:
		return xsdString, true
	case quad.LangString:
		return rdfLangStr, true
	case quad.TypedString:
		return x.Type, true
	}
	return "", false
}

// parseDateTime parses an xsd:dateTime (or date) lexical form; hasTZ tells
// whether a timezone was given.
func parseDateTime(s string) (t time.Time, hasTZ bool, ok bool) {
	// 24:00:00 is midnight at the end of the day.
	if i := strings.Index(s, "T24:00:00"); i >= 0 {
		rest := strings.TrimLeft(s[i+9:], ".0")
		if strings.HasPrefix(s[i+9:], ".") && strings.TrimLeft(s[i+10:], "0") != rest {
			return time.Time{}, false, false
		}
		t, tz, ok := parseDateTime(s[:i] + "T00:00:00" + rest)
		return t.AddDate(0, 0, 1), tz, ok
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999"} {
		if tt, err := time.Parse(layout, s); err == nil {
			return tt, layout != "2006-01-02T15:04:05.999999999", true
		}
	}
	for _, layout := range []string{"2006-01-02Z07:00", "2006-01-02"} {
		if tt, err := time.Parse(layout, s); err == nil {
			return tt, layout != "2006-01-02", true
		}
	}
	return time.Time{}, false, false
}

func toDateTime(v quad.Value) (time.Time, bool, bool) {
	ts, ok := v.(quad.TypedString)
	if !ok || ts.Type != xsdDateTime && ts.Type != xsdDate {
		return time.Time{}, false, false
	}
	return parseDateTime(string(ts.Value))
}

// ---- comparison ----

type litClass int

const (
	cNone litClass = iota // not a literal
	cNum
	cString // simple literal or xsd:string
	cLang
	cBool
	cDateTime
	cDate
	cOther // unknown datatype or ill-typed literal of a known type
)

// classify returns the comparison class of a term.
func classify(v quad.Value) litClass {
	switch x := v.(type) {
	case quad.String:
		return cString
	case quad.LangString:
		return cLang
	case quad.TypedString:
		switch {
		case x.Type == xsdString:
			return cString
		case isNumericType(x.Type):
			if _, ok := toNum(x); ok {
				return cNum
			}
		case x.Type == xsdBoolean:
			if validBool(x.Value) {
				return cBool
			}
		case x.Type == xsdDateTime:
			if _, _, ok := parseDateTime(string(x.Value)); ok && strings.Contains(string(x.Value), "T") {
				return cDateTime
			}
		case x.Type == xsdDate:
			if _, _, ok := parseDateTime(string(x.Value)); ok && !strings.Contains(string(x.Value), "T") {
				return cDate
			}
		}
		return cOther
	}
	return cNone
}

// cmpDates compares two dateTimes (or two dates) with the XSD partial
// order: a value without timezone is compared with the other's range of
// +-14 hours; ok is false when the order is indeterminate.
func cmpDates(a, b quad.Value) (int, bool) {
	ta, tza, _ := toDateTime(a)
	tb, tzb, _ := toDateTime(b)
	if tza == tzb {
		return ta.Compare(tb), true
	}
	if !tza {
		c, ok := cmpDates(b, a)
		return -c, ok
	}
	// a has a timezone, b does not.
	switch {
	case ta.Before(tb.Add(-14 * time.Hour)):
		return -1, true
	case ta.After(tb.Add(14 * time.Hour)):
		return 1, true
	}
	return 0, false
}

// equalTerms implements "=" (the operator mapping, then RDFterm-equal):
// the error result is a type error.
func equalTerms(a, b quad.Value) (bool, error) {
	if a == nil || b == nil {
		return false, errEval
	}
	ca, cb := classify(a), classify(b)
	switch {
	case ca == cNum && cb == cNum:
		na, _ := toNum(a)
		nb, _ := toNum(b)
		c, ok := cmpNum(na, nb)
		return ok && c == 0, nil
	case ca == cString && cb == cString:
		sa, _, _ := stringLit(a)
		sb, _, _ := stringLit(b)
		return sa == sb, nil
	case ca == cLang && cb == cLang:
		return sameTerm(a, b), nil
	case ca == cLang && cb != cNone || cb == cLang && ca != cNone:
		// A language-tagged string never equals another kind of literal.
		return false, nil
	case ca == cBool && cb == cBool:
		ba, _ := ebv(a)
		bb, _ := ebv(b)
		return ba == bb, nil
	case ca == cDateTime && cb == cDateTime, ca == cDate && cb == cDate:
		c, ok := cmpDates(a, b)
		if !ok {
			return false, errEval
		}
		return c == 0, nil
	}
	if sameTerm(a, b) {
		return true, nil
	}
	if ca != cNone && cb != cNone {
		if ca != cOther && cb != cOther && ca != cb {
			// Values of different known types are different.
			return false, nil
		}
		return false, errEval
	}
	return false, nil
}

func validBool(s quad.String) bool {
	return s == "true" || s == "false" || s == "1" || s == "0"
}

func sameTerm(a, b quad.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if la, ok := a.(quad.LangString); ok {
		lb, ok := b.(quad.LangString)
		return ok && la.Value == lb.Value && strings.EqualFold(la.Lang, lb.Lang)
	}
	if ta, ok := a.(quad.TypedString); ok && ta.Type == xsdString {
		a = quad.String(ta.Value)
	}
	if tb, ok := b.(quad.TypedString); ok && tb.Type == xsdString {
		b = quad.String(tb.Value)
	}
	return a == b
}

// compareTerms implements "<" and friends: it returns -1, 0, 1 or a type
// error when the terms are not comparable.
func compareTerms(a, b quad.Value) (int, error) {
	if a == nil || b == nil {
		return 0, errEval
	}
	// Two numbers (toNum accepts exactly the terms classify calls cNum),
	// each parsed once.
	if na, ok := toNum(a); ok {
		if nb, ok := toNum(b); ok {
			c, ok := cmpNum(na, nb)
			if !ok {
				return 0, errNaN
			}
			return c, nil
		}
	}
	ca, cb := classify(a), classify(b)
	if ca != cb {
		return 0, errEval
	}
	switch ca { // two numbers were compared above
	case cString:
		sa, _, _ := stringLit(a)
		sb, _, _ := stringLit(b)
		return strings.Compare(sa, sb), nil
	case cBool:
		ba, _ := ebv(a)
		bb, _ := ebv(b)
		switch {
		case ba == bb:
			return 0, nil
		case !ba:
			return -1, nil
		}
		return 1, nil
	case cDateTime, cDate:
		c, ok := cmpDates(a, b)
		if !ok {
			return 0, errEval
		}
		return c, nil
	}
	return 0, errEval
}

// orderTerms is the total order used by ORDER BY (section 15.1): unbound,
// blank nodes, IRIs, then literals.
func orderTerms(a, b quad.Value) int {
	ra, rb := orderRank(a), orderRank(b)
	if ra != rb {
		if ra < rb {
			return -1
		}
		return 1
	}
	switch ra {
	case 0:
		return 0
	case 1, 2:
		return strings.Compare(a.String(), b.String())
	}
	if c, err := compareTerms(a, b); err == nil {
		if c != 0 {
			return c
		}
	} else if err == errNaN {
		return 0
	}
	// Not comparable by value: order by kind, lexical form, then type.
	ka, kb := litRank(a), litRank(b)
	if ka != kb {
		if ka < kb {
			return -1
		}
		return 1
	}
	return strings.Compare(a.String(), b.String())
}

func orderRank(v quad.Value) int {
	switch v.(type) {
	case nil:
		return 0
	case quad.BNode:
		return 1
	case quad.IRI:
		return 2
	}
	return 3
}

func litRank(v quad.Value) int {
	if _, ok := toNum(v); ok {
		return 0
	}
	switch v.(type) {
	case quad.String:
		return 1
	case quad.LangString:
		return 2
	}
	return 3
}
