package chem

import (
	"os/exec"
	"strings"
	"testing"
)

// canonicalNoStereo canonicalizes SMILES with RDKit Python, stereo
// dropped (Protonate writes a configuration for a protonated N that the
// references do not give).
func canonicalNoStereo(t *testing.T, smiles ...string) []string {
	t.Helper()
	script := `
import sys
from rdkit import Chem
for s in sys.argv[1:]:
    print(Chem.MolToSmiles(Chem.MolFromSmiles(s), isomericSmiles=False))
`
	cmd := exec.Command("/usr/bin/python3", append([]string{"-c", script}, smiles...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("needs Debian python3-rdkit: %v %s", err, stderr.String())
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestProtonateDrugs: the charge state at pH 7.4 of drugs whose major
// microspecies is known (ChEMBL's and ChEBI's major microspecies at pH
// 7.3-7.4; the pKa values in the comments are the literature's), written
// independently as SMILES, not Protonate's output.
func TestProtonateDrugs(t *testing.T) {
	for _, tc := range []struct {
		name, smiles string
		charge       int
		want         string // the microspecies ("" when its resonance form is a matter of taste)
		positive     int    // atoms with a positive charge
	}{
		// pKa 8.07 (N-methylpiperazine N), 3.73, 2.56, 1.52: one proton, on
		// the distal N; not the benzylic N, the anilines or the aromatic N.
		{"imatinib", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1", 1,
			"Cc1ccc(NC(=O)c2ccc(CN3CC[NH+](C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1", 1},
		{"ibuprofen", "CC(C)Cc1ccc(C(C)C(=O)O)cc1", -1, "CC(C)Cc1ccc(C(C)C(=O)[O-])cc1", 0},
		{"aspirin", "CC(=O)Oc1ccccc1C(=O)O", -1, "CC(=O)Oc1ccccc1C(=O)[O-]", 0},
		// biguanide pKa 12.4 and ~2.8: one proton
		{"metformin", "CN(C)C(=N)NC(=N)N", 1, "", 1},
		// pKa 8.2 (tertiary amine), phenol 9.9
		{"morphine", "CN1CC[C@]23c4c5ccc(O)c4O[C@H]2[C@@H](O)C=C[C@H]3[C@H]1C5", 1,
			"C[NH+]1CCC23c4c5ccc(O)c4OC2C(O)C=CC3C1C5", 1},
		// pKa 2.2 (COOH), 2.9 (benzhydryl N), 8.0 (the other N): zwitterion
		{"cetirizine", "OC(=O)COCCN1CCN(CC1)C(c1ccccc1)c1ccc(Cl)cc1", 0,
			"[O-]C(=O)COCC[NH+]1CCN(CC1)C(c1ccccc1)c1ccc(Cl)cc1", 1},
		// pKa 6.1 (COOH), 8.7 (piperazine NH): zwitterion
		{"ciprofloxacin", "OC(=O)c1cn(C2CC2)c2cc(N3CCNCC3)c(F)cc2c1=O", 0,
			"[O-]C(=O)c1cn(C2CC2)c2cc(N3CC[NH2+]CC3)c(F)cc2c1=O", 1},
		// pKa 8.0 (pyrrolidine N), 3.1 (pyridine)
		{"nicotine", "CN1CCC[C@H]1c1cccnc1", 1, "C[NH+]1CCCC1c1cccnc1", 1},
		// two amidines (pKa ~11) far apart
		{"pentamidine", "N=C(N)c1ccc(OCCCCCOc2ccc(C(=N)N)cc2)cc1", 2, "", 2},
		// guanidinium, ammonium, carboxylate
		{"arginine", "N=C(N)NCCC[C@H](N)C(=O)O", 1, "", 2},
		// tetrazole pKa ~4.9; the chloroimidazole stays neutral
		{"losartan", "CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2-c2nn[nH]n2)cc1", -1, "", 0},
		// no site ionized at 7.4
		{"diazepam", "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21", 0, "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21", 0},
		{"paracetamol", "CC(=O)Nc1ccc(O)cc1", 0, "CC(=O)Nc1ccc(O)cc1", 0},
		// 4-hydroxycoumarin pKa 5.0
		{"warfarin", "CC(=O)CC(c1ccccc1)c1c(O)c2ccccc2oc1=O", -1, "CC(=O)CC(c1ccccc1)c1c([O-])c2ccccc2oc1=O", 0},
		// N-heteroaryl sulfonamide pKa 5.7
		{"sulfamethoxazole", "Cc1cc(NS(=O)(=O)c2ccc(N)cc2)no1", -1, "Cc1cc([N-]S(=O)(=O)c2ccc(N)cc2)no1", 0},
		// COOH 3.8; the anthranilic N stays neutral
		{"furosemide", "NS(=O)(=O)c1cc(C(=O)O)c(NCc2ccco2)cc1Cl", -1, "NS(=O)(=O)c1cc(C(=O)[O-])c(NCc2ccco2)cc1Cl", 0},
		// secondary amine pKa 9.6
		{"atenolol", "CC(C)NCC(O)COc1ccc(CC(N)=O)cc1", 1, "CC(C)[NH2+]CC(O)COc1ccc(CC(N)=O)cc1", 1},
		// N-methylpiperazine of a sulfonamide, pKa 6.5-6.8: neutral
		{"sildenafil", "CCCc1nn(C)c2c(=O)[nH]c(-c3cc(S(=O)(=O)N4CCN(C)CC4)ccc3OCC)nc12", 0, "", 0},
		// aryl guanidine, pKa 8.05
		{"clonidine", "Clc1cccc(Cl)c1NC1=NCCN1", 1, "", 1},
		// primary amine pKa 9.7, imidazole 6.0
		{"histamine", "NCCc1c[nH]cn1", 1, "[NH3+]CCc1c[nH]cn1", 1},
	} {
		p, err := Protonate(tc.smiles, 7.4)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		pos := 0
		for _, s := range p.Sites {
			if strings.HasSuffix(s.Class, "amine") || strings.Contains(s.Class, "guanid") || strings.Contains(s.Class, "amidine") ||
				s.Class == "imidazole" || s.Class == "pyridine" || s.Class == "aniline" || s.Class == "4-aminopyridine" {
				pos++
			}
		}
		if p.Charge != tc.charge || pos != tc.positive {
			t.Errorf("%s: %s charge %d, %d protonated (sites %+v); want charge %d, %d protonated", tc.name, p.SMILES, p.Charge, pos, p.Sites, tc.charge, tc.positive)
			continue
		}
		if tc.want != "" {
			c := canonicalNoStereo(t, p.SMILES, tc.want)
			if c[0] != c[1] {
				t.Errorf("%s: %s, want %s", tc.name, c[0], c[1])
			}
		}
	}
}

// TestProtonatePH: the pH moves the sites across their pKa (ibuprofen's
// acid, pKa ~4.5, is neutral at pH 2; imatinib's piperazine is neutral at
// pH 10), and a molecule keeps its specified stereo.
func TestProtonatePH(t *testing.T) {
	for _, tc := range []struct {
		smiles string
		ph     float64
		charge int
	}{
		{"CC(C)Cc1ccc(C(C)C(=O)O)cc1", 2, 0},
		{"CC(C)Cc1ccc(C(C)C(=O)O)cc1", 7.4, -1},
		{"Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1", 10, 0},
		{"Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1", 7.4, 1},
		{"OP(=O)(O)OCC", 7.4, -2}, // monoethyl phosphate: pKa 1.6, 6.6
		{"OP(=O)(O)OCC", 4, -1},
		{"C[N+](C)(C)CCO", 7.4, 1}, // choline: a quaternary N stays
	} {
		p, err := Protonate(tc.smiles, tc.ph)
		if err != nil {
			t.Fatalf("%s: %v", tc.smiles, err)
		}
		if p.Charge != tc.charge {
			t.Errorf("%s at pH %v: %s charge %d, want %d", tc.smiles, tc.ph, p.SMILES, p.Charge, tc.charge)
		}
	}
	p, err := Protonate("C[C@H](N)C(=O)O", 7.4) // L-alanine: zwitterion, S kept
	if err != nil {
		t.Fatal(err)
	}
	if p.SMILES != "C[C@H]([NH3+])C(=O)[O-]" {
		t.Errorf("L-alanine: %s", p.SMILES)
	}
	for _, bad := range []struct {
		smiles string
		ph     float64
	}{{"CCO", -1}, {"CCO", 15}, {"not a smiles", 7}} {
		if _, err := Protonate(bad.smiles, bad.ph); err == nil {
			t.Errorf("Protonate(%q, %v): no error", bad.smiles, bad.ph)
		}
	}
}

// FuzzProtonate: any SMILES and pH give a protonation or an error, never a
// crash; a protonation is a SMILES RDKit reads back with the same charge.
func FuzzProtonate(f *testing.F) {
	for _, s := range []string{"Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1", "CN(C)C(=N)NC(=N)N",
		"OC(=O)COCCN1CCN(CC1)C(c1ccccc1)c1ccc(Cl)cc1", "OP(=O)(O)OP(=O)(O)O", "C[N+](C)(C)C.[O-]C=O", "[nH]1nnnc1", "", "C1CC"} {
		f.Add(s, 7.4)
	}
	f.Fuzz(func(t *testing.T, smiles string, ph float64) {
		if len(smiles) > 300 {
			return
		}
		p, err := Protonate(smiles, ph)
		if err != nil {
			return
		}
		back, err := Protonate(p.SMILES, -1)
		if err == nil || back != nil {
			t.Fatalf("pH -1 accepted for %q", p.SMILES)
		}
		again, err := Protonate(p.SMILES, ph)
		if err != nil {
			t.Fatalf("%q -> %q, which is refused: %v", smiles, p.SMILES, err)
		}
		if len(again.Sites) == 0 && again.Charge != p.Charge {
			t.Fatalf("%q -> %q: charge %d then %d", smiles, p.SMILES, p.Charge, again.Charge)
		}
	})
}
