package quadstore

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/ontology"
)

func xsd(lex, typ string) quad.Value {
	return quad.TypedString{Value: quad.String(lex), Type: quad.IRI(ontology.XSD + typ)}
}

// roundTripValues are the literals of graph/graphtest's LiteralRoundTrip
// plus every term kind and Cayley's native literal types.
func roundTripValues() []quad.Value {
	return []quad.Value{
		quad.IRI("http://example.org/a"), quad.IRI(""), quad.BNode("b0"),
		quad.String(""), quad.String("CC(=O)Oc1ccccc1C(=O)O"),
		quad.String("line 1\nline 2\ttab \"quoted\" back\\slash"),
		quad.String("Ünïcödé ✓ 𝔘 日本語"), quad.String("True"), quad.String("42"),
		quad.String("\x00\xff not utf-8"),
		quad.LangString{Value: "aspirin", Lang: "en"},
		quad.LangString{Value: "Acetylsalicylsäure", Lang: "de-CH"},
		quad.LangString{Value: "", Lang: ""},
		ontology.Integer(0), ontology.Integer(math.MinInt64),
		xsd("123456789012345678901234567890", "integer"), xsd("007", "integer"),
		ontology.Double(180.159), ontology.Double(-154.0793371), ontology.Double(1e-5),
		ontology.Double(6.02214076e23), ontology.Double(3),
		xsd("1.0E0", "double"), xsd("NaN", "double"), xsd("INF", "double"), xsd("-0.0", "double"),
		xsd("1.50", "decimal"), ontology.Boolean(true), ontology.Boolean(false), xsd("1", "boolean"),
		ontology.DateTime(time.Date(2026, 11, 21, 23, 2, 49, 123456789, time.UTC)),
		xsd("2026-11-21T23:02:49+01:00", "dateTime"), xsd("2026-11-21", "date"),
		xsd("x", "string"),
		quad.TypedString{Value: "<x/>", Type: quad.IRI(ontology.RDF + "XMLLiteral")},
		quad.TypedString{Value: "2", Type: quad.IRI("http://example.org/custom#type")},
		quad.TypedString{Value: "2", Type: quad.IRI(ontology.XSD + "notAType")},
		quad.TypedString{Value: "untyped", Type: ""},
		quad.Int(-123456789), quad.Int(math.MaxInt64), quad.Float(-12345e-6), quad.Float(math.Inf(-1)),
		quad.Bool(true), quad.Bool(false),
		quad.Time(time.Date(2001, 2, 3, 4, 5, 6, 7, time.FixedZone("X", 3600))),
	}
}

func sameValue(a, b quad.Value) bool {
	if eq, ok := a.(quad.Equaler); ok {
		return eq.Equal(b)
	}
	return a == b
}

func TestTermRoundTrip(t *testing.T) {
	seen := make(map[string]quad.Value)
	for _, v := range roundTripValues() {
		enc, err := EncodeTerm(v)
		if err != nil {
			t.Fatalf("encode %#v: %v", v, err)
		}
		got, err := DecodeTerm(enc)
		if err != nil {
			t.Fatalf("decode %#v: %v", v, err)
		}
		if !sameValue(v, got) {
			t.Errorf("round trip %#v: got %#v", v, got)
		}
		if prev, dup := seen[string(enc)]; dup {
			t.Errorf("%#v and %#v have the same encoding", prev, v)
		}
		seen[string(enc)] = v
	}
}

func TestEncodeTermRejects(t *testing.T) {
	for _, v := range []quad.Value{nil, otherValue{}} {
		if _, err := EncodeTerm(v); !errors.Is(err, ErrInvalidTerm) {
			t.Errorf("encode %#v: err = %v, want ErrInvalidTerm", v, err)
		}
	}
}

func TestDecodeTermRejects(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"unknown tag", []byte("Zabc")},
		{"lang length past end", []byte{'L', 9, 'e'}},
		{"lang length non-canonical", []byte{'L', 0x82, 0x00, 'e', 'n'}},
		{"bad xsd code", []byte{'X', 0}},
		{"xsd code past table", []byte{'X', 200}},
		{"xsd datatype in long form", append([]byte{'T', byte(len(xsdNS + "double"))}, xsdNS+"double1"...)},
		{"short int", []byte{'i', 1, 2}},
		{"long float", []byte{'f', 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"bad bool", []byte{'b', 2}},
		{"bad time", []byte{'m', 9, 9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if v, err := DecodeTerm(c.in); !errors.Is(err, ErrCorrupt) {
				t.Errorf("DecodeTerm(%q) = %#v, %v; want ErrCorrupt", c.in, v, err)
			}
		})
	}
}

// FuzzDecodeTerm: any bytes either fail with ErrCorrupt or decode to a
// term whose encoding is exactly those bytes (the encoding is canonical).
func FuzzDecodeTerm(f *testing.F) {
	for _, v := range roundTripValues() {
		enc, _ := EncodeTerm(v)
		f.Add(enc)
	}
	f.Add([]byte{'L', 0x82, 0x00})
	f.Add([]byte{'m', 1, 0, 0, 0, 14})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeTerm(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		again, err := EncodeTerm(v)
		if err != nil {
			t.Fatalf("re-encode %#v: %v", v, err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("%q decodes to %#v which encodes to %q", b, v, again)
		}
	})
}

// FuzzTermRoundTrip builds terms of every kind from fuzzed strings and
// checks that they decode to the same value.
func FuzzTermRoundTrip(f *testing.F) {
	f.Add("aspirin", "en", int64(3), 1.5)
	f.Add("", "", int64(-1), math.Inf(1))
	f.Add("1.0E0", ontology.XSD+"double", int64(math.MinInt64), -0.0)
	f.Fuzz(func(t *testing.T, s, aux string, i int64, x float64) {
		vals := []quad.Value{
			quad.IRI(s), quad.BNode(s), quad.String(s), quad.LangString{Value: quad.String(s), Lang: aux},
			quad.TypedString{Value: quad.String(s), Type: quad.IRI(aux)},
			quad.TypedString{Value: quad.String(s), Type: quad.IRI(ontology.XSD + aux)},
			quad.Int(i), quad.Bool(i%2 == 0), quad.Time(time.Unix(i%(1<<40), i%1e9).UTC()),
		}
		if !math.IsNaN(x) {
			vals = append(vals, quad.Float(x))
		}
		for _, v := range vals {
			enc, err := EncodeTerm(v)
			if err != nil {
				t.Fatalf("encode %#v: %v", v, err)
			}
			got, err := DecodeTerm(enc)
			if err != nil || !sameValue(v, got) {
				t.Fatalf("round trip %#v: %#v, %v", v, got, err)
			}
		}
	})
}

// TestNumericOf checks the numeric values of literals against their XSD
// meaning (XML Schema 1.1 part 2 lexical spaces).
func TestNumericOf(t *testing.T) {
	cases := []struct {
		v  quad.Value
		ok bool
		f  float64
	}{
		{xsd("180.159", "double"), true, 180.159},
		{xsd(" 42 ", "integer"), true, 42},
		{xsd("-0.0", "double"), true, 0},
		{xsd("INF", "double"), true, math.Inf(1)},
		{xsd("-INF", "float"), true, math.Inf(-1)},
		{xsd("NaN", "double"), false, 0},
		{xsd("1.1", "float"), true, float64(float32(1.1))},
		{xsd(".5", "decimal"), true, 0.5},
		{xsd("5.", "decimal"), true, 5},
		{xsd("1e3", "decimal"), false, 0},
		{xsd("1.5", "integer"), false, 0},
		{xsd("0x10", "integer"), false, 0},
		{xsd("Infinity", "double"), false, 0},
		{xsd("1_000", "integer"), false, 0},
		{xsd("12", "string"), false, 0},
		{xsd("255", "unsignedByte"), true, 255},
		{quad.Int(-7), true, -7},
		{quad.Float(2.5), true, 2.5},
		{quad.String("3"), false, 0},
	}
	for _, c := range cases {
		n, ok := numericOf(c.v)
		if ok != c.ok || (ok && n.f != c.f) {
			t.Errorf("numericOf(%v) = %v, %v; want %v, %v", c.v, n.f, ok, c.f, c.ok)
		}
	}
}

func TestOrderedFloat(t *testing.T) {
	vals := []float64{math.Inf(-1), -math.MaxFloat64, -1e10, -1, -math.SmallestNonzeroFloat64, 0, math.SmallestNonzeroFloat64, 1, 1e10, math.MaxFloat64, math.Inf(1)}
	for i := 1; i < len(vals); i++ {
		a, b := orderedFloat(nil, vals[i-1]), orderedFloat(nil, vals[i])
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("orderedFloat(%g) >= orderedFloat(%g)", vals[i-1], vals[i])
		}
	}
	if !bytes.Equal(orderedFloat(nil, math.Copysign(0, -1)), orderedFloat(nil, 0)) {
		t.Error("-0 and +0 differ")
	}
}

// otherValue is a quad.Value type the codec does not know.
type otherValue struct{}

func (otherValue) String() string      { return "other" }
func (otherValue) Native() interface{} { return nil }

func strconvParse(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
