package chem

/*
#cgo LDFLAGS: -lRDKitSubstructMatch -lRDKitSmilesParse -lRDKitGraphMol
#include <stdlib.h>
#include "mg.h"
char *mg_protonate(const char *smiles, size_t len, double ph, int *charge, char **err);
*/
import "C"

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// IonizedSite is one acid or base site Protonate ionized: its class (e.g.
// "carboxylic acid", "tertiary amine"), the 0-based index of the atom that
// gained or lost the proton in the input SMILES, and its pKa as corrected
// by the model when it was ionized.
type IonizedSite struct {
	Class string  `json:"class"`
	Atom  int     `json:"atom"`
	PKa   float64 `json:"pka"`
}

// Protonation is the protonation state Protonate gives a molecule at a pH.
type Protonation struct {
	// SMILES is RDKit's canonical isomeric SMILES of the protonated form
	// (the input's when no site is ionized).
	SMILES string
	Charge int // net formal charge
	Sites  []IonizedSite
}

// Protonate returns the major protonation state at ph (in [0, 14]) of the
// neutral molecule smiles, by the site model of mg_protonate.cpp: acid and
// base sites found by SMARTS with literature pKa values (carboxylic,
// sulfonic, phosphoric acids, tetrazoles, acylsulfonamides, N-heteroaryl
// sulfonamides; aliphatic amines, amidines, guanidines, biguanides,
// imidazoles, pyridines, anilines, ...), amine pKa values corrected for
// electron-withdrawing atoms two and three bonds away, and the sites
// ionized one at a time, most favoured first, each new charge shifting the
// pKa of the others by a term that decays with the bonds between them. So
// imatinib gets one proton, on its N-methylpiperazine N (pKa 8.1; the
// other piperazine N, 3.7, and the aromatic N stay neutral), metformin one
// (not two), cetirizine is a zwitterion. Only neutral sites are changed; a
// protonated N that becomes a stereocentre is written in its first
// configuration. Written here because RDKit has no pKa model and the tools
// that have one (Dimorphite-DL, molscrub) are Python; Open Babel's `-p`
// model protonates both N of a piperazine.
func Protonate(smiles string, ph float64) (*Protonation, error) {
	if math.IsNaN(ph) || ph < 0 || ph > 14 {
		return nil, fmt.Errorf("chem: protonate: pH %v not in [0, 14]", ph)
	}
	if n := smilesHeavyAtoms(smiles); n > MaxHeavyAtoms {
		return nil, fmt.Errorf("chem: protonate: %d heavy atoms, limit %d", n, MaxHeavyAtoms)
	}
	cs, n := borrow(smiles)
	var cq C.int
	var cerr *C.char
	out := C.mg_protonate(cs, n, C.double(ph), &cq, &cerr)
	text, msg := gostr(out), gostr(cerr)
	C.mg_free(unsafe.Pointer(out))
	C.mg_free(unsafe.Pointer(cerr))
	if out == nil {
		return nil, fmt.Errorf("chem: protonate %q: %s", smiles, msg)
	}
	ls := lines(text)
	if len(ls) == 0 || ls[0] == "" {
		return nil, fmt.Errorf("chem: protonate %q: no SMILES", smiles)
	}
	p := &Protonation{SMILES: ls[0], Charge: int(cq)}
	for _, l := range ls[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			continue
		}
		atom, err1 := strconv.Atoi(f[1])
		pka, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("chem: protonate %q: bad site line %q", smiles, l)
		}
		p.Sites = append(p.Sites, IonizedSite{Class: f[0], Atom: atom, PKa: pka})
	}
	return p, nil
}
