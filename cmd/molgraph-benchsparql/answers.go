package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/rdfio"
)

// Comparing the answers of two SPARQL stores.
//
// Two stores may write the same answer differently, and the comparison must
// not call that a mismatch:
//   - numbers are compared by value, whatever their datatype (COUNT may be
//     xsd:integer in one store and xsd:int in another), within a relative
//     tolerance (a sum may be added in another order) or within the
//     precision the answer printed: Virtuoso 7 writes doubles with 6
//     significant digits in SPARQL JSON results and N-Triples ("0.941813"
//     for "0.9418128838805845"; virtuoso-opensource issue 1006), so a
//     value printed with d decimals matches within half a unit of its
//     last digit;
//   - booleans by value ("1" and "true");
//   - xsd:string literals are simple literals (RDF 1.1);
//   - dateTimes by instant, to the microsecond (Virtuoso keeps
//     microseconds);
//   - blank nodes match any blank node (labels are local to an answer);
//   - rows are compared as a multiset unless the query orders them (ORDER
//     BY), and then in order;
//   - CONSTRUCT and DESCRIBE answers are compared as sets of triples.

// relTol is the relative tolerance of numeric comparisons.
const relTol = 1e-9

const xsd = "http://www.w3.org/2001/XMLSchema#"

// numericTypes are the XSD datatypes compared by value.
var numericTypes = map[string]bool{}

func init() {
	for _, t := range []string{"integer", "decimal", "double", "float", "int", "long", "short", "byte",
		"nonNegativeInteger", "positiveInteger", "nonPositiveInteger", "negativeInteger",
		"unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte"} {
		numericTypes[xsd+t] = true
	}
}

// term is one RDF term of an answer, normalized for comparison.
type term struct {
	kind  byte // 'u' IRI, 'b' blank node, 'l' literal, 0 unbound
	value string
	dt    string // literal datatype; "" for simple and language-tagged literals
	lang  string
	num   float64
	half  float64 // half a unit of the last printed digit of a non-integer number
	isNum bool
	when  time.Time
	isDT  bool
}

// newTerm normalizes a term given as in the SPARQL JSON results format.
func newTerm(kind, value, datatype, lang string) term {
	switch kind {
	case "uri":
		return term{kind: 'u', value: value}
	case "bnode":
		return term{kind: 'b'}
	}
	t := term{kind: 'l', value: value, dt: datatype, lang: strings.ToLower(lang)}
	switch {
	case t.dt == xsd+"string":
		t.dt = ""
	case numericTypes[t.dt]:
		if f, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			t.num, t.isNum, t.dt = f, true, "number"
			t.half = halfUnit(strings.TrimSpace(value))
		}
	case t.dt == xsd+"boolean":
		switch strings.TrimSpace(value) {
		case "1", "true":
			t.value = "true"
		case "0", "false":
			t.value = "false"
		}
	case t.dt == xsd+"dateTime":
		if w, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(value)); err == nil {
			t.when, t.isDT = w.UTC().Truncate(time.Microsecond), true
		}
	}
	return t
}

// fromQuad normalizes a term of a parsed RDF document.
func fromQuad(v quad.Value) term {
	switch v := v.(type) {
	case quad.IRI:
		return newTerm("uri", string(v), "", "")
	case quad.BNode:
		return newTerm("bnode", string(v), "", "")
	case quad.String:
		return newTerm("literal", string(v), "", "")
	case quad.LangString:
		return newTerm("literal", string(v.Value), "", v.Lang)
	case quad.TypedString:
		return newTerm("literal", string(v.Value), string(v.Type), "")
	case nil:
		return term{}
	}
	return newTerm("literal", v.String(), "", "")
}

// equal compares two normalized terms.
func (t term) equal(o term) bool {
	switch {
	case t.kind != o.kind:
		return false
	case t.isNum || o.isNum:
		return t.isNum && o.isNum && (closeTo(t.num, o.num) || math.Abs(t.num-o.num) <= max(t.half, o.half))
	case t.isDT || o.isDT:
		return t.isDT && o.isDT && t.when.Equal(o.when)
	}
	return t.value == o.value && t.dt == o.dt && t.lang == o.lang
}

func closeTo(a, b float64) bool {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	return math.Abs(a-b) <= relTol*math.Max(math.Abs(a), math.Abs(b))
}

// halfUnit is half a unit of the last digit of a number's lexical form
// with a fraction or an exponent ("0.941813": 5e-7, "1.04828e+06": 5),
// 0 for an integer.
func halfUnit(lex string) float64 {
	mant, exp := lex, 0
	if i := strings.IndexAny(lex, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(lex[i+1:], "+"))
		if err != nil {
			return 0
		}
		mant, exp = lex[:i], e
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	} else if exp == 0 {
		return 0
	}
	return 0.5 * math.Pow(10, float64(exp-decimals))
}

// key is a string that equal terms share, mostly: numbers are rounded to
// 5 significant digits, so that values within the tolerance sort together.
func (t term) key() string {
	switch {
	case t.kind == 0:
		return ""
	case t.kind == 'b':
		return "_:"
	case t.isNum:
		return "n" + strconv.FormatFloat(t.num, 'g', 5, 64)
	case t.isDT:
		return "d" + t.when.Format(time.RFC3339Nano)
	case t.kind == 'u':
		return "<" + t.value + ">"
	}
	return "\"" + t.value + "\"^^" + t.dt + "@" + t.lang
}

// String shows a term in a mismatch report.
func (t term) String() string {
	switch {
	case t.kind == 0:
		return "(unbound)"
	case t.kind == 'b':
		return "_:b"
	case t.kind == 'u':
		return "<" + t.value + ">"
	case t.isNum:
		return strconv.FormatFloat(t.num, 'g', -1, 64)
	case t.lang != "":
		return strconv.Quote(t.value) + "@" + t.lang
	case t.dt != "":
		return strconv.Quote(t.value) + "^^<" + t.dt + ">"
	}
	return strconv.Quote(t.value)
}

// answer is one store's answer to a query, normalized.
type answer struct {
	vars    []string
	rows    [][]term // SELECT: one term per var (kind 0 when unbound)
	boolean *bool    // ASK
	triples [][3]term
	graph   bool // CONSTRUCT or DESCRIBE
}

// size is the number of rows, triples or 1 for ASK.
func (a *answer) size() int {
	switch {
	case a.graph:
		return len(a.triples)
	case a.boolean != nil:
		return 1
	}
	return len(a.rows)
}

// parseAnswer reads an HTTP answer body by its Content-Type: SPARQL JSON
// results, or an RDF document (N-Triples, Turtle, N-Quads, JSON-LD).
func parseAnswer(contentType string, body []byte) (*answer, error) {
	mt, _, perr := mime.ParseMediaType(contentType)
	if perr != nil {
		mt = strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0])
	}
	switch mt {
	case "application/sparql-results+json", "application/json":
		return parseJSONResults(body)
	}
	var f rdfio.Format
	switch mt {
	case "application/n-triples", "text/plain", "text/ntriples":
		f = rdfio.NTriples
	case "text/turtle", "application/x-turtle", "text/rdf+n3", "text/n3":
		f = rdfio.Turtle
	case "application/n-quads":
		f = rdfio.NQuads
	case "application/ld+json":
		f = rdfio.JSONLD
	default:
		return nil, fmt.Errorf("answer of type %q: neither SPARQL JSON results nor a known RDF format", contentType)
	}
	a := &answer{graph: true}
	err := rdfio.Parse(bytes.NewReader(body), f, rdfio.ParseOptions{}, func(q quad.Quad) error {
		a.triples = append(a.triples, [3]term{fromQuad(q.Subject), fromQuad(q.Predicate), fromQuad(q.Object)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("answer (%s): %w", mt, err)
	}
	return a, nil
}

// parseJSONResults reads the SPARQL 1.1 Query Results JSON Format (and
// the "typed-literal" type of its SPARQL 1.0 predecessor, which Virtuoso
// writes).
func parseJSONResults(body []byte) (*answer, error) {
	var doc struct {
		Head struct {
			Vars []string `json:"vars"`
		} `json:"head"`
		Boolean *bool `json:"boolean"`
		Results *struct {
			Bindings []map[string]struct {
				Type     string `json:"type"`
				Value    string `json:"value"`
				Datatype string `json:"datatype"`
				Lang     string `json:"xml:lang"`
			} `json:"bindings"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("SPARQL JSON results: %w", err)
	}
	a := &answer{vars: doc.Head.Vars, boolean: doc.Boolean}
	if doc.Boolean != nil {
		return a, nil
	}
	if doc.Results == nil {
		return nil, errors.New("SPARQL JSON results: neither results nor boolean")
	}
	for _, b := range doc.Results.Bindings {
		row := make([]term, len(a.vars))
		for i, v := range a.vars {
			if x, ok := b[v]; ok {
				kind := x.Type
				if kind == "typed-literal" {
					kind = "literal"
				}
				row[i] = newTerm(kind, x.Value, x.Datatype, x.Lang)
			}
		}
		a.rows = append(a.rows, row)
	}
	return a, nil
}

// compareAnswers returns "" when a and b are the same answer, else what
// differs (the first few differences). ordered: the query has ORDER BY,
// so rows must come in the same order.
func compareAnswers(a, b *answer, ordered bool) string {
	switch {
	case a.graph != b.graph:
		return "one answer is a graph, the other is not"
	case a.graph:
		return compareTriples(a.triples, b.triples)
	case (a.boolean == nil) != (b.boolean == nil):
		return "one answer is a boolean, the other is not"
	case a.boolean != nil:
		if *a.boolean != *b.boolean {
			return fmt.Sprintf("ASK: %v vs %v", *a.boolean, *b.boolean)
		}
		return ""
	}
	// Align b's columns with a's.
	idx := make([]int, len(a.vars))
	for i, v := range a.vars {
		idx[i] = slices.Index(b.vars, v)
		if idx[i] < 0 {
			return fmt.Sprintf("variables differ: %v vs %v", a.vars, b.vars)
		}
	}
	if len(a.vars) != len(b.vars) {
		return fmt.Sprintf("variables differ: %v vs %v", a.vars, b.vars)
	}
	brows := make([][]term, len(b.rows))
	for r, row := range b.rows {
		brows[r] = make([]term, len(idx))
		for i, j := range idx {
			brows[r][i] = row[j]
		}
	}
	if ordered {
		d := firstDiff(a.vars, a.rows, brows)
		if d == "" {
			return ""
		}
		if onlyA, onlyB := matchRows(a.rows, brows); len(onlyA) == 0 && len(onlyB) == 0 {
			return "the same rows in another order" + d
		}
		if len(a.rows) != len(brows) {
			return fmt.Sprintf("%d rows vs %d rows%s", len(a.rows), len(brows), d)
		}
		return d[2:]
	}
	onlyA, onlyB := matchRows(a.rows, brows)
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return ""
	}
	return fmt.Sprintf("%d rows vs %d rows; only in the first (%d): %s; only in the second (%d): %s",
		len(a.rows), len(brows), len(onlyA), showRows(a.vars, onlyA), len(onlyB), showRows(b.vars, onlyB))
}

// coarseKey is a key that equal rows share: numbers and dateTimes are
// left out (they compare within a tolerance, which no key can encode).
func coarseKey(r []term) string {
	var sb strings.Builder
	for _, t := range r {
		switch {
		case t.isNum:
			sb.WriteString("n")
		case t.isDT:
			sb.WriteString("d")
		default:
			sb.WriteString(t.key())
		}
		sb.WriteByte(0)
	}
	return sb.String()
}

func rowsEqual(x, y []term) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !x[i].equal(y[i]) {
			return false
		}
	}
	return true
}

// matchRows matches the rows of a with equal rows of b, as multisets:
// each row of b matches at most one row of a. It returns the rows left
// over on each side.
func matchRows(a, b [][]term) (onlyA, onlyB [][]term) {
	groups := map[string][]int{}
	for j, r := range b {
		k := coarseKey(r)
		groups[k] = append(groups[k], j)
	}
	used := make([]bool, len(b))
	for _, r := range a {
		found := false
		for _, j := range groups[coarseKey(r)] {
			if !used[j] && rowsEqual(r, b[j]) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			onlyA = append(onlyA, r)
		}
	}
	for j, r := range b {
		if !used[j] {
			onlyB = append(onlyB, r)
		}
	}
	return onlyA, onlyB
}

// dedupe drops repeated rows (a graph is a set of triples).
func dedupe(rows [][]term) [][]term {
	groups := map[string][][]term{}
	var out [][]term
	for _, r := range rows {
		k := coarseKey(r)
		if slices.ContainsFunc(groups[k], func(x []term) bool { return rowsEqual(x, r) }) {
			continue
		}
		groups[k] = append(groups[k], r)
		out = append(out, r)
	}
	return out
}

func showRows(vars []string, rows [][]term) string {
	parts := make([]string, 0, 3)
	for _, r := range rows[:min(3, len(rows))] {
		parts = append(parts, showRow(vars, r))
	}
	return strings.Join(parts, ", ")
}

// firstDiff describes the first rows that differ ("" if none), prefixed
// with "; ".
func firstDiff(vars []string, a, b [][]term) string {
	var diffs []string
	for i := 0; i < max(len(a), len(b)) && len(diffs) < 3; i++ {
		switch {
		case i >= len(a):
			diffs = append(diffs, fmt.Sprintf("row %d: (none) vs %s", i+1, showRow(vars, b[i])))
		case i >= len(b):
			diffs = append(diffs, fmt.Sprintf("row %d: %s vs (none)", i+1, showRow(vars, a[i])))
		default:
			for j := range a[i] {
				if !a[i][j].equal(b[i][j]) {
					diffs = append(diffs, fmt.Sprintf("row %d: %s vs %s", i+1, showRow(vars, a[i]), showRow(vars, b[i])))
					break
				}
			}
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return "; " + strings.Join(diffs, "; ")
}

func showRow(vars []string, r []term) string {
	parts := make([]string, len(r))
	for i, t := range r {
		parts[i] = "?" + vars[i] + "=" + t.String()
	}
	s := "{" + strings.Join(parts, " ") + "}"
	if len(s) > 300 {
		s = s[:300] + "...}"
	}
	return s
}

// compareTriples compares two graphs as sets of triples (blank nodes
// match any blank node: the benchmark's data has none).
func compareTriples(a, b [][3]term) string {
	rows := func(ts [][3]term) [][]term {
		var out [][]term
		for _, t := range ts {
			out = append(out, []term{t[0], t[1], t[2]})
		}
		return dedupe(out)
	}
	ra, rb := rows(a), rows(b)
	onlyA, onlyB := matchRows(ra, rb)
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return ""
	}
	show := func(rs [][]term) string {
		var parts []string
		for _, r := range rs[:min(3, len(rs))] {
			parts = append(parts, r[0].String()+" "+r[1].String()+" "+r[2].String())
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%d vs %d triples; only in the first (%d): %s; only in the second (%d): %s",
		len(ra), len(rb), len(onlyA), show(onlyA), len(onlyB), show(onlyB))
}
