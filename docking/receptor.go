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
	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// ReceptorOptions control PrepareReceptor.
type ReceptorOptions struct {
	// Format is "pdb" or "pdbqt"; "" detects it from the content.
	Format string
	// KeepHetero keeps every non-water HETATM residue (cofactors, ions,
	// ligands) in the receptor.
	KeepHetero bool
	// KeepMetals keeps single-atom metal ions Vina can score (Zn, Mg, Mn,
	// Ca, Fe, Co, Ni, Cu) even when KeepHetero is false.
	KeepMetals bool
	// Route is how a PDB is protonated: RoutePDB2PQR or RouteObabel (""
	// means DefaultRoute).
	Route string
	// PH is the pH of protonation (nil: DefaultPH); it must be in
	// [MinPH, MaxPH].
	PH *float64
	// Obabel is the obabel binary ("" = "obabel" from PATH), PDB2PQR the
	// pdb2pqr binary ("" = "pdb2pqr30" from PATH).
	Obabel, PDB2PQR string
	// Timeout bounds each program run (pdb2pqr, obabel); 0 means 5
	// minutes for pdb2pqr and 2 for obabel.
	Timeout time.Duration
	// TempDirs is where the programs' working directories are made (nil:
	// under subproc.DefaultRoot).
	TempDirs *subproc.TempDirs
}

// Receptor is a docking-ready rigid receptor.
type Receptor struct {
	PDBQT      []byte          // the receptor file given to vina
	Molecule   *pdbqt.Molecule // PDBQT parsed
	Atoms      int             // atoms in the PDBQT (heavy atoms + polar H)
	HeavyAtoms int
	PolarH     int // HD atoms
	Residues   int // distinct (chain, number, insertion code)
	Chains     []string
	// Removed counts the residues stripped from a PDB upload by name
	// (HOH, ligand codes, ions not kept); AltLocsDropped the atoms of the
	// alternate locations not chosen.
	Removed        map[string]int
	AltLocsDropped int
	Source         string // "pdb" (prepared here) or "pdbqt" (used as uploaded)
	// Preparation is how a PDB upload was prepared (nil for a PDBQT).
	Preparation *Preparation
	Warnings    []string
}

// Bounds on uploads.
const (
	MaxReceptorAtoms = 200_000
	// MaxPreparedAtoms bounds the atoms of a PDB upload left to prepare
	// (after waters and hetero groups are removed): Open Babel alone
	// took more than a minute on 100,000 atoms (2 cores under load), and
	// PDB2PQR runs before it. A larger receptor is uploaded as PDBQT.
	MaxPreparedAtoms = 50_000
	obabelTimeout    = 2 * time.Minute
	// obabelMessages bounds what is kept of obabel's standard output and
	// error (its messages; the receptor goes to a file).
	obabelMessages = 64 << 10
)

// pdbDecimal is the form of a PDB coordinate: a plain decimal.
var pdbDecimal = regexp.MustCompile(`^[-+]?[0-9]{0,5}(\.[0-9]{0,6})?$`)

// waterNames are residue names of water in PDB files.
var waterNames = map[string]bool{"HOH": true, "WAT": true, "DOD": true, "H2O": true, "TIP": true, "TIP3": true, "SOL": true, "D2O": true}

// vinaMetals are single-atom ions (PDB residue names) of the metals vina
// 1.2.3 scores as metal donors and that occur in binding sites.
var vinaMetals = map[string]bool{"ZN": true, "MG": true, "MN": true, "CA": true, "FE": true, "FE2": true, "CO": true, "NI": true, "CU": true, "CU1": true}

// modifiedResidues are HETATM amino acids that are part of the polymer
// when a file has no SEQRES records to say so.
var modifiedResidues = map[string]bool{
	"MSE": true, "SEP": true, "TPO": true, "PTR": true, "CSO": true, "CME": true, "CSD": true,
	"OCS": true, "KCX": true, "HYP": true, "MLY": true, "M3L": true, "LLP": true, "PCA": true,
	"CSS": true, "SCH": true, "CAS": true, "CGU": true, "ALY": true, "MLZ": true, "NEP": true,
}

// PrepareReceptor turns an uploaded PDB or PDBQT into a docking-ready
// receptor. A PDBQT is validated (rigid, Vina atom types) and used as is.
// A PDB goes through CleanPDB and then one of two routes (opt.Route):
//
//   - RoutePDB2PQR: PDB2PQR with PROPKA protonates at opt.PH,
//     then `obabel -ipdb -xr -opdbqt` writes the PDBQT from that file
//     without adding hydrogens. Open Babel writes the PDBQT on both routes
//     (rather than a writer of ours) so that the routes differ only in
//     their hydrogens and the AutoDock typing is the one the fallback
//     uses. When PDB2PQR fails (missing, error, time limit, a residue it
//     has no template for, residues changed) the Open Babel route is taken
//     instead, and Preparation.Fallback and a warning say why.
//   - RouteObabel: `obabel -ipdb -xr -h -opdbqt` (hydrogens are required:
//     without them the corpus crystal pose of 1iep scores -11.74 instead
//     of -12.51); Open Babel has no pKa model, so the pH is not applied.
//
// Residue numbers and chains are kept (checked after each program).
// Errors: ErrInvalidReceptor, ErrInvalidParams (route, pH), ErrEngine
// (obabel missing), ErrTimeout.
func PrepareReceptor(ctx context.Context, data []byte, opt ReceptorOptions) (*Receptor, error) {
	format := strings.ToLower(opt.Format)
	if format == "" {
		format = DetectReceptorFormat(data)
	}
	switch format {
	case "pdbqt":
		m, err := CheckReceptorPDBQT(data)
		if err != nil {
			return nil, fmt.Errorf("docking: receptor: %w", err)
		}
		r := summarize(m, data)
		r.Source = "pdbqt"
		if r.PolarH == 0 {
			r.Warnings = append(r.Warnings, "receptor has no polar hydrogens (HD): Vina scores will be weaker")
		}
		return r, nil
	case "pdb":
	default:
		return nil, fmt.Errorf("docking: receptor: %w: unknown format %q", ErrInvalidReceptor, opt.Format)
	}
	prep := &Preparation{Route: opt.Route, PH: DefaultPH}
	if prep.Route == "" {
		prep.Route = DefaultRoute
	}
	if opt.PH != nil {
		prep.PH = *opt.PH
	}
	if prep.Route != RoutePDB2PQR && prep.Route != RouteObabel {
		return nil, fmt.Errorf("docking: receptor: %w: unknown route %q", ErrInvalidParams, prep.Route)
	}
	if !ValidPH(prep.PH) {
		return nil, fmt.Errorf("docking: receptor: %w: pH %v not in [%v, %v]", ErrInvalidParams, prep.PH, MinPH, MaxPH)
	}
	clean, err := CleanPDB(data, opt)
	if err != nil {
		return nil, err
	}
	var warnings []string
	var out []byte
	if prep.Route == RoutePDB2PQR {
		protonated, step, ws, err := pdb2pqrProtonate(ctx, clean, prep.PH, opt)
		if err == nil {
			var ob Step
			out, ob, err = obabelReceptor(ctx, protonated, false, opt)
			if err == nil {
				prep.Steps = []Step{step, ob}
				warnings = ws
			} else if ctx.Err() == nil {
				err = fmt.Errorf("obabel on the PDB2PQR output: %w", err)
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			prep.Route, prep.Fallback = RouteObabel, err.Error()
			warnings = append(warnings, fmt.Sprintf("protonation at pH %s not applied (%s): hydrogens added by Open Babel", FormatPH(prep.PH), err))
		}
	}
	if prep.Route == RouteObabel {
		var ob Step
		if out, ob, err = obabelReceptor(ctx, clean.PDB, true, opt); err != nil {
			return nil, err
		}
		prep.Steps = []Step{ob}
	}
	m, err := CheckReceptorPDBQT(out)
	if err != nil {
		return nil, fmt.Errorf("docking: receptor: obabel output: %w", err)
	}
	r := summarize(m, out)
	r.Source = "pdb"
	r.Preparation = prep
	r.Removed = clean.Removed
	r.AltLocsDropped = clean.AltLocsDropped
	r.Warnings = append(r.Warnings, clean.Warnings...)
	r.Warnings = append(r.Warnings, warnings...)
	// Open Babel must keep the residue numbering (`-p` would renumber).
	if !slices.Equal(residueKeys(m.Atoms), clean.residues) {
		return nil, fmt.Errorf("docking: receptor: %w: obabel changed the residues (%d in, %d out)",
			ErrInvalidReceptor, len(clean.residues), r.Residues)
	}
	return r, nil
}

// DetectReceptorFormat returns "pdbqt" when the ATOM/HETATM records carry
// AutoDock types in column 78 and charges in columns 67-76, else "pdb".
func DetectReceptorFormat(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<16)
	n, q := 0, 0
	for sc.Scan() && n < 50 {
		l := strings.TrimRight(sc.Text(), " \r")
		if !strings.HasPrefix(l, "ATOM") && !strings.HasPrefix(l, "HETATM") {
			continue
		}
		n++
		if len(l) >= 78 && len(l) <= 80 {
			if _, err := strconv.ParseFloat(strings.TrimSpace(l[66:76]), 64); err == nil && strings.TrimSpace(l[76:]) != "" {
				if t := strings.TrimSpace(l[77:]); VinaType(t) || pdbqt.Element(t) != "" {
					q++
				}
			}
		}
	}
	if n > 0 && q == n {
		return "pdbqt"
	}
	return "pdb"
}

// CheckReceptorPDBQT validates a rigid receptor PDBQT: one model, no
// torsion tree, atom types Vina accepts, at most MaxReceptorAtoms atoms.
func CheckReceptorPDBQT(data []byte) (*pdbqt.Molecule, error) {
	models, err := pdbqt.ParseBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidReceptor, err)
	}
	if len(models) != 1 || len(models[0].Molecules) != 1 {
		return nil, fmt.Errorf("%w: expected one rigid receptor, found %d models", ErrInvalidReceptor, len(models))
	}
	m := models[0].Molecules[0]
	if m.Root != nil {
		return nil, fmt.Errorf("%w: the file has a torsion tree (a ligand, not a rigid receptor)", ErrInvalidReceptor)
	}
	if len(m.Atoms) > MaxReceptorAtoms {
		return nil, fmt.Errorf("%w: %d atoms (limit %d)", ErrInvalidReceptor, len(m.Atoms), MaxReceptorAtoms)
	}
	for _, a := range m.Atoms {
		if !VinaType(a.Type) {
			return nil, fmt.Errorf("%w: atom %d (%s %s%d) has type %q, which vina does not accept",
				ErrInvalidReceptor, a.Serial, a.ResName, a.Chain, a.ResSeq, a.Type)
		}
	}
	return m, nil
}

func summarize(m *pdbqt.Molecule, data []byte) *Receptor {
	r := &Receptor{PDBQT: data, Molecule: m, Atoms: len(m.Atoms), Removed: map[string]int{}}
	seenChain := map[string]bool{}
	for _, a := range m.Atoms {
		if a.IsHydrogen() {
			if a.Type == "HD" {
				r.PolarH++
			}
		} else {
			r.HeavyAtoms++
		}
		if !seenChain[a.Chain] {
			seenChain[a.Chain] = true
			r.Chains = append(r.Chains, a.Chain)
		}
	}
	r.Residues = len(residueKeys(m.Atoms))
	return r
}

// residueKeys lists distinct residues as "chain:number:icode", sorted.
func residueKeys(atoms []pdbqt.Atom) []string {
	set := map[string]bool{}
	for _, a := range atoms {
		set[a.Chain+":"+strconv.Itoa(a.ResSeq)+":"+a.ICode] = true
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// CleanedPDB is the result of CleanPDB.
type CleanedPDB struct {
	PDB            []byte // ATOM/HETATM/TER/END records only, altloc column blank
	Removed        map[string]int
	AltLocsDropped int
	Warnings       []string
	residues       []string // residueKeys of the kept atoms
}

// pdbAtom is the part of a PDB ATOM/HETATM record CleanPDB needs.
type pdbAtom struct {
	line                  string
	het                   bool
	name, res, chain, ins string
	alt                   byte
	seq                   int
	occ                   float64
	element               string
}

// CleanPDB strips a PDB upload to the receptor: first MODEL only; waters
// removed; HETATM residues removed unless they are polymer residues (named
// in the chain's SEQRES, or a known modified amino acid such as MSE when
// there is no SEQRES) or kept by opt (KeepHetero, KeepMetals); one
// alternate location per residue (the label with the highest total
// occupancy, ties to the first label), whose atoms are kept with a blank
// altloc column. ErrInvalidReceptor when no protein atom is left.
//
// No maintained Go PDB reader covers this (altloc selection, SEQRES-aware
// hetero filtering, keeping the original records byte for byte), so the
// few fixed columns needed are read here.
func CleanPDB(data []byte, opt ReceptorOptions) (*CleanedPDB, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<16)
	var atoms []pdbAtom
	seqres := map[string]map[string]bool{} // chain -> residue names
	lineNo := 0
	for sc.Scan() {
		lineNo++
		l := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(l, "ENDMDL") {
			break
		}
		if strings.HasPrefix(l, "SEQRES") && len(l) > 19 {
			ch := strings.TrimSpace(l[11:12])
			if seqres[ch] == nil {
				seqres[ch] = map[string]bool{}
			}
			for _, f := range strings.Fields(l[19:]) {
				seqres[ch][f] = true
			}
			continue
		}
		het := strings.HasPrefix(l, "HETATM")
		if !het && !strings.HasPrefix(l, "ATOM  ") {
			continue
		}
		if len(atoms) >= MaxReceptorAtoms {
			return nil, fmt.Errorf("docking: clean pdb: %w: more than %d atoms", ErrInvalidReceptor, MaxReceptorAtoms)
		}
		if len(l) < 54 {
			return nil, fmt.Errorf("docking: clean pdb: %w: line %d: atom record shorter than 54 columns", ErrInvalidReceptor, lineNo)
		}
		a := pdbAtom{line: l, het: het, name: strings.TrimSpace(l[12:16]), alt: l[16],
			res: strings.TrimSpace(l[17:20]), chain: strings.TrimSpace(l[21:22]), ins: strings.TrimSpace(l[26:27])}
		var err error
		if a.seq, err = strconv.Atoi(strings.TrimSpace(l[22:26])); err != nil {
			return nil, fmt.Errorf("docking: clean pdb: %w: line %d: bad residue number %q", ErrInvalidReceptor, lineNo, l[22:26])
		}
		for _, c := range []string{l[30:38], l[38:46], l[46:54]} {
			// ParseFloat takes "NaN", "Inf", "1e30" and hex floats ("0x1p-2"),
			// which the programs downstream read each their own way: a
			// coordinate is a plain decimal (the PDB's %8.3f).
			if v, err := strconv.ParseFloat(strings.TrimSpace(c), 64); err != nil || !pdbDecimal.MatchString(strings.TrimSpace(c)) || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("docking: clean pdb: %w: line %d: bad coordinate %q", ErrInvalidReceptor, lineNo, c)
			}
		}
		a.occ = 1
		if len(l) >= 60 {
			if v, err := strconv.ParseFloat(strings.TrimSpace(l[54:60]), 64); err == nil {
				a.occ = v
			}
		}
		if len(l) >= 78 {
			a.element = strings.TrimSpace(l[76:78])
		}
		atoms = append(atoms, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("docking: clean pdb: %w: %v", ErrInvalidReceptor, err)
	}

	out := &CleanedPDB{Removed: map[string]int{}}
	// Residue filter.
	type resKey struct {
		chain, ins string
		seq        int
	}
	removedRes := map[resKey]bool{}
	var kept []pdbAtom
	for _, a := range atoms {
		k := resKey{a.chain, a.ins, a.seq}
		keep := true
		switch {
		case waterNames[a.res]:
			keep = false
		case a.het:
			polymer := seqres[a.chain][a.res] || (len(seqres) == 0 && modifiedResidues[a.res])
			metal := vinaMetals[a.res] && opt.KeepMetals
			keep = polymer || metal || opt.KeepHetero
		}
		if !keep {
			if !removedRes[k] {
				removedRes[k] = true
				out.Removed[a.res]++
			}
			continue
		}
		kept = append(kept, a)
	}
	if len(kept) > MaxPreparedAtoms {
		return nil, fmt.Errorf("docking: clean pdb: %w: %d atoms to prepare, more than %d (PDB2PQR and Open Babel take minutes on such files): upload a prepared PDBQT (up to %d atoms)",
			ErrInvalidReceptor, len(kept), MaxPreparedAtoms, MaxReceptorAtoms)
	}
	// Alternate locations: per residue, the label with the highest total occupancy.
	occ := map[resKey]map[byte]float64{}
	for _, a := range kept {
		if a.alt == ' ' {
			continue
		}
		k := resKey{a.chain, a.ins, a.seq}
		if occ[k] == nil {
			occ[k] = map[byte]float64{}
		}
		occ[k][a.alt] += a.occ
	}
	choice := map[resKey]byte{}
	for k, m := range occ {
		best, bestOcc := byte(0), math.Inf(-1)
		labels := make([]byte, 0, len(m))
		for l := range m {
			labels = append(labels, l)
		}
		slices.Sort(labels)
		for _, l := range labels {
			if m[l] > bestOcc+1e-9 {
				best, bestOcc = l, m[l]
			}
		}
		choice[k] = best
	}
	var buf bytes.Buffer
	resSet := map[string]bool{}
	protein := 0
	lastChain, written := "", 0
	for _, a := range kept {
		k := resKey{a.chain, a.ins, a.seq}
		line := a.line
		if a.alt != ' ' {
			if a.alt != choice[k] {
				out.AltLocsDropped++
				continue
			}
			line = line[:16] + " " + line[17:]
		}
		if !a.het {
			protein++
		}
		resSet[a.chain+":"+strconv.Itoa(a.seq)+":"+a.ins] = true
		if written > 0 && a.chain != lastChain {
			buf.WriteString("TER\n")
		}
		lastChain = a.chain
		written++
		buf.WriteString(line)
		buf.WriteByte('\n')
	}
	buf.WriteString("TER\nEND\n")
	if protein == 0 {
		return nil, fmt.Errorf("docking: clean pdb: %w: no polymer ATOM records", ErrInvalidReceptor)
	}
	for k := range resSet {
		out.residues = append(out.residues, k)
	}
	sort.Strings(out.residues)
	for name, n := range out.Removed {
		if !waterNames[name] {
			out.Warnings = append(out.Warnings, fmt.Sprintf("removed hetero residue %s (%d)", name, n))
		}
	}
	sort.Strings(out.Warnings)
	out.PDB = buf.Bytes()
	return out, nil
}

// obabelReceptor runs `obabel -ipdb in.pdb -xr [-h] -opdbqt -O out.pdbqt`
// in a private temporary directory (package subproc: killed with its
// process group on timeout or cancellation, and when the server dies) and
// returns the PDBQT and the step (addH: -h, Open Babel adds hydrogens).
func obabelReceptor(ctx context.Context, pdb []byte, addH bool, opt ReceptorOptions) ([]byte, Step, error) {
	bin := opt.Obabel
	if bin == "" {
		bin = "obabel"
	}
	args := []string{"-ipdb", "in.pdb", "-xr"}
	if addH {
		args = append(args, "-h")
	}
	args = append(args, "-opdbqt", "-O", "out.pdbqt")
	step := Step{Tool: "Open Babel", Args: append([]string{filepath.Base(bin)}, args...)}
	full, err := exec.LookPath(bin)
	if err != nil {
		return nil, step, fmt.Errorf("docking: obabel: %w: %v", ErrEngine, err)
	}
	step.Version = ObabelVersion(ctx, full)
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = obabelTimeout
	}
	dir, err := opt.TempDirs.Make("obabel")
	if err != nil {
		return nil, step, fmt.Errorf("docking: obabel: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "in.pdb"), pdb, 0o600); err != nil {
		return nil, step, fmt.Errorf("docking: obabel: %w", err)
	}
	res, err := subproc.Run(ctx, subproc.Cmd{Path: full, Args: args,
		Dir: dir, Timeout: timeout, MaxStdout: obabelMessages, MaxStderr: obabelMessages})
	msg := strings.TrimSpace(string(res.Stderr) + "\n" + string(res.Stdout))
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, step, ctx.Err()
	case errors.Is(err, subproc.ErrTimeout):
		return nil, step, fmt.Errorf("docking: obabel: %w: longer than %v", ErrTimeout, timeout)
	case errors.Is(err, subproc.ErrStart):
		return nil, step, fmt.Errorf("docking: obabel: %w: %v", ErrEngine, err)
	default:
		var status any = err
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			status = ee.ProcessState
		}
		return nil, step, fmt.Errorf("docking: obabel: %w: %v: %s", ErrInvalidReceptor, status, msg)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.pdbqt"))
	if err != nil || len(b) == 0 {
		return nil, step, fmt.Errorf("docking: obabel: %w: no output (%s)", ErrInvalidReceptor, msg)
	}
	return b, step, nil
}

// obabelVersions caches ObabelVersion's answers by binary.
var obabelVersions sync.Map // string -> string

// ObabelVersion returns the version `bin -V` reports ("Open Babel 3.1.1 --
// Jan 4 2023 -- ..." gives "3.1.1"; bin "" means "obabel" from PATH), or ""
// when it cannot tell. Cached per binary (toolVersion).
func ObabelVersion(ctx context.Context, bin string) string {
	if bin == "" {
		bin = "obabel"
	}
	return toolVersion(ctx, &obabelVersions, bin, []string{"-V"}, 10*time.Second, func(f []string) string {
		if len(f) < 3 || f[0] != "Open" || f[1] != "Babel" {
			return ""
		}
		return f[2]
	})
}

// toolVersion runs `bin args...` once per binary and returns what parse
// makes of its stdout's fields, or "". A version once read is cached in
// cache for the process, so that callers recording provenance per
// receptor do not start the tool each time; failures are not cached and
// are retried on the next call.
func toolVersion(ctx context.Context, cache *sync.Map, bin string, args []string, timeout time.Duration, parse func([]string) string) string {
	if v, ok := cache.Load(bin); ok {
		return v.(string)
	}
	out, err := subproc.Run(ctx, subproc.Cmd{Path: bin, Args: args, Timeout: timeout, MaxStdout: 4096, MaxStderr: 4096})
	if err != nil {
		return ""
	}
	v := parse(strings.Fields(string(out.Stdout)))
	if v != "" {
		cache.Store(bin, v)
	}
	return v
}
