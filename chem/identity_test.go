package chem

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestStereoInChIKeys checks stereo-sensitive identities against published
// standard InChIKeys (PubChem) - independent of RDKit and Open Babel.
func TestStereoInChIKeys(t *testing.T) {
	tests := []struct {
		name, smiles, key string
	}{
		{"L-alanine", "C[C@H](N)C(=O)O", "QNAYBMKLOCPYGJ-REOHCLBHSA-N"},
		{"L-alanine, H first", "[C@@H](C)(N)C(=O)O", "QNAYBMKLOCPYGJ-REOHCLBHSA-N"},
		{"D-alanine", "C[C@@H](N)C(=O)O", "QNAYBMKLOCPYGJ-UWTATZPHSA-N"},
		{"alanine, no stereo", "CC(N)C(=O)O", "QNAYBMKLOCPYGJ-UHFFFAOYSA-N"},
		{"(E)-2-butene", "C/C=C/C", "IAQRGUVFOMOMEM-ONEGZZNKSA-N"},
		{"(Z)-2-butene", "C/C=C\\C", "IAQRGUVFOMOMEM-ARJAWSKDSA-N"},
		{"alpha-D-glucopyranose", "OC[C@H]1O[C@H](O)[C@H](O)[C@@H](O)[C@@H]1O", "WQZGKKKJIJFFOK-DVKNGEFBSA-N"},
		{"beta-D-glucopyranose", "OC[C@H]1O[C@@H](O)[C@H](O)[C@@H](O)[C@@H]1O", "WQZGKKKJIJFFOK-VFUOTHLCSA-N"},
		{"testosterone", "C[C@]12CC[C@H]3[C@@H](CCC4=CC(=O)CC[C@@]43C)[C@@H]1CC[C@@H]2O", "MUMGGOZAMZWBJJ-DYKIIFRCSA-N"},
		{"aspirin", "CC(=O)Oc1ccccc1C(=O)O", "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"},
		{"perchloric acid (perchlorate fix)", "OCl(=O)(=O)=O", "VLTRZXGMWDSKGL-UHFFFAOYSA-N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := process(t, Input{Format: FormatSMILES, Content: tt.smiles})
			if err != nil {
				t.Fatal(err)
			}
			if r.InChIKey != tt.key {
				t.Errorf("InChIKey %s (%s), want %s", r.InChIKey, r.InChI, tt.key)
			}
			// and back from the InChI
			back, err := process(t, Input{Format: FormatInChI, Content: r.InChI})
			if err != nil {
				t.Fatal(err)
			}
			if back.InChIKey != tt.key {
				t.Errorf("InChI round trip gives %s, want %s", back.InChIKey, tt.key)
			}
		})
	}
}

// TestInvalidInput checks that bad content yields ErrInvalidMolecule with a
// message naming the problem.
func TestInvalidInput(t *testing.T) {
	tests := []struct {
		name   string
		in     Input
		reason string // substring of the message
	}{
		{"pentavalent N", Input{Format: FormatSMILES, Content: "CN(C)(C)(C)C"}, "explicit valence for atom 2 N is 5, greater than permitted"},
		{"tetravalent neutral N", Input{Format: FormatSMILES, Content: "CC[N](C)(C)C"}, "explicit valence for atom 3 N is 4, greater than permitted"},
		{"pentavalent C", Input{Format: FormatSMILES, Content: "C(C)(C)(C)(C)C"}, "explicit valence for atom 1 C is 5"},
		{"unclosed ring", Input{Format: FormatSMILES, Content: "C1CC"}, `SMILES syntax error in "C1CC": ring bond 1 is not closed`},
		{"unclosed branch", Input{Format: FormatSMILES, Content: "CC(C"}, "a '(' is not closed"},
		{"unclosed bracket", Input{Format: FormatSMILES, Content: "C[NH4+"}, "'[' at position 2 is not closed"},
		{"garbage", Input{Format: FormatSMILES, Content: "not a smiles"}, "SMILES syntax error"},
		{"empty SMILES", Input{Format: FormatSMILES, Content: "  "}, "empty SMILES"},
		{"bad aromatic ring", Input{Format: FormatSMILES, Content: "c1cccc1"}, "cannot assign a Kekulé structure"},
		{"pyrrole without H", Input{Format: FormatSMILES, Content: "c1ccnc1"}, "cannot assign a Kekulé structure"},
		{"NUL byte", Input{Format: FormatSMILES, Content: "CC\x00O"}, "NUL"},
		{"not an InChI", Input{Format: FormatInChI, Content: "CCO"}, "must start with \"InChI=\""},
		{"broken InChI", Input{Format: FormatInChI, Content: "InChI=1S/C2H6O/c1-2-"}, "does not connect all 3 atoms"},
		{"InChI libinchi rejects", Input{Format: FormatInChI, Content: "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3/t3-/m1"}, "cannot read InChI"},
		{"InChI formula", Input{Format: FormatInChI, Content: "InChI=1S/KKKH8/c3"}, "Hill order"},
		{"empty molfile", Input{Format: FormatMolfile, Content: ""}, "M  END"},
		{"truncated molfile", Input{Format: FormatMolfile, Content: "x\n\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\nM  END\n"}, "cannot read molfile"},
		{"molfile valence", Input{Format: FormatMolfile, Content: "\n     RDKit          2D\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 F   0  0  0  0  0  0  0  0  0  0  0  0\n    1.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n  1  2  2  0\nM  END\n"}, "explicit valence for atom 1 F is 2, greater than permitted"},
		{"PDBQT without atoms", Input{Format: FormatPDBQT, Content: "REMARK nothing\n"}, "no ATOM/HETATM"},
		{"PDBQT unknown type", Input{Format: FormatPDBQT, Content: "ATOM      1  C   UNL     1       0.000   0.000   0.000  1.00  0.00     0.000 Xx\n"}, "unknown AutoDock atom type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := process(t, tt.in)
			if !errors.Is(err, ErrInvalidMolecule) {
				t.Fatalf("err = %v, want ErrInvalidMolecule", err)
			}
			var me *MoleculeError
			if !errors.As(err, &me) || !strings.Contains(me.Reason, tt.reason) {
				t.Errorf("reason %q, want it to contain %q", err, tt.reason)
			}
		})
	}
	if _, err := process(t, Input{Format: "cml", Content: "x"}); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("cml: err = %v, want ErrUnsupportedFormat", err)
	}
}

func TestParseFormat(t *testing.T) {
	for name, want := range map[string]Format{"SMILES": FormatSMILES, "smi": FormatSMILES, "InChI": FormatInChI,
		"sdf": FormatMolfile, "mol": FormatMolfile, "PDBQT": FormatPDBQT} {
		if got, err := ParseFormat(name); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", name, got, err)
		}
	}
	if _, err := ParseFormat("cdx"); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("ParseFormat(cdx): %v", err)
	}
}

// TestValidation checks the validation rules on molecules that parse.
func TestValidation(t *testing.T) {
	tests := []struct {
		smiles    string
		validated bool
		codes     []string
	}{
		{"CCO", true, nil},
		{"[CH3]", false, []string{"radical"}},
		{"*c1ccccc1", false, []string{"dummy_atom"}},
		{"[Fe+2].[Cl-].[Cl-]", false, []string{"element", "multiple_fragments"}},
		{"CC(=O)[O-].[Na+]", true, []string{"multiple_fragments"}},
		{"[2H]C(Cl)(Cl)Cl", true, []string{"isotope"}},
		{"C[N+](C)(C)C", true, []string{"charged"}},
		{"OB(O)c1ccccc1", true, nil},
	}
	for _, tt := range tests {
		r, err := process(t, Input{Format: FormatSMILES, Content: tt.smiles})
		if err != nil {
			t.Errorf("%s: %v", tt.smiles, err)
			continue
		}
		if r.Validated != tt.validated {
			t.Errorf("%s: validated %v, want %v (%v)", tt.smiles, r.Validated, tt.validated, r.Validation)
		}
		for _, c := range tt.codes {
			found := false
			for _, is := range r.Validation {
				found = found || is.Code == c
			}
			if !found {
				t.Errorf("%s: no %q issue in %v", tt.smiles, c, r.Validation)
			}
		}
	}
	// removed fragments and steps are reported
	r, err := process(t, Input{Format: FormatSMILES, Content: "[Na+].[O-]C(=O)c1ccccc1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.RemovedFragments) != 1 || r.RemovedFragments[0] != "[Na+]" || r.SMILES != "O=C(O)c1ccccc1" {
		t.Errorf("sodium benzoate: %q removed %v", r.SMILES, r.RemovedFragments)
	}
	if len(r.Normalization) != 4 || !strings.HasPrefix(r.Normalization[3], "neutralize: net charge -1 -> 0") {
		t.Errorf("steps %q", r.Normalization)
	}
}

// TestMolfiles reads the curated molecules written by RDKit as V2000 and
// V3000 molfiles and compares with the reference rows of the same ids.
func TestMolfiles(t *testing.T) {
	ref := map[string]refRow{}
	for _, r := range loadReference(t) {
		ref[r["id"]] = r
	}
	for _, file := range []string{"testdata/molblocks_v2000.sdf", "testdata/molblocks_v3000.sdf"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, rec := range strings.Split(string(data), "$$$$\n") {
			if strings.TrimSpace(rec) == "" {
				continue
			}
			n++
			id := strings.TrimSpace(strings.SplitN(rec, "\n", 2)[0])
			want, ok := ref[id]
			if !ok {
				t.Fatalf("%s: no reference row %q", file, id)
			}
			r, err := process(t, Input{Format: FormatMolfile, Content: rec + "$$$$\n"})
			if err != nil {
				t.Errorf("%s %s: %v", file, id, err)
				continue
			}
			if r.SMILES != want["smiles"] || r.InChIKey != want["inchikey_obabel"] && !strings.Contains(id, "perchlorate") {
				t.Errorf("%s %s: %s %s, want %s %s", file, id, r.SMILES, r.InChIKey, want["smiles"], want["inchikey_obabel"])
			}
		}
		if n < 20 {
			t.Errorf("%s: only %d records", file, n)
		}
	}
}
