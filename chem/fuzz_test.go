package chem

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// checkFuzz accepts a result or an invalid-molecule error; anything else
// (another error, a panic, a crash of the process) fails. The result must
// also be the one of the full standardization path (no shortcuts, see
// TestShortcutsExact), so fuzzing searches for molecules where a shortcut
// would change a result.
func checkFuzz(t *testing.T, in Input) {
	r, err := process(t, in)
	full, ferr := fullPath(t).Process(context.Background(), in)
	// Both paths must fail alike. Their messages are not compared: RDKit
	// quotes a byte past the end of a short molfile line in one of them
	// (see printable), which differs between two reads of one input.
	if (err == nil) != (ferr == nil) || err != nil && errors.Is(err, ErrInvalidMolecule) != errors.Is(ferr, ErrInvalidMolecule) {
		t.Fatalf("%q: error %v, without shortcuts %v", in.Content, err, ferr)
	}
	if err != nil {
		if !errors.Is(err, ErrInvalidMolecule) {
			t.Fatalf("%q: unexpected error %v", in.Content, err)
		}
		return
	}
	if r.SMILES == "" && r.HeavyAtoms > 0 {
		t.Fatalf("%q: empty SMILES", in.Content)
	}
	r.Timing, full.Timing = Timing{}, Timing{}
	if !reflect.DeepEqual(r, full) {
		t.Fatalf("%q: result\n%+v\nwithout shortcuts\n%+v", in.Content, r, full)
	}
}

var fullPool struct {
	once sync.Once
	p    *Pool
	err  error
}

// fullPath returns a one-worker pool that runs every standardization step
// (flag MG_NO_SHORTCUTS).
func fullPath(t *testing.T) *Pool {
	fullPool.once.Do(func() {
		fullPool.p, fullPool.err = NewPool(1)
		if fullPool.p != nil {
			fullPool.p.flags = flagNoShortcuts
		}
	})
	if fullPool.err != nil {
		t.Fatal(fullPool.err)
	}
	return fullPool.p
}

func FuzzParseSMILES(f *testing.F) {
	for _, s := range []string{"CCO", "C[C@H](N)C(=O)O", "C/C=C/C", "[Na+].[O-]C(=O)c1ccccc1",
		"c1ccccc1", "C1CC", "CN(C)(C)(C)C", "[2H]C(Cl)(Cl)Cl", "*c1ccccc1", "[Fe+2]", "OCl(=O)(=O)=O",
		"C12C3C4C1C5C2C3C45", "[CH3]", "c1cc[se]c1", "C[N@H+]1CCCC1", "[O-][n+]1ccccc1", "C=[N+]=[N-]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFuzz(t, Input{Format: FormatSMILES, Content: s})
	})
}

func FuzzParseInChI(f *testing.F) {
	for _, s := range []string{
		"InChI=1S/C3H7NO2/c1-2(4)3(5)6/h2H,4H2,1H3,(H,5,6)/t2-/m0/s1",
		"InChI=1S/C4H8/c1-3-4-2/h3-4H,1-2H3/b4-3+",
		"InChI=1S/ClHO4/c2-1(3,4)5/h(H,2,3,4,5)",
		"InChI=1S/C6H12O6/c7-1-2-3(8)4(9)5(10)6(11)12-2/h2-11H,1H2/t2-,3-,4+,5-,6?/m1/s1",
		"InChI=1S/CHCl3/c2-1(3)4/h1H/i1D", "InChI=1S/Na.H2O/h;1H2/q+1;/p-1", "InChI=1S/", "InChI=",
		"InChI=1S/CH4/h1H4/q+99", "InChI=1S/CH4/h1H4/p+99999", "InChI=1S/C2H6/c1-2/h1-2H3/i1-99", "InChI=1S/CH4/h1H4/i1+500",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFuzz(t, Input{Format: FormatInChI, Content: s})
	})
}

func FuzzParseMolBlock(f *testing.F) {
	for _, file := range []string{"testdata/molblocks_v2000.sdf", "testdata/molblocks_v3000.sdf"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		recs := strings.Split(string(data), "$$$$\n")
		for _, i := range []int{0, 5, 12} {
			if i < len(recs) {
				f.Add(recs[i])
			}
		}
	}
	f.Add("\n\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n")
	f.Fuzz(func(t *testing.T, s string) {
		checkFuzz(t, Input{Format: FormatMolfile, Content: s})
	})
}

func FuzzParsePDBQT(f *testing.F) {
	dir := filepath.Join("..", "..", "shared", "docking-corpus")
	for _, rel := range []string{"vina-examples/1iep/1iep_ligand.pdbqt", "vina-examples/1uw6/1uw6_ligand.pdbqt",
		"ligands/ibuprofen_obabel_gen3d_p7.4.pdbqt"} {
		if b, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
			f.Add(string(b), "")
		}
	}
	f.Add("REMARK SMILES CCO\nREMARK SMILES IDX 1 1 2 2 3 3\n"+
		"ATOM      1  C   UNL     1       0.000   0.000   0.000  1.00  0.00     0.000 C \n"+
		"ATOM      2  C   UNL     1       1.520   0.000   0.000  1.00  0.00     0.000 C \n"+
		"ATOM      3  O   UNL     1       2.000   1.400   0.000  1.00  0.00     0.000 OA\n", "")
	f.Add("ATOM      1  C   UNL     1       0.000   0.000   0.000  1.00  0.00     0.000 C \n"+
		"ATOM      2  O   UNL     1       1.430   0.000   0.000  1.00  0.00     0.000 OA\n", "CO")
	f.Fuzz(func(t *testing.T, s, template string) {
		checkFuzz(t, Input{Format: FormatPDBQT, Content: s, TemplateSMILES: template})
	})
}
