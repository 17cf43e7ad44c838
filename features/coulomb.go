package features

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/qm"
)

// CoulombMatrix returns the Coulomb matrix of a geometry (Rupp et al. 2012)
// in atomic units: M_ii = 0.5·Z_i^2.4, M_ij = Z_i·Z_j/|R_i−R_j| with the
// distance in bohr (Å / qm.BohrToAngstrom). Ghost atoms (empty element) are
// left out. ok is false for an unknown element or two atoms at the same
// position.
func CoulombMatrix(g []ontology.CalculationAtom) (m [][]float64, ok bool) {
	type atom struct {
		z       float64
		x, y, w float64
	}
	var atoms []atom
	for _, a := range g {
		if a.Element == "" {
			continue
		}
		z, known := qm.AtomicNumber(a.Element)
		if !known || z <= 0 {
			return nil, false
		}
		atoms = append(atoms, atom{float64(z), a.X / qm.BohrToAngstrom, a.Y / qm.BohrToAngstrom, a.Z / qm.BohrToAngstrom})
	}
	m = make([][]float64, len(atoms))
	for i, a := range atoms {
		m[i] = make([]float64, len(atoms))
		for j, b := range atoms {
			if i == j {
				m[i][j] = 0.5 * math.Pow(a.z, 2.4)
				continue
			}
			d := math.Sqrt((a.x-b.x)*(a.x-b.x) + (a.y-b.y)*(a.y-b.y) + (a.w-b.w)*(a.w-b.w))
			if d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
				return nil, false
			}
			m[i][j] = a.z * b.z / d
		}
	}
	return m, true
}

// coulombEigenvalues returns CoulombSize eigenvalues of the Coulomb matrix
// by decreasing absolute value, zero-padded or truncated.
func coulombEigenvalues(g []ontology.CalculationAtom) ([]float64, bool) {
	m, ok := CoulombMatrix(g)
	if !ok || len(m) == 0 {
		return nil, false
	}
	n := len(m)
	s := mat.NewSymDense(n, nil)
	for i := range m {
		for j := i; j < n; j++ {
			s.SetSym(i, j, m[i][j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, false) {
		return nil, false
	}
	vals := es.Values(nil)
	sortByAbsDesc(vals)
	out := make([]float64, CoulombSize)
	copy(out, vals)
	return out, true
}
