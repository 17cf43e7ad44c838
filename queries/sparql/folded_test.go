package sparql

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// TestValueVars: the variables bound to ids (value-read) are those of one
// BGP read only by expressions, plain GROUP BY keys, templates and the
// outermost projection without DISTINCT.
func TestValueVars(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"SELECT (COUNT(?m) AS ?n) { ?m <http://e/mw> ?mw ; <http://e/logp> ?lp FILTER(?mw <= 500 && ?lp < 5) }", []string{"mw", "lp"}},
		{"SELECT ?m ?q { ?m <http://e/qed> ?q } ORDER BY DESC(?q) ?m LIMIT 3", []string{"m", "q"}},
		{"SELECT DISTINCT ?q { ?m <http://e/qed> ?q }", nil},
		{"SELECT ?t (AVG(?v) AS ?a) { ?d <http://e/t> ?t ; <http://e/v> ?v } GROUP BY ?t", []string{"t", "v"}},
		{"SELECT ?b (COUNT(?m) AS ?n) { ?m <http://e/mw> ?mw BIND(FLOOR(?mw / 50) AS ?b) } GROUP BY ?b", []string{"mw"}},
		{"SELECT ?q { ?m <http://e/qed> ?q . ?x <http://e/p> ?q }", []string{"q"}},
		{"SELECT ?q { ?m <http://e/qed> ?q { ?x <http://e/p> ?q } }", nil},           // two BGPs
		{"SELECT ?q { ?m ?p ?q FILTER(?q > 1) }", []string{"q"}},                     // an open predicate: read from the columns predicate by predicate
		{"SELECT ?q { ?q ?q ?m FILTER(?q > 1) }", nil},                               // the predicate is the subject: not
		{"SELECT ?q { ?m <http://e/qed> ?q } VALUES ?q { 1 }", nil},                  // VALUES
		{"SELECT ?s { { SELECT ?q { ?m <http://e/qed> ?q } } BIND(?q AS ?s) }", nil}, // a sub-select's projection
		{"CONSTRUCT { ?m <http://e/q> ?q } WHERE { ?m <http://e/qed> ?q FILTER(?q > 1) }", []string{"m", "q"}},
		{"DESCRIBE ?m WHERE { ?m <http://e/qed> ?q FILTER(?q > 1) }", nil},
		{"SELECT ?m { ?m <http://e/p>* ?q FILTER(?q > 1) }", nil},
	} {
		q, err := Parse(tc.query, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for v, b := range valueVars(q) {
			if b != nil {
				got = append(got, q.vars[v])
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: value-read %q, want %q", tc.query, got, tc.want)
		}
	}
}

// xsdLit is a literal of an XSD datatype.
func xsdLit(v, typ string) quad.Value {
	return quad.TypedString{Value: quad.String(v), Type: quad.IRI(nsXSD + typ)}
}

// trickyValues are literals whose folding could go wrong: many digits,
// integers beyond 2^53 and int64, equal values of different types and
// lexical forms, NaN and infinities, ill-typed and non-numeric literals.
func trickyValues() []quad.Value {
	return []quad.Value{
		xsdLit("1", "integer"), xsdLit("01", "integer"), xsdLit("+1", "int"), xsdLit("1", "short"),
		xsdLit("1.0", "decimal"), xsdLit("1.", "decimal"), xsdLit("1.0E0", "double"), xsdLit("1", "double"),
		xsdLit("1", "float"), xsdLit("0.1", "float"), xsdLit("0.1", "double"), xsdLit("0.1", "decimal"),
		xsdLit("9007199254740993", "integer"), xsdLit("9007199254740992", "integer"), xsdLit("9007199254740993", "decimal"),
		xsdLit("9223372036854775807", "integer"), xsdLit("9223372036854775808", "integer"), xsdLit("-9223372036854775808", "long"),
		xsdLit("0.333333333333333333", "decimal"), xsdLit("0.3333333333333333333333", "decimal"),
		xsdLit("123456789012345678.5", "decimal"), xsdLit("-0.000000000000000001", "decimal"), xsdLit("-.5", "decimal"),
		xsdLit("NaN", "double"), xsdLit("INF", "double"), xsdLit("-INF", "float"), xsdLit("+INF", "double"),
		xsdLit("1e400", "double"), xsdLit("1e-400", "double"), xsdLit("5.E1", "double"), xsdLit(".5e1", "double"),
		xsdLit("abc", "integer"), xsdLit("1.5", "integer"), xsdLit("", "decimal"), xsdLit("inf", "double"),
		xsdLit("12", "string"), quad.String("12"), quad.String("abc"), quad.LangString{Value: "5", Lang: "en"},
		quad.TypedString{Value: "7", Type: "http://example.org/unit"},
		xsdLit("true", "boolean"), xsdLit("0", "boolean"),
		xsdLit("2020-01-02T03:04:05Z", "dateTime"), xsdLit("2020-01-02T03:04:05", "dateTime"),
		quad.IRI("http://example.org/v"), quad.BNode("b1"),
	}
}

// TestFoldedNumbersAreToNum: every number the value column gives a term
// is exactly what toNum parses from the term.
func TestFoldedNumbersAreToNum(t *testing.T) {
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	vals := trickyValues()
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 300; i++ {
		vals = append(vals,
			xsdLit(fmt.Sprint(rng.Int63()-rng.Int63()), "integer"),
			xsdLit(fmt.Sprintf("%d.%0*d", rng.Intn(1e6)-5e5, rng.Intn(19), rng.Int63n(1e12)), "decimal"),
			xsdLit(fmt.Sprint(rng.NormFloat64()*math.Pow(10, float64(rng.Intn(40)-20))), "double"),
			xsdLit(fmt.Sprint(float32(rng.NormFloat64())), "float"))
	}
	var qs []quad.Quad
	for i, v := range vals {
		qs = append(qs, tr(fmt.Sprintf("s%d", i), "v", v))
	}
	if err := st.PutGraph(ctx, "http://g/1", qs); err != nil {
		t.Fatal(err)
	}
	if err := st.BuildValues(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := st.ReadView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ex := &exec{vals: v.TermValues(), idm: v}
	folded := 0
	for _, val := range vals {
		id, err := v.TermID(val)
		if err != nil || id == 0 {
			t.Fatalf("%v: %d %v", val, id, err)
		}
		n, ok := ex.idNum(id)
		want, wantOK := toNum(val)
		if ex.notNumber(&eVar{slot: 0}, row{idTerm{id}}) && wantOK {
			t.Errorf("%v: the column says no number, toNum parses %+v", val, want)
		}
		if !ok {
			continue
		}
		folded++
		if !wantOK {
			t.Errorf("%v folds to %+v, toNum rejects it", val, n)
			continue
		}
		if n.k != want.k {
			t.Errorf("%v: kind %d, toNum %d", val, n.k, want.k)
		}
		switch n.k {
		case kInt:
			if n.i != want.i {
				t.Errorf("%v: %d, toNum %d", val, n.i, want.i)
			}
		case kDec:
			if n.r.Cmp(want.r) != 0 {
				t.Errorf("%v: %v, toNum %v", val, n.r, want.r)
			}
		default:
			if math.Float64bits(n.f) != math.Float64bits(want.f) && !(math.IsNaN(n.f) && math.IsNaN(want.f)) {
				t.Errorf("%v: %v, toNum %v", val, n.f, want.f)
			}
		}
	}
	if folded < 1000 {
		t.Fatalf("only %d of %d values folded", folded, len(vals))
	}
}

// foldStore is a small store with the shapes of the bench-sparql queries
// (molecules with descriptors, descriptor nodes, calculations) and the
// tricky values mixed into the descriptors.
func foldStore(t *testing.T) *graph.Store {
	t.Helper()
	return foldStoreN(t, 400)
}

// foldStoreN is foldStore with n molecules.
func foldStoreN(t *testing.T, n int) *graph.Store {
	t.Helper()
	st, err := graph.Open(t.TempDir(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rng := rand.New(rand.NewSource(11))
	tricky := trickyValues()
	var qs []quad.Quad
	for i := 0; i < n; i++ {
		m := fmt.Sprintf("m%d", i)
		qs = append(qs, tr(m, "type", iri("Molecule")),
			tr(m, "mw", xsdLit(fmt.Sprintf("%.3f", 150+rng.Float64()*500), "double")),
			tr(m, "logp", xsdLit(fmt.Sprintf("%.2f", rng.Float64()*8-2), "decimal")),
			tr(m, "hbd", xsdLit(fmt.Sprint(rng.Intn(7)), "integer")),
			tr(m, "hba", xsdLit(fmt.Sprint(rng.Intn(13)), "integer")),
			tr(m, "heavy", xsdLit(fmt.Sprint(15+rng.Intn(20)), "integer")),
			tr(m, "qed", xsdLit(fmt.Sprintf("%.4f", rng.Float64()), "double")),
			tr(m, "tpsa", xsdLit(fmt.Sprintf("%.1f", rng.Float64()*160), "decimal")),
			tr(m, "rot", xsdLit(fmt.Sprint(rng.Intn(14)), "integer")),
			tr(m, "smiles", quad.String(fmt.Sprintf("C%dN", i))))
		for j, typ := range []string{"MW", "LogP", "Odd"} {
			d := fmt.Sprintf("%s_d%d", m, j)
			var v quad.Value = xsdLit(fmt.Sprintf("%.2f", rng.Float64()*100), "double")
			if typ == "Odd" {
				v = tricky[i%len(tricky)]
			}
			qs = append(qs, tr(m, "attr", iri(d)), tr(d, "type", iri(typ)), tr(d, "value", v))
		}
		if i%3 == 0 {
			c := fmt.Sprintf("c%d", i)
			qs = append(qs, tr(c, "species", iri(m)), tr(c, "gap", xsdLit(fmt.Sprintf("%.3f", rng.Float64()*10), "double")))
		}
		if i%5 == 0 {
			qs = append(qs, tr(m, "odd", tricky[(i/5)%len(tricky)]))
		}
		if i%2 == 0 {
			qs = append(qs, tr(m, "t", foldDateTime(i)))
		}
	}
	putIndexed(t, st, "http://g/1", qs)
	return st
}

// foldDateTime is the i-th registration time of foldStoreN: about a day
// apart, written in UTC (Z, -00:00), in other timezones or without one,
// some with fractions of a second.
func foldDateTime(i int) quad.Value {
	t := time.Date(2021, 3, 14, 15, 9, 26, 0, time.UTC).Add(time.Duration(i) * 21599 * time.Second)
	if i%3 == 0 {
		t = t.Add(time.Duration(i) * 1234567 * time.Nanosecond)
	}
	var lex string
	switch i % 12 {
	case 0, 2, 4:
		lex = t.Format("2006-01-02T15:04:05.999999999Z07:00")
	case 6:
		lex = t.Format("2006-01-02T15:04:05.999999999") + "-00:00"
	case 8:
		lex = t.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.999999999Z07:00")
	case 10:
		if i%24 == 10 {
			lex = t.Format("2006-01-02T15:04:05.999999999")
		} else {
			lex = t.In(time.FixedZone("", -(5*3600 + 1800))).Format("2006-01-02T15:04:05.999999999Z07:00")
		}
	}
	return xsdLit(lex, "dateTime")
}

// foldQueries are queries of the benchmark's kinds and tricky ones over
// foldStore.
var foldQueries = []string{
	// The bench's shapes.
	"SELECT (COUNT(?m) AS ?n) WHERE { ?m a :Molecule ; :mw ?mw ; :logp ?logp ; :hbd ?hbd ; :hba ?hba . FILTER(?mw <= 500 && ?logp <= 5 && ?hbd <= 5 && ?hba <= 10) }",
	"SELECT ?m ?smiles ?qed WHERE { ?m :type :Molecule ; :qed ?qed ; :smiles ?smiles } ORDER BY DESC(?qed) ?m LIMIT 20",
	"SELECT ?bucket (COUNT(?m) AS ?n) (AVG(?logp) AS ?meanLogP) WHERE { ?m :type :Molecule ; :mw ?mw ; :logp ?logp . BIND(FLOOR(?mw / 50) * 50 AS ?bucket) } GROUP BY ?bucket ORDER BY ?bucket",
	"SELECT ?heavy (COUNT(?m) AS ?n) (AVG(?tpsa) AS ?meanTPSA) (MAX(?tpsa) AS ?maxTPSA) WHERE { ?m :type :Molecule ; :heavy ?heavy ; :tpsa ?tpsa } GROUP BY ?heavy HAVING (COUNT(?m) > 10) ORDER BY ?heavy",
	"SELECT ?type (COUNT(?d) AS ?n) (AVG(?v) AS ?mean) (MIN(?v) AS ?min) (MAX(?v) AS ?max) (SUM(?v) AS ?sum) WHERE { ?m :type :Molecule ; :attr ?d . ?d :type ?type ; :value ?v . FILTER(isNumeric(?v)) } GROUP BY ?type ORDER BY ?type",
	"SELECT (COUNT(DISTINCT ?m) AS ?molecules) (COUNT(?gap) AS ?withGap) WHERE { ?m :type :Molecule ; :heavy ?heavy . FILTER(?heavy < 22) OPTIONAL { ?c :species ?m ; :gap ?gap . } }",
	"SELECT (COUNT(?m) AS ?n) WHERE { ?m :mw ?mw ; :logp ?logp ; :hbd ?hbd ; :hba ?hba . FILTER(?mw <= 500 && ?logp <= 5 && ?hbd <= 5 && ?hba <= 10) MINUS { ?m :rot ?rot ; :tpsa ?tpsa . FILTER(?rot <= 10 && ?tpsa <= 140) } }",
	"SELECT ?m ?gap WHERE { ?m :type :Molecule ; :heavy ?heavy . OPTIONAL { ?c :species ?m ; :gap ?gap FILTER(?gap > 5) } FILTER(?heavy < 20) } ORDER BY ?m",
	// Mixed and tricky values: the "Odd" descriptors and :odd.
	"SELECT ?v WHERE { ?d :type :Odd ; :value ?v } ORDER BY ?v ?d",
	"SELECT ?v WHERE { ?d :type :Odd ; :value ?v } ORDER BY DESC(?v) ?d LIMIT 7",
	"SELECT ?v (COUNT(?d) AS ?n) WHERE { ?d :type :Odd ; :value ?v } GROUP BY ?v ORDER BY ?v",
	"SELECT (MIN(?v) AS ?min) (MAX(?v) AS ?max) (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) (SAMPLE(?v) AS ?s) (COUNT(?v) AS ?c) WHERE { ?d :type :Odd ; :value ?v }",
	"SELECT (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) (MIN(?v) AS ?min) (MAX(?v) AS ?max) WHERE { ?d :type :Odd ; :value ?v FILTER(isNumeric(?v) && ?v = ?v) }",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v = 1) } ORDER BY ?d",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v != 1) } ORDER BY ?d",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v < 0.5 || ?v >= 9007199254740992) } ORDER BY ?d",
	"SELECT ?d ?w ?x ?y ?z ?a WHERE { ?d :type :Odd ; :value ?v BIND(?v + 1 AS ?w) BIND(?v * 3 AS ?x) BIND(?v / 7 AS ?y) BIND(-?v AS ?z) BIND(ROUND(?v) AS ?a) } ORDER BY ?d",
	"SELECT ?d ?x ?y ?z ?w ?u WHERE { ?d :type :Odd ; :value ?v BIND(FLOOR(?v / 3) * 2 + ABS(-?v) AS ?x) BIND((?v * 1.5) / 0 AS ?y) BIND(ROUND(?v * 0.1) - CEIL(+?v) AS ?z) BIND(isNumeric(?v / 2) AS ?w) BIND(?v * 2.5e0 * 3 AS ?u) } ORDER BY ?d",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v * 2 - 1 > ROUND(?v / 3) && ABS(?v) + 0.0 < 1e300) } ORDER BY ?d",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v / 3 * 3 = ?v) } ORDER BY ?d",
	"SELECT ?d (ABS(?v) AS ?a) (CEIL(?v) AS ?c) (isNumeric(?v) AS ?n) (STR(?v) AS ?s) (DATATYPE(?v) AS ?t) WHERE { ?d :type :Odd ; :value ?v } ORDER BY ?d",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v > \"5\") } ORDER BY ?d",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v = \"5\"@en || ?v = true) } ORDER BY ?d",
	"SELECT ?m ?o WHERE { ?m :odd ?o ; :mw ?mw FILTER(?o < ?mw) } ORDER BY ?o ?m",
	"SELECT ?o (MAX(?mw) AS ?x) WHERE { ?m :odd ?o ; :mw ?mw } GROUP BY ?o ORDER BY DESC(?x) ?o",
	"SELECT ?o (GROUP_CONCAT(?h) AS ?hs) WHERE { ?m :odd ?o ; :heavy ?h } GROUP BY ?o ORDER BY ?o",
	"SELECT ?m ?o WHERE { ?m :odd ?o } ORDER BY DESC(?o) LIMIT 5 OFFSET 2",
	"SELECT ?h (COUNT(?m) AS ?n) WHERE { ?m :heavy ?h } GROUP BY ?h HAVING (?h > 20 && AVG(?h) < 30) ORDER BY DESC(?h)",
	"SELECT ?m WHERE { ?m :mw ?mw FILTER(?mw > 400) FILTER NOT EXISTS { ?m :odd ?o } } ORDER BY ?m",
	"SELECT * WHERE { { SELECT ?m (MAX(?q) AS ?best) WHERE { ?m :qed ?q } GROUP BY ?m ORDER BY DESC(?best) LIMIT 5 } }",
	"ASK { ?m :qed ?q FILTER(?q > 0.99) }",
	// IN and NOT IN over numeric constants (folded), mixed lists (decoded).
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v IN (1, 0.1, 9007199254740993, -0.5, 1e400)) } ORDER BY ?d",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v NOT IN (1, 0.1e0, 9007199254740992)) } ORDER BY ?d",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v IN (1, \"12\", true) || ?v NOT IN (5, \"abc\")) } ORDER BY ?d",
	"SELECT ?h (COUNT(?m) AS ?n) WHERE { ?m :heavy ?h ; :hbd ?d FILTER(?h IN (20, 25.0, 30e0) && ?d + 1 NOT IN (2, 3)) } GROUP BY ?h ORDER BY ?h",
	// dateTimes (values folded as instants; fields read only from UTC ones).
	"SELECT ?m ?t WHERE { ?m :t ?t FILTER(?t < \"2021-06-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime>) } ORDER BY ?m",
	"SELECT ?m ?t WHERE { ?m :t ?t FILTER(?t >= \"2021-06-01T02:00:00+02:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime> && ?t <= \"2021-09-01T00:00:00-00:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime>) } ORDER BY ?m",
	"SELECT ?m ?t WHERE { ?m :t ?t FILTER(?t > \"2021-06-01T00:00:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime>) } ORDER BY ?m",
	"SELECT ?m ?t WHERE { ?m :t ?t FILTER(?t = \"2021-03-14T15:09:26Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> || ?t != ?t) } ORDER BY ?m",
	"SELECT ?h ?mi (COUNT(?m) AS ?n) WHERE { ?m :t ?t } GROUP BY (HOURS(?t) AS ?h) (MINUTES(?t) AS ?mi) ORDER BY ?h ?mi",
	"SELECT ?m (YEAR(?t) AS ?y) (MONTH(?t) AS ?mo) (DAY(?t) AS ?d) (SECONDS(?t) AS ?s) (TZ(?t) AS ?z) (TIMEZONE(?t) AS ?tz) WHERE { ?m :t ?t } ORDER BY ?m",
	"SELECT (COUNT(*) AS ?n) WHERE { ?a :t ?ta ; :heavy 20 . ?b :t ?tb ; :heavy 21 FILTER(?ta <= ?tb) }",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v FILTER(?v < \"2020-06-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> || ?v = \"2020-01-02T03:04:05Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime>) } ORDER BY ?d",
	"SELECT ?d (HOURS(?v) AS ?h) (SECONDS(?v) AS ?s) WHERE { ?d :type :Odd ; :value ?v } ORDER BY ?d",
	// dateTimes compared with computed ones (an aggregate, a BIND, one
	// without a timezone, a non-dateTime).
	"SELECT ?m ?t WHERE { { SELECT (MIN(?t0) AS ?first) WHERE { ?x :t ?t0 ; :heavy 21 } } ?m :t ?t FILTER(?t <= ?first) } ORDER BY ?m",
	"SELECT ?h (COUNT(?m) AS ?n) WHERE { { SELECT (MAX(?t0) AS ?last) WHERE { ?x :t ?t0 ; :heavy 20 } } ?m :t ?t FILTER(?t < ?last && ?t != ?last) } GROUP BY (HOURS(?t) AS ?h) ORDER BY ?h",
	"SELECT ?m ?t WHERE { ?m :t ?t BIND(\"2021-06-01T02:00:00+02:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime> AS ?c) FILTER(?t >= ?c) } ORDER BY ?m",
	"SELECT ?m ?t WHERE { ?m :t ?t BIND(\"2021-06-01T00:00:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime> AS ?c) FILTER(?t > ?c) } ORDER BY ?m",
	"SELECT ?m ?t WHERE { ?m :t ?t BIND(\"2021\" AS ?c) FILTER(COALESCE(?t > ?c, true)) } ORDER BY ?m",
	"SELECT ?d ?v WHERE { ?d :type :Odd ; :value ?v BIND(\"2020-06-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> AS ?c) FILTER(?v < ?c) } ORDER BY ?d",
}

// TestFoldedMatchesDecoded runs queries of the benchmark's kinds and
// tricky ones with values folded into ids and without, and compares the
// results exactly: the same solutions in the same order, the same lexical
// forms and datatypes, the same errors.
func TestFoldedMatchesDecoded(t *testing.T) {
	st := foldStore(t)
	const pre = "PREFIX : <http://example.org/> "
	queries := foldQueries
	folds := 0
	for _, q := range queries {
		compareRuns(t, st, pre+q, Options{}, Options{noFold: true}, &folds, true)
	}
	if folds < 1000 {
		t.Errorf("only %d values read from the value column", folds)
	}
	// CONSTRUCT: the same triples.
	cq := pre + "CONSTRUCT { ?m :q ?qed ; :s ?smiles } WHERE { ?m :qed ?qed ; :mw ?mw ; :smiles ?smiles FILTER(?qed > 0.8 && ?mw < 350) }"
	var got [2][]string
	for i, opts := range []Options{{}, {noFold: true}} {
		res, err := Run(context.Background(), st, cq, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := res.Quads()
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			got[i] = append(got[i], q.String())
		}
	}
	sort.Strings(got[0])
	sort.Strings(got[1])
	if len(got[0]) == 0 || !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("CONSTRUCT: folded %q\ndecoded %q", got[0], got[1])
	}
}

// runRows runs a query and renders its solutions in order (exact terms).
// compareRuns runs query with the options on and off and reports (as
// errors of t) different errors, different rows and, with wantRows, no
// rows. Without ORDER BY the rows are compared sorted: the order is then
// the plan's, and the planner may read ranges differently with folded
// values, cursors or shared ids. folds, if not nil, counts on's folds.
func compareRuns(t *testing.T, src Source, query string, on, off Options, folds *int, wantRows bool) {
	t.Helper()
	rOn, errOn := runRows(src, query, on, folds)
	rOff, errOff := runRows(src, query, off, nil)
	if fmt.Sprint(errOn) != fmt.Sprint(errOff) {
		t.Errorf("%s: error %v with %+v, %v with %+v", query, errOn, on, errOff, off)
		return
	}
	if !strings.Contains(query, "ORDER BY") {
		sort.Strings(rOn)
		sort.Strings(rOff)
	}
	if !reflect.DeepEqual(rOn, rOff) {
		t.Errorf("%s:\n%+v: %q\n%+v: %q", query, on, rOn, off, rOff)
	}
	if wantRows && len(rOn) == 0 && errOn == nil {
		t.Errorf("%s: no results", query)
	}
}

func runRows(src Source, query string, opts Options, folds *int) ([]string, error) {
	res, err := Run(context.Background(), src, query, "", opts)
	if err != nil {
		return nil, err
	}
	if folds != nil {
		defer func() { *folds += res.ex.folds }()
	}
	return resultRows(res)
}

// resultRows renders the solutions of res in order (exact terms).
func resultRows(res *Result) ([]string, error) {
	if res.Form == Ask {
		return []string{fmt.Sprint(res.Boolean)}, nil
	}
	var out []string
	err := res.Solutions(func(s Solution) error {
		var parts []string
		for i, v := range s {
			if v == nil {
				parts = append(parts, res.Vars[i]+"=")
				continue
			}
			parts = append(parts, fmt.Sprintf("%s=%T:%s", res.Vars[i], v, ntTerm(v)))
		}
		out = append(out, strings.Join(parts, " "))
		return nil
	})
	return out, err
}

// TestFoldedReadsNoTerms: with values folded, a COUNT over numeric
// filters, a top-k ORDER BY and a grouped average decode (almost) no
// terms: what folding is for.
func TestFoldedReadsNoTerms(t *testing.T) {
	st := foldStore(t)
	const pre = "PREFIX : <http://example.org/> "
	for _, tc := range []struct {
		q       string
		maxDecs int
	}{
		{"SELECT (COUNT(?m) AS ?n) WHERE { ?m :mw ?mw ; :logp ?logp ; :hbd ?hbd FILTER(?mw <= 500 && ?logp <= 5 && ?hbd <= 5) }", 0},
		{"SELECT ?m ?qed WHERE { ?m :qed ?qed ; :smiles ?s } ORDER BY DESC(?qed) LIMIT 3", 6},
		{"SELECT ?h (AVG(?mw) AS ?a) (MAX(?mw) AS ?x) WHERE { ?m :heavy ?h ; :mw ?mw } GROUP BY ?h", 20 + 20},
		{"SELECT (COUNT(?m) AS ?n) WHERE { ?m :heavy ?h ; :hbd ?d FILTER(?h IN (20, 25) && ?d NOT IN (0, 1)) }", 0},
		// dateTimes: a comparison reads instants (those without a
		// timezone, a twelfth, are decoded); HOURS decodes only the third
		// not written in UTC (foldDateTime).
		{"SELECT (COUNT(?m) AS ?n) WHERE { ?m :t ?t FILTER(?t < \"2021-09-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime>) }", 200/12 + 1},
		{"SELECT ?h (COUNT(?m) AS ?n) WHERE { ?m :t ?t } GROUP BY (HOURS(?t) AS ?h)", 200/3 + 2},
		// ... and so does one with a dateTime the query computed.
		{"SELECT (COUNT(?m) AS ?n) WHERE { ?m :t ?t BIND(\"2021-09-01T00:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> AS ?c) FILTER(?t < ?c) }", 200/12 + 1},
	} {
		// Registered search procedures the query does not call change
		// nothing (the service always registers some).
		procs := Procedures{"http://example.org/contains": &substringProc{src: st}}
		for _, opts := range []Options{{}, {Procedures: procs}} {
			res, err := Run(context.Background(), st, pre+tc.q, "", opts)
			if err != nil {
				t.Fatal(err)
			}
			ex := res.ex
			if _, err := res.All(); err != nil {
				t.Fatal(err)
			}
			if ex.folds == 0 {
				t.Errorf("%s (%d procedures): no value read from the value column", tc.q, len(opts.Procedures))
			}
			if ex.decodes > tc.maxDecs {
				t.Errorf("%s: %d terms decoded by the evaluator, want <= %d", tc.q, ex.decodes, tc.maxDecs)
			}
		}
	}
}

// putIndexed writes qs as graph g of st and rebuilds the id columns and
// the value column over the whole store, as a commit of the service does.
func putIndexed(t *testing.T, st *graph.Store, g quad.IRI, qs []quad.Quad) {
	t.Helper()
	ctx := context.Background()
	if err := st.PutGraph(ctx, g, qs); err != nil {
		t.Fatal(err)
	}
	if err := st.BuildColumns(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.BuildValues(ctx); err != nil {
		t.Fatal(err)
	}
}
