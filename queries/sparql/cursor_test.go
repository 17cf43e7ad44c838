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
		// Stars batched by id (star.go): several objects per subject, a
		// compiled filter over values the column has no number for,
		// constants on either side, a constant object, one not stored, a
		// filter on strings ending the star, a star under a bound subject.
		"SELECT ?m ?d ?mw WHERE { ?m :attr ?d ; :mw ?mw ; :type :Molecule FILTER(?mw > 300) } ORDER BY ?m ?d",
		"SELECT ?m ?d ?v WHERE { ?m :type :Molecule ; :attr ?d ; :odd ?v FILTER(?v >= 1) }",
		"SELECT ?m ?v WHERE { ?m :odd ?v ; :hbd ?h FILTER(?v != 2 && ?h = 3) }",
		"SELECT (COUNT(*) AS ?n) WHERE { ?m :hbd ?h ; :rot ?r ; :type :Molecule FILTER(3 > ?h && 5 <= ?r) }",
		"SELECT ?m WHERE { ?m :mw ?mw ; :type :Nothing }",
		"SELECT ?m ?s WHERE { ?m :smiles ?s ; :hbd ?h ; :hba ?a FILTER(STRSTARTS(?s, \"C1\")) FILTER(?h < 3 && ?a > 6) } ORDER BY ?m",
		"SELECT ?c ?mw WHERE { ?c :species ?m . { ?m :mw ?mw ; :hbd ?h FILTER(?h > 2) } } ORDER BY ?c",
	}, foldQueries...)
	for _, q := range queries {
		for _, noFold := range []bool{false, true} {
			compareRuns(t, st, pre+q, Options{noFold: noFold}, Options{noFold: noFold, noCursor: true}, nil,
				!strings.Contains(q, ":species ?m . ?m :mw") && !strings.Contains(q, ":Nothing"))
		}
	}
}
