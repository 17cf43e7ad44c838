package chem

/*
#cgo LDFLAGS: -lRDKitSubstructMatch -lRDKitSmilesParse -lRDKitFileParsers -lRDKitGraphMol
#include <stdlib.h>
#include "mg.h"
char *mg_interaction_features(const char *block, size_t len, char **err);
*/
import "C"

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// InteractionFeatures is the chemistry of a ligand that protein-ligand
// interaction detection needs (package docking/interact), perceived by
// RDKit on a Structure (mg_interact.cpp: sanitization, aromaticity, ring
// info and SMARTS). Atom indexes are positions in Structure.Atoms; the
// per-atom slices have one entry per atom.
type InteractionFeatures struct {
	Donor        []bool // N or O carrying a hydrogen
	Acceptor     []bool // O (not cationic), N with a free lone pair
	Hydrophobic  []bool // carbon bonded only to carbon and hydrogen
	HalogenDonor []bool // F, Cl, Br, I bonded to carbon
	MetalBinder  []bool // alcohol/phenol/carboxylate/phosphoryl O, thiol S, azole N
	// AromaticRings are the aromatic rings of RDKit's SSSR (5 to 7 atoms).
	AromaticRings [][]int
	// Charged are the charged (or chargeable) groups; a group's centre is
	// the centroid of its atoms.
	Charged []ChargedGroup
}

// ChargedGroup is a positive or negative group of a ligand.
type ChargedGroup struct {
	Positive bool
	Kind     string // e.g. "ammonium", "tertiary amine", "carboxylate"
	Atoms    []int
}

// Interaction features work on a molblock written from the Structure
// (Structure.Molblock), so they are bounded by the V2000 format.
const maxFeatureAtoms = MaxMolblockAtoms

// Features perceives the interaction features of s (every hydrogen
// explicit, as Structure gives it). The topology alone decides them, so
// one call serves every pose of the molecule.
func Features(s *Structure) (*InteractionFeatures, error) {
	if s == nil || len(s.Atoms) == 0 {
		return nil, errors.New("chem: interaction features: empty structure")
	}
	if len(s.Atoms) > maxFeatureAtoms || len(s.Bonds) > maxFeatureAtoms {
		return nil, fmt.Errorf("chem: interaction features: more than %d atoms or bonds", maxFeatureAtoms)
	}
	mb, err := s.Molblock("", s.topologyCoords())
	if err != nil {
		return nil, fmt.Errorf("chem: interaction features: %w", err)
	}
	cb, nb := borrow(string(mb))
	var cerr *C.char
	out := C.mg_interaction_features(cb, nb, &cerr)
	text, msg := gostr(out), gostr(cerr)
	C.mg_free(unsafe.Pointer(out))
	C.mg_free(unsafe.Pointer(cerr))
	if out == nil {
		return nil, fmt.Errorf("chem: interaction features of %s: %s", s.SMILES, msg)
	}
	return parseFeatures(text, len(s.Atoms))
}

// parseFeatures reads mg_interaction_features' table, tab-separated:
//
//	N atoms
//	D|A|H|X|M atom atom ...    donors, acceptors, hydrophobic, halogen donors, metal binders
//	R atom atom ...            an aromatic ring
//	G P|N kind atom atom ...   a charged group
func parseFeatures(text string, n int) (*InteractionFeatures, error) {
	f := &InteractionFeatures{Donor: make([]bool, n), Acceptor: make([]bool, n), Hydrophobic: make([]bool, n),
		HalogenDonor: make([]bool, n), MetalBinder: make([]bool, n)}
	bad := func(line string) (*InteractionFeatures, error) {
		return nil, fmt.Errorf("chem: interaction features: malformed line %q", line)
	}
	ints := func(fs []string) ([]int, bool) {
		out := make([]int, len(fs))
		for i, s := range fs {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v >= n {
				return nil, false
			}
			out[i] = v
		}
		return out, len(out) > 0
	}
	for _, line := range lines(text) {
		fs := strings.Split(line, "\t")
		switch fs[0] {
		case "N":
			if len(fs) != 2 || fs[1] != strconv.Itoa(n) {
				return nil, fmt.Errorf("chem: interaction features: %q atoms, want %d", line, n)
			}
		case "D", "A", "H", "X", "M":
			idx, ok := ints(fs[1:])
			if !ok {
				return bad(line)
			}
			dst := map[string][]bool{"D": f.Donor, "A": f.Acceptor, "H": f.Hydrophobic, "X": f.HalogenDonor, "M": f.MetalBinder}[fs[0]]
			for _, i := range idx {
				dst[i] = true
			}
		case "R":
			idx, ok := ints(fs[1:])
			if !ok {
				return bad(line)
			}
			f.AromaticRings = append(f.AromaticRings, idx)
		case "G":
			if len(fs) < 4 || (fs[1] != "P" && fs[1] != "N") {
				return bad(line)
			}
			idx, ok := ints(fs[3:])
			if !ok {
				return bad(line)
			}
			f.Charged = append(f.Charged, ChargedGroup{Positive: fs[1] == "P", Kind: fs[2], Atoms: idx})
		default:
			return bad(line)
		}
	}
	return f, nil
}
