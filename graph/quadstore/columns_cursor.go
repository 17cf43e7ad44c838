package quadstore

import (
	"math"
	"sort"
)

// ColumnCursor reads one predicate's column in one order (by subject: the
// objects of each subject; by object: the subjects of each object) for a
// join that looks up many keys. Seek with keys in ascending order, as
// they come from a scan of a column sorted by the key, walks each run
// forward by galloping (exponential then binary search from the last
// position), so a join over sorted input reads the column nearly
// sequentially instead of binary-searching all of it per key; a smaller
// key is found by a binary search before the last position (no dearer
// than without a cursor). The columns it reads are the
// immutable ones of the view's commit, so a cursor stays valid (and
// consistent) after the view is closed, but is not safe for concurrent
// use.
type ColumnCursor struct {
	base, add, del   pairs
	bpos, apos, dpos int
	last             uint32
	buf              []uint32
	// after is the smallest key above the last one sought (see After).
	after uint64
	// n is the predicate's triples, baseKeys the base's distinct keys.
	n, baseKeys int
}

// Stats returns the number of the predicate's triples and of its distinct
// keys (subjects by subject, objects by object; an upper bound between
// folds): triples/keys is the mean fan-out of one key, the statistic a
// planner needs to order joins.
func (c *ColumnCursor) Stats() (triples, keys int64) {
	return int64(c.n), int64(min(c.n, c.baseKeys+distinctRuns(c.add.a)))
}

// ColumnCursor returns a cursor over the triples of predicate p (by id)
// in the view's columns, read by subject when bySubject is set, by
// object otherwise; nil when the view has no columns or is closed. A
// predicate with no triples gives a cursor that finds nothing.
func (v *View) ColumnCursor(p uint64, bySubject bool) *ColumnCursor {
	if v.cols == nil || v.closed || v.s.closed.Load() {
		return nil
	}
	pc := v.cols.preds[p]
	if pc == nil {
		return &ColumnCursor{}
	}
	if bySubject {
		return &ColumnCursor{base: pc.base.so, add: pc.addSO, del: pc.delSO,
			n: pc.n, baseKeys: pc.base.distinctS}
	}
	return &ColumnCursor{base: pc.base.os, add: pc.addOS, del: pc.delOS,
		n: pc.n, baseKeys: pc.base.distinctO}
}

// gallop returns the first index i >= from of col (sorted) with col[i] >=
// v, given that every index before from holds a smaller value.
func gallop(col []uint32, from int, v uint32) int {
	n := len(col)
	if from >= n || col[from] >= v {
		return from
	}
	// col[lo] < v; find hi with col[hi] >= v (or n).
	lo, step := from, 1
	hi := from + step
	for hi < n && col[hi] < v {
		lo = hi
		step <<= 1
		hi = lo + step
	}
	if hi > n {
		hi = n
	}
	for lo+1 < hi {
		m := int(uint(lo+hi) >> 1)
		if col[m] < v {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// runOf returns the range [lo, hi) of col equal to v, searching from
// *pos forward (back: by a binary search before *pos, for a key smaller
// than the last), and moves *pos to lo.
func runOf(col []uint32, pos *int, v uint32, back bool) (int, int) {
	var lo int
	if back {
		lo = sort.Search(min(*pos+1, len(col)), func(i int) bool { return col[i] >= v })
	} else {
		lo = gallop(col, *pos, v)
	}
	*pos = lo
	hi := lo
	for hi < len(col) && col[hi] == v {
		hi++
	}
	return lo, hi
}

// After returns the smallest key above the last one Seek was given that
// may have pairs (a key whose pairs were all deleted since the base may
// be returned too; MaxUint64: none): every key between the two finds
// nothing, so a caller seeking keys in ascending order may skip them.
func (c *ColumnCursor) After() uint64 { return c.after }

// Seek returns the other ids of the pairs whose key (the subject when the
// cursor reads by subject, the object otherwise) is k, in ascending
// order. The slice is valid until the next Seek and must not be changed.
func (c *ColumnCursor) Seek(k uint64) []uint32 {
	if k >= 1<<32 {
		return nil
	}
	a := uint32(k)
	back := a < c.last
	c.last = a
	blo, bhi := runOf(c.base.a, &c.bpos, a, back)
	alo, ahi := 0, 0
	if c.add.len() > 0 {
		alo, ahi = runOf(c.add.a, &c.apos, a, back)
	}
	dlo, dhi := 0, 0
	if c.del.len() > 0 {
		dlo, dhi = runOf(c.del.a, &c.dpos, a, back)
	}
	c.after = math.MaxUint64
	if bhi < len(c.base.a) {
		c.after = uint64(c.base.a[bhi])
	}
	if ahi < len(c.add.a) {
		c.after = min(c.after, uint64(c.add.a[ahi]))
	}
	if alo == ahi && dlo == dhi {
		return c.base.b[blo:bhi:bhi]
	}
	// (base \ del) ∪ add, in order: del ⊆ base, add ∩ base = ∅.
	out := c.buf[:0]
	i, j, d := blo, alo, dlo
	for i < bhi || j < ahi {
		if i < bhi && (j == ahi || c.base.b[i] < c.add.b[j]) {
			b := c.base.b[i]
			i++
			for d < dhi && c.del.b[d] < b {
				d++
			}
			if d < dhi && c.del.b[d] == b {
				d++
				continue
			}
			out = append(out, b)
			continue
		}
		out = append(out, c.add.b[j])
		j++
	}
	c.buf = out
	return out
}
