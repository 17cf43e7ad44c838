package quadstore

import (
	"context"
	"errors"
	"math"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// The per-commit maintenance of the columns (see Columns): each
// predicate's base plus an overlay of added and deleted triples, the
// application of one commit's changes, the merged read, and the fold of a
// grown overlay into a new base.

// pairs is a sorted set of (a, b) id pairs as two columns, ordered by a,
// then b.
type pairs struct{ a, b []uint32 }

func (p pairs) len() int { return len(p.a) }

func cmpPair(a1, b1, a2, b2 uint32) int {
	switch {
	case a1 < a2:
		return -1
	case a1 > a2:
		return 1
	case b1 < b2:
		return -1
	case b1 > b2:
		return 1
	}
	return 0
}

// find returns the first index whose pair is >= (a, b).
func (p pairs) find(a, b uint32) int {
	lo, hi := 0, len(p.a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmpPair(p.a[m], p.b[m], a, b) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (p pairs) has(a, b uint32) bool {
	i := p.find(a, b)
	return i < len(p.a) && p.a[i] == a && p.b[i] == b
}

// swapSorted returns the pairs (b, a), sorted.
func (p pairs) swapSorted() pairs {
	perm := make([]int32, len(p.a))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(x, y int32) int { return cmpPair(p.b[x], p.a[x], p.b[y], p.a[y]) })
	out := pairs{a: make([]uint32, len(perm)), b: make([]uint32, len(perm))}
	for i, j := range perm {
		out.a[i], out.b[i] = p.b[j], p.a[j]
	}
	return out
}

// union returns x ∪ y.
func union(x, y pairs) pairs {
	if y.len() == 0 {
		return x
	}
	if x.len() == 0 {
		return y
	}
	n := x.len() + y.len()
	out := pairs{a: make([]uint32, 0, n), b: make([]uint32, 0, n)}
	i, j := 0, 0
	for i < x.len() || j < y.len() {
		c := 0
		switch {
		case i == x.len():
			c = 1
		case j == y.len():
			c = -1
		default:
			c = cmpPair(x.a[i], x.b[i], y.a[j], y.b[j])
		}
		if c <= 0 {
			out.a, out.b = append(out.a, x.a[i]), append(out.b, x.b[i])
			i++
			if c == 0 {
				j++
			}
		} else {
			out.a, out.b = append(out.a, y.a[j]), append(out.b, y.b[j])
			j++
		}
	}
	return out
}

// minus returns x \ y.
func minus(x, y pairs) pairs {
	if y.len() == 0 || x.len() == 0 {
		return x
	}
	out := pairs{a: make([]uint32, 0, x.len()), b: make([]uint32, 0, x.len())}
	j := 0
	for i := 0; i < x.len(); i++ {
		for j < y.len() && cmpPair(y.a[j], y.b[j], x.a[i], x.b[i]) < 0 {
			j++
		}
		if j < y.len() && y.a[j] == x.a[i] && y.b[j] == x.b[i] {
			continue
		}
		out.a, out.b = append(out.a, x.a[i]), append(out.b, x.b[i])
	}
	if out.len() == 0 {
		return pairs{}
	}
	return out
}

// predBase is the immutable base of one predicate's columns: its
// (subject, object) pairs sorted both ways.
type predBase struct {
	so, os               pairs
	distinctS, distinctO int
}

// predColumns are the triples of one predicate at one commit: the base,
// minus the base triples in del, plus the triples in add (never in the
// base), each run sorted both ways (SO: subject first). Immutable: a
// commit that changes them makes a new one.
type predColumns struct {
	base         *predBase
	addSO, addOS pairs
	delSO, delOS pairs
	n            int // triples
}

func (pc *predColumns) overlay() int { return pc.addSO.len() + pc.delSO.len() }

// has reports whether the triple (s, o) is in pc.
func (pc *predColumns) has(s, o uint32) bool {
	if pc.addSO.has(s, o) {
		return true
	}
	return pc.base.so.has(s, o) && !pc.delSO.has(s, o)
}

// foldAt is the overlay size at which a predicate's overlay is folded into
// a new base: 4·sqrt(base), at least 1,024 and at most 65,536 pairs. A
// commit copies the overlays of the predicates it touches and a fold
// copies the base, so with k changes of a predicate per commit the cost
// per change is about foldAt/(2k) + base/foldAt; 4·sqrt(base) keeps both
// small for commits of one molecule (k = 1) to batches of hundreds.
func foldAt(base, least int) int {
	t := 4 * int(math.Sqrt(float64(base)))
	return min(max(t, least), 65536)
}

// foldMin is the least overlay folded (columnBuilder.foldMin, which tests
// lower).
const foldMin = 1024

func (pc *predColumns) needsFold(least int) bool {
	return pc.overlay() > 0 && pc.overlay() >= foldAt(pc.base.so.len(), least)
}

// needsFold reports whether a predicate's overlay is due for a fold.
func (c *Columns) needsFold(least int) bool {
	for _, pc := range c.preds {
		if pc.needsFold(least) {
			return true
		}
	}
	return false
}

// mergeRange calls emit for the pairs of (base \ del) ∪ add whose first
// id is v (all pairs when !bounded), in order. del ⊆ base and add ∩ base
// = ∅, so a walk of the three runs suffices.
func mergeRange(ctx context.Context, base, add, del pairs, v uint32, bounded bool, emit func(a, b uint32) error) error {
	blo, bhi := 0, base.len()
	alo, ahi := 0, add.len()
	dlo, dhi := 0, del.len()
	if bounded {
		blo, bhi = span(base.a, v)
		alo, ahi = span(add.a, v)
		dlo, dhi = span(del.a, v)
	}
	i, j, k := blo, alo, dlo
	for n := 0; i < bhi || j < ahi; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if i < bhi && (j == ahi || cmpPair(base.a[i], base.b[i], add.a[j], add.b[j]) < 0) {
			a, b := base.a[i], base.b[i]
			i++
			for k < dhi && cmpPair(del.a[k], del.b[k], a, b) < 0 {
				k++
			}
			if k < dhi && del.a[k] == a && del.b[k] == b {
				k++
				continue
			}
			if err := emit(a, b); err != nil {
				return err
			}
			continue
		}
		if err := emit(add.a[j], add.b[j]); err != nil {
			return err
		}
		j++
	}
	return nil
}

// colChanges are one commit's changes to the RDF merge of the named
// graphs, in ids: the triples that gained a quad in a named graph, and
// those that lost one and are in no named graph after the commit.
// Whether they change the columns depends on the columns before (a triple
// gaining its second graph does not), which apply reads.
type colChanges struct {
	ts, prev uint64 // the commit and the one before (set by publishTs)
	added    [][3]uint64
	gone     [][3]uint64
	// firstNew: ids from it on are new in the commit, so no triple using
	// one is in the columns before. quads and nextID are the store's
	// after the commit (for the size bound).
	firstNew, quads, nextID uint64
}

// predChange collects one predicate's changes while a commit is applied.
type predChange struct {
	addIns, addRem, delIns, delRem []uint64 // s<<32 | o
}

// apply returns the columns of the commit ch (whose previous commit is
// c's), sharing what it did not change; nil when the store outgrew the
// columns (more quads than maxQuads when > 0, or ids beyond 32 bits).
func (c *Columns) apply(ch *colChanges, maxQuads int64) *Columns {
	if ch.nextID > 1<<32 || maxQuads > 0 && ch.quads > uint64(maxQuads) {
		return nil
	}
	changes := map[uint64]*predChange{}
	get := func(p uint64) *predChange {
		pcg := changes[p]
		if pcg == nil {
			pcg = &predChange{}
			changes[p] = pcg
		}
		return pcg
	}
	for _, t := range ch.added {
		pc := c.preds[t[1]]
		s, o := uint32(t[0]), uint32(t[2])
		key := t[0]<<32 | t[2]
		old := pc != nil && t[0] < ch.firstNew && t[2] < ch.firstNew
		switch {
		case old && pc.addSO.has(s, o):
		case old && pc.delSO.has(s, o):
			get(t[1]).delRem = append(get(t[1]).delRem, key) // a deleted base triple is back
		case old && pc.base.so.has(s, o):
		default:
			get(t[1]).addIns = append(get(t[1]).addIns, key)
		}
	}
	for _, t := range ch.gone {
		pc := c.preds[t[1]]
		if pc == nil || t[0] >= ch.firstNew || t[2] >= ch.firstNew {
			continue
		}
		s, o := uint32(t[0]), uint32(t[2])
		key := t[0]<<32 | t[2]
		switch {
		case pc.addSO.has(s, o):
			get(t[1]).addRem = append(get(t[1]).addRem, key)
		case pc.base.so.has(s, o) && !pc.delSO.has(s, o):
			get(t[1]).delIns = append(get(t[1]).delIns, key)
		}
	}
	nc := &Columns{ts: ch.ts, n: c.n, over: c.over}
	if len(changes) == 0 {
		nc.preds = c.preds
		return nc
	}
	nc.preds = make(map[uint64]*predColumns, len(c.preds)+len(changes))
	for p, pc := range c.preds {
		nc.preds[p] = pc
	}
	for p, pcg := range changes {
		old := c.preds[p]
		if old == nil {
			old = &predColumns{base: &predBase{}}
		}
		npc := &predColumns{base: old.base}
		npc.addSO, npc.addOS = editRun(old.addSO, old.addOS, pcg.addIns, pcg.addRem)
		npc.delSO, npc.delOS = editRun(old.delSO, old.delOS, pcg.delIns, pcg.delRem)
		npc.n = npc.base.so.len() - npc.delSO.len() + npc.addSO.len()
		nc.n += npc.n - old.n
		nc.over += npc.overlay() - old.overlay()
		if npc.n == 0 && npc.base.so.len() == 0 {
			delete(nc.preds, p)
			continue
		}
		nc.preds[p] = npc
	}
	return nc
}

// editRun returns the run (so, os) with the pairs ins (s<<32|o, not in
// it) added and rem (in it) removed.
func editRun(so, os pairs, ins, rem []uint64) (pairs, pairs) {
	if len(ins)+len(rem) == 0 {
		return so, os
	}
	mk := func(keys []uint64) (pairs, pairs) {
		slices.Sort(keys)
		keys = slices.Compact(keys)
		x := pairs{a: make([]uint32, len(keys)), b: make([]uint32, len(keys))}
		for i, k := range keys {
			x.a[i], x.b[i] = uint32(k>>32), uint32(k)
		}
		return x, x.swapSorted()
	}
	if len(ins) > 0 {
		xso, xos := mk(ins)
		so, os = union(so, xso), union(os, xos)
	}
	if len(rem) > 0 {
		xso, xos := mk(rem)
		so, os = minus(so, xso), minus(os, xos)
	}
	return so, os
}

// fold returns pc's triples as a new base with an empty overlay.
func (pc *predColumns) fold() *predColumns {
	b := &predBase{
		so: union(minus(pc.base.so, pc.delSO), pc.addSO),
		os: union(minus(pc.base.os, pc.delOS), pc.addOS),
	}
	b.distinctS = distinctRuns(b.so.a)
	b.distinctO = distinctRuns(b.os.a)
	return &predColumns{base: b, n: b.so.len()}
}

// rebase returns the triples of cur (a later state of from, on the same
// base) on folded, the fold of from: the overlay becomes the changes from
// from to cur. With base B, from = (B \ dF) ∪ aF and cur = (B \ dT) ∪ aT:
// added' = (aT \ aF) ∪ (dF \ dT), deleted' = (dT \ dF) ∪ (aF \ aT).
func rebase(folded, from, cur *predColumns) *predColumns {
	out := &predColumns{base: folded.base}
	out.addSO = union(minus(cur.addSO, from.addSO), minus(from.delSO, cur.delSO))
	out.addOS = union(minus(cur.addOS, from.addOS), minus(from.delOS, cur.delOS))
	out.delSO = union(minus(cur.delSO, from.delSO), minus(from.addSO, cur.addSO))
	out.delOS = union(minus(cur.delOS, from.delOS), minus(from.addOS, cur.addOS))
	out.n = out.base.so.len() - out.delSO.len() + out.addSO.len()
	return out
}

// foldColumns folds the grown overlays of c (the current columns) into
// new bases, then installs them on the columns current by then (which
// commits may have moved on: rebase). The folds run without a lock; only
// the installation holds the builder's mutex.
func (s *Store) foldColumns(ctx context.Context, c *Columns) {
	least := int(s.colb.foldMin.Load())
	folded := map[uint64]*predColumns{}
	for p, pc := range c.preds {
		if pc.needsFold(least) {
			folded[p] = pc.fold()
			if ctx.Err() != nil {
				return
			}
		}
	}
	if len(folded) == 0 {
		return
	}
	b := s.colb
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := s.cols.Load()
	if cur == nil || cur.ts != b.last {
		return // not current: a whole build follows
	}
	nc := &Columns{ts: cur.ts, n: cur.n, over: cur.over, preds: make(map[uint64]*predColumns, len(cur.preds))}
	for p, pc := range cur.preds {
		nc.preds[p] = pc
	}
	for p, f := range folded {
		from, now := c.preds[p], cur.preds[p]
		if now == nil || now.base != from.base {
			continue
		}
		if now != from {
			f = rebase(f, from, now)
		}
		nc.preds[p] = f
		nc.over += f.overlay() - now.overlay()
	}
	s.cols.Store(nc)
}

// noColChanges are the changes of a commit that writes no quad.
func noColChanges(uint64) *colChanges { return &colChanges{} }

// colChanges returns the commit's changes for the columns once its
// entries are in Badger at ts: a deleted triple is gone when no named
// graph holds it at ts (nil, columns rebuilt, when that cannot be read).
func (b *builder) colChanges(ts uint64) *colChanges {
	ch := &colChanges{added: b.colAdded, firstNew: b.firstNew, quads: b.st.quads, nextID: b.st.nextID}
	if len(b.colDeleted) == 0 {
		return ch
	}
	s := b.w.s
	added := make(map[[3]uint64]bool, len(b.colAdded))
	for _, t := range b.colAdded {
		added[t] = true
	}
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	errFound := errors.New("found")
	for _, t := range b.colDeleted {
		if added[t] {
			continue
		}
		added[t] = true // once
		bound := ids{t[0], t[1], t[2]}
		mask := [4]bool{true, true, true}
		sp, err := s.plan(txn, bound, mask)
		if err != nil {
			return nil
		}
		// An iterator bounded by the triple's prefix: Badger skips
		// deleted keys inside Seek, so an unbounded iterator after a
		// commit that deleted many triples would walk all their
		// tombstones on every lookup (quadratic; TestLargeCommit).
		it := txn.NewIterator(badger.IteratorOptions{Prefix: sp.prefix})
		err = scanIter(context.Background(), it, &sp, func(q ids) error {
			if q[3] != 0 {
				return errFound
			}
			return nil
		})
		it.Close()
		switch {
		case err == nil:
			ch.gone = append(ch.gone, t)
		case err != errFound:
			return nil
		}
	}
	return ch
}
