package interact

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestFeaturesImatinib checks RDKit's perception of protonated imatinib
// (1iep crystal ligand) against its chemistry: 4 aromatic rings (pyridine,
// pyrimidine, two benzenes); donors the amide NH, the anilino NH and the
// piperazinium NH; acceptors the amide O, the pyridine N, the two
// pyrimidine N and the neutral piperazine N (not the amide or anilino N,
// not the cationic N); positive groups the piperazinium (ammonium) and
// the other piperazine N (a tertiary amine); no negative group, no
// halogen.
func TestFeaturesImatinib(t *testing.T) {
	recs := sdRecords(readFile(t, filepath.Join(corpus(t), "vina-examples/1iep/1iep_ligand.sdf")))
	s, l := ligandOf(t, recs[0])
	count := func(v []bool, el string) int {
		n := 0
		for i, b := range v {
			if b && (el == "" || s.Atoms[i].Element == el) {
				n++
			}
		}
		return n
	}
	f := l.f
	if got := len(f.AromaticRings); got != 4 {
		t.Errorf("aromatic rings %d, want 4", got)
	}
	if got := count(f.Donor, "N"); got != 3 || count(f.Donor, "") != 3 {
		t.Errorf("donors %d (N %d), want 3 N", count(f.Donor, ""), got)
	}
	if n, o := count(f.Acceptor, "N"), count(f.Acceptor, "O"); n != 4 || o != 1 {
		t.Errorf("acceptors N %d O %d, want 4 and 1", n, o)
	}
	if count(f.HalogenDonor, "") != 0 {
		t.Error("halogen donors in imatinib")
	}
	var kinds []string
	for _, g := range f.Charged {
		if !g.Positive {
			t.Errorf("negative group %+v", g)
		}
		kinds = append(kinds, g.Kind)
	}
	slices.Sort(kinds)
	if !slices.Equal(kinds, []string{"ammonium", "tertiary amine"}) {
		t.Errorf("charged groups %v", kinds)
	}
}

// TestFarLigandHasNoInteractions moves the crystal ligand 30 Å away from
// the receptor: nothing may remain, while in place it has contacts.
func TestFarLigandHasNoInteractions(t *testing.T) {
	c := corpus(t)
	rec := receptorOf(t, readFile(t, filepath.Join(c, "vina-examples/1iep/1iep_receptorH.pdb")))
	recs := sdRecords(readFile(t, filepath.Join(c, "vina-examples/1iep/1iep_ligand.sdf")))
	s, l := ligandOf(t, recs[0])
	if n := len(Find(rec, l).Interactions); n < 10 {
		t.Fatalf("crystal pose: %d interactions, want at least 10", n)
	}
	pos, placed := StructurePositions(s)
	for i := range pos {
		pos[i][0] += 30
		pos[i][1] += 30
	}
	far, err := NewLigand(s, l.f, pos, placed)
	if err != nil {
		t.Fatal(err)
	}
	if got := Find(rec, far); len(got.Interactions) != 0 || len(got.Fingerprint) != 0 {
		t.Errorf("far ligand: %v", got.Fingerprint)
	}
}
