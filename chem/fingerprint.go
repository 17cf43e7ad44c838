package chem

// Structure search (mg_fp.cpp): fingerprints of registered molecules,
// structure queries and substructure matching. RDKit's fingerprint and
// matching functions keep no per-thread state, so these run on the calling
// goroutine's thread; callers bound their concurrency (package search runs
// one matching goroutine per core).

/*
#cgo LDFLAGS: -lRDKitFingerprints -lRDKitSubstructMatch -lRDKitDataStructs
#include <stdlib.h>
#include "mg.h"
#include "mg_fp.h"
#include "mg_pattern.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// FPWords is the length of a fingerprint in 64-bit words (2048 bits).
const FPWords = 32

// FP is a 2048-bit fingerprint: bit i is bit i%64 of word i/64 (RDKit's
// ExplicitBitVect numbering).
type FP [FPWords]uint64

// Fingerprints are what structure search keeps of a registered molecule.
type Fingerprints struct {
	// Morgan is RDKit's Morgan fingerprint, radius 2, 2048 bits (Python:
	// AllChem.GetMorganFingerprintAsBitVect(m, 2, 2048)).
	Morgan FP
	// Pattern is RDKit's pattern fingerprint, 2048 bits
	// (Chem.PatternFingerprint(m, 2048)), the substructure screen.
	Pattern FP
	// Pickle is RDKit's binary pickle of the molecule, for matching
	// without parsing SMILES again.
	Pickle []byte
	// Reparsed: computed from the canonical SMILES parsed again, not from
	// the pipeline's molecule (Input.Fingerprints; see mg_fp.h).
	Reparsed bool
}

// fingerprintsFromC copies an mg_fingerprints (nil for none) into Go
// memory, or returns its error. It takes an unsafe.Pointer because the
// struct is complete only in this file's preamble.
func fingerprintsFromC(p unsafe.Pointer) (*Fingerprints, string) {
	c := (*C.mg_fingerprints)(p)
	if c == nil {
		return nil, ""
	}
	if c.error != nil {
		return nil, gostr(c.error)
	}
	f := &Fingerprints{Reparsed: c.reparsed != 0}
	copy(f.Morgan[:], unsafe.Slice((*uint64)(unsafe.Pointer(&c.morgan[0])), FPWords))
	copy(f.Pattern[:], unsafe.Slice((*uint64)(unsafe.Pointer(&c.pattern[0])), FPWords))
	f.Pickle = C.GoBytes(unsafe.Pointer(c.pickle), C.int(c.pickle_len))
	return f, ""
}

// patternEngines computes the pattern fingerprint of a SMILES by
// mg_pattern.cpp's walk (fast; ok false where it does not apply) and by
// RDKit's PatternFingerprintMol (for tests).
func patternEngines(smiles string) (fast, rdkit FP, ok bool, err error) {
	var cerr *C.char
	ptr, l := borrow(smiles)
	rc := C.mg_pattern_engines(ptr, l, (*C.uint64_t)(unsafe.Pointer(&fast[0])), (*C.uint64_t)(unsafe.Pointer(&rdkit[0])), &cerr)
	msg := gostr(cerr)
	C.mg_free(unsafe.Pointer(cerr))
	if rc < 0 {
		return fast, rdkit, false, errors.New(msg)
	}
	return fast, rdkit, rc == 0, nil
}

// MaxQueryBytes bounds the text of one structure query.
const MaxQueryBytes = 64 << 10

// MaxQueryNesting bounds how deeply the branches and recursive SMARTS of
// a SMILES or SMARTS query nest (open parentheses at once). RDKit's
// parsers took 1 s and 450 MiB to refuse 13,000 levels of $( in a 64 KiB
// query; a molecule of MaxHeavyAtoms atoms nests at most that deep.
const MaxQueryNesting = MaxHeavyAtoms

// MaxPathWork bounds how densely the atoms of a molecule or a query are
// bonded, before the chemistry whose cost grows with it (mg_guard.cpp):
// the work of enumerating the simple paths of up to 5 bonds (the sum of
// their end atoms' degrees). Over it: an invalid molecule or query.
const MaxPathWork = C.MG_MAX_PATH_WORK

// checkQueryText refuses a SMILES or SMARTS query that RDKit would read
// only in part or at great cost: a byte outside printable ASCII, or
// whitespace, inside it (RDKit stops at the first whitespace and reads
// the rest as a name, and skipped some non-ASCII bytes: a search answered
// the hits of the truncated query), or parentheses nested deeper than
// MaxQueryNesting.
func checkQueryText(text string, kind QueryKind) error {
	t := strings.TrimSpace(text)
	depth := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c < '!' || c > '~':
			r, _ := utf8.DecodeRuneInString(t[i:])
			return fmt.Errorf("%w: %s holds %q at byte %d: a query is printable ASCII without spaces", ErrInvalidQuery, kind, r, i)
		case c == '(':
			if depth++; depth > MaxQueryNesting {
				return fmt.Errorf("%w: %s nests parentheses more than %d deep", ErrInvalidQuery, kind, MaxQueryNesting)
			}
		case c == ')':
			depth--
		}
	}
	return nil
}

// ErrInvalidQuery is wrapped by every error for a structure query that
// does not parse.
var ErrInvalidQuery = errors.New("invalid structure query")

// FingerprintsOf computes the fingerprints of the molecule of a SMILES,
// parsed as RDKit's MolFromSmiles parses it (sanitized, not normalized):
// for a registered molecule, its canonical SMILES.
func FingerprintsOf(smiles string) (*Fingerprints, error) {
	if len(smiles) > MaxContentBytes {
		return nil, &MoleculeError{Format: FormatSMILES, Reason: "SMILES too long"}
	}
	if h := smilesHeavyAtoms(smiles); h > MaxHeavyAtoms {
		return nil, &MoleculeError{Format: FormatSMILES, Reason: fmt.Sprintf("%d heavy atoms, more than the %d a molecule may have", h, MaxHeavyAtoms)}
	}
	var f Fingerprints
	var pk, cerr *C.char
	var n C.size_t
	ptr, l := borrow(smiles)
	rc := C.mg_fp(ptr, l, (*C.uint64_t)(unsafe.Pointer(&f.Morgan[0])), (*C.uint64_t)(unsafe.Pointer(&f.Pattern[0])), &pk, &n, &cerr)
	msg := gostr(cerr)
	C.mg_free(unsafe.Pointer(cerr))
	if rc != 0 {
		return nil, &MoleculeError{Format: FormatSMILES, Reason: printable(msg)}
	}
	f.Pickle = C.GoBytes(unsafe.Pointer(pk), C.int(n))
	C.mg_free(unsafe.Pointer(pk))
	return &f, nil
}

// QueryKind is the language of a structure query.
type QueryKind int

// Query kinds.
const (
	QuerySMILES  QueryKind = C.MG_Q_SMILES
	QuerySMARTS  QueryKind = C.MG_Q_SMARTS
	QueryMolfile QueryKind = C.MG_Q_MOLBLOCK
)

func (k QueryKind) String() string {
	switch k {
	case QuerySMILES:
		return "SMILES"
	case QuerySMARTS:
		return "SMARTS"
	case QueryMolfile:
		return "molfile"
	}
	return "unknown"
}

// MatchOptions are PubChem-style options of a substructure query.
type MatchOptions struct {
	// Chirality: tetrahedral and double-bond stereo must match (RDKit's
	// useChirality).
	Chirality bool
	// IgnoreCharges: the formal charges written in a SMILES or molfile
	// query do not have to match (by default a charged query atom matches
	// only that charge; a neutral one any charge, as RDKit matches).
	IgnoreCharges bool
	// IgnoreIsotopes: likewise for isotopes.
	IgnoreIsotopes bool
}

func (o MatchOptions) flags() C.int {
	var f C.int
	if o.Chirality {
		f |= C.MG_Q_CHIRALITY
	}
	if o.IgnoreCharges {
		f |= C.MG_Q_NOCHARGES
	}
	if o.IgnoreIsotopes {
		f |= C.MG_Q_NOISOTOPES
	}
	return f
}

// Query is a parsed structure query: its text and kind, and its
// fingerprints. It holds no C++ state (each matching call parses its own
// copy), so it may be shared.
type Query struct {
	Text    string
	Kind    QueryKind
	Options MatchOptions
	// Pattern is the query's pattern fingerprint (the screen).
	Pattern FP
	// Morgan is the query molecule's Morgan fingerprint; valid when IsMol.
	Morgan FP
	// IsMol: the query is a molecule (SMILES, molfile), not SMARTS.
	IsMol bool
}

// ParseQuery parses a structure query. A query that does not parse is an
// error wrapping ErrInvalidQuery that says why.
func ParseQuery(text string, kind QueryKind, o MatchOptions) (*Query, error) {
	if len(text) > MaxQueryBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d a query may have", ErrInvalidQuery, len(text), MaxQueryBytes)
	}
	if text == "" {
		return nil, fmt.Errorf("%w: empty query", ErrInvalidQuery)
	}
	switch kind {
	case QuerySMILES, QuerySMARTS:
		if err := checkQueryText(text, kind); err != nil {
			return nil, err
		}
		if h := smilesHeavyAtoms(text); h > MaxHeavyAtoms {
			return nil, fmt.Errorf("%w: %d atoms, more than the %d a query may have", ErrInvalidQuery, h, MaxHeavyAtoms)
		}
	case QueryMolfile:
		if h := heavyAtomBound(FormatMolfile, text); h > MaxHeavyAtoms {
			return nil, fmt.Errorf("%w: %d atoms, more than the %d a query may have", ErrInvalidQuery, h, MaxHeavyAtoms)
		}
	default:
		return nil, fmt.Errorf("%w: unknown query kind %d", ErrInvalidQuery, kind)
	}
	q := &Query{Text: text, Kind: kind, Options: o}
	var isMol C.int
	var cerr *C.char
	ptr, n := borrow(text)
	rc := C.mg_query(ptr, n, C.int(kind), o.flags(), (*C.uint64_t)(unsafe.Pointer(&q.Morgan[0])), (*C.uint64_t)(unsafe.Pointer(&q.Pattern[0])), &isMol, &cerr)
	msg := gostr(cerr)
	C.mg_free(unsafe.Pointer(cerr))
	if rc != 0 {
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalidQuery, kind, printable(msg))
	}
	q.IsMol = isMol != 0
	return q, nil
}

// Matcher is a parsed query ready to match, for one goroutine at a time
// (its C++ side is one thread's copy of the query and remembers, across
// calls, how the query's atoms compare with the atom classes of a MolSet).
// A search makes one per worker and reuses it for every batch; Close frees
// it.
type Matcher struct {
	m *C.mg_matcher
}

// Matcher parses q for substructure matching, or with super for
// superstructure matching (q must be a molecule).
func (q *Query) Matcher(super bool) (*Matcher, error) {
	var cerr *C.char
	ptr, l := borrow(q.Text)
	m := C.mg_matcher_new(ptr, l, C.int(q.Kind), q.Options.flags(), C.int(boolInt(super)), &cerr)
	msg := gostr(cerr)
	C.mg_free(unsafe.Pointer(cerr))
	if m == nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidQuery, printable(msg))
	}
	return &Matcher{m: m}, nil
}

// Close frees the matcher.
func (m *Matcher) Close() {
	if m.m != nil {
		C.mg_matcher_free(m.m)
		m.m = nil
	}
}

// Match tests the pickled molecules mols (from Fingerprints.Pickle) and
// sets hit[i]: the query is a substructure of mols[i], or with super
// mols[i] a substructure of the query. Runs on the calling goroutine and
// cannot be interrupted: callers pass batches small enough to check their
// context in between.
func (m *Matcher) Match(mols [][]byte, hit []bool) error {
	n := len(mols)
	if n == 0 {
		return nil
	}
	p := packC(mols)
	defer p.free()
	var cerr *C.char
	rc := C.mg_match(m.m, p.buf, &p.offs[0], C.int(n), &p.out[0], nil, &cerr)
	msg := gostr(cerr)
	C.mg_free(unsafe.Pointer(cerr))
	if rc != 0 {
		return fmt.Errorf("%w: %s", ErrInvalidQuery, printable(msg))
	}
	for i := range hit[:n] {
		hit[i] = p.out[i] != 0
	}
	return nil
}

// MatchSet is Match on the molecules of set in the given slots (from
// MolSet.Add or MolSet.Slot): state[i] is 1 for a hit, 0 for none, 2 when
// the set has no such slot.
func (m *Matcher) MatchSet(set *MolSet, slots []int32, state []byte) error {
	n := len(slots)
	if n == 0 {
		return nil
	}
	state = state[:n]
	// Go memory without Go pointers: C may read and write it for the call
	var cerr *C.char
	rc := C.mg_molset_match(set.s, m.m, (*C.int32_t)(unsafe.Pointer(&slots[0])), C.int(n), (*C.uchar)(unsafe.Pointer(&state[0])), &cerr)
	msg := gostr(cerr)
	C.mg_free(unsafe.Pointer(cerr))
	if rc != 0 {
		return fmt.Errorf("%w: %s", ErrInvalidQuery, printable(msg))
	}
	return nil
}

// Match is Matcher.Match with a matcher made for the one call.
func (q *Query) Match(mols [][]byte, super bool, hit []bool) error {
	m, err := q.Matcher(super)
	if err != nil {
		return err
	}
	defer m.Close()
	return m.Match(mols, hit)
}

// cPacked is a list of byte strings copied into C memory for one call:
// buf holds them back to back, item i is buf[offs[i]:offs[i+1]], and out
// has one result byte per item.
type cPacked struct {
	buf  *C.char
	offs []C.size_t
	out  []C.uchar
}

// packC copies items into C memory (cgo may not pass Go memory holding Go
// pointers, and the C side reads the items as one buffer); free releases it.
func packC[T ~string | ~[]byte](items []T) cPacked {
	n := len(items)
	total := 0
	for _, it := range items {
		total += len(it)
	}
	buf := C.malloc(C.size_t(total + 1))
	offs := (*[1 << 28]C.size_t)(C.malloc(C.size_t(n+1) * C.size_t(unsafe.Sizeof(C.size_t(0)))))[: n+1 : n+1]
	out := (*[1 << 28]C.uchar)(C.malloc(C.size_t(n + 1)))[:n:n]
	b := (*[1 << 34]byte)(buf)[:total:total]
	off := 0
	for i, it := range items {
		offs[i] = C.size_t(off)
		off += copy(b[off:], it)
	}
	offs[n] = C.size_t(off)
	return cPacked{buf: (*C.char)(buf), offs: offs, out: out}
}

func (p cPacked) free() {
	C.free(unsafe.Pointer(p.buf))
	C.free(unsafe.Pointer(&p.offs[0]))
	C.free(unsafe.Pointer(unsafe.SliceData(p.out)))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MolSet holds molecules in memory by id (C++ RDKit molecules made from
// Fingerprints.Pickle), so that Matcher.MatchSet matches them without
// unpickling, at most a fixed number of them. It is safe for concurrent
// use; Close frees it.
type MolSet struct {
	s *C.mg_molset
}

// NewMolSet returns a set of at most max molecules.
func NewMolSet(max int) *MolSet {
	return &MolSet{s: C.mg_molset_new(C.int(max))}
}

// Close frees the molecules.
func (m *MolSet) Close() {
	if m.s != nil {
		C.mg_molset_free(m.s)
		m.s = nil
	}
}

// Len returns the number of molecules held.
func (m *MolSet) Len() int { return int(C.mg_molset_len(m.s)) }

// Add adds the pickled molecule id and returns its slot (the present one
// if the set holds id already); -1 if the set is full or the pickle is
// unreadable.
func (m *MolSet) Add(id string, pickle []byte) int32 {
	if len(pickle) == 0 {
		return -1
	}
	ip, il := borrow(id)
	rc := C.mg_molset_add(m.s, ip, il, (*C.char)(unsafe.Pointer(&pickle[0])), C.size_t(len(pickle)))
	return int32(max(rc, -1))
}

// Slot returns the slot of molecule id, -1 if the set does not hold it.
func (m *MolSet) Slot(id string) int32 {
	ip, il := borrow(id)
	return int32(C.mg_molset_slot(m.s, ip, il))
}
