// mg_depict.h: the C API of mg_depict.cpp, 2D depictions as SVG (RDKit's
// MolDraw2DSVG) with an optional highlighted substructure.
#ifndef MOLGRAPH_CHEM_MG_DEPICT_H
#define MOLGRAPH_CHEM_MG_DEPICT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// mg_depict_params bound one mg_depict call.
typedef struct {
  int width, height;     // pixels of the SVG canvas
  int max_heavy_atoms;   // refuse (MG_DEPICT_TOO_LARGE) above this many
  long match_steps;      // atom comparisons the highlight match may make
} mg_depict_params;

typedef struct {
  char *svg;    // the SVG document (MG_DEPICT_OK)
  char *error;  // why not (any other status)
  char *atoms;  // highlighted atom indexes, space-separated ("" for none)
  char *bonds;  // highlighted bond indexes, space-separated
  int heavy_atoms;
} mg_depict_result;

// Statuses of mg_depict.
enum {
  MG_DEPICT_OK = 0,
  MG_DEPICT_BAD_MOLECULE = 1,   // the SMILES is not a molecule
  MG_DEPICT_BAD_SMARTS = 2,     // the highlight SMARTS does not parse
  MG_DEPICT_TOO_LARGE = 3,      // more heavy atoms than max_heavy_atoms
  MG_DEPICT_MATCH_BUDGET = 4,   // the highlight match ran out of steps
  MG_DEPICT_ERROR = -1          // anything else (RDKit failed)
};

// mg_depict parses a SMILES (sanitized, not normalized: atom i is the
// i-th atom of the SMILES), computes 2D coordinates with RDKit's depictor
// and draws it; with a non-empty SMARTS the atoms and bonds of its first
// match are highlighted. Free *out with mg_depict_result_free. Never
// throws.
int mg_depict(const char *smiles, size_t len, const char *smarts,
              size_t smarts_len, const mg_depict_params *p,
              mg_depict_result *out);
void mg_depict_result_free(mg_depict_result *r);

#ifdef __cplusplus
}
#endif

#endif
