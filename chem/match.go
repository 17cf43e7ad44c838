package chem

// Substructure matching with early exit (mg_match.cpp): Matcher.Match and
// Matcher.MatchSet run mg::Matcher, RDKit's own atom and bond comparisons
// under a graph walk that stops at the first match, and fall back to
// RDKit's SubstructMatch for what it cannot take (recursive SMARTS,
// chirality, superstructure). matchEngines runs both for the tests.

/*
#cgo LDFLAGS: -lRDKitSubstructMatch
#include <stdlib.h>
#include "mg.h"
#include "mg_match.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// matchEngines tests the pickled molecules mols against q (substructure)
// with both matchers: fast[i] is mg::Matcher's answer (0, 1, or 2 when it
// cannot take the query), rdkit[i] RDKit's SubstructMatch's.
func (q *Query) matchEngines(mols [][]byte) (fast, rdkit []byte, err error) {
	n := len(mols)
	if n == 0 {
		return nil, nil, nil
	}
	p := packC(mols)
	defer p.free()
	r := (*[1 << 28]C.uchar)(C.malloc(C.size_t(n)))[:n:n]
	defer C.free(unsafe.Pointer(&r[0]))
	var cerr *C.char
	ptr, l := borrow(q.Text)
	rc := C.mg_match_engines(ptr, l, C.int(q.Kind), q.Options.flags(), p.buf, &p.offs[0], C.int(n), &p.out[0], &r[0], &cerr)
	msg := gostr(cerr)
	C.mg_free(unsafe.Pointer(cerr))
	if rc != 0 {
		return nil, nil, fmt.Errorf("%w: %s", ErrInvalidQuery, printable(msg))
	}
	fast, rdkit = make([]byte, n), make([]byte, n)
	for i := range n {
		fast[i], rdkit[i] = byte(p.out[i]), byte(r[i])
	}
	return fast, rdkit, nil
}
