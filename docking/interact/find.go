package interact

import (
	"cmp"
	"math"
	"slices"
	"strconv"
)

// Thresholds: PLIP 2.2.2's defaults (plip/basic/config.py), Å and degrees.
const (
	MinDist           = 0.5
	HydrophobDistMax  = 4.0
	HBondDistMax      = 4.1
	HBondDonAngleMin  = 100.0
	PiStackDistMax    = 5.5
	PiStackAngDev     = 30.0
	PiStackOffsetMax  = 2.0
	PiCationDistMax   = 6.0
	SaltBridgeDistMax = 5.5
	HalogenDistMax    = 4.0
	HalogenAccAngle   = 120.0
	HalogenDonAngle   = 165.0
	HalogenAngleDev   = 30.0
	MetalDistMax      = 3.0
	// NoHDonorDistMax is our own: a receptor without any hydrogen gives
	// no donor angle, so a hydrogen bond from its donors needs a
	// donor–acceptor distance of at most 3.5 Å instead.
	NoHDonorDistMax = 3.5
)

// Type is an interaction type.
type Type string

// The interaction types, in the order they are reported.
const (
	HydrogenBond Type = "hbond"
	SaltBridge   Type = "salt_bridge"
	PiStacking   Type = "pi_stacking"
	PiCation     Type = "pi_cation"
	Hydrophobic  Type = "hydrophobic"
	HalogenBond  Type = "halogen_bond"
	Metal        Type = "metal"
)

// Types lists every Type.
var Types = []Type{HydrogenBond, SaltBridge, PiStacking, PiCation, Hydrophobic, HalogenBond, Metal}

func typeRank(t Type) int { return slices.Index(Types, t) }

// ReceptorAtom names a receptor atom of an interaction.
type ReceptorAtom struct {
	Serial int    `json:"serial"`
	Name   string `json:"name"`
}

// Interaction is one interaction of a pose with a receptor residue.
// LigandAtoms are 1-based atom numbers of the pose SDF (chem.Structure
// order + 1). Subtype says the direction or the geometry:
//
//	hbond         ligand_donor | receptor_donor
//	salt_bridge   ligand_positive | ligand_negative
//	pi_stacking   parallel | t_shaped
//	pi_cation     ligand_cation | ligand_ring
//
// Distance is donor–acceptor (hbond), centre–centre (salt bridge,
// stacking, π–cation), carbon–carbon, halogen–acceptor or metal–atom.
// Angle is D–H···A (hbond), between the ring planes (stacking), C–X···A
// (halogen); AcceptorAngle is X···A–Y (halogen); Offset is the stacking or
// π–cation offset.
type Interaction struct {
	Type          Type           `json:"type"`
	Subtype       string         `json:"subtype,omitempty"`
	Residue       Residue        `json:"residue"`
	LigandAtoms   []int          `json:"ligand_atoms"`
	ReceptorAtoms []ReceptorAtom `json:"receptor_atoms"`
	Distance      float64        `json:"distance"`
	Angle         *float64       `json:"angle,omitempty"`
	AcceptorAngle *float64       `json:"acceptor_angle,omitempty"`
	Offset        *float64       `json:"offset,omitempty"`
}

// Result is the interactions of one pose and its fingerprint.
type Result struct {
	Interactions []Interaction `json:"interactions"`
	Fingerprint  []string      `json:"fingerprint"`
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }
func ptr(x float64) *float64  { v := round(x); return &v }

type finder struct {
	r   *Receptor
	l   *Ligand
	out []Interaction
}

func (fd *finder) ratoms(idx []int) []ReceptorAtom {
	out := make([]ReceptorAtom, len(idx))
	for k, i := range idx {
		out[k] = ReceptorAtom{Serial: fd.r.atoms[i].serial, Name: fd.r.atoms[i].name}
	}
	return out
}

func latoms(idx []int) []int {
	out := make([]int, len(idx))
	for k, i := range idx {
		out[k] = i + 1
	}
	return out
}

// Find returns the interactions of ligand l with receptor r and the pose's
// fingerprint. The result is sorted by residue (chain, number, insertion
// code), type, then atoms.
func Find(r *Receptor, l *Ligand) Result {
	fd := &finder{r: r, l: l}
	sb := fd.saltBridges()
	fd.hbonds(sb)
	stacked := fd.piStacking()
	fd.piCation()
	fd.hydrophobic(stacked)
	fd.halogen()
	fd.metal()
	slices.SortFunc(fd.out, func(a, b Interaction) int {
		return cmp.Or(cmpResidue(a.Residue, b.Residue), cmp.Compare(typeRank(a.Type), typeRank(b.Type)),
			slices.Compare(a.LigandAtoms, b.LigandAtoms),
			slices.CompareFunc(a.ReceptorAtoms, b.ReceptorAtoms, func(x, y ReceptorAtom) int { return cmp.Compare(x.Serial, y.Serial) }))
	})
	if fd.out == nil {
		fd.out = []Interaction{}
	}
	return Result{Interactions: fd.out, Fingerprint: Fingerprint(fd.out)}
}

func cmpResidue(a, b Residue) int {
	return cmp.Or(cmp.Compare(a.Chain, b.Chain), cmp.Compare(a.Number, b.Number), cmp.Compare(a.ICode, b.ICode), cmp.Compare(a.Name, b.Name))
}

// FingerprintEntry is the fingerprint entry of an interaction type with a
// residue: "<chain>-<number><icode>:<name>:<type>".
func FingerprintEntry(res Residue, t Type) string {
	return res.Key() + ":" + res.Name + ":" + string(t)
}

// Fingerprint is the sorted set of (residue, type) entries of the
// interactions (see the package doc).
func Fingerprint(in []Interaction) []string {
	type key struct {
		res Residue
		t   Type
	}
	var ks []key
	seen := map[key]bool{}
	for _, it := range in {
		k := key{it.Residue, it.Type}
		if !seen[k] {
			seen[k] = true
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(a, b key) int {
		return cmp.Or(cmpResidue(a.res, b.res), cmp.Compare(typeRank(a.t), typeRank(b.t)))
	})
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = FingerprintEntry(k.res, k.t)
	}
	return out
}

type ligGroup struct {
	atoms  []int
	centre [3]float64
	kind   string
}

func (fd *finder) ligandCharged(positive bool) []ligGroup {
	var out []ligGroup
	for _, g := range fd.l.f.Charged {
		if g.Positive != positive || !fd.l.groupPlaced(g.Atoms) {
			continue
		}
		out = append(out, ligGroup{atoms: g.Atoms, centre: centroid(fd.l.pos, g.Atoms), kind: g.Kind})
	}
	return out
}

// saltBridges adds the salt bridges and returns the pairs (ligand atom,
// receptor atom) of the groups that form them.
func (fd *finder) saltBridges() map[[2]int]bool {
	pairs := map[[2]int]bool{}
	for _, positive := range []bool{true, false} {
		g := fd.r.negGrid
		off := fd.r.npos
		sub := "ligand_positive"
		if !positive {
			g, off, sub = fd.r.posGrid, 0, "ligand_negative"
		}
		for _, lg := range fd.ligandCharged(positive) {
			g.within(lg.centre, SaltBridgeDistMax, func(k int, d float64) {
				if d <= MinDist {
					return
				}
				rg := fd.r.charged[off+k]
				fd.out = append(fd.out, Interaction{Type: SaltBridge, Subtype: sub, Residue: fd.r.residues[rg.res],
					LigandAtoms: latoms(lg.atoms), ReceptorAtoms: fd.ratoms(rg.atoms), Distance: round(d)})
				for _, a := range lg.atoms {
					for _, b := range rg.atoms {
						pairs[[2]int{a, b}] = true
					}
				}
			})
		}
	}
	return pairs
}

type hbond struct {
	it    Interaction
	angle float64
	donor [2]int // (side, atom): side 0 ligand, 1 receptor
}

// hbonds adds the hydrogen bonds: every donor keeps the one with the
// angle closest to 180°; pairs of atoms of salt-bridging groups are
// skipped.
func (fd *finder) hbonds(salt map[[2]int]bool) {
	l, r := fd.l, fd.r
	best := map[[2]int]hbond{}
	consider := func(h hbond) {
		if cur, ok := best[h.donor]; !ok || h.angle > cur.angle {
			best[h.donor] = h
		}
	}
	for i := range l.elements {
		if !l.placed[i] || (!l.f.Donor[i] && !l.f.Acceptor[i]) {
			continue
		}
		r.grid.within(l.pos[i], HBondDistMax, func(j int, d float64) {
			if d <= MinDist || salt[[2]int{i, j}] {
				return
			}
			if l.f.Donor[i] && r.acceptor[j] {
				bestA, ok := donorAngle(l.pos[i], l.pos, l.hydrogens(i), r.pos[j])
				if ok && bestA >= HBondDonAngleMin {
					consider(hbond{angle: bestA, donor: [2]int{0, i}, it: Interaction{Type: HydrogenBond, Subtype: "ligand_donor",
						Residue: r.residues[r.atoms[j].res], LigandAtoms: []int{i + 1}, ReceptorAtoms: fd.ratoms([]int{j}),
						Distance: round(d), Angle: ptr(bestA)}})
				}
			}
			if l.f.Acceptor[i] && r.donor[j] {
				var hs []int
				for _, k := range r.nbrs[j] {
					if r.atoms[k].element == "H" {
						hs = append(hs, int(k))
					}
				}
				it := Interaction{Type: HydrogenBond, Subtype: "receptor_donor", Residue: r.residues[r.atoms[j].res],
					LigandAtoms: []int{i + 1}, ReceptorAtoms: fd.ratoms([]int{j}), Distance: round(d)}
				if !r.hasH {
					if d <= NoHDonorDistMax {
						consider(hbond{angle: 180 - d, donor: [2]int{1, j}, it: it})
					}
					return
				}
				bestA, ok := donorAngle(r.pos[j], r.pos, hs, l.pos[i])
				if ok && bestA >= HBondDonAngleMin {
					it.Angle = ptr(bestA)
					consider(hbond{angle: bestA, donor: [2]int{1, j}, it: it})
				}
			}
		})
	}
	keys := make([][2]int, 0, len(best))
	for k := range best {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, k := range keys {
		fd.out = append(fd.out, best[k].it)
	}
}

// donorAngle is the largest D–H···A angle over the hydrogens hs of donor d.
func donorAngle(d [3]float64, pos [][3]float64, hs []int, a [3]float64) (float64, bool) {
	best, ok := 0.0, false
	for _, h := range hs {
		ang := angle(sub(d, pos[h]), sub(a, pos[h]))
		if !ok || ang > best {
			best, ok = ang, true
		}
	}
	return best, ok
}

type ligRing struct {
	atoms  []int
	centre [3]float64
	normal [3]float64
}

func (fd *finder) ligandRings() []ligRing {
	var out []ligRing
	for _, idx := range fd.l.f.AromaticRings {
		if !fd.l.groupPlaced(idx) {
			continue
		}
		c := centroid(fd.l.pos, idx)
		out = append(out, ligRing{atoms: idx, centre: c, normal: ringNormal(fd.l.pos, idx, c)})
	}
	return out
}

// piStacking adds the π-stacking interactions and returns the (ligand
// atom, receptor atom) pairs of stacked rings.
func (fd *finder) piStacking() map[[2]int]bool {
	stacked := map[[2]int]bool{}
	for _, lr := range fd.ligandRings() {
		fd.r.ringGrid.within(lr.centre, PiStackDistMax, func(k int, d float64) {
			if d <= MinDist {
				return
			}
			rr := fd.r.rings[k]
			a := angle(lr.normal, rr.normal)
			if a > 90 {
				a = 180 - a
			}
			var sub string
			switch {
			case a <= PiStackAngDev:
				sub = "parallel"
			case math.Abs(a-90) <= PiStackAngDev:
				sub = "t_shaped"
			default:
				return
			}
			off := math.Min(projectOffset(lr.centre, rr.centre, rr.normal), projectOffset(rr.centre, lr.centre, lr.normal))
			if off > PiStackOffsetMax {
				return
			}
			fd.out = append(fd.out, Interaction{Type: PiStacking, Subtype: sub, Residue: fd.r.residues[rr.res],
				LigandAtoms: latoms(lr.atoms), ReceptorAtoms: fd.ratoms(rr.atoms), Distance: round(d), Angle: ptr(a), Offset: ptr(off)})
			for _, x := range lr.atoms {
				for _, y := range rr.atoms {
					stacked[[2]int{x, y}] = true
				}
			}
		})
	}
	return stacked
}

func (fd *finder) piCation() {
	// ligand rings, receptor cations
	for _, lr := range fd.ligandRings() {
		fd.r.posGrid.within(lr.centre, PiCationDistMax, func(k int, d float64) {
			rg := fd.r.charged[k]
			off := projectOffset(rg.centre, lr.centre, lr.normal)
			if d <= MinDist || off > PiStackOffsetMax {
				return
			}
			fd.out = append(fd.out, Interaction{Type: PiCation, Subtype: "ligand_ring", Residue: fd.r.residues[rg.res],
				LigandAtoms: latoms(lr.atoms), ReceptorAtoms: fd.ratoms(rg.atoms), Distance: round(d), Offset: ptr(off)})
		})
	}
	// ligand cations, receptor rings
	for _, lg := range fd.ligandCharged(true) {
		fd.r.ringGrid.within(lg.centre, PiCationDistMax, func(k int, d float64) {
			rr := fd.r.rings[k]
			off := projectOffset(lg.centre, rr.centre, rr.normal)
			if d <= MinDist || off > PiStackOffsetMax {
				return
			}
			if len(lg.atoms) == 1 && fd.l.elements[lg.atoms[0]] == "N" {
				// a tertiary amine (protonated or not, as PLIP): its
				// three substituents must lie in a plane roughly
				// parallel to the ring, the lone pair or N-H facing it
				n := lg.atoms[0]
				var sub []int
				for _, j := range fd.l.nbrs[n] {
					if fd.l.elements[j] != "H" {
						sub = append(sub, j)
					}
				}
				if len(sub) == 3 && fd.l.groupPlaced(sub) {
					p := fd.l.pos
					pn := cross(sub3(p[sub[1]], p[sub[0]]), sub3(p[sub[2]], p[sub[0]]))
					a := angle(pn, rr.normal)
					if a > 90 {
						a = 180 - a
					}
					if a > PiStackAngDev {
						return
					}
				}
			}
			fd.out = append(fd.out, Interaction{Type: PiCation, Subtype: "ligand_cation", Residue: fd.r.residues[rr.res],
				LigandAtoms: latoms(lg.atoms), ReceptorAtoms: fd.ratoms(rr.atoms), Distance: round(d), Offset: ptr(off)})
		})
	}
}

func sub3(a, b [3]float64) [3]float64 { return sub(a, b) }

// hydrophobic adds the hydrophobic contacts after PLIP's reduction.
func (fd *finder) hydrophobic(stacked map[[2]int]bool) {
	var cs []contact
	for i := range fd.l.elements {
		if !fd.l.placed[i] || !fd.l.f.Hydrophobic[i] {
			continue
		}
		fd.r.grid.within(fd.l.pos[i], HydrophobDistMax, func(j int, d float64) {
			if d > MinDist && fd.r.hydroph[j] && !stacked[[2]int{i, j}] {
				cs = append(cs, contact{i, j, d})
			}
		})
	}
	// a ligand atom keeps its closest contact per residue
	type lr struct{ l, res int }
	best := map[lr]contact{}
	for _, c := range cs {
		k := lr{c.l, fd.r.atoms[c.r].res}
		if b, ok := best[k]; !ok || c.d < b.d || (c.d == b.d && c.r < b.r) {
			best[k] = c
		}
	}
	// then, per receptor atom, its ligand partners are split into bonded
	// patches and each patch keeps its closest contact (PLIP clusters the
	// same way but drops partners bonded to no other partner; we keep
	// them as patches of one atom)
	byR := map[int][]contact{}
	for _, c := range best {
		byR[c.r] = append(byR[c.r], c)
	}
	var kept []contact
	for _, group := range byR {
		kept = append(kept, fd.closestPerPatch(group)...)
	}
	for _, c := range kept {
		fd.out = append(fd.out, Interaction{Type: Hydrophobic, Residue: fd.r.residues[fd.r.atoms[c.r].res],
			LigandAtoms: []int{c.l + 1}, ReceptorAtoms: fd.ratoms([]int{c.r}), Distance: round(c.d)})
	}
}

type contact struct {
	l, r int
	d    float64
}

// closestPerPatch splits the contacts of one receptor atom by connected
// (bonded) ligand atoms and keeps the closest contact of each part.
func (fd *finder) closestPerPatch(group []contact) []contact {
	in := map[int]int{} // ligand atom -> index in group
	for k, c := range group {
		in[c.l] = k
	}
	seen := make([]bool, len(group))
	var out []contact
	for k := range group {
		if seen[k] {
			continue
		}
		bestC := group[k]
		stack := []int{k}
		seen[k] = true
		for len(stack) > 0 {
			c := group[stack[len(stack)-1]]
			stack = stack[:len(stack)-1]
			if c.d < bestC.d || (c.d == bestC.d && c.l < bestC.l) {
				bestC = c
			}
			for _, nb := range fd.l.nbrs[c.l] {
				if j, ok := in[nb]; ok && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		out = append(out, bestC)
	}
	return out
}

func (fd *finder) halogen() {
	l, r := fd.l, fd.r
	for i := range l.elements {
		if !l.placed[i] || !l.f.HalogenDonor[i] {
			continue
		}
		c := -1
		for _, j := range l.nbrs[i] {
			if l.elements[j] == "C" && l.placed[j] {
				c = j
			}
		}
		if c < 0 {
			continue
		}
		r.grid.within(l.pos[i], HalogenDistMax, func(j int, d float64) {
			y := r.halAcc[j]
			if d <= MinDist || y < 0 {
				return
			}
			don := angle(sub(l.pos[c], l.pos[i]), sub(r.pos[j], l.pos[i]))
			acc := angle(sub(l.pos[i], r.pos[j]), sub(r.pos[y], r.pos[j]))
			if math.Abs(don-HalogenDonAngle) > HalogenAngleDev || math.Abs(acc-HalogenAccAngle) > HalogenAngleDev {
				return
			}
			fd.out = append(fd.out, Interaction{Type: HalogenBond, Residue: r.residues[r.atoms[j].res],
				LigandAtoms: []int{i + 1}, ReceptorAtoms: fd.ratoms([]int{j}), Distance: round(d), Angle: ptr(don), AcceptorAngle: ptr(acc)})
		})
	}
}

func (fd *finder) metal() {
	l, r := fd.l, fd.r
	for i := range l.elements {
		if !l.placed[i] || !l.f.MetalBinder[i] {
			continue
		}
		r.grid.within(l.pos[i], MetalDistMax, func(j int, d float64) {
			if d > MinDist && r.metal[j] {
				fd.out = append(fd.out, Interaction{Type: Metal, Subtype: r.atoms[j].element, Residue: r.residues[r.atoms[j].res],
					LigandAtoms: []int{i + 1}, ReceptorAtoms: fd.ratoms([]int{j}), Distance: round(d)})
			}
		})
	}
}

// String is a one-line description (tests, logs).
func (it Interaction) String() string {
	return FingerprintEntry(it.Residue, it.Type) + " " + it.Subtype + " d=" + strconv.FormatFloat(it.Distance, 'f', 2, 64)
}
