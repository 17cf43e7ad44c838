package quadstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// Snapshot is a read-only view of the store at one commit. It implements
// Cayley's graph.QuadStore; every iterator built from it reads the same
// commit, so a whole Cayley query sees one consistent state. Close it when
// done (it keeps Badger from discarding the versions it reads).
type Snapshot struct {
	s    *Store
	ts   uint64
	live bool // the Store's own view: each operation reads the latest commit
	done atomic.Bool
}

// Snapshot returns a read-only view of the last committed state.
func (s *Store) Snapshot() *Snapshot {
	return &Snapshot{s: s, ts: s.pin()}
}

// View calls fn with a snapshot of the last committed state and closes the
// snapshot when fn returns.
func (s *Store) View(ctx context.Context, fn func(snap *Snapshot) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	snap := s.Snapshot()
	defer snap.Close()
	return fn(snap)
}

// Close releases the snapshot. It always returns nil.
func (v *Snapshot) Close() error {
	if !v.live && !v.done.Swap(true) {
		v.s.unpin(v.ts)
	}
	return nil
}

// acquire returns the timestamp to read and a function to call when done.
func (v *Snapshot) acquire() (uint64, func()) {
	if !v.live {
		return v.ts, func() {}
	}
	ts := v.s.pin()
	return ts, func() { v.s.unpin(ts) }
}

func (v *Snapshot) txn(ts uint64) *badger.Txn { return v.s.db.NewTransactionAt(ts, false) }

// lookupID returns the id of the term with encoding enc at ts.
func (s *Store) lookupID(txn *badger.Txn, ts uint64, enc []byte) (uint64, bool, error) {
	if id, ok := s.terms.get(enc, ts); ok {
		return id, true, nil
	}
	key := termKey(enc)
	if s.absent(key, ts) {
		return 0, false, nil
	}
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, false, nil
	} else if err != nil {
		return 0, false, err
	}
	var id uint64
	err = item.Value(func(b []byte) error {
		if len(b) != 8 {
			return fmt.Errorf("%w: term id", ErrCorrupt)
		}
		id = binary.BigEndian.Uint64(b)
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	if item.Version() <= s.readTs.Load() {
		s.terms.put(enc, id, item.Version())
	}
	return id, true, nil
}

// name returns the term of node id.
func (s *Store) name(txn *badger.Txn, id uint64) (quad.Value, error) {
	if id == 0 {
		return nil, nil
	}
	if v, ok := s.names.get(id); ok {
		return v, nil
	}
	item, err := txn.Get(nodeKey(id))
	if err != nil {
		return nil, fmt.Errorf("node %d: %w", id, err)
	}
	var v quad.Value
	err = item.Value(func(b []byte) error {
		var err error
		v, err = nodeTerm(b)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("node %d: %w", id, err)
	}
	s.names.put(id, v)
	return v, nil
}

// counts returns how many quads use node id in each direction.
func (s *Store) counts(txn *badger.Txn, id uint64) ([4]uint64, bool, error) {
	item, err := txn.Get(nodeKey(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return [4]uint64{}, false, nil
	} else if err != nil {
		return [4]uint64{}, false, err
	}
	var c [4]uint64
	err = item.Value(func(b []byte) error {
		var err error
		c, _, err = decodeNode(b)
		return err
	})
	return c, err == nil, err
}

func (s *Store) quadOf(txn *badger.Txn, q ids) (quad.Quad, error) {
	var out quad.Quad
	for d, id := range q {
		v, err := s.name(txn, id)
		if err != nil {
			return quad.Quad{}, err
		}
		out.Set(quad.Direction(d+1), v)
	}
	return out, nil
}

// Pattern selects quads; a nil term matches anything (a nil Label matches
// every graph, the default graph included).
type Pattern struct {
	Subject, Predicate, Object, Label quad.Value
}

func (p Pattern) terms() [4]quad.Value {
	return [4]quad.Value{p.Subject, p.Predicate, p.Object, p.Label}
}

// scanSpec is a prefix scan of one index plus equality filters on the
// bound positions the prefix does not cover.
type scanSpec struct {
	ix     index
	n      int // bound dimensions in the prefix
	bound  ids // bound ids
	mask   [4]bool
	prefix []byte
}

func (sp *scanSpec) match(q ids) bool {
	for d, b := range sp.mask {
		if b && q[d] != sp.bound[d] {
			return false
		}
	}
	return true
}

// plan picks the index whose key starts with the most bound positions; on
// a tie of one-position prefixes, the position used by the fewest quads.
func (s *Store) plan(txn *badger.Txn, bound ids, mask [4]bool) (scanSpec, error) {
	best, bestN := 0, -1
	var bestCount uint64
	for i, ix := range indexes {
		n := ix.prefixLen(mask)
		switch {
		case n > bestN:
			best, bestN = i, n
			bestCount = math.MaxUint64
			if n == 1 {
				c, _, err := s.counts(txn, bound[ix.dims[0]])
				if err != nil {
					return scanSpec{}, err
				}
				bestCount = c[ix.dims[0]]
			}
		case n == bestN && n == 1:
			c, _, err := s.counts(txn, bound[ix.dims[0]])
			if err != nil {
				return scanSpec{}, err
			}
			if c[ix.dims[0]] < bestCount {
				best, bestCount = i, c[ix.dims[0]]
			}
		}
	}
	ix := indexes[best]
	return scanSpec{ix: ix, n: bestN, bound: bound, mask: mask, prefix: ix.prefixKey(bound, bestN)}, nil
}

// resolve turns the bound terms of p into ids; ok is false when a bound
// term is not stored, so that nothing can match.
func (s *Store) resolve(txn *badger.Txn, ts uint64, terms [4]quad.Value) (bound ids, mask [4]bool, ok bool, err error) {
	var buf []byte
	for d, v := range terms {
		if v == nil {
			continue
		}
		buf, err = AppendTerm(buf[:0], v)
		if err != nil {
			return bound, mask, false, err
		}
		id, found, err := s.lookupID(txn, ts, buf)
		if err != nil || !found {
			return bound, mask, false, err
		}
		bound[d], mask[d] = id, true
	}
	return bound, mask, true, nil
}

// scan runs sp over txn, calling fn for every matching quad.
func scan(ctx context.Context, txn *badger.Txn, sp *scanSpec, fn func(q ids) error) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: sp.prefix})
	defer it.Close()
	return scanIter(ctx, it, sp, fn)
}

// scanIter runs sp with the iterator it (re-seeked to sp's prefix),
// calling fn for every matching quad.
func scanIter(ctx context.Context, it *badger.Iterator, sp *scanSpec, fn func(q ids) error) error {
	n := 0
	for it.Seek(sp.prefix); it.ValidForPrefix(sp.prefix); it.Next() {
		if n++; n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := sp.ix.each(it.Item(), sp, fn); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Match calls fn for every quad matching p, all read from one snapshot,
// until fn returns an error, which Match returns. The scan uses the index
// that covers most bound terms as a key prefix.
func (s *Store) Match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	ts := s.pin()
	defer s.unpin(ts)
	return s.match(ctx, ts, p, fn)
}

// Match is Store.Match on the snapshot.
func (v *Snapshot) Match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	if v.s.closed.Load() {
		return ErrClosed
	}
	ts, release := v.acquire()
	defer release()
	return v.s.match(ctx, ts, p, fn)
}

func (s *Store) match(ctx context.Context, ts uint64, p Pattern, fn func(quad.Quad) error) error {
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	bound, mask, ok, err := s.resolve(txn, ts, p.terms())
	if err != nil {
		return fmt.Errorf("match: %w", err)
	}
	if !ok {
		return nil
	}
	sp, err := s.plan(txn, bound, mask)
	if err != nil {
		return fmt.Errorf("match: %w", err)
	}
	return scan(ctx, txn, &sp, func(q ids) error {
		out, err := s.quadOf(txn, q)
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		return fn(out)
	})
}

// Count returns the exact number of quads matching p: from the node
// records when at most one term is bound, by a scan otherwise.
func (s *Store) Count(ctx context.Context, p Pattern) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	ts := s.pin()
	defer s.unpin(ts)
	v := s.viewAt(ts)
	defer v.Close()
	return v.Count(ctx, p)
}

// Range is an interval of numbers. Use math.Inf for an open end.
type Range struct {
	Min, Max                   float64
	MinExclusive, MaxExclusive bool
}

func (r Range) contains(n numeric) bool {
	c := n.cmpBound(r.Min)
	if c < 0 || (c == 0 && r.MinExclusive) {
		return false
	}
	c = n.cmpBound(r.Max)
	return c < 0 || (c == 0 && !r.MaxExclusive)
}

// NumericRange calls fn, in ascending numeric order, for every quad with
// the given predicate whose object is a numeric literal (xsd:double, float,
// decimal, integer and its derived types; NaN excluded) with a value in r,
// compared exactly. It is a range scan of the numeric index, read from one
// snapshot.
func (s *Store) NumericRange(ctx context.Context, predicate quad.Value, r Range, fn func(quad.Quad) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	ts := s.pin()
	defer s.unpin(ts)
	return s.numericRange(ctx, ts, predicate, r, fn)
}

// NumericRange is Store.NumericRange on the snapshot.
func (v *Snapshot) NumericRange(ctx context.Context, predicate quad.Value, r Range, fn func(quad.Quad) error) error {
	ts, release := v.acquire()
	defer release()
	return v.s.numericRange(ctx, ts, predicate, r, fn)
}

func (s *Store) numericRange(ctx context.Context, ts uint64, predicate quad.Value, r Range, fn func(quad.Quad) error) error {
	v := s.viewAt(ts)
	defer v.Close()
	return v.NumericRange(ctx, predicate, r, MatchOptions{}, fn)
}

// Counts returns the number of quads and of nodes (terms used by at least
// one quad) in the last commit; both are exact.
func (s *Store) Counts() (quads, nodes int64, err error) {
	if s.closed.Load() {
		return 0, 0, ErrClosed
	}
	st, err := s.readState(s.readTs.Load())
	return int64(st.quads), int64(st.nodes), err
}

// Graphs calls fn with the name of every named graph (label) that holds a
// quad, in id order, each once, from one snapshot: one index seek per
// graph.
func (s *Store) Graphs(ctx context.Context, fn func(name quad.Value) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	ts := s.pin()
	defer s.unpin(ts)
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	prefix := []byte{indexes[3].prefix}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	// The default graph (id 0) has no name: start at id 1.
	for it.Seek(appendID([]byte{indexes[3].prefix}, 1)); it.ValidForPrefix(prefix); {
		if err := ctx.Err(); err != nil {
			return err
		}
		g, _, ok := readID(it.Item().Key()[1:])
		if !ok {
			return fmt.Errorf("graphs: %w: key", ErrCorrupt)
		}
		name, err := s.name(txn, g)
		if err != nil {
			return fmt.Errorf("graphs: %w", err)
		}
		if err := fn(name); err != nil {
			return err
		}
		if g == math.MaxUint64 {
			break
		}
		it.Seek(appendID([]byte{indexes[3].prefix}, g+1))
	}
	return nil
}
