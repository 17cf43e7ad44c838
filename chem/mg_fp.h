// mg_fp.h: the C API of structure search (mg_fp.cpp): fingerprints of
// registered molecules, structure queries and substructure matching.
//
// Every function catches all C++ exceptions; errors come back as strings
// (free with mg_free). Fingerprints are 2048 bits as 32 uint64 words, bit i
// in word i/64 at position i%64 (RDKit's ExplicitBitVect bit numbering).
#ifndef MOLGRAPH_CHEM_MG_FP_H
#define MOLGRAPH_CHEM_MG_FP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <string>
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum { MG_FP_WORDS = 32 };

// MG_MAX_PATH_WORK bounds how densely a molecule's or query's atoms are
// bonded (mg_guard.h, chem.MaxPathWork).
enum { MG_MAX_PATH_WORK = 500000 };

// Query kinds.
enum { MG_Q_SMILES = 1, MG_Q_SMARTS = 2, MG_Q_MOLBLOCK = 3 };

// Query flags.
enum {
  MG_Q_CHIRALITY = 1,   // SubstructMatchParameters.useChirality
  MG_Q_NOCHARGES = 2,   // query atoms' formal charges are not compared
  MG_Q_NOISOTOPES = 4   // query atoms' isotopes are not compared
};

// mg_fp parses a SMILES (sanitized, as RDKit's MolFromSmiles) and writes
// its Morgan radius-2 2048-bit fingerprint, its 2048-bit pattern
// fingerprint and a binary pickle of the molecule (*pickle, malloc'd, free
// with mg_free). Returns 0, or -1 with *err set.
int mg_fp(const char *smiles, size_t len, uint64_t *morgan, uint64_t *pattern,
          char **pickle, size_t *pickle_len, char **err);

// mg_fingerprints is what mg_process computes with MG_FINGERPRINTS (mg.h):
// mg_fp's fingerprints and pickle, of the pipeline's own molecule (no
// second parse) where that molecule is the one MolFromSmiles reads back
// from its canonical SMILES, else of that SMILES parsed again (reparsed =
// 1). error set: none could be computed (the other fields are zero).
typedef struct mg_fingerprints {
  uint64_t morgan[MG_FP_WORDS];
  uint64_t pattern[MG_FP_WORDS];
  char *pickle;  // malloc'd
  size_t pickle_len;
  int reparsed;
  char *error;  // malloc'd
} mg_fingerprints;

// mg_fingerprints_free frees f and what it holds (NULL is allowed).
void mg_fingerprints_free(mg_fingerprints *f);

// mg_query parses a query of the given kind with flags applied and writes
// its pattern fingerprint, and for a molecule query (SMILES, molblock) its
// Morgan fingerprint (*is_mol = 1); a SMARTS query gets no Morgan
// fingerprint (*is_mol = 0). Returns 0, or -1 with *err set (a query that
// does not parse).
int mg_query(const char *text, size_t len, int kind, int flags,
             uint64_t *morgan, uint64_t *pattern, int *is_mol, char **err);

// mg_matcher is one thread's parsed query (recursive SMARTS queries are
// not safe to share) and what it learns while matching (mg::Matcher's
// answers per atom class): made once per search and thread, used for
// every batch of candidates.
typedef struct mg_matcher mg_matcher;
// mg_matcher_new parses a query of the given kind with flags applied, for
// substructure (super = 0) or superstructure (super = 1, the query must be
// a molecule) matching. Returns NULL with *err set.
mg_matcher *mg_matcher_new(const char *text, size_t len, int kind, int flags,
                           int super, char **err);
void mg_matcher_free(mg_matcher *m);

// mg_match tests n pickled molecules, given as one buffer and n+1 offsets:
// out[i] = 1 if the query is a substructure of molecule i (or with super
// molecule i a substructure of the query). *stop (may be NULL), set from
// another thread, ends the loop early (returns 2). Returns 0, or -1 with
// *err set.
int mg_match(mg_matcher *m, const char *pickles, const size_t *offsets, int n,
             unsigned char *out, const int *stop, char **err);

// mg_molset holds molecules in memory (RDKit ROMol objects made from
// mg_fp's pickles, with their mg::Graph), so that matching needs no
// unpickling; at most max molecules. Each has a slot, a small integer
// that names it for matching. Safe for concurrent use: adds take a writer
// lock, matching a reader lock (matching only reads the molecules).
typedef struct mg_molset mg_molset;
mg_molset *mg_molset_new(int max);
void mg_molset_free(mg_molset *s);
// mg_molset_add adds a molecule and returns its slot (>= 0; the present
// one if the set holds the id already), -1 if the set is full, -2 if the
// pickle is unreadable.
int mg_molset_add(mg_molset *s, const char *id, size_t idlen,
                  const char *pickle, size_t len);
// mg_molset_slot returns the slot of a molecule id, -1 if not held.
int mg_molset_slot(mg_molset *s, const char *id, size_t idlen);
// mg_molset_len returns the number of molecules held.
int mg_molset_len(mg_molset *s);
// mg_molset_match is mg_match on the molecules of the set in n slots:
// out[i] = 1 hit, 0 no hit, 2 no such slot.
int mg_molset_match(mg_molset *s, mg_matcher *m, const int32_t *slots, int n,
                    unsigned char *out, char **err);

#ifdef __cplusplus
}

namespace RDKit {
class ROMol;
}
// mg_fingerprints_of computes the fingerprints of m, the pipeline's
// normalized molecule whose canonical SMILES is smiles. reuse: m's atoms
// and bonds are as parsed and sanitized (no standardization step changed
// them), so that m is the molecule MolFromSmiles reads back from smiles up
// to atom order; m's ring information is then recomputed as sanitization
// computes it (symmetrized SSSR). Otherwise smiles is parsed again. Returns
// NULL only when out of memory; never throws.
mg_fingerprints *mg_fingerprints_of(RDKit::ROMol &m, const std::string &smiles,
                                    bool reuse);
#endif

#endif
