package sparql

import (
	"strings"
	"testing"
)

// TestCursorMatchesScan runs the folded tests' queries and joins that read
// columns by object, with a repeated variable, a variable predicate and
// keys out of order, with the BGP steps' column cursors (matchCursor) and
// without, folded and decoded, and compares the results exactly.
func TestCursorMatchesScan(t *testing.T) {
	st := foldStore(t)
	const pre = "PREFIX : <http://example.org/> "
	queries := append([]string{
		"SELECT ?c ?m ?mw WHERE { ?c :species ?m . ?m :mw ?mw ; :heavy ?h } ORDER BY ?c",
		"SELECT ?m ?c WHERE { ?m :heavy ?h . ?c :species ?m } ORDER BY ?m",
		"SELECT ?d ?t WHERE { ?m :attr ?d . ?d :type ?t . ?m :type :Molecule } ORDER BY ?d",
		"SELECT ?h (COUNT(?m) AS ?n) WHERE { ?m :heavy ?h . ?x :heavy ?h . ?x :type :Molecule } GROUP BY ?h ORDER BY ?h",
		"SELECT ?m ?p ?o WHERE { ?m :heavy 20 . ?m ?p ?o } ORDER BY ?m ?p ?o",
		"SELECT ?m ?v WHERE { ?m :type ?t . ?m :species ?m . ?m :mw ?v }",
		"SELECT ?m ?o WHERE { ?m :hbd ?o . ?m :hba ?o } ORDER BY ?m",
		"SELECT (COUNT(*) AS ?n) WHERE { ?m :mw ?mw . ?m :attr ?d . ?d :value ?v . ?d :type ?t }",
	}, foldQueries...)
	for _, q := range queries {
		for _, noFold := range []bool{false, true} {
			compareRuns(t, st, pre+q, Options{noFold: noFold}, Options{noFold: noFold, noCursor: true}, nil,
				!strings.Contains(q, ":species ?m . ?m :mw"))
		}
	}
}
