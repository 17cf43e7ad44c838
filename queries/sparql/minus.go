package sparql

import "strconv"

// MINUS is an anti-join: a solution of the left side is dropped when some
// solution of the right side shares a variable with it and agrees on
// every shared one. The right side is evaluated once (exec.detached) and
// indexed as the hashed joins index theirs (rowIndex, exists.go): its rows
// are grouped by the set of variables they bind, and each group is hashed
// on the variables it shares with a left solution (built the first time
// that set of shared variables occurs), so a left solution costs one probe
// per group instead of a pass over every right row. Keys are, for one
// shared variable, probeKey forms (the ids of a shared id variable,
// shared.go; fastGroupKey forms of terms), termKey strings otherwise; a
// hit is confirmed with sameTerm. Unlike the hashed joins' tables, a
// table MINUS cannot fit in Options.MaxMemory fails the query: MINUS has
// no per-solution path to fall back on.

// minusIndex is the right side's rows and minusExcludes' buffers.
type minusIndex struct {
	*rowIndex
	sig    []byte
	shared []int
}

func newMinusIndex(rights []row) *minusIndex {
	return &minusIndex{rowIndex: newRowIndex(rights)}
}

// excludes reports whether a right row is compatible with a on at least
// one shared variable; it charges the hash tables it builds.
func (ex *exec) minusExcludes(ix *minusIndex, a row, charged *int) (bool, error) {
	for _, g := range ix.groups {
		sig, shared := ix.sig[:0], ix.shared[:0]
		for _, s := range g.slots {
			if a[s] != nil {
				shared = append(shared, s)
				sig = strconv.AppendInt(sig, int64(s), 10)
				sig = append(sig, ',')
			}
		}
		ix.sig, ix.shared = sig, shared
		if len(shared) == 0 {
			continue
		}
		tab, ok := g.tables[string(sig)]
		if !ok {
			tab = &rowTable{}
			for i, b := range g.rows {
				n := tab.add(b, shared, i, len(g.rows))
				*charged += n
				if err := ex.alloc(n); err != nil {
					return false, err
				}
			}
			g.tables[string(sig)] = tab
		}
		for _, i := range tab.candidates(a, shared) {
			if agree(a, g.rows[i], shared) {
				return true, nil
			}
		}
	}
	return false, nil
}
