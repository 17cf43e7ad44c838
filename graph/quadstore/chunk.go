package quadstore

import (
	"bytes"
	"fmt"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// The subject index (SPOG) and the graph index (GSPO) are grouped: the
// quads of one subject, or of one graph, are stored in chunks of up to
// chunkMax quads, one Badger entry per chunk instead of one per quad.
// Molecule, calculation and docking records are each a named graph of some
// 10 to 100 quads, about a dozen subjects (the resource and its descriptor
// nodes) of a few quads each, written and replaced as a unit: a record's
// graph index is one entry and its subject index one entry per subject.
// Per quad that leaves about 2.5 Badger entries of index instead of 4 for
// Badger's single writer, and reading a record's graph is one key.
//
//	S <s> <p><o><g> -> <p><o><g> <p><o><g> ...
//	G <g> <s><p><o> -> <s><p><o> <s><p><o> ...
//
// The key holds the group's node id and the chunk's first entry (the other
// three positions in the index's order); the value lists the chunk's
// entries in order, ids in the key form (appendID). A group's chunks are
// adjacent keys, in order, and chunk i holds the entries from its first up
// to the next chunk's first. A commit lists a changed group's chunk keys,
// reads and rewrites only the chunks its changes fall in (a chunk that
// grows beyond chunkMax is split in halves, an empty one is deleted), and
// writes each chunk key once. The other two indexes
// keep a key per quad: a quad's existence is one key lookup (quadKeyIndex),
// and their prefixes serve the patterns whose bound terms a group would
// only filter.

// chunkMax bounds the quads of a chunk (values stay in Badger's LSM tree:
// at most 128 × 27 bytes, below Options' value threshold). (A variable so
// that tests can make graphs of many chunks.)
var chunkMax = 128

// spo is a chunk entry: the three positions after the group's.
type spo = [3]uint64

func cmpSPO(a, b spo) int { return slices.Compare(a[:], b[:]) }

// chunkKey is the key of group g's chunk that starts with entry first:
// the index key of that quad.
func (ix index) chunkKey(g uint64, first spo) []byte {
	return ix.key(make([]byte, 0, maxQuadKeyLen), ix.quad(g, first))
}

func appendChunk(dst []byte, es []spo) []byte {
	for _, e := range es {
		for _, id := range e {
			dst = appendID(dst, id)
		}
	}
	return dst
}

// decodeChunk calls fn with every quad of the chunk entry (key k, value
// v) of the grouped index ix.
func (ix index) decodeChunk(k, v []byte, fn func(q ids) error) error {
	return ix.decodeChunkFrom(k, v, 0, false, fn)
}

// decodeChunkFrom is decodeChunk that, if bound, only decodes the entries
// whose first position (the index's second dimension) is first: entries
// are in order, so it skips the smaller ones and stops at a larger one.
// A lookup such as (subject, predicate) reads only its part of the
// subject's chunk.
func (ix index) decodeChunkFrom(k, v []byte, first uint64, bound bool, fn func(q ids) error) error {
	if len(k) == 0 || k[0] != ix.prefix {
		return fmt.Errorf("%w: chunk key", ErrCorrupt)
	}
	g, _, ok := readID(k[1:])
	if !ok {
		return fmt.Errorf("%w: chunk key", ErrCorrupt)
	}
	for len(v) > 0 {
		var q ids
		q[ix.dims[0]] = g
		for _, d := range ix.dims[1:] {
			if q[d], v, ok = readID(v); !ok {
				return fmt.Errorf("%w: chunk", ErrCorrupt)
			}
		}
		if bound && q[ix.dims[1]] != first {
			if q[ix.dims[1]] > first {
				return nil
			}
			continue
		}
		if err := fn(q); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn with the quads of the index entry item that sp matches:
// the key's quad, or a chunk's quads (with the index's second dimension
// bound by sp, only those decoded).
func (ix index) each(item *badger.Item, sp *scanSpec, fn func(q ids) error) error {
	match := func(q ids) error {
		if !sp.match(q) {
			return nil
		}
		return fn(q)
	}
	if !ix.grouped {
		q, ok := ix.decode(item.Key())
		if !ok {
			return fmt.Errorf("%w: quad key", ErrCorrupt)
		}
		return match(q)
	}
	var first uint64
	bound := false
	if sp.mask[ix.dims[1]] {
		first, bound = sp.bound[ix.dims[1]], true
	}
	return item.Value(func(v []byte) error { return ix.decodeChunkFrom(item.Key(), v, first, bound, match) })
}

// chunk is one stored chunk of a group being edited.
type chunk struct {
	key   []byte // as stored (nil: not stored yet)
	first spo    // its first entry, from the key
	es    []spo  // its entries, read if the commit changes it
	adds  []spo
	dels  []spo
}

// groupEdit collects a commit's changes to one group's chunks.
type groupEdit struct {
	adds, dels []spo
}

// writeGroups writes the chunks the commit changed, of every grouped
// index: for each group (in id order), its stored chunks (read at the
// commit's snapshot unless the group's node is new in this commit) are
// merged with the changes.
func (b *builder) writeGroups(bw *batchWriter) error {
	var it *badger.Iterator
	defer func() {
		if it != nil {
			it.Close()
		}
	}()
	for i, ix := range indexes {
		if !ix.grouped {
			continue
		}
		gids := make([]uint64, 0, len(b.groups[i]))
		for g := range b.groups[i] {
			gids = append(gids, g)
		}
		slices.Sort(gids)
		for _, g := range gids {
			var chunks []chunk
			if g < b.firstNew {
				if it == nil {
					it = b.w.txn.NewIterator(badger.IteratorOptions{}) // keys only
				}
				var err error
				if chunks, err = ix.readChunks(it, g); err != nil {
					return err
				}
			}
			if err := ix.editChunks(bw, b.w.txn, g, chunks, b.groups[i][g]); err != nil {
				return err
			}
		}
	}
	return nil
}

// entry is q's entry in a chunk of ix: the positions after the group.
func (ix index) entry(q ids) spo { return spo{q[ix.dims[1]], q[ix.dims[2]], q[ix.dims[3]]} }

// quad is the quad of entry e in group g of ix (the inverse of entry).
func (ix index) quad(g uint64, e spo) ids {
	var q ids
	q[ix.dims[0]], q[ix.dims[1]], q[ix.dims[2]], q[ix.dims[3]] = g, e[0], e[1], e[2]
	return q
}

// readChunks lists the stored chunks of group g with the iterator it
// (keys only: editChunks reads the values of the chunks it changes, so
// that a small change to a large group reads one chunk).
func (ix index) readChunks(it *badger.Iterator, g uint64) ([]chunk, error) {
	prefix := ix.prefixKey(ix.quad(g, spo{}), 1)
	var chunks []chunk
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		c := chunk{key: it.Item().KeyCopy(nil)}
		q, ok := ix.decode(c.key)
		if !ok {
			return nil, fmt.Errorf("%w: chunk key", ErrCorrupt)
		}
		c.first = ix.entry(q)
		chunks = append(chunks, c)
	}
	return chunks, nil
}

// load reads the entries of a stored chunk with txn.
func (ix index) load(txn *badger.Txn, c *chunk) error {
	item, err := txn.Get(c.key)
	if err != nil {
		return fmt.Errorf("chunk: %w", err)
	}
	err = item.Value(func(v []byte) error {
		return ix.decodeChunk(c.key, v, func(q ids) error {
			c.es = append(c.es, ix.entry(q))
			return nil
		})
	})
	if err == nil && (len(c.es) == 0 || c.es[0] != c.first) {
		err = fmt.Errorf("%w: chunk does not start with its key's entry", ErrCorrupt)
	}
	return err
}

// editChunks applies e to the chunks of group g and writes the chunks that
// changed.
func (ix index) editChunks(bw *batchWriter, txn *badger.Txn, g uint64, chunks []chunk, e *groupEdit) error {
	if len(chunks) == 0 {
		chunks = []chunk{{}}
	}
	// Chunk i takes the changes from its first quad up to the next chunk's
	// first; the first chunk also takes those before its first quad.
	find := func(x spo) int {
		i, _ := slices.BinarySearchFunc(chunks[1:], x, func(c chunk, x spo) int { return cmpSPO(c.first, x) })
		// chunks[1:][i] is the first chunk (after chunk 0) starting at or
		// after x.
		if i < len(chunks)-1 && chunks[1+i].first == x {
			return 1 + i
		}
		return i
	}
	for _, x := range e.adds {
		c := &chunks[find(x)]
		c.adds = append(c.adds, x)
	}
	for _, x := range e.dels {
		c := &chunks[find(x)]
		c.dels = append(c.dels, x)
	}
	for i := range chunks {
		c := &chunks[i]
		if len(c.adds)+len(c.dels) == 0 {
			continue
		}
		if c.key != nil {
			if err := ix.load(txn, c); err != nil {
				return fmt.Errorf("index %c, node %d: %w", ix.prefix, g, err)
			}
		}
		es, err := mergeChunk(c.es, c.adds, c.dels)
		if err != nil {
			return fmt.Errorf("index %c, node %d: %w", ix.prefix, g, err)
		}
		// Pieces of at most chunkMax quads (halves of an overfull chunk).
		var pieces [][]spo
		for len(es) > chunkMax {
			pieces, es = append(pieces, es[:chunkMax/2]), es[chunkMax/2:]
		}
		if len(es) > 0 {
			pieces = append(pieces, es)
		}
		keep := false
		for _, p := range pieces {
			k := ix.chunkKey(g, p[0])
			if c.key != nil && bytes.Equal(k, c.key) {
				keep = true
			}
			// A fresh value: Badger's loader keeps the slice.
			if err := bw.set(k, appendChunk(nil, p)); err != nil {
				return err
			}
		}
		if c.key != nil && !keep {
			if err := bw.del(c.key); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeChunk returns the sorted quads es with adds inserted and dels
// removed (adds are not in es, dels are).
func mergeChunk(es, adds, dels []spo) ([]spo, error) {
	slices.SortFunc(adds, cmpSPO)
	slices.SortFunc(dels, cmpSPO)
	out := make([]spo, 0, len(es)+len(adds)-len(dels))
	i, j, k := 0, 0, 0
	for i < len(es) || j < len(adds) {
		switch {
		case j < len(adds) && (i == len(es) || cmpSPO(adds[j], es[i]) < 0):
			out = append(out, adds[j])
			j++
		case j < len(adds) && cmpSPO(adds[j], es[i]) == 0:
			return nil, fmt.Errorf("%w: quad added twice", ErrCorrupt)
		default:
			if k < len(dels) && cmpSPO(dels[k], es[i]) == 0 {
				k++
			} else {
				out = append(out, es[i])
			}
			i++
		}
	}
	if k != len(dels) {
		return nil, fmt.Errorf("%w: deleted quad not in its chunk", ErrCorrupt)
	}
	return out, nil
}
