// mg_pattern.cpp: RDKit's pattern fingerprint of a molecule without query
// features, bit for bit, without SubstructMatch.
//
// Why not RDKit's PatternFingerprintMol: it finds every embedding (not
// uniquified) of 13 small SMARTS patterns with SubstructMatch, whose VF2
// search builds a std::list of std::lists per match; that took 270 us of
// a registration's ~1.3 ms of chemistry (profiled on RDKit's NCI sample),
// more than the rest of structure search together. The bits depend only on
// which embeddings exist, not on the order they are found in, so this file
// enumerates the same embeddings with a plain depth-first walk over tables
// of RDKit's own answers (each pattern atom's and bond's Query::Match,
// evaluated once per molecule atom and bond) and hashes each one as
// RDKit 2022.09 does (updatePatternFingerprint in PatternFingerprints.cpp:
// gboost::hash_combine of the pattern index with the matched atoms' atomic
// numbers in pattern-atom order, then the bond types, aromatic bonds as
// AROMATIC, in pattern-bond order; and one running hash per match for the
// count bits). The patterns are read from the installed library
// (RDKit::pqs), so they are RDKit's; TestPatternFingerprintFast compares
// the result with PatternFingerprintMol on every test molecule, and a
// molecule with query atoms or bonds (where RDKit skips matches) goes to
// RDKit.
// RDConfig.h first: RDK_BUILD_THREADSAFE_SSS changes RDKit class layouts.
#include <RDGeneral/RDConfig.h>

#include "mg_pattern.h"

#include "mg.h"
#include "mg_fp.h"
#include "mg_internal.hpp"

#include <DataStructs/ExplicitBitVect.h>
#include <GraphMol/Fingerprints/Fingerprints.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/QueryAtom.h>
#include <GraphMol/QueryBond.h>
#include <GraphMol/SmilesParse/SmartsWrite.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <RDGeneral/hash/hash.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace RDKit {
// The SMARTS patterns of PatternFingerprintMol, "" last (exported by
// libRDKitFingerprints; not in a header).
extern const char *pqs[];
}  // namespace RDKit

using namespace RDKit;

namespace {

constexpr unsigned fpBits = 2048;

// pattern is one SMARTS pattern of the fingerprint, its atoms in SMARTS
// order: each atom after the first is bonded to an earlier one (its
// parent); its other bonds to earlier atoms are closures.
struct pattern {
  std::unique_ptr<ROMol> q;
  std::uint32_t pIdx;        // 1-based, as RDKit counts
  std::vector<int> atomPred;  // per atom: index into patterns::atomPreds
  std::vector<int> bondPred;  // per bond: index into patterns::bondPreds
  std::vector<int> parent, parentBond;  // per atom (-1 for atom 0)
  // per atom: (earlier atom, pattern bond) of the closures
  std::vector<std::vector<std::pair<int, int>>> closures;
};

// patterns are RDKit's, parsed once; each distinct atom or bond query
// (by SMARTS) has one representative, whose Match answers are tabled per
// molecule.
struct patterns {
  std::vector<pattern> p;
  std::vector<const Atom *> atomPreds;
  std::vector<const Bond *> bondPreds;
  bool ok = false;

  patterns() {
    std::vector<std::string> atomKeys, bondKeys;
    auto index = [](std::vector<std::string> &keys, const std::string &k) {
      for (size_t i = 0; i < keys.size(); i++) {
        if (keys[i] == k) return int(i);
      }
      keys.push_back(k);
      return int(keys.size() - 1);
    };
    try {
      for (std::uint32_t i = 0; RDKit::pqs[i] && RDKit::pqs[i][0]; i++) {
        pattern pt;
        pt.pIdx = i + 1;
        pt.q.reset(SmartsToMol(RDKit::pqs[i]));
        if (!pt.q || pt.q->getNumAtoms() == 0) return;
        const ROMol &q = *pt.q;
        const unsigned na = q.getNumAtoms();
        pt.parent.assign(na, -1);
        pt.parentBond.assign(na, -1);
        pt.closures.resize(na);
        for (const auto a : q.atoms()) {
          if (!a->hasQuery()) return;
          const std::string k = a->getQuery()->getDescription() + " " +
                                SmartsWrite::GetAtomSmarts(static_cast<const QueryAtom *>(a));
          int x = index(atomKeys, k);
          if (x == int(atomPreds.size())) atomPreds.push_back(a);
          pt.atomPred.push_back(x);
        }
        for (const auto b : q.bonds()) {
          if (!b->hasQuery() || b->getBondType() == Bond::DATIVE) return;
          const std::string k = b->getQuery()->getDescription() + " " +
                                SmartsWrite::GetBondSmarts(static_cast<const QueryBond *>(b));
          int x = index(bondKeys, k);
          if (x == int(bondPreds.size())) bondPreds.push_back(b);
          pt.bondPred.push_back(x);
          int lo = std::min(b->getBeginAtomIdx(), b->getEndAtomIdx());
          int hi = std::max(b->getBeginAtomIdx(), b->getEndAtomIdx());
          if (lo == hi) return;
          if (pt.parent[hi] < 0) {
            pt.parent[hi] = lo;
            pt.parentBond[hi] = int(b->getIdx());
          } else {
            pt.closures[hi].push_back({lo, int(b->getIdx())});
          }
        }
        for (unsigned a = 1; a < na; a++) {
          if (pt.parent[a] < 0) return;  // not in walk order
        }
        p.push_back(std::move(pt));
      }
      ok = !p.empty();
    } catch (...) {
      ok = false;
    }
  }
};

const patterns &thePatterns() {
  static const patterns ps;  // thread-safe initialization
  return ps;
}

// walk enumerates the embeddings of one pattern in one molecule.
struct walk {
  const pattern &pt;
  unsigned na;
  // molecule tables
  const std::vector<std::vector<std::pair<int, int>>> &adj;  // (nbr, bond)
  const std::vector<std::vector<unsigned char>> &atomOK;      // [pred][atom]
  const std::vector<std::vector<unsigned char>> &bondOK;      // [pred][bond]
  const std::vector<int> &atomicNum;
  const std::vector<std::uint32_t> &bondHash;
  uint64_t *out;
  // state
  std::vector<int> map;      // pattern atom -> molecule atom
  std::vector<int> bondMap;  // pattern bond -> molecule bond
  std::vector<unsigned char> used;
  std::uint32_t mIdx;

  void set(std::uint32_t bit) { out[bit / 64] |= uint64_t(1) << (bit % 64); }

  void found() {
    gboost::hash_combine(mIdx, 0xBEEF);
    set(mIdx % fpBits);
    std::uint32_t bitId = pt.pIdx;
    for (unsigned i = 0; i < na; i++) {
      gboost::hash_combine(bitId, atomicNum[map[i]]);
    }
    for (size_t b = 0; b < bondMap.size(); b++) {
      gboost::hash_combine(bitId, bondHash[bondMap[b]]);
    }
    set(bitId % fpBits);
  }

  void extend(unsigned i) {
    if (i == na) {
      found();
      return;
    }
    const auto &aok = atomOK[pt.atomPred[i]];
    const auto &bok = bondOK[pt.bondPred[pt.parentBond[i]]];
    for (const auto &nb : adj[map[pt.parent[i]]]) {
      const int a = nb.first;
      if (used[a] || !aok[a] || !bok[nb.second]) continue;
      bool closed = true;
      for (const auto &c : pt.closures[i]) {
        int mb = -1;
        for (const auto &x : adj[a]) {
          if (x.first == map[c.first]) {
            mb = x.second;
            break;
          }
        }
        if (mb < 0 || !bondOK[pt.bondPred[c.second]][mb]) {
          closed = false;
          break;
        }
        bondMap[c.second] = mb;
      }
      if (!closed) continue;
      bondMap[pt.parentBond[i]] = nb.second;
      map[i] = a;
      used[a] = 1;
      extend(i + 1);
      used[a] = 0;
    }
  }
};

void clearWords(uint64_t *out) { std::memset(out, 0, MG_FP_WORDS * sizeof(uint64_t)); }

}  // namespace

namespace mg {

bool patternFingerprint(const ROMol &m, uint64_t *out) {
  const patterns &ps = thePatterns();
  if (!ps.ok || !m.getRingInfo()->isInitialized()) return false;
  for (const auto a : m.atoms()) {
    if (a->hasQuery()) return false;
  }
  for (const auto b : m.bonds()) {
    if (b->hasQuery()) return false;
  }
  const unsigned n = m.getNumAtoms(), nb = m.getNumBonds();
  std::vector<std::vector<std::pair<int, int>>> adj(n);
  std::vector<int> atomicNum(n);
  for (const auto a : m.atoms()) atomicNum[a->getIdx()] = a->getAtomicNum();
  std::vector<std::uint32_t> bondHash(nb);
  for (const auto b : m.bonds()) {
    const int i = b->getIdx(), u = b->getBeginAtomIdx(), v = b->getEndAtomIdx();
    adj[u].push_back({v, i});
    adj[v].push_back({u, i});
    // as updatePatternFingerprint hashes a bond
    bondHash[i] = b->getIsAromatic() ? std::uint32_t(Bond::AROMATIC)
                                     : std::uint32_t(b->getBondType());
  }
  // RDKit's answers, as SubstructMatch's atomCompat and bondCompat get
  // them with default parameters (query->Match(molecule's))
  std::vector<std::vector<unsigned char>> atomOK(ps.atomPreds.size()),
      bondOK(ps.bondPreds.size());
  for (size_t k = 0; k < ps.atomPreds.size(); k++) {
    atomOK[k].resize(n);
    for (const auto a : m.atoms()) atomOK[k][a->getIdx()] = ps.atomPreds[k]->Match(a);
  }
  for (size_t k = 0; k < ps.bondPreds.size(); k++) {
    bondOK[k].resize(nb);
    for (const auto b : m.bonds()) bondOK[k][b->getIdx()] = ps.bondPreds[k]->Match(b);
  }
  clearWords(out);
  std::vector<unsigned char> used(n, 0);
  for (const auto &pt : ps.p) {
    const unsigned na = pt.q->getNumAtoms();
    if (na > n) continue;
    walk w{pt, na, adj, atomOK, bondOK, atomicNum, bondHash, out,
           std::vector<int>(na, -1), std::vector<int>(pt.q->getNumBonds(), -1), used,
           pt.pIdx + na + pt.q->getNumBonds()};
    const auto &aok = atomOK[pt.atomPred[0]];
    for (unsigned a = 0; a < n; a++) {
      if (!aok[a]) continue;
      w.map[0] = int(a);
      w.used[a] = 1;
      w.extend(1);
      w.used[a] = 0;
    }
  }
  return true;
}

}  // namespace mg

extern "C" int mg_pattern_engines(const char *smiles, size_t len, uint64_t *fast,
                                  uint64_t *rdkit, char **err) {
  *err = nullptr;
  try {
    std::unique_ptr<ROMol> m(SmilesToMol(std::string(smiles ? smiles : "", len)));
    if (!m) {
      *err = mg::cString("not a valid SMILES");
      return -1;
    }
    std::unique_ptr<ExplicitBitVect> fp(PatternFingerprintMol(*m, fpBits));
    std::memset(rdkit, 0, MG_FP_WORDS * sizeof(uint64_t));
    std::vector<int> on;
    fp->getOnBits(on);
    for (int i : on) rdkit[i / 64] |= uint64_t(1) << (i % 64);
    if (!mg::patternFingerprint(*m, fast)) {
      clearWords(fast);
      return 1;
    }
    return 0;
  } catch (const std::exception &e) {
    *err = mg::cString(e.what());
  } catch (...) {
    *err = mg::cString("pattern: unknown error");
  }
  return -1;
}
