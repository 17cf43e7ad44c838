// mg_guard.h: a bound on how densely a molecule's or a query's atoms are
// bonded, checked before the chemistry whose cost grows with it.
#ifndef MOLGRAPH_CHEM_MG_GUARD_H
#define MOLGRAPH_CHEM_MG_GUARD_H

#include <GraphMol/ROMol.h>

#include "mg_fp.h"

namespace mg {

// kMaxPathBonds is the longest path (in bonds) RDKit's pattern
// fingerprint patterns span (rings of six atoms, chains of six).
constexpr int kMaxPathBonds = 5;

// kMaxPathWork bounds pathWork (chem.MaxPathWork on the Go side).
constexpr long kMaxPathWork = MG_MAX_PATH_WORK;

// pathWork is the work of enumerating m's simple paths of up to
// kMaxPathBonds bonds, as RDKit's pattern fingerprint does: the sum over
// those paths of their end atom's degree. It stops counting past limit
// (and returns a value above it).
long pathWork(const RDKit::ROMol &m, long limit);

// checkPathWork throws mg::InvalidMolecule naming what (a "molecule", a
// "query") when pathWork(m) is over kMaxPathWork.
void checkPathWork(const RDKit::ROMol &m, const char *what);

}  // namespace mg

#endif
