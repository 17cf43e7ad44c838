package docking

import (
	"bytes"
	"testing"
)

// FuzzCleanPDB: CleanPDB never panics, and cleaning its own output changes
// nothing (waters, hetero groups and altlocs are already gone).
func FuzzCleanPDB(f *testing.F) {
	for _, rel := range []string{"vina-examples/5x72/5x72.pdb", "pockets/p2rank-testdata/1fbl.pdb"} {
		b := readCorpus(f, rel)
		f.Add(pdbAtomsOnly(b, 40))
	}
	f.Add([]byte("ATOM      1  N  AMET A 225      19.353  41.547  -3.887  0.60  0.00           N\n" +
		"ATOM      2  N  BMET A 225      19.353  41.547  -3.887  0.40  0.00           N\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := CleanPDB(b, ReceptorOptions{KeepMetals: true})
		if err != nil {
			return
		}
		again, err := CleanPDB(c.PDB, ReceptorOptions{KeepMetals: true})
		if err != nil {
			t.Fatalf("cleaning the cleaned PDB: %v", err)
		}
		if !bytes.Equal(again.PDB, c.PDB) || again.AltLocsDropped != 0 {
			t.Fatalf("not idempotent")
		}
		_ = DetectReceptorFormat(b)
	})
}

// pdbAtomsOnly keeps the first n ATOM/HETATM lines (small seeds fuzz faster).
func pdbAtomsOnly(b []byte, n int) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if n > 0 && (bytes.HasPrefix(l, []byte("ATOM")) || bytes.HasPrefix(l, []byte("HETATM")) || bytes.HasPrefix(l, []byte("SEQRES"))) {
			out = append(out, l...)
			n--
		}
	}
	return out
}
