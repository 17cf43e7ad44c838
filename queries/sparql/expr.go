package sparql

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/rdfio"
)

// evalExpr evaluates e on row r. A type error is errEval; other errors
// (timeouts, source failures from EXISTS) are returned as they are.
func (ex *exec) evalExpr(e expr, g gctx, r row) (quad.Value, error) {
	switch x := e.(type) {
	case *eConst:
		return x.v, nil
	case *eVar:
		if v := r[x.slot]; v != nil {
			if t, ok := v.(idTerm); ok {
				return ex.decodeID(t.id)
			}
			return v, nil
		}
		return nil, errEval
	case *eAgg:
		if v := r[x.slot]; v != nil {
			return v, nil
		}
		return nil, errEval
	case *eOp:
		return ex.evalOp(x, g, r)
	case *eIn:
		return ex.evalIn(x, g, r)
	case *eExists:
		if found, ok, err := ex.existsHashed(x.p, g, r); ok || err != nil {
			return boolValue(found != x.not), err
		}
		found, err := ex.evalExists(x.p, g, r)
		if err != nil {
			return nil, err
		}
		return boolValue(found != x.not), nil
	case *eCall:
		v, err := ex.evalCall(x, g, r)
		if err == nil && ex.maxLiteral > 0 && buildsStrings(x.name) && lexicalLen(v) > ex.maxLiteral {
			return nil, errEval
		}
		return v, err
	case *eFunc:
		return ex.evalFunc(x, g, r)
	}
	return nil, errEval
}

func (ex *exec) evalOp(x *eOp, g gctx, r row) (quad.Value, error) {
	switch x.op {
	case "||", "&&":
		// Three-valued logic: an error on one side is masked by the other.
		a, errA := ex.evalBool(x.args[0], g, r)
		if errA != nil && errA != errEval {
			return nil, errA
		}
		if x.op == "||" && errA == nil && a || x.op == "&&" && errA == nil && !a {
			return boolValue(a), nil
		}
		b, errB := ex.evalBool(x.args[1], g, r)
		if errB != nil && errB != errEval {
			return nil, errB
		}
		if x.op == "||" {
			switch {
			case errB == nil && b:
				return trueValue, nil
			case errA != nil || errB != nil:
				return nil, errEval
			}
			return falseValue, nil
		}
		switch {
		case errB == nil && !b:
			return falseValue, nil
		case errA != nil || errB != nil:
			return nil, errEval
		}
		return trueValue, nil
	case "!":
		a, err := ex.evalBool(x.args[0], g, r)
		if err != nil {
			return nil, err
		}
		return boolValue(!a), nil
	}
	if v, handled, err := ex.foldedOp(x, r); handled {
		return v, err
	}
	var buf [3]quad.Value
	args := buf[:0]
	if len(x.args) > len(buf) {
		args = make([]quad.Value, 0, len(x.args))
	}
	args = args[:len(x.args)]
	for i, a := range x.args {
		v, err := ex.evalExpr(a, g, r)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	switch x.op {
	case "=", "!=":
		eq, err := equalTerms(args[0], args[1])
		if err != nil {
			return nil, err
		}
		return boolValue(eq == (x.op == "=")), nil
	case "<", ">", "<=", ">=":
		c, err := compareTerms(args[0], args[1])
		if err == errNaN {
			return falseValue, nil
		}
		if err != nil {
			return nil, err
		}
		switch x.op {
		case "<":
			return boolValue(c < 0), nil
		case ">":
			return boolValue(c > 0), nil
		case "<=":
			return boolValue(c <= 0), nil
		}
		return boolValue(c >= 0), nil
	case "neg", "pos":
		n, ok := toNum(args[0])
		if !ok {
			return nil, errEval
		}
		if x.op == "pos" {
			return n.value(), nil
		}
		res, err := arith("-", num{k: kInt}, n)
		if err != nil {
			return nil, err
		}
		if n.k == kInt {
			return intResult(res), nil
		}
		return res.value(), nil
	case "+", "-", "*", "/":
		n, ints, err := arithNum(x.op, args[0], args[1])
		if err != nil {
			return nil, err
		}
		if ex.bigNum(n) {
			return nil, errEval
		}
		return arithLiteral(n, ints), nil
	}
	return nil, errEval
}

// buildsStrings reports whether the built-in function name returns a
// string (or IRI or blank node) made from its arguments, whose length
// Options.MaxLiteral bounds. IF and COALESCE return an argument as it is.
func buildsStrings(name string) bool {
	switch name {
	case "STR", "IRI", "URI", "BNODE", "CONCAT", "UCASE", "LCASE", "ENCODE_FOR_URI",
		"STRBEFORE", "STRAFTER", "STRLANG", "STRDT", "REPLACE", "SUBSTR":
		return true
	}
	return false
}

// lexicalLen is the length of a term's lexical form (0 for nil).
func lexicalLen(v quad.Value) int {
	switch x := v.(type) {
	case quad.String:
		return len(x)
	case quad.LangString:
		return len(x.Value)
	case quad.TypedString:
		return len(x.Value)
	case quad.IRI:
		return len(x)
	case quad.BNode:
		return len(x)
	}
	return 0
}

// bigNum reports whether n is a decimal too large for Options.MaxLiteral:
// about MaxLiteral digits (3.33 bits a digit, numerator and denominator
// together), so that chained multiplications cannot double a number's size
// without bound as CONCAT doubled strings.
func (ex *exec) bigNum(n num) bool {
	return n.k == kDec && ex.maxLiteral > 0 && n.r.Num().BitLen()+n.r.Denom().BitLen() > 4*ex.maxLiteral
}

// isArith reports whether x is binary + - * /.
func isArith(x *eOp) bool {
	switch x.op {
	case "+", "-", "*", "/":
		return len(x.args) == 2
	}
	return false
}

// arithNum computes x op y for + - * /: the number, and whether the
// expression's value is an xsd:integer (both operands integers, not a
// division).
func arithNum(op string, x, y quad.Value) (res num, ints bool, err error) {
	a, ok1 := toNum(x)
	b, ok2 := toNum(y)
	if !ok1 || !ok2 {
		return num{}, false, errEval
	}
	res, err = arith(op, a, b)
	return res, a.k == kInt && b.k == kInt && op != "/", err
}

// arithLiteral is the literal an arithmetic expression's value is.
func arithLiteral(res num, ints bool) quad.Value {
	if ints {
		return intResult(res)
	}
	return res.value()
}

func (ex *exec) evalBool(e expr, g gctx, r row) (bool, error) {
	v, err := ex.evalExpr(e, g, r)
	if err != nil {
		return false, err
	}
	return ebv(v)
}

func (ex *exec) evalIn(x *eIn, g gctx, r row) (quad.Value, error) {
	if v, handled, err := ex.foldedIn(x, r); handled {
		return v, err
	}
	left, err := ex.evalExpr(x.left, g, r)
	if err != nil {
		return nil, err
	}
	sawErr := false
	for _, item := range x.list {
		v, err := ex.evalExpr(item, g, r)
		if err != nil && err != errEval {
			return nil, err
		}
		if err == errEval {
			sawErr = true
			continue
		}
		eq, err := equalTerms(left, v)
		if err != nil {
			sawErr = true
			continue
		}
		if eq {
			return boolValue(!x.not), nil
		}
	}
	if sawErr {
		return nil, errEval
	}
	return boolValue(x.not), nil
}

// simple returns a literal's string value when it is a simple literal or
// xsd:string (not language-tagged).
func simpleString(v quad.Value) (string, bool) {
	s, lang, ok := stringLit(v)
	return s, ok && lang == ""
}

// strResult builds a string result with the language of the argument.
func strLike(s, lang string) quad.Value {
	if lang != "" {
		return quad.LangString{Value: quad.String(s), Lang: lang}
	}
	return quad.String(s)
}

// compatibleArgs checks the "argument compatibility rules" for the string
// functions with two arguments (section 17.4.3.1.2).
func compatibleArgs(a, b quad.Value) (string, string, string, bool) {
	sa, la, ok1 := stringLit(a)
	sb, lb, ok2 := stringLit(b)
	if !ok1 || !ok2 {
		return "", "", "", false
	}
	if lb != "" && !strings.EqualFold(la, lb) {
		return "", "", "", false
	}
	return sa, sb, la, true
}

func (ex *exec) evalCall(x *eCall, g gctx, r row) (quad.Value, error) {
	switch x.name {
	case "BOUND":
		return boolValue(r[x.args[0].(*eVar).slot] != nil), nil
	case "IF":
		c, err := ex.evalBool(x.args[0], g, r)
		if err != nil {
			return nil, err
		}
		if c {
			return ex.evalExpr(x.args[1], g, r)
		}
		return ex.evalExpr(x.args[2], g, r)
	case "COALESCE":
		for _, a := range x.args {
			v, err := ex.evalExpr(a, g, r)
			if err == nil && v != nil {
				return v, nil
			}
			if err != nil && err != errEval {
				return nil, err
			}
		}
		return nil, errEval
	case "RAND":
		var b [8]byte
		_, _ = rand.Read(b[:])
		f := float64(uint64(b[0])<<45|uint64(b[1])<<37|uint64(b[2])<<29|uint64(b[3])<<21|uint64(b[4])<<13|uint64(b[5])<<5|uint64(b[6])>>3) / (1 << 53)
		return num{k: kDouble, f: f}.value(), nil
	case "NOW":
		return quad.TypedString{Value: quad.String(ex.now.Format("2006-01-02T15:04:05.999999999Z07:00")), Type: xsdDateTime}, nil
	case "UUID":
		return quad.IRI("urn:uuid:" + newUUID()), nil
	case "STRUUID":
		return quad.String(newUUID()), nil
	case "BNODE":
		if len(x.args) == 0 {
			ex.bnodeSeq++
			return quad.BNode(fmt.Sprintf("f%d", ex.bnodeSeq)), nil
		}
	}
	if v, handled, err := ex.foldedCall(x, r); handled {
		return v, err
	}
	var buf [3]quad.Value
	args := buf[:0]
	if len(x.args) > len(buf) {
		args = make([]quad.Value, 0, len(x.args))
	}
	args = args[:len(x.args)]
	for i, a := range x.args {
		v, err := ex.evalExpr(a, g, r)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	a0 := func() quad.Value { return args[0] }
	switch x.name {
	case "BNODE":
		s, ok := simpleString(args[0])
		if !ok {
			return nil, errEval
		}
		if ex.solution > 0 {
			// The same string gives the same blank node within one
			// solution (numbers are never reused, so other solutions
			// and other calls get others).
			return quad.BNode(fmt.Sprintf("s%d_%s", ex.solution, hex.EncodeToString([]byte(s)))), nil
		}
		ex.bnodeSeq++
		return quad.BNode(fmt.Sprintf("s%d_%s", ex.bnodeSeq, hex.EncodeToString([]byte(s)))), nil
	case "STR":
		switch v := a0().(type) {
		case quad.IRI:
			return quad.String(string(v)), nil
		case quad.BNode:
			return nil, errEval
		}
		if s, _, ok := stringLit(a0()); ok {
			return quad.String(s), nil
		}
		if ts, ok := a0().(quad.TypedString); ok {
			return quad.String(ts.Value), nil
		}
		return nil, errEval
	case "LANG":
		if !isLiteral(a0()) {
			return nil, errEval
		}
		if l, ok := a0().(quad.LangString); ok {
			return quad.String(l.Lang), nil
		}
		return quad.String(""), nil
	case "LANGMATCHES":
		tag, ok1 := simpleString(args[0])
		rng, ok2 := simpleString(args[1])
		if !ok1 || !ok2 {
			return nil, errEval
		}
		return boolValue(langMatches(tag, rng)), nil
	case "DATATYPE":
		dt, ok := datatypeOf(a0())
		if !ok {
			return nil, errEval
		}
		return dt, nil
	case "IRI", "URI":
		switch v := a0().(type) {
		case quad.IRI:
			return v, nil
		}
		s, ok := simpleString(a0())
		if !ok {
			return nil, errEval
		}
		return quad.IRI(resolveIRI(ex.q.base, s)), nil
	case "ABS", "CEIL", "FLOOR", "ROUND":
		n, ok := toNum(a0())
		if !ok {
			return nil, errEval
		}
		return roundNum(x.name, n).value(), nil
	case "CONCAT":
		// The length is checked before anything is copied: the arguments
		// may each be up to the limit long.
		total := 0
		for _, a := range args {
			total += lexicalLen(a)
		}
		if ex.maxLiteral > 0 && total > ex.maxLiteral {
			return nil, errEval
		}
		var b strings.Builder
		b.Grow(total)
		lang, first := "", true
		for _, a := range args {
			s, l, ok := stringLit(a)
			if !ok {
				return nil, errEval
			}
			if first {
				lang, first = l, false
			} else if lang != l {
				lang = ""
			}
			b.WriteString(s)
		}
		return strLike(b.String(), lang), nil
	case "STRLEN":
		s, _, ok := stringLit(a0())
		if !ok {
			return nil, errEval
		}
		return num{k: kInt, i: int64(utf8.RuneCountInString(s))}.value(), nil
	case "UCASE", "LCASE":
		s, l, ok := stringLit(a0())
		if !ok {
			return nil, errEval
		}
		if x.name == "UCASE" {
			return strLike(strings.ToUpper(s), l), nil
		}
		return strLike(strings.ToLower(s), l), nil
	case "ENCODE_FOR_URI":
		s, _, ok := stringLit(a0())
		if !ok {
			return nil, errEval
		}
		return quad.String(strings.ReplaceAll(url.QueryEscape(s), "+", "%20")), nil
	case "CONTAINS", "STRSTARTS", "STRENDS", "STRBEFORE", "STRAFTER":
		a, b, lang, ok := compatibleArgs(args[0], args[1])
		if !ok {
			return nil, errEval
		}
		switch x.name {
		case "CONTAINS":
			return boolValue(strings.Contains(a, b)), nil
		case "STRSTARTS":
			return boolValue(strings.HasPrefix(a, b)), nil
		case "STRENDS":
			return boolValue(strings.HasSuffix(a, b)), nil
		case "STRBEFORE":
			i := strings.Index(a, b)
			if i < 0 {
				return quad.String(""), nil
			}
			return strLike(a[:i], lang), nil
		}
		i := strings.Index(a, b)
		if i < 0 {
			return quad.String(""), nil
		}
		return strLike(a[i+len(b):], lang), nil
	case "YEAR", "MONTH", "DAY", "HOURS", "MINUTES", "SECONDS", "TIMEZONE", "TZ":
		return dateFunc(x.name, a0())
	case "MD5", "SHA1", "SHA256", "SHA384", "SHA512":
		s, ok := simpleString(a0())
		if !ok {
			return nil, errEval
		}
		var h hash.Hash
		switch x.name {
		case "MD5":
			h = md5.New()
		case "SHA1":
			h = sha1.New()
		case "SHA256":
			h = sha256.New()
		case "SHA384":
			h = sha512.New384()
		default:
			h = sha512.New()
		}
		h.Write([]byte(s))
		return quad.String(hex.EncodeToString(h.Sum(nil))), nil
	case "STRLANG":
		s, ok := simpleString(args[0])
		l, ok2 := simpleString(args[1])
		if !ok || !ok2 || l == "" {
			return nil, errEval
		}
		return quad.LangString{Value: quad.String(s), Lang: l}, nil
	case "STRDT":
		s, ok := simpleString(args[0])
		dt, ok2 := args[1].(quad.IRI)
		if !ok || !ok2 {
			return nil, errEval
		}
		if dt == xsdString {
			return quad.String(s), nil
		}
		return quad.TypedString{Value: quad.String(s), Type: dt}, nil
	case "SAMETERM":
		return boolValue(sameTerm(args[0], args[1])), nil
	case "ISIRI", "ISURI":
		_, ok := a0().(quad.IRI)
		return boolValue(ok), nil
	case "ISBLANK":
		_, ok := a0().(quad.BNode)
		return boolValue(ok), nil
	case "ISLITERAL":
		return boolValue(isLiteral(a0())), nil
	case "ISNUMERIC":
		_, ok := toNum(a0())
		return boolValue(ok), nil
	case "REGEX":
		s, _, ok := stringLit(args[0])
		pat, ok2 := simpleString(args[1])
		if !ok || !ok2 {
			return nil, errEval
		}
		flags := ""
		if len(args) == 3 {
			if flags, ok = simpleString(args[2]); !ok {
				return nil, errEval
			}
		}
		re, err := ex.regex(pat, flags)
		if err != nil {
			return nil, errEval
		}
		return boolValue(re.MatchString(s)), nil
	case "REPLACE":
		s, lang, ok := stringLit(args[0])
		pat, ok2 := simpleString(args[1])
		rep, ok3 := simpleString(args[2])
		if !ok || !ok2 || !ok3 {
			return nil, errEval
		}
		flags := ""
		if len(args) == 4 {
			if flags, ok = simpleString(args[3]); !ok {
				return nil, errEval
			}
		}
		re, err := ex.regex(pat, flags)
		if err != nil || re.MatchString("") {
			return nil, errEval
		}
		tmpl := convertReplacement(rep)
		if ex.maxLiteral > 0 && !replaceFits(re, s, tmpl, ex.maxLiteral) {
			return nil, errEval
		}
		return strLike(re.ReplaceAllString(s, tmpl), lang), nil
	case "SUBSTR":
		s, lang, ok := stringLit(args[0])
		if !ok {
			return nil, errEval
		}
		start, ok := toNum(args[1])
		if !ok {
			return nil, errEval
		}
		runes := []rune(s)
		st := roundHalfUp(start.float())
		end := math.Inf(1)
		if len(args) == 3 {
			l, ok := toNum(args[2])
			if !ok {
				return nil, errEval
			}
			end = st + roundHalfUp(l.float())
		}
		var b strings.Builder
		for i, c := range runes {
			pos := float64(i + 1)
			if pos >= st && pos < end {
				b.WriteRune(c)
			}
		}
		return strLike(b.String(), lang), nil
	}
	return nil, errEval
}

func roundHalfUp(f float64) float64 {
	if math.IsNaN(f) {
		return f
	}
	return math.Floor(f + 0.5)
}

func roundNum(name string, n num) num {
	switch n.k {
	case kInt:
		if name == "ABS" && n.i < 0 {
			return num{k: kInt, i: -n.i}
		}
		return n
	case kDec:
		r := new(big.Rat).Set(n.r)
		switch name {
		case "ABS":
			return num{k: kDec, r: r.Abs(r)}
		case "CEIL", "FLOOR", "ROUND":
			num_, den := r.Num(), r.Denom()
			q, m := new(big.Int).DivMod(num_, den, new(big.Int)) // floor division for positive den
			switch name {
			case "CEIL":
				if m.Sign() != 0 {
					q.Add(q, big.NewInt(1))
				}
			case "ROUND":
				// round half up: floor(x + 1/2)
				half := new(big.Rat).Add(r, big.NewRat(1, 2))
				q.Div(half.Num(), half.Denom())
				if half.Num().Sign() < 0 {
					q, _ = new(big.Int).DivMod(half.Num(), half.Denom(), new(big.Int))
				}
			}
			return num{k: kDec, r: new(big.Rat).SetInt(q)}
		}
	}
	f := n.f
	switch name {
	case "ABS":
		f = math.Abs(f)
	case "CEIL":
		f = math.Ceil(f)
	case "FLOOR":
		f = math.Floor(f)
	case "ROUND":
		f = roundHalfUp(f)
	}
	return num{k: n.k, f: f}
}

// regex compiles an XPath regular expression with flags (s, m, i, x, q)
// into Go's RE2 syntax, cached per execution.
func (ex *exec) regex(pat, flags string) (*regexp.Regexp, error) {
	key := flags + "/" + pat
	if v, ok := ex.strs[key]; ok {
		if re, ok := v.(regexValue); ok {
			return re.re, nil
		}
	}
	goFlags := ""
	for _, f := range flags {
		switch f {
		case 'i', 's', 'm':
			goFlags += string(f)
		case 'x':
			pat = removeRegexSpace(pat)
		case 'q':
			pat = regexp.QuoteMeta(pat)
		default:
			return nil, errEval
		}
	}
	if goFlags != "" {
		pat = "(?" + goFlags + ")" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, err
	}
	if ex.strs == nil {
		ex.strs = map[string]quad.Value{}
	}
	ex.strs[key] = regexValue{re: re}
	return re, nil
}

// regexValue lets the per-execution string cache hold compiled patterns.
type regexValue struct {
	quad.Value
	re *regexp.Regexp
}

func removeRegexSpace(p string) string {
	var b strings.Builder
	inClass := false
	for _, c := range p {
		switch {
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case !inClass && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// replaceFits reports whether re.ReplaceAllString(s, tmpl) is at most max
// bytes long, without building it. Matches are not empty (REPLACE refuses
// a pattern that matches "") and do not overlap, so there are at most
// len(s) of them, and the texts a group reference copies add up to at most
// len(s) over all matches: the result is at most
// len(s) * (1 + len(tmpl) + refs). Only when that crude bound is too large
// are the matches counted, by a pass that builds nothing longer than s.
func replaceFits(re *regexp.Regexp, s, tmpl string, max int) bool {
	// lit bytes of tmpl are copied as they are, refs are "${n}" references
	// (convertReplacement's output).
	refs := strings.Count(tmpl, "${")
	lit := len(tmpl)
	for rest := tmpl; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			break
		}
		lit -= j + 1
		rest = rest[i+j+1:]
	}
	if len(s)*(1+lit+refs) <= max {
		return true
	}
	n := len(s)
	re.ReplaceAllStringFunc(s, func(m string) string {
		n += lit + (refs-1)*len(m)
		return ""
	})
	return n <= max
}

// convertReplacement turns XPath "$1" references into Go's "${1}".
func convertReplacement(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(s[i])
			}
		case c == '$':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func langMatches(tag, rng string) bool {
	if rng == "*" {
		return tag != ""
	}
	tag, rng = strings.ToLower(tag), strings.ToLower(rng)
	return tag == rng || strings.HasPrefix(tag, rng+"-")
}

func dateFunc(name string, v quad.Value) (quad.Value, error) {
	ts, ok := v.(quad.TypedString)
	if !ok || ts.Type != xsdDateTime {
		return nil, errEval
	}
	t, hasTZ, ok := parseDateTime(string(ts.Value))
	if !ok {
		return nil, errEval
	}
	switch name {
	case "YEAR", "MONTH", "DAY", "HOURS", "MINUTES", "SECONDS":
		return datePart(name, t), nil
	case "TIMEZONE":
		if !hasTZ {
			return nil, errEval
		}
		_, off := t.Zone()
		return quad.TypedString{Value: quad.String(xsdDuration(off)), Type: nsXSD + "dayTimeDuration"}, nil
	case "TZ":
		if !hasTZ {
			return quad.String(""), nil
		}
		_, off := t.Zone()
		if off == 0 {
			return quad.String("Z"), nil
		}
		return quad.String(t.Format("-07:00")), nil
	}
	return nil, errEval
}

// datePart is YEAR, MONTH, DAY, HOURS, MINUTES or SECONDS of t, in t's
// own location (the lexical form's timezone).
func datePart(name string, t time.Time) quad.Value {
	switch name {
	case "YEAR":
		return num{k: kInt, i: int64(t.Year())}.value()
	case "MONTH":
		return num{k: kInt, i: int64(t.Month())}.value()
	case "DAY":
		return num{k: kInt, i: int64(t.Day())}.value()
	case "HOURS":
		return num{k: kInt, i: int64(t.Hour())}.value()
	case "MINUTES":
		return num{k: kInt, i: int64(t.Minute())}.value()
	}
	r := new(big.Rat).SetFrac64(int64(t.Second())*1e9+int64(t.Nanosecond()), 1e9)
	s := r.FloatString(9)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s = s[:len(s)-1]
	}
	return quad.TypedString{Value: quad.String(s), Type: xsdDecimal}
}

func xsdDuration(off int) string {
	if off == 0 {
		return "PT0S"
	}
	sign := ""
	if off < 0 {
		sign, off = "-", -off
	}
	h, m := off/3600, off%3600/60
	s := sign + "PT"
	if h > 0 {
		s += strconv.Itoa(h) + "H"
	}
	if m > 0 {
		s += strconv.Itoa(m) + "M"
	}
	return s
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// evalFunc evaluates a function called by IRI: the XSD constructor casts
// (section 17.5). Other functions are unknown: an error, so FILTER is false.
func (ex *exec) evalFunc(x *eFunc, g gctx, r row) (quad.Value, error) {
	if len(x.args) != 1 || !strings.HasPrefix(string(x.iri), nsXSD) {
		return nil, errEval
	}
	if op, ok := x.args[0].(*eOp); ok && isArith(op) {
		// A cast of arithmetic: cast the number without writing it out
		// and parsing it back, when its literal holds it exactly (an int,
		// float or double; a decimal's literal is rounded).
		var args [2]quad.Value
		for i, a := range op.args {
			v, err := ex.evalExpr(a, g, r)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		n, ints, err := arithNum(op.op, args[0], args[1])
		if err != nil {
			return nil, err
		}
		if ex.bigNum(n) {
			return nil, errEval
		}
		switch n.k {
		case kDouble, kFloat, kInt:
			return castNum(x.iri, n)
		}
		return cast(x.iri, arithLiteral(n, ints))
	}
	v, err := ex.evalExpr(x.args[0], g, r)
	if err != nil {
		return nil, err
	}
	return cast(x.iri, v)
}

func cast(to quad.IRI, v quad.Value) (quad.Value, error) {
	if _, ok := v.(quad.BNode); ok {
		return nil, errEval
	}
	if iri, ok := v.(quad.IRI); ok {
		if to == xsdString {
			return quad.String(string(iri)), nil
		}
		return nil, errEval
	}
	lex, _, isStr := stringLit(v)
	if _, isLang := v.(quad.LangString); isLang {
		// A language-tagged string casts only to xsd:string.
		if to != xsdString {
			return nil, errEval
		}
	}
	ts, _ := v.(quad.TypedString)
	if !isStr {
		lex = string(ts.Value)
	}
	n, isNum := toNum(v)
	if isNum {
		return castNum(to, n)
	}
	switch to {
	case xsdString:
		if ts.Type == xsdBoolean {
			if b, _ := ebv(ts); b {
				return quad.String("true"), nil
			}
			return quad.String("false"), nil
		}
		return quad.String(lex), nil
	case xsdBoolean:
		if isStr || ts.Type == xsdBoolean {
			switch strings.TrimSpace(lex) {
			case "true", "1":
				return trueValue, nil
			case "false", "0":
				return falseValue, nil
			}
		}
		return nil, errEval
	case xsdDouble, xsdFloat:
		k := kDouble
		if to == xsdFloat {
			k = kFloat
		}
		if ts.Type == xsdBoolean {
			b, _ := ebv(ts)
			if b {
				return num{k: k, f: 1}.value(), nil
			}
			return num{k: k, f: 0}.value(), nil
		}
		if isStr {
			if _, ok := rdfio.ParseDouble(strings.TrimSpace(lex)); ok {
				return quad.TypedString{Value: quad.String(strings.TrimSpace(lex)), Type: to}, nil
			}
		}
		return nil, errEval
	case xsdDecimal:
		if ts.Type == xsdBoolean {
			b, _ := ebv(ts)
			if b {
				return quad.TypedString{Value: "1.0", Type: xsdDecimal}, nil
			}
			return quad.TypedString{Value: "0.0", Type: xsdDecimal}, nil
		}
		if isStr && rdfio.ValidDecimal(strings.TrimSpace(lex)) {
			return quad.TypedString{Value: quad.String(strings.TrimSpace(lex)), Type: xsdDecimal}, nil
		}
		return nil, errEval
	case xsdInteger:
		if ts.Type == xsdBoolean {
			b, _ := ebv(ts)
			if b {
				return quad.TypedString{Value: "1", Type: xsdInteger}, nil
			}
			return quad.TypedString{Value: "0", Type: xsdInteger}, nil
		}
		if isStr && rdfio.ValidInteger(strings.TrimSpace(lex)) {
			return quad.TypedString{Value: quad.String(strings.TrimSpace(lex)), Type: xsdInteger}, nil
		}
		return nil, errEval
	case xsdDateTime:
		if isStr || ts.Type == xsdDateTime {
			if _, _, ok := parseDateTime(strings.TrimSpace(lex)); ok && strings.Contains(lex, "T") {
				return quad.TypedString{Value: quad.String(strings.TrimSpace(lex)), Type: xsdDateTime}, nil
			}
		}
		return nil, errEval
	}
	return nil, errEval
}

// castNum is cast for a numeric value n.
func castNum(to quad.IRI, n num) (quad.Value, error) {
	switch to {
	case xsdString:
		return quad.String(numString(n)), nil
	case xsdBoolean:
		switch n.k {
		case kInt:
			return boolValue(n.i != 0), nil
		case kDec:
			return boolValue(n.r.Sign() != 0), nil
		}
		return boolValue(n.f != 0 && !math.IsNaN(n.f)), nil
	case xsdDouble:
		return n.as(kDouble).value(), nil
	case xsdFloat:
		return n.as(kFloat).value(), nil
	case xsdDecimal:
		if (n.k == kFloat || n.k == kDouble) && (math.IsInf(n.f, 0) || math.IsNaN(n.f)) {
			return nil, errEval
		}
		return n.as(kDec).value(), nil
	case xsdInteger:
		switch n.k {
		case kInt:
			return n.value(), nil
		case kDec:
			q := new(big.Int).Quo(n.r.Num(), n.r.Denom())
			return quad.TypedString{Value: quad.String(q.String()), Type: xsdInteger}, nil
		}
		if math.IsInf(n.f, 0) || math.IsNaN(n.f) {
			return nil, errEval
		}
		t := math.Trunc(n.f)
		if math.Abs(t) < 1<<62 {
			return quad.TypedString{Value: quad.String(strconv.FormatInt(int64(t), 10)), Type: xsdInteger}, nil
		}
		bf := new(big.Float).SetFloat64(t)
		bi, _ := bf.Int(nil)
		return quad.TypedString{Value: quad.String(bi.String()), Type: xsdInteger}, nil
	}
	return nil, errEval
}

var _ = time.Now

// numString is the XPath cast of a number to xsd:string: canonical integer
// and decimal forms, and for float/double plain decimal notation between
// 1e-6 and 1e6, scientific notation outside.
func numString(n num) string {
	switch n.k {
	case kInt:
		return strconv.FormatInt(n.i, 10)
	case kDec:
		if n.r.IsInt() {
			return n.r.Num().String()
		}
		return strings.TrimSuffix(formatDecimal(n.r), ".0")
	}
	bits := 64
	if n.k == kFloat {
		bits = 32
	}
	a := math.Abs(n.f)
	if a == 0 || a >= 1e-6 && a < 1e6 {
		return strconv.FormatFloat(n.f, 'f', -1, bits)
	}
	return formatDouble(n.f, bits)
}
