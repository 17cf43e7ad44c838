package sparql

import (
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// MINUS is an anti-join: a solution of the left side is dropped when some
// solution of the right side shares a variable with it and agrees on
// every shared one. The right side is evaluated once (exec.detached) and
// indexed: its rows are grouped by the set of variables they bind, and
// each group is hashed on the variables it shares with a left solution
// (built the first time that set of shared variables occurs), so a left
// solution costs one probe per group instead of a pass over every right
// row. Keys are, for one shared variable, probeKey forms (the ids of a
// shared id variable, shared.go; fastGroupKey forms of terms), termKey
// strings otherwise; a hit is confirmed with sameTerm.

type minusIndex struct {
	groups []*minusGroup
	byMask map[string]*minusGroup
	// sig and shared are buffers of minusExcludes.
	sig    []byte
	shared []int
}

type minusGroup struct {
	slots []int // the variables the group's rows bind, ascending
	rows  []row
	// bySet maps a set of shared variables (its signature) to the rows
	// by their values there.
	bySet map[string]*minusTable
}

// minusTable indexes a group's rows by the values of some shared
// variables: one by probeKey (ids of shared id variables, fast keys of
// terms), several (or terms without a fast key) by termKey strings.
type minusTable struct {
	one   map[quad.Value][]int32
	multi map[string][]int32
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
			g = &minusGroup{slots: slots, bySet: map[string]*minusTable{}}
			ix.byMask[sig.String()] = g
			ix.groups = append(ix.groups, g)
		}
		g.rows = append(g.rows, b)
	}
	return ix
}

// minusKey is the termKey string of the values of a at slots.
func minusKey(a row, slots []int) string {
	var k strings.Builder
	for _, s := range slots {
		k.WriteString(termKey(a[s]))
		k.WriteByte(0)
	}
	return k.String()
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
		tab, ok := g.bySet[string(sig)]
		if !ok {
			tab = &minusTable{}
			add := func(m map[string][]int32, k string, i int) error {
				n := mapEntryBytes + len(k) + 4
				*charged += n
				if err := ex.alloc(n); err != nil {
					return err
				}
				m[k] = append(m[k], int32(i))
				return nil
			}
			for i, b := range g.rows {
				if len(shared) == 1 {
					if k, ok := probeKey(b[shared[0]]); ok {
						if tab.one == nil {
							tab.one = make(map[quad.Value][]int32, len(g.rows))
						}
						n := mapEntryBytes + valueBytes + 4
						*charged += n
						if err := ex.alloc(n); err != nil {
							return false, err
						}
						tab.one[k] = append(tab.one[k], int32(i))
						continue
					}
				}
				if tab.multi == nil {
					tab.multi = map[string][]int32{}
				}
				if err := add(tab.multi, minusKey(b, shared), i); err != nil {
					return false, err
				}
			}
			g.bySet[string(sig)] = tab
		}
		var cands []int32
		if len(shared) == 1 && tab.one != nil {
			if k, ok := probeKey(a[shared[0]]); ok {
				cands = tab.one[k]
			}
		}
		if tab.multi != nil {
			cands = append(cands[:len(cands):len(cands)], tab.multi[minusKey(a, shared)]...)
		}
	cands:
		for _, i := range cands {
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
