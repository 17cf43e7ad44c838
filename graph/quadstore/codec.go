package quadstore

// The term codec turns a quad.Value into the bytes stored in the dictionary
// and back. No published codec keeps every Go type of cayleygraph/quad v1.1.0
// apart (Cayley's own proto form is tied to its kv layer and hashes), so
// this one is ours. An encoding is a tag byte and a payload:
//
//	'I' iri            quad.IRI
//	'B' label          quad.BNode
//	'S' lexical        quad.String
//	'L' uvarint(len(lang)) lang lexical              quad.LangString
//	'X' code lexical   quad.TypedString with a datatype of the XSD table below
//	'T' uvarint(len(type)) type lexical              any other quad.TypedString
//	'i' 8 bytes        quad.Int (big endian, sign bit flipped)
//	'f' 8 bytes        quad.Float (IEEE 754 bits)
//	'b' 0|1            quad.Bool
//	'm' time binary    quad.Time (time.Time.MarshalBinary)
//
// The encoding is canonical: DecodeTerm accepts only what EncodeTerm
// produces, so equal terms always have equal bytes and the dictionary key of
// a term is unique.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// xsdNS is the XML Schema datatype namespace.
const xsdNS = "http://www.w3.org/2001/XMLSchema#"

// xsdTypes is the table of datatypes with a one-byte code (the code is the
// index + 1). Stored data depends on it: append only, never reorder.
var xsdTypes = [...]string{
	"string", "boolean", "decimal", "integer", "double", "float", "date", "time",
	"dateTime", "dateTimeStamp", "duration", "dayTimeDuration", "yearMonthDuration",
	"gYear", "gYearMonth", "gMonth", "gMonthDay", "gDay", "hexBinary", "base64Binary",
	"anyURI", "long", "int", "short", "byte", "nonNegativeInteger", "positiveInteger",
	"nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt",
	"unsignedShort", "unsignedByte", "normalizedString", "token", "language", "Name",
	"NCName", "NMTOKEN",
}

// numeric kinds of XSD datatypes.
const (
	numNone = iota
	numDouble
	numFloat
	numDecimal
	numInteger
)

func xsdCode(t quad.IRI) (byte, bool) {
	s := string(t)
	if !strings.HasPrefix(s, xsdNS) {
		return 0, false
	}
	local := s[len(xsdNS):]
	for i, name := range xsdTypes {
		if name == local {
			return byte(i + 1), true
		}
	}
	return 0, false
}

func numKind(code byte) int {
	if code == 0 || int(code) > len(xsdTypes) {
		return numNone
	}
	switch xsdTypes[code-1] {
	case "double":
		return numDouble
	case "float":
		return numFloat
	case "decimal":
		return numDecimal
	case "integer", "long", "int", "short", "byte", "nonNegativeInteger", "positiveInteger",
		"nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort",
		"unsignedByte":
		return numInteger
	}
	return numNone
}

// AppendTerm appends the encoding of v to dst. It fails with
// ErrInvalidTerm for nil and for value types it does not know.
func AppendTerm(dst []byte, v quad.Value) ([]byte, error) {
	switch v := v.(type) {
	case quad.IRI:
		return append(append(dst, 'I'), v...), nil
	case quad.BNode:
		return append(append(dst, 'B'), v...), nil
	case quad.String:
		return append(append(dst, 'S'), v...), nil
	case quad.LangString:
		dst = append(dst, 'L')
		dst = binary.AppendUvarint(dst, uint64(len(v.Lang)))
		return append(append(dst, v.Lang...), v.Value...), nil
	case quad.TypedString:
		if code, ok := xsdCode(v.Type); ok {
			return append(append(dst, 'X', code), v.Value...), nil
		}
		dst = append(dst, 'T')
		dst = binary.AppendUvarint(dst, uint64(len(v.Type)))
		return append(append(dst, v.Type...), v.Value...), nil
	case quad.Int:
		return binary.BigEndian.AppendUint64(append(dst, 'i'), uint64(v)^(1<<63)), nil
	case quad.Float:
		return binary.BigEndian.AppendUint64(append(dst, 'f'), math.Float64bits(float64(v))), nil
	case quad.Bool:
		if v {
			return append(dst, 'b', 1), nil
		}
		return append(dst, 'b', 0), nil
	case quad.Time:
		b, err := time.Time(v).MarshalBinary()
		if err != nil {
			return dst, fmt.Errorf("encode term: %w: %v", ErrInvalidTerm, err)
		}
		return append(append(dst, 'm'), b...), nil
	case nil:
		return dst, fmt.Errorf("encode term: %w: nil value", ErrInvalidTerm)
	default:
		return dst, fmt.Errorf("encode term: %w: unsupported type %T", ErrInvalidTerm, v)
	}
}

// EncodeTerm returns the encoding of v (see AppendTerm).
func EncodeTerm(v quad.Value) ([]byte, error) { return AppendTerm(nil, v) }

// nodeTerm decodes the term of a node record (decodeNode, DecodeTerm).
func nodeTerm(b []byte) (quad.Value, error) {
	_, enc, err := decodeNode(b)
	if err != nil {
		return nil, err
	}
	return DecodeTerm(enc)
}

// DecodeTerm decodes an encoding made by EncodeTerm. Anything else,
// including a non-canonical encoding of a valid term, fails with ErrCorrupt.
func DecodeTerm(b []byte) (quad.Value, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("decode term: %w: empty", ErrCorrupt)
	}
	p := b[1:]
	switch b[0] {
	case 'I':
		return quad.IRI(p), nil
	case 'B':
		return quad.BNode(p), nil
	case 'S':
		return quad.String(p), nil
	case 'L':
		lang, rest, err := lenPrefixed(p)
		if err != nil {
			return nil, fmt.Errorf("decode term: %w", err)
		}
		return quad.LangString{Value: quad.String(rest), Lang: string(lang)}, nil
	case 'X':
		if len(p) == 0 || p[0] == 0 || int(p[0]) > len(xsdTypes) {
			return nil, fmt.Errorf("decode term: %w: bad datatype code", ErrCorrupt)
		}
		return quad.TypedString{Value: quad.String(p[1:]), Type: quad.IRI(xsdNS + xsdTypes[p[0]-1])}, nil
	case 'T':
		typ, rest, err := lenPrefixed(p)
		if err != nil {
			return nil, fmt.Errorf("decode term: %w", err)
		}
		if _, ok := xsdCode(quad.IRI(typ)); ok {
			return nil, fmt.Errorf("decode term: %w: XSD datatype not in short form", ErrCorrupt)
		}
		return quad.TypedString{Value: quad.String(rest), Type: quad.IRI(typ)}, nil
	case 'i':
		if len(p) != 8 {
			return nil, fmt.Errorf("decode term: %w: integer of %d bytes", ErrCorrupt, len(p))
		}
		return quad.Int(int64(binary.BigEndian.Uint64(p) ^ (1 << 63))), nil
	case 'f':
		if len(p) != 8 {
			return nil, fmt.Errorf("decode term: %w: float of %d bytes", ErrCorrupt, len(p))
		}
		return quad.Float(math.Float64frombits(binary.BigEndian.Uint64(p))), nil
	case 'b':
		if len(p) != 1 || p[0] > 1 {
			return nil, fmt.Errorf("decode term: %w: bad boolean", ErrCorrupt)
		}
		return quad.Bool(p[0] == 1), nil
	case 'm':
		var t time.Time
		if err := t.UnmarshalBinary(p); err != nil {
			return nil, fmt.Errorf("decode term: %w: %v", ErrCorrupt, err)
		}
		// Only the canonical form (what MarshalBinary writes) is accepted.
		if again, err := t.MarshalBinary(); err != nil || !bytes.Equal(again, p) {
			return nil, fmt.Errorf("decode term: %w: non-canonical time", ErrCorrupt)
		}
		return quad.Time(t), nil
	}
	return nil, fmt.Errorf("decode term: %w: unknown tag %#x", ErrCorrupt, b[0])
}

func lenPrefixed(p []byte) (head, rest []byte, err error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, fmt.Errorf("%w: bad length prefix", ErrCorrupt)
	}
	// Canonical: the shortest uvarint.
	if k != len(binary.AppendUvarint(nil, n)) {
		return nil, nil, fmt.Errorf("%w: non-canonical length prefix", ErrCorrupt)
	}
	return p[k : k+int(n)], p[k+int(n):], nil
}

// Lexical forms (XML Schema 1.1 part 2, after whitespace collapsing).
var (
	reDouble  = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	reDecimal = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	reInteger = regexp.MustCompile(`^[+-]?[0-9]+$`)
)

// numeric is the value of a numeric literal: f orders it (monotone in the
// exact value), exact is set for decimal and integer literals whose exact
// value may differ from f.
type numeric struct {
	f     float64
	exact *big.Rat
}

// numericOf reports the numeric value of v: typed literals of XSD numeric
// datatypes with a valid lexical form (NaN excluded) and quad.Int and
// quad.Float.
func numericOf(v quad.Value) (numeric, bool) {
	switch v := v.(type) {
	case quad.Int:
		if n := int64(v); n > 1<<53 || n < -(1<<53) {
			return numeric{f: float64(n), exact: new(big.Rat).SetInt64(n)}, true
		}
		return numeric{f: float64(v)}, true
	case quad.Float:
		if math.IsNaN(float64(v)) {
			return numeric{}, false
		}
		return numeric{f: float64(v)}, true
	case quad.TypedString:
		code, ok := xsdCode(v.Type)
		if !ok {
			return numeric{}, false
		}
		return parseNumeric(numKind(code), strings.TrimSpace(string(v.Value)))
	}
	return numeric{}, false
}

func parseNumeric(kind int, s string) (numeric, bool) {
	switch kind {
	case numDouble, numFloat:
		var f float64
		switch s {
		case "INF", "+INF":
			f = math.Inf(1)
		case "-INF":
			f = math.Inf(-1)
		default:
			if !reDouble.MatchString(s) {
				return numeric{}, false
			}
			bits := 64
			if kind == numFloat {
				bits = 32
			}
			var err error
			f, err = strconv.ParseFloat(s, bits)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return numeric{}, false
			}
		}
		return numeric{f: f}, true
	case numDecimal, numInteger:
		re := reDecimal
		if kind == numInteger {
			re = reInteger
		}
		if !re.MatchString(s) {
			return numeric{}, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return numeric{}, false
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return numeric{}, false
		}
		return numeric{f: f, exact: r}, true
	}
	return numeric{}, false
}

// cmpBound compares the numeric value n with the bound b exactly.
func (n numeric) cmpBound(b float64) int {
	if n.exact != nil {
		switch {
		case math.IsInf(b, 1):
			return -1
		case math.IsInf(b, -1):
			return 1
		}
		return n.exact.Cmp(new(big.Rat).SetFloat64(b))
	}
	switch {
	case n.f < b:
		return -1
	case n.f > b:
		return 1
	}
	return 0
}

// orderedFloat maps f to 8 bytes whose byte order is the numeric order
// (-0 and +0 map to the same bytes).
func orderedFloat(dst []byte, f float64) []byte {
	if f == 0 {
		f = 0
	}
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(dst, u)
}

var nan = math.NaN()

func isNaN(n numeric) bool { return math.IsNaN(n.f) }

// OrderedFloat appends the 8-byte order-preserving encoding of f the
// numeric range index uses (byte order is numeric order; -0 and +0 are
// equal), for keys of other ordered indexes.
func OrderedFloat(dst []byte, f float64) []byte { return orderedFloat(dst, f) }
