package chem

/*
#cgo LDFLAGS: -lRDKitSmilesParse -lRDKitGraphMol
#include <stdlib.h>
#include "mg.h"
char *mg_stereoisomers(const char *smiles, size_t len, int max, int *total, char **err);
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// MaxStereoisomers caps the stereoisomers Stereoisomers returns (and so the
// isomers docked per ligand): a molecule with n unspecified stereocentres or
// double bonds has up to 2^n, and the first 8 of RDKit's enumeration order
// are kept.
const MaxStereoisomers = 8

// Stereoisomers returns RDKit's canonical isomeric SMILES of the
// stereoisomers of smiles, at most max of them: every unspecified
// tetrahedral centre and double bond (RDKit findPotentialStereo) is assigned
// both ways; specified stereo is kept. A molecule with nothing unspecified
// gives itself. total is the number of assignments before the cap (2^n).
// At most 8 * max assignments are tried (in order): where they collapse
// into few distinct isomers (symmetric cages) fewer than max come back,
// instead of a search through all 2^n.
// RDKit 2022.09 has EnumerateStereoisomers in Python only, hence the C++
// in mg_stereo.cpp.
func Stereoisomers(smiles string, max int) (isomers []string, total int, err error) {
	if max < 1 {
		return nil, 0, errors.New("chem: stereoisomers: max < 1")
	}
	cs, n := borrow(smiles)
	var ct C.int
	var cerr *C.char
	out := C.mg_stereoisomers(cs, n, C.int(max), &ct, &cerr)
	text, msg := gostr(out), gostr(cerr)
	C.mg_free(unsafe.Pointer(out))
	C.mg_free(unsafe.Pointer(cerr))
	if out == nil {
		return nil, 0, fmt.Errorf("chem: stereoisomers of %q: %s", smiles, msg)
	}
	return lines(text), int(ct), nil
}
