package ontology

import (
	"math"
	"strconv"
	"time"

	"github.com/cayleygraph/quad"
)

// String returns a plain xsd:string literal.
func String(s string) quad.Value { return quad.String(s) }

// LangString returns a language-tagged literal.
func LangString(s, lang string) quad.Value {
	return quad.LangString{Value: quad.String(s), Lang: lang}
}

// Double returns an xsd:double literal in the shortest form that parses back
// to exactly f ("180.159", "1.0E-5"; "INF", "-INF", "NaN" as XSD spells them).
func Double(f float64) quad.Value {
	var s string
	switch {
	case math.IsInf(f, 1):
		s = "INF"
	case math.IsInf(f, -1):
		s = "-INF"
	case math.IsNaN(f):
		s = "NaN"
	default:
		s = strconv.FormatFloat(f, 'g', -1, 64)
		// XSD and Turtle want an exponent marker "E" and accept "e"; keep Go's
		// shortest round-trip digits, but make sure integral values keep a
		// decimal point or exponent so the lexical form reads as a double.
		if !containsAny(s, ".eEN") {
			s += ".0"
		}
	}
	return quad.TypedString{Value: quad.String(s), Type: XSDDouble}
}

// Integer returns an xsd:integer literal.
func Integer(i int64) quad.Value {
	return quad.TypedString{Value: quad.String(strconv.FormatInt(i, 10)), Type: XSDInteger}
}

// Boolean returns an xsd:boolean literal ("true" or "false").
func Boolean(b bool) quad.Value {
	return quad.TypedString{Value: quad.String(strconv.FormatBool(b)), Type: XSDBoolean}
}

// DateTime returns an xsd:dateTime literal in RFC 3339 UTC with the
// sub-second digits that t carries.
func DateTime(t time.Time) quad.Value {
	return quad.TypedString{Value: quad.String(t.UTC().Format(time.RFC3339Nano)), Type: XSDDateTime}
}

func containsAny(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		for j := 0; j < len(chars); j++ {
			if s[i] == chars[j] {
				return true
			}
		}
	}
	return false
}
