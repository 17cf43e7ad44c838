package sparql

import (
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// TestFastGroupKey: two terms with the same termKey (one group) get the
// same fast key, or neither gets one; terms with different termKeys never
// share a fast key. A term that went to the fast map while its equal went
// to the slow one would make two groups.
func TestFastGroupKey(t *testing.T) {
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	vals := []quad.Value{
		quad.IRI("http://example.org/a"), quad.BNode("b"), quad.String("x"),
		quad.TypedString{Value: "x", Type: xsdString},
		quad.LangString{Value: "x", Lang: "EN"}, quad.LangString{Value: "x", Lang: "en"},
		quad.Int(7), quad.TypedString{Value: "7", Type: quad.IRI(nsXSD + "integer")},
		quad.Float(1.5), quad.Float(1.5).TypedString(),
		quad.Time(when), quad.Time(when).TypedString(),
		quad.Bool(true), quad.TypedString{Value: "true", Type: xsdBoolean},
	}
	for _, a := range vals {
		for _, b := range vals {
			ka, oka := fastGroupKey(a)
			kb, okb := fastGroupKey(b)
			same := termKey(a) == termKey(b)
			switch {
			case same && oka != okb:
				t.Errorf("%#v and %#v: one group, but only one has a fast key", a, b)
			case same && oka && ka != kb:
				t.Errorf("%#v and %#v: one group, fast keys %#v and %#v", a, b, ka, kb)
			case !same && oka && okb && ka == kb:
				t.Errorf("%#v and %#v: two groups, one fast key %#v", a, b, ka)
			}
		}
	}
}
