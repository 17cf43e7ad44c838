package quadstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// provBit marks a provisional id: a term not in the store yet. It gets a
// real id only if a quad that uses it is finally added.
const provBit = 1 << 63

// change is a quad to add or delete, with its object term (for the
// numeric index).
type change struct {
	q   ids
	obj quad.Value
}

// wtx collects one write transaction. Only the writer (holding wmu) uses it.
type wtx struct {
	s   *Store
	ts  uint64 // the snapshot it reads: the last commit
	txn *badger.Txn

	ids  map[string]uint64 // term encoding -> id (or provisional id)
	encs [][]byte          // provisional id &^ provBit -> encoding
	buf  []byte

	// present is the state of each touched quad after the changes so far,
	// orig its state in the store; obj the object term of each.
	present map[ids]bool
	orig    map[ids]bool
	obj     map[ids]quad.Value
	touched []ids // the keys of orig in first-touch order
}

func (s *Store) newWtx() *wtx {
	ts := s.readTs.Load()
	return &wtx{
		s: s, ts: ts, txn: s.db.NewTransactionAt(ts, false),
		ids:     make(map[string]uint64),
		present: make(map[ids]bool),
		orig:    make(map[ids]bool),
		obj:     make(map[ids]quad.Value),
	}
}

func (w *wtx) close() { w.txn.Discard() }

// id returns the id of v, allocating a provisional one for a new term.
func (w *wtx) id(v quad.Value) (uint64, error) {
	var err error
	w.buf, err = AppendTerm(w.buf[:0], v)
	if err != nil {
		return 0, err
	}
	if id, ok := w.ids[string(w.buf)]; ok {
		return id, nil
	}
	id, found, err := w.s.lookupID(w.txn, w.ts, w.buf)
	if err != nil {
		return 0, err
	}
	enc := string(w.buf)
	if !found {
		id = provBit | uint64(len(w.encs))
		w.encs = append(w.encs, []byte(enc))
	}
	w.ids[enc] = id
	return id, nil
}

// quadIDs resolves the terms of q; a nil label is the default graph.
func (w *wtx) quadIDs(q quad.Quad) (ids, error) {
	var out ids
	for d, v := range [4]quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
		if v == nil {
			if d == 3 {
				continue
			}
			return out, fmt.Errorf("%w: quad %v has no %v", ErrInvalidTerm, q, quad.Direction(d+1))
		}
		id, err := w.id(v)
		if err != nil {
			return out, err
		}
		out[d] = id
	}
	return out, nil
}

func provisional(q ids) bool {
	return (q[0]|q[1]|q[2]|q[3])&provBit != 0
}

// exists reports whether q is stored: one key lookup.
func (w *wtx) exists(q ids) (bool, error) {
	if provisional(q) {
		return false, nil
	}
	_, err := w.txn.Get(quadKeyIndex.key(make([]byte, 0, maxQuadKeyLen), q))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

// state returns the current state of q in this transaction.
func (w *wtx) state(q ids) (bool, error) {
	if cur, ok := w.present[q]; ok {
		return cur, nil
	}
	cur, err := w.exists(q)
	if err != nil {
		return false, err
	}
	w.orig[q] = cur
	w.present[q] = cur
	w.touched = append(w.touched, q)
	return cur, nil
}

// ApplyDeltas applies the deltas in order as one atomic commit: readers see
// all of them or none, and a crash leaves none. An Add of a stored quad
// fails with graph.ErrQuadExists and a Delete of a missing quad with
// graph.ErrQuadNotExist (as *graph.DeltaError), unless opts ignores them;
// on error nothing is written. Only the net change is written, and node
// reference counts are computed from it, so a list in which a node loses
// more quads than it gains is stored exactly.
func (s *Store) ApplyDeltas(in []cgraph.Delta, opts cgraph.IgnoreOpts) error {
	if s.closed.Load() {
		return ErrClosed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	w := s.newWtx()
	defer w.close()
	for _, d := range in {
		if d.Action != cgraph.Add && d.Action != cgraph.Delete {
			return &cgraph.DeltaError{Delta: d, Err: cgraph.ErrInvalidAction}
		}
		q, err := w.quadIDs(d.Quad)
		if err != nil {
			return &cgraph.DeltaError{Delta: d, Err: err}
		}
		cur, err := w.state(q)
		if err != nil {
			return &cgraph.DeltaError{Delta: d, Err: err}
		}
		if d.Action == cgraph.Add {
			if cur {
				if !opts.IgnoreDup {
					return &cgraph.DeltaError{Delta: d, Err: cgraph.ErrQuadExists}
				}
				continue
			}
			w.present[q] = true
			w.obj[q] = d.Quad.Object
		} else {
			if !cur {
				if !opts.IgnoreMissing {
					return &cgraph.DeltaError{Delta: d, Err: cgraph.ErrQuadNotExist}
				}
				continue
			}
			w.present[q] = false
			w.obj[q] = d.Quad.Object
		}
	}
	var adds, dels []change
	for _, q := range w.touched { // in order, so that ids are deterministic
		if now, was := w.present[q], w.orig[q]; now != was {
			if now {
				adds = append(adds, change{q, w.obj[q]})
			} else {
				dels = append(dels, change{q, w.obj[q]})
			}
		}
	}
	b := w.newBuilder()
	ts, err := s.commit(commitOpts{estimate: 4 * (len(adds) + len(dels)), hooks: true, changes: b.colChanges}, func(bw *batchWriter) error {
		for len(adds)+len(dels) > 0 { // in parts, so that Badger writes while the next is prepared
			na := min(len(adds), partChanges)
			nd := min(len(dels), partChanges-na)
			if err := b.write(bw, adds[:na], dels[:nd]); err != nil {
				return err
			}
			adds, dels = adds[na:], dels[nd:]
		}
		return b.finish(bw)
	})
	if err != nil {
		return fmt.Errorf("apply deltas: %w", err)
	}
	b.publish(ts)
	return nil
}

// Graph is a named graph: its name and its quads (whose Label is ignored).
type Graph struct {
	Name  quad.Value
	Quads []quad.Quad
	// Side entries commit with the graph (side.go).
	Side []KV
}

// ReplaceGraphs replaces each named graph's quads by the given ones (an
// empty list deletes the graph), all in one atomic commit of any size. Only
// the difference to the stored graphs is written. Duplicate quads in a
// graph are stored once.
func (s *Store) ReplaceGraphs(ctx context.Context, graphs []Graph) error {
	if s.closed.Load() {
		return ErrClosed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	w := s.newWtx()
	defer w.close()
	// Resolve every term first (on all cores), so that bad input fails
	// before anything is written.
	pre := w.preResolve(graphs)
	gids := make([]uint64, len(graphs))
	seen := make(map[uint64]int, len(graphs))
	given := 0
	for i, g := range graphs {
		p := &pre[i]
		if p.err != nil {
			return fmt.Errorf("replace graphs: graph %v: %w", g.Name, p.err)
		}
		gid := w.known(p.name)
		if j, dup := seen[gid]; dup {
			return fmt.Errorf("replace graphs: %w: graph %v given twice (%d and %d)", ErrInvalidTerm, g.Name, j, i)
		}
		seen[gid] = i
		gids[i] = gid
		given += len(g.Quads)
		if err := checkSide(g.Side); err != nil {
			return fmt.Errorf("replace graphs: graph %v: %w", g.Name, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b := w.newBuilder()
	ts, err := s.commit(commitOpts{estimate: 5 * given, hooks: true, changes: b.colChanges}, func(bw *batchWriter) error {
		var adds, dels []change
		var cur []ids
		want := make(map[ids]quad.Value)
		var order []ids
		for i, g := range graphs {
			gid, p := gids[i], &pre[i]
			clear(want)
			order = order[:0]
			for k, t := range p.quads {
				qi := ids{w.known(t[0]), w.known(t[1]), w.known(t[2]), gid}
				want[qi] = g.Quads[k].Object
				order = append(order, qi)
			}
			cur = cur[:0]
			if gid&provBit == 0 { // a new graph has no quads to compare with
				sp := scanSpec{ix: indexes[3], n: 1, prefix: indexes[3].prefixKey(ids{3: gid}, 1)}
				err := scan(ctx, w.txn, &sp, func(q ids) error {
					cur = append(cur, q)
					return nil
				})
				if err != nil {
					return err
				}
			}
			for _, q := range cur {
				if _, keep := want[q]; keep {
					delete(want, q)
					continue
				}
				obj, err := w.s.name(w.txn, q[2])
				if err != nil {
					return err
				}
				dels = append(dels, change{q, obj})
			}
			for _, q := range order { // in order, so that ids are deterministic
				if obj, ok := want[q]; ok {
					adds = append(adds, change{q, obj})
					delete(want, q)
				}
			}
			// Hand a part to Badger every partChanges changes, so that
			// Badger writes it while the next part is prepared.
			if len(adds)+len(dels) >= partChanges || i == len(graphs)-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := b.write(bw, adds, dels); err != nil {
					return err
				}
				adds, dels = adds[:0], dels[:0]
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, g := range graphs {
			if err := writeSide(bw, g.Side); err != nil {
				return err
			}
		}
		return b.finish(bw)
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			return cerr
		}
		return fmt.Errorf("replace graphs: %w", err)
	}
	b.publish(ts)
	return nil
}

// NewQuadWriter returns a writer that adds quads (duplicates ignored) in
// commits of up to 100,000 quads; Close commits the rest.
func (s *Store) NewQuadWriter() (quad.WriteCloser, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	return &quadWriter{s: s}, nil
}

const writerBatch = 100000

type quadWriter struct {
	s   *Store
	buf []cgraph.Delta
}

func (w *quadWriter) WriteQuad(q quad.Quad) error {
	_, err := w.WriteQuads([]quad.Quad{q})
	return err
}

func (w *quadWriter) WriteQuads(qs []quad.Quad) (int, error) {
	for i, q := range qs {
		w.buf = append(w.buf, cgraph.Delta{Quad: q, Action: cgraph.Add})
		if len(w.buf) >= writerBatch {
			if err := w.flush(); err != nil {
				return i, err
			}
		}
	}
	return len(qs), nil
}

func (w *quadWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	err := w.s.ApplyDeltas(w.buf, cgraph.IgnoreOpts{IgnoreDup: true})
	w.buf = w.buf[:0]
	return err
}

func (w *quadWriter) Close() error { return w.flush() }

// term is a term resolved against the snapshot: its encoding and, if
// stored, its id.
type term struct {
	enc   string
	id    uint64
	found bool
}

// preResolved holds the resolved terms of one graph of ReplaceGraphs.
type preResolved struct {
	name  term
	quads [][3]term // subject, predicate, object
	err   error
}

// preResolve encodes and looks up the terms of the graphs on Options.Workers
// goroutines (the dictionary lookups are independent reads of one
// snapshot); ids for new terms are assigned afterwards, in order, by known.
func (w *wtx) preResolve(graphs []Graph) []preResolved {
	out := make([]preResolved, len(graphs))
	workers := min(w.s.opt.Workers, len(graphs)/64+1)
	chunk := (len(graphs) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(graphs); lo += chunk {
		hi := min(lo+chunk, len(graphs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			txn := w.s.db.NewTransactionAt(w.ts, false)
			defer txn.Discard()
			local := make(map[string]term)
			var buf []byte
			resolve := func(v quad.Value, what string) (term, error) {
				if v == nil {
					return term{}, fmt.Errorf("%w: no %s", ErrInvalidTerm, what)
				}
				var err error
				buf, err = AppendTerm(buf[:0], v)
				if err != nil {
					return term{}, err
				}
				if t, ok := local[string(buf)]; ok {
					return t, nil
				}
				id, found, err := w.s.lookupID(txn, w.ts, buf)
				if err != nil {
					return term{}, err
				}
				t := term{enc: string(buf), id: id, found: found}
				local[t.enc] = t
				return t, nil
			}
			for i := lo; i < hi; i++ {
				p := &out[i]
				if p.name, p.err = resolve(graphs[i].Name, "graph name"); p.err != nil {
					continue
				}
				p.quads = make([][3]term, len(graphs[i].Quads))
				for k, q := range graphs[i].Quads {
					for d, v := range [3]quad.Value{q.Subject, q.Predicate, q.Object} {
						if p.quads[k][d], p.err = resolve(v, quad.Direction(d+1).String()); p.err != nil {
							break
						}
					}
					if p.err != nil {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// known returns the id of a pre-resolved term, allocating a provisional
// id for a new one.
func (w *wtx) known(t term) uint64 {
	if id, ok := w.ids[t.enc]; ok {
		return id
	}
	id := t.id
	if !t.found {
		id = provBit | uint64(len(w.encs))
		w.encs = append(w.encs, []byte(t.enc))
	}
	w.ids[t.enc] = id
	return id
}
