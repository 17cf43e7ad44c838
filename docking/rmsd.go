package docking

import (
	"fmt"
	"math"

	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// Atom3D is an atom with an element symbol and coordinates (Å).
type Atom3D struct {
	Element string
	X, Y, Z float64
}

// HeavyAtoms returns the non-hydrogen atoms of a PDBQT molecule (elements
// from the AutoDock types; pseudo-atoms dropped).
func HeavyAtoms(m *pdbqt.Molecule) []Atom3D {
	var out []Atom3D
	for _, a := range m.Atoms {
		el := a.Element()
		if el == "" || el == "H" {
			continue
		}
		out = append(out, Atom3D{Element: el, X: a.X, Y: a.Y, Z: a.Z})
	}
	return out
}

// covalentRadius in Å (Cordero et al. 2008 values, single bonds).
func covalentRadius(el string) float64 {
	switch el {
	case "H":
		return 0.31
	case "B":
		return 0.84
	case "C":
		return 0.76
	case "N":
		return 0.71
	case "O":
		return 0.66
	case "F":
		return 0.57
	case "Si":
		return 1.11
	case "P":
		return 1.07
	case "S":
		return 1.05
	case "Cl":
		return 1.02
	case "Se":
		return 1.20
	case "Br":
		return 1.20
	case "I":
		return 1.39
	}
	return 1.5
}

// maxMatchings bounds the symmetry enumeration (a fullerene has 120
// automorphisms; drug-like molecules a handful).
const maxMatchings = 200_000

// RMSD is the symmetry-aware RMSD (Å, no superposition) between two poses
// of the same molecule: the minimum over all graph isomorphisms between the
// two heavy-atom graphs (bonds from interatomic distances, elements must
// match) of the root mean square distance. This is what obrms and RDKit's
// CalcRMS report for a docked pose against a crystal ligand; with a fixed
// atom order a flipped phenyl ring would count as an error.
// Pass heavy atoms only (see HeavyAtoms). ErrRMSD when no isomorphism exists.
func RMSD(ref, probe []Atom3D) (float64, error) {
	n := len(ref)
	if n == 0 || n != len(probe) {
		return 0, fmt.Errorf("docking: rmsd: %w: %d vs %d heavy atoms", ErrRMSD, len(ref), len(probe))
	}
	ga, gb := bondGraph(ref), bondGraph(probe)
	// Order the reference atoms breadth-first so each new atom has a mapped neighbour.
	order := make([]int, 0, n)
	seen := make([]bool, n)
	for s := 0; s < n; s++ {
		if seen[s] {
			continue
		}
		seen[s] = true
		order = append(order, s)
		for k := len(order) - 1; k < len(order); k++ {
			for _, nb := range ga[order[k]] {
				if !seen[nb] {
					seen[nb] = true
					order = append(order, nb)
				}
			}
		}
	}
	mapTo := make([]int, n) // ref atom -> probe atom
	used := make([]bool, n)
	for i := range mapTo {
		mapTo[i] = -1
	}
	best := math.Inf(1)
	count := 0
	var rec func(k int, sum float64)
	rec = func(k int, sum float64) {
		if count >= maxMatchings || sum >= best*best*float64(n) {
			return // bound: partial sum already worse than the best mapping
		}
		if k == n {
			count++
			best = math.Min(best, math.Sqrt(sum/float64(n)))
			return
		}
		a := order[k]
		for b := 0; b < n; b++ {
			if used[b] || probe[b].Element != ref[a].Element || len(gb[b]) != len(ga[a]) {
				continue
			}
			ok := true
			for _, na := range ga[a] { // mapped neighbours of a must map to neighbours of b
				if mb := mapTo[na]; mb >= 0 && !contains(gb[b], mb) {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			mapTo[a], used[b] = b, true
			dx, dy, dz := ref[a].X-probe[b].X, ref[a].Y-probe[b].Y, ref[a].Z-probe[b].Z
			rec(k+1, sum+dx*dx+dy*dy+dz*dz)
			mapTo[a], used[b] = -1, false
		}
	}
	rec(0, 0)
	if math.IsInf(best, 1) {
		return 0, fmt.Errorf("docking: rmsd: %w: heavy-atom graphs differ", ErrRMSD)
	}
	return best, nil
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// bondGraph connects atoms closer than the sum of covalent radii + 0.45 Å.
func bondGraph(atoms []Atom3D) [][]int {
	g := make([][]int, len(atoms))
	for i := range atoms {
		for j := i + 1; j < len(atoms); j++ {
			dx, dy, dz := atoms[i].X-atoms[j].X, atoms[i].Y-atoms[j].Y, atoms[i].Z-atoms[j].Z
			cut := covalentRadius(atoms[i].Element) + covalentRadius(atoms[j].Element) + 0.45
			if dx*dx+dy*dy+dz*dz < cut*cut {
				g[i] = append(g[i], j)
				g[j] = append(g[j], i)
			}
		}
	}
	return g
}
