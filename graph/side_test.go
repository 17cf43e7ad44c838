package graph

import (
	"bytes"
	"context"
	"testing"
)

// TestScanSideFrom: on both backends a scan from a key lists the keys of
// the prefix from it on, in key order, and OrderedFloat keys list in
// numeric order (negative values before positive, ties in key suffix
// order).
func TestScanSideFrom(t *testing.T) {
	ctx := context.Background()
	disk, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	mem, err := OpenMemory(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	vals := []float64{3.5, -9.25, 0, -0.5, -9.25, 12, -1e-9}
	sufs := []string{"a", "b", "c", "d", "a", "e", "f"}
	key := func(f float64, s string) []byte { return append(OrderedFloat([]byte("p/"), f), s...) }
	var kvs []SideEntry
	for i, f := range vals {
		kvs = append(kvs, SideEntry{Key: key(f, sufs[i]), Value: []byte{}})
	}
	kvs = append(kvs, SideEntry{Key: []byte("q/other"), Value: []byte("x")})
	// The numeric order, written by hand: (-9.25,a) (-9.25,b) (-0.5,d)
	// (-1e-9,f) (0,c) (3.5,a) (12,e).
	want := [][]byte{key(-9.25, "a"), key(-9.25, "b"), key(-0.5, "d"), key(-1e-9, "f"), key(0, "c"), key(3.5, "a"), key(12, "e")}
	for name, s := range map[string]*Store{"badger": disk, "memory": mem} {
		if err := s.PutSide(ctx, kvs); err != nil {
			t.Fatal(err)
		}
		for from := range want {
			var got [][]byte
			if err := s.ScanSideFrom(ctx, []byte("p/"), want[from], func(k, _ []byte) error {
				got = append(got, bytes.Clone(k))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want)-from {
				t.Fatalf("%s: from %d: %d keys, want %d", name, from, len(got), len(want)-from)
			}
			for i := range got {
				if !bytes.Equal(got[i], want[from+i]) {
					t.Errorf("%s: from %d: key %d = %x, want %x", name, from, i, got[i], want[from+i])
				}
			}
		}
		// A from before the prefix scans it all; a from past it nothing.
		n := 0
		if err := s.ScanSideFrom(ctx, []byte("p/"), []byte("a"), func(k, _ []byte) error { n++; return nil }); err != nil || n != len(want) {
			t.Errorf("%s: from before the prefix: %d keys, %v", name, n, err)
		}
		n = 0
		if err := s.ScanSideFrom(ctx, []byte("p/"), []byte("p0"), func(k, _ []byte) error { n++; return nil }); err != nil || n != 0 {
			t.Errorf("%s: from past the prefix: %d keys, %v", name, n, err)
		}
	}
}
