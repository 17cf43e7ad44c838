package quadstore

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// ids are the node ids of a quad in Cayley's direction order: subject,
// predicate, object, label (index = quad.Direction - 1). Label 0 is the
// default graph.
type ids [4]uint64

// index is one permutation index: its key prefix byte and the quad
// positions its key holds, in order. A grouped index (SPOG, GSPO) keeps
// the quads of one subject or graph in chunks (see chunk.go): a key per
// chunk, not per quad, whose value lists the other three positions.
type index struct {
	prefix  byte
	dims    [4]int
	grouped bool
}

// The permutation indexes (see doc.go).
var indexes = [4]index{
	{'S', [4]int{0, 1, 2, 3}, true},  // SPOG, chunked
	{'P', [4]int{1, 2, 0, 3}, false}, // POSG
	{'O', [4]int{2, 0, 1, 3}, false}, // OSPG
	{'G', [4]int{3, 0, 1, 2}, true},  // GSPO, chunked
}

// quadKeyIndex is the index whose keys are looked up to test whether one
// quad is stored: one key per quad.
var quadKeyIndex = indexes[2]

// prefixLen is how many leading positions of ix a scan for the bound
// positions mask can put in its key prefix: the bound leading positions,
// and for a grouped index at most the group (its first position).
func (ix index) prefixLen(mask [4]bool) int {
	n := 0
	for _, d := range ix.dims {
		if !mask[d] {
			break
		}
		n++
	}
	if ix.grouped {
		n = min(n, 1)
	}
	return n
}

// Ids in index keys use an order-preserving variable-length form: one
// byte with the number of significant bytes (0 to 8), then those bytes big
// endian. Small ids (the common case) take 2 to 4 bytes instead of 8, which
// makes Badger's memtable, log and tables smaller; the form is prefix-free,
// so bound leading ids are still a key prefix, and the byte order of keys is
// the numeric order of their ids.

// maxQuadKeyLen is the longest index key.
const maxQuadKeyLen = 1 + 4*9

func appendID(dst []byte, id uint64) []byte {
	n := (bits.Len64(id) + 7) / 8
	dst = append(dst, byte(n))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(id>>(8*i)))
	}
	return dst
}

// readID decodes an id at the start of b and returns the rest.
func readID(b []byte) (uint64, []byte, bool) {
	if len(b) == 0 || b[0] > 8 || len(b) < 1+int(b[0]) {
		return 0, nil, false
	}
	n := int(b[0])
	var id uint64
	for _, c := range b[1 : 1+n] {
		id = id<<8 | uint64(c)
	}
	if n > 0 && b[1] == 0 { // not the shortest form
		return 0, nil, false
	}
	return id, b[1+n:], true
}

func (ix index) key(dst []byte, q ids) []byte {
	dst = append(dst, ix.prefix)
	for _, d := range ix.dims {
		dst = appendID(dst, q[d])
	}
	return dst
}

// prefixKey is the key prefix of the first n dimensions of q.
func (ix index) prefixKey(q ids, n int) []byte {
	dst := make([]byte, 0, 1+9*n)
	dst = append(dst, ix.prefix)
	for _, d := range ix.dims[:n] {
		dst = appendID(dst, q[d])
	}
	return dst
}

func (ix index) decode(k []byte) (ids, bool) {
	var q ids
	if len(k) == 0 || k[0] != ix.prefix {
		return q, false
	}
	rest := k[1:]
	for _, d := range ix.dims {
		var ok bool
		if q[d], rest, ok = readID(rest); !ok {
			return q, false
		}
	}
	return q, len(rest) == 0
}

// maxInlineTerm is the longest term encoding used as a key as is; longer
// ones are keyed by their SHA-256.
const maxInlineTerm = 512

func termKey(enc []byte) []byte {
	if len(enc) <= maxInlineTerm {
		k := make([]byte, 0, 1+len(enc))
		return append(append(k, pTerm), enc...)
	}
	h := sha256.Sum256(enc)
	return append([]byte{pHash}, h[:]...)
}

func nodeKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{pNode}, id)
}

// A node record (value of nodeKey) is the number of quads that use the node
// in each direction (4 uvarints) followed by the term encoding.
func encodeNode(counts [4]uint64, enc []byte) []byte {
	b := make([]byte, 0, 8+len(enc))
	for _, c := range counts {
		b = binary.AppendUvarint(b, c)
	}
	return append(b, enc...)
}

func decodeNode(b []byte) (counts [4]uint64, enc []byte, err error) {
	for i := range counts {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			return counts, nil, fmt.Errorf("%w: node record", ErrCorrupt)
		}
		counts[i], b = n, b[k:]
	}
	return counts, b, nil
}

// numericKey is the key of the numeric index entry of a quad whose object
// has the numeric value f: n <p> <f as 8 ordered bytes> <s> <o> <g>.
func numericKey(dst []byte, q ids, f float64) []byte {
	dst = append(dst, pNumeric)
	dst = appendID(dst, q[1])
	dst = orderedFloat(dst, f)
	dst = appendID(dst, q[0])
	dst = appendID(dst, q[2])
	return appendID(dst, q[3])
}

const maxNumericKeyLen = 1 + 9 + 8 + 3*9

// decodeNumericTail decodes the subject, object and label ids that follow
// the value in a numeric key.
func decodeNumericTail(b []byte) (s, o, g uint64, ok bool) {
	if s, b, ok = readID(b); !ok {
		return
	}
	if o, b, ok = readID(b); !ok {
		return
	}
	if g, b, ok = readID(b); !ok {
		return
	}
	return s, o, g, len(b) == 0
}

func beUint64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

// compare orders quads as the index's keys do.
func (ix index) compare(a, b ids) int {
	for _, d := range ix.dims {
		switch {
		case a[d] < b[d]:
			return -1
		case a[d] > b[d]:
			return 1
		}
	}
	return 0
}
