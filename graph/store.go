package graph

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	cgraph "github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph/quadstore"
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
	// Side entries commit with the graph (side.go).
	Side []SideEntry
}

// Options configure a Store.
type Options struct {
	// ChunkQuads is the most quads PutGraphs commits in one transaction
	// (default 20000). A single graph larger than this is still committed
	// whole, in one transaction.
	ChunkQuads int
	// SyncWrites makes every write durable against power loss before it
	// returns (the native Badger backend). Writes share fsyncs (group commit, quadstore.Store.Sync): a
	// write returns once a sync that began after its commit has finished.
	// Without it a returned write survives the death of the process
	// (kill -9), not a power loss.
	SyncWrites bool
	// MinFreeBytes is the free space kept in reserve on the data
	// directory's file system (see ErrNoSpace): writes and blob puts fail
	// with ErrNoSpace, and Ready reports it, while less is free. 0: none.
	MinFreeBytes int64
	// MemoryLimitMB, if > 0, is set as the process's Go soft memory limit
	// when the Badger backend opens, unless GOMEMLIMIT sets one (see
	// quadstore.Options.MemoryLimitMB). It is the process's to choose, so
	// only main sets it.
	MemoryLimitMB int
	// ColumnsMaxTriples bounds the native backend's in-memory columns of
	// the triples (quadstore.Options.ColumnsMaxTriples): 0 takes
	// quadstore.DefaultColumnsMaxTriples, negative builds none.
	ColumnsMaxTriples int64
}

// Range is an interval of numbers for NumericRange; use math.Inf for an
// open end.
type Range struct {
	Min, Max                   float64
	MinExclusive, MaxExclusive bool
}

func (r Range) contains(f float64) bool {
	if f < r.Min || f > r.Max || (r.MinExclusive && f == r.Min) || (r.MaxExclusive && f == r.Max) {
		return false
	}
	return true
}

// numericValue reads a numeric literal (xsd:double, float, decimal,
// integer and the integer types derived from it).
func numericValue(v quad.Value) (float64, bool) {
	ts, ok := v.(quad.TypedString)
	if !ok {
		return 0, false
	}
	switch ts.Type {
	case xsd + "double", xsd + "float", xsd + "decimal", xsd + "integer", xsd + "int", xsd + "long",
		xsd + "short", xsd + "byte", xsd + "nonNegativeInteger", xsd + "positiveInteger",
		xsd + "nonPositiveInteger", xsd + "negativeInteger", xsd + "unsignedLong", xsd + "unsignedInt",
		xsd + "unsignedShort", xsd + "unsignedByte":
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(string(ts.Value), 64)
	if errors.Is(err, strconv.ErrRange) {
		return f, true // beyond float64: ParseFloat gives ±Inf
	}
	if err != nil {
		switch ts.Value {
		case "INF", "+INF":
			return math.Inf(1), true
		case "-INF":
			return math.Inf(-1), true
		}
		return 0, false
	}
	return f, !math.IsNaN(f)
}

const xsd = "http://www.w3.org/2001/XMLSchema#"

// normGraph is a checked graph: every quad labelled with iri, no duplicates.
type normGraph struct {
	iri   quad.IRI
	quads map[quad.Quad]struct{}
	side  []SideEntry
}

// backend is what a Store runs on. Every method reads or writes whole
// transactions: replace commits all its graphs at once; match sees one
// consistent state, and its callback may call match again.
type backend interface {
	replace(ctx context.Context, graphs []normGraph) error
	match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error
	count(ctx context.Context, p Pattern) (int64, error)
	numericRange(ctx context.Context, pred quad.IRI, r Range, fn func(quad.Quad) error) error
	graphs(ctx context.Context, fn func(quad.IRI) error) error
	stats(ctx context.Context) (quads, nodes int64, err error)
	view(ctx context.Context, fn func(qs cgraph.QuadStore) error) error
	// sync makes every write that returned durable (Options.SyncWrites).
	sync() error
	recovered() bool
	close() error
}

// Store is molgraph's quad store: one named graph per resource, a blob
// store beside it, and pattern matching for the query layers. It is safe for
// concurrent use.
type Store struct {
	b       backend
	backend string
	blobs   *Blobs
	opt     Options
	dir     string // "" for memory

	// wmu serialises writers: replacing a graph reads what is stored and
	// writes the difference, which must not interleave with another writer.
	wmu    sync.Mutex
	closed atomic.Bool

	// Side keyspace (side.go): the in-memory one of the memory backend,
	// and the watchers of committed side entries.
	mside     memSide
	sideMu    sync.Mutex
	sideWatch []func([]SideEntry)
}

// Open opens (creating if needed) a store in dir on the native Badger quad
// store (package graph/quadstore): the quads in dir/quads, the blobs in
// dir/blobs. An interrupted commit of an earlier process is rolled back
// first.
func Open(dir string, opt Options) (*Store, error) {
	// The term caches hold a million entries each: enough for the working
	// set of queries over a few hundred thousand resources, which would
	// otherwise read a term from Badger for most rows.
	qs, err := quadstore.Open(filepath.Join(dir, "quads"), quadstore.Options{SyncWrites: opt.SyncWrites, CacheEntries: 1 << 20, MemoryLimitMB: opt.MemoryLimitMB,
		ColumnsMaxTriples: opt.ColumnsMaxTriples})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	s, err := withBlobs(&nativeBackend{qs: qs}, "badger", dir, opt)
	if err != nil {
		return nil, err
	}
	if err := s.buildClassIndex(context.Background()); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	return s, nil
}

func withBlobs(b backend, name, dir string, opt Options) (*Store, error) {
	blobs, err := openDirBlobs(filepath.Join(dir, "blobs"), opt.MinFreeBytes)
	if err != nil {
		b.close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	return &Store{b: b, backend: name, blobs: blobs, opt: opt.withDefaults(), dir: dir}, nil
}

// OpenMemory returns an empty in-memory store (Cayley's memstore and an
// in-memory blob store).
func OpenMemory(opt Options) (*Store, error) {
	return &Store{b: newMemoryBackend(), backend: "memory", blobs: memBlobs(), opt: opt.withDefaults()}, nil
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
	return s.b.close()
}

// Ready reports whether the store is open, answers a read and can take
// writes (ErrNoSpace while the disk is below its reserve).
func (s *Store) Ready(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if _, err := s.EstimateCount(ctx, Pattern{Predicate: quad.IRI("urn:x-molgraph:ready")}); err != nil {
		return err
	}
	return s.CheckSpace()
}

// CheckSpace returns ErrNoSpace while the data directory's file system has
// less free space than Options.MinFreeBytes.
func (s *Store) CheckSpace() error { return space(s.dir, s.opt.MinFreeBytes) }

// sync waits until the writes that returned are durable.
func (s *Store) sync() error {
	if !s.opt.SyncWrites {
		return nil
	}
	return noSpace(s.b.sync())
}

// Blobs returns the content-addressed blob store beside the graph.
func (s *Store) Blobs() *Blobs { return s.blobs }

// Backend names the backend: "badger" (native) or "memory".
func (s *Store) Backend() string { return s.backend }

// Recovered reports whether opening the store rolled back a commit that an
// earlier process did not finish.
func (s *Store) Recovered() bool { return s.b.recovered() }

// View runs fn with a Cayley quad store showing one consistent state, for
// Cayley paths and shapes. fn must not keep qs or its iterators after it
// returns.
func (s *Store) View(ctx context.Context, fn func(qs cgraph.QuadStore) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.b.view(ctx, fn)
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
	if err := s.CommitGraphs(ctx, graphs, progress); err != nil {
		return err
	}
	// Outside the writer lock, so that the next writer commits while this
	// one waits for the fsync that covers both.
	if err := s.sync(); err != nil {
		return fmt.Errorf("put graphs: %w", err)
	}
	return nil
}

// CommitGraphs is PutGraphs without the wait for durability: the graphs
// are visible to readers when it returns, and durable against a power loss
// once a later Sync (or PutGraphs) returns. It is for callers that commit
// under a lock of their own: they call Sync after releasing it, so that
// the callers waiting for that lock commit meanwhile and share the fsync.
func (s *Store) CommitGraphs(ctx context.Context, graphs []NamedGraph, progress func(done int)) error {
	if s.closed.Load() {
		return ErrClosed
	}
	sets := make([]normGraph, len(graphs))
	for i, ng := range graphs {
		set, err := normalize(ng.IRI, ng.Quads)
		if err != nil {
			return fmt.Errorf("put graph %s: %w", ng.IRI, err)
		}
		if err := checkSide(ng.Side); err != nil {
			return fmt.Errorf("put graph %s: %w", ng.IRI, err)
		}
		sets[i] = normGraph{iri: ng.IRI, quads: set, side: ng.Side}
	}
	if err := s.CheckSpace(); err != nil {
		return fmt.Errorf("put graphs: %w", err)
	}
	return s.putGraphs(ctx, graphs, sets, progress)
}

// Sync returns when every commit visible so far is durable against a power
// loss (at once without Options.SyncWrites). Concurrent callers share one
// fsync round (group commit).
func (s *Store) Sync() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.sync()
}

func (s *Store) putGraphs(ctx context.Context, graphs []NamedGraph, sets []normGraph, progress func(done int)) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var (
		chunk []normGraph
		n     int
		done  int
	)
	flush := func() error {
		indexed, err := s.withClassIndex(ctx, chunk)
		if err != nil {
			return fmt.Errorf("put graphs: %w", err)
		}
		if err := s.b.replace(ctx, indexed); err != nil {
			return fmt.Errorf("put graphs: %w", noSpace(err))
		}
		s.committedSide(chunk)
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
		if n > 0 && n+len(sets[i].quads) > s.opt.ChunkQuads {
			if err := flush(); err != nil {
				return err
			}
		}
		chunk = append(chunk, sets[i])
		n += len(sets[i].quads)
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
	out, err := s.GraphUnsorted(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("graph %s: %w", g, err)
	}
	rdfio.SortQuads(out)
	return out, nil
}

// GraphUnsorted returns the quads of the named graph g in the store's
// order, or ErrNotFound (not wrapped): for callers that do not depend on
// the order, since sorting by the N-Triples form of every term can cost
// more than the read itself.
func (s *Store) GraphUnsorted(ctx context.Context, g quad.IRI) ([]quad.Quad, error) {
	var out []quad.Quad
	err := s.Match(ctx, Pattern{Label: g}, func(q quad.Quad) error {
		out = append(out, q)
		return nil
	})
	if err == nil && len(out) == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return nil, err
	}
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
	if err := s.CheckSpace(); err != nil {
		return fmt.Errorf("delete graph %s: %w", g, err)
	}
	if err := s.deleteGraph(ctx, g); err != nil {
		return err
	}
	if err := s.sync(); err != nil {
		return fmt.Errorf("delete graph %s: %w", g, err)
	}
	return nil
}

func (s *Store) deleteGraph(ctx context.Context, g quad.IRI) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if ok, err := s.HasGraph(ctx, g); err != nil {
		return fmt.Errorf("delete graph %s: %w", g, err)
	} else if !ok {
		return fmt.Errorf("delete graph %s: %w", g, ErrNotFound)
	}
	indexed, err := s.withClassIndex(ctx, []normGraph{{iri: g}})
	if err != nil {
		return fmt.Errorf("delete graph %s: %w", g, err)
	}
	if err := s.b.replace(ctx, indexed); err != nil {
		return fmt.Errorf("delete graph %s: %w", g, noSpace(err))
	}
	return nil
}

// ListByClass returns, in IRI order, up to limit resources of the given
// class (nodes that are the subject of "?r rdf:type class" in their own
// named graph) whose IRI sorts after the cursor after ("" for the first
// page). It also returns whether more follow.
func (s *Store) ListByClass(ctx context.Context, class quad.IRI, after quad.IRI, limit int) ([]quad.IRI, bool, error) {
	if s.closed.Load() {
		return nil, false, ErrClosed
	}
	if s.native() != nil {
		return s.listByClassIndex(ctx, class, after, limit)
	}
	// The memory backend has no class index (classindex.go): the POSG
	// index is in term-id order, not IRI order, so every member is read;
	// but only the limit smallest are kept (a max-heap), not all of them
	// sorted.
	var top iriHeap
	n := 0
	err := s.Match(ctx, Pattern{Predicate: quad.IRI(rdfType), Object: class}, func(q quad.Quad) error {
		iri, ok := q.Subject.(quad.IRI)
		if !ok || q.Label != iri || iri <= after {
			return nil
		}
		n++
		switch {
		case limit <= 0 || len(top) < limit:
			heap.Push(&top, iri)
		case iri < top[0]:
			top[0] = iri
			heap.Fix(&top, 0)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("list %s: %w", class, err)
	}
	page := []quad.IRI(top)
	slices.Sort(page)
	return page, n > len(page), nil
}

// iriHeap is a max-heap of IRIs (container/heap).
type iriHeap []quad.IRI

func (h iriHeap) Len() int           { return len(h) }
func (h iriHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h iriHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *iriHeap) Push(x any)        { *h = append(*h, x.(quad.IRI)) }
func (h *iriHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

const rdfType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

var errStop = errors.New("stop")

// Match calls fn for every quad matching p, all read from one consistent
// state, until fn returns an error, which Match returns. fn may call Match
// again. Quads are found through the index that covers the bound terms.
func (s *Store) Match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	err := s.b.match(ctx, p, fn)
	if err == errStop {
		return nil
	}
	return err
}

// NumericRange calls fn for every quad with predicate pred whose object is a
// numeric literal with a value in r. The native backend answers from its
// numeric index in ascending order; the others scan the predicate.
func (s *Store) NumericRange(ctx context.Context, pred quad.IRI, r Range, fn func(quad.Quad) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.b.numericRange(ctx, pred, r, fn)
}

// EstimateCount estimates how many quads match p: exact on the native
// backend; on the memory backend exact for one bound term, else the
// smallest count of the bound terms (an upper bound).
func (s *Store) EstimateCount(ctx context.Context, p Pattern) (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	return s.b.count(ctx, p)
}

// Graphs calls fn with the name of every named graph, each once.
func (s *Store) Graphs(ctx context.Context, fn func(quad.IRI) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.b.graphs(ctx, fn)
}

// Stats reports the number of quads and nodes.
func (s *Store) Stats(ctx context.Context) (quads, nodes int64, err error) {
	if s.closed.Load() {
		return 0, 0, ErrClosed
	}
	return s.b.stats(ctx)
}

// View is a read view of a Store for a run of many reads, such as one query:
// on the native backend it reads one consistent snapshot through one
// transaction, re-seeking pooled iterators and remembering resolved terms,
// which makes each small Match much cheaper than Store.Match; on the other
// backends it reads through the Store. A View is not safe for concurrent
// use. Close it when done.
type View struct {
	s  *Store
	nv *quadstore.View // nil: read through s
}

// ReadView returns a read view of the last committed state.
func (s *Store) ReadView(ctx context.Context) (*View, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	v := &View{s: s}
	if nb, ok := s.b.(*nativeBackend); ok {
		nv, err := nb.qs.NewView()
		if err != nil {
			return nil, err
		}
		v.nv = nv
	}
	return v, nil
}

// Close releases the view. It always returns nil.
func (v *View) Close() error {
	if v.nv != nil {
		v.nv.Close()
	}
	return nil
}

// Match is Store.Match read from the view.
func (v *View) Match(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	if v.nv == nil {
		return v.s.Match(ctx, p, fn)
	}
	if v.s.closed.Load() {
		return ErrClosed
	}
	return v.nv.Match(ctx, pattern(p), quadstore.MatchOptions{}, dropDefault(fn))
}

// MatchTriples calls fn once for every triple (subject, predicate, object)
// that matches p in at least one named graph of the view (the RDF merge of
// all named graphs, molgraph's default graph); p.Label must be nil, and the
// reported quads have a nil Label.
func (v *View) MatchTriples(ctx context.Context, p Pattern, fn func(quad.Quad) error) error {
	if p.Label != nil {
		return fmt.Errorf("match triples: %w: label %v given", ErrInvalidQuad, p.Label)
	}
	if v.nv != nil {
		if v.s.closed.Load() {
			return ErrClosed
		}
		return v.nv.Match(ctx, pattern(p), quadstore.MatchOptions{Triples: true}, fn)
	}
	return v.s.Match(ctx, p, distinctTriples(fn))
}

// NumericRange is Store.NumericRange read from the view.
func (v *View) NumericRange(ctx context.Context, pred quad.IRI, r Range, fn func(quad.Quad) error) error {
	if v.nv == nil {
		return v.s.NumericRange(ctx, pred, r, fn)
	}
	if v.s.closed.Load() {
		return ErrClosed
	}
	return v.nv.NumericRange(ctx, pred, quadRange(r), quadstore.MatchOptions{}, dropDefault(fn))
}

// NumericRangeTriples is NumericRange over the triples of the merged named
// graphs: each (subject, object) pair once, with a nil Label.
func (v *View) NumericRangeTriples(ctx context.Context, pred quad.IRI, r Range, fn func(quad.Quad) error) error {
	if v.nv != nil {
		if v.s.closed.Load() {
			return ErrClosed
		}
		return v.nv.NumericRange(ctx, pred, quadRange(r), quadstore.MatchOptions{Triples: true}, fn)
	}
	return v.s.NumericRange(ctx, pred, r, distinctTriples(fn))
}

// distinctTriples calls fn once per triple of the quads it is given, with
// a nil Label (the backends without a native triples mode).
func distinctTriples(fn func(quad.Quad) error) func(quad.Quad) error {
	seen := map[quad.Quad]bool{}
	return func(q quad.Quad) error {
		q.Label = nil
		if seen[q] {
			return nil
		}
		seen[q] = true
		return fn(q)
	}
}

// EstimateCount estimates how many quads match p. On the native backend
// it is exact for patterns with at most one bound term and for those
// matching up to 10,000 quads; beyond, it is an upper bound (the smallest
// use count of the bound terms), found without a long scan.
func (v *View) EstimateCount(ctx context.Context, p Pattern) (int64, error) {
	if v.nv == nil {
		return v.s.EstimateCount(ctx, p)
	}
	if v.s.closed.Load() {
		return 0, ErrClosed
	}
	return v.nv.Estimate(ctx, pattern(p), 10000)
}

// Graphs is Store.Graphs (the list of graphs is read from the store).
func (v *View) Graphs(ctx context.Context, fn func(quad.IRI) error) error {
	return v.s.Graphs(ctx, fn)
}

// ErrNoIDs is returned by the id methods of a View on a backend without
// term ids (see View.HasIDs).
var ErrNoIDs = errors.New("store has no term ids")

// HasIDs reports whether the view's backend numbers its terms (the native
// backend): then TermID, MatchTriplesIDs and NumericRangeTriplesIDs work.
// Within one view, equal ids mean the same stored term.
func (v *View) HasIDs() bool { return v.nv != nil }

// TermID returns the id of term t in the view, 0 when t is not stored.
func (v *View) TermID(t quad.Value) (uint64, error) {
	if v.nv == nil {
		return 0, ErrNoIDs
	}
	return v.nv.ID(t)
}

// MatchTriplesIDs is MatchTriples that also passes the ids of each
// triple's terms and does not decode the positions (subject, predicate,
// object) marked in skip (left nil).
func (v *View) MatchTriplesIDs(ctx context.Context, p Pattern, skip [3]bool, fn func(quad.Quad, [3]uint64) error) error {
	if v.nv == nil {
		return ErrNoIDs
	}
	if p.Label != nil {
		return fmt.Errorf("match triples: %w: label %v given", ErrInvalidQuad, p.Label)
	}
	if v.s.closed.Load() {
		return ErrClosed
	}
	opt := quadstore.MatchOptions{Triples: true, Skip: [4]bool{skip[0], skip[1], skip[2]}}
	return v.nv.MatchIDs(ctx, pattern(p), opt, func(q quad.Quad, id [4]uint64) error {
		return fn(q, [3]uint64{id[0], id[1], id[2]})
	})
}

// NumericRangeTriplesIDs is NumericRangeTriples that also passes the ids
// of each triple's terms; the subject is not decoded (left nil) when
// skipSubject is set.
func (v *View) NumericRangeTriplesIDs(ctx context.Context, pred quad.IRI, r Range, skipSubject, skipObject bool, fn func(quad.Quad, [3]uint64) error) error {
	if v.nv == nil {
		return ErrNoIDs
	}
	if v.s.closed.Load() {
		return ErrClosed
	}
	opt := quadstore.MatchOptions{Triples: true, Skip: [4]bool{skipSubject, false, skipObject}}
	return v.nv.NumericRangeIDs(ctx, pred, quadRange(r), opt, func(q quad.Quad, id [4]uint64) error {
		return fn(q, [3]uint64{id[0], id[1], id[2]})
	})
}

// CountNumericRange estimates the size of NumericRange(pred, r), counting
// at most limit quads (of any graph); only the native backend has it
// (ErrNoIDs otherwise).
func (v *View) CountNumericRange(ctx context.Context, pred quad.IRI, r Range, limit int64) (int64, error) {
	if v.nv == nil {
		return 0, ErrNoIDs
	}
	if v.s.closed.Load() {
		return 0, ErrClosed
	}
	return v.nv.CountNumericRange(ctx, pred, quadRange(r), limit)
}

// HasColumns reports whether the view reads the native store's in-memory
// columns (quadstore.Columns): then MatchTriplesBoundIDs answers.
func (v *View) HasColumns() bool { return v.nv != nil && v.nv.HasColumns() }

// MatchTriplesBoundIDs reads the triples of the merged named graphs whose
// terms have the ids bound (0: open; the predicate bound) from the
// columns, passing the terms of the open positions (but those in skip)
// and every position's id; handled is false when the view has no columns
// (see HasColumns) or the predicate is open.
func (v *View) MatchTriplesBoundIDs(ctx context.Context, bound [3]uint64, skip [3]bool, fn func(t [3]quad.Value, id [3]uint64) error) (handled bool, err error) {
	if v.nv == nil {
		return false, nil
	}
	if v.s.closed.Load() {
		return true, ErrClosed
	}
	return v.nv.MatchColumnIDs(ctx, bound, skip, fn)
}

// BuildColumns builds the native backend's in-memory columns of the last
// commit now and has the views of that commit read them (they are
// otherwise built on a goroutine after commits; see quadstore.Columns).
// Other backends have none: it does nothing.
func (s *Store) BuildColumns(ctx context.Context) error {
	nb, ok := s.b.(*nativeBackend)
	if !ok {
		return nil
	}
	return nb.qs.BuildColumns(ctx)
}
