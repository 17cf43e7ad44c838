package quadstore

import (
	"bytes"
	"math"
	"math/rand"
	"testing"
)

// TestIDEncodingOrder: the byte order of encoded ids is their numeric
// order, and decoding returns the id and the rest.
func TestIDEncodingOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	vals := []uint64{0, 1, 255, 256, 65535, 65536, 1<<56 - 1, 1 << 56, math.MaxUint64}
	for i := 0; i < 2000; i++ {
		vals = append(vals, rng.Uint64()>>uint(rng.Intn(64)))
	}
	for i := range vals {
		for j := range vals {
			a, b := appendID(nil, vals[i]), appendID(nil, vals[j])
			want := 0
			switch {
			case vals[i] < vals[j]:
				want = -1
			case vals[i] > vals[j]:
				want = 1
			}
			if got := bytes.Compare(a, b); got != want {
				t.Fatalf("compare(%d, %d) = %d, want %d", vals[i], vals[j], got, want)
			}
		}
		enc := appendID(nil, vals[i])
		id, rest, ok := readID(append(enc, 7))
		if !ok || id != vals[i] || !bytes.Equal(rest, []byte{7}) {
			t.Fatalf("readID(%x) = %d, %x, %v", enc, id, rest, ok)
		}
	}
	for _, bad := range [][]byte{nil, {9}, {2, 1}, {1, 0}, {2, 0, 5}} {
		if _, _, ok := readID(bad); ok {
			t.Errorf("readID(%x) accepted", bad)
		}
	}
	q := ids{1, 300, 1 << 40, 0}
	for _, ix := range indexes {
		got, ok := ix.decode(ix.key(nil, q))
		if !ok || got != q {
			t.Errorf("index %c: decode(key(%v)) = %v, %v", ix.prefix, q, got, ok)
		}
		if _, ok := ix.decode(append(ix.key(nil, q), 0)); ok {
			t.Errorf("index %c: trailing byte accepted", ix.prefix)
		}
	}
}
