package chem

// The cgo binding. Debian ships no pkg-config file for RDKit, so the flags
// are spelled out here. Editing any Go file of this package recompiles the
// C++ (~20 s): the C++ lives in mg_*.cpp behind the C API of mg.h.
//
// The binary is linked with jemalloc, which then serves every malloc and
// operator new of the process (RDKit's included; Go's own heap does not use
// malloc). RDKit allocates and frees small objects all the time (every
// molecule copy, query match and SMILES string): with glibc's malloc,
// allocation took 16% of the pipeline's CPU, and jemalloc makes the whole
// pipeline 19% faster (BenchmarkPipeline; tcmalloc measured the same).
// mg_allocator (mg_alloc.c) proves at run time that malloc is jemalloc's.
//
// Every C++ file is compiled with RDGeneral/RDConfig.h included first
// (-include): it defines RDK_BUILD_THREADSAFE_SSS and the other build
// options under which RDKit's headers declare different class layouts (a
// RecursiveStructureQuery has a mutex only with it). A file that saw the
// headers without it disagreed with the library and with the other files
// on where the members are (getQueryMol() read null).

/*
#cgo CXXFLAGS: -std=c++17 -O2 -I/usr/include/rdkit -include RDGeneral/RDConfig.h -Wno-deprecated-declarations
#cgo LDFLAGS: -lRDKitMolStandardize -lRDKitDescriptors -lRDKitDistGeomHelpers -lRDKitDistGeometry -lRDKitForceFieldHelpers -lRDKitForceField -lRDKitDepictor -lRDKitFileParsers -lRDKitSmilesParse -lRDKitSubstructMatch -lRDKitChemReactions -lRDKitChemTransforms -lRDKitGraphMol -lRDKitRDGeometryLib -lRDKitRDGeneral -linchi -lstdc++ -lm -ljemalloc
#include <stdlib.h>
#include "mg.h"
*/
import "C"

import (
	"errors"
	"sync/atomic"
	"time"
	"unsafe"
)

// worker is one C++ worker; it must only be used from the OS thread that
// created it.
type worker struct {
	w *C.mg_worker
}

func initRDKit() { C.mg_init() }

// Allocator names the C allocator in use, e.g. "jemalloc 5.3.0-0-g54eaed1d8b56...",
// and is "" unless malloc is jemalloc's: a 1 MiB malloc must show in
// jemalloc's count of the bytes this thread allocated.
func Allocator() string {
	var v *C.char // one cgo call: the malloc and both counts on one thread
	if C.mg_allocator(&v) != 0 {
		return ""
	}
	return "jemalloc " + C.GoString(v)
}

func newWorker() (*worker, error) {
	var cerr *C.char
	w := C.mg_worker_new(&cerr)
	if w == nil {
		msg := "unknown error"
		if cerr != nil {
			msg = C.GoString(cerr)
			C.mg_free(unsafe.Pointer(cerr))
		}
		return nil, errors.New("chem: create worker: " + msg)
	}
	return &worker{w: w}, nil
}

func (w *worker) free() {
	if w.w != nil {
		C.mg_worker_free(w.w)
		w.w = nil
	}
}

const (
	cSMILES   = C.MG_SMILES
	cMolBlock = C.MG_MOLBLOCK
	cInChI    = C.MG_INCHI
	cAtoms    = C.MG_ATOMS

	flagNoNormalize = C.MG_NO_NORMALIZE
	flagCoords2D    = C.MG_COORDS2D
	flagNoShortcuts = C.MG_NO_SHORTCUTS
	flagFingerprint = C.MG_FINGERPRINTS

	skippedRemoveHs  = C.MG_SKIPPED_REMOVEHS
	skippedReionize  = C.MG_SKIPPED_REIONIZE
	skippedUncharge  = C.MG_SKIPPED_UNCHARGE
	skippedNormalize = C.MG_SKIPPED_NORMALIZE
)

// raw is what the C++ pipeline returns, copied into Go memory.
type raw struct {
	err                                 string
	smiles, inchi, inchikey, formula    string
	mw, exactMass, logp, tpsa, qed      float64
	hbd, hba, rotb, heavy, arom, charge int
	issues, steps, removed              string
	molblock                            string
	shortcuts                           int // MG_SKIPPED_* bits
	timing                              Timing
	fp                                  *Fingerprints // MG_FINGERPRINTS (fingerprint.go)
	fpErr                               string
}

// process runs the C++ pipeline on text (SMILES, molfile or InChI) or on a
// pre-parsed PDBQT ligand.
func (w *worker) process(format int, text string, lig *pdbqtLigand, flags int) raw {
	var res C.mg_result
	var atoms *C.mg_atoms
	if lig != nil {
		atoms = lig.toC()
		defer freeAtoms(atoms)
	}
	ptr, n := borrow(text)
	C.mg_process(w.w, C.int(format), ptr, n, atoms, C.int(flags), &res)
	defer C.mg_result_free(&res)
	us := func(v C.double) time.Duration { return time.Duration(float64(v) * 1e3) }
	fp, fpErr := fingerprintsFromC(unsafe.Pointer(res.fp))
	return raw{
		fp:        fp,
		fpErr:     fpErr,
		err:       gostr(res.error),
		smiles:    gostr(res.smiles),
		inchi:     gostr(res.inchi),
		inchikey:  gostr(res.inchikey),
		formula:   gostr(res.formula),
		mw:        float64(res.mw),
		exactMass: float64(res.exact_mass),
		logp:      float64(res.logp),
		tpsa:      float64(res.tpsa),
		qed:       float64(res.qed),
		hbd:       int(res.hbd),
		hba:       int(res.hba),
		rotb:      int(res.rotb),
		heavy:     int(res.heavy_atoms),
		arom:      int(res.aromatic_rings),
		charge:    int(res.charge),
		issues:    gostr(res.issues),
		steps:     gostr(res.steps),
		removed:   gostr(res.removed),
		molblock:  gostr(res.molblock),
		shortcuts: int(res.shortcuts),
		timing: Timing{
			Parse:        us(res.us_parse),
			Normalize:    us(res.us_normalize),
			SMILES:       us(res.us_smiles),
			InChI:        us(res.us_inchi),
			Properties:   us(res.us_props),
			QED:          us(res.us_qed),
			Coordinates:  us(res.us_coords),
			Fingerprints: us(res.us_fp),
		},
	}
}

// embedParams bound one embedding (mg_embed_params).
type embedParams struct {
	MaxAttempts   int `json:"max_attempts"`
	MMFFMaxIters  int `json:"mmff_max_iters"`
	Seed          int `json:"seed"`
	MaxHeavyAtoms int `json:"max_heavy_atoms"`
}

// embedStatus is what mg_embed returns.
type embedStatus int

const (
	embedOK       embedStatus = 0
	embedNoCoords embedStatus = 1
	embedStopped  embedStatus = 2
	embedTooLarge embedStatus = 3
	embedError    embedStatus = -1
)

// embedded is an mg_embed result in Go memory; it is also the helper
// process's answer (JSON).
type embedded struct {
	Status    embedStatus `json:"status"`
	Error     string      `json:"error,omitempty"`
	Molblock  string      `json:"molblock,omitempty"`
	XYZ       string      `json:"xyz,omitempty"`
	Attempts  int         `json:"attempts"`
	MMFFIters int         `json:"mmff_iters"`
	MMFF      bool        `json:"mmff"`
	Converged bool        `json:"converged"`
}

// stopFlag is a C int that Go sets (atomically) to stop an mg_embed
// running on another thread. It lives in C memory, so C may read it while
// Go writes it.
type stopFlag struct{ p *C.int }

func newStopFlag() stopFlag {
	return stopFlag{(*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))}
}

func (f stopFlag) set()  { atomic.StoreInt32((*int32)(unsafe.Pointer(f.p)), 1) }
func (f stopFlag) free() { C.free(unsafe.Pointer(f.p)) }

// embed runs mg_embed on the calling thread. stop may be the zero
// stopFlag (no stopping).
func embed(smiles string, p embedParams, stop stopFlag) embedded {
	cp := C.mg_embed_params{max_attempts: C.int(p.MaxAttempts), mmff_max_iters: C.int(p.MMFFMaxIters),
		seed: C.int(p.Seed), max_heavy_atoms: C.int(p.MaxHeavyAtoms)}
	var res C.mg_embed_result
	ptr, n := borrow(smiles)
	rc := C.mg_embed(ptr, n, &cp, stop.p, &res)
	defer C.mg_embed_result_free(&res)
	return embedded{
		Status:    embedStatus(rc),
		Error:     gostr(res.error),
		Molblock:  gostr(res.molblock),
		XYZ:       gostr(res.xyz),
		Attempts:  int(res.attempts),
		MMFFIters: int(res.mmff_iters),
		MMFF:      res.mmff != 0,
		Converged: res.converged != 0,
	}
}

// checkScreens runs mg_check_screens on a SMILES: "" when the screened
// descriptors equal RDKit's, else what differs; ok is false if the SMILES
// does not parse. For tests.
func (w *worker) checkScreens(smiles string) (diff string, ok bool) {
	var report *C.char
	ptr, n := borrow(smiles)
	rc := C.mg_check_screens(w.w, ptr, n, &report)
	if report != nil {
		diff = C.GoString(report)
		C.mg_free(unsafe.Pointer(report))
	}
	return diff, rc >= 0
}

// gostr copies a C string into Go memory ("" for NULL). C.GoString already
// copies, so the result does not alias the C buffer freed afterwards.
func gostr(p *C.char) string { return C.GoString(p) }

// borrow passes the bytes of s to C without copying, as a pointer and a
// length (nil for ""): the C side only reads them during the call and
// copies them into a std::string, so no NUL terminator is needed.
func borrow(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	return (*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// toC copies the ligand into C memory (the struct holds pointers, so it
// cannot live in Go memory).
func (l *pdbqtLigand) toC() *C.mg_atoms {
	n := len(l.atoms)
	a := (*C.mg_atoms)(C.calloc(1, C.size_t(unsafe.Sizeof(C.mg_atoms{}))))
	a.n = C.int(n)
	if n > 0 {
		z := (*[1 << 28]C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0)))))[:n:n]
		idx := (*[1 << 28]C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0)))))[:n:n]
		xyz := (*[1 << 28]C.double)(C.calloc(C.size_t(3*n), C.size_t(unsafe.Sizeof(C.double(0)))))[: 3*n : 3*n]
		for i, at := range l.atoms {
			z[i] = C.int(at.atomicNum)
			idx[i] = C.int(at.templateIdx)
			xyz[3*i], xyz[3*i+1], xyz[3*i+2] = C.double(at.x), C.double(at.y), C.double(at.z)
		}
		a.atomic_num = &z[0]
		a.template_idx = &idx[0]
		a.xyz = &xyz[0]
	}
	if l.haveIdx {
		a.have_idx = 1
	}
	if l.template != "" {
		a.template_smiles = C.CString(l.template)
		a.template_len = C.size_t(len(l.template))
	}
	return a
}

func freeAtoms(a *C.mg_atoms) {
	C.free(unsafe.Pointer(a.atomic_num))
	C.free(unsafe.Pointer(a.template_idx))
	C.free(unsafe.Pointer(a.xyz))
	C.free(unsafe.Pointer(a.template_smiles))
	C.free(unsafe.Pointer(a))
}
