// mg_posecheck.h: the C API of mg_posecheck.cpp, physical-validity checks
// of docked poses (PoseBusters' tests, written with RDKit's C++ API).
#ifndef MOLGRAPH_CHEM_MG_POSECHECK_H
#define MOLGRAPH_CHEM_MG_POSECHECK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// mg_posecheck_params are the tolerances and bounds of one mg_posecheck
// call (package chem fills them from its constants; see posecheck.go).
typedef struct {
  double bond_tol;     // bond lengths may leave the DG bounds by this fraction
  double angle_tol;    // 1-3 distances likewise
  double clash_ratio;  // other pairs: distance / DG lower bound at least this
  double flat_tol;     // Angstrom from the best plane (rings, double bonds)
  double protein_ratio;  // distance / (sum of vdW radii) at least this
  double protein_search;  // Angstrom: receptor atoms farther are skipped
  double energy_ratio_max;  // pose energy / ensemble mean at most this
  int conformers;      // relaxed conformers of the energy reference
  int uff_iters;       // UFF iterations per minimisation
  int embed_attempts;  // ETKDG attempts per conformer
  double ensemble_cpu_ms;  // no further conformer once the ensemble took this
  int seed;            // ETKDG seed
  int max_heavy_atoms; // refuse larger molecules (MG_POSECHECK_TOO_LARGE)
} mg_posecheck_params;

// Statuses of mg_posecheck.
enum {
  MG_POSECHECK_OK = 0,
  MG_POSECHECK_BAD_INPUT = 1,   // a pose or the SMILES does not parse
  MG_POSECHECK_TOO_LARGE = 2,   // more heavy atoms than max_heavy_atoms
  MG_POSECHECK_ERROR = -1       // anything else
};

// mg_pose_ref is the energy reference of one molecule: the mean UFF
// energy of its relaxed conformers, the denominator of energy_ratio.
typedef struct {
  int atoms;           // atoms of the molecule, hydrogens included (0: none)
  int uff_ok;          // UFF has parameters for every atom
  double mean_energy;  // NaN: no conformer embedded (or !uff_ok)
  double micros;       // CPU of building it (thread clock)
} mg_pose_ref;

// mg_pose_reference builds the energy reference of the molecule of the
// first SD record of sdf (read as mg_posecheck reads a pose; its
// coordinates are not used), so that it can be built before the poses
// exist and given to mg_posecheck. Statuses as mg_posecheck's; on any
// but MG_POSECHECK_OK *err says why (free it with mg_free). Never throws.
int mg_pose_reference(const char *sdf, size_t sdf_len,
                      const mg_posecheck_params *p, mg_pose_ref *ref,
                      char **err);

// mg_posecheck checks every pose of one ligand. sdf holds the poses, one
// SD record each (all atoms, hydrogens included, same atom order);
// smiles is the isomeric SMILES of the molecule that was docked (the
// reference of the stereochemistry check). receptor holds n_receptor heavy
// atoms of the receptor as (x, y, z, vdW radius) quadruples (n_receptor 0:
// no protein check). On MG_POSECHECK_OK *out is a table, one line per
// check of each pose, tab-separated:
//
//   C  pose  name  pass  value
//
// pose is the 0-based record number, pass 1, 0 or "-" (not computed),
// value a number or "-". On any other status *err says why. Free both
// with mg_free. ref, when not NULL and ref->atoms > 0, is the energy
// reference of the poses' molecule (mg_pose_reference; another atom count
// is MG_POSECHECK_BAD_INPUT); NULL: it is built here. Never throws.
int mg_posecheck(const char *smiles, size_t smiles_len, const char *sdf,
                 size_t sdf_len, const double *receptor, int n_receptor,
                 const mg_posecheck_params *p, const mg_pose_ref *ref,
                 char **out, char **err);

// mg_vdw_radius returns RDKit's van der Waals radius of an element
// (PeriodicTable::getRvdw), or a negative number for an unknown symbol.
double mg_vdw_radius(const char *symbol);

#ifdef __cplusplus
}
#endif

#endif
