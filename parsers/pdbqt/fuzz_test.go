package pdbqt

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse: any input either fails with an error or yields models that
// Write writes and Parse reads back with the same structure; writing again
// gives the same bytes (Write rounds numbers to their columns once).
func FuzzParse(f *testing.F) {
	root := corpus(f)
	for _, rel := range []string{
		"vina-examples/1iep/1iep_ligand.pdbqt",
		"vina-examples/1fpu/1fpu_receptor_flex.pdbqt",
		"vina-examples/5x72/5x72_ligand_p59.pdbqt",
		"ligands/ibuprofen_obabel_gen3d_p7.4.pdbqt",
		"pockets/adgpu42/1ac8/flex-xray.pdbqt",
	} {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	out, err := os.ReadFile(filepath.Join(root, "vina-examples/5x72/5x72_ligand_vina_out.pdbqt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(out[:4000])
	f.Add([]byte("REMARK SMILES CO\nREMARK SMILES IDX 1 1 2 2\nREMARK H PARENT 2 3\nROOT\n" +
		"ATOM      1  C   UNL     1       0.000   0.000   0.000  1.00  0.00     0.000 C \n" +
		"ENDROOT\nBRANCH   1   2\n" +
		"ATOM      2  O   UNL     1       1.400   0.000   0.000  1.00  0.00    -0.400 OA\n" +
		"ATOM      3  H   UNL     1       1.700   0.900   0.000  1.00  0.00     0.200 HD\n" +
		"ENDBRANCH   1   2\nTORSDOF 1\n"))
	f.Add([]byte("MODEL 1\nREMARK VINA RESULT: -1 0 0\nROOT\nENDROOT\nENDMDL\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := ParseBytes(b)
		if err != nil {
			return
		}
		var w1, w2 bytes.Buffer
		if err := Write(&w1, ms); err != nil {
			return // a value that does not fit its columns is refused, not mangled
		}
		again, err := ParseBytes(w1.Bytes())
		if err != nil {
			t.Fatalf("re-parse: %v\n%s", err, w1.Bytes())
		}
		if len(again) != len(ms) {
			t.Fatalf("%d models, then %d", len(ms), len(again))
		}
		for i := range ms {
			if len(again[i].Molecules) != len(ms[i].Molecules) {
				t.Fatalf("model %d: %d molecules, then %d", i, len(ms[i].Molecules), len(again[i].Molecules))
			}
			for k, m := range ms[i].Molecules {
				m2 := again[i].Molecules[k]
				if len(m2.Atoms) != len(m.Atoms) || !reflect.DeepEqual(m2.Root, m.Root) || m2.TorsDOF != m.TorsDOF ||
					m2.SMILES != m.SMILES || !reflect.DeepEqual(m2.SMILESIdx, m.SMILESIdx) {
					t.Fatalf("model %d molecule %d changed in the round trip\n%s", i, k, w1.Bytes())
				}
			}
		}
		// Written output is a fixed point (numbers are rounded to their columns once).
		if err := Write(&w2, again); err != nil || !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("second write differs (%v)\n%s\n---\n%s", err, w1.Bytes(), w2.Bytes())
		}
	})
}
