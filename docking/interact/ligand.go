package interact

import (
	"errors"
	"fmt"
	"math"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
)

// ErrLigand is wrapped by the errors of NewLigand and PosePositions.
var ErrLigand = errors.New("interact: invalid ligand")

// Ligand is a ligand's chemistry placed at one pose: atoms in
// chem.Structure order (the order of the pose SDF's atom block).
type Ligand struct {
	elements []string
	pos      [][3]float64
	placed   []bool
	nbrs     [][]int
	f        *chem.InteractionFeatures
}

// NewLigand places the chemistry of s (f = chem.Features(s)) at pos
// (pos[i] is atom i of s when placed[i]; an unplaced atom takes part in
// nothing, which is how a pose's non-polar hydrogens are left out).
func NewLigand(s *chem.Structure, f *chem.InteractionFeatures, pos [][3]float64, placed []bool) (*Ligand, error) {
	if s == nil || f == nil {
		return nil, fmt.Errorf("%w: no structure or features", ErrLigand)
	}
	n := len(s.Atoms)
	if len(pos) != n || len(placed) != n || len(f.Donor) != n {
		return nil, fmt.Errorf("%w: %d atoms, %d positions, %d features", ErrLigand, n, len(pos), len(f.Donor))
	}
	l := &Ligand{elements: make([]string, n), pos: pos, placed: placed, nbrs: s.Neighbors(), f: f}
	for i, a := range s.Atoms {
		l.elements[i] = a.Element
		if placed[i] {
			for _, v := range pos[i] {
				if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e5 {
					return nil, fmt.Errorf("%w: atom %d: coordinate out of range", ErrLigand, i+1)
				}
			}
		}
	}
	return l, nil
}

// StructurePositions are the coordinates of s itself (a crystal ligand or
// an uploaded pose), every atom placed.
func StructurePositions(s *chem.Structure) ([][3]float64, []bool) {
	pos := make([][3]float64, len(s.Atoms))
	placed := make([]bool, len(s.Atoms))
	for i, a := range s.Atoms {
		pos[i], placed[i] = [3]float64{a.X, a.Y, a.Z}, true
	}
	return pos, placed
}

// PosePositions places the atoms of s at a docked pose: heavy atoms from
// the pose's SMILES-ordered coordinates, each polar hydrogen on the first
// not yet placed hydrogen of its parent (the rule docking.PoseSDF follows,
// so atom i here is atom i+1 of the pose SDF). Other hydrogens stay
// unplaced: no interaction uses them.
func PosePositions(s *chem.Structure, p *docking.Pose) ([][3]float64, []bool, error) {
	if s == nil || p == nil || p.SMILES != s.SMILES {
		return nil, nil, fmt.Errorf("%w: pose and structure differ", ErrLigand)
	}
	n := len(s.Atoms)
	pos := make([][3]float64, n)
	placed := make([]bool, n)
	bySMILES := map[int]int{}
	for i, a := range s.Atoms {
		if a.SMILESIndex == 0 {
			continue
		}
		k := a.SMILESIndex - 1
		if k >= len(p.Placed) || !p.Placed[k] {
			return nil, nil, fmt.Errorf("%w: SMILES atom %d has no docked position", ErrLigand, a.SMILESIndex)
		}
		bySMILES[k] = i
		pos[i], placed[i] = p.Coords[k], true
	}
	nb := s.Neighbors()
	for _, h := range p.PolarH {
		parent, ok := bySMILES[h.Parent]
		if !ok {
			return nil, nil, fmt.Errorf("%w: H parent %d not in the structure", ErrLigand, h.Parent+1)
		}
		done := false
		for _, j := range nb[parent] {
			if s.Atoms[j].AtomicNum == 1 && !placed[j] {
				pos[j], placed[j], done = h.Pos, true, true
				break
			}
		}
		if !done {
			return nil, nil, fmt.Errorf("%w: SMILES atom %d has more docked hydrogens than the structure", ErrLigand, h.Parent+1)
		}
	}
	return pos, placed, nil
}

// hydrogens are the placed hydrogens bonded to atom i.
func (l *Ligand) hydrogens(i int) []int {
	var out []int
	for _, j := range l.nbrs[i] {
		if l.elements[j] == "H" && l.placed[j] {
			out = append(out, j)
		}
	}
	return out
}

func (l *Ligand) groupPlaced(idx []int) bool {
	for _, i := range idx {
		if !l.placed[i] {
			return false
		}
	}
	return len(idx) > 0
}
