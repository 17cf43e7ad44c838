package docking

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// corpus returns ../shared/docking-corpus seen from the module root.
func corpus(t testing.TB) string {
	t.Helper()
	return sharedtest.Dir(t, "docking-corpus")
}

func readCorpus(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func needObabel(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("obabel"); err != nil {
		t.Skip("obabel not installed (Debian openbabel)")
	}
}

// withoutRemarks drops REMARK lines (Open Babel writes the input file name there).
func withoutRemarks(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "REMARK") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// pdbResidues lists "chain:number:icode" of the ATOM records of a PDB file
// (first model), the residue set PrepareReceptor must keep.
func pdbResidues(b []byte) map[string]bool {
	set := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "ENDMDL") {
			break
		}
		if strings.HasPrefix(l, "ATOM  ") {
			n, _ := strconv.Atoi(strings.TrimSpace(l[22:26]))
			set[strings.TrimSpace(l[21:22])+":"+strconv.Itoa(n)+":"+strings.TrimSpace(l[26:27])] = true
		}
	}
	return set
}

// TestPrepareReceptor1iep: the H-stripped 1iep receptor (a raw crystal
// structure stand-in) through PrepareReceptor's Open Babel route must give exactly the corpus
// rec_B file (`obabel noH.pdb -xr -h -opdbqt`, README section 4: 471 HD
// atoms, score_only -12.513 - checked in TestScoreOnlyPublished), with the
// residue numbering of the input (MET A 225 first).
func TestPrepareReceptor1iep(t *testing.T) {
	needObabel(t)
	in := readCorpus(t, "derived/1iep_receptor_noH.pdb")
	start := time.Now()
	r, err := PrepareReceptor(context.Background(), in, ReceptorOptions{Route: RouteObabel})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1iep: prepared in %v: %d atoms, %d heavy, %d HD, %d residues, chains %v",
		time.Since(start).Round(time.Millisecond), r.Atoms, r.HeavyAtoms, r.PolarH, r.Residues, r.Chains)
	want := readCorpus(t, "derived/1iep_receptor_obabel_xr_h.pdbqt")
	if withoutRemarks(r.PDBQT) != withoutRemarks(want) {
		t.Errorf("PDBQT differs from the corpus obabel -xr -h file")
	}
	if r.PolarH != 471 || r.Source != "pdb" || len(r.Chains) != 1 || r.Chains[0] != "A" {
		t.Errorf("HD %d (want 471), source %s, chains %v", r.PolarH, r.Source, r.Chains)
	}
	if p := r.Preparation; p == nil || p.Route != RouteObabel || p.Fallback != "" || len(p.Steps) != 1 ||
		!slices.Equal(p.Steps[0].Args, []string{"obabel", "-ipdb", "in.pdb", "-xr", "-h", "-opdbqt", "-O", "out.pdbqt"}) {
		t.Errorf("preparation %+v", p)
	}
	if n := len(pdbResidues(in)); r.Residues != n {
		t.Errorf("%d residues, input has %d", r.Residues, n)
	}
	if a := r.Molecule.Atoms[0]; a.ResName != "MET" || a.ResSeq != 225 || a.Chain != "A" {
		t.Errorf("first atom %s %s%d, want MET A225 (numbering kept)", a.ResName, a.Chain, a.ResSeq)
	}
	heavyIn := 0
	for _, l := range strings.Split(string(in), "\n") {
		if strings.HasPrefix(l, "ATOM") {
			heavyIn++
		}
	}
	if r.HeavyAtoms != heavyIn {
		t.Errorf("%d heavy atoms, input has %d", r.HeavyAtoms, heavyIn)
	}
}

// TestPrepareReceptor5x72Raw: the raw PDB entry 5x72 (86 waters, the
// co-crystal ligands P59 and P69, 8 atoms with altlocs A/B). Waters and both
// ligands must go (README: kept ligands make the site score 0.000), one
// altloc kept, and every residue of the Vina repository's prepared receptor
// (5x72_receptor.pdbqt) present with the same heavy atoms. Ours also keeps
// LYS A 29, whose side chain is missing in the crystal (REMARK 470) and
// which the repository's preparation dropped. (Open Babel route: PDB2PQR
// would rebuild that side chain.)
func TestPrepareReceptor5x72Raw(t *testing.T) {
	needObabel(t)
	r, err := PrepareReceptor(context.Background(), readCorpus(t, "vina-examples/5x72/5x72.pdb"), ReceptorOptions{Route: RouteObabel})
	if err != nil {
		t.Fatal(err)
	}
	if r.Removed["HOH"] != 86 || r.Removed["P59"] != 1 || r.Removed["P69"] != 1 || len(r.Removed) != 3 {
		t.Errorf("removed %v", r.Removed)
	}
	if r.AltLocsDropped != 8 {
		t.Errorf("altloc atoms dropped %d, want 8", r.AltLocsDropped)
	}
	for _, a := range r.Molecule.Atoms {
		if a.Hetero || a.AltLoc != "" {
			t.Fatalf("hetero or altloc atom left: %+v", a)
		}
	}
	ref, err := pdbqt.ParseMolecule(bytes.NewReader(readCorpus(t, "vina-examples/5x72/5x72_receptor.pdbqt")))
	if err != nil {
		t.Fatal(err)
	}
	heavy := func(m *pdbqt.Molecule) map[string]int {
		out := map[string]int{}
		for _, a := range m.Atoms {
			if !a.IsHydrogen() {
				out[a.ResName+" "+a.Chain+strconv.Itoa(a.ResSeq)]++
			}
		}
		return out
	}
	ours, theirs := heavy(r.Molecule), heavy(ref)
	for res, n := range theirs {
		if ours[res] != n {
			t.Errorf("%s: %d heavy atoms, Vina repo receptor %d", res, ours[res], n)
		}
	}
	for res, n := range ours {
		if _, ok := theirs[res]; !ok && res != "LYS A29" {
			t.Errorf("extra residue %s (%d atoms)", res, n)
		}
	}
	if ours["LYS A29"] != 5 {
		t.Errorf("LYS A29 has %d heavy atoms, want 5 (N CA C O CB)", ours["LYS A29"])
	}

	kept, err := PrepareReceptor(context.Background(), readCorpus(t, "vina-examples/5x72/5x72.pdb"), ReceptorOptions{KeepHetero: true, Route: RouteObabel})
	if err != nil {
		t.Fatal(err)
	}
	ligAtoms := 0
	for _, a := range kept.Molecule.Atoms {
		if (a.ResName == "P59" || a.ResName == "P69") && !a.IsHydrogen() {
			ligAtoms++
		}
	}
	if ligAtoms != 48 || kept.Removed["HOH"] != 86 || len(kept.Removed) != 1 {
		t.Errorf("KeepHetero: %d ligand heavy atoms (want 24+24), removed %v", ligAtoms, kept.Removed)
	}
}

// TestPrepareReceptorMetals: 1fbl (p2rank test data) has Zn and Ca ions, the
// inhibitor HTA and waters. KeepMetals keeps the 2 Zn and 4 Ca (Vina types
// Zn/Ca) and drops HTA; by default all hetero groups go.
func TestPrepareReceptorMetals(t *testing.T) {
	needObabel(t)
	in := readCorpus(t, "pockets/p2rank-testdata/1fbl.pdb")
	count := func(r *Receptor, typ string) int {
		n := 0
		for _, a := range r.Molecule.Atoms {
			if a.Type == typ {
				n++
			}
		}
		return n
	}
	r, err := PrepareReceptor(context.Background(), in, ReceptorOptions{KeepMetals: true, Route: RouteObabel})
	if err != nil {
		t.Fatal(err)
	}
	if count(r, "Zn") != 2 || count(r, "Ca") != 4 || r.Removed["HTA"] != 1 || r.Removed["ZN"] != 0 {
		t.Errorf("KeepMetals: Zn %d Ca %d removed %v", count(r, "Zn"), count(r, "Ca"), r.Removed)
	}
	plain, err := PrepareReceptor(context.Background(), in, ReceptorOptions{Route: RouteObabel})
	if err != nil {
		t.Fatal(err)
	}
	if count(plain, "Zn") != 0 || plain.Removed["ZN"] != 2 || plain.Removed["CA"] != 4 {
		t.Errorf("default: Zn %d removed %v", count(plain, "Zn"), plain.Removed)
	}
}

// TestReceptorPDBQTInput: PDBQT uploads are validated and used unchanged.
func TestReceptorPDBQTInput(t *testing.T) {
	ctx := context.Background()
	in := readCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt")
	r, err := PrepareReceptor(ctx, in, ReceptorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Source != "pdbqt" || !bytes.Equal(r.PDBQT, in) || r.Atoms != strings.Count(string(in), "\nATOM")+1 {
		t.Errorf("source %s, %d atoms", r.Source, r.Atoms)
	}
	noH, err := PrepareReceptor(ctx, readCorpus(t, "derived/1iep_receptor_obabel_xr_noH.pdbqt"), ReceptorOptions{Format: "PDBQT"})
	if err != nil || len(noH.Warnings) == 0 {
		t.Errorf("receptor without H: %v, warnings %v", err, noH.Warnings)
	}
	for name, tc := range map[string]struct {
		data   []byte
		format string
	}{
		"ligand as receptor": {readCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt"), "pdbqt"},
		"vina output":        {readCorpus(t, "derived/1iep_vina123_exh8_seed42_out.pdbqt"), "pdbqt"},
		"uppercase type":     {[]byte("ATOM      1 ZN   ZN  A 301      57.964  28.718  30.981  1.00  0.00     0.000 ZN\n"), "pdbqt"},
		"garbage pdbqt":      {[]byte("hello\n"), "pdbqt"},
		"empty pdb":          {[]byte(""), "pdb"},
		"waters only":        {[]byte("HETATM    1  O   HOH A   1      57.964  28.718  30.981  1.00  0.00           O\n"), "pdb"},
		"short pdb":          {[]byte("ATOM      1  N   MET A 225      19.353\n"), "pdb"},
		"bad coordinate":     {[]byte("ATOM      1  N   MET A 225      19.353  41.5x7  -3.887  1.00  0.00           N\n"), "pdb"},
		"NaN coordinate":     {[]byte("ATOM      1  N   MET A 225         NaN  41.507  -3.887  1.00  0.00           N\n"), "pdb"},
		"Inf coordinate":     {[]byte("ATOM      1  N   MET A 225      19.353    -Inf  -3.887  1.00  0.00           N\n"), "pdb"},
		"unknown format":     {in, "mol2"},
	} {
		if _, err := PrepareReceptor(ctx, tc.data, ReceptorOptions{Format: tc.format}); !errors.Is(err, ErrInvalidReceptor) {
			t.Errorf("%s: %v, want ErrInvalidReceptor", name, err)
		}
	}
	for rel, want := range map[string]string{
		"vina-examples/1iep/1iep_receptor.pdbqt":  "pdbqt",
		"derived/1iep_receptor_obabel_xr_h.pdbqt": "pdbqt",
		"pockets/adgpu42/1jje/protein.pdbqt":      "pdbqt",
		"derived/1iep_receptor_noH.pdb":           "pdb",
		"vina-examples/5x72/5x72.pdb":             "pdb",
		"vina-examples/1iep/1iep_receptorH.pdb":   "pdb",
		"derived/1iep_receptor_pdb2pqr_pH7.4.pdb": "pdb",
		"pockets/p2rank-testdata/1fbl.pdb":        "pdb",
	} {
		if got := DetectReceptorFormat(readCorpus(t, rel)); got != want {
			t.Errorf("DetectReceptorFormat(%s) = %s, want %s", rel, got, want)
		}
	}
	if _, err := PrepareReceptor(ctx, readCorpus(t, "derived/1iep_receptor_noH.pdb"), ReceptorOptions{Obabel: "/nonexistent/obabel", Route: RouteObabel}); !errors.Is(err, ErrEngine) {
		t.Errorf("missing obabel: %v", err)
	}
}

func TestObabelVersion(t *testing.T) {
	needObabel(t)
	ctx := context.Background()
	v := ObabelVersion(ctx, "")
	if v == "" || !strings.Contains(v, ".") {
		t.Fatalf("ObabelVersion = %q, want a dotted version", v)
	}
	if again := ObabelVersion(ctx, "obabel"); again != v {
		t.Errorf("second call = %q, want cached %q", again, v)
	}
	if got := ObabelVersion(ctx, filepath.Join(t.TempDir(), "no-obabel")); got != "" {
		t.Errorf("missing binary: got %q, want \"\"", got)
	}
}
