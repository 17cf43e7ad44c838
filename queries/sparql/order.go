package sparql

import (
	"container/heap"
	"strings"

	"github.com/cayleygraph/quad"
)

// ORDER BY. Each solution's sort keys are computed once when it arrives,
// with numbers parsed then (comparing parsed numbers is what used to take
// most of a sort: orderTerms parses both literals at every comparison).
// With a LIMIT (and no DISTINCT or REDUCED between the sort and the
// slice), only the first OFFSET+LIMIT solutions in order are kept, in a
// heap: a top-k sort, whose memory is k rows whatever the input size.

// sortKey is one ORDER BY key of a solution.
type sortKey struct {
	v     quad.Value
	n     num
	isNum bool
	// extra: the bytes of v when it was decoded from an id (resolveKey);
	// id: that id (0: none), kept when v is decoded.
	extra int
	id    uint64
}

func makeSortKey(v quad.Value) sortKey {
	k := sortKey{v: v}
	if orderRank(v) == 3 {
		k.n, k.isNum = toNum(v)
	}
	return k
}

// sortKey makes the key of v, which may be an id bound by a value-read
// variable (folded.go): a folded number is read from the value column,
// another id is decoded only when a comparison needs its term
// (resolveKey).
func (ex *exec) sortKey(v quad.Value) sortKey {
	if t, ok := v.(idTerm); ok {
		k := sortKey{v: v, id: t.id}
		if ex.vals != nil {
			k.n, k.isNum = ex.idNum(t.id)
		}
		return k
	}
	return makeSortKey(v)
}

// cmpSortKey orders two keys exactly as orderTerms orders their values.
func (ex *exec) cmpSortKey(a, b *sortKey) int {
	if !a.isNum || !b.isNum {
		// Terms bound to ids are decoded now, but a folded number needs
		// not be to be ordered after unbound, blank nodes and IRIs.
		if !a.isNum {
			ex.resolveKey(a)
		}
		if !b.isNum {
			ex.resolveKey(b)
		}
		ra, rb := orderRank(a.v), orderRank(b.v)
		if ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
	}
	if a.isNum && b.isNum {
		c, ok := cmpNum(a.n, b.n)
		if !ok {
			return 0
		}
		if c != 0 {
			return c
		}
		if a.id != 0 && a.id == b.id {
			return 0 // one term: the same lexical form
		}
		ex.resolveKey(a)
		ex.resolveKey(b)
		return strings.Compare(a.v.String(), b.v.String())
	}
	ex.resolveKey(a)
	ex.resolveKey(b)
	return orderTerms(a.v, b.v)
}

// sortedRow is a buffered solution with its keys; seq keeps the sort
// stable.
type sortedRow struct {
	r     row
	keys  []sortKey
	seq   int
	bytes int // charged to the memory budget
}

// orderLess is the ORDER BY order of two buffered solutions.
func (ex *exec) orderLess(items []orderItem, a, b *sortedRow) bool {
	for j, o := range items {
		c := ex.cmpSortKey(&a.keys[j], &b.keys[j])
		if o.desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return a.seq < b.seq
}

// topK is a max-heap (by ORDER BY order) of the best k solutions so far.
type topK struct {
	ex    *exec
	items []orderItem
	rows  []*sortedRow
}

func (h *topK) Len() int           { return len(h.rows) }
func (h *topK) Less(i, j int) bool { return h.ex.orderLess(h.items, h.rows[j], h.rows[i]) }
func (h *topK) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *topK) Push(x any)         { h.rows = append(h.rows, x.(*sortedRow)) }
func (h *topK) Pop() any {
	n := len(h.rows)
	x := h.rows[n-1]
	h.rows = h.rows[:n-1]
	return x
}

var _ heap.Interface = (*topK)(nil)

// numOf is toNum remembering its last answer: the aggregates of one
// solution (AVG, MIN, MAX of one variable) parse the same value once.
func (ex *exec) numOf(v quad.Value) (num, bool) {
	if ts, ok := v.(quad.TypedString); ok && ex.lastNumOK && ts == ex.lastNumTerm {
		return ex.lastNum, ex.lastIsNum
	}
	n, ok := toNum(v)
	if ts, isTS := v.(quad.TypedString); isTS {
		ex.lastNumTerm, ex.lastNum, ex.lastIsNum, ex.lastNumOK = ts, n, ok, true
	}
	return n, ok
}
