package chem

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// MaxMolblockAtoms bounds the atoms and the bonds of a molblock Molblock
// writes: the V2000 counts line has three columns for each.
const MaxMolblockAtoms = 999

// ErrMolblock: a Structure does not fit a V2000 molblock (more than
// MaxMolblockAtoms atoms or bonds, a coordinate that does not fit its
// ten columns, or coordinates for another number of atoms).
var ErrMolblock = errors.New("does not fit a V2000 molblock")

// Molblock writes s as a V2000 molblock: title (line breaks made spaces),
// the program line "  molgraph      3D", the atoms in Structure order at
// coords (s's own coordinates when coords is nil), the bonds in their
// Kekule form, formal charges on M  CHG lines, and M  END. It is the one
// molblock writer of molgraph: RDKit's MolToMolBlock would need the
// Structure turned back into an RWMol through cgo for every pose, when
// these few fixed columns are all a pose SDF (docking.PoseSDF) or RDKit's
// re-reading (Features) needs. Errors wrap ErrMolblock.
func (s *Structure) Molblock(title string, coords [][3]float64) ([]byte, error) {
	n := len(s.Atoms)
	if n > MaxMolblockAtoms || len(s.Bonds) > MaxMolblockAtoms {
		return nil, fmt.Errorf("chem: molblock: %w: %d atoms, %d bonds (limit %d)", ErrMolblock, n, len(s.Bonds), MaxMolblockAtoms)
	}
	if coords != nil && len(coords) != n {
		return nil, fmt.Errorf("chem: molblock: %w: %d coordinates for %d atoms", ErrMolblock, len(coords), n)
	}
	var b strings.Builder
	b.Grow(80 * (n + len(s.Bonds) + 6))
	title = strings.NewReplacer("\n", " ", "\r", " ").Replace(title)
	fmt.Fprintf(&b, "%s\n  molgraph      3D\n\n%3d%3d  0  0  0  0  0  0  0  0999 V2000\n", title, n, len(s.Bonds))
	for i, a := range s.Atoms {
		p := [3]float64{a.X, a.Y, a.Z}
		if coords != nil {
			p = coords[i]
		}
		for _, x := range p {
			// %10.4f: 10 characters hold -9999.9999 to 99999.9999.
			if !(x > -9999.99995 && x < 99999.99995) {
				return nil, fmt.Errorf("chem: molblock: %w: atom %d coordinate %v", ErrMolblock, i+1, x)
			}
		}
		fmt.Fprintf(&b, "%10.4f%10.4f%10.4f %-3s 0  0  0  0  0  0  0  0  0  0  0  0\n", p[0], p[1], p[2], a.Element)
	}
	for _, bd := range s.Bonds {
		fmt.Fprintf(&b, "%3d%3d%3d  0\n", bd.Begin+1, bd.End+1, bd.Kekule)
	}
	var chg []string
	for i, a := range s.Atoms {
		if a.FormalCharge != 0 {
			chg = append(chg, fmt.Sprintf(" %3d %3d", i+1, a.FormalCharge))
		}
	}
	for len(chg) > 0 {
		k := min(8, len(chg))
		fmt.Fprintf(&b, "M  CHG%3d%s\n", k, strings.Join(chg[:k], ""))
		chg = chg[k:]
	}
	b.WriteString("M  END\n")
	return []byte(b.String()), nil
}

// topologyCoords are coordinates for a molblock read only for its
// topology: s's own when they fit, else every atom at the origin.
func (s *Structure) topologyCoords() [][3]float64 {
	for _, a := range s.Atoms {
		for _, x := range [3]float64{a.X, a.Y, a.Z} {
			if !(math.Abs(x) < 9999) {
				return make([][3]float64, len(s.Atoms))
			}
		}
	}
	return nil
}
