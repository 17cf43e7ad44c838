// mg_pattern.h: RDKit's pattern fingerprint (PatternFingerprintMol, 2048
// bits) of a registered molecule, computed without SubstructMatch
// (mg_pattern.cpp).
#ifndef MOLGRAPH_CHEM_MG_PATTERN_H
#define MOLGRAPH_CHEM_MG_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
namespace RDKit {
class ROMol;
}
namespace mg {
// patternFingerprint writes the bits of RDKit::PatternFingerprintMol(m,
// 2048) into out (32 words, ExplicitBitVect numbering); returns false (out
// untouched) where it does not apply: m has query atoms or bonds, or the
// installed RDKit's patterns are not the kind it enumerates. m's ring
// information must be initialized.
bool patternFingerprint(const RDKit::ROMol &m, uint64_t *out);
}  // namespace mg
extern "C" {
#endif

// mg_pattern_engines parses a SMILES and writes its pattern fingerprint by
// mg::patternFingerprint (fast) and by RDKit's PatternFingerprintMol
// (rdkit), for tests. Returns 0, 1 when the fast path does not apply
// (fast is zeroed), or -1 with *err set.
int mg_pattern_engines(const char *smiles, size_t len, uint64_t *fast,
                       uint64_t *rdkit, char **err);

#ifdef __cplusplus
}
#endif
#endif
