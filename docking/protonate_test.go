package docking

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func needPDB2PQR(t *testing.T) {
	t.Helper()
	needObabel(t)
	if _, err := exec.LookPath("pdb2pqr30"); err != nil {
		t.Skip("pdb2pqr30 not installed (Debian pdb2pqr, python3-propka)")
	}
}

func phOf(v float64) *float64 { return &v }

// hisStates maps "chain:number" of every histidine to its tautomer, read
// from its hydrogens: HID (HD1 only), HIE (HE2 only) or HIP (both).
func hisStates(r *Receptor) map[string]string {
	hs := map[string][2]bool{}
	for _, a := range r.Molecule.Atoms {
		if a.ResName != "HIS" {
			continue
		}
		k := a.Chain + ":" + strconv.Itoa(a.ResSeq)
		s := hs[k]
		switch a.Name {
		case "HD1":
			s[0] = true
		case "HE2":
			s[1] = true
		}
		hs[k] = s
	}
	out := map[string]string{}
	for k, s := range hs {
		out[k] = map[[2]bool]string{{true, false}: "HID", {false, true}: "HIE", {true, true}: "HIP", {false, false}: "HIS?"}[s]
	}
	return out
}

// TestPrepareReceptorPDB2PQR1iep: the H-stripped 1iep receptor through the
// default route. References: the corpus README (section 4, rec_E: PDB2PQR
// with PROPKA at pH 7.4, then obabel -xr, 473 HD atoms, as Meeko's
// receptor from the Vina repository has) and the corpus's own PDB2PQR
// output (derived/1iep_receptor_pdb2pqr_pH7.4.pdb, AMBER residue names
// HID/HIE/HIP), whose histidine tautomers ours must match; residue
// numbering and chains kept; the steps recorded with the pH.
func TestPrepareReceptorPDB2PQR1iep(t *testing.T) {
	needPDB2PQR(t)
	ctx := context.Background()
	r, err := PrepareReceptor(ctx, readCorpus(t, "derived/1iep_receptor_noH.pdb"), ReceptorOptions{Route: RoutePDB2PQR})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Preparation
	if p == nil || p.Route != RoutePDB2PQR || p.Fallback != "" || p.PH != 7.4 || len(p.Steps) != 2 {
		t.Fatalf("preparation %+v", p)
	}
	if s := p.Steps[0]; s.Tool != "PDB2PQR" || !strings.HasPrefix(s.Version, "3.5.2 (PROPKA 3.") ||
		!slices.Contains(s.Args, "--with-ph=7.4") || !slices.Contains(s.Args, "--keep-chain") || s.Args[0] != "pdb2pqr30" {
		t.Errorf("pdb2pqr step %+v", s)
	}
	if s := p.Steps[1]; s.Tool != "Open Babel" || s.Version == "" || slices.Contains(s.Args, "-h") || !slices.Contains(s.Args, "-xr") {
		t.Errorf("obabel step %+v (must not add hydrogens)", s)
	}
	if r.PolarH != 473 {
		t.Errorf("%d HD atoms, want 473 (corpus rec_E)", r.PolarH)
	}
	if a := r.Molecule.Atoms[0]; a.ResName != "MET" || a.ResSeq != 225 || a.Chain != "A" {
		t.Errorf("first atom %s %s%d, want MET A225 (numbering kept)", a.ResName, a.Chain, a.ResSeq)
	}
	if n := len(pdbResidues(readCorpus(t, "derived/1iep_receptor_noH.pdb"))); r.Residues != n {
		t.Errorf("%d residues, input has %d", r.Residues, n)
	}
	// The corpus PDB2PQR run's tautomers, from its AMBER residue names.
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(readCorpus(t, "derived/1iep_receptor_pdb2pqr_pH7.4.pdb")))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "ATOM") && strings.HasPrefix(l[17:20], "HI") {
			n, _ := strconv.Atoi(strings.TrimSpace(l[22:26]))
			want[strings.TrimSpace(l[21:22])+":"+strconv.Itoa(n)] = l[17:20]
		}
	}
	got := hisStates(r)
	if len(want) == 0 || len(got) != len(want) {
		t.Errorf("histidines: ours %v, corpus %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("HIS %s: %s, corpus PDB2PQR %s", k, got[k], w)
		}
	}
	t.Logf("1iep pH 7.4: %d atoms, %d HD, histidines %v, warnings %v", r.Atoms, r.PolarH, got, r.Warnings)

	// At pH 4 PROPKA protonates more (histidines, carboxylates): more HD.
	acid, err := PrepareReceptor(ctx, readCorpus(t, "derived/1iep_receptor_noH.pdb"), ReceptorOptions{Route: RoutePDB2PQR, PH: phOf(4)})
	if err != nil {
		t.Fatal(err)
	}
	if acid.Preparation.Route != RoutePDB2PQR || !slices.Contains(acid.Preparation.Steps[0].Args, "--with-ph=4") {
		t.Errorf("pH 4 preparation %+v", acid.Preparation)
	}
	hip := 0
	for _, s := range hisStates(acid) {
		if s == "HIP" {
			hip++
		}
	}
	if acid.PolarH <= r.PolarH || hip <= 1 {
		t.Errorf("pH 4: %d HD (pH 7.4: %d), %d HIP", acid.PolarH, r.PolarH, hip)
	}
	t.Logf("1iep pH 4: %d HD, %d HIP", acid.PolarH, hip)
}

// TestPrepareReceptorFallback: Open Babel takes over, and says why, when
// PDB2PQR cannot do the job: a residue it has no template for (it would
// keep no hydrogens), a co-crystal ligand kept with KeepHetero, and no
// pdb2pqr binary. Single-atom metal ions do not count as unknown.
func TestPrepareReceptorFallback(t *testing.T) {
	needPDB2PQR(t)
	ctx := context.Background()
	noH := readCorpus(t, "derived/1iep_receptor_noH.pdb")
	// SER A 228 renamed XYZ: an amino acid PDB2PQR does not know.
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(noH), "\n") {
		if strings.HasPrefix(l, "ATOM") && l[17:26] == "SER A 228" {
			l = l[:17] + "XYZ" + l[20:]
		}
		b.WriteString(l)
	}
	check := func(name string, r *Receptor, err error, reason string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := r.Preparation
		if p.Route != RouteObabel || !strings.Contains(p.Fallback, reason) || len(p.Steps) != 1 || !slices.Contains(p.Steps[0].Args, "-h") {
			t.Errorf("%s: preparation %+v, want the obabel -h route and a reason naming %q", name, p, reason)
		}
		found := false
		for _, w := range r.Warnings {
			found = found || strings.Contains(w, "protonation at pH 7.4 not applied")
		}
		if !found {
			t.Errorf("%s: no warning: %v", name, r.Warnings)
		}
	}
	r, err := PrepareReceptor(ctx, []byte(b.String()), ReceptorOptions{Route: RoutePDB2PQR})
	check("unknown residue", r, err, "XYZ")
	r, err = PrepareReceptor(ctx, readCorpus(t, "vina-examples/5x72/5x72.pdb"), ReceptorOptions{Route: RoutePDB2PQR, KeepHetero: true})
	check("kept ligands", r, err, "P59, P69")
	r, err = PrepareReceptor(ctx, noH, ReceptorOptions{Route: RoutePDB2PQR, PDB2PQR: filepath.Join(t.TempDir(), "no-pdb2pqr")})
	check("no pdb2pqr", r, err, "no-pdb2pqr")

	// Zinc and calcium ions kept: PDB2PQR has no template for them, but
	// they need no hydrogens.
	m, err := PrepareReceptor(ctx, readCorpus(t, "pockets/p2rank-testdata/1fbl.pdb"), ReceptorOptions{Route: RoutePDB2PQR, KeepMetals: true})
	if err != nil {
		t.Fatal(err)
	}
	zn := 0
	for _, a := range m.Molecule.Atoms {
		if a.Type == "Zn" {
			zn++
		}
	}
	if m.Preparation.Route != RoutePDB2PQR || zn != 2 {
		t.Errorf("1fbl with metals: route %s (%s), %d Zn", m.Preparation.Route, m.Preparation.Fallback, zn)
	}
}

// TestPrepareReceptorPHBounds: a pH outside [0, 14], NaN or infinite, and
// an unknown route are refused before any program runs.
func TestPrepareReceptorPHBounds(t *testing.T) {
	noH := readCorpus(t, "derived/1iep_receptor_noH.pdb")
	for _, ph := range []float64{-0.1, 14.01, 99, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := PrepareReceptor(context.Background(), noH, ReceptorOptions{PH: phOf(ph)}); !errors.Is(err, ErrInvalidParams) {
			t.Errorf("pH %v: %v, want ErrInvalidParams", ph, err)
		}
	}
	if _, err := PrepareReceptor(context.Background(), noH, ReceptorOptions{Route: "reduce"}); !errors.Is(err, ErrInvalidParams) {
		t.Errorf("route reduce: %v", err)
	}
	for _, ph := range []float64{0, 7.4, 14} {
		if !ValidPH(ph) {
			t.Errorf("ValidPH(%v) = false", ph)
		}
	}
}
