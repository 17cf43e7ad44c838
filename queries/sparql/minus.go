package sparql

import (
	"strconv"
	"strings"
)

// MINUS is an anti-join: a solution of the left side is dropped when some
// solution of the right side shares a variable with it and agrees on
// every shared one. The right side is evaluated once (exec.detached) and
// indexed: its rows are grouped by the set of variables they bind, and
// each group is hashed on the variables it shares with a left solution
// (built the first time that set of shared variables occurs), so a left
// solution costs one probe per group instead of a pass over every right
// row. Keys are termKey strings, whose equality sameTerm implies; a hit is
// confirmed with sameTerm.

type minusIndex struct {
	groups []*minusGroup
	byMask map[string]*minusGroup
}

type minusGroup struct {
	slots []int // the variables the group's rows bind, ascending
	rows  []row
	// bySet maps a set of shared variables (sharedSig) to the rows by the
	// key of their values there.
	bySet map[string]map[string][]int32
}

func newMinusIndex(rights []row) *minusIndex {
	ix := &minusIndex{byMask: map[string]*minusGroup{}}
	var sig strings.Builder
	for _, b := range rights {
		sig.Reset()
		var slots []int
		for i, v := range b {
			if v != nil {
				slots = append(slots, i)
				sig.WriteString(strconv.Itoa(i))
				sig.WriteByte(',')
			}
		}
		g := ix.byMask[sig.String()]
		if g == nil {
			g = &minusGroup{slots: slots, bySet: map[string]map[string][]int32{}}
			ix.byMask[sig.String()] = g
			ix.groups = append(ix.groups, g)
		}
		g.rows = append(g.rows, b)
	}
	return ix
}

// excludes reports whether a right row is compatible with a on at least
// one shared variable; it charges the hash tables it builds.
func (ex *exec) minusExcludes(ix *minusIndex, a row, charged *int) (bool, error) {
	var sig, key strings.Builder
	for _, g := range ix.groups {
		sig.Reset()
		key.Reset()
		var shared []int
		for _, s := range g.slots {
			if a[s] != nil {
				shared = append(shared, s)
				sig.WriteString(strconv.Itoa(s))
				sig.WriteByte(',')
				key.WriteString(termKey(a[s]))
				key.WriteByte(0)
			}
		}
		if len(shared) == 0 {
			continue
		}
		tab, ok := g.bySet[sig.String()]
		if !ok {
			tab = make(map[string][]int32, len(g.rows))
			var kb strings.Builder
			for i, b := range g.rows {
				kb.Reset()
				for _, s := range shared {
					kb.WriteString(termKey(b[s]))
					kb.WriteByte(0)
				}
				k := kb.String()
				n := mapEntryBytes + len(k) + 4
				*charged += n
				if err := ex.alloc(n); err != nil {
					return false, err
				}
				tab[k] = append(tab[k], int32(i))
			}
			g.bySet[sig.String()] = tab
		}
	cands:
		for _, i := range tab[key.String()] {
			b := g.rows[i]
			for _, s := range shared {
				if !sameTerm(a[s], b[s]) {
					continue cands
				}
			}
			return true, nil
		}
	}
	return false, nil
}
