package chem

import (
	"os/exec"
	"strings"
	"testing"
)

// pythonStandardize runs RDKit Python (Debian python3-rdkit) on pairs of
// (input SMILES, our canonical SMILES). For each pair it prints, tab
// separated, what rdMolStandardize's same steps give (Cleanup -> largest
// organic fragment -> Uncharger, then SanitizeMol; if that fails, the
// charged fragment sanitized) and our SMILES parsed back and written again
// ("NONE" if RDKit cannot read it).
func pythonStandardize(t *testing.T, pairs ...string) [][2]string {
	t.Helper()
	script := `
import sys
from rdkit import Chem, RDLogger
from rdkit.Chem.MolStandardize import rdMolStandardize
RDLogger.DisableLog("rdApp.*")
args = sys.argv[1:]
for inp, ours in zip(args[0::2], args[1::2]):
    m = rdMolStandardize.Cleanup(Chem.MolFromSmiles(inp))
    f = rdMolStandardize.LargestFragmentChooser(preferOrganic=True).choose(m)
    u = rdMolStandardize.Uncharger().uncharge(f)
    try:
        Chem.SanitizeMol(u)
    except Exception:
        u = Chem.Mol(f)
        Chem.SanitizeMol(u)
    back = Chem.MolFromSmiles(ours)
    print(Chem.MolToSmiles(u) + "\t" + (Chem.MolToSmiles(back) if back is not None else "NONE"))
`
	cmd := exec.Command("/usr/bin/python3", append([]string{"-c", script}, pairs...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("needs Debian python3-rdkit: %v %s", err, stderr.String())
	}
	var res [][2]string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ref, back, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("python output line %q", line)
		}
		res = append(res, [2]string{ref, back})
	}
	if len(res) != len(pairs)/2 {
		t.Fatalf("python: %d answers for %d molecules", len(res), len(pairs)/2)
	}
	return res
}

// TestStandardizeRoundTrip: salts, organometallics and zwitterions whose
// neutralized fragment the Uncharger leaves unsanitized (a cyclopentadienide
// or tropylium ring still flagged aromatic once neutral, written "c1cccc1",
// which RDKit cannot read back). The canonical SMILES we store must parse
// back with RDKit Python to itself and equal what RDKit Python's same
// standardization steps give once sanitized.
func TestStandardizeRoundTrip(t *testing.T) {
	inputs := []struct{ name, smiles string }{
		{"ferrocene", "[Fe+2].c1cc[cH-]c1.c1cc[cH-]c1"},
		{"acetylferrocene", "CC(=O)c1ccc[cH-]1.[Fe+2].c1cc[cH-]c1"},
		{"sodium cyclopentadienide", "[Na+].c1cc[cH-]c1"},
		{"sodium indenide", "[Na+].c1ccc2[cH-]ccc2c1"},
		{"cobaltocenium hexafluorophosphate", "[Co+3].c1cc[cH-]c1.c1cc[cH-]c1.F[P-](F)(F)(F)(F)F"},
		{"pyridinium phenolate", "c1cc[nH+]cc1.[O-]c1ccccc1"},
		{"tropylium tetrafluoroborate", "c1cc[cH+]ccc1.F[B-](F)(F)F"},
		{"glycine zwitterion", "[NH3+]CC(=O)[O-]"},
		{"tetramethylammonium chloride", "C[N+](C)(C)C.[Cl-]"},
		{"sodium benzoate", "[Na+].[O-]C(=O)c1ccccc1"},
		{"imidazolium acetate", "c1c[nH+]c[nH]1.CC(=O)[O-]"},
	}
	var pairs []string
	ours := make([]*Result, len(inputs))
	for i, in := range inputs {
		r, err := process(t, Input{Format: FormatSMILES, Content: in.smiles})
		if err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		ours[i] = r
		pairs = append(pairs, in.smiles, r.SMILES)
	}
	ref := pythonStandardize(t, pairs...)
	for i, in := range inputs {
		got := ours[i].SMILES
		if ref[i][1] == "NONE" {
			t.Errorf("%s (%s): stored SMILES %q cannot be read back by RDKit", in.name, in.smiles, got)
		} else if ref[i][1] != got {
			t.Errorf("%s (%s): stored SMILES %q reads back as %q", in.name, in.smiles, got, ref[i][1])
		}
		if got != ref[i][0] {
			t.Errorf("%s (%s): SMILES %q, RDKit Python's standardization %q", in.name, in.smiles, got, ref[i][0])
		}
		for _, is := range ours[i].Validation {
			if is.Code == "standardization" {
				t.Errorf("%s: unexpected fallback: %s", in.name, is.Message)
			}
		}
	}
}
