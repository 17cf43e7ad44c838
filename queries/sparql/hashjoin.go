package sparql

import (
	"github.com/cayleygraph/quad"
	"github.com/molgraph/molgraph/graph"
)

// Hash joins. A BGP is evaluated by index nested loops: each solution of
// the steps so far looks the next pattern up with its bound variables. One
// lookup is an index seek, cheap alone but costly a hundred thousand
// times. When a pattern has been looked up many times in one execution,
// the evaluator instead reads all its triples once (variables as
// wildcards) into a hash table keyed by the positions the lookups bind, and
// answers the remaining lookups from the table. The switch happens once
// the lookups made would have paid for the scan (the ski-rental rule:
// never more than about twice the cost of the better choice made in
// hindsight), so small joins keep their seeks and large ones stop seeking.
// The one case decided up front is a lookup right after a full scan of a
// plain pattern (bgpPlan.eagerHash): its number of lookups is known.
//
// Hashing is only used for molgraph's default graph (the merge of all
// graphs) on a source that merges graphs itself (TripleMatcher), and only
// for values whose Go equality is exactly the source's term identity.

const (
	// hashSeekCost is how many scanned triples one lookup is worth.
	hashSeekCost = 16
	// hashMaxTriples bounds the size of a hash table (triples).
	hashMaxTriples = 1 << 22
)

type hashKey struct {
	tp   *triplePat
	mask [3]bool // positions (s, p, o) the lookups bind
}

// hashTable is the state of one pattern's lookups in one execution.
type hashTable struct {
	lookups int
	off     bool // never hash (too big, or a value that cannot be a key)
	built   bool
	one     int // the only key position, or -1
	// The heads of the chains of entries by key: when one >= 0, by IRI in
	// iris (string keys hash fastest) and by other term in heads1; else
	// in heads.
	iris   map[string]int32
	heads1 map[quad.Value]int32
	heads  map[[3]quad.Value]int32
	// byID, when not nil, holds the chains by the source's id of the key
	// term instead (one key position, a source with ids): the key terms
	// are then not decoded at all.
	byID    map[uint64]int32
	entries []hashEntry
}

func (ht *hashTable) head(key [3]quad.Value) (int32, bool) {
	if ht.one >= 0 {
		if iri, ok := key[ht.one].(quad.IRI); ok {
			i, ok := ht.iris[string(iri)]
			return i, ok
		}
		i, ok := ht.heads1[key[ht.one]]
		return i, ok
	}
	i, ok := ht.heads[key]
	return i, ok
}

// add inserts entry n with the given key.
func (ht *hashTable) add(key [3]quad.Value, n int32) int32 {
	if ht.one >= 0 {
		if iri, ok := key[ht.one].(quad.IRI); ok {
			h, ok := ht.iris[string(iri)]
			if !ok {
				h = -1
			}
			ht.iris[string(iri)] = n
			return h
		}
		h, ok := ht.heads1[key[ht.one]]
		if !ok {
			h = -1
		}
		ht.heads1[key[ht.one]] = n
		return h
	}
	h, ok := ht.heads[key]
	if !ok {
		h = -1
	}
	ht.heads[key] = n
	return h
}

type hashEntry struct {
	t    [3]quad.Value // nil at the key position in byID tables
	id   [3]uint64     // in byID tables
	next int32         // index of the next entry with the same key, -1 at the end
}

// hashable reports whether Go equality of v is the source's term identity
// (not floats: NaN; not times: locations).
func hashable(v quad.Value) bool {
	switch v.(type) {
	case quad.IRI, quad.BNode, quad.String, quad.TypedString, quad.LangString, quad.Int, quad.Bool:
		return true
	}
	return false
}

// hashLookup answers the lookup of tp with the bound terms spo (nil where
// unbound) from a hash table when that pays off, binding each answer in r
// for next; handled is false when the caller must look up in the source
// instead.
func (ex *exec) hashLookup(tp *triplePat, g gctx, spo [3]quad.Value, r row, rid []uint64, eager bool, next func() error) (handled bool, err error) {
	if g.named || g.gvar >= 0 || ex.defaults != nil {
		return false, nil
	}
	if _, ok := ex.src.(TripleMatcher); !ok {
		return false, nil
	}
	var k hashKey
	k.tp = tp
	terms := [3]term{tp.s, tp.p, tp.o}
	any := false
	for i, t := range terms {
		if t.isVar() && spo[i] != nil {
			k.mask[i] = true
			any = true
		}
	}
	if !any {
		return false, nil // a scan, not a lookup
	}
	ht := ex.hashes[k]
	if ht == nil {
		ht = &hashTable{}
		ex.hashes[k] = ht
	}
	if ht.off {
		return false, nil
	}
	one, nkeys := -1, 0
	for i, m := range k.mask {
		if m {
			one = i
			nkeys++
		}
	}
	useIDs := rid != nil && nkeys == 1
	var key [3]quad.Value
	if !useIDs {
		for i, m := range k.mask {
			if m {
				if !hashable(spo[i]) {
					return false, nil
				}
				key[i] = spo[i]
			}
		}
	}
	if !ht.built {
		ht.lookups++
		est := ex.estimate(ex.ctx, tp)
		if est > hashMaxTriples {
			ht.off = true
			return false, nil
		}
		if !eager && float64(ht.lookups)*hashSeekCost < est {
			return false, nil
		}
		if useIDs {
			err = ex.buildHashIDs(tp, one, ht)
		} else {
			keyOne := -1 // the single key position, if there is one
			if nkeys == 1 {
				keyOne = one
			}
			err = ex.buildHash(tp, k.mask, keyOne, ht)
		}
		if err != nil {
			return true, err
		}
		if ht.off {
			return false, nil
		}
	}
	var i int32
	var ok bool
	if ht.byID != nil {
		if rid == nil {
			return false, nil
		}
		kid := rid[terms[one].slot]
		if kid == 0 {
			// Bound outside this BGP: look its id up.
			if kid, err = ex.idm.TermID(spo[one]); err != nil {
				return true, ex.sourceErr(err, nil)
			}
			if kid == 0 {
				return true, nil // not stored: nothing matches
			}
		}
		i, ok = ht.byID[kid]
	} else {
		i, ok = ht.head(key)
	}
	if !ok {
		return true, nil
	}
	for ; i >= 0; i = ht.entries[i].next {
		if err := ex.tick(); err != nil {
			return true, err
		}
		e := &ht.entries[i]
		if err := ex.bindTriple(tp, r, rid, e.t, &e.id, next); err != nil {
			return true, err
		}
	}
	return true, nil
}

// buildHashIDs reads every triple of tp (its constants bound) into ht,
// keyed by the id of the term at position one, which is not decoded.
func (ex *exec) buildHashIDs(tp *triplePat, one int, ht *hashTable) error {
	c := tp.constants()
	size := ex.hashBudget(int(ex.estimate(ex.ctx, tp)))
	byID := make(map[uint64]int32, size)
	entries := make([]hashEntry, 0, size)
	charged := 0
	var skip [3]bool
	skip[one] = true
	var cbErr error
	err := ex.idm.MatchTriplesIDs(ex.ctx, graph.Pattern{Subject: c[0], Predicate: c[1], Object: c[2]}, skip, func(q quad.Quad, id [3]uint64) error {
		if err := ex.tick(); err != nil {
			cbErr = err
			return err
		}
		t := [3]quad.Value{q.Subject, q.Predicate, q.Object}
		if len(entries) >= hashMaxTriples || !ex.hashCharge(t, &charged) {
			cbErr = errNoHash
			return errNoHash
		}
		h, ok := byID[id[one]]
		if !ok {
			h = -1
		}
		byID[id[one]] = int32(len(entries))
		entries = append(entries, hashEntry{t: t, id: id, next: h})
		return nil
	})
	if err == errNoHash {
		ex.free(charged)
		ht.off = true
		return nil
	}
	if err = ex.sourceErr(err, cbErr); err != nil {
		ex.free(charged)
		return err
	}
	ht.byID, ht.entries, ht.built = byID, entries, true
	return nil
}

// buildHash reads every triple of tp (its constants bound) into ht, keyed
// by the positions of mask (one is the position when there is only one,
// else -1).
func (ex *exec) buildHash(tp *triplePat, mask [3]bool, one int, ht *hashTable) error {
	c := tp.constants()
	size := ex.hashBudget(int(ex.estimate(ex.ctx, tp)))
	charged := 0
	ht.one = one
	if one >= 0 {
		ht.iris = make(map[string]int32, size)
		ht.heads1 = map[quad.Value]int32{}
	} else {
		ht.heads = make(map[[3]quad.Value]int32, size)
	}
	entries := make([]hashEntry, 0, size)
	err := ex.match(defaultGraph, c[0], c[1], c[2], func(q quad.Quad) error {
		t := [3]quad.Value{q.Subject, q.Predicate, q.Object}
		if len(entries) >= hashMaxTriples || !ex.hashCharge(t, &charged) {
			return errNoHash
		}
		var key [3]quad.Value
		for i, m := range mask {
			if m {
				if !hashable(t[i]) {
					return errNoHash
				}
				key[i] = t[i]
			}
		}
		n := int32(len(entries))
		entries = append(entries, hashEntry{t: t, next: ht.add(key, n)})
		return nil
	})
	if err == errNoHash {
		ex.free(charged)
		ht.off, ht.heads, ht.heads1, ht.iris = true, nil, nil, nil
		return nil
	}
	if err != nil {
		ex.free(charged)
		return err
	}
	ht.entries, ht.built = entries, true
	return nil
}

var errNoHash = &stopSignal{}

// hashEntryBytes is the approximate size of a hash table entry and its
// share of the chains' map, besides its terms' lexical forms.
const hashEntryBytes = 104

// hashBudget is how many entries to allocate at first for an estimated
// size: no more than the memory budget's room (a table that would not fit
// is given up as it grows; see hashCharge).
func (ex *exec) hashBudget(size int) int {
	if ex.maxMem > 0 {
		size = min(size, int((ex.maxMem-ex.mem)/hashEntryBytes))
	}
	return max(size, 0)
}

// hashCharge charges one entry of triple t to the memory budget, adding
// it to *charged; false means the table does not fit: it is given up
// (errNoHash, and the caller frees *charged) and the join keeps its index
// lookups, as for a table past hashMaxTriples.
func (ex *exec) hashCharge(t [3]quad.Value, charged *int) bool {
	n := hashEntryBytes
	for _, v := range t {
		if v != nil {
			n += lexicalLen(v)
		}
	}
	if !ex.fits(n) {
		return false
	}
	*charged += n
	ex.mem += int64(n)
	return true
}

// constants returns tp's constant terms by position (nil for variables).
func (tp *triplePat) constants() [3]quad.Value {
	var c [3]quad.Value
	for i, t := range [3]term{tp.s, tp.p, tp.o} {
		if !t.isVar() {
			c[i] = t.v
		}
	}
	return c
}
