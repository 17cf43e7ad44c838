package graph

import (
	"context"
	"errors"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/quadstore"
)

// nativeBackend runs the Store on our own Badger quad store, which reads
// snapshots, keeps exact counts and has a numeric index.
type nativeBackend struct {
	qs *quadstore.Store
}

func (b *nativeBackend) replace(ctx context.Context, graphs []normGraph) error {
	gs := make([]quadstore.Graph, len(graphs))
	for i, g := range graphs {
		quads := make([]quad.Quad, 0, len(g.quads))
		for q := range g.quads {
			quads = append(quads, q)
		}
		gs[i] = quadstore.Graph{Name: g.iri, Quads: quads, Side: g.side}
	}
	err := b.qs.ReplaceGraphs(ctx, gs)
	if errors.Is(err, quadstore.ErrInvalidTerm) {
		return errors.Join(ErrInvalidQuad, err)
	}
	return err
}

func pattern(p Pattern) quadstore.Pattern {
	return quadstore.Pattern{Subject: p.Subject, Predicate: p.Predicate, Object: p.Object, Label: p.Label}
}

func (b *nativeBackend) match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	return b.qs.Match(ctx, pattern(p), dropDefault(fn))
}

func (b *nativeBackend) count(ctx context.Context, p Pattern) (int64, error) {
	return b.qs.Count(ctx, pattern(p))
}

func (b *nativeBackend) numericRange(ctx context.Context, pred quad.IRI, r Range, fn func(quad.Quad) error) error {
	return b.qs.NumericRange(ctx, pred, quadRange(r), fn)
}

func (b *nativeBackend) graphs(ctx context.Context, fn func(quad.IRI) error) error {
	return b.qs.Graphs(ctx, func(name quad.Value) error {
		if iri, ok := name.(quad.IRI); ok {
			return fn(iri)
		}
		return nil
	})
}

func (b *nativeBackend) stats(ctx context.Context) (quads, nodes int64, err error) {
	return b.qs.Counts()
}

func (b *nativeBackend) view(ctx context.Context, fn func(qs cgraph.QuadStore) error) error {
	return b.qs.View(ctx, func(sn *quadstore.Snapshot) error { return fn(sn) })
}

func (b *nativeBackend) sync() error { return b.qs.Sync() }

func (b *nativeBackend) recovered() bool { return b.qs.Recovered() }

func (b *nativeBackend) close() error { return b.qs.Close() }

// dropDefault skips quads of the default graph, which molgraph never
// writes to.
func dropDefault(fn func(quad.Quad) error) func(quad.Quad) error {
	return func(q quad.Quad) error {
		if q.Label == nil {
			return nil
		}
		return fn(q)
	}
}

func quadRange(r Range) quadstore.Range {
	return quadstore.Range{Min: r.Min, Max: r.Max, MinExclusive: r.MinExclusive, MaxExclusive: r.MaxExclusive}
}
