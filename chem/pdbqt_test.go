package chem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readShared(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDir(t), "docking-corpus", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPDBQTLigands reads Meeko-written ligand PDBQT files (REMARK SMILES /
// SMILES IDX) from the docking corpus, including Vina output with several
// MODELs, and requires the identity of the crystal ligand SDF they were
// made from.
func TestPDBQTLigands(t *testing.T) {
	tests := []struct{ pdbqt, sdf string }{
		{"vina-examples/1iep/1iep_ligand.pdbqt", "vina-examples/1iep/1iep_ligand.sdf"},
		{"vina-examples/1iep/1iep_ligand_vina_out.pdbqt", "vina-examples/1iep/1iep_ligand.sdf"},
		{"derived/1iep_vina123_exh8_seed42_out.pdbqt", "vina-examples/1iep/1iep_ligand.sdf"},
		{"vina-examples/5x72/5x72_ligand_p59.pdbqt", "vina-examples/5x72/5x72_ligand_p59H.sdf"},
		{"vina-examples/5x72/5x72_ligand_p69.pdbqt", "vina-examples/5x72/5x72_ligand_p69H.sdf"},
		{"vina-examples/1uw6/1uw6_ligand.pdbqt", "vina-examples/1uw6/1uw6_ligandH.sdf"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.pdbqt), func(t *testing.T) {
			want, err := process(t, Input{Format: FormatMolfile, Content: readShared(t, tt.sdf)})
			if err != nil {
				t.Fatalf("%s: %v", tt.sdf, err)
			}
			got, err := process(t, Input{Format: FormatPDBQT, Content: readShared(t, tt.pdbqt)})
			if err != nil {
				t.Fatal(err)
			}
			if got.SMILES != want.SMILES || got.InChIKey != want.InChIKey {
				t.Errorf("PDBQT %s %s, SDF %s %s", got.SMILES, got.InChIKey, want.SMILES, want.InChIKey)
			}
		})
	}
	// imatinib against the RDKit/Open Babel reference row
	ref := map[string]refRow{}
	for _, r := range loadReference(t) {
		ref[r["id"]] = r
	}
	got, err := process(t, Input{Format: FormatPDBQT, Content: readShared(t, "vina-examples/1iep/1iep_ligand.pdbqt")})
	if err != nil {
		t.Fatal(err)
	}
	if want := ref["imatinib"]; got.SMILES != want["smiles"] || got.InChIKey != want["inchikey_obabel"] {
		t.Errorf("1iep ligand: %s %s, reference %s %s", got.SMILES, got.InChIKey, want["smiles"], want["inchikey_obabel"])
	}
}

// TestPDBQTWithoutSMILES: files with merged non-polar hydrogens and no
// REMARK SMILES are rejected unless a template SMILES is given; with one,
// atoms are matched by proximity bonding and a warning is recorded.
func TestPDBQTWithoutSMILES(t *testing.T) {
	ref := map[string]refRow{}
	for _, r := range loadReference(t) {
		ref[r["id"]] = r
	}
	smi := readShared(t, "ligands/throughput6.smi")
	for _, line := range strings.Split(strings.TrimSpace(smi), "\n") {
		f := strings.Fields(line)
		smiles, name := f[0], f[1]
		t.Run(name, func(t *testing.T) {
			content := readShared(t, "ligands/"+name+"_obabel_gen3d_p7.4.pdbqt")
			_, err := process(t, Input{Format: FormatPDBQT, Content: content})
			var me *MoleculeError
			if !errors.As(err, &me) || !strings.Contains(me.Reason, "bond orders cannot be recovered") {
				t.Fatalf("without template: %v", err)
			}
			got, err := process(t, Input{Format: FormatPDBQT, Content: content, TemplateSMILES: smiles})
			if err != nil {
				t.Fatal(err)
			}
			// The template has no stereo, so it comes from the 3D
			// coordinates: compare the skeleton (first InChIKey block).
			want := ref["corpus_"+name]
			if got.InChIKey[:14] != want["inchikey_obabel"][:14] || got.Formula != want["formula"] {
				t.Errorf("%s %s, reference %s %s", got.SMILES, got.InChIKey, want["smiles"], want["inchikey_obabel"])
			}
			warned := false
			for _, is := range got.Validation {
				warned = warned || is.Code == "bond_orders_from_template"
			}
			if !warned {
				t.Errorf("no bond_orders_from_template warning: %v", got.Validation)
			}
		})
	}
	// a template that does not fit is an error, not a guess
	content := readShared(t, "ligands/ibuprofen_obabel_gen3d_p7.4.pdbqt")
	_, err := process(t, Input{Format: FormatPDBQT, Content: content, TemplateSMILES: "CCCCCCCCCCCCCCC"})
	if !errors.Is(err, ErrInvalidMolecule) {
		t.Errorf("wrong template: %v", err)
	}
	// the legacy ADT file of 1iep with the imatinib template
	legacy := readShared(t, "vina-examples/1iep/1iep_ligand_legacy_adt.pdbqt")
	got, err := process(t, Input{Format: FormatPDBQT, Content: legacy, TemplateSMILES: ref["imatinib"]["input"]})
	if err != nil {
		t.Fatal(err)
	}
	if got.InChIKey != ref["imatinib"]["inchikey_obabel"] {
		t.Errorf("legacy 1iep: %s, want %s", got.InChIKey, ref["imatinib"]["inchikey_obabel"])
	}
}
