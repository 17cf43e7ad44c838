package docking

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/molgraph/molgraph/internal/subproc"
	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// Parameter bounds and defaults (API.md, Docking).
const (
	DefaultExhaustiveness = 8
	MaxExhaustiveness     = 64
	DefaultNumModes       = 9
	MaxNumModes           = 20
	DefaultEnergyRange    = 3.0
	MaxEnergyRange        = 10.0
	// DefaultSeed is used when Params.Seed is 0: Vina's own seed 0 means
	// "random", which this package never asks for, so runs are reproducible.
	DefaultSeed = 42
	// DefaultLigandTimeout bounds one vina run when Params.Timeout is 0.
	DefaultLigandTimeout = 30 * time.Minute
	// MaxBoxSize is the largest box edge accepted (Å).
	MaxBoxSize = 126.0
	// MaxBoxVolume bounds the box volume (Å³, 60 Å a side): vina's grid
	// maps grow with it, and one vina process on 1iep (exhaustiveness 1)
	// peaked at 0.67 GB for a 40 Å cube, 0.90 GB for 60 Å and passed
	// 2 GB for 126 Å (still computing its grid after 2 minutes), so that
	// a handful of 126 Å boxes would fill the machine.
	MaxBoxVolume = 216_000.0
)

// Params are the search settings of one docking run.
type Params struct {
	Exhaustiveness int     // 1..64; 0 means DefaultExhaustiveness
	NumModes       int     // 1..20; 0 means DefaultNumModes
	EnergyRange    float64 // (0, 10] kcal/mol; 0 means DefaultEnergyRange
	Seed           int64   // 0 means DefaultSeed
	// CPU is vina's --cpu (threads of one process); 0 lets the caller
	// (Batch) choose, and Vina.Dock uses 1.
	CPU int
	// Timeout per ligand; 0 means DefaultLigandTimeout.
	Timeout time.Duration
	// Scoring is vina's --scoring: "" (Vina's default, vina), vina or
	// vinardo.
	Scoring string
}

// WithDefaults returns p with zero fields replaced by the defaults.
func (p Params) WithDefaults() Params {
	if p.Exhaustiveness == 0 {
		p.Exhaustiveness = DefaultExhaustiveness
	}
	if p.NumModes == 0 {
		p.NumModes = DefaultNumModes
	}
	if p.EnergyRange == 0 {
		p.EnergyRange = DefaultEnergyRange
	}
	if p.Seed == 0 {
		p.Seed = DefaultSeed
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultLigandTimeout
	}
	return p
}

// Validate checks the bounds of API.md (after WithDefaults).
func (p Params) Validate() error {
	switch {
	case p.Exhaustiveness < 1 || p.Exhaustiveness > MaxExhaustiveness:
		return fmt.Errorf("docking: params: %w: exhaustiveness %d not in 1..%d", ErrInvalidParams, p.Exhaustiveness, MaxExhaustiveness)
	case p.NumModes < 1 || p.NumModes > MaxNumModes:
		return fmt.Errorf("docking: params: %w: num_modes %d not in 1..%d", ErrInvalidParams, p.NumModes, MaxNumModes)
	case !(p.EnergyRange > 0 && p.EnergyRange <= MaxEnergyRange):
		return fmt.Errorf("docking: params: %w: energy_range %v not in (0, %v]", ErrInvalidParams, p.EnergyRange, MaxEnergyRange)
	case p.CPU < 0 || p.CPU > 256:
		return fmt.Errorf("docking: params: %w: cpu %d", ErrInvalidParams, p.CPU)
	case p.Timeout < 0:
		return fmt.Errorf("docking: params: %w: negative timeout", ErrInvalidParams)
	case CheckScoring(p.Scoring) != nil:
		return CheckScoring(p.Scoring)
	}
	return nil
}

// Box is a Vina search space: centre and edge lengths in Å.
type Box struct {
	Center [3]float64 `json:"center"`
	Size   [3]float64 `json:"size"`
}

// Validate checks that all values are finite and the edges in (0, MaxBoxSize].
func (b Box) Validate() error {
	for i := 0; i < 3; i++ {
		c, s := b.Center[i], b.Size[i]
		if math.IsNaN(c) || math.IsInf(c, 0) || math.Abs(c) > 1e5 {
			return fmt.Errorf("docking: box: %w: centre %v", ErrInvalidBox, b.Center)
		}
		if !(s > 0 && s <= MaxBoxSize) {
			return fmt.Errorf("docking: box: %w: size %v (each edge in (0, %v] Å)", ErrInvalidBox, b.Size, MaxBoxSize)
		}
	}
	if v := b.Size[0] * b.Size[1] * b.Size[2]; v > MaxBoxVolume {
		return fmt.Errorf("docking: box: %w: size %v is %.0f Å³, more than %.0f Å³", ErrInvalidBox, b.Size, v, MaxBoxVolume)
	}
	return nil
}

// UnmarshalJSON reads {"center": [x, y, z], "size": [x, y, z]} with
// exactly three numbers each (encoding/json fills a Go array from a
// shorter JSON array with zeros and drops the extra values of a longer
// one) and no other field.
func (b *Box) UnmarshalJSON(data []byte) error {
	var v struct {
		Center []float64 `json:"center"`
		Size   []float64 `json:"size"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidBox, err)
	}
	if len(v.Center) != 3 || len(v.Size) != 3 {
		return fmt.Errorf("%w: center and size need 3 numbers each (x, y, z), got %d and %d", ErrInvalidBox, len(v.Center), len(v.Size))
	}
	copy(b.Center[:], v.Center)
	copy(b.Size[:], v.Size)
	return nil
}

// Contains reports whether the point (x, y, z) is inside the box.
func (b Box) Contains(x, y, z float64) bool {
	p := [3]float64{x, y, z}
	for i := range p {
		if math.Abs(p[i]-b.Center[i]) > b.Size[i]/2 {
			return false
		}
	}
	return true
}

// Ligand is a docking-ready ligand: a name the caller chooses (the
// molecule id) and its PDBQT (one torsion tree, e.g. from Meeko's rules).
type Ligand struct {
	Name  string
	PDBQT []byte
}

// Mode is one docked pose of the --out file.
type Mode struct {
	Rank           int     // MODEL number, 1 = best
	Affinity       float64 // kcal/mol (REMARK VINA RESULT)
	RMSDLowerBound float64 // Å to mode 1
	RMSDUpperBound float64
	Inter, Intra   float64 // REMARK INTER / INTRA
	// Model is the parsed MODEL: the input ligand with docked coordinates.
	Model *pdbqt.Model
}

// Result is the outcome of docking one ligand.
type Result struct {
	Ligand  string
	Modes   []Mode // as in the --out file: best first, only those within energy_range
	Output  []byte // the --out PDBQT file as vina wrote it
	Params  Params // the settings used (defaults filled in, CPU as run)
	Elapsed time.Duration
	CPU     time.Duration // vina's user + system time
	Stdout  string        // vina's standard output (its first MaxVinaOutput bytes)
}

// Best returns the most favourable mode.
func (r *Result) Best() Mode { return r.Modes[0] }

// Vina runs the vina program. The zero value is not usable: use NewVina.
type Vina struct {
	path    string
	version string
	tmp     *subproc.TempDirs // nil: subproc.DefaultRoot
}

// MaxVinaOutput bounds the standard output and the standard error kept
// of one vina run (a docking run writes about 3 KB).
const MaxVinaOutput = 256 << 10

var versionRE = regexp.MustCompile(`AutoDock Vina v?(\S+)`)

// NewVina checks the binary (path, or "vina" from PATH when empty) by running
// vina --version and returns a runner. ErrEngine when vina is not usable.
func NewVina(ctx context.Context, path string) (*Vina, error) {
	if path == "" {
		path = "vina"
	}
	full, err := exec.LookPath(path)
	if err != nil {
		return nil, fmt.Errorf("docking: vina: %w: %v", ErrEngine, err)
	}
	out, err := subproc.Run(ctx, subproc.Cmd{Path: full, Args: []string{"--version"}, Timeout: 30 * time.Second,
		MaxStdout: 4096, MaxStderr: 4096})
	if err != nil {
		return nil, fmt.Errorf("docking: vina --version: %w: %v", ErrEngine, err)
	}
	m := versionRE.FindSubmatch(append(out.Stdout, out.Stderr...))
	if m == nil {
		return nil, fmt.Errorf("docking: vina --version: %w: unexpected output %q", ErrEngine, strings.TrimSpace(string(out.Stdout)))
	}
	return &Vina{path: full, version: string(m[1])}, nil
}

// WithTempDirs returns a copy of v that makes its working directories
// (one per run, and a Batch's directory holding the receptor) in t.
func (v *Vina) WithTempDirs(t *subproc.TempDirs) *Vina {
	c := *v
	c.tmp = t
	return &c
}

// TempDirs is where v makes its working directories (nil: under
// subproc.DefaultRoot).
func (v *Vina) TempDirs() *subproc.TempDirs { return v.tmp }

// Name is the engine name for job records.
func (v *Vina) Name() string { return "AutoDock Vina" }

// Version is the version reported by vina --version (e.g. "1.2.3").
func (v *Vina) Version() string { return v.version }

// Path is the absolute path of the binary.
func (v *Vina) Path() string { return v.path }

// Dock docks one ligand into the receptor PDBQT file at receptorPath within
// box. progress, when not nil, is called with Vina's progress bar as a
// fraction in [0, 1] from the goroutine reading vina's output (keep it fast).
// Errors: ErrInvalidParams/ErrInvalidBox/ErrInvalidLigand before running;
// ErrVinaFailed (vina's message included), ErrTimeout, or the context's
// error when ctx is cancelled: in every case the vina process group is
// killed and the temporary directory removed before Dock returns. vina
// also dies with the server (see package subproc).
func (v *Vina) Dock(ctx context.Context, receptorPath string, lig Ligand, box Box, p Params, progress func(float64)) (*Result, error) {
	p = p.WithDefaults()
	if p.CPU == 0 {
		p.CPU = 1
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := box.Validate(); err != nil {
		return nil, err
	}
	if err := CheckLigand(lig.PDBQT); err != nil {
		return nil, fmt.Errorf("docking: ligand %s: %w", lig.Name, err)
	}
	dir, err := v.tmp.Make("vina")
	if err != nil {
		return nil, fmt.Errorf("docking: %w", err)
	}
	defer os.RemoveAll(dir)
	ligPath, outPath := filepath.Join(dir, "ligand.pdbqt"), filepath.Join(dir, "out.pdbqt")
	if err := os.WriteFile(ligPath, lig.PDBQT, 0o600); err != nil {
		return nil, fmt.Errorf("docking: write ligand: %w", err)
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	args := []string{
		"--receptor", receptorPath, "--ligand", ligPath, "--out", outPath,
		"--center_x", f(box.Center[0]), "--center_y", f(box.Center[1]), "--center_z", f(box.Center[2]),
		"--size_x", f(box.Size[0]), "--size_y", f(box.Size[1]), "--size_z", f(box.Size[2]),
		"--exhaustiveness", strconv.Itoa(p.Exhaustiveness), "--num_modes", strconv.Itoa(p.NumModes),
		"--energy_range", strconv.FormatFloat(p.EnergyRange, 'g', -1, 64),
		"--seed", strconv.FormatInt(p.Seed, 10), "--cpu", strconv.Itoa(p.CPU),
	}
	if p.Scoring != "" {
		args = append(args, "--scoring", p.Scoring)
	}
	start := time.Now()
	stdout, cpu, err := v.run(ctx, dir, p.Timeout, args, progress)
	res := &Result{Ligand: lig.Name, Params: p, Elapsed: time.Since(start), CPU: cpu, Stdout: stdout}
	if err != nil {
		return nil, fmt.Errorf("docking: ligand %s: %w", lig.Name, err)
	}
	out, err := os.ReadFile(outPath)
	if err != nil {
		return nil, fmt.Errorf("docking: ligand %s: %w: no output file: %v", lig.Name, ErrVinaFailed, err)
	}
	res.Output = out
	if res.Modes, err = ParseModes(out); err != nil {
		return nil, fmt.Errorf("docking: ligand %s: %w", lig.Name, err)
	}
	if progress != nil {
		progress(1)
	}
	return res, nil
}

// ParseModes reads the modes of a Vina --out file (every MODEL; each must
// carry a REMARK VINA RESULT line).
func ParseModes(out []byte) ([]Mode, error) {
	models, err := pdbqt.ParseBytes(out)
	if err != nil {
		return nil, fmt.Errorf("%w: output: %v", ErrVinaFailed, err)
	}
	modes := make([]Mode, 0, len(models))
	for _, md := range models {
		if md.Result == nil {
			return nil, fmt.Errorf("%w: output model %d has no REMARK VINA RESULT", ErrVinaFailed, md.Number)
		}
		r := md.Result
		modes = append(modes, Mode{Rank: md.Number, Affinity: r.Affinity, RMSDLowerBound: r.RMSDLowerBound,
			RMSDUpperBound: r.RMSDUpperBound, Inter: r.Inter, Intra: r.Intra, Model: md})
	}
	return modes, nil
}

// Score is the result of vina --score_only.
type Score struct {
	Affinity float64 // Estimated Free Energy of Binding, kcal/mol
	Inter    float64 // (1) Final Intermolecular Energy
	Intra    float64 // (2) Final Total Internal Energy
	Torsion  float64 // (3) Torsional Free Energy
}

// ScoreOnly scores the ligand in its given pose (vina --score_only
// --autobox, Vina's scoring function): no search, a second or two. Useful
// to validate receptor and ligand preparation against published scores.
func (v *Vina) ScoreOnly(ctx context.Context, receptorPath string, lig Ligand) (*Score, error) {
	r, err := v.Rescore(ctx, receptorPath, lig, RescoreOptions{Mode: ScoreOnly, Timeout: 5 * time.Minute})
	if err != nil {
		return nil, err
	}
	return &r.Score, nil
}

// CheckLigand verifies that b is a single-molecule PDBQT with a torsion tree
// and atom types Vina knows (ErrInvalidLigand otherwise).
func CheckLigand(b []byte) error {
	m, err := pdbqt.ParseMolecule(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidLigand, err)
	}
	if m.Root == nil {
		return fmt.Errorf("%w: no ROOT (not a ligand PDBQT)", ErrInvalidLigand)
	}
	for _, a := range m.Atoms {
		if !VinaType(a.Type) {
			return fmt.Errorf("%w: atom %d has type %q, which vina does not accept", ErrInvalidLigand, a.Serial, a.Type)
		}
	}
	return nil
}

// VinaType reports whether vina 1.2.3 accepts the AutoDock atom type.
// Types are case-sensitive in vina (CL, ZN or NS are refused). The list was
// measured by feeding each type to vina 1.2.3 (Debian 12): the AD4 types C A
// N NA O OA S SA P F Cl Br I H HD Si At, the metals Mg Mn Zn Ca Fe Na K Cu
// Ni Co, Se, the macrocycle G0-G3/CG0-CG3 and the hydrated-docking W.
func VinaType(t string) bool {
	switch t {
	case "C", "A", "N", "NA", "O", "OA", "S", "SA", "P", "F", "Cl", "Br", "I", "H", "HD", "Si", "At",
		"Mg", "Mn", "Zn", "Ca", "Fe", "Na", "K", "Cu", "Ni", "Co", "Se",
		"G0", "G1", "G2", "G3", "CG0", "CG1", "CG2", "CG3", "W":
		return true
	}
	return false
}

// stars counts Vina's progress stars after "Performing docking" in the
// chunks of standard output it is given.
type stars struct {
	recent   []byte // the last few bytes before "Performing docking" was seen
	docking  bool
	n        int
	progress func(float64)
}

// performing starts the line after which vina prints its progress bar.
const performing = "Performing docking"

func (w *stars) add(b []byte) {
	if !w.docking {
		// The phrase may straddle two chunks: look in what is kept of the
		// last one followed by this one.
		w.recent = append(w.recent, b...)
		i := bytes.Index(w.recent, []byte(performing))
		if i < 0 {
			if k := len(w.recent) - len(performing); k > 0 {
				w.recent = append(w.recent[:0], w.recent[k:]...)
			}
			return
		}
		w.docking = true
		b = w.recent[i:]
		w.recent = nil
	}
	if k := bytes.Count(b, []byte("*")); k > 0 {
		w.n += k
		if w.progress != nil {
			w.progress(math.Min(float64(w.n)/51, 0.99))
		}
	}
}

// run runs vina (package subproc: its own process group, killed on
// timeout or cancellation and when the server dies) and returns its
// standard output and CPU time.
func (v *Vina) run(ctx context.Context, dir string, timeout time.Duration, args []string, progress func(float64)) (string, time.Duration, error) {
	if v == nil || v.path == "" {
		return "", 0, fmt.Errorf("%w: Vina not initialised (use NewVina)", ErrEngine)
	}
	st := &stars{progress: progress}
	out, err := subproc.Run(ctx, subproc.Cmd{Path: v.path, Args: args, Dir: dir, Timeout: timeout,
		MaxStdout: MaxVinaOutput, MaxStderr: MaxVinaOutput, OnStdout: st.add})
	stdout := string(out.Stdout)
	switch {
	case err == nil:
		return stdout, out.CPU, nil
	case ctx.Err() != nil:
		return stdout, out.CPU, ctx.Err()
	case errors.Is(err, subproc.ErrTimeout):
		return stdout, out.CPU, fmt.Errorf("%w: vina ran longer than %v", ErrTimeout, timeout)
	case errors.Is(err, subproc.ErrStart):
		return stdout, 0, fmt.Errorf("%w: %v", ErrEngine, err)
	}
	msg := strings.TrimSpace(string(out.Stderr))
	if msg == "" {
		msg = lastLines(stdout, 4)
	}
	var status any = err
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		status = ee.ProcessState // "exit status 1", "signal: segmentation fault"
	}
	return stdout, out.CPU, fmt.Errorf("%w: %v: %s", ErrVinaFailed, status, msg)
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " / ")
}
