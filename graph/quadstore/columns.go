package quadstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// Columns is an in-memory columnar copy of the triples of one commit (the
// RDF merge of the named graphs: each (s, p, o) once, the default graph
// left out), for the reads that scan: per predicate, the (subject, object)
// id pairs sorted by subject (PSO) and by object (POS), as uint32 columns.
//
// Why: a Badger prefix scan costs about 0.5 µs per quad (the merge
// iterator over memtables and levels, key parsing), so a query reading a
// million triples spends half a second iterating before it does any work;
// a sorted id column is read at memory speed and can be binary-searched.
// Badger stays the durable store and the source of every other read.
//
// Each predicate's triples are a base (sorted columns, immutable) and an
// overlay of the changes since the base: the triples added (not in the
// base) and the base triples deleted, each a small sorted run in both
// orders (columns_delta.go). A commit makes new Columns from the previous
// ones and its changes (the triples it added and removed, which the write
// path has in id form): only the predicates it touched get a new overlay,
// the others are shared. A read merges the base's range with the added
// run's and skips the deleted run's, so a view at commit T reads exactly
// T's triples. When a predicate's overlay grows past foldAt of its base,
// the builder goroutine folds it into a new base in the background and
// installs it (rebased on the commits made meanwhile) without stopping
// the writer.
//
// The columns are built whole from a snapshot only at Open, or after a
// commit that could not be applied (a rollback, an id beyond 32 bits);
// commits made during such a build are logged and applied to it before
// it is installed (columnBuilder). Views read the columns of exactly their
// commit; a view of a commit whose columns are not installed yet (the
// short time between a commit's marker and its columns, or while a whole
// build runs) reads Badger. A store whose ids do not fit 32 bits, or with
// more than Options.ColumnsMaxTriples quads, keeps none. Memory: 16 bytes
// per triple of the bases and per pair of the overlays (two orders of two
// uint32 columns), see Columns.Bytes; a fold holds the new base of one
// predicate besides the old one until it is installed.
type Columns struct {
	ts    uint64
	preds map[uint64]*predColumns
	n     int // triples
	over  int // pairs in the overlays (added + deleted)
}

// Bytes is the memory the columns hold.
func (c *Columns) Bytes() int64 { return int64(c.n+2*c.over) * 16 }

// Triples is the number of triples in the columns.
func (c *Columns) Triples() int { return c.n }

// TS is the commit the columns were built from.
func (c *Columns) TS() uint64 { return c.ts }

// PredicateStats are the statistics of one predicate's triples.
// DistinctSubjects and DistinctObjects are exact after a fold and upper
// bounds between folds (the base's distinct values plus those of the
// added triples).
type PredicateStats struct {
	Triples, DistinctSubjects, DistinctObjects int64
}

// Stats returns the statistics of predicate p (zero when it has no
// triples).
func (c *Columns) Stats(p uint64) PredicateStats {
	pc := c.preds[p]
	if pc == nil {
		return PredicateStats{}
	}
	n := int64(pc.n)
	return PredicateStats{
		Triples:          n,
		DistinctSubjects: min(n, int64(pc.base.distinctS+distinctRuns(pc.addSO.a))),
		DistinctObjects:  min(n, int64(pc.base.distinctO+distinctRuns(pc.addOS.a))),
	}
}

const (
	// columnsDuty: after a whole build that took d, the next starts no
	// sooner than columnsDuty*d later (commits are logged meanwhile).
	columnsDuty = 3
	// columnsLogMax bounds the changes logged while a whole build runs;
	// past it the log is dropped and the build is done again.
	columnsLogMax = 1 << 22
)

// columnBuilder runs whole builds and folds when kicked; stop ends it.
type columnBuilder struct {
	kick     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup

	// mu orders the installation of columns: commits (columnsCommitted),
	// whole builds and folds. Under it: last is the commit the last
	// columnsCommitted was for; while logging (a whole build runs), the
	// changes of the commits since are kept in log (nil entries: a
	// commit that cannot be applied), logged counts their triples.
	mu      sync.Mutex
	last    uint64
	logging bool
	log     []*colChanges
	logged  int
	broken  bool

	// foldMin is the least overlay folded (foldMin; tests lower it).
	foldMin atomic.Int64
}

// startColumns starts the column builder (Options.ColumnsMaxTriples >= 0).
func (s *Store) startColumns() {
	if s.opt.ColumnsMaxTriples < 0 {
		return
	}
	b := &columnBuilder{kick: make(chan struct{}, 1), stop: make(chan struct{}), last: s.readTs.Load()}
	b.foldMin.Store(foldMin)
	s.colb = b
	b.done.Add(1)
	go func() {
		defer b.done.Done()
		for {
			select {
			case <-b.stop:
				return
			case <-b.kick:
			}
			b.mu.Lock()
			c := s.cols.Load()
			current := c != nil && c.ts == b.last
			b.mu.Unlock()
			if current {
				s.foldColumns(s.bgCtx, c)
				continue
			}
			start := time.Now()
			built := s.wholeBuild(s.bgCtx)
			if !built {
				continue
			}
			select {
			case <-b.stop:
				return
			case <-time.After(columnsDuty * time.Since(start)):
			}
		}
	}()
	b.kickNow()
}

func (b *columnBuilder) kickNow() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// stopColumns stops the builder and waits for it. colb stays set: a
// commit finishing meanwhile may still kick it (a buffered send).
func (s *Store) stopColumns() {
	if b := s.colb; b != nil {
		b.stopOnce.Do(func() { close(b.stop) })
		b.done.Wait()
	}
}

// wholeBuild builds the columns from a snapshot, applies the commits
// logged meanwhile and installs them; it reports whether it scanned (so
// that the caller paces the next build).
func (s *Store) wholeBuild(ctx context.Context) bool {
	b := s.colb
	// Logging starts at the commit pinned (publishTs stores readTs under
	// b.mu), so the log holds every later commit.
	b.mu.Lock()
	b.logging, b.log, b.logged, b.broken = true, nil, 0, false
	ts := s.pin()
	b.mu.Unlock()
	c, err := s.buildColumnsAt(ctx, ts)
	s.unpin(ts)
	b.mu.Lock()
	defer b.mu.Unlock()
	log, broken := b.log, b.broken
	b.logging, b.log, b.logged, b.broken = false, nil, 0, false
	if err != nil || c == nil {
		if err == nil {
			s.cols.Store(nil)
		}
		return c != nil
	}
	for _, ch := range log {
		if broken || c == nil {
			break
		}
		if ch == nil {
			broken = true
			break
		}
		if ch.ts <= c.ts {
			continue
		}
		if ch.prev != c.ts {
			broken = true
			break
		}
		c = c.apply(ch, s.opt.ColumnsMaxTriples)
	}
	switch {
	case broken:
		b.kickNow() // build again
	case c == nil || c.ts == b.last:
		s.cols.Store(c)
	default: // a commit that was not logged: cannot happen while logging
		b.kickNow()
	}
	return true
}

// publishTs makes a commit at ts visible to readers, after its entries
// are in Badger: first the columns follow it (its changes are ch; nil:
// unknown, the columns are built again), then readTs moves, so that a
// view of ts finds its columns.
func (s *Store) publishTs(ts uint64, ch *colChanges) {
	b := s.colb
	if b == nil {
		s.readTs.Store(ts)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	defer s.readTs.Store(ts)
	prev := b.last
	b.last = ts
	if ch != nil {
		ch.ts, ch.prev = ts, prev
	}
	c := s.cols.Load()
	if ch != nil && c != nil && c.ts == prev {
		nc := c.apply(ch, s.opt.ColumnsMaxTriples)
		s.cols.Store(nc)
		if nc == nil || nc.needsFold(int(b.foldMin.Load())) {
			b.kickNow()
		}
		return
	}
	if b.logging && !b.broken {
		if ch == nil || b.logged+len(ch.added)+len(ch.gone) > columnsLogMax {
			b.broken, b.log = true, nil
		} else {
			b.log = append(b.log, ch)
			b.logged += len(ch.added) + len(ch.gone)
		}
	}
	if ch == nil {
		s.cols.Store(nil)
	}
	b.kickNow()
}

// buildColumns builds the columns of the last commit: one scan of the
// POSG index. It returns nil (no error) when the store is too large for
// them.
func (s *Store) buildColumns(ctx context.Context) (*Columns, error) {
	ts := s.pin()
	defer s.unpin(ts)
	return s.buildColumnsAt(ctx, ts)
}

// buildColumnsAt builds the columns of the commit at ts, which the caller
// keeps pinned.
func (s *Store) buildColumnsAt(ctx context.Context, ts uint64) (*Columns, error) {
	st, err := s.readState(ts)
	if err != nil {
		return nil, err
	}
	if st.nextID > 1<<32 || s.opt.ColumnsMaxTriples > 0 && st.quads > uint64(s.opt.ColumnsMaxTriples) {
		return nil, nil
	}
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	c := &Columns{ts: ts, preds: map[uint64]*predColumns{}}
	ix := indexes[1] // POSG
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{ix.prefix}})
	defer it.Close()
	var cur *predBase
	var curP uint64
	var prev ids
	n := 0
	for it.Seek([]byte{ix.prefix}); it.ValidForPrefix([]byte{ix.prefix}); it.Next() {
		if n++; n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		q, ok := ix.decode(it.Item().Key())
		if !ok {
			return nil, fmt.Errorf("columns: %w: quad key", ErrCorrupt)
		}
		if q[3] == 0 || q[0] == prev[0] && q[1] == prev[1] && q[2] == prev[2] {
			continue // the default graph; a triple in several graphs
		}
		prev = q
		if cur == nil || q[1] != curP {
			cur = &predBase{}
			curP = q[1]
			c.preds[curP] = &predColumns{base: cur}
		}
		cur.os.a = append(cur.os.a, uint32(q[2]))
		cur.os.b = append(cur.os.b, uint32(q[0]))
		c.n++
	}
	for _, pc := range c.preds {
		bs := pc.base
		bs.os.a = slices.Clip(bs.os.a)
		bs.os.b = slices.Clip(bs.os.b)
		bs.so = bs.os.swapSorted()
		bs.distinctO = distinctRuns(bs.os.a)
		bs.distinctS = distinctRuns(bs.so.a)
		pc.n = bs.so.len()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// BuildColumns builds the columns of the last commit now (when
// Options.ColumnsMaxTriples allows them) and installs them.
func (s *Store) BuildColumns(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	b := s.colb
	if b == nil {
		return nil
	}
	c, err := s.buildColumns(ctx)
	if err != nil {
		return fmt.Errorf("build columns: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if c == nil || c.ts == b.last {
		s.cols.Store(c)
	}
	return nil
}

// distinctRuns counts the distinct values of a sorted column.
func distinctRuns(col []uint32) int {
	n := 0
	for i, v := range col {
		if i == 0 || v != col[i-1] {
			n++
		}
	}
	return n
}

// span returns the range [lo, hi) of col (sorted) equal to v.
func span(col []uint32, v uint32) (int, int) {
	lo := sort.Search(len(col), func(i int) bool { return col[i] >= v })
	hi := lo
	for hi < len(col) && col[hi] == v {
		hi++
	}
	return lo, hi
}

// scan calls fn for the triples of c matching bound (predicate bound,
// label not), in the order of the permutation read: PSO when the subject
// is bound or neither is, POS when the object is.
func (c *Columns) scan(ctx context.Context, bound ids, mask [4]bool, fn func(q ids) error) error {
	pc := c.preds[bound[1]]
	if pc == nil {
		return nil
	}
	if mask[0] && bound[0] >= 1<<32 || mask[2] && bound[2] >= 1<<32 {
		return nil
	}
	q := ids{0, bound[1], 0, 0}
	if mask[0] && mask[2] {
		if !pc.has(uint32(bound[0]), uint32(bound[2])) {
			return nil
		}
		q[0], q[2] = bound[0], bound[2]
		return fn(q)
	}
	sFirst := !mask[2]
	base, add, del := pc.base.so, pc.addSO, pc.delSO
	if !sFirst {
		base, add, del = pc.base.os, pc.addOS, pc.delOS
	}
	emit := func(a, b uint32) error {
		if sFirst {
			q[0], q[2] = uint64(a), uint64(b)
		} else {
			q[0], q[2] = uint64(b), uint64(a)
		}
		return fn(q)
	}
	var err error
	switch {
	case mask[0]:
		err = mergeRange(ctx, base, add, del, uint32(bound[0]), true, emit)
	case mask[2]:
		err = mergeRange(ctx, base, add, del, uint32(bound[2]), true, emit)
	default:
		err = mergeRange(ctx, base, add, del, 0, false, emit)
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// count returns the number of triples of c matching bound as scan reads
// them.
func (c *Columns) count(bound ids, mask [4]bool) int64 {
	pc := c.preds[bound[1]]
	if pc == nil {
		return 0
	}
	if mask[0] && bound[0] >= 1<<32 || mask[2] && bound[2] >= 1<<32 {
		return 0
	}
	spanLen := func(p pairs, v uint32) int {
		lo, hi := span(p.a, v)
		return hi - lo
	}
	switch {
	case mask[0] && mask[2]:
		if pc.has(uint32(bound[0]), uint32(bound[2])) {
			return 1
		}
		return 0
	case mask[0]:
		v := uint32(bound[0])
		return int64(spanLen(pc.base.so, v) - spanLen(pc.delSO, v) + spanLen(pc.addSO, v))
	case mask[2]:
		v := uint32(bound[2])
		return int64(spanLen(pc.base.os, v) - spanLen(pc.delOS, v) + spanLen(pc.addOS, v))
	}
	return int64(pc.n)
}

// ColumnPredicates returns the ids of the predicates that have triples in
// the view's columns, ascending (nil when the view reads none): a pattern
// with a variable predicate is the union of their columns.
func (v *View) ColumnPredicates() []uint64 {
	if v.cols == nil {
		return nil
	}
	out := make([]uint64, 0, len(v.cols.preds))
	for p, pc := range v.cols.preds {
		if pc.n > 0 {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// HasColumns reports whether the view reads columns (see Columns).
func (v *View) HasColumns() bool { return v.cols != nil }

// PredicateStats returns the statistics of the predicate with id p in the
// view's columns; ok is false when the view has none.
func (v *View) PredicateStats(p uint64) (st PredicateStats, ok bool) {
	if v.cols == nil {
		return PredicateStats{}, false
	}
	return v.cols.Stats(p), true
}

// MatchColumnIDs calls fn for each triple of the view's columns matching
// the ids bound (0: open; the predicate must be bound), with the terms of
// the open positions decoded but for those in skip (left nil, as are the
// bound positions), until fn returns an error, which it returns. handled
// is false when the view has no columns or the predicate is open: the
// caller reads another way.
func (v *View) MatchColumnIDs(ctx context.Context, bound [3]uint64, skip [3]bool, fn func(t [3]quad.Value, id [3]uint64) error) (handled bool, err error) {
	if v.cols == nil || bound[1] == 0 {
		return false, nil
	}
	if v.closed || v.s.closed.Load() {
		return true, ErrClosed
	}
	q := ids{bound[0], bound[1], bound[2]}
	mask := [4]bool{bound[0] != 0, true, bound[2] != 0}
	var t [3]quad.Value
	return true, v.cols.scan(ctx, q, mask, func(q ids) error {
		for d := 0; d < 3; d++ {
			if mask[d] || skip[d] {
				continue
			}
			n, err := v.name(q[d])
			if err != nil {
				return fmt.Errorf("match: %w", err)
			}
			t[d] = n
		}
		return fn(t, [3]uint64{q[0], q[1], q[2]})
	})
}
