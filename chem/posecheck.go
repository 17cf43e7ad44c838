package chem

/*
#cgo LDFLAGS: -lRDKitDistGeomHelpers -lRDKitDistGeometry -lRDKitForceFieldHelpers -lRDKitForceField -lRDKitSubstructMatch -lRDKitSmilesParse -lRDKitFileParsers
#include <stdlib.h>
#include "mg.h"
#include "mg_posecheck.h"
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

// Pose checks: the physical-validity tests of PoseBusters (Buttenschoen,
// Morris & Deane, Chem. Sci. 2024, 15, 3130; Table 4 of the paper and the
// package's docking configuration), run with RDKit on every docked pose.
// The names are the keys of the result JSON and, camel-cased, of the graph
// terms (ontology.PoseCheckTerms).
const (
	CheckBondLengths          = "bond_lengths"
	CheckBondAngles           = "bond_angles"
	CheckInternalClash        = "internal_clash"
	CheckAromaticRingFlatness = "aromatic_ring_flatness"
	CheckDoubleBondFlatness   = "double_bond_flatness"
	CheckStereo               = "stereo_inchikey"
	CheckProteinClash         = "protein_clash"
	CheckEnergyRatio          = "energy_ratio"
)

// Tolerances and bounds of the pose checks.
const (
	// PoseBondTolerance: a bond length may leave RDKit's distance-geometry
	// bounds by this fraction of the bound it crosses (PoseBusters, paper:
	// within 0.75 of the lower and 1.25 of the upper bound).
	PoseBondTolerance = 0.25
	// PoseAngleTolerance: the same for 1-3 distances (bond angles).
	PoseAngleTolerance = 0.25
	// PoseClashRatio: every other heavy-atom pair stays at 0.7 of its DG
	// lower bound or more (PoseBusters' internal steric clash).
	PoseClashRatio = 0.7
	// PoseFlatnessTolerance: atoms of 5- and 6-membered aromatic rings,
	// and of C=C double bonds with their substituents, within 0.25 A of
	// their best plane (PoseBusters).
	PoseFlatnessTolerance = 0.25
	// PoseProteinRatio: every ligand-receptor heavy-atom distance is at
	// least 0.75 of the sum of the two van der Waals radii (PoseBusters'
	// minimum protein-ligand distance).
	PoseProteinRatio = 0.75
	// PoseProteinSearch: receptor atoms farther than this (A) from a
	// ligand atom cannot clash and are skipped (PoseBusters' search
	// distance).
	PoseProteinSearch = 6.0
	// PoseEnergyRatio: the pose's UFF energy is at most 7 times the mean
	// energy of relaxed conformers (PoseBusters' docking configuration;
	// the paper's first version used 100).
	PoseEnergyRatio = 7.0
	// PoseConformers is the size of the energy reference ensemble.
	// PoseBusters relaxes 50 conformers; 10 give the mean within a few
	// per cent for drug-like ligands at a fifth of the cost (the checks
	// must stay a small part of a docking run).
	PoseConformers = 10
	// PoseUFFIterations bounds each UFF minimisation (the paper's 200).
	PoseUFFIterations = 200
	// PoseEmbedAttempts bounds the ETKDG attempts of one conformer.
	PoseEmbedAttempts = 20
	// PoseEnsembleCPUMillis: no further conformer is embedded once the
	// ensemble has used this much CPU (at least one always is).
	PoseEnsembleCPUMillis = 3000
	// PoseEmbedSeed is the ETKDG seed of the first conformer (then +1 per
	// conformer): reproducible references.
	PoseEmbedSeed = 42
	// MaxPoseCheckHeavyAtoms: larger ligands are not checked
	// (ErrTooLargeForPoseCheck). It is the default 3D budget
	// (DefaultMax3DHeavyAtoms): the checks embed conformers too, and the
	// bounds matrix grows with the cube of the atom count.
	MaxPoseCheckHeavyAtoms = DefaultMax3DHeavyAtoms
	// MaxPoseCheckPoses bounds the poses of one call (Vina writes at most
	// 20 modes per ligand).
	MaxPoseCheckPoses = 64
)

// PoseCheckSpec describes one check: its threshold, and whether the
// measured value must be at most ("max") or at least ("min") the
// threshold; Limit "" is a check with no numeric value (stereo).
type PoseCheckSpec struct {
	Name      string
	Threshold float64
	Limit     string
	Unit      string
	About     string
}

// PoseCheckSpecs returns the checks in the order they are reported.
func PoseCheckSpecs() []PoseCheckSpec {
	return []PoseCheckSpec{
		{CheckBondLengths, PoseBondTolerance, "max", "fraction", "largest relative excursion of a heavy-atom bond length outside RDKit's distance-geometry bounds"},
		{CheckBondAngles, PoseAngleTolerance, "max", "fraction", "largest relative excursion of a 1-3 heavy-atom distance (bond angle) outside the DG bounds"},
		{CheckInternalClash, PoseClashRatio, "min", "ratio", "smallest distance / DG lower bound over the other heavy-atom pairs"},
		{CheckAromaticRingFlatness, PoseFlatnessTolerance, "max", "angstrom", "largest distance of an atom of a 5- or 6-membered aromatic ring from the ring's plane"},
		{CheckDoubleBondFlatness, PoseFlatnessTolerance, "max", "angstrom", "largest distance of a C=C atom or substituent from its plane"},
		{CheckStereo, 0, "", "", "the pose's InChIKey (stereo from its 3D coordinates) equals the docked molecule's"},
		{CheckProteinClash, PoseProteinRatio, "min", "ratio", "smallest ligand-receptor heavy-atom distance / sum of their van der Waals radii"},
		{CheckEnergyRatio, PoseEnergyRatio, "max", "ratio", "UFF energy of the pose (hydrogens relaxed) / mean UFF energy of relaxed ETKDG conformers"},
	}
}

// PoseCheck is the outcome of one check on one pose. Pass and Value are
// nil when the check could not be computed (Value also for the stereo
// check, which has no numeric value, and for a flatness check of a pose
// with nothing to check).
type PoseCheck struct {
	Name  string   `json:"name"`
	Pass  *bool    `json:"pass"`
	Value *float64 `json:"value"`
}

// PoseValid is true when every check was computed and passed.
func PoseValid(checks []PoseCheck) bool {
	if len(checks) == 0 {
		return false
	}
	for _, c := range checks {
		if c.Pass == nil || !*c.Pass {
			return false
		}
	}
	return true
}

// PoseCheckReport is the outcome of CheckPoses: the checks of every pose
// (in input order), notes on checks not computed, and the CPU time of the
// call's parts in microseconds (setup: parsing, bounds, patterns;
// ensemble: the conformers of the energy reference; poses: the per-pose
// work).
type PoseCheckReport struct {
	Poses                                    [][]PoseCheck
	Notes                                    map[string]string
	SetupMicros, EnsembleMicros, PosesMicros float64
}

// ReceptorAtom is a receptor heavy atom for the protein clash check: its
// position and van der Waals radius (VdWRadius). The layout is four
// float64s, passed to C as is.
type ReceptorAtom struct{ X, Y, Z, Radius float64 }

// VdWRadius returns RDKit's van der Waals radius (A) of an element symbol.
func VdWRadius(symbol string) (float64, bool) {
	if symbol == "" || len(symbol) > 3 {
		return 0, false
	}
	cs := C.CString(symbol)
	defer C.free(unsafe.Pointer(cs))
	r := float64(C.mg_vdw_radius(cs))
	return r, r > 0
}

// Errors of CheckPoses.
var (
	// ErrPoseCheckInput: a pose or the SMILES does not parse, or the poses
	// are not one molecule.
	ErrPoseCheckInput = errors.New("invalid pose check input")
	// ErrTooLargeForPoseCheck: the ligand has more than
	// MaxPoseCheckHeavyAtoms heavy atoms; nothing was computed.
	ErrTooLargeForPoseCheck = errors.New("too large for pose checks")
)

// PoseReference is the energy reference of one molecule's pose checks:
// the mean UFF energy of PoseConformers relaxed conformers, the
// denominator of energy_ratio. It depends on the molecule only, so it can
// be built while the molecule docks (Pool.PoseReference) and given to
// CheckPoses, which otherwise builds it itself.
type PoseReference struct {
	ref C.mg_pose_ref
}

// Micros is the CPU the reference took to build (thread clock).
func (r *PoseReference) Micros() float64 { return float64(r.ref.micros) }

// PoseReference builds the energy reference of the molecule of sdf's
// first record (a molblock of the molecule that will be docked, with all
// its hydrogens, in the atom order of its poses; its coordinates are not
// used). Errors as CheckPoses's.
func (p *Pool) PoseReference(ctx context.Context, sdf []byte) (*PoseReference, error) {
	r := &PoseReference{}
	var msg string
	var rc C.int
	err := p.call(ctx, func() {
		params := poseCheckParams()
		cd, nd := borrow(string(sdf))
		var cerr *C.char
		rc = C.mg_pose_reference(cd, nd, &params, &r.ref, &cerr)
		msg = gostr(cerr)
		C.mg_free(unsafe.Pointer(cerr))
	})
	if err != nil {
		return nil, err
	}
	if err := poseCheckStatus(rc, msg); err != nil {
		return nil, err
	}
	return r, nil
}

// CheckPoses runs the pose checks on the poses of one ligand: sdf holds
// them as SD records (all hydrogens, one atom order), smiles is the
// isomeric SMILES of the molecule that was docked (the stereo reference),
// receptor the receptor's heavy atoms (none: the protein check is not
// computed), ref the molecule's energy reference (nil: built here). It
// runs on a worker thread of the pool; ctx bounds the wait for a worker
// (the checks themselves are bounded by MaxPoseCheckHeavyAtoms,
// PoseConformers, PoseUFFIterations and PoseEnsembleCPUMillis).
func (p *Pool) CheckPoses(ctx context.Context, smiles string, sdf []byte, receptor []ReceptorAtom, ref *PoseReference) (*PoseCheckReport, error) {
	if n := strings.Count(string(sdf), "$$$$"); n > MaxPoseCheckPoses {
		return nil, fmt.Errorf("chem: pose checks: %w: %d poses, more than %d", ErrPoseCheckInput, n, MaxPoseCheckPoses)
	}
	var text, msg string
	var rc C.int
	err := p.call(ctx, func() { text, msg, rc = checkPoses(smiles, string(sdf), receptor, ref) })
	if err != nil {
		return nil, err
	}
	if err := poseCheckStatus(rc, msg); err != nil {
		return nil, err
	}
	return parsePoseChecks(text)
}

// poseCheckStatus maps a status of mg_posecheck or mg_pose_reference.
func poseCheckStatus(rc C.int, msg string) error {
	switch rc {
	case C.MG_POSECHECK_OK:
		return nil
	case C.MG_POSECHECK_BAD_INPUT:
		return fmt.Errorf("chem: pose checks: %w: %s", ErrPoseCheckInput, msg)
	case C.MG_POSECHECK_TOO_LARGE:
		return fmt.Errorf("chem: pose checks: %w: %s", ErrTooLargeForPoseCheck, msg)
	default:
		return fmt.Errorf("chem: pose checks: %s", msg)
	}
}

// poseCheckParams are the package's constants as mg_posecheck takes them.
func poseCheckParams() C.mg_posecheck_params {
	return C.mg_posecheck_params{
		bond_tol: PoseBondTolerance, angle_tol: PoseAngleTolerance, clash_ratio: PoseClashRatio,
		flat_tol: PoseFlatnessTolerance, protein_ratio: PoseProteinRatio, protein_search: PoseProteinSearch,
		energy_ratio_max: PoseEnergyRatio, conformers: PoseConformers, uff_iters: PoseUFFIterations,
		embed_attempts: PoseEmbedAttempts, ensemble_cpu_ms: PoseEnsembleCPUMillis, seed: PoseEmbedSeed,
		max_heavy_atoms: MaxPoseCheckHeavyAtoms,
	}
}

func checkPoses(smiles, sdf string, receptor []ReceptorAtom, ref *PoseReference) (string, string, C.int) {
	params := poseCheckParams()
	cs, ns := borrow(smiles)
	cd, nd := borrow(sdf)
	var rec *C.double
	if len(receptor) > 0 {
		// ReceptorAtom is four float64s: the slice is the packed
		// (x, y, z, r) array C reads; it holds no Go pointers.
		rec = (*C.double)(unsafe.Pointer(&receptor[0]))
	}
	var cref *C.mg_pose_ref
	if ref != nil {
		cref = &ref.ref // plain C numbers, no Go pointers
	}
	var out, cerr *C.char
	rc := C.mg_posecheck(cs, ns, cd, nd, rec, C.int(len(receptor)), &params, cref, &out, &cerr)
	text, msg := gostr(out), gostr(cerr)
	C.mg_free(unsafe.Pointer(out))
	C.mg_free(unsafe.Pointer(cerr))
	return text, msg, rc
}

// parsePoseChecks reads the table mg_posecheck writes:
//
//	C pose name pass value   (pass 1, 0 or -; value a number or -)
//	T stage microseconds
//	N check note
func parsePoseChecks(text string) (*PoseCheckReport, error) {
	r := &PoseCheckReport{Notes: map[string]string{}}
	bad := func(line string) (*PoseCheckReport, error) {
		return nil, fmt.Errorf("chem: pose checks: malformed line %q", line)
	}
	for _, line := range lines(text) {
		f := strings.Split(line, "\t")
		switch {
		case f[0] == "C" && len(f) == 5:
			k, err := strconv.Atoi(f[1])
			if err != nil || k < 0 || k > len(r.Poses) || k >= MaxPoseCheckPoses {
				return bad(line)
			}
			if k == len(r.Poses) {
				r.Poses = append(r.Poses, nil)
			}
			c := PoseCheck{Name: f[2]}
			switch f[3] {
			case "1", "0":
				v := f[3] == "1"
				c.Pass = &v
			case "-":
			default:
				return bad(line)
			}
			if f[4] != "-" {
				v, err := strconv.ParseFloat(f[4], 64)
				if err != nil {
					return bad(line)
				}
				c.Value = &v
			}
			r.Poses[k] = append(r.Poses[k], c)
		case f[0] == "T" && len(f) == 3:
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return bad(line)
			}
			switch f[1] {
			case "setup":
				r.SetupMicros = v
			case "ensemble":
				r.EnsembleMicros = v
			case "poses":
				r.PosesMicros = v
			}
		case f[0] == "N" && len(f) == 3:
			r.Notes[f[1]] = f[2]
		default:
			return bad(line)
		}
	}
	return r, nil
}
