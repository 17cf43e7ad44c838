package quadstore

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"
	"sync/atomic"

	badger "github.com/dgraph-io/badger/v4"
)

// termFilter is a blocked Bloom filter over the keys of the term
// dictionary (termKey). A write looks up every term it uses, and most
// terms of a new molecule are new: without the filter each of them costs
// a Badger read that misses (a search of every memtable and a Bloom probe
// of every level-0 table and level), some 2-3 µs, and more as the store
// grows. The filter answers "certainly not stored" from memory.
//
// It is our own code because the filter must take concurrent adds
// (atomic ORs, the writer) while readers probe it, and must be sized and
// rebuilt by the store; the Bloom filters of Badger's tables are per table
// and not reachable through its API.
//
// Each key sets filterProbes bits in one 512-bit block (a cache line pair),
// chosen by a 64-bit hash; at filterBitsPerKey bits per key the false
// positive rate is about 1%. Keys are never removed (a deleted term stays a
// false positive), so a filter is valid for any snapshot at or after since,
// the commit its contents were scanned from.
type termFilter struct {
	seed     maphash.Seed
	blocks   [][8]uint64
	capacity uint64 // keys it was sized for
	since    uint64 // commit timestamp its scan read
	added    atomic.Uint64
}

const (
	filterBitsPerKey = 12
	filterProbes     = 7
)

// filterMinKeys is the smallest capacity of a filter (1.5 MB). (A
// variable so that tests can make filters fill up and be rebuilt.)
var filterMinKeys uint64 = 1 << 20

func newTermFilter(capacity, since uint64) *termFilter {
	capacity = max(capacity, filterMinKeys)
	n := (capacity*filterBitsPerKey + 511) / 512
	return &termFilter{seed: maphash.MakeSeed(), blocks: make([][8]uint64, n), capacity: capacity, since: since}
}

// locate returns key's block and the two hashes that pick its bits in the
// block (double hashing: bit i = h1 + i*h2 mod 512).
func (f *termFilter) locate(key []byte) (b *[8]uint64, h1, h2 uint32) {
	h := maphash.Bytes(f.seed, key)
	hi, _ := bits.Mul64(h, uint64(len(f.blocks)))
	return &f.blocks[hi], uint32(h), uint32(h>>32) | 1
}

func (f *termFilter) add(key []byte) {
	b, h1, h2 := f.locate(key)
	for i := uint32(0); i < filterProbes; i++ {
		bit := (h1 + i*h2) & 511
		atomic.OrUint64(&b[bit>>6], 1<<(bit&63))
	}
	f.added.Add(1)
}

// mayContain reports whether key may have been added; false is certain.
func (f *termFilter) mayContain(key []byte) bool {
	b, h1, h2 := f.locate(key)
	for i := uint32(0); i < filterProbes; i++ {
		bit := (h1 + i*h2) & 511
		if atomic.LoadUint64(&b[bit>>6])&(1<<(bit&63)) == 0 {
			return false
		}
	}
	return true
}

// absent reports whether the term with dictionary key key is certainly not
// stored at snapshot ts.
func (s *Store) absent(key []byte, ts uint64) bool {
	f := s.filter.Load()
	return f != nil && ts >= f.since && !f.mayContain(key)
}

// filterAdd adds the dictionary keys of terms a commit creates to the
// filter in use and to one being built. The writer calls it before the
// commit becomes visible, so no reader can find the term absent; nodes is
// the store's node count after the commit, which sizes the next filter
// when this one is full.
func (s *Store) filterAdd(keys [][]byte, nodes uint64) {
	f := s.filter.Load()
	if f != nil && s.building.Load() == nil && f.added.Load()+uint64(len(keys)) > f.capacity {
		// A larger filter, scanned from the last commit; this commit's
		// keys go into it below.
		s.startFilterBuild(2 * nodes)
		f = s.filter.Load()
	}
	nb := s.building.Load()
	for _, k := range keys {
		if f != nil {
			f.add(k)
		}
		if nb != nil && nb != f {
			nb.add(k)
		}
	}
}

// startFilterBuild starts building a filter sized for capacity keys from
// the dictionary at the last commit, on a goroutine; until it is done the
// store keeps using the filter it has (or none: then every lookup of an
// unknown term reads Badger). The caller holds wmu, so no commit slips in
// between the snapshot and the moment the writer starts adding to the new
// filter.
func (s *Store) startFilterBuild(capacity uint64) {
	if s.st.nodes == 0 { // nothing to scan
		s.filter.Store(newTermFilter(capacity, s.readTs.Load()))
		return
	}
	ts := s.pin() // the scan's snapshot, until it is done
	nb := newTermFilter(capacity, ts)
	s.building.Store(nb)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer s.unpin(ts)
		if filterScanHook != nil {
			filterScanHook()
		}
		err := s.scanDictionary(s.bgCtx, ts, nb.add)
		if err == nil {
			s.filter.Store(nb)
		}
		s.building.CompareAndSwap(nb, nil)
	}()
}

// scanDictionary calls add with every dictionary key at ts (keys only).
func (s *Store) scanDictionary(ctx context.Context, ts uint64, add func([]byte)) error {
	txn := s.db.NewTransactionAt(ts, false)
	defer txn.Discard()
	for _, p := range []byte{pTerm, pHash} {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{p}, PrefetchValues: false})
		n := 0
		for it.Rewind(); it.Valid(); it.Next() {
			if n++; n&4095 == 0 && ctx.Err() != nil {
				it.Close()
				return ctx.Err()
			}
			add(it.Item().Key())
		}
		it.Close()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("term filter: %w", err)
	}
	return nil
}

// filterScanHook, if set, runs before a filter scan starts (tests).
var filterScanHook func()

// waitFilter waits until no filter build is running (for tests).
func (s *Store) waitFilter() { s.bg.Wait() }
