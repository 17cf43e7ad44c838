package quadstore

import (
	"context"
	"math"
	"testing"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// TestValues: the value column folds the XSD literals it can hold
// exactly, leaves every other term ValueNone, and grows with commits
// (the ids of a second commit are covered after the next extension).
func TestValues(t *testing.T) {
	s := openTest(t)
	defer s.Close()
	ctx := context.Background()
	xsd := func(v, typ string) quad.Value {
		return quad.TypedString{Value: quad.String(v), Type: quad.IRI(xsdNS + typ)}
	}
	cases := []struct {
		o    quad.Value
		want TermValue
	}{
		{xsd("42", "integer"), TermValue{ValueInteger, 42}},
		{xsd("-7", "int"), TermValue{ValueInteger, uint64(0xfffffffffffffff9)}},
		{xsd("+0012", "integer"), TermValue{ValueInteger, 12}},
		{xsd("9223372036854775808", "integer"), TermValue{}}, // > int64
		{xsd("1.5", "integer"), TermValue{}},
		{xsd("12.50", "decimal"), TermValue{ValueDecimal + 2, 1250}},
		{xsd("-.5", "decimal"), TermValue{ValueDecimal + 1, uint64(0xfffffffffffffffb)}},
		{xsd("3.", "decimal"), TermValue{ValueDecimal, 3}},
		{xsd("0.1234567890123456789", "decimal"), TermValue{}}, // 19 fraction digits
		{xsd("1e3", "decimal"), TermValue{}},
		{xsd("1.5E2", "double"), TermValue{ValueDouble, math.Float64bits(150)}},
		{xsd("-INF", "double"), TermValue{ValueDouble, math.Float64bits(math.Inf(-1))}},
		{xsd("0.1", "float"), TermValue{ValueFloat, math.Float64bits(float64(float32(0.1)))}},
		{xsd("inf", "double"), TermValue{}},
		{xsd("1", "boolean"), TermValue{ValueBoolean, 1}},
		{xsd("false", "boolean"), TermValue{ValueBoolean, 0}},
		{xsd("2020-01-02T03:04:05Z", "dateTime"), TermValue{ValueDateTimeUTC, 1577934245 * 1e9}},
		{xsd("2020-01-02T03:04:05-00:00", "dateTime"), TermValue{ValueDateTimeUTC, 1577934245 * 1e9}},
		{xsd("2020-01-02T05:04:05+02:00", "dateTime"), TermValue{ValueDateTime, 1577934245 * 1e9}},
		{xsd("2020-01-02T03:04:05", "dateTime"), TermValue{}}, // no timezone
		{xsd("maybe", "boolean"), TermValue{}},
		{xsd("5", "string"), TermValue{Kind: ValueOther}},
		{xsd("P1D", "duration"), TermValue{Kind: ValueOther}},
		{quad.TypedString{Value: "5", Type: "http://example.org/t"}, TermValue{Kind: ValueOther}},
		{quad.String("5"), TermValue{Kind: ValueOther}},
		{quad.LangString{Value: "5", Lang: "en"}, TermValue{Kind: ValueOther}},
		{quad.IRI("http://example.org/5"), TermValue{Kind: ValueOther}},
		{quad.Int(5), TermValue{Kind: ValueOther}}, // a Go-native term: not an XSD literal here
	}
	add := func(from, to int) {
		var ds []cgraph.Delta
		for _, c := range cases[from:to] {
			ds = append(ds, cgraph.Delta{Quad: quad.Quad{Subject: iri("s"), Predicate: iri("p"), Object: c.o, Label: iri("g")}, Action: cgraph.Add})
		}
		if err := s.ApplyDeltas(ds, cgraph.IgnoreOpts{IgnoreDup: true}); err != nil {
			t.Fatal(err)
		}
		if err := s.BuildValues(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check := func(upto int) {
		v, err := s.NewView()
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		vals := v.Values()
		for _, c := range cases[:upto] {
			id, err := v.ID(c.o)
			if err != nil || id == 0 {
				t.Fatalf("%v: id %d, %v", c.o, id, err)
			}
			if got := vals.Get(id); got != c.want {
				t.Errorf("%#v: folded %+v, want %+v", c.o, got, c.want)
			}
			back, err := v.Term(id)
			if err != nil || back != c.o {
				t.Errorf("Term(%d) = %#v, %v; want %#v", id, back, err, c.o)
			}
		}
		if vals.Bytes() < 9*int64(vals.Len()) {
			t.Errorf("Bytes %d for %d ids", vals.Bytes(), vals.Len())
		}
	}
	add(0, 10)
	check(10)
	add(10, len(cases))
	check(len(cases))
}
