package quadstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
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
// The columns are built from a snapshot on a goroutine after Open and
// after commits (columnBuilder): at most one build runs, a build starts
// once commits have paused (columnsQuiet) and builds take at most about a
// quarter of the time (columnsDuty). They answer only the reads of views
// at exactly the commit they were built from (so a query sees one
// consistent state); views of a newer commit read Badger until the next
// build. A store whose ids do not fit 32 bits, or with more than
// Options.ColumnsMaxTriples triples, builds none. Memory: 16 bytes per
// triple (two permutations of two uint32 columns), see Columns.Bytes.
type Columns struct {
	ts    uint64
	preds map[uint64]*predColumns
	n     int
}

// predColumns are the triples of one predicate.
type predColumns struct {
	// pso: subjects ascending, then objects; pos: objects ascending,
	// then subjects.
	psoS, psoO []uint32
	posO, posS []uint32
	distinctS  int
	distinctO  int
}

// Bytes is the memory the columns hold.
func (c *Columns) Bytes() int64 { return int64(c.n) * 16 }

// Triples is the number of triples in the columns.
func (c *Columns) Triples() int { return c.n }

// TS is the commit the columns were built from.
func (c *Columns) TS() uint64 { return c.ts }

const (
	// columnsQuiet is how long commits must pause before a build starts.
	columnsQuiet = 200 * time.Millisecond
	// columnsDuty: after a build that took d, the next starts no sooner
	// than columnsDuty*d later.
	columnsDuty = 3
)

// columnBuilder runs builds when kicked; stop ends it.
type columnBuilder struct {
	kick     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
}

// startColumns starts the column builder (Options.ColumnsMaxTriples >= 0).
func (s *Store) startColumns() {
	if s.opt.ColumnsMaxTriples < 0 {
		return
	}
	b := &columnBuilder{kick: make(chan struct{}, 1), stop: make(chan struct{})}
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
			// Wait for commits to pause.
			for quiet := false; !quiet; {
				select {
				case <-b.stop:
					return
				case <-b.kick:
				case <-time.After(columnsQuiet):
					quiet = true
				}
			}
			start := time.Now()
			c, err := s.buildColumns(s.bgCtx)
			if err == nil && c != nil {
				s.cols.Store(c)
			} else if err == nil {
				s.cols.Store(nil)
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

// kickColumns asks for a build of the columns after a commit.
func (s *Store) kickColumns() {
	if s.colb != nil {
		s.colb.kickNow()
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

// buildColumns builds the columns of the last commit: one scan of the
// POSG index. It returns nil (no error) when the store is too large for
// them.
func (s *Store) buildColumns(ctx context.Context) (*Columns, error) {
	ts := s.pin()
	defer s.unpin(ts)
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
	var cur *predColumns
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
			cur = &predColumns{}
			curP = q[1]
			c.preds[curP] = cur
		}
		cur.posO = append(cur.posO, uint32(q[2]))
		cur.posS = append(cur.posS, uint32(q[0]))
		c.n++
	}
	for _, pc := range c.preds {
		pc.posO = slices.Clip(pc.posO)
		pc.posS = slices.Clip(pc.posS)
		pc.distinctO = distinctRuns(pc.posO)
		perm := make([]int32, len(pc.posS))
		for i := range perm {
			perm[i] = int32(i)
		}
		sort.Slice(perm, func(a, b int) bool {
			x, y := perm[a], perm[b]
			if pc.posS[x] != pc.posS[y] {
				return pc.posS[x] < pc.posS[y]
			}
			return pc.posO[x] < pc.posO[y]
		})
		pc.psoS = make([]uint32, len(perm))
		pc.psoO = make([]uint32, len(perm))
		for i, j := range perm {
			pc.psoS[i], pc.psoO[i] = pc.posS[j], pc.posO[j]
		}
		pc.distinctS = distinctRuns(pc.psoS)
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
	if s.opt.ColumnsMaxTriples < 0 {
		return nil
	}
	c, err := s.buildColumns(ctx)
	if err != nil {
		return fmt.Errorf("build columns: %w", err)
	}
	s.cols.Store(c)
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

// scanColumns calls fn for the triples of c matching bound (predicate
// bound, label not), in the order of the permutation read: PSO when the
// subject is bound or neither is, POS when the object is.
func (c *Columns) scan(ctx context.Context, bound ids, mask [4]bool, fn func(q ids) error) error {
	pc := c.preds[bound[1]]
	if pc == nil {
		return nil
	}
	if mask[0] && bound[0] >= 1<<32 || mask[2] && bound[2] >= 1<<32 {
		return nil
	}
	var first, second []uint32
	lo, hi := 0, len(pc.psoS)
	sFirst := true
	switch {
	case mask[0]:
		first, second = pc.psoS, pc.psoO
		lo, hi = span(first, uint32(bound[0]))
		if mask[2] {
			sub := second[lo:hi]
			i := sort.Search(len(sub), func(i int) bool { return sub[i] >= uint32(bound[2]) })
			if i == len(sub) || sub[i] != uint32(bound[2]) {
				return nil
			}
			lo, hi = lo+i, lo+i+1
		}
	case mask[2]:
		first, second = pc.posO, pc.posS
		lo, hi = span(first, uint32(bound[2]))
		sFirst = false
	default:
		first, second = pc.psoS, pc.psoO
	}
	q := ids{0, bound[1], 0, 0}
	for i := lo; i < hi; i++ {
		if (i-lo)&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if sFirst {
			q[0], q[2] = uint64(first[i]), uint64(second[i])
		} else {
			q[0], q[2] = uint64(second[i]), uint64(first[i])
		}
		if err := fn(q); err != nil {
			return err
		}
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
	switch {
	case mask[0] && mask[2]:
		n := int64(0)
		_ = c.scan(context.Background(), bound, mask, func(ids) error { n++; return nil })
		return n
	case mask[0]:
		if bound[0] >= 1<<32 {
			return 0
		}
		lo, hi := span(pc.psoS, uint32(bound[0]))
		return int64(hi - lo)
	case mask[2]:
		if bound[2] >= 1<<32 {
			return 0
		}
		lo, hi := span(pc.posO, uint32(bound[2]))
		return int64(hi - lo)
	}
	return int64(len(pc.psoS))
}

// PredicateStats are the statistics of one predicate's triples.
type PredicateStats struct {
	Triples, DistinctSubjects, DistinctObjects int64
}

// HasColumns reports whether the view reads columns (see Columns).
func (v *View) HasColumns() bool { return v.cols != nil }

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
