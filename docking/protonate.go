package docking

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/molgraph/molgraph/internal/subproc"
)

// Receptor preparation routes (ReceptorOptions.Route, Preparation.Route).
const (
	// RoutePDB2PQR: PDB2PQR assigns protonation states with PROPKA at the
	// requested pH (hydrogens, HIS tautomers, charged or neutral
	// ASP/GLU/LYS/CYS/TYR as PROPKA's pKa values say), keeping chains and
	// residue numbers; Open Babel then writes the PDBQT from that file
	// without adding hydrogens (obabel -xr). Falls back to RouteObabel when
	// PDB2PQR fails.
	RoutePDB2PQR = "pdb2pqr"
	// RouteObabel: Open Babel adds hydrogens to the cleaned PDB and writes
	// the PDBQT (obabel -xr -h); no pKa model, so the pH is not applied.
	RouteObabel = "obabel"
	// DefaultRoute is the route of a PDB upload when none is asked for,
	// chosen on the route comparison of the corpus receptors (README,
	// "Receptor preparation at pH"). With ligands docked at the job's pH
	// (ligand_ph, default 7.4: imatinib's N-methylpiperazine protonated),
	// 1iep prepared by PDB2PQR at pH 7.4 docks imatinib (exhaustiveness 8,
	// seed 42, through the API) at -12.64 kcal/mol with the top pose
	// 0.63 Å from the crystal, every pose check passed and the hinge
	// H-bonds to Met318 and Thr315 (TestDocking1iepEndToEnd); Open Babel's
	// receptor gives -9.50 kcal/mol, 6.44 Å in the same run (one seed). Before ligands were
	// protonated (session 8) the PDB2PQR receptor missed (neutral imatinib:
	// -10.8 kcal/mol, 12.3 Å) and Open Babel was the default; PDB2PQR
	// assigns protonation states from PROPKA's pKa values at the stated pH
	// where Open Babel's rules ignore it.
	DefaultRoute = RoutePDB2PQR
)

// pH bounds of a preparation.
const (
	DefaultPH = 7.4
	MinPH     = 0.0
	MaxPH     = 14.0
)

// pdb2pqrTimeout bounds a PDB2PQR run when ReceptorOptions.Timeout is 0:
// 1iep (4,400 atoms) took 3 s idle and 12-27 s at load 24 on 2 cores, and
// 1s63 (2 chains, 5,900 heavy atoms) did not finish in 2 minutes at load
// 24. Past it the Open Babel route is taken.
const pdb2pqrTimeout = 5 * time.Minute

// pdb2pqrMessages bounds what is kept of PDB2PQR's output (its log and
// PROPKA's tables: ~45 KB for 1iep). The warnings read from it come first,
// while the structure is loaded.
const pdb2pqrMessages = 1 << 20

// Step is one program run of a preparation, as recorded in provenance.
type Step struct {
	Tool    string // "PDB2PQR", "Open Babel"
	Version string // e.g. "3.5.2 (PROPKA 3.5.0)", "3.1.1"; "" when unknown
	// Args is the command line as run: the program name first, then its
	// arguments; file names are relative to the run's private directory.
	Args []string
}

// Preparation records how a PDB upload became a PDBQT.
type Preparation struct {
	Route string  // the route taken: RoutePDB2PQR or RouteObabel
	PH    float64 // the pH asked for (applied only on RoutePDB2PQR)
	// Fallback says why RoutePDB2PQR was asked for but RouteObabel taken
	// ("" otherwise).
	Fallback string
	Steps    []Step
}

// ValidPH reports whether ph is a pH a preparation accepts: finite and in
// [MinPH, MaxPH].
func ValidPH(ph float64) bool {
	return !math.IsNaN(ph) && ph >= MinPH && ph <= MaxPH
}

// FormatPH is the canonical text of a pH (shortest decimal: "7.4").
func FormatPH(ph float64) string { return strconv.FormatFloat(ph, 'f', -1, 64) }

// unknownResidueRE matches PDB2PQR's warning for a residue it has no
// template for (it then adds no hydrogens to it and gives it no charges).
var unknownResidueRE = regexp.MustCompile(`Unable to find amino or nucleic acid definition for (\S+?)\.`)

// propkaVersionRE finds PROPKA's banner ("propka3.5.0") in PDB2PQR's log.
var propkaVersionRE = regexp.MustCompile(`propka(\d+(?:\.\d+)+)`)

// pdb2pqrProtonate runs `pdb2pqr30 --ff=PARSE --keep-chain
// --titration-state-method=propka --with-ph=PH --pdb-output=protonated.pdb
// in.pdb out.pqr` in a private temporary directory and returns the
// protonated PDB (PDB2PQR's canonical atom and residue names: HIS stays
// HIS, its tautomer is in its H atoms) and the step. It fails (and the
// caller falls back to Open Babel) when PDB2PQR is missing, fails, runs
// out of time, has no template for a residue other than a single-atom
// metal ion (such a residue would keep no hydrogens), or changes the
// residues (chain, number, insertion code) of the input.
//
// The input file always exists when PDB2PQR starts: given a path that
// does not, PDB2PQR would fetch a PDB id of that name from the RCSB.
func pdb2pqrProtonate(ctx context.Context, clean *CleanedPDB, ph float64, opt ReceptorOptions) ([]byte, Step, []string, error) {
	bin := opt.PDB2PQR
	if bin == "" {
		bin = "pdb2pqr30"
	}
	step := Step{Tool: "PDB2PQR", Args: []string{filepath.Base(bin), "--ff=PARSE", "--keep-chain",
		"--titration-state-method=propka", "--with-ph=" + FormatPH(ph), "--pdb-output=protonated.pdb", "in.pdb", "out.pqr"}}
	full, err := exec.LookPath(bin)
	if err != nil {
		return nil, step, nil, fmt.Errorf("pdb2pqr: %w: %v", ErrEngine, err)
	}
	step.Version = PDB2PQRVersion(ctx, full)
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = pdb2pqrTimeout
	}
	dir, err := opt.TempDirs.Make("pdb2pqr")
	if err != nil {
		return nil, step, nil, fmt.Errorf("pdb2pqr: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "in.pdb"), clean.PDB, 0o600); err != nil {
		return nil, step, nil, fmt.Errorf("pdb2pqr: %w", err)
	}
	res, err := subproc.Run(ctx, subproc.Cmd{Path: full, Args: step.Args[1:], Dir: dir, Timeout: timeout,
		MaxStdout: pdb2pqrMessages, MaxStderr: pdb2pqrMessages})
	log := string(res.Stderr) + "\n" + string(res.Stdout)
	if m := propkaVersionRE.FindStringSubmatch(log); m != nil && step.Version != "" {
		step.Version += " (PROPKA " + m[1] + ")"
	}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, step, nil, ctx.Err()
	case errors.Is(err, subproc.ErrTimeout):
		return nil, step, nil, fmt.Errorf("pdb2pqr: %w: longer than %v", ErrTimeout, timeout)
	case errors.Is(err, subproc.ErrStart):
		return nil, step, nil, fmt.Errorf("pdb2pqr: %w: %v", ErrEngine, err)
	default:
		return nil, step, nil, fmt.Errorf("pdb2pqr: %v: %s", err, lastLines(strings.TrimSpace(string(res.Stderr)), 3))
	}
	var unknown []string
	for _, m := range unknownResidueRE.FindAllStringSubmatch(log, -1) {
		if !vinaMetals[m[1]] && !slices.Contains(unknown, m[1]) {
			unknown = append(unknown, m[1])
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, step, nil, fmt.Errorf("pdb2pqr has no template for residue %s (it would get no hydrogens)", strings.Join(unknown, ", "))
	}
	out, err := os.ReadFile(filepath.Join(dir, "protonated.pdb"))
	if err != nil || len(out) == 0 {
		return nil, step, nil, fmt.Errorf("pdb2pqr: no output PDB: %s", lastLines(strings.TrimSpace(string(res.Stderr)), 3))
	}
	got := pdbResidueKeys(out)
	if !slices.Equal(got, clean.residues) {
		return nil, step, nil, fmt.Errorf("pdb2pqr changed the residues (%d in, %d out)", len(clean.residues), len(got))
	}
	var warnings []string
	if added := pdbHeavyAtoms(out) - pdbHeavyAtoms(clean.PDB); added > 0 {
		warnings = append(warnings, fmt.Sprintf("pdb2pqr rebuilt %d missing heavy atoms", added))
	}
	return out, step, warnings, nil
}

// pdbResidueKeys lists the distinct residues of the ATOM/HETATM records
// of a PDB as "chain:number:icode", sorted (as residueKeys does for a
// PDBQT).
func pdbResidueKeys(pdb []byte) []string {
	set := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(pdb))
	sc.Buffer(nil, 1<<16)
	for sc.Scan() {
		l := sc.Text()
		if (!strings.HasPrefix(l, "ATOM  ") && !strings.HasPrefix(l, "HETATM")) || len(l) < 27 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(l[22:26]))
		if err != nil {
			continue
		}
		set[strings.TrimSpace(l[21:22])+":"+strconv.Itoa(n)+":"+strings.TrimSpace(l[26:27])] = true
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pdbHeavyAtoms counts the ATOM/HETATM records of a PDB that are not
// hydrogen (element columns 77-78, else the atom name).
func pdbHeavyAtoms(pdb []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(pdb))
	sc.Buffer(nil, 1<<16)
	for sc.Scan() {
		l := sc.Text()
		if (!strings.HasPrefix(l, "ATOM  ") && !strings.HasPrefix(l, "HETATM")) || len(l) < 16 {
			continue
		}
		el := ""
		if len(l) >= 78 {
			el = strings.TrimSpace(l[76:78])
		}
		if el == "" {
			el = strings.TrimLeft(strings.TrimSpace(l[12:16]), "0123456789")
			if len(el) > 1 {
				el = el[:1]
			}
		}
		if !strings.EqualFold(el, "H") && !strings.EqualFold(el, "D") {
			n++
		}
	}
	return n
}

// pdb2pqrVersions caches PDB2PQRVersion's answers by binary.
var pdb2pqrVersions sync.Map // string -> string

// PDB2PQRVersion returns the version `bin --version` reports ("pdb2pqr
// 3.5.2" gives "3.5.2"; bin "" means "pdb2pqr30" from PATH), or "" when it
// cannot tell. Cached per binary (toolVersion).
func PDB2PQRVersion(ctx context.Context, bin string) string {
	if bin == "" {
		bin = "pdb2pqr30"
	}
	return toolVersion(ctx, &pdb2pqrVersions, bin, []string{"--version"}, 30*time.Second, func(f []string) string {
		if len(f) != 2 || f[0] != "pdb2pqr" {
			return ""
		}
		return f[1]
	})
}
