package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/memstore"
	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"
	"github.com/hidal-go/hidalgo/kv/flat"
	"github.com/molgraph/molgraph/graph/rdfio"
)

// Errors returned by Store methods, wrapped with the operation.
var (
	// ErrNotFound: the graph, resource or blob does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalidQuad: a quad has a missing or ill-placed term.
	ErrInvalidQuad = errors.New("invalid quad")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store closed")
)

// Pattern selects quads; a nil term matches anything. A nil Label matches
// every named graph (the union default graph).
type Pattern struct {
	Subject, Predicate, Object, Label quad.Value
}

// NamedGraph is a resource's graph: its IRI and its quads. The quads' Label
// is ignored on write and set to IRI on read.
type NamedGraph struct {
	IRI   quad.IRI
	Quads []quad.Quad
}

// Options configure a Store.
type Options struct {
	// ChunkQuads is the most quads PutGraphs commits in one transaction
	// (default 20000). A single graph larger than this is still committed
	// whole, in one transaction.
	ChunkQuads int
	// SyncWrites makes every commit fsync before it returns (Badger backend).
	SyncWrites bool
}

// molgraphIndexes is Cayley's default kv index list plus a predicate-first
// and a graph-first index (see doc.go).
var molgraphIndexes = []kv.QuadIndex{
	{Dirs: []quad.Direction{quad.Subject, quad.Predicate}},
	{Dirs: []quad.Direction{quad.Object, quad.Predicate, quad.Subject}},
	{Dirs: []quad.Direction{quad.Predicate, quad.Object, quad.Subject}},
	{Dirs: []quad.Direction{quad.Label, quad.Subject, quad.Predicate}},
}

// Store is molgraph's quad store: one named graph per resource, a blob
// store beside it, and pattern matching for the query layers. It is safe for
// concurrent use.
type Store struct {
	qs     cgraph.QuadStore
	kv     *badgerKV // nil for the memory backend
	hier   hkv.KV    // kv as Cayley sees it (Badger backend)
	memory bool
	blobs  *Blobs
	opt    Options

	// wmu serialises writers: PutGraph reads the stored graph and writes the
	// difference, which must not interleave with another writer.
	wmu sync.Mutex
	// mmu orders reads against writes. Cayley's memstore is not
	// thread-safe, and Cayley's kv layer has no query-level snapshot: an
	// index scan and the quads it resolves are read in separate
	// transactions, so a scan running across a commit would see part of a
	// replaced graph. Readers share the lock; a commit takes it alone.
	mmu    sync.RWMutex
	closed atomic.Bool
}

// Open opens (creating if needed) a Badger-backed store in dir: the quads
// in dir/graph and the blobs in dir/blobs. An interrupted commit of an
// earlier process is rolled back first.
func Open(dir string, opt Options) (*Store, error) {
	gdir := filepath.Join(dir, "graph")
	if err := os.MkdirAll(gdir, 0o750); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	bkv, err := openBadgerKV(gdir, opt.SyncWrites)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	hier := flat.Upgrade(bkv)
	copts := cgraph.Options{kv.OptNoBloom: true}
	if err := kv.Init(hier, copts); err == nil {
		if err := writeIndexes(hier); err != nil {
			bkv.Close()
			return nil, fmt.Errorf("open store: %w", err)
		}
	} else if !errors.Is(err, cgraph.ErrDatabaseExists) {
		bkv.Close()
		return nil, fmt.Errorf("open store: init: %w", err)
	}
	s := &Store{kv: bkv, hier: keepOpen{hier}, opt: opt.withDefaults()}
	if err := s.openCayley(); err != nil {
		bkv.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	blobs, err := openDirBlobs(filepath.Join(dir, "blobs"))
	if err != nil {
		s.qs.Close()
		bkv.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	s.blobs = blobs
	return s, nil
}

// keepOpen keeps Cayley from closing our KV when it closes its quad store:
// the Store reopens Cayley over the same KV after a failed write (see
// apply) and closes the KV itself.
type keepOpen struct{ hkv.KV }

func (keepOpen) Close() error { return nil }

// openCayley (re)creates Cayley's kv quad store over s.hier, dropping its
// in-memory caches.
func (s *Store) openCayley() error {
	if s.qs != nil {
		s.qs.Close()
	}
	qs, err := kv.New(s.hier, cgraph.Options{kv.OptNoBloom: true})
	if err != nil {
		return err
	}
	s.qs = qs
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

// OpenMemory returns an empty in-memory store (Cayley's memstore and an
// in-memory blob store).
func OpenMemory(opt Options) (*Store, error) {
	return &Store{qs: memstore.New(), memory: true, blobs: memBlobs(), opt: opt.withDefaults()}, nil
}

func (o Options) withDefaults() Options {
	if o.ChunkQuads <= 0 {
		o.ChunkQuads = 20000
	}
	return o
}

// Close closes the store. Further calls return ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return ErrClosed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mmu.Lock()
	defer s.mmu.Unlock()
	err := s.qs.Close()
	if s.kv != nil {
		if kerr := s.kv.Close(); err == nil {
			err = kerr
		}
	}
	return err
}

// Ready reports whether the store is open and answers a read.
func (s *Store) Ready(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	_, err := s.EstimateCount(ctx, Pattern{Predicate: quad.IRI("urn:x-molgraph:ready")})
	return err
}

// Blobs returns the content-addressed blob store beside the graph.
func (s *Store) Blobs() *Blobs { return s.blobs }

// Backend names the backend: "badger" or "memory".
func (s *Store) Backend() string {
	if s.memory {
		return "memory"
	}
	return "badger"
}

// View runs fn with the underlying Cayley quad store, for Cayley paths and
// shapes. fn must not keep qs or its iterators after it returns.
func (s *Store) View(ctx context.Context, fn func(qs cgraph.QuadStore) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	s.mmu.RLock()
	defer s.mmu.RUnlock()
	return fn(s.qs)
}

func validate(q quad.Quad) error {
	switch q.Subject.(type) {
	case quad.IRI, quad.BNode:
	default:
		return fmt.Errorf("%w: subject %v is not an IRI or blank node", ErrInvalidQuad, q.Subject)
	}
	if _, ok := q.Predicate.(quad.IRI); !ok {
		return fmt.Errorf("%w: predicate %v is not an IRI", ErrInvalidQuad, q.Predicate)
	}
	switch o := q.Object.(type) {
	case quad.IRI, quad.BNode, quad.String, quad.LangString:
	case quad.TypedString:
		if o.Type == "" {
			return fmt.Errorf("%w: typed literal %q has no datatype", ErrInvalidQuad, o.Value)
		}
	case nil:
		return fmt.Errorf("%w: missing object", ErrInvalidQuad)
	default:
		return fmt.Errorf("%w: object %v has type %T; build literals with package ontology", ErrInvalidQuad, o, o)
	}
	return nil
}

// normalize checks the quads of one graph, sets their label and removes
// duplicates.
func normalize(g quad.IRI, quads []quad.Quad) (map[quad.Quad]struct{}, error) {
	if g == "" {
		return nil, fmt.Errorf("%w: empty graph name", ErrInvalidQuad)
	}
	set := make(map[quad.Quad]struct{}, len(quads))
	for _, q := range quads {
		q.Label = g
		if err := validate(q); err != nil {
			return nil, err
		}
		set[q] = struct{}{}
	}
	return set, nil
}

// diff returns the deltas that turn the stored graph g into want.
func (s *Store) diff(ctx context.Context, g quad.IRI, want map[quad.Quad]struct{}) ([]cgraph.Delta, error) {
	var deltas []cgraph.Delta
	have := make(map[quad.Quad]struct{})
	err := s.Match(ctx, Pattern{Label: g}, func(q quad.Quad) error {
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

func (s *Store) apply(deltas []cgraph.Delta) error {
	if len(deltas) == 0 {
		return nil
	}
	s.mmu.Lock()
	defer s.mmu.Unlock()
	if s.kv == nil {
		return s.qs.ApplyDeltas(deltas, cgraph.IgnoreOpts{})
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
	err := s.kv.Group(func() error {
		for _, part := range [][]cgraph.Delta{dels, adds} {
			if len(part) == 0 {
				continue
			}
			if err := s.qs.ApplyDeltas(part, cgraph.IgnoreOpts{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// Cayley cached node ids of the discarded writes: start afresh.
		if rerr := s.openCayley(); rerr != nil {
			return fmt.Errorf("%w (and reopening failed: %v)", err, rerr)
		}
	}
	return err
}

// PutGraph replaces the named graph g with quads, atomically: readers see
// either the old graph or the new one. Only the difference to the stored
// graph is written. An empty quads deletes the graph.
func (s *Store) PutGraph(ctx context.Context, g quad.IRI, quads []quad.Quad) error {
	return s.PutGraphs(ctx, []NamedGraph{{IRI: g, Quads: quads}}, nil)
}

// PutGraphs replaces many named graphs. Graphs are grouped into chunks of
// at most Options.ChunkQuads quads (whole graphs only); each chunk is one
// transaction, so every graph becomes visible all at once, and a failure
// leaves earlier chunks stored and the failing chunk not at all. progress, if
// not nil, is called with the number of graphs stored after each chunk.
func (s *Store) PutGraphs(ctx context.Context, graphs []NamedGraph, progress func(done int)) error {
	if s.closed.Load() {
		return ErrClosed
	}
	sets := make([]map[quad.Quad]struct{}, len(graphs))
	for i, ng := range graphs {
		set, err := normalize(ng.IRI, ng.Quads)
		if err != nil {
			return fmt.Errorf("put graph %s: %w", ng.IRI, err)
		}
		sets[i] = set
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var (
		chunk []cgraph.Delta
		n     int
		done  int
	)
	flush := func() error {
		if err := s.apply(chunk); err != nil {
			return fmt.Errorf("put graphs: %w", err)
		}
		chunk, n = chunk[:0], 0
		if progress != nil {
			progress(done)
		}
		return nil
	}
	seen := make(map[quad.IRI]int, len(graphs))
	for i, ng := range graphs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if j, dup := seen[ng.IRI]; dup {
			return fmt.Errorf("put graphs: %w: graph %s given twice (%d and %d)", ErrInvalidQuad, ng.IRI, j, i)
		}
		seen[ng.IRI] = i
		if n > 0 && n+len(sets[i]) > s.opt.ChunkQuads {
			if err := flush(); err != nil {
				return err
			}
		}
		d, err := s.diff(ctx, ng.IRI, sets[i])
		if err != nil {
			return fmt.Errorf("put graph %s: %w", ng.IRI, err)
		}
		chunk = append(chunk, d...)
		n += len(sets[i])
		done++
	}
	if n > 0 || len(chunk) > 0 {
		return flush()
	}
	return nil
}

// Graph returns the quads of the named graph g in N-Triples order
// (rdfio.SortQuads), or ErrNotFound.
func (s *Store) Graph(ctx context.Context, g quad.IRI) ([]quad.Quad, error) {
	var out []quad.Quad
	err := s.Match(ctx, Pattern{Label: g}, func(q quad.Quad) error {
		out = append(out, q)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("graph %s: %w", g, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("graph %s: %w", g, ErrNotFound)
	}
	rdfio.SortQuads(out)
	return out, nil
}

// HasGraph reports whether the named graph g has any quad.
func (s *Store) HasGraph(ctx context.Context, g quad.IRI) (bool, error) {
	found := false
	err := s.Match(ctx, Pattern{Label: g}, func(quad.Quad) error {
		found = true
		return errStop
	})
	return found, err
}

// DeleteGraph removes the named graph g, or returns ErrNotFound.
func (s *Store) DeleteGraph(ctx context.Context, g quad.IRI) error {
	if s.closed.Load() {
		return ErrClosed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	deltas, err := s.diff(ctx, g, nil)
	if err != nil {
		return fmt.Errorf("delete graph %s: %w", g, err)
	}
	if len(deltas) == 0 {
		return fmt.Errorf("delete graph %s: %w", g, ErrNotFound)
	}
	if err := s.apply(deltas); err != nil {
		return fmt.Errorf("delete graph %s: %w", g, err)
	}
	return nil
}

// ListByClass returns, in IRI order, up to limit resources of the given
// class (nodes that are the subject of "?r rdf:type class" in their own
// named graph) whose IRI sorts after the cursor after ("" for the first
// page). It also returns whether more follow.
func (s *Store) ListByClass(ctx context.Context, class quad.IRI, after quad.IRI, limit int) ([]quad.IRI, bool, error) {
	var all []quad.IRI
	err := s.Match(ctx, Pattern{Predicate: quad.IRI(rdfType), Object: class}, func(q quad.Quad) error {
		if iri, ok := q.Subject.(quad.IRI); ok && q.Label == iri && iri > after {
			all = append(all, iri)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("list %s: %w", class, err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	if limit <= 0 || limit >= len(all) {
		return all, false, nil
	}
	return all[:limit], true, nil
}

const rdfType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

var errStop = errors.New("stop")

// Match calls fn for every quad matching p until fn returns an error,
// which Match returns. Quads are found through an index on the most
// selective bound term. The matches are read under the store's read lock
// and fn is called after it is released, so fn may call Match again (the
// query engines join that way) while a writer waits; the price is that a
// scan's matches are held in memory at once.
func (s *Store) Match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	var buf []quad.Quad
	s.mmu.RLock()
	err := s.match(ctx, p, func(q quad.Quad) error {
		buf = append(buf, q)
		return nil
	})
	s.mmu.RUnlock()
	if err != nil {
		return err
	}
	for _, q := range buf {
		if err := fn(q); err != nil {
			if err == errStop {
				return nil
			}
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
func (s *Store) bound(p Pattern) (dirs []boundDir, ok bool) {
	for _, d := range []quad.Direction{quad.Label, quad.Subject, quad.Object, quad.Predicate} {
		v := patternTerm(p, d)
		if v == nil {
			continue
		}
		ref := s.qs.ValueOf(v)
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

func (s *Store) match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	dirs, ok := s.bound(p)
	if !ok {
		return nil
	}
	var it cgraph.Iterator
	if len(dirs) == 0 {
		it = s.qs.QuadsAllIterator()
		dirs = []boundDir{{}} // nothing to check below
	} else {
		// Label, Subject, Object, Predicate: the order in which the terms
		// of molgraph's data are usually most selective; the kv backend's
		// size estimates cannot tell them apart.
		it = s.qs.QuadIterator(dirs[0].dir, dirs[0].ref)
	}
	defer it.Close()
	for it.Next(ctx) {
		ref := it.Result()
		keep := true
		for _, b := range dirs[1:] {
			if r := s.qs.QuadDirection(ref, b.dir); r == nil || r.Key() != b.ref.Key() {
				keep = false
				break
			}
		}
		if !keep {
			continue
		}
		q := s.qs.Quad(ref)
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

// EstimateCount estimates how many quads match p (exact for the memory
// backend; an upper bound from the index of the first bound term for Badger).
func (s *Store) EstimateCount(ctx context.Context, p Pattern) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	s.mmu.RLock()
	defer s.mmu.RUnlock()
	dirs, ok := s.bound(p)
	if !ok {
		return 0, nil
	}
	if len(dirs) == 0 {
		st, err := s.qs.Stats(ctx, false)
		return st.Quads.Size, err
	}
	best := int64(-1)
	for _, b := range dirs {
		sz, err := s.qs.QuadIteratorSize(ctx, b.dir, b.ref)
		if err != nil {
			return 0, err
		}
		if best < 0 || sz.Size < best {
			best = sz.Size
		}
	}
	return best, nil
}

// Graphs calls fn with the name of every named graph, each once.
func (s *Store) Graphs(ctx context.Context, fn func(quad.IRI) error) error {
	seen := make(map[quad.Value]struct{})
	return s.Match(ctx, Pattern{}, func(q quad.Quad) error {
		if _, ok := seen[q.Label]; ok {
			return nil
		}
		seen[q.Label] = struct{}{}
		if iri, ok := q.Label.(quad.IRI); ok {
			return fn(iri)
		}
		return nil
	})
}

// Stats reports the number of quads and nodes (estimates for Badger).
func (s *Store) Stats(ctx context.Context) (quads, nodes int64, err error) {
	if s.closed.Load() {
		return 0, 0, ErrClosed
	}
	s.mmu.RLock()
	defer s.mmu.RUnlock()
	st, err := s.qs.Stats(ctx, false)
	return st.Quads.Size, st.Nodes.Size, err
}
