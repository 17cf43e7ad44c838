package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/ontology"
)

// Errors of the package, wrapped with the operation.
var (
	// ErrInvalidQuery: a structure query that does not parse, or options
	// that do not fit it (a SMARTS superstructure query). Wraps
	// chem.ErrInvalidQuery where chem refused it.
	ErrInvalidQuery = chem.ErrInvalidQuery
	// ErrBadOptions: a threshold out of 0..1, a negative top, an unknown
	// query format.
	ErrBadOptions = errors.New("invalid search options")
)

const (
	idLen     = 26 // molecule id without "mol-"
	fpVersion = 1
	fpValue   = 1 + 2*chem.FPWords*8
	nBuckets  = chem.FPWords*64 + 1
)

// Side-keyspace prefixes (doc.go).
const (
	prefixFP     = "f"
	prefixPickle = "p"
	prefixKey    = "k"
)

// bucket holds the molecules whose Morgan fingerprint has one popcount:
// their Morgan words, pattern words and id suffixes, back to back.
type bucket struct {
	morgan  []uint64
	pattern []uint64
	ids     []byte
	// slots name the molecules in Index.mols (-1: not held there)
	slots []int32
	// sums are the chem.Summary of each molecule (chem.SummaryWords words each), for the
	// screen after the pattern fingerprint's; empty when the index holds
	// no molecules (Options.CacheMolecules 0)
	sums []uint64
}

func (b *bucket) len() int { return len(b.ids) / idLen }

func (b *bucket) id(i int) string {
	return ontology.MoleculeIDPrefix + string(b.ids[i*idLen:(i+1)*idLen])
}

// view is the index as a search sees it: bucket headers copied when a
// commit was applied. The arrays behind them only grow past the lengths a
// view holds, so a view never changes.
type view struct {
	b [nBuckets]bucket
	n int
}

// Options configure an Index.
type Options struct {
	// Workers is the number of goroutines of a large scan and of
	// substructure matching (runtime.GOMAXPROCS(0) if <= 0).
	Workers int
	// Logf, if set, reports what Open did (entries loaded, rebuilt).
	Logf func(format string, args ...any)
	// CacheMolecules is how many molecules substructure search keeps in
	// memory as RDKit molecules (no unpickling per candidate; about 2-4 KB
	// each for drug-like molecules); the others are read from the store.
	// 0 keeps none.
	CacheMolecules int
	// NoGraphCheck skips the comparison with the graph's molecules (and
	// so the rebuild): for tools that fill the side keyspace themselves
	// (make bench-search builds its index from SMILES, without graphs).
	NoGraphCheck bool
}

// Index is the structure-search index over a graph store's molecules. It
// is safe for concurrent use.
type Index struct {
	store *graph.Store
	pool  *chem.Pool
	base  string
	opt   Options

	mu   sync.Mutex // appliers
	cur  atomic.Pointer[view]
	slot chan struct{} // matching batches in flight, all searches together
	// known holds the molecules applied while Open runs (nil after), so
	// that an entry seen both by the load and by a commit counts once.
	known map[string]struct{}
	// mols holds up to Options.CacheMolecules molecules (nil for none).
	mols *chem.MolSet
}

// Entries returns the side entries that register a molecule with the
// index; they must be committed with the molecule's graph
// (graph.NamedGraph.Side).
func Entries(id, inchiKey string, f *chem.Fingerprints) []graph.SideEntry {
	v := make([]byte, fpValue)
	v[0] = fpVersion
	for i, w := range f.Morgan {
		binary.LittleEndian.PutUint64(v[1+8*i:], w)
	}
	for i, w := range f.Pattern {
		binary.LittleEndian.PutUint64(v[1+8*chem.FPWords+8*i:], w)
	}
	out := []graph.SideEntry{
		{Key: []byte(prefixFP + id), Value: v},
		{Key: []byte(prefixPickle + id), Value: f.Pickle},
	}
	if inchiKey != "" {
		out = append(out, graph.SideEntry{Key: []byte(prefixKey + inchiKey + id), Value: []byte{}})
	}
	return out
}

// Prepare computes the side entries of a molecule from its canonical
// SMILES (see Entries): for a molecule read from the graph (registration
// gets them from its chem call, chem.Input.Fingerprints).
func Prepare(id, smiles, inchiKey string) ([]graph.SideEntry, error) {
	f, err := chem.FingerprintsOf(smiles)
	if err != nil {
		return nil, fmt.Errorf("fingerprints of %s: %w", id, err)
	}
	return Entries(id, inchiKey, f), nil
}

// decodeFP reads an f entry.
func decodeFP(key, v []byte) (suffix []byte, morgan, pattern *chem.FP, err error) {
	id := key[len(prefixFP):]
	if len(id) != len(ontology.MoleculeIDPrefix)+idLen || !bytes.HasPrefix(id, []byte(ontology.MoleculeIDPrefix)) {
		return nil, nil, nil, fmt.Errorf("fingerprint entry of %q: not a molecule id", id)
	}
	if len(v) != fpValue || v[0] != fpVersion {
		return nil, nil, nil, fmt.Errorf("fingerprint entry of %s: %d bytes, version %d", id, len(v), v[0])
	}
	var m, p chem.FP
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(v[1+8*i:])
		p[i] = binary.LittleEndian.Uint64(v[1+8*chem.FPWords+8*i:])
	}
	return id[len(ontology.MoleculeIDPrefix):], &m, &p, nil
}

func popcount(f *chem.FP) int {
	n := 0
	for _, w := range f {
		n += bits.OnesCount64(w)
	}
	return n
}

func (v *view) add(suffix []byte, m, p *chem.FP, slot int32, sum *chem.Summary) {
	b := &v.b[popcount(m)]
	b.morgan = append(b.morgan, m[:]...)
	b.pattern = append(b.pattern, p[:]...)
	b.ids = append(b.ids, suffix...)
	b.slots = append(b.slots, slot)
	if sum != nil {
		b.sums = append(b.sums, sum[:]...)
	}
	v.n++
}

// Open loads the index of store's molecules, rebuilding missing entries
// from the graph (see doc.go), and keeps it up to date with every later
// commit. Molecules may be registered while it opens: it watches the
// store's commits before it reads, and drops what it sees twice. pool
// serves exact searches by SMILES, InChI or molfile; base is the IRI base
// of molecule IRIs.
func Open(ctx context.Context, store *graph.Store, pool *chem.Pool, base string, opt Options) (*Index, error) {
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	x := &Index{store: store, pool: pool, base: base, opt: opt, slot: make(chan struct{}, opt.Workers),
		known: map[string]struct{}{}}
	x.cur.Store(&view{})
	if opt.CacheMolecules > 0 {
		x.mols = chem.NewMolSet(opt.CacheMolecules)
	}
	store.WatchSide(x.apply)
	// The molecules first, so that each fingerprint entry loaded finds its
	// molecule's slot.
	if x.mols != nil {
		err := store.ScanSide(ctx, []byte(prefixPickle), func(k, v []byte) error {
			if x.mols.Len() >= opt.CacheMolecules {
				return errFull
			}
			x.mols.Add(string(k[len(prefixPickle):]), v)
			return nil
		})
		if err != nil && !errors.Is(err, errFull) {
			return nil, fmt.Errorf("search: load molecules: %w", err)
		}
	}
	scanned := map[string]struct{}{}
	var bad [][]byte
	var chunk []graph.SideEntry
	err := store.ScanSide(ctx, []byte(prefixFP), func(k, val []byte) error {
		if _, _, _, err := decodeFP(k, val); err != nil {
			bad = append(bad, bytes.Clone(k))
			return nil
		}
		scanned[string(k[len(prefixFP)+len(ontology.MoleculeIDPrefix):])] = struct{}{}
		chunk = append(chunk, graph.SideEntry{Key: bytes.Clone(k), Value: bytes.Clone(val)})
		if len(chunk) == 4096 {
			x.apply(chunk)
			chunk = chunk[:0]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: load: %w", err)
	}
	x.apply(chunk)
	x.mu.Lock()
	t := *x.cur.Load()
	t.trim()
	x.cur.Store(&t)
	x.mu.Unlock()
	n, err := store.EstimateCount(ctx, graph.Pattern{Predicate: ontology.RDFType, Object: ontology.MoleculeClass})
	if err != nil {
		return nil, fmt.Errorf("search: count molecules: %w", err)
	}
	if !opt.NoGraphCheck && (n != int64(x.Len()) || len(bad) > 0) {
		if err := x.reconcile(ctx, scanned, bad); err != nil {
			return nil, err
		}
	}
	x.mu.Lock()
	x.known = nil
	x.mu.Unlock()
	x.logf("search: %d molecules indexed (%d fingerprint entries loaded)", x.Len(), len(scanned))
	return x, nil
}

func (x *Index) logf(format string, args ...any) {
	if x.opt.Logf != nil {
		x.opt.Logf(format, args...)
	}
}

// trim drops the spare capacity of every bucket (after a load).
func (v *view) trim() {
	for i := range v.b {
		b := &v.b[i]
		b.morgan = append([]uint64(nil), b.morgan...)
		b.pattern = append([]uint64(nil), b.pattern...)
		b.ids = append([]byte(nil), b.ids...)
		b.slots = append([]int32(nil), b.slots...)
		b.sums = append([]uint64(nil), b.sums...)
	}
}

// errFull stops the scan of pickles when the molecule cache is full.
var errFull = errors.New("molecule cache full")

// Close frees the molecules held in memory; the index must not be used
// afterwards.
func (x *Index) Close() {
	if x.mols != nil {
		x.mols.Close()
	}
}

// Len returns the number of molecules indexed.
func (x *Index) Len() int { return x.cur.Load().n }

// Bytes returns the bytes the in-memory index holds in its arrays
// (capacity, not length).
func (x *Index) Bytes() int64 {
	v := x.cur.Load()
	var n int64
	for i := range v.b {
		b := &v.b[i]
		n += int64(cap(b.morgan)*8 + cap(b.pattern)*8 + cap(b.ids) + cap(b.slots)*4 + cap(b.sums)*8)
	}
	return n + int64(len(v.b))*72
}

// apply adds the fingerprint entries of a commit (the store's watcher).
func (x *Index) apply(kvs []graph.SideEntry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	old := x.cur.Load()
	var nv *view
	var removed map[string]bool
	// the molecules first: a commit holds a molecule's fingerprint entry
	// before its pickle
	for _, kv := range kvs {
		if x.mols != nil && kv.Value != nil && bytes.HasPrefix(kv.Key, []byte(prefixPickle)) {
			x.mols.Add(string(kv.Key[len(prefixPickle):]), kv.Value)
		}
	}
	for _, kv := range kvs {
		if !bytes.HasPrefix(kv.Key, []byte(prefixFP)) {
			continue
		}
		if kv.Value == nil {
			if removed == nil {
				removed = map[string]bool{}
			}
			removed[string(kv.Key[len(prefixFP)+len(ontology.MoleculeIDPrefix):])] = true
			continue
		}
		suffix, m, p, err := decodeFP(kv.Key, kv.Value)
		if err != nil {
			x.logf("search: %v", err)
			continue
		}
		if x.known != nil {
			if _, dup := x.known[string(suffix)]; dup {
				continue
			}
			x.known[string(suffix)] = struct{}{}
		}
		if nv == nil {
			c := *old
			nv = &c
		}
		slot := int32(-1)
		var sum *chem.Summary
		if x.mols != nil {
			slot = x.mols.Slot(string(kv.Key[len(prefixFP):]))
			s := chem.UnknownSummary()
			if slot >= 0 {
				s = x.mols.Summary(slot)
			}
			sum = &s
		}
		nv.add(suffix, m, p, slot, sum)
	}
	if removed != nil {
		if nv == nil {
			c := *old
			nv = &c
		}
		nv.remove(removed)
	}
	if nv != nil {
		x.cur.Store(nv)
	}
}

// remove rewrites the buckets without the given molecules (new arrays:
// older views keep theirs).
func (v *view) remove(gone map[string]bool) {
	for bi := range v.b {
		b := &v.b[bi]
		var nb bucket
		changed := false
		for i := 0; i < b.len(); i++ {
			if gone[string(b.ids[i*idLen:(i+1)*idLen])] {
				changed = true
				continue
			}
			nb.morgan = append(nb.morgan, b.morgan[i*chem.FPWords:(i+1)*chem.FPWords]...)
			nb.pattern = append(nb.pattern, b.pattern[i*chem.FPWords:(i+1)*chem.FPWords]...)
			nb.ids = append(nb.ids, b.ids[i*idLen:(i+1)*idLen]...)
			nb.slots = append(nb.slots, b.slots[i])
			if len(b.sums) > 0 {
				nb.sums = append(nb.sums, b.sums[chem.SummaryWords*i:chem.SummaryWords*(i+1)]...)
			}
		}
		if changed {
			v.n -= b.len() - nb.len()
			*b = nb
		}
	}
}

// IRI returns the IRI of the molecule id.
func (x *Index) IRI(id string) quad.IRI {
	return ontology.ResourceIRI(x.base, ontology.KindMolecule, id)
}

// idOf returns the molecule id of an IRI of this base ("" if it is none).
func (x *Index) idOf(iri quad.IRI) string {
	prefix := string(x.IRI(ontology.MoleculeIDPrefix))
	prefix = prefix[:len(prefix)-len(ontology.MoleculeIDPrefix)]
	s := string(iri)
	if !strings.HasPrefix(s, prefix) {
		return ""
	}
	return s[len(prefix):]
}

// reconcile makes the stored entries match the molecules of the graph:
// entries are computed for molecules without one, and stray or unreadable
// entries deleted (see doc.go).
func (x *Index) reconcile(ctx context.Context, scanned map[string]struct{}, bad [][]byte) error {
	var missing []quad.IRI
	seen := make(map[string]struct{}, len(scanned))
	var after quad.IRI
	for {
		page, more, err := x.store.ListByClass(ctx, ontology.MoleculeClass, after, 1000)
		if err != nil {
			return fmt.Errorf("search: list molecules: %w", err)
		}
		for _, iri := range page {
			id := x.idOf(iri)
			if len(id) != len(ontology.MoleculeIDPrefix)+idLen {
				continue
			}
			suffix := id[len(ontology.MoleculeIDPrefix):]
			seen[suffix] = struct{}{}
			x.mu.Lock()
			_, ok := x.known[suffix]
			x.mu.Unlock()
			if !ok {
				missing = append(missing, iri)
			}
		}
		if !more || len(page) == 0 {
			break
		}
		after = page[len(page)-1]
	}
	var dels []graph.SideEntry
	gone := map[string]bool{}
	for _, k := range bad {
		dels = append(dels, graph.SideEntry{Key: k})
	}
	// Only entries of the load can be stray: a molecule committed since
	// may be missing from the listing but exists.
	for s := range scanned {
		if _, ok := seen[s]; !ok {
			gone[s] = true
			id := ontology.MoleculeIDPrefix + s
			dels = append(dels, graph.SideEntry{Key: []byte(prefixFP + id)}, graph.SideEntry{Key: []byte(prefixPickle + id)})
		}
	}
	if len(gone) > 0 {
		// their k entries: scan once
		err := x.store.ScanSide(ctx, []byte(prefixKey), func(k, _ []byte) error {
			if len(k) > idLen && gone[string(k[len(k)-idLen:])] {
				dels = append(dels, graph.SideEntry{Key: bytes.Clone(k)})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("search: reconcile: %w", err)
		}
	}
	if len(dels) > 0 {
		if err := x.store.PutSide(ctx, dels); err != nil {
			return fmt.Errorf("search: reconcile: %w", err)
		}
		x.mu.Lock()
		c := *x.cur.Load()
		c.remove(gone)
		x.cur.Store(&c)
		x.mu.Unlock()
	}
	x.logf("search: rebuilding the entries of %d molecules, deleting %d stray entries", len(missing), len(dels))
	const block = 512
	for start := 0; start < len(missing); start += block {
		iris := missing[start:min(start+block, len(missing))]
		entries := make([][]graph.SideEntry, len(iris))
		errs := make([]error, len(iris))
		var wg sync.WaitGroup
		var next atomic.Int64
		for w := 0; w < x.opt.Workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= len(iris) {
						return
					}
					entries[i], errs[i] = x.entriesFromGraph(ctx, iris[i])
				}
			}()
		}
		wg.Wait()
		var kvs []graph.SideEntry
		for i, e := range entries {
			if errs[i] != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				x.logf("search: %v (not searchable)", errs[i])
				continue
			}
			kvs = append(kvs, e...)
		}
		if err := x.store.PutSide(ctx, kvs); err != nil {
			return fmt.Errorf("search: rebuild: %w", err)
		}
		x.apply(kvs)
	}
	return nil
}

// entriesFromGraph computes a molecule's entries from its graph.
func (x *Index) entriesFromGraph(ctx context.Context, iri quad.IRI) ([]graph.SideEntry, error) {
	qs, err := x.store.Graph(ctx, iri)
	if err != nil {
		return nil, err
	}
	rec, err := ontology.MoleculeFromQuads(qs)
	if err != nil {
		return nil, fmt.Errorf("molecule %s: %w", iri, err)
	}
	return Prepare(rec.ID, rec.SMILES, rec.InChIKey)
}
