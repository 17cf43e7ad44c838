package rdfio

import (
	"math"
	"strconv"
	"strings"
)

// The lexical forms of XSD's numeric types, as the SPARQL engine reads
// them (queries/sparql) and as the native store folds them into its
// value column (graph/quadstore): one definition, so that a folded value
// is the value the engine parses from the term. Checked by hand before
// strconv parses: its syntax is wider than XSD's (hex mantissas, "Inf",
// "infinity").

// ValidInteger reports whether s is an xsd:integer lexical form:
// [+-]? digits.
func ValidInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ValidDecimal reports whether s is an xsd:decimal lexical form: [+-]?
// digits with at most one '.', at least one digit.
func ValidDecimal(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] >= '0' && s[i] <= '9':
			digits++
		case s[i] == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// FixDecimal makes decimal forms like ".5" and "5." acceptable to
// big.Rat and strconv (a leading '+' dropped).
func FixDecimal(s string) string {
	s = strings.TrimPrefix(s, "+")
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if strings.HasPrefix(s, ".") {
		s = "0" + s
	}
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ParseDouble parses an xsd:double or xsd:float lexical form: INF, +INF,
// -INF, NaN, or a decimal mantissa with an optional integer exponent;
// out-of-range values round to infinity (or zero), as XSD does.
func ParseDouble(s string) (float64, bool) {
	switch s {
	case "INF", "+INF":
		return math.Inf(1), true
	case "-INF":
		return math.Inf(-1), true
	case "NaN":
		return math.NaN(), true
	}
	m := s
	if i := strings.IndexAny(m, "eE"); i >= 0 {
		if !ValidInteger(m[i+1:]) {
			return 0, false
		}
		m = m[:i]
	}
	if !ValidDecimal(m) {
		return 0, false
	}
	f, err := strconv.ParseFloat(FixDecimal(s), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}
