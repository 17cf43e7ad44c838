package quadstore

import (
	"context"
	"errors"
	"fmt"
	"math"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/shape"
	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// This file implements Cayley's graph.QuadStore on Snapshot; Store
// delegates its read methods to a live snapshot that reads the latest commit
// at the start of each operation and each scan.

// nodeRef is the Cayley reference of a node: its id.
type nodeRef uint64

// Key implements graph.Ref.
func (n nodeRef) Key() interface{} { return n }

// quadRef is the Cayley reference of a quad: its node ids.
type quadRef ids

// Key implements graph.Ref.
func (q quadRef) Key() interface{} { return q }

var (
	_ cgraph.QuadStore      = (*Store)(nil)
	_ cgraph.QuadStore      = (*Snapshot)(nil)
	_ cgraph.BatchQuadStore = (*Snapshot)(nil)
	_ shape.Optimizer       = (*Snapshot)(nil)
)

func (s *Store) live() *Snapshot { return &Snapshot{s: s, live: true} }

// ValueOf implements graph.Namer: the reference of a stored term, or nil.
func (v *Snapshot) ValueOf(val quad.Value) cgraph.Ref {
	if val == nil {
		return nil
	}
	enc, err := EncodeTerm(val)
	if err != nil {
		return nil
	}
	ts, release := v.acquire()
	defer release()
	txn := v.txn(ts)
	defer txn.Discard()
	id, ok, err := v.s.lookupID(txn, ts, enc)
	if err != nil || !ok {
		return nil
	}
	return nodeRef(id)
}

// NameOf implements graph.Namer.
func (v *Snapshot) NameOf(r cgraph.Ref) quad.Value {
	switch r := r.(type) {
	case nodeRef:
		if val, ok := v.s.names.get(uint64(r)); ok {
			return val
		}
		ts, release := v.acquire()
		defer release()
		txn := v.txn(ts)
		defer txn.Discard()
		val, err := v.s.name(txn, uint64(r))
		if err != nil {
			return nil
		}
		return val
	case cgraph.PreFetchedValue:
		return r.NameOf()
	}
	return nil
}

// ValuesOf implements graph.BatchQuadStore.
func (v *Snapshot) ValuesOf(ctx context.Context, refs []cgraph.Ref) ([]quad.Value, error) {
	out := make([]quad.Value, len(refs))
	for i, r := range refs {
		out[i] = v.NameOf(r)
	}
	return out, nil
}

// RefsOf implements graph.BatchQuadStore; it fails if a term is not stored.
func (v *Snapshot) RefsOf(ctx context.Context, vals []quad.Value) ([]cgraph.Ref, error) {
	ts, release := v.acquire()
	defer release()
	txn := v.txn(ts)
	defer txn.Discard()
	out := make([]cgraph.Ref, len(vals))
	for i, val := range vals {
		enc, err := EncodeTerm(val)
		if err != nil {
			return nil, err
		}
		id, ok, err := v.s.lookupID(txn, ts, enc)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("not found: %v", val)
		}
		out[i] = nodeRef(id)
	}
	return out, nil
}

// Quad implements graph.QuadIndexer.
func (v *Snapshot) Quad(r cgraph.Ref) quad.Quad {
	q, ok := r.(quadRef)
	if !ok {
		return quad.Quad{}
	}
	ts, release := v.acquire()
	defer release()
	txn := v.txn(ts)
	defer txn.Discard()
	out, err := v.s.quadOf(txn, ids(q))
	if err != nil {
		return quad.Quad{}
	}
	return out
}

// QuadDirection implements graph.QuadIndexer without a store access.
func (v *Snapshot) QuadDirection(r cgraph.Ref, d quad.Direction) cgraph.Ref {
	q, ok := r.(quadRef)
	if !ok || d < quad.Subject || d > quad.Label || q[d-1] == 0 {
		return nil
	}
	return nodeRef(q[d-1])
}

// QuadIterator implements graph.QuadIndexer: a prefix scan of the index
// that starts with direction d.
func (v *Snapshot) QuadIterator(d quad.Direction, r cgraph.Ref) cgraph.Iterator {
	n, ok := r.(nodeRef)
	if !ok || d < quad.Subject || d > quad.Label {
		return iterator.NewNull()
	}
	var bound ids
	var mask [4]bool
	bound[d-1], mask[d-1] = uint64(n), true
	ix := indexes[firstIndex(int(d-1))]
	sp := scanSpec{ix: ix, n: 1, bound: bound, mask: mask, prefix: ix.prefixKey(bound, 1)}
	return cgraph.NewLegacy(&quadShape{v: v, sp: sp}, nil)
}

func firstIndex(d int) int {
	for i, ix := range indexes {
		if ix.dims[0] == d {
			return i
		}
	}
	return 0
}

// QuadIteratorSize implements graph.QuadIndexer, exactly, from the node
// record.
func (v *Snapshot) QuadIteratorSize(ctx context.Context, d quad.Direction, r cgraph.Ref) (cgraph.Size, error) {
	n, ok := r.(nodeRef)
	if !ok || d < quad.Subject || d > quad.Label {
		return cgraph.Size{Size: 0, Exact: true}, nil
	}
	ts, release := v.acquire()
	defer release()
	txn := v.txn(ts)
	defer txn.Discard()
	c, _, err := v.s.counts(txn, uint64(n))
	return cgraph.Size{Size: int64(c[d-1]), Exact: true}, err
}

// ApplyDeltas implements graph.QuadStore; a snapshot is read-only.
func (v *Snapshot) ApplyDeltas(in []cgraph.Delta, opts cgraph.IgnoreOpts) error {
	if v.live {
		return v.s.ApplyDeltas(in, opts)
	}
	return fmt.Errorf("apply deltas: %w", ErrReadOnly)
}

// NewQuadWriter implements graph.QuadStore; a snapshot is read-only.
func (v *Snapshot) NewQuadWriter() (quad.WriteCloser, error) {
	if v.live {
		return v.s.NewQuadWriter()
	}
	return nil, fmt.Errorf("new quad writer: %w", ErrReadOnly)
}

// NodesAllIterator implements graph.QuadStore.
func (v *Snapshot) NodesAllIterator() cgraph.Iterator {
	return cgraph.NewLegacy(&nodeShape{v: v}, nil)
}

// QuadsAllIterator implements graph.QuadStore: a scan of the SPOG index.
func (v *Snapshot) QuadsAllIterator() cgraph.Iterator {
	return cgraph.NewLegacy(&quadShape{v: v, all: true, sp: scanSpec{ix: indexes[0], prefix: []byte{indexes[0].prefix}}}, nil)
}

// Stats implements graph.QuadStore; the counts are always exact.
func (v *Snapshot) Stats(ctx context.Context, exact bool) (cgraph.Stats, error) {
	ts, release := v.acquire()
	defer release()
	st, err := v.s.readState(ts)
	if err != nil {
		return cgraph.Stats{}, err
	}
	return cgraph.Stats{
		Nodes: cgraph.Size{Size: int64(st.nodes), Exact: true},
		Quads: cgraph.Size{Size: int64(st.quads), Exact: true},
	}, nil
}

// OptimizeShape implements shape.Optimizer: a quad filter on two or more
// directions becomes one scan of the index with the longest bound prefix.
func (v *Snapshot) OptimizeShape(s shape.Shape) (shape.Shape, bool) {
	qa, ok := s.(shape.QuadsAction)
	if !ok || len(qa.Filter) < 2 {
		return s, false
	}
	var bound ids
	var mask [4]bool
	for d, r := range qa.Filter {
		n, ok := r.(nodeRef)
		if !ok || d < quad.Subject || d > quad.Label {
			return s, false
		}
		bound[d-1], mask[d-1] = uint64(n), true
	}
	ts, release := v.acquire()
	defer release()
	txn := v.txn(ts)
	defer txn.Discard()
	sp, err := v.s.plan(txn, bound, mask)
	if err != nil {
		return s, false
	}
	return qa.SimplifyFrom(indexScan{v: v, sp: sp}), true
}

// indexScan is the shape of a filtered index scan.
type indexScan struct {
	v  *Snapshot
	sp scanSpec
}

// BuildIterator implements shape.Shape.
func (s indexScan) BuildIterator(cgraph.QuadStore) cgraph.Iterator {
	return cgraph.NewLegacy(&quadShape{v: s.v, sp: s.sp}, nil)
}

// Optimize implements shape.Shape.
func (s indexScan) Optimize(shape.Optimizer) (shape.Shape, bool) { return s, false }

// Close implements graph.QuadStore: it releases a snapshot (see
// Snapshot.Close above; the live view has nothing to release).

// Store's graph.QuadStore read methods use the live view.

// ValueOf implements graph.Namer.
func (s *Store) ValueOf(v quad.Value) cgraph.Ref { return s.live().ValueOf(v) }

// NameOf implements graph.Namer.
func (s *Store) NameOf(r cgraph.Ref) quad.Value { return s.live().NameOf(r) }

// ValuesOf implements graph.BatchQuadStore.
func (s *Store) ValuesOf(ctx context.Context, r []cgraph.Ref) ([]quad.Value, error) {
	return s.live().ValuesOf(ctx, r)
}

// RefsOf implements graph.BatchQuadStore.
func (s *Store) RefsOf(ctx context.Context, v []quad.Value) ([]cgraph.Ref, error) {
	return s.live().RefsOf(ctx, v)
}

// Quad implements graph.QuadIndexer.
func (s *Store) Quad(r cgraph.Ref) quad.Quad { return s.live().Quad(r) }

// QuadDirection implements graph.QuadIndexer.
func (s *Store) QuadDirection(r cgraph.Ref, d quad.Direction) cgraph.Ref {
	return s.live().QuadDirection(r, d)
}

// QuadIterator implements graph.QuadIndexer.
func (s *Store) QuadIterator(d quad.Direction, r cgraph.Ref) cgraph.Iterator {
	return s.live().QuadIterator(d, r)
}

// QuadIteratorSize implements graph.QuadIndexer.
func (s *Store) QuadIteratorSize(ctx context.Context, d quad.Direction, r cgraph.Ref) (cgraph.Size, error) {
	return s.live().QuadIteratorSize(ctx, d, r)
}

// NodesAllIterator implements graph.QuadStore.
func (s *Store) NodesAllIterator() cgraph.Iterator { return s.live().NodesAllIterator() }

// QuadsAllIterator implements graph.QuadStore.
func (s *Store) QuadsAllIterator() cgraph.Iterator { return s.live().QuadsAllIterator() }

// Stats implements graph.QuadStore.
func (s *Store) Stats(ctx context.Context, exact bool) (cgraph.Stats, error) {
	if s.closed.Load() {
		return cgraph.Stats{}, ErrClosed
	}
	return s.live().Stats(ctx, exact)
}

// OptimizeShape implements shape.Optimizer.
func (s *Store) OptimizeShape(sh shape.Shape) (shape.Shape, bool) {
	return s.live().OptimizeShape(sh)
}

// quadShape is an iterator shape over quads: a prefix scan of one index
// with filters (Iterate), and a membership test (Lookup).
type quadShape struct {
	v   *Snapshot
	sp  scanSpec
	all bool // every quad: Contains checks that the quad is stored
}

func (it *quadShape) String() string {
	return fmt.Sprintf("QuadStoreScan(%c, %d bound)", it.sp.ix.prefix, it.sp.n)
}

func (it *quadShape) Iterate() cgraph.Scanner {
	return &scanner{v: it.v, prefix: it.sp.prefix, each: func(item *badger.Item, emit func(cgraph.Ref)) error {
		return it.sp.ix.each(item, &it.sp, func(q ids) error {
			emit(quadRef(q))
			return nil
		})
	}}
}

func (it *quadShape) Lookup() cgraph.Index { return &quadIndex{sh: it} }

func (it *quadShape) Stats(ctx context.Context) (cgraph.IteratorCosts, error) {
	size, err := it.size()
	return cgraph.IteratorCosts{NextCost: 1, ContainsCost: 1, Size: size}, err
}

// size is exact for the whole store and for one bound direction, an upper
// bound otherwise.
func (it *quadShape) size() (cgraph.Size, error) {
	ts, release := it.v.acquire()
	defer release()
	if it.all {
		st, err := it.v.s.readState(ts)
		return cgraph.Size{Size: int64(st.quads), Exact: true}, err
	}
	txn := it.v.txn(ts)
	defer txn.Discard()
	best := int64(math.MaxInt64)
	nb := 0
	for d, b := range it.sp.mask {
		if !b {
			continue
		}
		nb++
		c, _, err := it.v.s.counts(txn, it.sp.bound[d])
		if err != nil {
			return cgraph.Size{}, err
		}
		best = min(best, int64(c[d]))
	}
	return cgraph.Size{Size: best, Exact: nb == 1}, nil
}

func (it *quadShape) Optimize(ctx context.Context) (cgraph.IteratorShape, bool) { return it, false }
func (it *quadShape) SubIterators() []cgraph.IteratorShape                      { return nil }

type quadIndex struct {
	sh  *quadShape
	cur cgraph.Ref
	err error
}

func (it *quadIndex) Contains(ctx context.Context, r cgraph.Ref) bool {
	it.cur = nil
	q, ok := r.(quadRef)
	if !ok || !it.sh.sp.match(ids(q)) {
		return false
	}
	if it.sh.all {
		// One key lookup.
		ts, release := it.sh.v.acquire()
		defer release()
		txn := it.sh.v.txn(ts)
		defer txn.Discard()
		_, err := txn.Get(quadKeyIndex.key(nil, ids(q)))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return false
		} else if err != nil {
			it.err = err
			return false
		}
	}
	it.cur = q
	return true
}

func (it *quadIndex) Result() cgraph.Ref                   { return it.cur }
func (it *quadIndex) NextPath(ctx context.Context) bool    { return false }
func (it *quadIndex) Err() error                           { return it.err }
func (it *quadIndex) Close() error                         { return nil }
func (it *quadIndex) TagResults(dst map[string]cgraph.Ref) {}
func (it *quadIndex) String() string                       { return "QuadStoreContains" }

// nodeShape lists every node.
type nodeShape struct {
	v *Snapshot
}

func (it *nodeShape) String() string { return "QuadStoreNodes" }

func (it *nodeShape) Iterate() cgraph.Scanner {
	return &scanner{v: it.v, prefix: []byte{pNode}, each: func(item *badger.Item, emit func(cgraph.Ref)) error {
		if k := item.Key(); len(k) == 9 {
			emit(nodeRef(beUint64(k[1:])))
		}
		return nil
	}}
}

func (it *nodeShape) Lookup() cgraph.Index { return &nodeIndex{v: it.v} }

func (it *nodeShape) Stats(ctx context.Context) (cgraph.IteratorCosts, error) {
	ts, release := it.v.acquire()
	defer release()
	st, err := it.v.s.readState(ts)
	return cgraph.IteratorCosts{NextCost: 1, ContainsCost: 1, Size: cgraph.Size{Size: int64(st.nodes), Exact: true}}, err
}

func (it *nodeShape) Optimize(ctx context.Context) (cgraph.IteratorShape, bool) { return it, false }
func (it *nodeShape) SubIterators() []cgraph.IteratorShape                      { return nil }

type nodeIndex struct {
	v   *Snapshot
	cur cgraph.Ref
	err error
}

func (it *nodeIndex) Contains(ctx context.Context, r cgraph.Ref) bool {
	it.cur = nil
	n, ok := r.(nodeRef)
	if !ok {
		return false
	}
	ts, release := it.v.acquire()
	defer release()
	txn := it.v.txn(ts)
	defer txn.Discard()
	_, err := txn.Get(nodeKey(uint64(n)))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false
	} else if err != nil {
		it.err = err
		return false
	}
	it.cur = n
	return true
}

func (it *nodeIndex) Result() cgraph.Ref                   { return it.cur }
func (it *nodeIndex) NextPath(ctx context.Context) bool    { return false }
func (it *nodeIndex) Err() error                           { return it.err }
func (it *nodeIndex) Close() error                         { return nil }
func (it *nodeIndex) TagResults(dst map[string]cgraph.Ref) {}
func (it *nodeIndex) String() string                       { return "QuadStoreNodesContains" }

// scanner reads the keys under prefix in pages, each page with a fresh
// Badger iterator at the scan's timestamp, so that nothing stays open
// between calls to Next (Cayley does not always close its iterators). The
// timestamp is pinned from the first Next until the end or Close. Each key
// gives any number of results (each: a node, a quad, or the quads of a
// chunk of the subject or graph index).
type scanner struct {
	v      *Snapshot
	prefix []byte
	each   func(item *badger.Item, emit func(cgraph.Ref)) error

	ts      uint64
	release func()
	started bool
	done    bool
	seek    []byte
	page    int
	buf     []cgraph.Ref
	i       int
	cur     cgraph.Ref
	err     error
}

func (it *scanner) Next(ctx context.Context) bool {
	it.cur = nil
	if it.done {
		return false
	}
	if !it.started {
		it.started = true
		it.ts, it.release = it.v.acquire()
		it.seek = it.prefix
		it.page = 16
	}
	for it.i >= len(it.buf) {
		if it.seek == nil {
			it.finish()
			return false
		}
		if err := ctx.Err(); err != nil {
			it.err = err
			it.finish()
			return false
		}
		it.fetch()
		if it.err != nil {
			it.finish()
			return false
		}
	}
	it.cur = it.buf[it.i]
	it.i++
	return true
}

// fetch reads the next page of results.
func (it *scanner) fetch() {
	it.buf, it.i = it.buf[:0], 0
	txn := it.v.txn(it.ts)
	defer txn.Discard()
	bit := txn.NewIterator(badger.IteratorOptions{Prefix: it.prefix})
	defer bit.Close()
	scanned := 0
	bit.Seek(it.seek)
	emit := func(r cgraph.Ref) { it.buf = append(it.buf, r) }
	for ; bit.ValidForPrefix(it.prefix); bit.Next() {
		k := bit.Item().Key()
		if it.err = it.each(bit.Item(), emit); it.err != nil {
			return
		}
		if scanned++; len(it.buf) >= it.page || scanned >= 16*it.page {
			it.seek = append(append(it.seek[:0:0], k...), 0)
			it.page = min(2*it.page, 4096)
			return
		}
	}
	it.seek = nil
}

func (it *scanner) finish() {
	if !it.done {
		it.done = true
		if it.release != nil {
			it.release()
		}
	}
}

func (it *scanner) Result() cgraph.Ref                   { return it.cur }
func (it *scanner) NextPath(ctx context.Context) bool    { return false }
func (it *scanner) Err() error                           { return it.err }
func (it *scanner) Close() error                         { it.finish(); return nil }
func (it *scanner) TagResults(dst map[string]cgraph.Ref) {}
func (it *scanner) String() string                       { return "QuadStoreScanner" }
