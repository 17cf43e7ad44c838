package xtb_test

import (
	"slices"
	"testing"
)

// TestAtomsWithoutCoordinates: a single point prints no coordinates; its
// atoms come from the charge table ("#  Z covCN q": "1  6 C", "2  7 N", …;
// GFN1's "Mulliken/CM5 charges": "1O", "2H", "3H"). A run that prints a
// final structure keeps its geometry and no separate atom list.
func TestAtomsWithoutCoordinates(t *testing.T) {
	for _, tc := range []struct {
		file  string
		first []int
		n     int
	}{
		{"caffeine_sp.out", []int{6, 7, 6, 7, 6, 6, 6, 8}, 24},
		{"gfn1_sp.out", []int{8, 1, 1}, 3},
		{"atom_ne.out", []int{10}, 1},
		{"c2h4_hess.out", nil, 6},
	} {
		_, c := readGenerated(t, tc.file)
		if len(c.Geometries) != 0 || len(c.AtomicNumbers) != tc.n || len(c.MullikenCharges) != tc.n ||
			!slices.Equal(c.AtomicNumbers[:len(tc.first)], tc.first) {
			t.Errorf("%s: %d geometries, atoms %v, %d charges", tc.file, len(c.Geometries), c.AtomicNumbers, len(c.MullikenCharges))
		}
	}
	for _, file := range []string{"gfnff_opt.out", "co2_ohess.out"} {
		_, c := readGenerated(t, file)
		if len(c.Geometries) == 0 || c.AtomicNumbers != nil {
			t.Errorf("%s: %d geometries, atoms %v", file, len(c.Geometries), c.AtomicNumbers)
		}
	}
}
