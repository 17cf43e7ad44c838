// mg_match.h: substructure matching with early exit for structure search
// (mg_match.cpp), used by mg_fp.cpp's matching loops.
#ifndef MOLGRAPH_CHEM_MG_MATCH_H
#define MOLGRAPH_CHEM_MG_MATCH_H

#include <stddef.h>

#ifdef __cplusplus
#include <GraphMol/ROMol.h>
#include <GraphMol/Substruct/SubstructMatch.h>

#include <bitset>
#include <cstdint>
#include <vector>

namespace mg {

// Matcher answers "has molecule m a substructure match of the query" with
// RDKit's own atom and bond comparisons (atomCompat, bondCompat) and final
// check, so its answer is SubstructMatch's; see mg_match.cpp for why it is
// not SubstructMatch itself. A Matcher belongs to one thread.
class Matcher {
 public:
  Matcher(const RDKit::ROMol &query, const RDKit::SubstructMatchParameters &ps);
  // usable: the query needs nothing RDKit's matcher prepares per call
  // (recursive SMARTS) and no chirality check; otherwise call
  // SubstructMatch.
  bool usable() const { return usable_; }
  // has reports whether m contains the query (usable() must hold).
  bool has(const RDKit::ROMol &m);
  // Compact is a molecule's graph as element/aromaticity codes and bond
  // types in one small buffer (empty: too large to encode).
  using Compact = std::vector<std::uint8_t>;
  static Compact compact(const RDKit::ROMol &m);
  // mayHave is a relaxed match on c: atoms compared only by the element
  // and aromaticity their query allows, bonds by the bond types theirs
  // allows. false proves that has() is false; true proves nothing.
  bool mayHave(const Compact &c);

 private:
  struct Step {
    unsigned atom;    // query atom placed at this step
    int parent;       // step of an already placed neighbour, -1: a new component
    const RDKit::Bond *parentBond;
    // bonds to atoms placed earlier than this one (other than parent's)
    std::vector<std::pair<unsigned, const RDKit::Bond *>> back;
  };
  const RDKit::ROMol &q_;
  const RDKit::SubstructMatchParameters &ps_;
  bool usable_ = true;
  std::vector<Step> steps_;
  std::vector<const RDKit::Atom *> qatoms_;
  // per molecule scratch
  std::vector<int8_t> memo_;     // query atom x mol atom: -1 unknown, 0, 1
  std::vector<char> used_;       // mol atoms mapped
  std::vector<std::uint32_t> map_;   // query atom -> mol atom
  std::vector<unsigned> cursor_;  // per step: next candidate position
  std::vector<const RDKit::Atom *> matoms_;
  std::vector<std::uint32_t> qidx_;
  std::vector<std::bitset<256>> types_;  // per query atom: allowed codes
  std::vector<std::uint8_t> bondTypes_;  // per query bond: allowed bond codes
  std::vector<int> cur_;  // molecule atom of each step, -1 none
  // per step: the neighbours of its parent's image (Exact)
  std::vector<std::vector<std::pair<unsigned, const RDKit::Bond *>>> nbrs_;
  bool compat(unsigned qa, unsigned ma);
  // the one backtracking search, over the molecule as has (Exact) or
  // mayHave (Relaxed) sees it
  struct Exact;
  struct Relaxed;
  template <class G>
  bool walk(G &g);
};

}  // namespace mg
#endif

#ifdef __cplusplus
extern "C" {
#endif

// mg_match_engines runs both matchers on n pickled molecules (one buffer,
// n+1 offsets) for the tests: fast[i] from mg::Matcher (2 when it cannot
// take the query), rdkit[i] from RDKit's SubstructMatch. Returns 0, or -1
// with *err set.
int mg_match_engines(const char *text, size_t len, int kind, int flags,
                     const char *pickles, const size_t *offsets, int n,
                     unsigned char *fast, unsigned char *rdkit, char **err);

#ifdef __cplusplus
}
#endif

#endif
