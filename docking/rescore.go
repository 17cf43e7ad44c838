package docking

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// Scoring functions of Vina 1.2.3 (--scoring) that this service offers;
// ad4 needs precomputed AutoGrid maps, which it does not make.
const (
	ScoringVina    = "vina"
	ScoringVinardo = "vinardo"
)

// CheckScoring accepts "" (Vina's default, vina) and the two scoring
// functions; ErrInvalidParams otherwise.
func CheckScoring(s string) error {
	switch s {
	case "", ScoringVina, ScoringVinardo:
		return nil
	}
	return fmt.Errorf("docking: %w: scoring %q (want vina or vinardo)", ErrInvalidParams, s)
}

// Rescoring modes: what vina does with a given pose.
const (
	// ScoreOnly scores the pose as it is (vina --score_only).
	ScoreOnly = "score_only"
	// LocalOnly optimises the pose locally in the receptor's field
	// (vina --local_only: Vina's BFGS on position, orientation and
	// torsions, no global search), then scores it.
	LocalOnly = "local_only"
)

// DefaultRescoreTimeout bounds one rescoring run (a score or a local
// optimisation of one ligand takes seconds).
const DefaultRescoreTimeout = 2 * time.Minute

// RescoreOptions say how to rescore a pose.
type RescoreOptions struct {
	Mode    string        // ScoreOnly or LocalOnly
	Scoring string        // "" (vina), vina or vinardo
	Timeout time.Duration // 0: DefaultRescoreTimeout
}

// Rescored is a pose scored (and, LocalOnly, optimised) by vina.
type Rescored struct {
	Score
	Mode, Scoring string
	// Output is the optimised ligand PDBQT vina wrote (LocalOnly), and
	// Molecule that file parsed.
	Output   []byte
	Molecule *pdbqt.Molecule
}

var (
	scoringRE = regexp.MustCompile(`Scoring function\s*:\s*(\S+)`)
	scoreRE   = map[string]*regexp.Regexp{
		"affinity": regexp.MustCompile(`Estimated Free Energy of Binding\s*:\s*(-?[0-9.]+)`),
		"inter":    regexp.MustCompile(`\(1\) Final Intermolecular Energy\s*:\s*(-?[0-9.]+)`),
		"intra":    regexp.MustCompile(`\(2\) Final Total Internal Energy\s*:\s*(-?[0-9.]+)`),
		"torsion":  regexp.MustCompile(`\(3\) Torsional Free Energy\s*:\s*(-?[0-9.]+)`),
	}
)

// Rescore runs vina on the ligand's given pose in the receptor PDBQT file
// at receptorPath, the grid around the ligand (--autobox: its extent plus
// 4 Å per side), one CPU, as an argument list with a timeout (the process
// group is killed on timeout or cancellation). Errors: ErrInvalidParams,
// ErrInvalidLigand before running; ErrVinaFailed, ErrTimeout or ctx's error.
func (v *Vina) Rescore(ctx context.Context, receptorPath string, lig Ligand, o RescoreOptions) (*Rescored, error) {
	if o.Mode != ScoreOnly && o.Mode != LocalOnly {
		return nil, fmt.Errorf("docking: rescore: %w: mode %q (want score_only or local_only)", ErrInvalidParams, o.Mode)
	}
	if err := CheckScoring(o.Scoring); err != nil {
		return nil, err
	}
	if o.Scoring == "" {
		o.Scoring = ScoringVina
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultRescoreTimeout
	}
	if err := CheckLigand(lig.PDBQT); err != nil {
		return nil, fmt.Errorf("docking: rescore %s: %w", lig.Name, err)
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
	args := []string{"--receptor", receptorPath, "--ligand", ligPath, "--autobox", "--cpu", "1", "--scoring", o.Scoring, "--" + o.Mode}
	if o.Mode == LocalOnly {
		args = append(args, "--out", outPath)
	}
	stdout, _, err := v.run(ctx, dir, o.Timeout, args, nil)
	if err != nil {
		return nil, fmt.Errorf("docking: rescore %s: %w", lig.Name, err)
	}
	r := &Rescored{Mode: o.Mode, Scoring: o.Scoring}
	if m := scoringRE.FindStringSubmatch(stdout); m == nil || m[1] != o.Scoring {
		return nil, fmt.Errorf("docking: rescore %s: %w: vina did not report scoring function %s", lig.Name, ErrVinaFailed, o.Scoring)
	}
	for k, dst := range map[string]*float64{"affinity": &r.Affinity, "inter": &r.Inter, "intra": &r.Intra, "torsion": &r.Torsion} {
		m := scoreRE[k].FindStringSubmatch(stdout)
		if m == nil {
			return nil, fmt.Errorf("docking: rescore %s: %w: no %s in vina output", lig.Name, ErrVinaFailed, k)
		}
		if *dst, err = strconv.ParseFloat(m[1], 64); err != nil {
			return nil, fmt.Errorf("docking: rescore %s: %w: %s %q", lig.Name, ErrVinaFailed, k, m[1])
		}
	}
	if o.Mode == LocalOnly {
		if r.Output, err = os.ReadFile(outPath); err != nil {
			return nil, fmt.Errorf("docking: rescore %s: %w: no output file: %v", lig.Name, ErrVinaFailed, err)
		}
		if r.Molecule, err = pdbqt.ParseMolecule(bytes.NewReader(r.Output)); err != nil {
			return nil, fmt.Errorf("docking: rescore %s: %w: output: %v", lig.Name, ErrVinaFailed, err)
		}
	}
	return r, nil
}
