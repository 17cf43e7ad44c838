// mg_guard.cpp: the path-work bound (mg_guard.h).
//
// Why: RDKit's pattern fingerprint (PatternFingerprintMol, and our own
// walk in mg_pattern.cpp) enumerates every embedding of a dozen small
// patterns -- paths and rings of up to six atoms -- in the molecule or
// query, and the normalization steps match SMARTS over it; the number of
// embeddings grows with how densely the atoms are bonded, not with their
// count. A SMILES or SMARTS of a few hundred bytes writing every pair of
// n atoms bonded (ring closures, dummy or metal atoms, which no valence
// rule stops) took 7.7 s at n = 10 and over 30 s at n = 12 as a search
// query, 2.4 s at n = 12 as a molecule, growing about tenfold every two
// atoms, in calls nothing can interrupt: one request pinned a worker
// thread for hours. Counting the paths first is cheap (it stops at the
// bound) and names the problem. Real molecules are far below the bound:
// RDKit's NCI sample at most 6,520 (median 520), vancomycin 5,786, C60
// 16,560, a 999-carbon chain 21,906; the complete graph of 9 atoms is
// about 600,000.
#include "mg_guard.h"

#include "mg_internal.hpp"

#include <string>
#include <vector>

namespace mg {

namespace {

// walker counts path work over a graph in compressed adjacency form.
struct walker {
  const std::vector<unsigned> &start;  // neighbours of v: nbr[start[v]:start[v+1]]
  const std::vector<unsigned> &nbr;
  std::vector<char> seen;
  long work = 0, limit;

  // walk extends the path ending at v (depth bonds long); false once the
  // work is past the limit.
  bool walk(unsigned v, int depth) {
    unsigned b = start[v], e = start[v + 1];
    work += long(e - b);
    if (work > limit) return false;
    if (depth == kMaxPathBonds) return true;
    seen[v] = 1;
    bool ok = true;
    for (unsigned i = b; i < e && ok; i++) {
      if (!seen[nbr[i]]) ok = walk(nbr[i], depth + 1);
    }
    seen[v] = 0;
    return ok;
  }
};

}  // namespace

long pathWork(const RDKit::ROMol &m, long limit) {
  const unsigned n = m.getNumAtoms();
  std::vector<unsigned> start(n + 1, 0), nbr(2 * m.getNumBonds());
  for (const auto b : m.bonds()) {
    start[b->getBeginAtomIdx() + 1]++;
    start[b->getEndAtomIdx() + 1]++;
  }
  for (unsigned v = 0; v < n; v++) start[v + 1] += start[v];
  std::vector<unsigned> fill(start.begin(), start.end() - 1);
  for (const auto b : m.bonds()) {
    unsigned x = b->getBeginAtomIdx(), y = b->getEndAtomIdx();
    nbr[fill[x]++] = y;
    nbr[fill[y]++] = x;
  }
  walker w{start, nbr, std::vector<char>(n, 0), 0, limit};
  for (unsigned v = 0; v < n; v++) {
    if (!w.walk(v, 0)) break;
  }
  return w.work;
}

void checkPathWork(const RDKit::ROMol &m, const char *what) {
  if (pathWork(m, kMaxPathWork) > kMaxPathWork) {
    throw InvalidMolecule(
        std::string(what) +
        " too densely bonded: enumerating its paths of up to " +
        std::to_string(kMaxPathBonds) + " bonds takes more than " +
        std::to_string(kMaxPathWork) +
        " steps (a real molecule of 1,000 atoms takes tens of thousands)");
  }
}

}  // namespace mg
