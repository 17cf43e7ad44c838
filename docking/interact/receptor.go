package interact

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/molgraph/molgraph/parsers/pdbqt"
)

// MaxReceptorAtoms bounds NewReceptor (the docking service's own receptor
// limit is docking.MaxReceptorAtoms, 200,000).
const MaxReceptorAtoms = 500_000

// ErrReceptor is wrapped by NewReceptor's errors.
var ErrReceptor = errors.New("interact: invalid receptor")

// Residue is a receptor residue.
type Residue struct {
	Chain  string `json:"chain"`
	Number int    `json:"number"`
	ICode  string `json:"icode,omitempty"`
	Name   string `json:"name"`
}

// Key is "<chain>-<number><icode>" ("_" for a blank chain), the residue's
// fragment in the graph (<receptor IRI>#res-<Key>) and fingerprint.
func (r Residue) Key() string {
	ch := r.Chain
	if ch == "" {
		ch = "_"
	}
	return ch + "-" + strconv.Itoa(r.Number) + r.ICode
}

type ratom struct {
	name    string
	element string
	res     int // index into Receptor.residues
	serial  int
	adType  string
}

type ring struct {
	atoms  []int
	centre [3]float64
	normal [3]float64
	res    int
}

type chargeGroup struct {
	atoms  []int
	centre [3]float64
	res    int
	kind   string
}

// Receptor is a receptor's atoms with the groups interactions need,
// indexed in a spatial grid. It is read-only after NewReceptor and safe
// for concurrent use.
type Receptor struct {
	atoms    []ratom
	pos      [][3]float64
	residues []Residue
	grid     *grid
	nbrs     [][]int32
	hydroph  []bool
	donor    []bool
	acceptor []bool
	halAcc   []int // bonded C/P/S of a halogen-bond acceptor, -1 if none
	metal    []bool
	rings    []ring
	charged  []chargeGroup // positive first, then negative
	npos     int           // charged[:npos] are positive
	hasH     bool
	ringGrid *grid // ring centres
	posGrid  *grid // positive centres
	negGrid  *grid // negative centres
}

var metals = map[string]bool{"Li": true, "Na": true, "K": true, "Rb": true, "Cs": true, "Mg": true, "Ca": true, "Sr": true, "Ba": true,
	"Mn": true, "Fe": true, "Co": true, "Ni": true, "Cu": true, "Zn": true, "Cd": true, "Hg": true, "Ag": true, "Au": true,
	"Pt": true, "Pd": true, "Cr": true, "V": true, "Mo": true, "W": true, "Al": true, "Ga": true, "Tl": true, "Pb": true}

// covalent radii (Å, Cordero et al. 2008) for bond perception; metals
// are never bonded here (their contacts are interactions).
var covRadius = map[string]float64{"H": 0.31, "C": 0.76, "N": 0.71, "O": 0.66, "S": 1.05, "P": 1.07, "Se": 1.20,
	"F": 0.57, "Cl": 1.02, "Br": 1.20, "I": 1.39, "B": 0.84}

var aromaticRings = map[string][][]string{
	"PHE": {{"CG", "CD1", "CE1", "CZ", "CE2", "CD2"}},
	"TYR": {{"CG", "CD1", "CE1", "CZ", "CE2", "CD2"}},
	"TRP": {{"CG", "CD1", "NE1", "CE2", "CD2"}, {"CD2", "CE2", "CZ2", "CH2", "CZ3", "CE3"}},
	"HIS": {{"CG", "ND1", "CE1", "NE2", "CD2"}},
}

var positiveGroups = map[string][]string{"LYS": {"NZ"}, "ARG": {"NE", "NH1", "NH2"}, "HIS": {"ND1", "NE2"}}
var negativeGroups = map[string][]string{"ASP": {"OD1", "OD2"}, "GLU": {"OE1", "OE2"}}

// residueFamily maps protonation-state residue names (AMBER/CHARMM, as
// pdb2pqr writes them) to the standard name; neutral forms have no charge
// group.
func residueFamily(name string) (std string, charged bool) {
	switch name {
	case "HID", "HIE", "HSD", "HSE":
		return "HIS", false
	case "HIP", "HSP":
		return "HIS", true
	case "LYN":
		return "LYS", false
	case "ASH":
		return "ASP", false
	case "GLH":
		return "GLU", false
	case "CYX", "CYM":
		return "CYS", false
	}
	return name, true
}

// NewReceptor indexes a receptor's atoms (parsers/pdbqt reads both PDBQT
// and PDB ATOM/HETATM records; elements come from the AutoDock type or the
// PDB element column). Pseudo-atoms without an element are skipped;
// alternate locations other than the first are dropped.
func NewReceptor(atoms []pdbqt.Atom) (*Receptor, error) {
	if len(atoms) == 0 {
		return nil, fmt.Errorf("%w: no atoms", ErrReceptor)
	}
	if len(atoms) > MaxReceptorAtoms {
		return nil, fmt.Errorf("%w: %d atoms, at most %d", ErrReceptor, len(atoms), MaxReceptorAtoms)
	}
	r := &Receptor{}
	resIndex := map[string]int{}
	altSeen := map[string]string{}
	for _, a := range atoms {
		el := a.Element()
		if el == "" {
			continue
		}
		for _, v := range []float64{a.X, a.Y, a.Z} {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e5 {
				return nil, fmt.Errorf("%w: atom %d: coordinate out of range", ErrReceptor, a.Serial)
			}
		}
		key := a.Chain + "\x00" + strconv.Itoa(a.ResSeq) + a.ICode + "\x00" + a.ResName
		if a.AltLoc != "" {
			ak := key + "\x00" + a.Name
			if first, ok := altSeen[ak]; ok && first != a.AltLoc {
				continue
			}
			altSeen[ak] = a.AltLoc
		}
		ri, ok := resIndex[key]
		if !ok {
			ri = len(r.residues)
			resIndex[key] = ri
			r.residues = append(r.residues, Residue{Chain: a.Chain, Number: a.ResSeq, ICode: a.ICode, Name: a.ResName})
		}
		r.atoms = append(r.atoms, ratom{name: a.Name, element: el, res: ri, serial: a.Serial, adType: a.Type})
		r.pos = append(r.pos, [3]float64{a.X, a.Y, a.Z})
		if el == "H" {
			r.hasH = true
		}
	}
	if len(r.atoms) == 0 {
		return nil, fmt.Errorf("%w: no atoms with an element", ErrReceptor)
	}
	r.grid = newGrid(r.pos)
	r.bonds()
	r.classify()
	r.groups()
	return r, nil
}

// bonds perceives covalent bonds by distance (within 0.45 Å over the sum
// of covalent radii, as Open Babel's and RDKit's proximity bonding do).
func (r *Receptor) bonds() {
	r.nbrs = make([][]int32, len(r.atoms))
	for i, a := range r.atoms {
		ri, ok := covRadius[a.element]
		if !ok {
			continue
		}
		r.grid.within(r.pos[i], 2*1.39+0.45, func(j int, d float64) {
			if j <= i {
				return
			}
			rj, ok := covRadius[r.atoms[j].element]
			if !ok || d < 0.4 || d > ri+rj+0.45 {
				return
			}
			if a.element == "H" && r.atoms[j].element == "H" {
				return
			}
			r.nbrs[i] = append(r.nbrs[i], int32(j))
			r.nbrs[j] = append(r.nbrs[j], int32(i))
		})
	}
}

func (r *Receptor) classify() {
	n := len(r.atoms)
	r.hydroph = make([]bool, n)
	r.donor = make([]bool, n)
	r.acceptor = make([]bool, n)
	r.metal = make([]bool, n)
	r.halAcc = make([]int, n)
	for i, a := range r.atoms {
		r.halAcc[i] = -1
		res, _ := residueFamily(r.residues[a.res].Name)
		hasH := false
		onlyCH := true
		for _, j := range r.nbrs[i] {
			switch r.atoms[j].element {
			case "H":
				hasH = true
			case "C":
			default:
				onlyCH = false
			}
		}
		switch a.element {
		case "C":
			r.hydroph[i] = onlyCH && len(r.nbrs[i]) > 0
		case "N", "O":
			if r.hasH {
				r.donor[i] = hasH
			} else {
				r.donor[i] = noHDonor(res, a.name)
			}
			switch {
			case a.element == "O":
				r.acceptor[i] = true
			case res == "HIS" && (a.name == "ND1" || a.name == "NE2"):
				r.acceptor[i] = !hasH
			case a.adType == "NA" && !standardResidue(res):
				r.acceptor[i] = true
			}
		}
		if metals[a.element] {
			r.metal[i] = true
		}
		if a.element == "O" || a.element == "N" || a.element == "S" {
			for _, j := range r.nbrs[i] {
				if e := r.atoms[j].element; e == "C" || e == "P" || e == "S" {
					r.halAcc[i] = int(j)
					break
				}
			}
		}
	}
}

// noHDonor says whether a named atom is a donor when the receptor has no
// hydrogens at all (then the donor angle cannot be checked).
func noHDonor(res, name string) bool {
	if name == "N" {
		return res != "PRO"
	}
	switch res + " " + name {
	case "ARG NE", "ARG NH1", "ARG NH2", "ASN ND2", "GLN NE2", "HIS ND1", "HIS NE2", "LYS NZ",
		"SER OG", "THR OG1", "TYR OH", "TRP NE1":
		return true
	}
	return false
}

func standardResidue(res string) bool {
	switch res {
	case "ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET", "PHE",
		"PRO", "SER", "THR", "TRP", "TYR", "VAL":
		return true
	}
	return false
}

// groups builds the aromatic rings and charge groups from residue and
// atom names.
func (r *Receptor) groups() {
	byRes := make([]map[string]int, len(r.residues))
	for i, a := range r.atoms {
		if byRes[a.res] == nil {
			byRes[a.res] = map[string]int{}
		}
		if _, ok := byRes[a.res][a.name]; !ok {
			byRes[a.res][a.name] = i
		}
	}
	find := func(ri int, names []string) ([]int, bool) {
		out := make([]int, 0, len(names))
		for _, nm := range names {
			i, ok := byRes[ri][nm]
			if !ok {
				return nil, false
			}
			out = append(out, i)
		}
		return out, true
	}
	var neg []chargeGroup
	for ri, res := range r.residues {
		fam, charged := residueFamily(strings.ToUpper(res.Name))
		for _, names := range aromaticRings[fam] {
			if idx, ok := find(ri, names); ok {
				c := centroid(r.pos, idx)
				r.rings = append(r.rings, ring{atoms: idx, centre: c, normal: ringNormal(r.pos, idx, c), res: ri})
			}
		}
		if !charged {
			continue
		}
		if names, ok := positiveGroups[fam]; ok {
			if idx, ok := find(ri, names); ok {
				r.charged = append(r.charged, chargeGroup{atoms: idx, centre: centroid(r.pos, idx), res: ri, kind: fam})
			}
		}
		if names, ok := negativeGroups[fam]; ok {
			if idx, ok := find(ri, names); ok {
				neg = append(neg, chargeGroup{atoms: idx, centre: centroid(r.pos, idx), res: ri, kind: fam})
			}
		}
	}
	r.npos = len(r.charged)
	r.charged = append(r.charged, neg...)
	var rc, pc, nc [][3]float64
	for _, g := range r.rings {
		rc = append(rc, g.centre)
	}
	for i, g := range r.charged {
		if i < r.npos {
			pc = append(pc, g.centre)
		} else {
			nc = append(nc, g.centre)
		}
	}
	r.ringGrid, r.posGrid, r.negGrid = newGrid(rc), newGrid(pc), newGrid(nc)
}

// Atoms is the number of atoms indexed.
func (r *Receptor) Atoms() int { return len(r.atoms) }
