package quadstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
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
	_, err := w.txn.Get(indexes[0].key(make([]byte, 0, maxQuadKeyLen), q))
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
	if err := w.commit(adds, dels); err != nil {
		return fmt.Errorf("apply deltas: %w", err)
	}
	return nil
}

// Graph is a named graph: its name and its quads (whose Label is ignored).
type Graph struct {
	Name  quad.Value
	Quads []quad.Quad
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
	var adds, dels []change
	seen := make(map[uint64]int, len(graphs))
	var cur []ids
	want := make(map[ids]quad.Value)
	var order []ids
	pre := w.preResolve(graphs)
	for i, g := range graphs {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		p := &pre[i]
		if p.err != nil {
			return fmt.Errorf("replace graphs: graph %v: %w", g.Name, p.err)
		}
		gid := w.known(p.name)
		if j, dup := seen[gid]; dup {
			return fmt.Errorf("replace graphs: %w: graph %v given twice (%d and %d)", ErrInvalidTerm, g.Name, j, i)
		}
		seen[gid] = i
		clear(want)
		order = order[:0]
		for k, t := range p.quads {
			qi := ids{w.known(t[0]), w.known(t[1]), w.known(t[2]), gid}
			want[qi] = g.Quads[k].Object
			order = append(order, qi)
		}
		cur = cur[:0]
		if gid&provBit == 0 {
			sp := scanSpec{ix: indexes[3], n: 1, prefix: indexes[3].prefixKey(ids{3: gid}, 1)}
			err := scan(ctx, w.txn, &sp, func(q ids) error {
				cur = append(cur, q)
				return nil
			})
			if err != nil {
				return fmt.Errorf("replace graphs: %w", err)
			}
		}
		for _, q := range cur {
			if _, keep := want[q]; keep {
				delete(want, q)
				continue
			}
			obj, err := w.s.name(w.txn, q[2])
			if err != nil {
				return fmt.Errorf("replace graphs: %w", err)
			}
			dels = append(dels, change{q, obj})
		}
		for _, q := range order { // in order, so that ids are deterministic
			if obj, ok := want[q]; ok {
				adds = append(adds, change{q, obj})
				delete(want, q)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.commit(adds, dels); err != nil {
		return fmt.Errorf("replace graphs: %w", err)
	}
	return nil
}

// nodeUpdate is the new state of a node touched by a commit.
type nodeUpdate struct {
	id     uint64
	enc    []byte
	counts [4]uint64
	isNew  bool
}

// commit writes the net changes adds and dels (dels never hold
// provisional ids) with the node records and the state.
func (w *wtx) commit(adds, dels []change) error {
	if len(adds) == 0 && len(dels) == 0 {
		return nil
	}
	s := w.s
	st := s.st
	// Real ids for the provisional ids that are used, in order of use.
	real := make(map[uint64]uint64)
	for i := range adds {
		for d, id := range adds[i].q {
			if id&provBit == 0 {
				continue
			}
			r, ok := real[id]
			if !ok {
				r = st.nextID
				st.nextID++
				real[id] = r
			}
			adds[i].q[d] = r
		}
	}
	// Count changes per node and direction.
	delta := make(map[uint64]*[4]int64)
	bump := func(q ids, by int64) {
		for d, id := range q {
			if id == 0 {
				continue
			}
			c := delta[id]
			if c == nil {
				c = new([4]int64)
				delta[id] = c
			}
			c[d] += by
		}
	}
	for _, c := range adds {
		bump(c.q, 1)
	}
	for _, c := range dels {
		bump(c.q, -1)
	}
	newEnc := make(map[uint64][]byte, len(real))
	for prov, r := range real {
		newEnc[r] = w.encs[prov&^provBit]
	}
	updates := make([]nodeUpdate, 0, len(delta))
	for id, dc := range delta {
		u := nodeUpdate{id: id}
		if enc, ok := newEnc[id]; ok {
			u.enc, u.isNew = enc, true
		} else {
			item, err := w.txn.Get(nodeKey(id))
			if err != nil {
				return fmt.Errorf("node %d: %w", id, err)
			}
			err = item.Value(func(b []byte) error {
				c, enc, err := decodeNode(b)
				u.counts, u.enc = c, append([]byte(nil), enc...)
				return err
			})
			if err != nil {
				return fmt.Errorf("node %d: %w", id, err)
			}
		}
		for d := range u.counts {
			n := int64(u.counts[d]) + dc[d]
			if n < 0 {
				return fmt.Errorf("%w: node %d count below zero", ErrCorrupt, id)
			}
			u.counts[d] = uint64(n)
		}
		updates = append(updates, u)
	}
	slices.SortFunc(updates, func(a, b nodeUpdate) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	st.quads = st.quads + uint64(len(adds)) - uint64(len(dels))
	var dead [][]byte
	type born struct {
		enc []byte
		id  uint64
	}
	var newborn []born
	for _, u := range updates {
		alive := u.counts != [4]uint64{}
		switch {
		case u.isNew && alive:
			st.nodes++
			newborn = append(newborn, born{u.enc, u.id})
		case !u.isNew && !alive:
			st.nodes--
			dead = append(dead, u.enc)
		}
	}
	numCache := make(map[uint64]numeric)
	numOf := func(c change) (numeric, bool) {
		if n, ok := numCache[c.q[2]]; ok {
			return n, !isNaN(n)
		}
		n, ok := numericOf(c.obj)
		if !ok {
			n = numeric{f: nan}
		}
		numCache[c.q[2]] = n
		return n, ok
	}
	entries := len(updates) + 4*(len(adds)+len(dels))
	ts, err := s.commit(entries, func(bw *batchWriter) error {
		if err := writeEntries(bw, updates, adds, dels, numOf); err != nil {
			return err
		}
		return bw.set(keyState, st.encode())
	}, true)
	if err != nil {
		return err
	}
	s.st = st
	for _, enc := range dead {
		s.terms.remove(enc)
	}
	for _, b := range newborn {
		s.terms.put(b.enc, b.id, ts)
	}
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

// writeEntries writes the node records and the index entries of a commit.
// Each index's keys are written in key order: Badger's memtable is a
// skiplist, and inserting in order keeps the search path in the CPU cache
// (random order made an insert cost ~2 µs in cache misses).
func writeEntries(bw *batchWriter, updates []nodeUpdate, adds, dels []change, numOf func(change) (numeric, bool)) error {
	// KVLoader copies each key (it appends the version), so one buffer
	// serves all index keys.
	key := make([]byte, 0, maxNumericKeyLen)
	var terms [][2][]byte
	for _, u := range updates {
		var err error
		if u.counts == [4]uint64{} {
			if err = bw.del(nodeKey(u.id)); err == nil {
				err = bw.del(termKey(u.enc))
			}
		} else {
			err = bw.set(nodeKey(u.id), encodeNode(u.counts, u.enc))
			if u.isNew {
				terms = append(terms, [2][]byte{termKey(u.enc), nodeKey(u.id)[1:]})
			}
		}
		if err != nil {
			return err
		}
	}
	slices.SortFunc(terms, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
	for _, t := range terms {
		if err := bw.set(t[0], t[1]); err != nil {
			return err
		}
	}
	for _, part := range []struct {
		cs  []change
		del bool
	}{{dels, true}, {adds, false}} {
		// Each index's order is sorted on its own goroutine, so that the
		// sorting overlaps with writing the previous index.
		var sorted [len(indexes)]chan []ids
		for i, ix := range indexes {
			sorted[i] = make(chan []ids, 1)
			go func() {
				qs := make([]ids, len(part.cs))
				for j, c := range part.cs {
					qs[j] = c.q
				}
				slices.SortFunc(qs, ix.compare)
				sorted[i] <- qs
			}()
		}
		for i, ix := range indexes {
			for _, q := range <-sorted[i] {
				k := ix.key(key[:0], q)
				var err error
				if part.del {
					err = bw.del(k)
				} else {
					err = bw.set(k, nil)
				}
				if err != nil {
					return err
				}
			}
		}
		var nums [][]byte
		for _, c := range part.cs {
			if n, ok := numOf(c); ok {
				nums = append(nums, numericKey(nil, c.q, n.f))
			}
		}
		slices.SortFunc(nums, bytes.Compare)
		for _, k := range nums {
			var err error
			if part.del {
				err = bw.del(k)
			} else {
				err = bw.set(k, nil)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

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
