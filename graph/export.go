package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/rdfio"
)

// The dump of a whole native store as N-Quads (or N-Triples), served from
// the store's ids: the graph index is read front to back (graphs in id
// order, each graph's quads in (subject, predicate, object) id order, so a
// subject's quads are adjacent), and every term is formatted once per
// batch of graphs, not once per quad position. Two goroutines: one reads
// Badger (the graph index, then the node records of the batch's new ids in
// id order through one iterator) and formats the new terms; the other
// assembles the lines from the formatted terms and writes them. Memory is
// bounded by a few batches of exportBatchQuads quads and the term cache
// (exportCacheBytes).

// ErrNoDump is returned by View.WriteNQuads when the view's backend has no
// term ids (the memory backend): export through Match instead.
var ErrNoDump = errors.New("store cannot dump from ids")

const (
	// exportBatchQuads is the size of a batch, in quads, cut between
	// graphs: the new terms of a batch are read in one pass of the node
	// records.
	exportBatchQuads = 32 << 10
	// exportCacheBytes bounds the formatted terms kept across batches
	// (the terms shared by graphs: predicates, classes, common values);
	// past it the cache starts afresh.
	exportCacheBytes = 64 << 20
	// exportFlushBytes is the size of the writes to w.
	exportFlushBytes = 256 << 10
)

// Term kinds, for the position checks of a quad.
const (
	kindLiteral uint8 = iota
	kindIRI
	kindBlank
)

// ntTerm is a term in N-Triples form and its kind.
type ntTerm struct {
	b    []byte
	kind uint8
}

// exportBatch is a run of whole graphs: their quads as indexes into terms
// (subject, predicate, object, graph).
type exportBatch struct {
	terms  []ntTerm
	quads  [][4]int32
	graphs int
}

// DumpStats counts what WriteNQuads wrote.
type DumpStats struct {
	Graphs int
	Quads  int64
}

// CountGraphs returns the number of named graphs in the view (ErrNoDump
// without term ids).
func (v *View) CountGraphs(ctx context.Context) (int, error) {
	if v.nv == nil {
		return 0, ErrNoDump
	}
	if v.s.closed.Load() {
		return 0, ErrClosed
	}
	return v.nv.CountGraphs(ctx)
}

// WriteNQuads writes every quad of every named graph of the view to w as
// N-Quads, or as N-Triples (the graph names dropped) when triples is set,
// in canonical form (rdfio.AppendTerm): graphs in store order, each
// graph's quads grouped by subject. progress, if not nil, is called after
// each batch of graphs. It returns ErrNoDump on a backend without term ids.
func (v *View) WriteNQuads(ctx context.Context, w io.Writer, triples bool, progress func(DumpStats)) (DumpStats, error) {
	return v.writeNQuads(ctx, w, triples, dumpLimits{batchQuads: exportBatchQuads, cacheBytes: exportCacheBytes}, progress)
}

func (v *View) writeNQuads(ctx context.Context, w io.Writer, triples bool, lim dumpLimits, progress func(DumpStats)) (DumpStats, error) {
	var st DumpStats
	if v.nv == nil {
		return st, ErrNoDump
	}
	if v.s.closed.Load() {
		return st, ErrClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *exportBatch, 2)
	free := make(chan *exportBatch, 3)
	readErr := make(chan error, 1)
	go func() {
		defer close(batches)
		readErr <- v.readBatches(ctx, lim, batches, free)
	}()
	werr := writeBatches(ctx, w, triples, batches, free, &st, progress)
	if werr != nil {
		cancel()
	}
	for range batches { // let the reader finish
	}
	rerr := <-readErr
	if werr != nil {
		return st, werr
	}
	if rerr != nil {
		return st, fmt.Errorf("dump: %w", rerr)
	}
	return st, nil
}

// dumpLimits size a dump's batches and term cache.
type dumpLimits struct {
	batchQuads int // quads of a batch (cut between graphs)
	cacheBytes int // bound of the term cache
}

// frontSize is the number of slots of a batch's direct-mapped id cache,
// in front of its map: the terms a batch's quads repeat (predicates,
// shared values, a subject's next quad) are found without hashing.
const frontSize = 4096

// readBatches reads the graph index into batches, formats their new terms
// and sends them on out; it takes batches to reuse from free.
//
// A batch numbers its distinct terms (a direct-mapped slot per id in front
// of a map). The terms found in the cache are copied in; the others are
// read after the batch's last graph, in id order (View.Terms), and
// formatted. Terms used by more than one graph of a batch are then kept in
// the cache, for the next batches: they are the shared ones (predicates,
// classes, common values); a graph's own terms (its IRIs, SMILES, InChI)
// are not, so the cache stays small.
func (v *View) readBatches(ctx context.Context, lim dumpLimits, out chan<- *exportBatch, free <-chan *exportBatch) error {
	var (
		cache      = make(map[uint64]ntTerm)
		cacheBytes int
		front      [frontSize]struct {
			id  uint64
			idx int32
		}
		local     = make(map[uint64]int32) // id -> index in b.terms
		termIDs   []uint64                 // per index in b.terms
		lastGraph []int32                  // per index: the last graph (of the batch) using it
		shared    []bool                   // per index: used by two graphs of the batch
		cached    []bool                   // per index: found in the cache
		missing   []int32                  // indexes of terms to read
		graph     int32                    // ordinal of the current graph in the batch
		arena     []byte
		b         = &exportBatch{}
	)
	// term returns the index of id in the batch's terms.
	term := func(id uint64) int32 {
		slot := &front[id%frontSize]
		var i int32
		if slot.id == id {
			i = slot.idx
		} else if j, ok := local[id]; ok {
			i = j
			slot.id, slot.idx = id, j
		} else {
			i = int32(len(b.terms))
			local[id] = i
			slot.id, slot.idx = id, i
			t, ok := cache[id]
			if !ok {
				missing = append(missing, i)
			}
			b.terms = append(b.terms, t)
			termIDs = append(termIDs, id)
			lastGraph = append(lastGraph, graph)
			shared = append(shared, false)
			cached = append(cached, ok)
			return i
		}
		if lastGraph[i] != graph {
			lastGraph[i], shared[i] = graph, true
		}
		return i
	}
	flush := func() error {
		if len(missing) > 0 {
			// In id order, so that the node records are read front to back.
			slices.SortFunc(missing, func(x, y int32) int {
				switch a, b := termIDs[x], termIDs[y]; {
				case a < b:
					return -1
				case a > b:
					return 1
				}
				return 0
			})
			ids := make([]uint64, len(missing))
			for k, i := range missing {
				ids[k] = termIDs[i]
			}
			err := v.nv.Terms(ctx, ids, func(k int, t quad.Value) error {
				start := len(arena)
				if cap(arena)-start < 4<<10 {
					arena = make([]byte, 0, 1<<20)
					start = 0
				}
				var err error
				arena, err = rdfio.AppendTerm(arena, t)
				if err != nil {
					return fmt.Errorf("term %d: %w", ids[k], err)
				}
				b.terms[missing[k]] = ntTerm{b: arena[start:len(arena):len(arena)], kind: kindOf(t)}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if cacheBytes > lim.cacheBytes {
			clear(cache)
			cacheBytes = 0
		}
		for i, sh := range shared {
			if sh && !cached[i] {
				cache[termIDs[i]] = b.terms[i]
				cacheBytes += len(b.terms[i].b) + 48
			}
		}
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case b = <-free:
			b.terms, b.quads, b.graphs = b.terms[:0], b.quads[:0], 0
		default:
			b = &exportBatch{}
		}
		clear(local)
		front = [frontSize]struct {
			id  uint64
			idx int32
		}{}
		termIDs, lastGraph, shared, cached = termIDs[:0], lastGraph[:0], shared[:0], cached[:0]
		missing, graph = missing[:0], 0
		return nil
	}
	err := v.nv.ScanGraphs(ctx, func(g uint64, quads [][3]uint64) error {
		graph++
		gi := term(g)
		for _, q := range quads {
			b.quads = append(b.quads, [4]int32{term(q[0]), term(q[1]), term(q[2]), gi})
		}
		b.graphs++
		if len(b.quads) >= lim.batchQuads {
			return flush()
		}
		return nil
	})
	if err == nil && len(b.quads) > 0 {
		err = flush()
	}
	return err
}

// kindOf is the kind of a term for the position checks.
func kindOf(t quad.Value) uint8 {
	switch t.(type) {
	case quad.IRI:
		return kindIRI
	case quad.BNode:
		return kindBlank
	}
	return kindLiteral
}

// writeBatches writes the lines of the batches it receives, then hands
// them back on free.
func writeBatches(ctx context.Context, w io.Writer, triples bool, in <-chan *exportBatch, free chan<- *exportBatch, st *DumpStats, progress func(DumpStats)) error {
	buf := make([]byte, 0, exportFlushBytes+64<<10)
	for b := range in {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, q := range b.quads {
			s, p, o, g := &b.terms[q[0]], &b.terms[q[1]], &b.terms[q[2]], &b.terms[q[3]]
			if s.kind == kindLiteral || p.kind != kindIRI || g.kind == kindLiteral {
				return fmt.Errorf("dump: %w: quad %s %s %s %s", rdfio.ErrInvalidTerm, s.b, p.b, o.b, g.b)
			}
			buf = append(buf, s.b...)
			buf = append(buf, ' ')
			buf = append(buf, p.b...)
			buf = append(buf, ' ')
			buf = append(buf, o.b...)
			if !triples {
				buf = append(buf, ' ')
				buf = append(buf, g.b...)
			}
			buf = append(buf, " .\n"...)
			if len(buf) >= exportFlushBytes {
				if _, err := w.Write(buf); err != nil {
					return fmt.Errorf("dump: %w", err)
				}
				buf = buf[:0]
			}
		}
		st.Graphs += b.graphs
		st.Quads += int64(len(b.quads))
		select {
		case free <- b:
		default:
		}
		if progress != nil {
			progress(*st)
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("dump: %w", err)
		}
	}
	return ctx.Err()
}
