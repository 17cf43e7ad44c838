package search

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/ontology"
)

// Hit is one molecule found.
type Hit struct {
	ID    string  // molecule id, "mol-..."
	Score float64 // Tanimoto for similarity; 1 for the other searches
}

// Query formats (Options.Format); "" picks one (see ParseQuery).
const (
	FormatSMILES   = "smiles"
	FormatSMARTS   = "smarts"
	FormatMolfile  = "molfile"
	FormatInChI    = "inchi"
	FormatInChIKey = "inchikey"
)

// SimilarOptions configure a similarity search.
type SimilarOptions struct {
	// Threshold: only hits with a Tanimoto score >= Threshold (0..1).
	Threshold float64
	// Top > 0 keeps the Top best hits (score, then id).
	Top int
	// Format of the query: smiles (default) or molfile.
	Format string
}

// SubOptions configure a substructure or superstructure search.
type SubOptions struct {
	// Format of the query: smiles, smarts or molfile. "" reads a SMILES,
	// or a SMARTS if it is not a valid SMILES (substructure only).
	Format string
	chem.MatchOptions
}

// ExactOptions configure an exact search.
type ExactOptions struct {
	// Format of the query: inchikey, inchi, smiles or molfile; "" tells
	// an InChIKey and an InChI by their form, else SMILES.
	Format string
	// Connectivity matches the InChIKey's first block: every stereo,
	// isotope and charge form of the skeleton.
	Connectivity bool
}

// better orders hits by score (descending), then id.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

func sortHits(h []Hit) {
	slices.SortFunc(h, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
}

// score is RDKit's TanimotoSimilarity of fingerprints of popcounts a and
// b that share c bits.
func score(c, a, b int) float64 {
	if a+b-c == 0 {
		return 1
	}
	return float64(c) / float64(a+b-c)
}

// minShared is the fewest shared bits that give fingerprints of popcounts
// a and b a score of at least t (as score computes it, so the cut is
// exact), min(a, b)+1 when none does. score grows with c, and c >= t(a+b)/(1+t)
// in exact arithmetic: the search starts just below that.
func minShared(a, b int, t float64) int {
	lo := max(0, int(t*float64(a+b)/(1+t))-2)
	for c := lo; c <= min(a, b); c++ {
		if score(c, a, b) >= t {
			return c
		}
	}
	return min(a, b) + 1
}

// queryScan intersects a query fingerprint with the index's: only the
// query's nonzero words, the densest first, stopping as soon as the bits
// the query has left cannot reach the shared bits a hit needs. Most
// molecules a threshold or top-k scan visits are no hit, and for a
// drug-like query (about 50 of 2,048 bits, in ~25 of 32 words) a few
// words usually settle it.
type queryScan struct {
	q     [chem.FPWords]uint64
	words []int // nonzero words of q, most bits first
	rest  []int // rest[k]: the bits of q in words[k:]
}

func newQueryScan(q *chem.FP) *queryScan {
	s := &queryScan{q: *q}
	for i, w := range q {
		if w != 0 {
			s.words = append(s.words, i)
		}
	}
	slices.SortStableFunc(s.words, func(i, j int) int {
		return cmp.Compare(bits.OnesCount64(q[j]), bits.OnesCount64(q[i]))
	})
	s.rest = make([]int, len(s.words)+1)
	for k := len(s.words) - 1; k >= 0; k-- {
		s.rest[k] = s.rest[k+1] + bits.OnesCount64(q[s.words[k]])
	}
	return s
}

// shared returns the bits the query shares with m and true, or false as
// soon as fewer than cmin can be shared.
func (s *queryScan) shared(m []uint64, cmin int) (int, bool) {
	mm := (*[chem.FPWords]uint64)(m)
	c := 0
	for k, i := range s.words {
		if k&3 == 0 && c+s.rest[k] < cmin {
			return c, false
		}
		c += bits.OnesCount64(s.q[i&(chem.FPWords-1)] & mm[i&(chem.FPWords-1)])
	}
	return c, c >= cmin
}

// bound is the best Tanimoto score of fingerprints of popcounts a and b.
func bound(a, b int) float64 {
	lo, hi := min(a, b), max(a, b)
	if hi == 0 {
		return 1
	}
	return float64(lo) / float64(hi)
}

// span is a range of one bucket.
type span struct {
	b, lo, hi int
	bound     float64
}

// spans cuts the buckets that can hold a hit into pieces of at most
// piece molecules, best bound first.
func (v *view) spans(a int, threshold float64, piece int) ([]span, int) {
	var out []span
	total := 0
	for pc := range v.b {
		n := v.b[pc].len()
		if n == 0 {
			continue
		}
		bd := bound(a, pc)
		if bd < threshold {
			continue
		}
		total += n
		for lo := 0; lo < n; lo += piece {
			out = append(out, span{pc, lo, min(lo+piece, n), bd})
		}
	}
	slices.SortStableFunc(out, func(x, y span) int { return cmp.Compare(y.bound, x.bound) })
	return out, total
}

// hitHeap is a min-heap of the k best hits (the worst on top).
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// parallelAbove is the scan size from which a search uses every worker.
const parallelAbove = 1 << 14

// Similar returns the molecules whose Morgan fingerprint has a Tanimoto
// similarity of at least o.Threshold with the query's (and with o.Top > 0
// only the Top best), best first (score, then id).
func (x *Index) Similar(ctx context.Context, query string, o SimilarOptions) ([]Hit, error) {
	if !(o.Threshold >= 0 && o.Threshold <= 1) {
		return nil, fmt.Errorf("search: %w: threshold %v is not between 0 and 1", ErrBadOptions, o.Threshold)
	}
	if o.Top < 0 {
		return nil, fmt.Errorf("search: %w: top %d is negative", ErrBadOptions, o.Top)
	}
	kind := chem.QuerySMILES
	switch strings.ToLower(o.Format) {
	case "", FormatSMILES:
	case FormatMolfile, "mol", "sdf":
		kind = chem.QueryMolfile
	default:
		return nil, fmt.Errorf("search: %w: a similarity query is a SMILES or a molfile, not %q", ErrBadOptions, o.Format)
	}
	q, err := chem.ParseQuery(query, kind, chem.MatchOptions{})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return x.SimilarFP(ctx, &q.Morgan, o)
}

// SimilarFP is Similar for a query fingerprint.
func (x *Index) SimilarFP(ctx context.Context, qfp *chem.FP, o SimilarOptions) ([]Hit, error) {
	v := x.cur.Load()
	a := popcount(qfp)
	spans, total := v.spans(a, o.Threshold, 4096)
	workers := 1
	if total > parallelAbove {
		workers = x.opt.Workers
	}
	qs := newQueryScan(qfp)
	results := make([][]Hit, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	var ferr error
	var emu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var h hitHeap
			var out []Hit
			for {
				i := int(next.Add(1)) - 1
				if i >= len(spans) {
					break
				}
				if err := ctx.Err(); err != nil {
					emu.Lock()
					ferr = err
					emu.Unlock()
					return
				}
				s := spans[i]
				if o.Top > 0 && len(h) == o.Top && s.bound < h[0].Score {
					continue // and every later span: bounds only fall
				}
				b := &v.b[s.b]
				// cmin: the shared bits a hit needs; with a full top-k
				// heap a score equal to its worst may still enter (ids
				// break ties), so its score is the cut.
				cut := func() int {
					if o.Top > 0 && len(h) == o.Top {
						return minShared(a, s.b, max(o.Threshold, h[0].Score))
					}
					return minShared(a, s.b, o.Threshold)
				}
				cmin := cut()
				for j := s.lo; j < s.hi; j++ {
					c, ok := qs.shared(b.morgan[j*chem.FPWords:(j+1)*chem.FPWords], cmin)
					if !ok {
						continue
					}
					sc := score(c, a, s.b)
					if sc < o.Threshold {
						continue
					}
					if o.Top > 0 {
						if len(h) == o.Top && sc < h[0].Score {
							continue
						}
						hit := Hit{ID: b.id(j), Score: sc}
						if len(h) < o.Top {
							heap.Push(&h, hit)
						} else if better(hit, h[0]) {
							h[0] = hit
							heap.Fix(&h, 0)
						}
						cmin = cut()
						continue
					}
					out = append(out, Hit{ID: b.id(j), Score: sc})
				}
			}
			if o.Top > 0 {
				out = []Hit(h)
			}
			results[w] = out
		}(w)
	}
	wg.Wait()
	if ferr != nil {
		return nil, fmt.Errorf("search: similarity: %w", ferr)
	}
	var hits []Hit
	for _, r := range results {
		hits = append(hits, r...)
	}
	sortHits(hits)
	if o.Top > 0 && len(hits) > o.Top {
		hits = hits[:o.Top]
	}
	return hits, nil
}

// ParseQuery parses a substructure (super false) or superstructure query.
// Format "" reads a SMILES, and for a substructure query a SMARTS if it is
// not a valid SMILES.
func ParseQuery(query string, o SubOptions, super bool) (*chem.Query, error) {
	var kinds []chem.QueryKind
	switch strings.ToLower(o.Format) {
	case "":
		kinds = []chem.QueryKind{chem.QuerySMILES, chem.QuerySMARTS}
		if super {
			kinds = kinds[:1]
		}
	case FormatSMILES:
		kinds = []chem.QueryKind{chem.QuerySMILES}
	case FormatSMARTS:
		if super {
			return nil, fmt.Errorf("search: %w: a superstructure query is a molecule (SMILES or molfile), not SMARTS", ErrBadOptions)
		}
		kinds = []chem.QueryKind{chem.QuerySMARTS}
	case FormatMolfile, "mol", "sdf":
		kinds = []chem.QueryKind{chem.QueryMolfile}
	default:
		return nil, fmt.Errorf("search: %w: query format %q (smiles, smarts or molfile)", ErrBadOptions, o.Format)
	}
	var first error
	for _, k := range kinds {
		q, err := chem.ParseQuery(query, k, o.MatchOptions)
		if err == nil {
			return q, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, fmt.Errorf("search: %w", first)
}

// Substructure returns, in id order, the molecules that contain the query
// (a SMILES, SMARTS or molfile).
func (x *Index) Substructure(ctx context.Context, query string, o SubOptions) ([]Hit, error) {
	q, err := ParseQuery(query, o, false)
	if err != nil {
		return nil, err
	}
	return x.match(ctx, q, false)
}

// Superstructure returns, in id order, the molecules contained in the
// query (a SMILES or molfile).
func (x *Index) Superstructure(ctx context.Context, query string, o SubOptions) ([]Hit, error) {
	q, err := ParseQuery(query, o, true)
	if err != nil {
		return nil, err
	}
	return x.match(ctx, q, true)
}

// matchBatch is the number of molecules of one matching call on pickles,
// slotBatch on molecules held in memory (matched ~100 times faster: a
// larger batch keeps the per-call cost of cgo and the matching slot small).
const (
	matchBatch = 128
	slotBatch  = 1024
)

// Match runs a parsed query (ParseQuery) as a substructure or
// superstructure search.
func (x *Index) Match(ctx context.Context, q *chem.Query, super bool) ([]Hit, error) {
	return x.match(ctx, q, super)
}

func (x *Index) match(ctx context.Context, q *chem.Query, super bool) ([]Hit, error) {
	v := x.cur.Load()
	var spans []span
	total := 0
	for pc := range v.b {
		n := v.b[pc].len()
		total += n
		for lo := 0; lo < n; lo += 4096 {
			spans = append(spans, span{b: pc, lo: lo, hi: min(lo+4096, n)})
		}
	}
	workers := 1
	if total > 2*matchBatch {
		workers = x.opt.Workers
	}
	qp := q.Pattern[:]
	// the words of the query's pattern fingerprint with bits set: the
	// substructure screen reads only those (a small query sets few)
	var qwords []int
	for i, w := range qp {
		if w != 0 {
			qwords = append(qwords, i)
		}
	}
	// The summary screen (chem.Need) of the molecules held in memory, read
	// after the view so that the classes of all its molecules are known;
	// its matcher is the first worker's.
	var need *chem.Need
	var first *chem.Matcher
	if x.mols != nil {
		var err error
		if first, err = q.Matcher(super); err != nil {
			return nil, fmt.Errorf("search: substructure: %w", err)
		}
		need = first.Need(x.mols)
	}
	results := make([][]Hit, workers)
	found := make([][]cand, workers) // hits held in x.mols, by place
	errs := make([]error, workers)
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// candidates held in x.mols by slot (and where), the others
			// by id
			var slots []int32
			var at []cand
			var ids []string
			var out []Hit
			var held []cand
			// this worker's query copy, made at its first batch
			var m *chem.Matcher
			if w == 0 {
				m = first
			}
			defer func() {
				if m != nil {
					m.Close()
				}
			}()
			var state []byte
			flush := func() error {
				if len(slots)+len(ids) == 0 {
					return nil
				}
				if m == nil {
					var err error
					if m, err = q.Matcher(super); err != nil {
						return err
					}
				}
				if len(slots) > 0 {
					state = slices.Grow(state[:0], len(slots))[:len(slots)]
					if err := x.matchSlots(ctx, m, slots, state); err != nil {
						return err
					}
					for i, st := range state {
						switch st {
						case 1:
							held = append(held, at[i])
						case 2: // not held after all
							ids = append(ids, v.b[at[i].b].id(int(at[i].j)))
						}
					}
					slots, at = slots[:0], at[:0]
				}
				if len(ids) > 0 {
					hits, err := x.matchIDs(ctx, m, ids)
					if err != nil {
						return err
					}
					out = append(out, hits...)
					ids = ids[:0]
				}
				return nil
			}
			for !stop.Load() {
				i := int(next.Add(1)) - 1
				if i >= len(spans) {
					break
				}
				s := spans[i]
				b := &v.b[s.b]
				for j := s.lo; j < s.hi; j++ {
					mp := b.pattern[j*chem.FPWords : (j+1)*chem.FPWords]
					if super {
						if !screen(qp, mp, true) {
							continue
						}
					} else if !screenWords(qp, mp, qwords) {
						continue
					}
					if need != nil && len(b.sums) > 0 && !need.Pass(chem.Summary(b.sums[chem.SummaryWords*j:chem.SummaryWords*(j+1)])) {
						continue
					}
					if sl := b.slots[j]; sl >= 0 {
						slots = append(slots, sl)
						at = append(at, cand{int32(s.b), int32(j)})
					} else {
						ids = append(ids, b.id(j))
					}
					if len(ids) == matchBatch || len(slots) == slotBatch {
						if err := flush(); err != nil {
							errs[w] = err
							stop.Store(true)
							return
						}
					}
				}
			}
			if err := flush(); err != nil {
				errs[w] = err
				stop.Store(true)
				return
			}
			results[w] = out
			found[w] = held
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("search: substructure: %w", err)
		}
	}
	hits := v.hits(slices.Concat(found...))
	for _, r := range results {
		hits = append(hits, r...)
	}
	sortByID(hits)
	return hits, nil
}

// hits are the hits at places cs of v, their ids slices of one string
// (one allocation instead of one per hit: a search may find every
// molecule).
func (v *view) hits(cs []cand) []Hit {
	if len(cs) == 0 {
		return nil
	}
	const l = len(ontology.MoleculeIDPrefix) + idLen
	var sb strings.Builder
	sb.Grow(len(cs) * l)
	for _, c := range cs {
		b := &v.b[c.b]
		sb.WriteString(ontology.MoleculeIDPrefix)
		sb.Write(b.ids[int(c.j)*idLen : int(c.j+1)*idLen])
	}
	all := sb.String()
	hits := make([]Hit, len(cs))
	for i := range cs {
		hits[i] = Hit{ID: all[i*l : (i+1)*l], Score: 1}
	}
	return hits
}

// sortByID sorts hits by id. Ids share their prefix: the next 8 bytes,
// read as an integer, order nearly all of them, and a radix sort of those
// keys (one pass per byte where the keys differ) orders a large hit list
// several times faster than a comparison sort (perf: a comparison sort of
// 50,000 hits took a third of the CPU of a search finding them); ids with
// equal keys are then ordered by the whole string.
func sortByID(hits []Hit) {
	n := len(hits)
	if n < 2 {
		return
	}
	keys := make([]uint64, n)
	ord := make([]int32, n)
	for i, h := range hits {
		keys[i] = idKey(h.ID)
		ord[i] = int32(i)
	}
	radixSort(keys, ord)
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j] == keys[i] {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(ord[i:j], func(a, b int32) int { return strings.Compare(hits[a].ID, hits[b].ID) })
		}
		i = j
	}
	sorted := make([]Hit, n)
	for i, o := range ord {
		sorted[i] = hits[o]
	}
	copy(hits, sorted)
}

// idKey is the 8 bytes of an id after its prefix as a big-endian integer
// (zero-padded), which orders ids as their strings do where it differs.
func idKey(id string) uint64 {
	var b [8]byte
	if len(id) > len(ontology.MoleculeIDPrefix) {
		copy(b[:], id[len(ontology.MoleculeIDPrefix):])
	}
	return binary.BigEndian.Uint64(b[:])
}

// radixSort sorts keys ascending, permuting ord alike: least significant
// byte first, stable, skipping the bytes every key has alike.
func radixSort(keys []uint64, ord []int32) {
	n := len(keys)
	if n == 0 {
		return
	}
	outK, outO := keys, ord
	k2 := make([]uint64, n)
	o2 := make([]int32, n)
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, k := range keys {
			count[byte(k>>shift)]++
		}
		if count[byte(keys[0]>>shift)] == n {
			continue // one value: the pass would change nothing
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for i, k := range keys {
			d := byte(k >> shift)
			k2[count[d]] = k
			o2[count[d]] = ord[i]
			count[d]++
		}
		keys, k2 = k2, keys
		ord, o2 = o2, ord
	}
	if &keys[0] != &outK[0] { // an odd number of passes: the result is in the scratch arrays
		copy(outK, keys)
		copy(outO, ord)
	}
}

// screen is the pattern-fingerprint screen: every bit of the query's
// pattern fingerprint set in the molecule's (or with super, every bit of
// the molecule's set in the query's).
func screen(q, m []uint64, super bool) bool {
	if super {
		q, m = m, q
	}
	for i := range chem.FPWords {
		if q[i]&^m[i] != 0 {
			return false
		}
	}
	return true
}

// screenWords is screen for a substructure query, over the words of the
// query's fingerprint that have bits set.
func screenWords(q, m []uint64, words []int) bool {
	q, m = q[:chem.FPWords], m[:chem.FPWords]
	for _, i := range words {
		if q[i&(chem.FPWords-1)]&^m[i&(chem.FPWords-1)] != 0 {
			return false
		}
	}
	return true
}

// cand is where a candidate is in a view: bucket and position.
type cand struct{ b, j int32 }

// matchSlots runs m on the candidates held in x.mols, holding one of the
// index's matching slots: state[i] as chem.Matcher.MatchSet sets it.
func (x *Index) matchSlots(ctx context.Context, m *chem.Matcher, slots []int32, state []byte) error {
	select {
	case x.slot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-x.slot }()
	return m.MatchSet(x.mols, slots, state)
}

// matchIDs runs m on the pickles of the candidates (molecules not held in
// memory), holding one of the index's matching slots.
func (x *Index) matchIDs(ctx context.Context, m *chem.Matcher, ids []string) ([]Hit, error) {
	select {
	case x.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-x.slot }()
	var out []Hit
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = []byte(prefixPickle + id)
	}
	mols := make([][]byte, len(ids))
	err := x.store.GetSide(ctx, keys, func(i int, v []byte) error {
		mols[i] = append([]byte(nil), v...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	hit := make([]bool, len(ids))
	if err := m.Match(mols, hit); err != nil {
		return nil, err
	}
	for i, h := range hit {
		if h {
			out = append(out, Hit{ID: ids[i], Score: 1})
		}
	}
	return out, nil
}

var (
	inchiKeyRE = regexp.MustCompile(`^[A-Z]{14}-[A-Z]{10}-[A-Z]$`)
	blockRE    = regexp.MustCompile(`^[A-Z]{14}$`)
	// standardKeyRE: a standard InChIKey (the only kind the index holds):
	// its second block ends with S (standard) and A (version 1).
	standardKeyRE = regexp.MustCompile(`^[A-Z]{14}-[A-Z]{8}SA-[A-Z]$`)
)

// Exact returns, in id order, the molecules with the query's structure:
// its InChIKey (or the key's first block with o.Connectivity), or for a
// SMILES or molfile, the molecule it registers as.
func (x *Index) Exact(ctx context.Context, query string, o ExactOptions) ([]Hit, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, fmt.Errorf("search: %w: empty query", ErrInvalidQuery)
	}
	if len(query) > chem.MaxQueryBytes {
		return nil, fmt.Errorf("search: %w: %d bytes, more than the %d a query may have", ErrInvalidQuery, len(query), chem.MaxQueryBytes)
	}
	format := strings.ToLower(o.Format)
	if format == "" {
		switch {
		case strings.HasPrefix(query, "InChI="):
			format = FormatInChI
		case inchiKeyRE.MatchString(query) || (o.Connectivity && blockRE.MatchString(query)):
			format = FormatInChIKey
		default:
			format = FormatSMILES
		}
	}
	var key, id string
	switch format {
	case FormatInChIKey:
		if !inchiKeyRE.MatchString(query) && !(o.Connectivity && blockRE.MatchString(query)) {
			return nil, fmt.Errorf("search: %w: %q is not an InChIKey", ErrInvalidQuery, query)
		}
		if len(query) > 14 && !standardKeyRE.MatchString(query) {
			return nil, fmt.Errorf("search: %w: %q is not a standard InChIKey (its second block ends in SA)", ErrInvalidQuery, query)
		}
		key = query
	case FormatInChI, FormatSMILES, FormatMolfile, "mol", "sdf":
		f := map[string]chem.Format{FormatInChI: chem.FormatInChI, FormatSMILES: chem.FormatSMILES}[format]
		if f == "" {
			f = chem.FormatMolfile
		}
		res, err := x.pool.Process(ctx, chem.Input{Format: f, Content: query})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("search: %w: %v", ErrInvalidQuery, err)
		}
		if format == FormatInChI || o.Connectivity {
			key = res.InChIKey
			if key == "" {
				return nil, fmt.Errorf("search: %w: no InChIKey could be computed for the query", ErrInvalidQuery)
			}
		} else {
			id = ontology.MoleculeID(res.SMILES)
		}
	default:
		return nil, fmt.Errorf("search: %w: query format %q (inchikey, inchi, smiles or molfile)", ErrBadOptions, o.Format)
	}
	var hits []Hit
	if id != "" {
		found := false
		err := x.store.GetSide(ctx, [][]byte{[]byte(prefixFP + id)}, func(_ int, v []byte) error {
			found = v != nil
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("search: exact: %w", err)
		}
		if found {
			hits = append(hits, Hit{ID: id, Score: 1})
		}
		return hits, nil
	}
	if o.Connectivity && len(key) > 14 {
		key = key[:14]
	}
	err := x.store.ScanSide(ctx, []byte(prefixKey+key), func(k, _ []byte) error {
		id := string(k[len(k)-len(ontology.MoleculeIDPrefix)-idLen:])
		if len(key) == 14 || len(k) == len(prefixKey)+27+len(id) {
			hits = append(hits, Hit{ID: id, Score: 1})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: exact: %w", err)
	}
	slices.SortFunc(hits, func(a, b Hit) int { return strings.Compare(a.ID, b.ID) })
	return hits, nil
}
