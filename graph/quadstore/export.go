package quadstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"
)

// Reads for a dump of the whole store (the export): the graph index
// (GSPO) read front to back, one named graph at a time, as ids, and the
// terms of many ids read in id order through one iterator, instead of a
// pattern scan and a dictionary lookup (a Badger Get) per quad position.

// ScanGraphs calls fn for every named graph of the view (the default
// graph, label 0, is skipped) in id order, with the graph's id and the
// (subject, predicate, object) ids of its quads in that order: a
// sequential read of the graph index, whose chunks hold a graph's quads
// together. The slice passed to fn is reused after fn returns.
func (v *View) ScanGraphs(ctx context.Context, fn func(g uint64, quads [][3]uint64) error) error {
	if v.closed || v.s.closed.Load() {
		return ErrClosed
	}
	ix := indexes[3]
	prefix := []byte{ix.prefix}
	it := v.iterator()
	defer v.put(it)
	var (
		cur   uint64
		quads [][3]uint64
		n     int
	)
	for it.Seek(appendID([]byte{ix.prefix}, 1)); it.ValidForPrefix(prefix); it.Next() {
		if n++; n&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		item := it.Item()
		g, _, ok := readID(item.Key()[1:])
		if !ok {
			return fmt.Errorf("scan graphs: %w: key", ErrCorrupt)
		}
		if g != cur && len(quads) > 0 {
			if err := fn(cur, quads); err != nil {
				return err
			}
			quads = quads[:0]
		}
		cur = g
		err := item.Value(func(val []byte) error {
			return ix.decodeChunk(item.Key(), val, func(q ids) error {
				quads = append(quads, [3]uint64{q[0], q[1], q[2]})
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("scan graphs: %w", err)
		}
	}
	if len(quads) > 0 {
		if err := fn(cur, quads); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// CountGraphs returns the number of named graphs of the view: a walk
// over the keys of the graph index (a few per graph; a seek per graph
// costs more than stepping over them).
func (v *View) CountGraphs(ctx context.Context) (int, error) {
	if v.closed || v.s.closed.Load() {
		return 0, ErrClosed
	}
	ix := indexes[3]
	prefix := []byte{ix.prefix}
	it := v.iterator()
	defer v.put(it)
	var (
		n, steps int
		cur      uint64
	)
	for it.Seek(appendID([]byte{ix.prefix}, 1)); it.ValidForPrefix(prefix); it.Next() {
		if steps++; steps&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		g, _, ok := readID(it.Item().Key()[1:])
		if !ok {
			return 0, fmt.Errorf("count graphs: %w: key", ErrCorrupt)
		}
		if g != cur {
			n, cur = n+1, g
		}
	}
	return n, ctx.Err()
}

// termsNextMax is how many records Terms steps over with Next before it
// seeks instead: the ids a dump asks for come in dense runs (a commit
// numbers its new terms in order of use), where stepping is cheaper than
// a seek through every level of the LSM tree.
const termsNextMax = 16

// A TermReader reads the terms of many ids of a view's commit through its
// own Badger transaction and iterator, so that several can read at once
// (a View is not safe for concurrent use). Close it before the view.
type TermReader struct {
	s   *Store
	txn *badger.Txn
	it  *badger.Iterator
}

// NewTermReader returns a term reader of the view's commit.
func (v *View) NewTermReader() (*TermReader, error) {
	if v.closed || v.s.closed.Load() {
		return nil, ErrClosed
	}
	txn := v.s.db.NewTransactionAt(v.ts, false)
	return &TermReader{s: v.s, txn: txn, it: txn.NewIterator(badger.IteratorOptions{Prefix: []byte{pNode}})}, nil
}

// Close releases the reader's iterator and transaction.
func (r *TermReader) Close() {
	if r.it != nil {
		r.it.Close()
		r.txn.Discard()
		r.it = nil
	}
}

// Terms calls fn with the term of each id of ids, which must be sorted
// ascending, unique and not 0, in that order (i is the position in ids).
// The node records are read in key order, stepping from one to the next
// where they are close. It fails with ErrCorrupt if an id has no node
// record in the view.
func (r *TermReader) Terms(ctx context.Context, ids []uint64, fn func(i int, t quad.Value) error) error {
	if r.it == nil || r.s.closed.Load() {
		return ErrClosed
	}
	it := r.it
	var key [9]byte
	key[0] = pNode
	prefix := key[:1]
	var prev uint64
	for i, id := range ids {
		if i&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if id == 0 || i > 0 && id <= prev {
			return fmt.Errorf("terms: ids not ascending at %d", i)
		}
		prev = id
		binary.BigEndian.PutUint64(key[1:], id)
		// positioned: the iterator is at the first record >= id.
		positioned := false
		for step := 0; i > 0 && step < termsNextMax && it.ValidForPrefix(prefix); step++ {
			if bytes.Compare(it.Item().Key(), key[:]) >= 0 {
				positioned = true
				break
			}
			it.Next()
		}
		if !positioned {
			it.Seek(key[:])
		}
		if !it.ValidForPrefix(prefix) || !bytes.Equal(it.Item().Key(), key[:]) {
			return fmt.Errorf("terms: %w: node %d missing", ErrCorrupt, id)
		}
		var t quad.Value
		err := it.Item().Value(func(b []byte) error {
			var err error
			t, err = nodeTerm(b)
			return err
		})
		if err != nil {
			return fmt.Errorf("terms: node %d: %w", id, err)
		}
		if err := fn(i, t); err != nil {
			return err
		}
	}
	return nil
}
