package pdbqt

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors; Parse wraps them in a *ParseError that names the line.
var (
	// ErrSyntax: a record could not be read (short ATOM line, bad number, ...).
	ErrSyntax = errors.New("pdbqt syntax error")
	// ErrTree: ROOT/BRANCH/ENDBRANCH/TORSDOF or MODEL/ENDMDL records are not
	// properly nested, or a BRANCH names atoms that do not match.
	ErrTree = errors.New("invalid pdbqt torsion tree")
	// ErrNoAtoms: the input holds no ATOM/HETATM record (or a model has none).
	ErrNoAtoms = errors.New("pdbqt has no atoms")
	// ErrTooLarge: the input exceeds the parser's bounds (atoms, line
	// length, remark bytes, branch depth).
	ErrTooLarge = errors.New("pdbqt input too large")
	// ErrMapping: the REMARK SMILES IDX / H PARENT lines are malformed or
	// name atoms that are not in the molecule.
	ErrMapping = errors.New("invalid pdbqt smiles mapping")
)

// ParseError reports where parsing failed. Err is one of the sentinel errors.
type ParseError struct {
	Line int    // 1-based line number
	Msg  string // what was wrong
	Err  error  // sentinel
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("pdbqt: line %d: %s: %v", e.Line, e.Msg, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Limits of the parser: a PDBQT line is at most MaxLineLength bytes, a
// file holds at most MaxAtoms atom records (all models together) and
// MaxRemarkBytes of REMARK text, and BRANCH records nest at most
// MaxBranchDepth deep (Vina counts one torsion per branch; drug-like ligands
// have fewer than 40 and the walks over the tree recurse once per level).
// Exceeding any is ErrTooLarge.
const (
	MaxLineLength  = 4096
	MaxAtoms       = 2_000_000
	MaxRemarkBytes = 16 << 20
	MaxBranchDepth = 256
)

// Atom is one ATOM or HETATM record.
type Atom struct {
	Hetero    bool   // HETATM rather than ATOM
	Serial    int    // columns 7-11
	Name      string // columns 13-16, trimmed
	AltLoc    string // column 17, "" when blank
	ResName   string // columns 18-20, trimmed
	Chain     string // column 22, "" when blank
	ResSeq    int    // columns 23-26
	ICode     string // column 27, "" when blank
	X, Y, Z   float64
	Occupancy float64
	BFactor   float64
	Charge    float64 // partial charge, columns 67-76
	Type      string  // AutoDock atom type (A, C, N, NA, OA, HD, ...), from column 78
	TER       bool    // a TER record follows this atom
}

// Element returns the chemical element symbol for the AutoDock type
// (A -> C, NA/NS -> N, OA/OS -> O, SA -> S, HD/HS -> H, CG0..CG9 -> C,
// CL -> Cl, ...). Glue pseudo-atoms (G0..G9) and the W water type return "".
func (a Atom) Element() string { return Element(a.Type) }

// Element maps an AutoDock atom type to an element symbol ("" for pseudo-atoms
// and unknown types).
func Element(adType string) string {
	t := adType
	switch {
	case len(t) == 3 && strings.HasPrefix(t, "CG") && isDigit(t[2]):
		return "C"
	case len(t) == 2 && t[0] == 'G' && isDigit(t[1]), t == "W", t == "":
		return ""
	}
	switch t {
	case "A", "C":
		return "C"
	case "N", "NA", "NS":
		return "N"
	case "O", "OA", "OS":
		return "O"
	case "S", "SA":
		return "S"
	case "H", "HD", "HS":
		return "H"
	}
	// Two-letter elements as written by Open Babel (Zn, Cl) or MGLTools (ZN, CL).
	if len(t) <= 2 && isUpper(t[0]) {
		s := t[:1]
		if len(t) == 2 {
			s += strings.ToLower(t[1:])
		}
		if knownElement(s) {
			return s
		}
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// knownElement: the elements an AutoDock type can name.
func knownElement(s string) bool {
	switch s {
	case "B", "C", "N", "O", "F", "P", "S", "I", "K", "H",
		"Cl", "Br", "Si", "Se", "Mg", "Mn", "Zn", "Ca", "Fe", "Na",
		"Ni", "Cu", "Co", "Cd", "Hg", "Sr", "Ba", "Li", "Al", "As", "At":
		return true
	}
	return false
}

// IsHydrogen reports whether the atom is a hydrogen (H, HD or HS).
func (a Atom) IsHydrogen() bool { return Element(a.Type) == "H" }

// IndexPair links a 1-based atom index of the REMARK SMILES string to a
// PDBQT serial number (REMARK SMILES IDX), or, for REMARK H PARENT, the
// 1-based SMILES index of a heavy atom to the serial of a hydrogen bonded to it.
type IndexPair struct {
	SMILES int // 1-based index into the SMILES atom order
	Serial int // PDBQT serial
}

// Item is one entry of a rigid body in file order: an atom (Branch nil,
// Atom indexes Molecule.Atoms) or a nested branch.
type Item struct {
	Atom   int
	Branch *Branch
}

// Body is a rigid fragment of the torsion tree: its atoms and the branches
// hanging off it, in the order they appear in the file.
type Body struct {
	Items []Item
}

// Atoms returns the indexes (into Molecule.Atoms) of the body's own atoms.
func (b *Body) Atoms() []int {
	var out []int
	for _, it := range b.Items {
		if it.Branch == nil {
			out = append(out, it.Atom)
		}
	}
	return out
}

// Branches returns the branches directly attached to the body.
func (b *Body) Branches() []*Branch {
	var out []*Branch
	for _, it := range b.Items {
		if it.Branch != nil {
			out = append(out, it.Branch)
		}
	}
	return out
}

// Branch is a BRANCH From To ... ENDBRANCH From To block: the bond From-To
// (serials; From in the parent body, To the first atom of this body) is
// rotatable.
type Branch struct {
	From, To int
	Body
}

// Molecule is one ligand, one rigid receptor, or one flexible receptor
// residue (BEGIN_RES ... END_RES).
type Molecule struct {
	// Remarks holds the molecule's REMARK lines in order, without the leading
	// "REMARK" and one following space (Meeko's SMILES lines included;
	// Write writes them back verbatim). The Vina energy remarks of an output
	// model are in Model.Remarks instead.
	Remarks []string
	// SMILES, SMILESIdx and HParent are read from the REMARK SMILES,
	// REMARK SMILES IDX and REMARK H PARENT lines (Meeko). Empty when absent.
	SMILES    string
	SMILESIdx []IndexPair
	HParent   []IndexPair
	// Residue is the label of a flexible residue block ("THR A 315"), else "".
	Residue string
	Atoms   []Atom
	// Root is the torsion tree; nil for a rigid molecule (receptor).
	Root *Body
	// TorsDOF is the TORSDOF value, -1 when the record is absent.
	TorsDOF int
}

// Branches returns every BRANCH of the tree, depth-first in file order.
func (m *Molecule) Branches() []*Branch {
	var out []*Branch
	var walk func(b *Body)
	walk = func(b *Body) {
		for _, br := range b.Branches() {
			out = append(out, br)
			walk(&br.Body)
		}
	}
	if m.Root != nil {
		walk(m.Root)
	}
	return out
}

// BySerial returns the index in Atoms of the (first) atom with the given
// serial, or -1. Serials are unique in a torsion tree; a rigid receptor may
// repeat them.
func (m *Molecule) BySerial(serial int) int {
	for i := range m.Atoms {
		if m.Atoms[i].Serial == serial {
			return i
		}
	}
	return -1
}

// VinaResult holds the energy remarks Vina writes at the top of each output
// model (kcal/mol; RMSDs in Å relative to the best mode). Fields whose remark
// is absent are zero.
type VinaResult struct {
	Affinity       float64 // REMARK VINA RESULT, first value
	RMSDLowerBound float64 // second value
	RMSDUpperBound float64 // third value
	InterIntra     float64 // REMARK INTER + INTRA
	Inter          float64 // REMARK INTER
	Intra          float64 // REMARK INTRA
	Unbound        float64 // REMARK UNBOUND
}

// Model is one MODEL ... ENDMDL block, or the whole file when it has no
// MODEL records.
type Model struct {
	// Number is the MODEL serial (0 for a file without MODEL records).
	Number int
	// Result is set when the model carries a REMARK VINA RESULT line.
	Result *VinaResult
	// Remarks are the Vina energy remark lines of the model (verbatim,
	// without "REMARK "); Write writes them before the molecules.
	Remarks []string
	// Molecules in file order: ligands (Vina --ligand a b gives two), then
	// flexible residues (Molecule.Residue set), or one rigid receptor.
	Molecules []*Molecule
}

// Ligands returns the model's molecules that are not flexible residues.
func (md *Model) Ligands() []*Molecule {
	var out []*Molecule
	for _, m := range md.Molecules {
		if m.Residue == "" {
			out = append(out, m)
		}
	}
	return out
}
