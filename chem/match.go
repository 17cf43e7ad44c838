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
#include "mg_fp.h"
#include "mg_match.h"
*/
import "C"

import (
	"fmt"
	"math/bits"
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

// Summary is what a MolSet knows of a held molecule for the search
// index's screen (mg::Summary in mg_match.h): counts of its atoms by kind
// (element, aromatic, on a cycle; 4 bits each, saturated at 15), bits
// for the kinds of its bonds between atoms that are not both carbons, and
// bit L for each length L of a simple cycle of its graph (63 for 63 or
// more). UnknownSummary (all ones) passes every Need.
type Summary [SummaryWords]uint64

// SummaryWords is the length of a Summary.
const SummaryWords = 3

const unknownWord = ^uint64(0)

// UnknownSummary returns the Summary that passes every Need.
func UnknownSummary() Summary { return Summary{unknownWord, unknownWord, unknownWord} }

// Summary returns the Summary of the molecule in slot (UnknownSummary if
// the set holds none there).
func (m *MolSet) Summary(slot int32) Summary {
	var out [SummaryWords]C.uint64_t
	C.mg_molset_summary(m.s, C.int32_t(slot), &out[0])
	return Summary{uint64(out[0]), uint64(out[1]), uint64(out[2])}
}

// Need is what a molecule must have, as its Summary tells, to contain a
// query: at least so many atoms of some kinds, one bond of some bond
// kinds, simple cycles of some lengths. A screen before matching: a
// molecule that fails it has no match.
type Need struct {
	atoms  []uint64 // kind mask | count << 16
	bonds  []uint64 // bond bits, one of which must be set
	cycles uint64   // cycle lengths, all of which must be present
}

// needWords bounds the requirements taken from one query (more are left
// out: the screen is then weaker, never wrong).
const needWords = 128

// Need returns the requirements of m's query over the molecules of set,
// nil when there are none (a superstructure query, or one mg::Matcher
// cannot take). The requirements hold for the molecules set holds when
// Need is called (they read its atom classes).
func (m *Matcher) Need(set *MolSet) *Need {
	var out [needWords]C.uint64_t
	w := int(C.mg_molset_need(set.s, m.m, &out[0], needWords))
	if w < 3 {
		return nil
	}
	words := make([]uint64, w)
	for i := range words {
		words[i] = uint64(out[i])
	}
	k := int(words[0])
	n := &Need{atoms: words[1 : 1+k]}
	b := int(words[1+k])
	n.bonds = words[2+k : 2+k+b]
	if len(words) > 2+k+b {
		n.cycles = words[2+k+b]
	}
	if len(n.atoms)+len(n.bonds) == 0 && n.cycles == 0 {
		return nil
	}
	return n
}

// Pass reports whether a molecule with Summary s may contain the query.
func (n *Need) Pass(s Summary) bool {
	if s[2]&n.cycles != n.cycles {
		return false
	}
	for _, b := range n.bonds {
		if s[1]&b == 0 {
			return false
		}
	}
	for _, a := range n.atoms {
		sum := uint64(0)
		for m := a & 0xffff; m != 0; m &= m - 1 {
			sum += s[0] >> (4 * uint(bits.TrailingZeros64(m))) & 15
		}
		if sum < a>>16 {
			return false
		}
	}
	return true
}
