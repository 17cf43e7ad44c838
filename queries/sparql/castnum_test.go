package sparql

import (
	"reflect"
	"testing"

	"github.com/cayleygraph/quad"
)

// TestCastOfArithmetic checks that casting an arithmetic expression (which
// casts the number directly) gives what casting the bound result of the
// same expression gives (which writes the literal and parses it back).
func TestCastOfArithmetic(t *testing.T) {
	typed := func(v, ty string) quad.Value {
		return quad.TypedString{Value: quad.String(v), Type: quad.IRI(nsXSD + ty)}
	}
	var qs []quad.Quad
	for i, v := range []quad.Value{
		typed("7", "integer"), typed("-7", "integer"), typed("2.5", "decimal"), typed("1.0E300", "double"),
		typed("3.25", "double"), typed("-0.1", "float"), typed("NaN", "double"), typed("INF", "double"),
		typed("0", "integer"), typed("9223372036854775807", "integer"), typed("1e19", "double"),
	} {
		qs = append(qs, tr("s"+string(rune('a'+i)), "v", v))
	}
	st := openStore(t, map[string][]quad.Quad{ex + "g": qs})
	exprs := []string{"?x / 3", "?x * 1.5e0", "?x + 1", "?x - 0.5", "?x * 2", "?x / 0", "?x * 1e300", "-?x + 2"}
	types := []string{"integer", "double", "float", "decimal", "string", "boolean", "dateTime"}
	for _, e := range exprs {
		for _, ty := range types {
			direct := "PREFIX ex: <" + ex + "> PREFIX xsd: <" + nsXSD + ">\n" +
				"SELECT ?s ?c WHERE { ?s ex:v ?x BIND(xsd:" + ty + "(" + e + ") AS ?c) }"
			twoStep := "PREFIX ex: <" + ex + "> PREFIX xsd: <" + nsXSD + ">\n" +
				"SELECT ?s ?c WHERE { ?s ex:v ?x BIND(" + e + " AS ?t) BIND(xsd:" + ty + "(?t) AS ?c) }"
			got := selectStrings(t, st, direct, Options{})
			want := selectStrings(t, st, twoStep, Options{})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("xsd:%s(%s):\ndirect   %v\ntwo-step %v", ty, e, got, want)
			}
		}
	}
}
