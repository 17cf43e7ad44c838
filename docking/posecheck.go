package docking

import (
	"fmt"

	"github.com/molgraph/molgraph/chem"
)

// ReceptorCheckAtoms returns the heavy atoms of a rigid receptor PDBQT
// with RDKit's van der Waals radii: the receptor side of the pose checks'
// protein clash test (chem.Pool.CheckPoses). Atoms whose AutoDock type
// names no element (glue and water pseudo-atoms) are left out. Errors
// wrap ErrInvalidReceptor.
func ReceptorCheckAtoms(receptor []byte) ([]chem.ReceptorAtom, error) {
	m, err := CheckReceptorPDBQT(receptor)
	if err != nil {
		return nil, err
	}
	radius := map[string]float64{}
	out := make([]chem.ReceptorAtom, 0, len(m.Atoms))
	for _, a := range m.Atoms {
		el := a.Element()
		if el == "" || el == "H" {
			continue
		}
		r, ok := radius[el]
		if !ok {
			if r, ok = chem.VdWRadius(el); !ok {
				return nil, fmt.Errorf("%w: no van der Waals radius for element %s", ErrInvalidReceptor, el)
			}
			radius[el] = r
		}
		out = append(out, chem.ReceptorAtom{X: a.X, Y: a.Y, Z: a.Z, Radius: r})
	}
	return out, nil
}
