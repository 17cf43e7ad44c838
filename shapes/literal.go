package shapes

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Lexical spaces of the XSD datatypes (XML Schema 1.1 Part 2, section 3).
// Go's regexp is enough for these: they are the grammar productions of the
// recommendation, without whitespace (RDF lexical forms are not collapsed).
var (
	reDecimal  = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	reInteger  = regexp.MustCompile(`^[+-]?[0-9]+$`)
	reDouble   = regexp.MustCompile(`^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([Ee][+-]?[0-9]+)?|[+-]?INF|NaN)$`)
	reDateTime = regexp.MustCompile(`^-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|24:00:00(\.0+)?)(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)
	reDate     = regexp.MustCompile(`^-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)
	reTime     = regexp.MustCompile(`^(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|24:00:00(\.0+)?)(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)
	reGYear    = regexp.MustCompile(`^-?([1-9][0-9]{3,}|0[0-9]{3})(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)
	reDuration = regexp.MustCompile(`^-?P(([0-9]+Y)?([0-9]+M)?([0-9]+D)?(T([0-9]+H)?([0-9]+M)?([0-9]+(\.[0-9]+)?S)?)?)$`)
	reLanguage = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)
)

// integer subtypes and their inclusive bounds (nil = unbounded).
var intRanges = map[string][2]*big.Int{
	"integer":            {nil, nil},
	"long":               {big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)},
	"int":                {big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)},
	"short":              {big.NewInt(math.MinInt16), big.NewInt(math.MaxInt16)},
	"byte":               {big.NewInt(math.MinInt8), big.NewInt(math.MaxInt8)},
	"nonNegativeInteger": {big.NewInt(0), nil},
	"positiveInteger":    {big.NewInt(1), nil},
	"nonPositiveInteger": {nil, big.NewInt(0)},
	"negativeInteger":    {nil, big.NewInt(-1)},
	"unsignedLong":       {big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64)},
	"unsignedInt":        {big.NewInt(0), big.NewInt(math.MaxUint32)},
	"unsignedShort":      {big.NewInt(0), big.NewInt(math.MaxUint16)},
	"unsignedByte":       {big.NewInt(0), big.NewInt(math.MaxUint8)},
}

// literalParts splits a literal into lexical form, datatype and language.
// ok is false for IRIs and blank nodes.
func literalParts(v quad.Value) (lex string, dt quad.IRI, lang string, ok bool) {
	switch t := v.(type) {
	case quad.String:
		return string(t), xsdString, "", true
	case quad.LangString:
		return string(t.Value), rdfLangStr, t.Lang, true
	case quad.TypedString:
		return string(t.Value), t.Type, "", true
	}
	return "", "", "", false
}

func isLiteral(v quad.Value) bool {
	_, _, _, ok := literalParts(v)
	return ok
}

// wellFormed reports whether lex is in the lexical space of datatype dt.
// Datatypes this package does not know are taken as well-formed.
func wellFormed(lex string, dt quad.IRI) bool {
	name, isXSD := strings.CutPrefix(string(dt), nsXSD)
	if !isXSD {
		return true
	}
	if r, ok := intRanges[name]; ok {
		if !reInteger.MatchString(lex) {
			return false
		}
		n, ok := new(big.Int).SetString(strings.TrimPrefix(lex, "+"), 10)
		if !ok {
			return false
		}
		return (r[0] == nil || n.Cmp(r[0]) >= 0) && (r[1] == nil || n.Cmp(r[1]) <= 0)
	}
	switch name {
	case "decimal":
		return reDecimal.MatchString(lex)
	case "double", "float":
		return reDouble.MatchString(lex)
	case "boolean":
		return lex == "true" || lex == "false" || lex == "1" || lex == "0"
	case "dateTime", "dateTimeStamp":
		if !reDateTime.MatchString(lex) {
			return false
		}
		_, _, ok := parseDateTime(lex)
		return ok && (name == "dateTime" || hasTimezone(lex))
	case "date":
		if !reDate.MatchString(lex) {
			return false
		}
		_, _, ok := parseDateTime(lex)
		return ok
	case "time":
		return reTime.MatchString(lex)
	case "gYear":
		return reGYear.MatchString(lex)
	case "duration":
		return reDuration.MatchString(lex) && lex != "P" && !strings.HasSuffix(lex, "T")
	case "language":
		return reLanguage.MatchString(lex)
	case "hexBinary":
		if len(lex)%2 != 0 {
			return false
		}
		for _, c := range lex {
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
		return true
	}
	return true
}

func hasTimezone(lex string) bool {
	if strings.HasSuffix(lex, "Z") {
		return true
	}
	if len(lex) < 6 {
		return false
	}
	tz := lex[len(lex)-6:]
	return (tz[0] == '+' || tz[0] == '-') && tz[3] == ':'
}

// parseDateTime parses an xsd:dateTime or xsd:date lexical form (already
// matched by its regular expression). A missing time zone reads as UTC and is
// reported by tz=false. Years outside 0001..9999 are not compared (ok=false).
func parseDateTime(lex string) (t time.Time, tz bool, ok bool) {
	tz = hasTimezone(lex)
	body, zone := lex, "Z"
	if tz {
		if strings.HasSuffix(lex, "Z") {
			body = lex[:len(lex)-1]
		} else {
			body, zone = lex[:len(lex)-6], lex[len(lex)-6:]
		}
	}
	if !strings.Contains(body, "T") {
		body += "T00:00:00"
	}
	day := false
	if strings.HasSuffix(body, "T24:00:00") || strings.Contains(body, "T24:00:00.") {
		body = body[:strings.Index(body, "T")] + "T00:00:00"
		day = true
	}
	t, err := time.Parse("2006-01-02T15:04:05.999999999Z07:00", body+zone)
	if err != nil {
		return time.Time{}, false, false
	}
	if day {
		t = t.Add(24 * time.Hour)
	}
	return t, tz, true
}

// valueKind groups comparable literals (SPARQL 1.1, 17.3 operator mapping).
type valueKind int

const (
	kindNone valueKind = iota
	kindNumeric
	kindDateTime
	kindDate
	kindString
	kindBoolean
)

type cmpValue struct {
	kind  valueKind
	isFlt bool
	f     float64
	r     *big.Rat
	t     time.Time
	tz    bool
	s     string
	b     bool
}

// comparable turns a literal into a value that can be ordered; kindNone for
// anything else (IRIs, blank nodes, ill-formed or unordered literals).
func toCmp(v quad.Value) cmpValue {
	lex, dt, lang, ok := literalParts(v)
	if !ok || lang != "" || !wellFormed(lex, dt) {
		return cmpValue{}
	}
	name, isXSD := strings.CutPrefix(string(dt), nsXSD)
	if !isXSD {
		return cmpValue{}
	}
	switch {
	case name == "string":
		return cmpValue{kind: kindString, s: lex}
	case name == "boolean":
		return cmpValue{kind: kindBoolean, b: lex == "true" || lex == "1"}
	case name == "double" || name == "float":
		f, err := strconv.ParseFloat(strings.Replace(strings.Replace(lex, "INF", "Inf", 1), "+Inf", "Inf", 1), 64)
		if err != nil && !math.IsInf(f, 0) {
			return cmpValue{}
		}
		return cmpValue{kind: kindNumeric, isFlt: true, f: f}
	case name == "decimal" || isIntegerType(name):
		r, ok := new(big.Rat).SetString(strings.TrimPrefix(lex, "+"))
		if !ok {
			return cmpValue{}
		}
		return cmpValue{kind: kindNumeric, r: r}
	case name == "dateTime" || name == "dateTimeStamp":
		t, tz, ok := parseDateTime(lex)
		if !ok {
			return cmpValue{}
		}
		return cmpValue{kind: kindDateTime, t: t, tz: tz}
	case name == "date":
		t, tz, ok := parseDateTime(lex)
		if !ok {
			return cmpValue{}
		}
		return cmpValue{kind: kindDate, t: t, tz: tz}
	}
	return cmpValue{}
}

// compare orders a and b: -1, 0 or 1, with ok=false when they are not
// comparable (different kinds, NaN, or date-times whose order depends on an
// unknown time zone, XML Schema 1.1 Part 2, D.2.1).
func compare(a, b quad.Value) (int, bool) {
	x, y := toCmp(a), toCmp(b)
	if x.kind == kindNone || x.kind != y.kind {
		return 0, false
	}
	switch x.kind {
	case kindNumeric:
		if x.isFlt || y.isFlt {
			fx, fy := x.f, y.f
			if !x.isFlt {
				fx, _ = x.r.Float64()
			}
			if !y.isFlt {
				fy, _ = y.r.Float64()
			}
			if math.IsNaN(fx) || math.IsNaN(fy) {
				return 0, false
			}
			switch {
			case fx < fy:
				return -1, true
			case fx > fy:
				return 1, true
			}
			return 0, true
		}
		return x.r.Cmp(y.r), true
	case kindString:
		return strings.Compare(x.s, y.s), true
	case kindBoolean:
		switch {
		case x.b == y.b:
			return 0, true
		case !x.b:
			return -1, true
		}
		return 1, true
	case kindDateTime, kindDate:
		if x.tz == y.tz {
			return x.t.Compare(y.t), true
		}
		// One side lacks a time zone: it may be anywhere in +-14:00.
		const span = 14 * time.Hour
		if !x.tz {
			c, ok := cmpLocal(y.t, x.t, span)
			return -c, ok
		}
		return cmpLocal(x.t, y.t, span)
	}
	return 0, false
}

// cmpLocal compares a zoned instant p with an unzoned one q (read as UTC).
func cmpLocal(p, q time.Time, span time.Duration) (int, bool) {
	switch {
	case p.Before(q.Add(-span)):
		return -1, true
	case p.After(q.Add(span)):
		return 1, true
	}
	return 0, false
}

func isIntegerType(name string) bool {
	_, ok := intRanges[name]
	return ok
}
