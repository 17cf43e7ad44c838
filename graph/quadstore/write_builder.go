package quadstore

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"

	badger "github.com/dgraph-io/badger/v4"
)

// partChanges is how many quad changes a large commit hands to Badger at
// a time. Badger's writer (one goroutine) writes a part while the store
// resolves, compares and encodes the next one on the other cores; a part
// of 4,096 quads is some 20,000 Badger entries. (A variable so that tests
// can cut small commits into many parts.)
var partChanges = 4096

// builder writes one commit in parts: it gives new terms their ids,
// writes the index entries of each part at once, and adds up the node
// count changes, which finish writes with the node records and the state.
// Only the writer (holding wmu) uses it.
type builder struct {
	w    *wtx
	st   state
	real map[uint64]uint64 // provisional id -> allocated id

	// delta is the change of each touched node's quad count per
	// direction.
	delta map[uint64]*[4]int64
	nums  map[uint64]numeric // object id -> numeric value (NaN: none)

	// groups are the changes to the chunks of each group (node) of each
	// grouped index (chunk.go), written by finish; node ids from firstNew
	// on are new in this commit.
	groups   [len(indexes)]map[uint64]*groupEdit
	firstNew uint64

	// colAdded and colDeleted are the triples of the named-graph quads
	// added and deleted, for the columns (colChanges).
	colAdded, colDeleted [][3]uint64

	// Filled by finish, used by publish.
	dead    [][]byte
	newborn []newNode
	updates []nodeUpdate
}

// nodeRec is a node record as of the last commit, kept by the writer
// (Store.recs) for the nodes recent commits touched: shared nodes
// (predicates, classes, units, common values) are touched by almost every
// commit, and their records need not be read again.
type nodeRec struct {
	counts [4]uint64
	enc    []byte
}

// maxNodeRecs bounds Store.recs; a full map is emptied.
const maxNodeRecs = 1 << 16

// newNode is a term that got an id in the commit.
type newNode struct {
	enc []byte
	id  uint64
}

func (w *wtx) newBuilder() *builder {
	return &builder{
		w:        w,
		st:       w.s.st,
		real:     make(map[uint64]uint64),
		delta:    make(map[uint64]*[4]int64),
		nums:     make(map[uint64]numeric),
		firstNew: w.s.st.nextID,
	}
}

// write writes the index entries of one part of the net changes: adds and
// dels (dels never hold provisional ids; adds get real ids for theirs, in
// order of use, so ids are deterministic). The part is then handed to
// Badger (batchWriter.cut).
func (b *builder) write(bw *batchWriter, adds, dels []change) error {
	if len(adds) == 0 && len(dels) == 0 {
		return nil
	}
	for i := range adds {
		q := &adds[i].q
		for d, id := range q {
			if id&provBit == 0 {
				continue
			}
			r, ok := b.real[id]
			if !ok {
				r = b.st.nextID
				b.st.nextID++
				b.real[id] = r
			}
			q[d] = r
		}
	}
	if b.w.s.colb != nil {
		for _, c := range adds {
			if c.q[3] != 0 {
				b.colAdded = append(b.colAdded, [3]uint64{c.q[0], c.q[1], c.q[2]})
			}
		}
		for _, c := range dels {
			if c.q[3] != 0 {
				b.colDeleted = append(b.colDeleted, [3]uint64{c.q[0], c.q[1], c.q[2]})
			}
		}
	}
	for _, c := range adds {
		b.bump(c.q, 1)
	}
	for _, c := range dels {
		b.bump(c.q, -1)
	}
	for i, ix := range indexes {
		if !ix.grouped {
			continue
		}
		for _, c := range adds {
			e := b.group(i, c.q)
			e.adds = append(e.adds, ix.entry(c.q))
		}
		for _, c := range dels {
			e := b.group(i, c.q)
			e.dels = append(e.dels, ix.entry(c.q))
		}
	}
	b.st.quads = b.st.quads + uint64(len(adds)) - uint64(len(dels))
	// Numeric values are parsed here, once per object node, before the
	// encoders below read the cache concurrently.
	for _, cs := range [2][]change{dels, adds} {
		for _, c := range cs {
			if _, ok := b.nums[c.q[2]]; !ok {
				n, ok := numericOf(c.obj)
				if !ok {
					n = numeric{f: nan}
				}
				b.nums[c.q[2]] = n
			}
		}
	}
	for _, part := range [2]struct {
		cs  []change
		del bool
	}{{dels, true}, {adds, false}} {
		if len(part.cs) == 0 {
			continue
		}
		// The keys of each per-quad index (the chunked ones are written by
		// finish) and of the numeric index are sorted and encoded on their
		// own goroutine (both cores), while the keys of the previous one go
		// to Badger. Badger's memtable is a skiplist, and inserting in key
		// order keeps the search path in the CPU cache.
		var runs []chan keyRun
		spawn := func(f func() keyRun) {
			c := make(chan keyRun, 1)
			runs = append(runs, c)
			go func() { c <- f() }()
		}
		for _, ix := range indexes {
			if !ix.grouped {
				spawn(func() keyRun { return indexRun(ix, part.cs) })
			}
		}
		spawn(func() keyRun { return b.numericRun(part.cs) })
		for i := range runs {
			r := <-runs[i]
			for j := range r.ends {
				k := r.buf[r.start(j):r.ends[j]]
				var err error
				if part.del {
					err = bw.del(k)
				} else {
					err = bw.set(k, nil)
				}
				if err != nil {
					return err
				}
			}
		}
	}
	return bw.cut()
}

// group returns the changes to q's group in the grouped index i.
func (b *builder) group(i int, q ids) *groupEdit {
	if b.groups[i] == nil {
		b.groups[i] = make(map[uint64]*groupEdit)
	}
	g := q[indexes[i].dims[0]]
	e := b.groups[i][g]
	if e == nil {
		e = new(groupEdit)
		b.groups[i][g] = e
	}
	return e
}

func (b *builder) bump(q ids, by int64) {
	for d, id := range q {
		if id == 0 {
			continue
		}
		c := b.delta[id]
		if c == nil {
			c = new([4]int64)
			b.delta[id] = c
		}
		c[d] += by
	}
}

// keyRun is a sorted run of keys, concatenated in buf; key j ends at
// ends[j].
type keyRun struct {
	buf  []byte
	ends []int
}

func (r *keyRun) start(j int) int {
	if j == 0 {
		return 0
	}
	return r.ends[j-1]
}

// indexRun returns the keys of ix for the quads of cs, sorted.
func indexRun(ix index, cs []change) keyRun {
	// Sort the ids in the index's order, as arrays compared field by
	// field (the key order is the numeric order of the ids).
	ps := make([]ids, len(cs))
	for j, c := range cs {
		ps[j] = ids{c.q[ix.dims[0]], c.q[ix.dims[1]], c.q[ix.dims[2]], c.q[ix.dims[3]]}
	}
	if !slices.IsSortedFunc(ps, cmpIDs) {
		slices.SortFunc(ps, cmpIDs)
	}
	r := keyRun{buf: make([]byte, 0, len(ps)*14), ends: make([]int, len(ps))}
	for j, p := range ps {
		r.buf = append(r.buf, ix.prefix)
		for _, id := range p {
			r.buf = appendID(r.buf, id)
		}
		r.ends[j] = len(r.buf)
	}
	return r
}

func cmpIDs(a, b ids) int { return slices.Compare(a[:], b[:]) }

// numericRun returns the numeric index keys for the quads of cs whose
// object is a number, sorted.
func (b *builder) numericRun(cs []change) keyRun {
	var keys [][]byte
	var buf []byte
	for _, c := range cs {
		n := b.nums[c.q[2]]
		if isNaN(n) {
			continue
		}
		start := len(buf)
		buf = numericKey(buf, c.q, n.f)
		keys = append(keys, buf[start:len(buf):len(buf)])
	}
	if !slices.IsSortedFunc(keys, bytes.Compare) {
		slices.SortFunc(keys, bytes.Compare)
	}
	r := keyRun{buf: make([]byte, 0, len(buf)), ends: make([]int, len(keys))}
	for j, k := range keys {
		r.buf = append(r.buf, k...)
		r.ends[j] = len(r.buf)
	}
	return r
}

// nodeUpdate is the new state of a node touched by a commit.
type nodeUpdate struct {
	id     uint64
	enc    []byte
	counts [4]uint64
	isNew  bool
}

// finish writes the node records of the touched nodes (new, changed or
// deleted, with their dictionary entries) and the state.
func (b *builder) finish(bw *batchWriter) error {
	if len(b.delta) == 0 {
		return nil
	}
	if err := b.writeGroups(bw); err != nil {
		return err
	}
	w := b.w
	newEnc := make(map[uint64][]byte, len(b.real))
	for prov, r := range b.real {
		newEnc[r] = w.encs[prov&^provBit]
	}
	updates := make([]nodeUpdate, 0, len(b.delta))
	for id := range b.delta {
		updates = append(updates, nodeUpdate{id: id})
	}
	slices.SortFunc(updates, func(a, b nodeUpdate) int { return cmp.Compare(a.id, b.id) })
	// Existing nodes' records are read on Options.Workers goroutines
	// (independent reads of one snapshot).
	if err := b.readNodes(updates, newEnc); err != nil {
		return err
	}
	b.updates = updates
	var terms [][2][]byte
	for i := range updates {
		u := &updates[i]
		dc := b.delta[u.id]
		for d := range u.counts {
			n := int64(u.counts[d]) + dc[d]
			if n < 0 {
				return fmt.Errorf("%w: node %d count below zero", ErrCorrupt, u.id)
			}
			u.counts[d] = uint64(n)
		}
		alive := u.counts != [4]uint64{}
		var err error
		switch {
		case u.isNew && alive:
			b.st.nodes++
			b.newborn = append(b.newborn, newNode{u.enc, u.id})
			terms = append(terms, [2][]byte{termKey(u.enc), nodeKey(u.id)[1:]})
			err = bw.set(nodeKey(u.id), encodeNode(u.counts, u.enc))
		case u.isNew: // a new term whose quads were all deleted again
		case !alive:
			b.st.nodes--
			b.dead = append(b.dead, u.enc)
			if err = bw.del(nodeKey(u.id)); err == nil {
				err = bw.del(termKey(u.enc))
			}
		default:
			err = bw.set(nodeKey(u.id), encodeNode(u.counts, u.enc))
		}
		if err != nil {
			return err
		}
	}
	slices.SortFunc(terms, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
	keys := make([][]byte, len(terms))
	for i, t := range terms {
		keys[i] = t[0]
	}
	w.s.filterAdd(keys, b.st.nodes)
	for _, t := range terms {
		if err := bw.set(t[0], t[1]); err != nil {
			return err
		}
	}
	return bw.set(keyState, b.st.encode())
}

// readNodes fills in the counts and encodings of the nodes of updates:
// new ones from newEnc, stored ones from their records.
func (b *builder) readNodes(updates []nodeUpdate, newEnc map[uint64][]byte) error {
	w := b.w
	workers := min(w.s.opt.Workers, len(updates)/1024+1)
	chunk := (len(updates) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		lo, hi := k*chunk, min((k+1)*chunk, len(updates))
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			txn := w.s.db.NewTransactionAt(w.ts, false)
			defer txn.Discard()
			for i := lo; i < hi; i++ {
				u := &updates[i]
				if enc, ok := newEnc[u.id]; ok {
					u.enc, u.isNew = enc, true
					continue
				}
				if r, ok := w.s.recs[u.id]; ok {
					u.counts, u.enc = r.counts, r.enc
					continue
				}
				if errs[k] = readNode(txn, u); errs[k] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func readNode(txn *badger.Txn, u *nodeUpdate) error {
	item, err := txn.Get(nodeKey(u.id))
	if err != nil {
		return fmt.Errorf("node %d: %w", u.id, err)
	}
	err = item.Value(func(b []byte) error {
		c, enc, err := decodeNode(b)
		u.counts, u.enc = c, append([]byte(nil), enc...)
		return err
	})
	if err != nil {
		return fmt.Errorf("node %d: %w", u.id, err)
	}
	return nil
}

// publish makes the store's state and term cache follow a successful
// commit at ts (0: nothing was written).
func (b *builder) publish(ts uint64) {
	if ts == 0 {
		return
	}
	s := b.w.s
	s.st = b.st
	// A node's record is kept from its second commit on: most nodes a
	// bulk load creates are never touched again, the shared ones are.
	old := 0
	for _, u := range b.updates {
		if !u.isNew {
			old++
		}
	}
	if len(s.recs)+old > maxNodeRecs {
		clear(s.recs)
	}
	for _, u := range b.updates {
		if u.counts == [4]uint64{} {
			delete(s.recs, u.id)
		} else if _, ok := s.recs[u.id]; ok || !u.isNew && len(s.recs) < maxNodeRecs {
			s.recs[u.id] = nodeRec{u.counts, u.enc}
		}
	}
	for _, enc := range b.dead {
		s.terms.remove(enc)
	}
	// The terms a small commit creates are cached (a client reads back
	// what it just wrote); a bulk load's would push the shared terms out.
	if len(b.newborn) <= maxCachedNewborn {
		for _, n := range b.newborn {
			s.terms.put(n.enc, n.id, ts)
		}
	}
}

// maxCachedNewborn is the most new terms of one commit that are cached.
const maxCachedNewborn = 1024
