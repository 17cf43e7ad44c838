package docking

import (
	"fmt"
	"strconv"

	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// PoseMap maps the atoms of a Meeko-style ligand PDBQT to the atoms of its
// REMARK SMILES (the registered molecule without hydrogens, atoms in the
// order RDKit's MolFromSmiles gives them):
//
//	REMARK SMILES IDX s p ...  heavy atom s (1-based SMILES index) is PDBQT serial p
//	REMARK H PARENT   s p ...  the polar hydrogen with serial p sits on SMILES atom s
//
// Vina copies these remarks, the atom order and the serials into every
// output model and changes only coordinates, so one PoseMap (built from the
// prepared ligand or from any model) turns every docked model into a Pose.
//
// The SDF is then built with chem (RDKit), following Meeko's mk_export:
// MolFromSmiles(SMILES); a conformer with Pose.Coords for the mapped atoms
// (an unmapped SMILES atom must be a hydrogen, placed from its neighbour);
// AddHs with coordinates; then every Pose.PolarH moves the first not yet
// moved hydrogen of its parent to the docked position.
type PoseMap struct {
	SMILES  string
	heavy   []pdbqt.IndexPair
	hparent []pdbqt.IndexPair
	natoms  int // highest SMILES index mapped
}

// Pose holds docked coordinates in SMILES atom order.
type Pose struct {
	SMILES string
	// Coords[i] is the position of SMILES atom i (0-based) when Placed[i].
	// The slices cover SMILES indexes up to the highest mapped one.
	Coords [][3]float64
	Placed []bool
	// PolarH are the docked polar hydrogens (HD atoms) with their parent.
	PolarH []PolarH
}

// PolarH is a polar hydrogen at its docked position; Parent is the 0-based
// SMILES index of the heavy atom it is bonded to.
type PolarH struct {
	Parent int
	Pos    [3]float64
}

// NewPoseMap reads the mapping remarks of a ligand PDBQT molecule (the
// prepared input or a Vina output model). ErrMapping when the molecule has
// no REMARK SMILES / SMILES IDX, or when the mapping does not cover every
// heavy atom and every polar hydrogen exactly once.
func NewPoseMap(m *pdbqt.Molecule) (*PoseMap, error) {
	if m.SMILES == "" || len(m.SMILESIdx) == 0 {
		return nil, fmt.Errorf("docking: pose map: %w: no REMARK SMILES / SMILES IDX (not a Meeko-style ligand)", ErrMapping)
	}
	pm := &PoseMap{SMILES: m.SMILES, heavy: m.SMILESIdx, hparent: m.HParent}
	mapped := map[int]bool{}
	for _, p := range m.SMILESIdx {
		mapped[p.Serial] = true
		pm.natoms = max(pm.natoms, p.SMILES)
	}
	for _, p := range m.HParent {
		mapped[p.Serial] = true
		pm.natoms = max(pm.natoms, p.SMILES)
	}
	for _, a := range m.Atoms {
		if a.Element() == "" {
			continue // glue/water pseudo-atoms carry no chemistry
		}
		if !mapped[a.Serial] {
			return nil, fmt.Errorf("docking: pose map: %w: atom %d (%s) is not in SMILES IDX or H PARENT", ErrMapping, a.Serial, a.Type)
		}
	}
	for _, p := range m.SMILESIdx {
		if i := m.BySerial(p.Serial); i >= 0 && m.Atoms[i].IsHydrogen() {
			return nil, fmt.Errorf("docking: pose map: %w: SMILES IDX maps hydrogen %d", ErrMapping, p.Serial)
		}
	}
	return pm, nil
}

// Pose maps one docked molecule (a ligand of a Vina output model) to SMILES
// order. ErrMapping when a mapped serial is missing from the model.
func (pm *PoseMap) Pose(m *pdbqt.Molecule) (*Pose, error) {
	bySerial := make(map[int]int, len(m.Atoms))
	for i, a := range m.Atoms {
		bySerial[a.Serial] = i
	}
	p := &Pose{SMILES: pm.SMILES, Coords: make([][3]float64, pm.natoms), Placed: make([]bool, pm.natoms)}
	for _, pr := range pm.heavy {
		i, ok := bySerial[pr.Serial]
		if !ok {
			return nil, fmt.Errorf("docking: pose: %w: serial %d not in the model", ErrMapping, pr.Serial)
		}
		a := m.Atoms[i]
		p.Coords[pr.SMILES-1] = [3]float64{a.X, a.Y, a.Z}
		p.Placed[pr.SMILES-1] = true
	}
	for _, pr := range pm.hparent {
		i, ok := bySerial[pr.Serial]
		if !ok {
			return nil, fmt.Errorf("docking: pose: %w: hydrogen serial %d not in the model", ErrMapping, pr.Serial)
		}
		if !p.Placed[pr.SMILES-1] {
			return nil, fmt.Errorf("docking: pose: %w: H PARENT %d is not a mapped heavy atom", ErrMapping, pr.SMILES)
		}
		a := m.Atoms[i]
		p.PolarH = append(p.PolarH, PolarH{Parent: pr.SMILES - 1, Pos: [3]float64{a.X, a.Y, a.Z}})
	}
	return p, nil
}

// Poses maps the first ligand of every mode of a docking result.
func (pm *PoseMap) Poses(modes []Mode) ([]*Pose, error) {
	out := make([]*Pose, 0, len(modes))
	for _, md := range modes {
		ligs := md.Model.Ligands()
		if len(ligs) == 0 {
			return nil, fmt.Errorf("docking: poses: %w: mode %d has no ligand", ErrMapping, md.Rank)
		}
		p, err := pm.Pose(ligs[0])
		if err != nil {
			return nil, fmt.Errorf("mode %d: %w", md.Rank, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Tag is one SD data item (> <Name> / Value) of a pose record.
type Tag struct {
	Name, Value string
}

// PoseTags returns the SD tags of a docked pose, in the order they are
// written: affinity_kcal, mode, rmsd_lb, rmsd_ub, inter_kcal, intra_kcal,
// receptor and job (the last two omitted when empty). Values use Vina's
// three decimals.
func PoseTags(m Mode, receptor, job string) []Tag {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	tags := []Tag{
		{"affinity_kcal", f(m.Affinity)},
		{"mode", strconv.Itoa(m.Rank)},
		{"rmsd_lb", f(m.RMSDLowerBound)},
		{"rmsd_ub", f(m.RMSDUpperBound)},
		{"inter_kcal", f(m.Inter)},
		{"intra_kcal", f(m.Intra)},
	}
	if receptor != "" {
		tags = append(tags, Tag{"receptor", receptor})
	}
	if job != "" {
		tags = append(tags, Tag{"job", job})
	}
	return tags
}
