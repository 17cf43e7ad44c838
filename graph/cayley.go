package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/memstore"
	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"
	"github.com/hidal-go/hidalgo/kv/flat"
)

// cayleyBackend runs the Store on one of Cayley's own quad stores: its
// memstore, or its kv layer over our Badger adapter (badgerkv.go).
type cayleyBackend struct {
	qs   cgraph.QuadStore
	kv   *badgerKV // nil for the memstore
	hier hkv.KV    // kv as Cayley sees it

	// mmu orders reads against writes. Cayley's memstore is not
	// thread-safe, and Cayley's kv layer has no query-level snapshot: an
	// index scan and the quads it resolves are read in separate
	// transactions, so a scan running across a commit would see part of a
	// replaced graph. Readers share the lock; a commit takes it alone.
	mmu sync.RWMutex
}

// molgraphIndexes is Cayley's default kv index list plus a predicate-first
// and a graph-first index (see doc.go).
var molgraphIndexes = []kv.QuadIndex{
	{Dirs: []quad.Direction{quad.Subject, quad.Predicate}},
	{Dirs: []quad.Direction{quad.Object, quad.Predicate, quad.Subject}},
	{Dirs: []quad.Direction{quad.Predicate, quad.Object, quad.Subject}},
	{Dirs: []quad.Direction{quad.Label, quad.Subject, quad.Predicate}},
}

// openKVBackend opens Cayley's kv layer over Badger in dir.
func openKVBackend(dir string, syncWrites bool) (*cayleyBackend, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	bkv, err := openBadgerKV(dir, syncWrites)
	if err != nil {
		return nil, err
	}
	hier := flat.Upgrade(bkv)
	copts := cgraph.Options{kv.OptNoBloom: true}
	if err := kv.Init(hier, copts); err == nil {
		if err := writeIndexes(hier); err != nil {
			bkv.Close()
			return nil, err
		}
	} else if !errors.Is(err, cgraph.ErrDatabaseExists) {
		bkv.Close()
		return nil, fmt.Errorf("init: %w", err)
	}
	b := &cayleyBackend{kv: bkv, hier: keepOpen{hier}}
	if err := b.openCayley(); err != nil {
		bkv.Close()
		return nil, err
	}
	return b, nil
}

// keepOpen keeps Cayley from closing our KV when it closes its quad store:
// the Store reopens Cayley over the same KV after a failed write (see
// apply) and closes the KV itself.
type keepOpen struct{ hkv.KV }

func (keepOpen) Close() error { return nil }

// openCayley (re)creates Cayley's kv quad store over b.hier, dropping its
// in-memory caches.
func (b *cayleyBackend) openCayley() error {
	if b.qs != nil {
		b.qs.Close()
	}
	qs, err := kv.New(b.hier, cgraph.Options{kv.OptNoBloom: true})
	if err != nil {
		return err
	}
	b.qs = qs
	return nil
}

// writeIndexes replaces Cayley's default index list before the store is
// first opened; Cayley reads it back from meta/indexes on every open.
func writeIndexes(db hkv.KV) error {
	data, err := json.Marshal(molgraphIndexes)
	if err != nil {
		return err
	}
	return hkv.Update(context.Background(), db, func(tx hkv.Tx) error {
		return tx.Put(hkv.SKey("meta", "indexes"), data)
	})
}

func newMemoryBackend() *cayleyBackend { return &cayleyBackend{qs: memstore.New()} }

func (b *cayleyBackend) close() error {
	b.mmu.Lock()
	defer b.mmu.Unlock()
	err := b.qs.Close()
	if b.kv != nil {
		if kerr := b.kv.Close(); err == nil {
			err = kerr
		}
	}
	return err
}

func (b *cayleyBackend) view(ctx context.Context, fn func(qs cgraph.QuadStore) error) error {
	b.mmu.RLock()
	defer b.mmu.RUnlock()
	return fn(b.qs)
}

// replace writes the difference between the stored graphs and the given
// ones as one transaction.
func (b *cayleyBackend) replace(ctx context.Context, graphs []normGraph) error {
	var deltas []cgraph.Delta
	for _, g := range graphs {
		d, err := b.diff(ctx, g.iri, g.quads)
		if err != nil {
			return err
		}
		deltas = append(deltas, d...)
	}
	return b.apply(deltas)
}

// diff returns the deltas that turn the stored graph g into want.
func (b *cayleyBackend) diff(ctx context.Context, g quad.IRI, want map[quad.Quad]struct{}) ([]cgraph.Delta, error) {
	var deltas []cgraph.Delta
	have := make(map[quad.Quad]struct{})
	err := b.match(ctx, Pattern{Label: g}, func(q quad.Quad) error {
		have[q] = struct{}{}
		if _, ok := want[q]; !ok {
			deltas = append(deltas, cgraph.Delta{Quad: q, Action: cgraph.Delete})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for q := range want {
		if _, ok := have[q]; !ok {
			deltas = append(deltas, cgraph.Delta{Quad: q, Action: cgraph.Add})
		}
	}
	return deltas, nil
}

func (b *cayleyBackend) apply(deltas []cgraph.Delta) error {
	if len(deltas) == 0 {
		return nil
	}
	b.mmu.Lock()
	defer b.mmu.Unlock()
	if b.kv == nil {
		return b.qs.ApplyDeltas(deltas, cgraph.IgnoreOpts{})
	}
	// Cayley's kv layer nets the reference counts of a node over a whole
	// delta list: a node that loses more quads than it gains (a subject whose
	// graph shrinks) is then missing from the added quads, which are stored
	// with a zero id and become unreadable. Deletions therefore go first and
	// additions second, in two Cayley transactions that our KV commits as
	// one (Group), so the change stays atomic.
	var dels, adds []cgraph.Delta
	for _, d := range deltas {
		if d.Action == cgraph.Delete {
			dels = append(dels, d)
		} else {
			adds = append(adds, d)
		}
	}
	err := b.kv.Group(func() error {
		for _, part := range [][]cgraph.Delta{dels, adds} {
			if len(part) == 0 {
				continue
			}
			if err := b.qs.ApplyDeltas(part, cgraph.IgnoreOpts{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// Cayley cached node ids of the discarded writes: start afresh.
		if rerr := b.openCayley(); rerr != nil {
			return fmt.Errorf("%w (and reopening failed: %v)", err, rerr)
		}
	}
	return err
}

// match calls fn for every quad matching p. The matches are read under
// the read lock and fn is called after it is released, so fn may match
// again (the query engines join that way) while a writer waits; the price
// is that a scan's matches are held in memory at once.
func (b *cayleyBackend) match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	var buf []quad.Quad
	b.mmu.RLock()
	err := b.scan(ctx, p, func(q quad.Quad) error {
		buf = append(buf, q)
		return nil
	})
	b.mmu.RUnlock()
	if err != nil {
		return err
	}
	for _, q := range buf {
		if err := fn(q); err != nil {
			return err
		}
	}
	return ctx.Err()
}

type boundDir struct {
	dir quad.Direction
	ref cgraph.Ref
}

// bound resolves the bound terms of p. ok is false when a bound term is not
// in the store at all, so nothing can match.
func (b *cayleyBackend) bound(p Pattern) (dirs []boundDir, ok bool) {
	for _, d := range []quad.Direction{quad.Label, quad.Subject, quad.Object, quad.Predicate} {
		v := patternTerm(p, d)
		if v == nil {
			continue
		}
		ref := b.qs.ValueOf(v)
		if ref == nil {
			return nil, false
		}
		dirs = append(dirs, boundDir{d, ref})
	}
	return dirs, true
}

func patternTerm(p Pattern, d quad.Direction) quad.Value {
	switch d {
	case quad.Subject:
		return p.Subject
	case quad.Predicate:
		return p.Predicate
	case quad.Object:
		return p.Object
	case quad.Label:
		return p.Label
	}
	return nil
}

func (b *cayleyBackend) scan(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	dirs, ok := b.bound(p)
	if !ok {
		return nil
	}
	var it cgraph.Iterator
	if len(dirs) == 0 {
		it = b.qs.QuadsAllIterator()
		dirs = []boundDir{{}} // nothing to check below
	} else {
		// Label, Subject, Object, Predicate: the order in which the terms
		// of molgraph's data are usually most selective; the kv backend's
		// size estimates cannot tell them apart.
		it = b.qs.QuadIterator(dirs[0].dir, dirs[0].ref)
	}
	defer it.Close()
	for it.Next(ctx) {
		ref := it.Result()
		keep := true
		for _, bd := range dirs[1:] {
			if r := b.qs.QuadDirection(ref, bd.dir); r == nil || r.Key() != bd.ref.Key() {
				keep = false
				break
			}
		}
		if !keep {
			continue
		}
		q := b.qs.Quad(ref)
		if q.Label == nil {
			continue // molgraph never writes to the default graph
		}
		if err := fn(q); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

// count is exact for the memstore and an upper bound from the index of a
// bound term for the kv layer.
func (b *cayleyBackend) count(ctx context.Context, p Pattern) (int64, error) {
	b.mmu.RLock()
	defer b.mmu.RUnlock()
	dirs, ok := b.bound(p)
	if !ok {
		return 0, nil
	}
	if len(dirs) == 0 {
		st, err := b.qs.Stats(ctx, false)
		return st.Quads.Size, err
	}
	best := int64(-1)
	for _, bd := range dirs {
		sz, err := b.qs.QuadIteratorSize(ctx, bd.dir, bd.ref)
		if err != nil {
			return 0, err
		}
		if best < 0 || sz.Size < best {
			best = sz.Size
		}
	}
	return best, nil
}

// graphs reads only the label of every quad and keeps the distinct names
// (not the quads, as match would) under the read lock; fn is called after
// it is released, as in match.
func (b *cayleyBackend) graphs(ctx context.Context, fn func(quad.IRI) error) error {
	b.mmu.RLock()
	names, err := b.labels(ctx)
	b.mmu.RUnlock()
	if err != nil {
		return err
	}
	for _, iri := range names {
		if err := fn(iri); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// labels returns the distinct IRI labels of the stored quads in scan order.
// The caller holds the read lock.
func (b *cayleyBackend) labels(ctx context.Context) ([]quad.IRI, error) {
	var names []quad.IRI
	seen := make(map[interface{}]struct{})
	it := b.qs.QuadsAllIterator()
	defer it.Close()
	for it.Next(ctx) {
		ref := b.qs.QuadDirection(it.Result(), quad.Label)
		if ref == nil {
			continue // molgraph never writes to the default graph
		}
		if _, ok := seen[ref.Key()]; ok {
			continue
		}
		seen[ref.Key()] = struct{}{}
		if iri, ok := b.qs.NameOf(ref).(quad.IRI); ok {
			names = append(names, iri)
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return names, ctx.Err()
}

func (b *cayleyBackend) stats(ctx context.Context) (quads, nodes int64, err error) {
	b.mmu.RLock()
	defer b.mmu.RUnlock()
	st, err := b.qs.Stats(ctx, false)
	return st.Quads.Size, st.Nodes.Size, err
}

// numericRange scans the predicate and compares every numeric literal:
// Cayley has no numeric index.
func (b *cayleyBackend) numericRange(ctx context.Context, pred quad.IRI, r Range, fn func(quad.Quad) error) error {
	return b.match(ctx, Pattern{Predicate: pred}, func(q quad.Quad) error {
		if f, ok := numericValue(q.Object); ok && r.contains(f) {
			return fn(q)
		}
		return nil
	})
}

func (b *cayleyBackend) recovered() bool { return b.kv != nil && b.kv.recovered }

// sync does nothing: the kv backend's Badger syncs each write itself when
// Options.SyncWrites is set, and the memory backend has nothing to sync.
func (b *cayleyBackend) sync() error { return nil }
