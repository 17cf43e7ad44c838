package rdfio

import (
	"sort"

	"github.com/cayleygraph/quad"
)

// SortQuads sorts qs in place in canonical order: by subject, predicate,
// object and graph label, each compared by its N-Triples form (a quad
// without label first). Sorted input makes the Turtle writer emit one
// group per subject and makes output deterministic.
func SortQuads(qs []quad.Quad) {
	keys := make([][4]string, len(qs))
	for i, q := range qs {
		keys[i] = [4]string{termKey(q.Subject), termKey(q.Predicate), termKey(q.Object), termKey(q.Label)}
	}
	sort.Sort(quadSorter{qs, keys})
}

type quadSorter struct {
	qs   []quad.Quad
	keys [][4]string
}

func (s quadSorter) Len() int { return len(s.qs) }
func (s quadSorter) Less(i, j int) bool {
	a, b := &s.keys[i], &s.keys[j]
	for d := 0; d < 4; d++ {
		if a[d] != b[d] {
			return a[d] < b[d]
		}
	}
	return false
}
func (s quadSorter) Swap(i, j int) {
	s.qs[i], s.qs[j] = s.qs[j], s.qs[i]
	s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
}
