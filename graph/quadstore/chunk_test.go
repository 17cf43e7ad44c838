package quadstore

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestChunkCodec: a chunk's key and value decode to its group's quads, in
// both chunked indexes (subject: entries are (p, o, g); graph: (s, p, o)).
func TestChunkCodec(t *testing.T) {
	es := []spo{{1, 2, 3}, {1, 2, 300}, {70000, 5, math.MaxUint64}}
	for _, ix := range []index{indexes[0], indexes[3]} {
		for _, g := range []uint64{0, 7, math.MaxUint64} {
			var got []ids
			err := ix.decodeChunk(ix.chunkKey(g, es[0]), appendChunk(nil, es), func(q ids) error {
				got = append(got, q)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []ids
			for _, e := range es {
				var q ids
				q[ix.dims[0]] = g
				for i, d := range ix.dims[1:] {
					q[d] = e[i]
				}
				want = append(want, q)
				if ix.entry(q) != e {
					t.Errorf("index %c: entry(%v) = %v, want %v", ix.prefix, q, ix.entry(q), e)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("index %c, group %d: %v, want %v", ix.prefix, g, got, want)
			}
		}
	}
}

// TestMergeChunk: adds are merged in order, dels removed; a del that is
// not there or an add that is are reported as corruption.
func TestMergeChunk(t *testing.T) {
	got, err := mergeChunk([]spo{{1, 1, 1}, {3, 3, 3}, {5, 5, 5}}, []spo{{4, 4, 4}, {0, 0, 0}, {6, 6, 6}}, []spo{{3, 3, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []spo{{0, 0, 0}, {1, 1, 1}, {4, 4, 4}, {5, 5, 5}, {6, 6, 6}}; !slices.Equal(got, want) {
		t.Errorf("merge: %v, want %v", got, want)
	}
	if _, err := mergeChunk([]spo{{1, 1, 1}}, nil, []spo{{2, 2, 2}}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("missing del: %v, want ErrCorrupt", err)
	}
	if _, err := mergeChunk([]spo{{1, 1, 1}}, []spo{{1, 1, 1}}, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("duplicate add: %v, want ErrCorrupt", err)
	}
}

// FuzzDecodeChunk: any stored bytes either fail with ErrCorrupt or decode
// to quads whose chunk encoding is the value again.
func FuzzDecodeChunk(f *testing.F) {
	f.Add(indexes[3].chunkKey(3, spo{1, 2, 3}), appendChunk(nil, []spo{{1, 2, 3}, {4, 5, 6}}))
	f.Add([]byte("G"), []byte{1})
	f.Fuzz(func(t *testing.T, k, v []byte) {
		var es []spo
		err := indexes[3].decodeChunk(k, v, func(q ids) error {
			es = append(es, indexes[3].entry(q))
			return nil
		})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		if re := appendChunk(nil, es); string(re) != string(v) {
			t.Fatalf("re-encoded %x, stored %x", re, v)
		}
	})
}
