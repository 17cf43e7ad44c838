package docking

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// LigandOptions tune PrepareLigand. The zero value follows Meeko's
// defaults (amides rigid, rings and macrocycles rigid).
type LigandOptions struct {
	// FlexibleAmides makes amide C-N bonds rotatable (Meeko
	// --flexible_amides).
	FlexibleAmides bool
}

// PrepareLigand writes the ligand PDBQT of s (a molecule with every
// hydrogen explicit and 3D coordinates, from chem.Pool.Structure) following
// the rules Meeko 0.5 applies, as recorded in the docking corpus README
// (section 3). No Go or C library prepares AutoDock ligands (Meeko is
// Python and not in Debian), so the rules are implemented here:
//
//   - charges: Gasteiger (chem computes them with RDKit);
//   - AutoDock types from Meeko's ordered SMARTS list (later rules
//     overwrite earlier ones): H, HD (H on N O F P S), C/A (aliphatic /
//     aromatic carbon), NA (every N), OA, F, Cl, Br, I, S, P, ... then N for
//     [#7X3v3][a], [#7X3v3][#6X3v4] and [#7+1], and SA for [SX2]; an atom
//     left untyped is an error;
//   - non-polar hydrogens (type H) are merged: removed, their charge added
//     to their heavy atom; HD stay;
//   - a bond is rotatable when it is single, not in a ring, neither end is
//     terminal (a hydrogen or an atom with one non-merged neighbour) and it
//     is not an amide [NX3]-[CX3]=[O,N] (unless FlexibleAmides, or a
//     tertiary amide whose two N substituents are not symmetry equivalent);
//     rings, macrocycles included, stay rigid;
//   - rigid bodies are grown breadth-first from the first atom over
//     non-rotatable bonds, children depth-first; the ROOT is the centre of
//     the body tree (leaves removed until one or two bodies remain, then
//     the larger one, merged H counted);
//   - ROOT atoms in input order, each BRANCH's atoms attachment atom first,
//     serials in writing order, TORSDOF = number of rotatable bonds;
//   - REMARK SMILES / SMILES IDX / H PARENT as pdbqt.MeekoRemarks writes them,
//     so that NewPoseMap maps docked models back to the SMILES atoms.
//
// Errors wrap ErrInvalidLigand.
func PrepareLigand(s *chem.Structure, opt LigandOptions) ([]byte, error) {
	lt, err := buildLigandTree(s, opt)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := pdbqt.WriteMolecule(&buf, lt.mol); err != nil {
		return nil, fmt.Errorf("docking: prepare ligand: %w: %v", ErrInvalidLigand, err)
	}
	return buf.Bytes(), nil
}

// ligandTree is a prepared ligand: per-atom types and merged charges, the
// rigid bodies, and the PDBQT molecule with serials.
type ligandTree struct {
	s       *chem.Structure
	nb      [][]int
	types   []string
	charges []float64
	ignored []bool    // merged non-polar hydrogens
	bodyOf  []int     // rigid body of every atom (ignored H included)
	bodies  [][]int   // atoms in discovery order
	conns   []ligConn // rotatable bonds between bodies, in discovery order
	root    int
	serial  []int // PDBQT serial of every written atom, 0 for merged H
	mol     *pdbqt.Molecule
}

type ligConn struct {
	fromBody, toBody int
	fromAtom, toAtom int
}

func ligErr(format string, a ...any) error {
	return fmt.Errorf("docking: prepare ligand: %w: %s", ErrInvalidLigand, fmt.Sprintf(format, a...))
}

func buildLigandTree(s *chem.Structure, opt LigandOptions) (*ligandTree, error) {
	if s == nil || len(s.Atoms) == 0 {
		return nil, ligErr("no atoms")
	}
	if s.SMILES == "" {
		return nil, ligErr("no SMILES")
	}
	n := len(s.Atoms)
	lt := &ligandTree{s: s, nb: s.Neighbors(), ignored: make([]bool, n)}
	if err := lt.assignTypes(); err != nil {
		return nil, err
	}
	// charges, merging non-polar H
	lt.charges = make([]float64, n)
	for i, a := range s.Atoms {
		if math.IsNaN(a.Gasteiger) || math.IsInf(a.Gasteiger, 0) {
			return nil, ligErr("atom %d (%s) has no Gasteiger charge", i+1, a.Element)
		}
		lt.charges[i] = a.Gasteiger
	}
	for i := range s.Atoms {
		if lt.types[i] != "H" {
			continue
		}
		if len(lt.nb[i]) != 1 {
			return nil, ligErr("hydrogen %d has %d neighbours", i+1, len(lt.nb[i]))
		}
		lt.ignored[i] = true
		lt.charges[lt.nb[i][0]] += lt.charges[i]
		lt.charges[i] = 0
	}
	if err := lt.buildBodies(opt); err != nil {
		return nil, err
	}
	lt.chooseRoot()
	if err := lt.write(); err != nil {
		return nil, err
	}
	return lt, nil
}

// assignTypes applies Meeko's ordered SMARTS typing rules (see
// PrepareLigand) on the explicit-H graph.
func (lt *ligandTree) assignTypes() error {
	s := lt.s
	lt.types = make([]string, len(s.Atoms))
	byZ := map[int]string{5: "B", 7: "NA", 8: "OA", 9: "F", 12: "Mg", 14: "Si", 15: "P", 16: "S",
		17: "Cl", 20: "Ca", 25: "Mn", 26: "Fe", 30: "Zn", 35: "Br", 53: "I"}
	for i, a := range s.Atoms {
		t := ""
		switch {
		case a.AtomicNum == 1:
			t = "H"
			for _, j := range lt.nb[i] {
				switch s.Atoms[j].AtomicNum {
				case 7, 8, 9, 15, 16:
					t = "HD"
				}
			}
		case a.AtomicNum == 6 && a.Aromatic:
			t = "A"
		case a.AtomicNum == 6:
			t = "C"
		default:
			t = byZ[a.AtomicNum]
		}
		if a.AtomicNum == 7 {
			x3v3 := a.Degree == 3 && a.Valence == 3
			for _, j := range lt.nb[i] {
				b := s.Atoms[j]
				if x3v3 && b.Aromatic { // [#7X3v3][a]
					t = "N"
				}
				if x3v3 && b.AtomicNum == 6 && b.Degree == 3 && b.Valence == 4 { // [#7X3v3][#6X3v4]
					t = "N"
				}
			}
			if a.FormalCharge == 1 { // [#7+1]
				t = "N"
			}
		}
		if a.AtomicNum == 16 && a.Degree == 2 { // [SX2]
			t = "SA"
		}
		if t == "" {
			return ligErr("atom %d (%s) has no AutoDock type", i+1, a.Element)
		}
		lt.types[i] = t
	}
	return nil
}

// terminal: a hydrogen, or an atom with only one non-merged neighbour.
func (lt *ligandTree) terminal(i int) bool {
	if lt.s.Atoms[i].AtomicNum == 1 {
		return true
	}
	k := 0
	for _, j := range lt.nb[i] {
		if !lt.ignored[j] {
			k++
		}
	}
	return k <= 1
}

// amide reports whether the bond n-c matches [NX3]-[CX3]=[O,N] (n the N),
// and whether it is a tertiary amide with non-equivalent N substituents.
func (lt *ligandTree) amide(n, c int) (amide, asymTertiary bool) {
	s := lt.s
	an, ac := s.Atoms[n], s.Atoms[c]
	if an.AtomicNum != 7 || an.Degree != 3 || ac.AtomicNum != 6 || ac.Degree != 3 {
		return false, false
	}
	for _, j := range lt.nb[c] {
		if j == n {
			continue
		}
		z := s.Atoms[j].AtomicNum
		if (z == 8 || z == 7) && s.Bonds[s.Bond(c, j)].Order == 2 {
			amide = true
		}
	}
	if !amide {
		return false, false
	}
	var subst []int
	for _, j := range lt.nb[n] {
		if j != c {
			if s.Atoms[j].AtomicNum == 1 {
				return true, false
			}
			subst = append(subst, j)
		}
	}
	return true, len(subst) == 2 && s.Atoms[subst[0]].Rank != s.Atoms[subst[1]].Rank
}

// rotatable applies Meeko's rule to the bond between atoms i and j.
func (lt *ligandTree) rotatable(i, j int, opt LigandOptions) bool {
	b := lt.s.Bonds[lt.s.Bond(i, j)]
	if b.Order != 1 || b.InRing || lt.terminal(i) || lt.terminal(j) {
		return false
	}
	if opt.FlexibleAmides {
		return true
	}
	for _, p := range [][2]int{{i, j}, {j, i}} {
		if am, asym := lt.amide(p[0], p[1]); am && !asym {
			return false
		}
	}
	return true
}

// buildBodies grows the rigid bodies (breadth-first inside a body,
// depth-first across rotatable bonds), starting at the first written atom.
func (lt *ligandTree) buildBodies(opt LigandOptions) error {
	n := len(lt.s.Atoms)
	lt.bodyOf = make([]int, n)
	visited := make([]bool, n)
	start := -1
	for i := range n {
		if !lt.ignored[i] {
			start = i
			break
		}
	}
	if start < 0 {
		return ligErr("no heavy atoms")
	}
	var grow func(start int) int
	grow = func(start int) int {
		b := len(lt.bodies)
		lt.bodies = append(lt.bodies, nil)
		visited[start] = true
		queue := []int{start}
		var sprouts [][2]int
		for len(queue) > 0 {
			a := queue[0]
			queue = queue[1:]
			lt.bodies[b] = append(lt.bodies[b], a)
			lt.bodyOf[a] = b
			for _, j := range lt.nb[a] {
				if visited[j] {
					continue
				}
				if lt.rotatable(a, j, opt) {
					sprouts = append(sprouts, [2]int{a, j})
					continue
				}
				visited[j] = true
				queue = append(queue, j)
			}
		}
		for _, sp := range sprouts {
			if visited[sp[1]] {
				continue
			}
			k := len(lt.conns)
			lt.conns = append(lt.conns, ligConn{fromBody: b, fromAtom: sp[0], toAtom: sp[1]})
			lt.conns[k].toBody = grow(sp[1])
		}
		return b
	}
	grow(start)
	for i := range n {
		if !visited[i] {
			return ligErr("atom %d (%s) is not connected to atom %d: a ligand must be one molecule", i+1, lt.s.Atoms[i].Element, start+1)
		}
	}
	return nil
}

// chooseRoot removes leaves of the body tree until one or two bodies
// remain; of two, the one with more atoms (merged H counted, as Meeko 0.5
// does; tie: the first) is the ROOT.
func (lt *ligandTree) chooseRoot() {
	alive := make([]bool, len(lt.bodies))
	for i := range alive {
		alive[i] = true
	}
	left := len(lt.bodies)
	for left > 2 {
		deg := make([]int, len(lt.bodies))
		for _, c := range lt.conns {
			if alive[c.fromBody] && alive[c.toBody] {
				deg[c.fromBody]++
				deg[c.toBody]++
			}
		}
		for b := range lt.bodies {
			if alive[b] && deg[b] <= 1 {
				alive[b] = false
				left--
			}
		}
	}
	lt.root = -1
	for b := range lt.bodies {
		if !alive[b] {
			continue
		}
		if lt.root < 0 || len(lt.bodies[b]) > len(lt.bodies[lt.root]) {
			lt.root = b
		}
	}
}

// write assigns serials and builds the PDBQT molecule.
func (lt *ligandTree) write() error {
	s := lt.s
	lt.serial = make([]int, len(s.Atoms))
	m := &pdbqt.Molecule{TorsDOF: len(lt.conns)}
	add := func(i int) int {
		a := s.Atoms[i]
		lt.serial[i] = len(m.Atoms) + 1
		m.Atoms = append(m.Atoms, pdbqt.Atom{
			Serial: lt.serial[i], Name: a.Element, ResName: "UNL", ResSeq: 1,
			X: a.X, Y: a.Y, Z: a.Z, Occupancy: 1, Charge: lt.charges[i], Type: lt.types[i],
		})
		return len(m.Atoms) - 1
	}
	var fill func(body *pdbqt.Body, b, parent, attach int)
	fill = func(body *pdbqt.Body, b, parent, attach int) {
		atoms := slices.Clone(lt.bodies[b])
		if attach < 0 {
			slices.Sort(atoms)
		} else {
			atoms = slices.DeleteFunc(atoms, func(i int) bool { return i == attach })
			atoms = append([]int{attach}, atoms...)
		}
		for _, i := range atoms {
			if !lt.ignored[i] {
				body.Items = append(body.Items, pdbqt.Item{Atom: add(i)})
			}
		}
		for _, c := range lt.conns {
			near, far, child := -1, -1, -1
			switch {
			case c.fromBody == b && c.toBody != parent:
				near, far, child = c.fromAtom, c.toAtom, c.toBody
			case c.toBody == b && c.fromBody != parent:
				near, far, child = c.toAtom, c.fromAtom, c.fromBody
			default:
				continue
			}
			br := &pdbqt.Branch{From: lt.serial[near], To: len(m.Atoms) + 1}
			fill(&br.Body, child, b, far)
			body.Items = append(body.Items, pdbqt.Item{Atom: -1, Branch: br})
		}
	}
	m.Root = &pdbqt.Body{}
	fill(m.Root, lt.root, -1, -1)

	var idx, hp []pdbqt.IndexPair
	order := make([]int, len(m.Atoms)) // serial-1 -> atom index
	for i, sr := range lt.serial {
		if sr > 0 {
			order[sr-1] = i
		}
	}
	for k, i := range order {
		a := s.Atoms[i]
		switch {
		case a.SMILESIndex > 0:
			idx = append(idx, pdbqt.IndexPair{SMILES: a.SMILESIndex, Serial: k + 1})
		case a.AtomicNum == 1:
			p := s.Atoms[lt.nb[i][0]].SMILESIndex
			if p == 0 {
				return ligErr("hydrogen %d is bonded to an atom outside the SMILES", i+1)
			}
			hp = append(hp, pdbqt.IndexPair{SMILES: p, Serial: k + 1})
		default:
			return ligErr("atom %d (%s) is not in the SMILES", i+1, a.Element)
		}
	}
	m.Remarks = pdbqt.MeekoRemarks(s.SMILES, idx, hp)
	lt.mol = m
	return nil
}
