package chem

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors returned by package chem.
var (
	// ErrInvalidMolecule is wrapped by every *MoleculeError: the content
	// could not be turned into a molecule. The message says why in terms a
	// chemist understands.
	ErrInvalidMolecule = errors.New("invalid molecule")
	// ErrUnsupportedFormat is returned for a format name chem does not read.
	ErrUnsupportedFormat = errors.New("unsupported molecule format")
	// ErrPoolClosed is returned by Pool.Process after Pool.Close.
	ErrPoolClosed = errors.New("chem pool closed")
)

// MoleculeError describes content that is not a usable molecule.
// errors.Is(err, ErrInvalidMolecule) holds for it.
type MoleculeError struct {
	Format Format // input format
	Reason string // chemist-readable, e.g. "explicit valence for atom 3 N is 4, greater than permitted"
}

func (e *MoleculeError) Error() string {
	return fmt.Sprintf("read %s: %s", e.Format, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalidMolecule) true.
func (e *MoleculeError) Unwrap() error { return ErrInvalidMolecule }

// Format is an input format.
type Format string

// The input formats.
const (
	FormatSMILES  Format = "smiles" // one SMILES, optionally followed by whitespace and a name
	FormatInChI   Format = "inchi"  // standard InChI text
	FormatMolfile Format = "sdf"    // a molfile or the first record of an SDF, V2000 or V3000
	FormatPDBQT   Format = "pdbqt"  // an AutoDock ligand PDBQT (first MODEL)
)

// ParseFormat maps a format name as the API accepts it (case-insensitive;
// "mol", "molfile" and "sd" are aliases of "sdf", "smi" of "smiles") to a
// Format.
func ParseFormat(name string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "smiles", "smi":
		return FormatSMILES, nil
	case "inchi":
		return FormatInChI, nil
	case "sdf", "sd", "mol", "molfile":
		return FormatMolfile, nil
	case "pdbqt":
		return FormatPDBQT, nil
	}
	return "", fmt.Errorf("parse format %q: %w", name, ErrUnsupportedFormat)
}

// MaxContentBytes bounds the size of one Input.Content.
const MaxContentBytes = 8 << 20

// Input is one molecule to process.
type Input struct {
	Format  Format
	Content string
	// Generate3D adds hydrogens and embeds the molecule with ETKDGv3 (fixed
	// seed) followed by MMFF94 optimisation: Result.Molfile and Result.XYZ.
	// The embedding runs apart from the registration workers, within the
	// Pool's EmbedOptions (atom and rotatable-bond budget, attempts, MMFF
	// iterations, wall time): see Pool.Embed.
	Generate3D bool
	// Coordinates2D computes 2D depiction coordinates for Result.Molfile
	// when no 3D structure is generated.
	Coordinates2D bool
	// NoNormalize keeps the structure as parsed: no clean-up, no fragment
	// removal, no neutralization (identity and properties of the input
	// itself, e.g. for InChI round trips).
	NoNormalize bool
	// TemplateSMILES gives the bond orders of a PDBQT ligand that has no
	// REMARK SMILES line; its heavy atoms are matched to the PDBQT atoms by
	// proximity bonding. Ignored for other formats.
	TemplateSMILES string
	// Fingerprints computes the structure-search fingerprints and pickle
	// of the normalized molecule in the same call (Result.Fingerprints).
	Fingerprints bool
}

// Level is the severity of a validation Issue.
type Level string

// Issue levels: an error makes Result.Validated false.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
)

// Issue is one validation finding.
type Issue struct {
	Level   Level  `json:"level"`
	Code    string `json:"code"` // radical, dummy_atom, element, size, inchi, multiple_fragments, isotope, charged, ...
	Message string `json:"message"`
}

// Timing is the CPU time spent in each stage of Process (for benchmarks).
type Timing struct {
	Parse, Normalize, SMILES, InChI, Properties, QED, Coordinates time.Duration
	Fingerprints                                                  time.Duration
}

// Result is everything chem knows about one normalized molecule: the
// fields of the Molecule record of the API.
type Result struct {
	SMILES   string // RDKit canonical isomeric SMILES
	InChI    string // standard InChI; empty if libinchi refused (see Validation)
	InChIKey string
	Formula  string // Hill formula with charge, e.g. "C9H8O4"

	MW             float64 // average molecular weight, g/mol
	ExactMass      float64 // monoisotopic mass, Da
	LogP           float64 // Wildman-Crippen logP
	TPSA           float64 // topological polar surface area (N, O), A^2
	QED            float64 // Bickerton 2012 QED, mean weights (RDKit's QED.qed)
	HBD, HBA       int     // RDKit Lipinski-style donor/acceptor counts
	RotatableBonds int     // strict definition
	HeavyAtoms     int
	AromaticRings  int
	Charge         int // net formal charge after neutralization

	Validated        bool     // no Issue of LevelError
	Validation       []Issue  // errors and warnings
	Normalization    []string // steps applied, in order
	RemovedFragments []string // SMILES of fragments dropped by the largest-fragment step

	Has3D   bool
	Molfile string // V2000 molfile: 3D with hydrogens when Has3D, 2D when Coordinates2D, else empty
	XYZ     string // XYZ block when Has3D

	// Fingerprints, with Input.Fingerprints, are those FingerprintsOf
	// computes from SMILES; nil if RDKit cannot read SMILES back
	// (FingerprintError says why).
	Fingerprints     *Fingerprints
	FingerprintError string

	Timing Timing
}

func newResult(r raw) *Result {
	res := &Result{
		SMILES:         r.smiles,
		InChI:          r.inchi,
		InChIKey:       r.inchikey,
		Formula:        r.formula,
		MW:             r.mw,
		ExactMass:      r.exactMass,
		LogP:           r.logp,
		TPSA:           r.tpsa,
		QED:            r.qed,
		HBD:            r.hbd,
		HBA:            r.hba,
		RotatableBonds: r.rotb,
		HeavyAtoms:     r.heavy,
		AromaticRings:  r.arom,
		Charge:         r.charge,
		Validated:      true,
		Molfile:        r.molblock,
		Timing:         r.timing,
		Fingerprints:   r.fp,
	}
	if r.fpErr != "" {
		res.FingerprintError = printable(r.fpErr)
	}
	for _, line := range lines(r.issues) {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			continue
		}
		is := Issue{Level: Level(f[0]), Code: f[1], Message: f[2]}
		if is.Level == LevelError {
			res.Validated = false
		}
		res.Validation = append(res.Validation, is)
	}
	res.Normalization = lines(r.steps)
	res.RemovedFragments = lines(r.removed)
	return res
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
