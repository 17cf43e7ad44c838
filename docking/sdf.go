package docking

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/molgraph/molgraph/chem"
)

// PoseSDF reassembles one docked pose into a V2000 SD record of the
// registered molecule: s is its Structure (the one the ligand PDBQT was
// prepared from), pose the docked model mapped to SMILES order by a
// PoseMap, name the record title and tags its SD data items (PoseTags).
//
// Placement: heavy atoms and polar hydrogens take the docked coordinates
// (each H PARENT hydrogen goes to the first not yet placed hydrogen of its
// parent, the order PrepareLigand writes them in). Every other hydrogen is
// re-placed rigidly from its parent's local frame: in s the hydrogen is
// expressed in an orthonormal frame built from its parent P, a neighbour A
// of P and a second atom B (another neighbour of P, or a neighbour of A);
// the same frame built from the docked P, A, B gives its position. Atoms
// bonded to a rigid body do not move relative to it under Vina's torsions,
// so this reproduces the prepared geometry of every hydrogen exactly.
// The record is chem's molblock (Structure.Molblock: Kekule bond orders,
// formal charges on M  CHG lines) followed by the tags.
// Errors wrap ErrMapping.
func PoseSDF(s *chem.Structure, pose *Pose, name string, tags []Tag) ([]byte, error) {
	if s == nil || pose == nil || len(s.Atoms) == 0 {
		return nil, fmt.Errorf("docking: pose sdf: %w: no structure or pose", ErrMapping)
	}
	if pose.SMILES != s.SMILES {
		return nil, fmt.Errorf("docking: pose sdf: %w: pose is %s, structure is %s", ErrMapping, pose.SMILES, s.SMILES)
	}
	if len(s.Atoms) > chem.MaxMolblockAtoms || len(s.Bonds) > chem.MaxMolblockAtoms {
		return nil, fmt.Errorf("docking: pose sdf: %w: more than %d atoms or bonds for a V2000 record", ErrMapping, chem.MaxMolblockAtoms)
	}
	n := len(s.Atoms)
	nb := s.Neighbors()
	pos := make([][3]float64, n)
	placed := make([]bool, n)
	bySMILES := map[int]int{}
	for i, a := range s.Atoms {
		if a.SMILESIndex == 0 {
			continue
		}
		bySMILES[a.SMILESIndex-1] = i
		k := a.SMILESIndex - 1
		if k >= len(pose.Placed) || !pose.Placed[k] {
			return nil, fmt.Errorf("docking: pose sdf: %w: SMILES atom %d has no docked position", ErrMapping, a.SMILESIndex)
		}
		pos[i], placed[i] = pose.Coords[k], true
	}
	for _, h := range pose.PolarH {
		p, ok := bySMILES[h.Parent]
		if !ok {
			return nil, fmt.Errorf("docking: pose sdf: %w: H parent %d not in the structure", ErrMapping, h.Parent+1)
		}
		done := false
		for _, j := range nb[p] {
			if s.Atoms[j].AtomicNum == 1 && !placed[j] {
				pos[j], placed[j], done = h.Pos, true, true
				break
			}
		}
		if !done {
			return nil, fmt.Errorf("docking: pose sdf: %w: SMILES atom %d has more docked hydrogens than the structure", ErrMapping, h.Parent+1)
		}
	}
	ref := func(i int) [3]float64 { return [3]float64{s.Atoms[i].X, s.Atoms[i].Y, s.Atoms[i].Z} }
	for i, a := range s.Atoms {
		if placed[i] {
			continue
		}
		if a.AtomicNum != 1 || len(nb[i]) != 1 || !placed[nb[i][0]] {
			return nil, fmt.Errorf("docking: pose sdf: %w: atom %d (%s) has no docked position", ErrMapping, i+1, a.Element)
		}
		p := nb[i][0]
		// reference atoms: placed neighbours of P, heavy atoms first
		var cand []int
		for _, heavy := range []bool{true, false} {
			for _, j := range nb[p] {
				if j != i && placed[j] && (s.Atoms[j].AtomicNum != 1) == heavy {
					cand = append(cand, j)
				}
			}
		}
		fa, fb := -1, -1
		if len(cand) > 0 {
			fa = cand[0]
		}
		if len(cand) > 1 {
			fb = cand[1]
		}
		if fa < 0 { // e.g. H2 or a lone H on an atom with no other neighbour
			pos[i] = add3(pos[p], sub3(ref(i), ref(p)))
			continue
		}
		if fb < 0 {
			for _, j := range nb[fa] {
				if j != p && placed[j] && s.Atoms[j].AtomicNum != 1 {
					fb = j
					break
				}
			}
		}
		var rb, db [3]float64
		if fb >= 0 {
			rb, db = ref(fb), pos[fb]
		}
		local := toFrame(ref(p), ref(fa), rb, fb >= 0, ref(i))
		pos[i] = fromFrame(pos[p], pos[fa], db, fb >= 0, local)
	}

	mb, err := s.Molblock(name, pos)
	if err != nil {
		return nil, fmt.Errorf("docking: pose sdf: %w: %v", ErrMapping, err)
	}
	b := bytes.NewBuffer(mb)
	for _, t := range tags {
		fmt.Fprintf(b, "> <%s>\n%s\n\n", t.Name, strings.ReplaceAll(t.Value, "\n", " "))
	}
	b.WriteString("$$$$\n")
	return b.Bytes(), nil
}

func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func add3(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func dot3(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func scale3(a [3]float64, f float64) [3]float64 {
	return [3]float64{a[0] * f, a[1] * f, a[2] * f}
}
func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func unit3(a [3]float64) [3]float64 {
	l := math.Sqrt(dot3(a, a))
	if l < 1e-12 {
		return [3]float64{}
	}
	return scale3(a, 1/l)
}

// frame returns an orthonormal basis: e1 along p->a, e2 in the plane of
// p, a, b (or any perpendicular when b is missing or collinear), e3 = e1 x e2.
func frame(p, a, b [3]float64, haveB bool) (e1, e2, e3 [3]float64) {
	e1 = unit3(sub3(a, p))
	var v [3]float64
	if haveB {
		v = sub3(b, p)
		v = sub3(v, scale3(e1, dot3(v, e1)))
	}
	if math.Sqrt(dot3(v, v)) < 1e-6 {
		// any perpendicular: the H is then on the p-a axis or its
		// rotation about it is undetermined by the heavy atoms anyway
		t := [3]float64{1, 0, 0}
		if math.Abs(e1[0]) > 0.9 {
			t = [3]float64{0, 1, 0}
		}
		v = sub3(t, scale3(e1, dot3(t, e1)))
	}
	e2 = unit3(v)
	e3 = cross3(e1, e2)
	return
}

func toFrame(p, a, b [3]float64, haveB bool, x [3]float64) [3]float64 {
	e1, e2, e3 := frame(p, a, b, haveB)
	d := sub3(x, p)
	return [3]float64{dot3(d, e1), dot3(d, e2), dot3(d, e3)}
}

func fromFrame(p, a, b [3]float64, haveB bool, l [3]float64) [3]float64 {
	e1, e2, e3 := frame(p, a, b, haveB)
	return add3(p, add3(scale3(e1, l[0]), add3(scale3(e2, l[1]), scale3(e3, l[2]))))
}
