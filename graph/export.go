package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/quadstore"
	"github.com/molgraph/molgraph/graph/rdfio"
)

// The dump of a whole native store as N-Quads (or N-Triples), served from
// the store's ids: the graph index is read front to back (graphs in id
// order, each graph's quads in (subject, predicate, object) id order, so a
// subject's quads are adjacent), and every term is formatted once per
// batch of graphs, not once per quad position. A pipeline:
//
//   - the scanner reads the graph index into batches of whole graphs and
//     numbers each batch's distinct terms, taking those it has cached;
//   - resolvers (one per core, up to dumpResolvers) each take a batch, read
//     the node records of its other terms in id order through their own
//     iterator (quadstore.TermReader: the ids of a batch come in dense
//     runs, since a commit numbers its new terms in order of use) and
//     format them; the terms used by more than one graph of the batch
//     (predicates, classes, common values) go back to the scanner's cache;
//   - the writer takes the batches in order, assembles their lines from
//     the formatted terms and writes them.
//
// Memory is bounded by the batches in flight (each some exportBatchQuads
// quads) and the term cache (exportCacheBytes).

// ErrNoDump is returned by View.WriteNQuads when the view's backend has no
// term ids (the memory backend): export through Match instead.
var ErrNoDump = errors.New("store cannot dump from ids")

const (
	// exportBatchQuads is the size of a batch, in quads, cut between
	// graphs: the new terms of a batch are read in one pass of the node
	// records.
	exportBatchQuads = 32 << 10
	// exportCacheBytes bounds the formatted terms kept across batches
	// (the terms shared by graphs); past it the cache starts afresh.
	exportCacheBytes = 64 << 20
	// exportFlushBytes is the size of the writes to w.
	exportFlushBytes = 256 << 10
	// dumpResolvers bounds the resolvers of a dump.
	dumpResolvers = 4
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
// (subject, predicate, object, graph), and what the resolver needs.
type exportBatch struct {
	seq     int
	terms   []ntTerm
	quads   [][4]int32
	graphs  int
	termIDs []uint64 // per term
	missing []int32  // terms to read (not cached)
	learn   []int32  // terms to cache once read (shared, not cached)
}

// learned is a term a resolver read for the scanner's cache.
type learned struct {
	id uint64
	t  ntTerm
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
	lim := dumpLimits{batchQuads: exportBatchQuads, cacheBytes: exportCacheBytes,
		resolvers: min(runtime.GOMAXPROCS(0), dumpResolvers)}
	return v.writeNQuads(ctx, w, triples, lim, progress)
}

// dumpLimits size a dump.
type dumpLimits struct {
	batchQuads int // quads of a batch (cut between graphs)
	cacheBytes int // bound of the term cache
	resolvers  int // resolver goroutines
}

func (v *View) writeNQuads(ctx context.Context, w io.Writer, triples bool, lim dumpLimits, progress func(DumpStats)) (DumpStats, error) {
	var st DumpStats
	if v.nv == nil {
		return st, ErrNoDump
	}
	if v.s.closed.Load() {
		return st, ErrClosed
	}
	lim.resolvers = max(lim.resolvers, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		cancel()
	}
	readers := make([]*quadstore.TermReader, lim.resolvers)
	for i := range readers {
		r, err := v.nv.NewTermReader()
		if err != nil {
			for _, r := range readers[:i] {
				r.Close()
			}
			return st, err
		}
		readers[i] = r
	}
	toResolve := make(chan *exportBatch, lim.resolvers)
	resolved := make(chan *exportBatch, lim.resolvers+1)
	learn := make(chan []learned, 4*lim.resolvers)
	free := make(chan *exportBatch, 2*lim.resolvers+2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(toResolve)
		if err := v.scanBatches(ctx, lim, toResolve, learn, free); err != nil {
			fail(fmt.Errorf("dump: %w", err))
		}
	}()
	var rwg sync.WaitGroup
	for _, r := range readers {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			defer r.Close()
			if err := resolveBatches(ctx, r, toResolve, resolved, learn); err != nil {
				fail(fmt.Errorf("dump: %w", err))
			}
		}()
	}
	go func() {
		rwg.Wait()
		close(resolved)
	}()
	if err := writeBatches(ctx, w, triples, resolved, free, &st, progress); err != nil {
		fail(err)
	}
	for range resolved { // let the resolvers finish
	}
	wg.Wait()
	if firstErr != nil {
		return st, firstErr
	}
	return st, ctx.Err()
}

// frontSize is the number of slots of a batch's direct-mapped id cache,
// in front of its map: the terms a batch's quads repeat (predicates,
// shared values, a subject's next quad) are found without hashing.
const frontSize = 4096

// scanBatches reads the graph index into batches and sends them on out,
// numbered; it takes batches to reuse from free and the terms to cache
// from learn.
//
// A batch numbers its distinct terms (a direct-mapped slot per id in front
// of a map) and copies in those the cache holds. The terms used by more
// than one graph of a batch are the shared ones (predicates, classes,
// common values): the resolver sends them back for the cache. A graph's
// own terms (its IRIs, SMILES, InChI) are not cached, so the cache stays
// small.
func (v *View) scanBatches(ctx context.Context, lim dumpLimits, out chan<- *exportBatch, learn <-chan []learned, free <-chan *exportBatch) error {
	var (
		cache      = make(map[uint64]ntTerm)
		cacheBytes int
		front      [frontSize]struct {
			id  uint64
			idx int32
		}
		local     = make(map[uint64]int32) // id -> index in b.terms
		lastGraph []int32                  // per index: the last graph (of the batch) using it
		shared    []bool                   // per index: used by two graphs of the batch
		cached    []bool                   // per index: found in the cache
		graph     int32                    // ordinal of the current graph in the batch
		seq       int
		b         = &exportBatch{}
	)
	// take adds the terms the resolvers learned to the cache.
	take := func() {
		for {
			select {
			case ls := <-learn:
				for _, l := range ls {
					if _, ok := cache[l.id]; !ok {
						cache[l.id] = l.t
						cacheBytes += len(l.t.b) + 48
					}
				}
			default:
				return
			}
		}
	}
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
				b.missing = append(b.missing, i)
			}
			b.terms = append(b.terms, t)
			b.termIDs = append(b.termIDs, id)
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
		for i, sh := range shared {
			if sh && !cached[i] {
				b.learn = append(b.learn, int32(i))
			}
		}
		b.seq, seq = seq, seq+1
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case b = <-free:
			b.terms, b.quads, b.graphs = b.terms[:0], b.quads[:0], 0
			b.termIDs, b.missing, b.learn = b.termIDs[:0], b.missing[:0], b.learn[:0]
		default:
			b = &exportBatch{}
		}
		clear(local)
		front = [frontSize]struct {
			id  uint64
			idx int32
		}{}
		lastGraph, shared, cached, graph = lastGraph[:0], shared[:0], cached[:0], 0
		take()
		if cacheBytes > lim.cacheBytes {
			clear(cache)
			cacheBytes = 0
		}
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

// resolveBatches reads and formats the missing terms of the batches it
// takes from in, sends them on out, and the batches' shared terms on
// learn (dropped when the scanner is behind: the cache only saves reads).
func resolveBatches(ctx context.Context, r *quadstore.TermReader, in <-chan *exportBatch, out chan<- *exportBatch, learn chan<- []learned) error {
	var (
		arena []byte
		ids   []uint64
	)
	for b := range in {
		// In id order, so that the node records are read front to back.
		slices.SortFunc(b.missing, func(x, y int32) int {
			switch a, c := b.termIDs[x], b.termIDs[y]; {
			case a < c:
				return -1
			case a > c:
				return 1
			}
			return 0
		})
		ids = ids[:0]
		for _, i := range b.missing {
			ids = append(ids, b.termIDs[i])
		}
		err := r.Terms(ctx, ids, func(k int, t quad.Value) error {
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
			b.terms[b.missing[k]] = ntTerm{b: arena[start:len(arena):len(arena)], kind: kindOf(t)}
			return nil
		})
		if err != nil {
			return err
		}
		if len(b.learn) > 0 {
			ls := make([]learned, len(b.learn))
			for k, i := range b.learn {
				// A copy: the cache must not keep the batch's arena alive.
				t := b.terms[i]
				ls[k] = learned{id: b.termIDs[i], t: ntTerm{b: bytes.Clone(t.b), kind: t.kind}}
			}
			select {
			case learn <- ls:
			default:
			}
		}
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
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

// writeBatches writes the lines of the batches it receives, in order of
// their seq, then hands them back on free.
func writeBatches(ctx context.Context, w io.Writer, triples bool, in <-chan *exportBatch, free chan<- *exportBatch, st *DumpStats, progress func(DumpStats)) error {
	buf := make([]byte, 0, exportFlushBytes+64<<10)
	pending := map[int]*exportBatch{}
	next := 0
	for b := range in {
		if err := ctx.Err(); err != nil {
			return err
		}
		pending[b.seq] = b
		for {
			b, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
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
	}
	if len(pending) > 0 {
		return ctx.Err() // a batch was lost: the dump failed elsewhere
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("dump: %w", err)
		}
	}
	return ctx.Err()
}
