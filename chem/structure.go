package chem

/*
#cgo LDFLAGS: -lRDKitPartialCharges
#include <stdlib.h>
#include "mg.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// ErrNo3D is wrapped when no 3D structure could be made for a molecule
// (embedding failed).
var ErrNo3D = errors.New("no 3D structure")

// Structure is a normalized molecule with every hydrogen explicit and 3D
// coordinates, analysed the way ligand preparation needs it. Atom indexes
// are 0-based positions in Atoms.
type Structure struct {
	// SMILES is RDKit's canonical isomeric SMILES of the molecule without
	// hydrogens (the same string Result.SMILES gives for it).
	SMILES string
	// InChIKey is the standard InChIKey of the molecule (with its stereo
	// layers); empty when libinchi refused it.
	InChIKey string
	Atoms    []StructureAtom
	Bonds    []StructureBond
	// Rings are RDKit's smallest set of smallest rings, as atom indexes.
	Rings [][]int
	// Stereoisomer is set when the molecule left stereocentres or double
	// bonds unspecified: the stereoisomer embedded (its canonical isomeric
	// SMILES, equal to SMILES), and Stereoisomers the number of its
	// stereoisomers (2^n for n unspecified elements).
	Stereoisomer  string
	Stereoisomers int
	// Reused is true when the coordinates are those of the input molfile,
	// false when they were embedded (ETKDGv3, fixed seed, MMFF94).
	Reused bool
}

// StructureAtom is one atom of a Structure.
type StructureAtom struct {
	Element      string // symbol, e.g. "C", "Cl"
	AtomicNum    int
	FormalCharge int
	Aromatic     bool
	InRing       bool
	NumHs        int // hydrogens bonded to the atom
	Degree       int // number of neighbours, hydrogens included (SMARTS X)
	Valence      int // total valence (SMARTS v)
	X, Y, Z      float64
	// Gasteiger is the Gasteiger-Marsili partial charge (RDKit
	// computeGasteigerCharges, 12 iterations, Se computed as S); NaN when
	// RDKit has no parameters for the atom.
	Gasteiger float64
	// Rank is RDKit's canonical rank without tie breaking (symmetry
	// classes: equal ranks are topologically equivalent atoms).
	Rank int
	// SMILESIndex is the 1-based position of the atom in SMILES (RDKit's
	// _smilesAtomOutputOrder), 0 for a hydrogen not written in SMILES.
	SMILESIndex int
}

// StructureBond is one bond of a Structure.
type StructureBond struct {
	Begin, End int
	// Order is 1, 2, 3 or 1.5 (aromatic).
	Order float64
	// Kekule is the bond order (1, 2 or 3) in RDKit's Kekule form.
	Kekule     int
	InRing     bool
	Conjugated bool
}

// Structure returns the normalized molecule of in (the molecule Process
// registers: same normalization, NoNormalize honoured) with explicit
// hydrogens and 3D coordinates. A molfile input with 3D coordinates whose
// structure is the normalized one keeps its coordinates (hydrogens it lacks
// are added from the heavy-atom geometry); every other input is embedded
// with ETKDGv3 and a fixed seed, then optimised with MMFF94, exactly as
// Process does with Generate3D. Errors: *MoleculeError for content that is
// not a molecule, ErrNo3D when embedding fails.
//
// The RDKit analysis after Process runs in the calling goroutine: it touches
// no per-thread state, only molecules it owns.
func (p *Pool) Structure(ctx context.Context, in Input) (*Structure, error) {
	in.Coordinates2D = false
	if in.Format == FormatMolfile {
		in.Generate3D = false
		r, err := p.Process(ctx, in)
		if err != nil {
			return nil, err
		}
		block := in.Content
		if i := strings.Index(block, "$$$$"); i >= 0 {
			block = block[:i]
		}
		s, mismatch, err := analyse(block, r.SMILES)
		if err != nil {
			return nil, &MoleculeError{Format: in.Format, Reason: err.Error()}
		}
		if !mismatch {
			s.Reused, s.InChIKey = true, r.InChIKey
			return s, nil
		}
	}
	in.Generate3D = true
	r, err := p.Process(ctx, in)
	if err != nil {
		return nil, err
	}
	if !r.Has3D {
		return nil, fmt.Errorf("chem: structure of %s: %w: 3D embedding failed", r.SMILES, ErrNo3D)
	}
	s, mismatch, err := analyse(r.Molfile, r.SMILES)
	if err == nil && mismatch {
		// Embedding assigns every stereocentre and double bond it finds
		// unspecified, so the embedded molfile is one stereoisomer, not the
		// stereo-free molecule: embed the first of its stereoisomers
		// (Stereoisomers order) and check against that isomer.
		var iso *Structure
		iso, err = p.stereoisomerStructure(ctx, r.SMILES)
		if iso != nil {
			return iso, nil
		}
	}
	if err != nil || mismatch {
		if err == nil {
			err = errors.New("embedded molfile does not give back the molecule")
		}
		return nil, fmt.Errorf("chem: structure of %s: %w: %v", r.SMILES, ErrNo3D, err)
	}
	s.InChIKey = r.InChIKey
	return s, nil
}

// stereoisomerStructure embeds the first stereoisomer of smiles when smiles
// leaves stereo unspecified; nil, nil when it does not.
func (p *Pool) stereoisomerStructure(ctx context.Context, smiles string) (*Structure, error) {
	isomers, total, err := Stereoisomers(smiles, MaxStereoisomers)
	if err != nil || len(isomers) == 0 || (len(isomers) == 1 && isomers[0] == smiles) {
		return nil, err
	}
	r, err := p.Process(ctx, Input{Format: FormatSMILES, Content: isomers[0], Generate3D: true, NoNormalize: true})
	if err != nil {
		return nil, err
	}
	if !r.Has3D {
		return nil, errors.New("3D embedding of the stereoisomer failed")
	}
	s, mismatch, err := analyse(r.Molfile, r.SMILES)
	if err != nil {
		return nil, err
	}
	if mismatch {
		return nil, fmt.Errorf("embedded molfile does not give back stereoisomer %s", r.SMILES)
	}
	s.Stereoisomer, s.Stereoisomers, s.InChIKey = r.SMILES, total, r.InChIKey
	return s, nil
}

// analyse runs mg_structure. mismatch is true when the molfile is not 3D or
// is not the expected molecule.
func analyse(block, expect string) (s *Structure, mismatch bool, err error) {
	cb, nb := borrow(block)
	ce, ne := borrow(expect)
	var out, cerr *C.char
	rc := C.mg_structure(cb, nb, ce, ne, &out, &cerr)
	text, msg := gostr(out), gostr(cerr)
	C.mg_free(unsafe.Pointer(out))
	C.mg_free(unsafe.Pointer(cerr))
	switch rc {
	case 0:
	case 1:
		return nil, true, nil
	default:
		return nil, false, errors.New(msg)
	}
	s, err = parseStructure(text)
	return s, false, err
}

// parseStructure reads the table mg_structure writes, one record per line,
// tab-separated:
//
//	S smiles
//	A atomicNum symbol formalCharge aromatic inRing numHs degree valence x y z gasteiger rank smilesIndex
//	B begin end order kekule inRing conjugated
//	R atom atom ...   (space-separated)
func parseStructure(text string) (*Structure, error) {
	s := &Structure{}
	bad := func(line string) error { return fmt.Errorf("chem: structure: malformed line %q", line) }
	for _, line := range lines(text) {
		f := strings.Split(line, "\t")
		switch f[0] {
		case "S":
			if len(f) != 2 {
				return nil, bad(line)
			}
			s.SMILES = f[1]
		case "A":
			if len(f) != 15 {
				return nil, bad(line)
			}
			var a StructureAtom
			var ints [10]int
			for k, col := range []int{1, 3, 4, 5, 6, 7, 8, 13, 14} {
				v, err := strconv.Atoi(f[col])
				if err != nil {
					return nil, bad(line)
				}
				ints[k] = v
			}
			var fl [4]float64
			for k, col := range []int{9, 10, 11, 12} {
				v, err := strconv.ParseFloat(f[col], 64)
				if err != nil {
					return nil, bad(line)
				}
				fl[k] = v
			}
			a.AtomicNum, a.Element, a.FormalCharge = ints[0], f[2], ints[1]
			a.Aromatic, a.InRing = ints[2] != 0, ints[3] != 0
			a.NumHs, a.Degree, a.Valence = ints[4], ints[5], ints[6]
			a.X, a.Y, a.Z, a.Gasteiger = fl[0], fl[1], fl[2], fl[3]
			a.Rank, a.SMILESIndex = ints[7], ints[8]
			s.Atoms = append(s.Atoms, a)
		case "B":
			if len(f) != 7 {
				return nil, bad(line)
			}
			var ints [6]int
			for k, col := range []int{1, 2, 4, 5, 6} {
				v, err := strconv.Atoi(f[col])
				if err != nil {
					return nil, bad(line)
				}
				ints[k] = v
			}
			order, err := strconv.ParseFloat(f[3], 64)
			if err != nil {
				return nil, bad(line)
			}
			s.Bonds = append(s.Bonds, StructureBond{Begin: ints[0], End: ints[1], Order: order,
				Kekule: ints[2], InRing: ints[3] != 0, Conjugated: ints[4] != 0})
		case "R":
			if len(f) != 2 {
				return nil, bad(line)
			}
			var ring []int
			for _, w := range strings.Fields(f[1]) {
				v, err := strconv.Atoi(w)
				if err != nil {
					return nil, bad(line)
				}
				ring = append(ring, v)
			}
			s.Rings = append(s.Rings, ring)
		default:
			return nil, bad(line)
		}
	}
	for _, b := range s.Bonds {
		if b.Begin < 0 || b.Begin >= len(s.Atoms) || b.End < 0 || b.End >= len(s.Atoms) {
			return nil, fmt.Errorf("chem: structure: bond %d-%d out of range", b.Begin, b.End)
		}
	}
	return s, nil
}

// Neighbors returns, for every atom, the indexes of its bonded atoms in
// bond order.
func (s *Structure) Neighbors() [][]int {
	nb := make([][]int, len(s.Atoms))
	for _, b := range s.Bonds {
		nb[b.Begin] = append(nb[b.Begin], b.End)
		nb[b.End] = append(nb[b.End], b.Begin)
	}
	return nb
}

// Bond returns the index in Bonds of the bond between atoms i and j, or -1.
func (s *Structure) Bond(i, j int) int {
	for k, b := range s.Bonds {
		if (b.Begin == i && b.End == j) || (b.Begin == j && b.End == i) {
			return k
		}
	}
	return -1
}
