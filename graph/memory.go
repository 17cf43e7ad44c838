package graph

import (
	"context"
	"sync"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/memstore"
	"github.com/cayleygraph/quad"
)

// memoryBackend runs the Store on Cayley's memstore, for tests and
// ephemeral use.
type memoryBackend struct {
	qs cgraph.QuadStore

	// mmu orders reads against writes: Cayley's memstore is not
	// thread-safe. Readers share the lock; a commit takes it alone.
	mmu sync.RWMutex
}

func newMemoryBackend() *memoryBackend { return &memoryBackend{qs: memstore.New()} }

func (b *memoryBackend) close() error {
	b.mmu.Lock()
	defer b.mmu.Unlock()
	return b.qs.Close()
}

func (b *memoryBackend) view(ctx context.Context, fn func(qs cgraph.QuadStore) error) error {
	b.mmu.RLock()
	defer b.mmu.RUnlock()
	return fn(b.qs)
}

// replace writes the difference between the stored graphs and the given
// ones as one transaction.
func (b *memoryBackend) replace(ctx context.Context, graphs []normGraph) error {
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
func (b *memoryBackend) diff(ctx context.Context, g quad.IRI, want map[quad.Quad]struct{}) ([]cgraph.Delta, error) {
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

func (b *memoryBackend) apply(deltas []cgraph.Delta) error {
	if len(deltas) == 0 {
		return nil
	}
	b.mmu.Lock()
	defer b.mmu.Unlock()
	return b.qs.ApplyDeltas(deltas, cgraph.IgnoreOpts{})
}

// match calls fn for every quad matching p. The matches are read under
// the read lock and fn is called after it is released, so fn may match
// again (the query engines join that way) while a writer waits; the price
// is that a scan's matches are held in memory at once.
func (b *memoryBackend) match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
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
func (b *memoryBackend) bound(p Pattern) (dirs []boundDir, ok bool) {
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

func (b *memoryBackend) scan(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
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
		// of molgraph's data are usually most selective.
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

// count is an upper bound: the smallest quad count of a bound term (exact
// for a single bound term).
func (b *memoryBackend) count(ctx context.Context, p Pattern) (int64, error) {
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
func (b *memoryBackend) graphs(ctx context.Context, fn func(quad.IRI) error) error {
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
func (b *memoryBackend) labels(ctx context.Context) ([]quad.IRI, error) {
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

func (b *memoryBackend) stats(ctx context.Context) (quads, nodes int64, err error) {
	b.mmu.RLock()
	defer b.mmu.RUnlock()
	st, err := b.qs.Stats(ctx, false)
	return st.Quads.Size, st.Nodes.Size, err
}

// numericRange scans the predicate and compares every numeric literal:
// Cayley has no numeric index.
func (b *memoryBackend) numericRange(ctx context.Context, pred quad.IRI, r Range, fn func(quad.Quad) error) error {
	return b.match(ctx, Pattern{Predicate: pred}, func(q quad.Quad) error {
		if f, ok := numericValue(q.Object); ok && r.contains(f) {
			return fn(q)
		}
		return nil
	})
}

func (b *memoryBackend) recovered() bool { return false }

// sync does nothing: the memory backend has nothing to sync.
func (b *memoryBackend) sync() error { return nil }
