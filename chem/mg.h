// mg.h: the small C API between package chem (Go) and RDKit/libinchi (C++).
//
// Every function catches all C++ exceptions; errors come back as strings.
// Every pointer returned here is owned by the caller and released with the
// matching mg_*_free function.
#ifndef MOLGRAPH_CHEM_MG_H
#define MOLGRAPH_CHEM_MG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Input formats.
enum {
  MG_SMILES = 1,
  MG_MOLBLOCK = 2,
  MG_INCHI = 3,
  MG_ATOMS = 4  // PDBQT ligand, pre-parsed by Go into an mg_atoms
};

// Flags.
enum {
  // 1 was MG_GEN3D: 3D coordinates are mg_embed's.
  MG_NO_NORMALIZE = 2, // skip cleanup/fragment/neutralize (benchmarks)
  MG_COORDS2D = 4,     // compute 2D coordinates (molblock)
  MG_NO_SHORTCUTS = 8,  // run every standardization step even where it
                        // cannot change the molecule (tests)
  MG_FINGERPRINTS = 16  // structure-search fingerprints and pickle of the
                        // molecule (mg_result.fp, mg_fp.h)
};

struct mg_fingerprints;  // mg_fp.h

// mg_atoms is a 3D ligand without bond orders (from a PDBQT file).
typedef struct {
  int n;
  const int *atomic_num;  // n
  const double *xyz;      // 3n
  const int *template_idx;  // n: 0-based index into template SMILES or -1
  int have_idx;            // template_idx was given by REMARK SMILES IDX
  const char *template_smiles;  // may be empty
  size_t template_len;
} mg_atoms;

typedef struct {
  char *error;  // non-NULL: invalid molecule, chemist-readable message
  char *smiles;
  char *inchi;
  char *inchikey;
  char *formula;
  double mw, exact_mass, logp, tpsa, qed;
  int hbd, hba, rotb, heavy_atoms, aromatic_rings, charge;
  char *issues;  // lines "level\tcode\tmessage\n"
  char *steps;   // lines "step\n"
  char *removed; // lines "fragment smiles\n"
  char *molblock;  // 2D, with MG_COORDS2D
  int shortcuts;   // MG_SKIPPED_* bits: standardization steps skipped
  // CPU microseconds per stage
  double us_parse, us_normalize, us_smiles, us_inchi, us_props, us_qed,
      us_coords;
  // With MG_FINGERPRINTS: the molecule's structure-search fingerprints
  // (freed by mg_result_free), and their CPU microseconds.
  struct mg_fingerprints *fp;
  double us_fp;
} mg_result;

// Bits of mg_result.shortcuts.
enum {
  MG_SKIPPED_REMOVEHS = 1,
  MG_SKIPPED_REIONIZE = 2,
  MG_SKIPPED_UNCHARGE = 4,
  MG_SKIPPED_NORMALIZE = 8
};

typedef struct mg_worker mg_worker;

// mg_init silences RDKit's global loggers; call once before any worker.
void mg_init(void);

// mg_worker_new builds the per-thread standardizers and SMARTS patterns.
// Returns NULL and sets *err (free with mg_free) on failure.
mg_worker *mg_worker_new(char **err);
void mg_worker_free(mg_worker *w);

// mg_process runs the pipeline. It returns 0 and fills *out (which may carry
// out->error for an invalid molecule); it never throws.
int mg_process(mg_worker *w, int format, const char *content, size_t len,
               const mg_atoms *atoms, int flags, mg_result *out);
void mg_result_free(mg_result *r);
void mg_free(void *p);

// mg_embed_params bound one mg_embed call.
typedef struct {
  int max_attempts;     // ETKDG attempts (EmbedParameters.maxIterations in all)
  int mmff_max_iters;   // MMFF94 iterations (MMFFOptimizeMolecule's maxIters)
  int seed;             // random seed of the first attempt
  int max_heavy_atoms;  // refuse (return 3) above this many; 0: no bound
                        // minimize call (BFGS restarts at every chunk)
} mg_embed_params;

typedef struct {
  char *error;     // set when mg_embed returns -1 or 3
  char *molblock;  // V2000, with hydrogens, 3D
  char *xyz;
  int attempts;    // ETKDG attempts made
  int mmff_iters;  // MMFF94 iterations run
  int mmff;        // 1: optimised with MMFF94; 0: no MMFF94 parameters
  int converged;   // MMFF94 converged within mmff_max_iters
} mg_embed_result;

// mg_embed adds hydrogens to the molecule of a SMILES and embeds it with
// ETKDGv3 (seed, seed+1, ... one attempt each) and MMFF94. *stop (may be
// NULL), set from another thread, is read between ETKDG attempts and MMFF
// chunks. Returns 0 embedded, 1 no coordinates in max_attempts, 2 stopped,
// 3 too many heavy atoms, -1 error (out->error). Free *out with
// mg_embed_result_free. Never throws.
int mg_embed(const char *smiles, size_t len, const mg_embed_params *p,
             const int *stop, mg_embed_result *out);
void mg_embed_result_free(mg_embed_result *r);

// mg_structure analyses a molfile that holds the molecule WITH hydrogens and
// 3D coordinates (explicit H in the atom block, or implicit H that are then
// added with coordinates). expect_smiles, when not empty, must equal the
// canonical SMILES of the molecule without hydrogens; otherwise *out is set
// to NULL and *err to "mismatch: ...". On success *out holds a text table
// (see chem/structure.go) and *err is NULL. Both are freed with mg_free.
// Never throws.
int mg_structure(const char *molblock, size_t len, const char *expect_smiles,
                 size_t expect_len, char **out, char **err);

// mg_check_screens checks, on the molecule of a SMILES and on it with
// explicit hydrogens, that no pattern screen of chem (mg_screen.cpp)
// skips a SMARTS that matches, and that the screened logP and the
// per-thread HBA and rotatable-bond counts equal RDKit's own
// calcCrippenDescriptors, calcNumHBA and calcNumRotatableBonds(Strict).
// Returns 1 and sets *report (free with mg_free) on a difference, -1 if
// the SMILES does not parse, 0 otherwise. For tests; never throws.
int mg_check_screens(mg_worker *w, const char *smiles, size_t len,
                     char **report);

// mg_allocator sets *version to jemalloc's version string (static, not to
// be freed) and returns 0 if malloc is jemalloc's: a malloc of 1 MiB shows
// in jemalloc's per-thread allocation counter. Returns -1 otherwise.
int mg_allocator(const char **version);

#ifdef __cplusplus
}
#endif

#endif
