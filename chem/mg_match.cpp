// mg_match.cpp: substructure matching with early exit (mg_match.h).
//
// Why not RDKit's SubstructMatch for every candidate: structure search
// asks one yes/no question of each of up to millions of small molecules,
// and SubstructMatch pays per call for what that question does not need:
// the recursive-query preparation (a global mutex), label and final-check
// functor set-up, and VF2 state vectors sized by both graphs, which for a
// drug-like molecule cost more than finding the first match. Matcher keeps
// RDKit's semantics by calling RDKit's own comparisons -- atomCompat and
// bondCompat (what SubstructMatch's atom and bond label functors call when
// chirality is off) and MolMatchFinalCheckFunctor -- and only does the
// graph walk itself: query atoms in a fixed breadth-first order, each
// placed on a molecule atom adjacent to its already placed parent's image,
// ring-closure bonds checked as soon as both ends are placed, stop at the
// first complete mapping (a monomorphism, as VF2's subgraph matching).
// With chirality it adds the checks of SubstructMatch's label functors
// (a chiral query atom needs a chiral molecule atom, a stereo double bond
// one that is not STEREONONE/STEREOANY) and its final check does the rest.
// Queries it cannot take (query nodes it does not know, generic matchers)
// go to SubstructMatch; the tests compare both on every query and molecule.
//
// Recursive SMARTS ($(...)): RDKit's RecursiveStructureQuery::Match reads
// a set of molecule atoms that SubstructMatch fills before each match
// (MatchSubqueries: the root atoms of up to 1,000 embeddings of the
// recursive query, vf2_all's default), under a mutex per query, which made
// such queries several times slower than SubstructLibrary. Here the query
// tree of an atom holding one is evaluated by Matcher itself (AND, OR, XOR
// and negation as RDKit's Query classes do, leaves by RDKit's Match), and
// the set of a recursive query is found when first asked for a molecule,
// by a Matcher of its own that lists every embedding. More than 1,000
// embeddings: RDKit's set holds the roots of only the first 1,000 VF2
// finds, which no other order reproduces, so has() reports overflowed()
// and the caller asks SubstructMatch.
//
// Molecules held for search (mg_molset) also carry a Graph: their atoms
// and bonds as small class numbers (Classes). Over a library, the atoms of
// drug-like molecules fall into a few thousand classes, so a query atom is
// compared by RDKit once per class and afterwards by a table lookup, and
// the walk reads one small buffer instead of RDKit's molecule: this is what
// makes a query with many screen survivors (an amide, an aniline) cheap.
// RDConfig.h first: it defines RDK_BUILD_THREADSAFE_SSS, which changes
// the layout of RDKit classes (RecursiveStructureQuery holds a mutex then),
// and the RDKit headers used here do not include it.
#include <RDGeneral/RDConfig.h>

#include "mg_match.h"

#include <GraphMol/QueryAtom.h>
#include <GraphMol/QueryOps.h>
#include <RDGeneral/types.h>
#include <GraphMol/Substruct/SubstructUtils.h>

#include <GraphMol/RingInfo.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <set>

using namespace RDKit;

namespace mg {

namespace {

// maxRecursiveEmbeddings is vf2_all's default max_results, which
// RDKit's RecursiveMatcher leaves in place.
constexpr unsigned maxRecursiveEmbeddings = 1000;

// chiralTag: a tetrahedral chiral tag (what SubstructMatch's
// AtomLabelFunctor asks of both atoms under useChirality).
bool chiralTag(const Atom *a) {
  return a->getChiralTag() == Atom::CHI_TETRAHEDRAL_CW ||
         a->getChiralTag() == Atom::CHI_TETRAHEDRAL_CCW;
}

// rank orders start atoms: an atom of a definite element other than carbon
// is likelier to have few images in a molecule than a carbon, and a carbon
// than an atom of no definite element; then the higher query degree.
int rank(const Atom *a) {
  int z = a->getAtomicNum();
  int r = z == 0 ? 0 : (z == 6 ? 1 : 2);
  return r * 16 + std::min<int>(a->getDegree(), 15);
}

// baseDescription is a query node's description without the prefix that
// RDKit's range queries add ([D{2-3}]: "range_AtomExplicitDegree").
std::string baseDescription(const std::string &d) {
  for (const char *p : {"range_", "less_", "greater_"}) {
    size_t n = std::strlen(p);
    if (d.compare(0, n, p) == 0) return d.substr(n);
  }
  return d;
}

// classAtomQueries are the atom query primitives whose value is a function
// of what Classes::atomClass puts in an atom's class (RDKit's
// finalizeQueryFromDescription names each one's data function).
const std::set<std::string> &classAtomQueries() {
  static const std::set<std::string> s{
      "AtomNull", "AtomAtomicNum", "AtomType", "AtomIsAromatic",
      "AtomIsAliphatic", "AtomExplicitDegree", "AtomTotalDegree",
      "AtomHeavyAtomDegree", "AtomNonHydrogenDegree", "AtomHCount",
      "AtomImplicitHCount", "AtomHasImplicitH", "AtomImplicitValence",
      "AtomExplicitValence", "AtomTotalValence", "AtomUnsaturated",
      "AtomIsotope", "AtomFormalCharge", "AtomNegativeFormalCharge",
      "AtomHybridization", "AtomNumRadicalElectrons", "AtomInRing",
      "AtomInNRings", "AtomRingBondCount", "AtomHasRingBond",
      "AtomMinRingSize", "AtomRingSize", "AtomHasHeteroatomNeighbors",
      "AtomNumHeteroatomNeighbors", "AtomHasAliphaticHeteroatomNeighbors",
      "AtomNumAliphaticHeteroatomNeighbors"};
  return s;
}

// classBondQueries: the same for bond queries (Classes::bondClass).
const std::set<std::string> &classBondQueries() {
  static const std::set<std::string> s{
      "BondNull", "BondOrder", "SingleOrAromaticBond", "SingleOrDoubleBond",
      "DoubleOrAromaticBond", "SingleOrDoubleOrAromaticBond", "BondDir",
      "BondInRing", "BondInNRings"};
  return s;
}

template <class Q>
bool byClass(const Q *q, const std::set<std::string> &leaves,
             const char *andD, const char *orD, const char *xorD) {
  const std::string d = baseDescription(q->getDescription());
  if (d == andD || d == orD || d == xorD) {
    for (auto it = q->beginChildren(); it != q->endChildren(); ++it) {
      if (!byClass(it->get(), leaves, andD, orD, xorD)) return false;
    }
    return true;
  }
  return q->beginChildren() == q->endChildren() && leaves.count(d) > 0;
}

// atomByClass: a query atom whose answer on a molecule atom depends only
// on that atom's class. A plain atom (a SMILES query) compares element,
// charge, isotope, radicals and ring count (RDKit's Atom::Match).
bool atomByClass(const Atom *a) {
  if (!a->hasQuery()) return true;
  return byClass(a->getQuery(), classAtomQueries(), "AtomAnd", "AtomOr", "AtomXor");
}

// bondByClass: the same for a query bond; a plain bond compares the bond
// type (Bond::Match). Dative bonds also compare their ends (bondCompat):
// never by class.
bool bondByClass(const Bond *b) {
  if (b->getBondType() == Bond::DATIVE) return false;
  if (!b->hasQuery()) return true;
  return byClass(b->getQuery(), classBondQueries(), "BondAnd", "BondOr", "BondXor");
}

// keyAppend adds v to a class key, false if it does not fit 16 bits.
bool keyAppend(std::string &k, long v) {
  if (v < -32768 || v > 32767) return false;
  std::uint16_t u = std::uint16_t(std::int16_t(v));
  k.push_back(char(u & 0xff));
  k.push_back(char(u >> 8));
  return true;
}

// kindOf is an atom's kind in a Summary: carbon, nitrogen and oxygen
// aromatic, aliphatic on a cycle, aliphatic on none; sulfur aromatic or
// not; fluorine, chlorine, bromine, iodine; any other element.
int kindOf(int z, bool aromatic, bool cyclic) {
  switch (z) {
    case 6:
      return aromatic ? 0 : cyclic ? 1 : 2;
    case 7:
      return aromatic ? 3 : cyclic ? 4 : 5;
    case 8:
      return aromatic ? 6 : cyclic ? 7 : 8;
    case 16:
      return aromatic ? 9 : 10;
    case 9:
      return 11;
    case 17:
      return 12;
    case 35:
      return 13;
    case 53:
      return 14;
    default:
      return 15;
  }
}

// acyclicKinds are the kinds of atoms on no cycle.
constexpr std::uint16_t acyclicKinds = (1u << 2) | (1u << 5) | (1u << 8);

// kindsOf are the kinds an atom of element z and aromaticity may have,
// cycle or not.
std::uint16_t kindsOf(int z, bool aromatic) {
  return std::uint16_t((1u << kindOf(z, aromatic, true)) | (1u << kindOf(z, aromatic, false)));
}

// bondBucket is the bond type part of a bond kind.
int bondBucket(Bond::BondType t) {
  switch (t) {
    case Bond::SINGLE:
      return 0;
    case Bond::DOUBLE:
      return 1;
    case Bond::TRIPLE:
      return 2;
    case Bond::AROMATIC:
      return 3;
    default:
      return 4;
  }
}

// bondBit is the Summary bit of a bond of type bucket t between atoms of
// kinds a and b (a hash: kinds share bits), -1 for a bond between two
// carbons: nearly every molecule has those, a bit would tell nothing.
int bondBit(int a, int b, int t) {
  if (a > b) std::swap(a, b);
  if (b <= 2) return -1;
  std::uint64_t x = (std::uint64_t(a) * 16 + std::uint64_t(b)) * 5 + std::uint64_t(t) + 1;
  return int((x * 0x9E3779B97F4A7C15ull) >> 58);
}

// cycles marks the atoms and bonds of m that lie on a cycle of its graph:
// the bonds that are not bridges (Tarjan's low-link, iterative), and their
// atoms. Our own graph walk rather than RDKit's ring perception: a match
// maps a query cycle onto a molecule cycle, whatever rings RDKit's SSSR
// lists.
void cycles(const ROMol &m, std::vector<char> *atoms, std::vector<char> *bonds) {
  const unsigned n = m.getNumAtoms();
  std::vector<std::vector<std::pair<unsigned, unsigned>>> adj(n);  // (atom, bond)
  for (const auto b : m.bonds()) {
    adj[b->getBeginAtomIdx()].emplace_back(b->getEndAtomIdx(), b->getIdx());
    adj[b->getEndAtomIdx()].emplace_back(b->getBeginAtomIdx(), b->getIdx());
  }
  std::vector<int> disc(n, -1), low(n, 0), parent(n, -1), parentBond(n, -1);
  std::vector<unsigned> next(n, 0), stack;
  std::vector<char> cyc(n, 0), bcyc(m.getNumBonds(), 0);
  int t = 0;
  for (unsigned r = 0; r < n; r++) {
    if (disc[r] >= 0) continue;
    disc[r] = low[r] = t++;
    stack.push_back(r);
    while (!stack.empty()) {
      unsigned v = stack.back();
      if (next[v] < adj[v].size()) {
        auto [w, bi] = adj[v][next[v]++];
        if (disc[w] < 0) {
          parent[w] = int(v);
          parentBond[w] = int(bi);
          disc[w] = low[w] = t++;
          stack.push_back(w);
        } else if (int(bi) != parentBond[v]) {
          // a bond back to an atom found earlier: on a cycle
          low[v] = std::min(low[v], disc[w]);
          bcyc[bi] = 1;
          cyc[v] = cyc[w] = 1;
        }
        continue;
      }
      stack.pop_back();
      if (parent[v] >= 0) {
        unsigned p = unsigned(parent[v]);
        low[p] = std::min(low[p], low[v]);
        if (low[v] <= disc[p]) {  // p-v is no bridge
          cyc[p] = cyc[v] = 1;
          bcyc[unsigned(parentBond[v])] = 1;
        }
      }
    }
  }
  if (atoms) *atoms = std::move(cyc);
  if (bonds) *bonds = std::move(bcyc);
}

// maxCycleSteps bounds the paths cycleLengths walks per molecule: a
// drug-like ring system takes a few hundred; a cage or a large fused
// system that takes more is summarized as "any length".
constexpr unsigned maxCycleSteps = 200000;

// cycleLengths sets in *mask bit L for each length L of a simple cycle of
// m's graph (bit 63 for any of 63 atoms or more), walking every simple
// path from each atom through higher-numbered atoms over the bonds on a
// cycle. False when that took more than maxCycleSteps steps: *mask then
// holds some of the lengths. Why: a match maps each simple cycle of the
// query onto a simple cycle of the molecule of the same length (atoms
// distinct, every query bond on a molecule bond), so a query with a
// 7-membered cycle ("*1~*~*~*~*~*~*~1") needs a molecule with one; neither
// the pattern fingerprint nor the atom counts say that, and walking every
// carbon of a molecule without one to find out costs most of such a query.
bool cycleLengths(const ROMol &m, std::uint64_t *mask) {
  *mask = 0;
  const unsigned n = m.getNumAtoms();
  std::vector<char> bcyc;
  cycles(m, nullptr, &bcyc);
  std::vector<std::vector<unsigned>> adj(n);
  for (const auto b : m.bonds()) {
    if (!bcyc[b->getIdx()]) continue;
    adj[b->getBeginAtomIdx()].push_back(b->getEndAtomIdx());
    adj[b->getEndAtomIdx()].push_back(b->getBeginAtomIdx());
  }
  std::vector<char> on(n, 0);
  std::vector<std::pair<unsigned, unsigned>> path;  // (atom, next neighbour)
  unsigned steps = 0;
  for (unsigned s = 0; s < n; s++) {
    if (adj[s].size() < 2) continue;
    path.assign(1, {s, 0});
    on[s] = 1;
    while (!path.empty()) {
      auto &[v, i] = path.back();
      if (i == adj[v].size()) {
        on[v] = 0;
        path.pop_back();
        continue;
      }
      unsigned w = adj[v][i++];
      if (w == s) {
        if (path.size() >= 3) *mask |= std::uint64_t(1) << std::min<size_t>(path.size(), 63);
        continue;
      }
      if (w < s || on[w]) continue;
      if (++steps > maxCycleSteps) {
        for (const auto &p : path) on[p.first] = 0;
        return false;
      }
      on[w] = 1;
      path.emplace_back(w, 0);
    }
  }
  return true;
}

std::vector<char> cyclicAtoms(const ROMol &m) {
  std::vector<char> a;
  cycles(m, &a, nullptr);
  return a;
}

}  // namespace

Summary summarize(const ROMol &m, const Graph &g) {
  Summary s;
  if (g.empty()) return s;
  const unsigned n = g[0], nb2 = g[1];
  const std::uint16_t *acls = &g[2], *bcls = acls + n + (n + 1) + nb2;
  for (unsigned i = 0; i < n; i++) {
    if (acls[i] == Classes::kNone) return s;
  }
  for (unsigned j = 0; j < nb2; j++) {
    if (bcls[j] == Classes::kNone) return s;
  }
  auto cyc = cyclicAtoms(m);
  std::vector<int> kind(n);
  std::uint64_t counts = 0, bonds = 0;
  for (unsigned i = 0; i < n; i++) {
    const Atom *a = m.getAtomWithIdx(i);
    kind[i] = kindOf(a->getAtomicNum(), a->getIsAromatic(), cyc[i] != 0);
    unsigned sh = 4 * unsigned(kind[i]);
    if (((counts >> sh) & 15) != 15) counts += std::uint64_t(1) << sh;
  }
  for (const auto b : m.bonds()) {
    int bit = bondBit(kind[b->getBeginAtomIdx()], kind[b->getEndAtomIdx()], bondBucket(b->getBondType()));
    if (bit >= 0) bonds |= std::uint64_t(1) << bit;
  }
  s.counts = counts;
  s.bonds = bonds;
  std::uint64_t lens = 0;
  s.cycles = cycleLengths(m, &lens) ? lens : ~std::uint64_t(0);
  return s;
}

std::uint16_t Classes::atomClass(const Atom *a) {
  // Every property a classAtomQueries primitive reads, by the accessor its
  // data function calls (QueryOps.h).
  std::string k;
  const ROMol &m = a->getOwningMol();
  const RingInfo *ri = m.getRingInfo();
  if (!ri->isInitialized()) return kNone;
  unsigned idx = a->getIdx();
  int heavy = 0, nonH = 0, hetero = 0, aliHetero = 0, ringBonds = 0;
  for (const auto n : m.atomNeighbors(a)) {
    int z = n->getAtomicNum();
    if (z > 1) heavy++;
    if (z != 1 || n->getIsotope() > 1) nonH++;
    if (z != 6 && z != 1) {
      hetero++;
      if (!n->getIsAromatic()) aliHetero++;
    }
  }
  for (const auto b : m.atomBonds(a)) {
    if (ri->numBondRings(b->getIdx())) ringBonds++;
  }
  std::uint64_t sizes = 0;
  for (const auto &r : ri->atomRings()) {
    if (std::find(r.begin(), r.end(), int(idx)) == r.end()) continue;
    if (r.size() >= 64) return kNone;
    sizes |= std::uint64_t(1) << r.size();
  }
  bool ok = keyAppend(k, a->getAtomicNum()) && keyAppend(k, a->getIsAromatic()) &&
            keyAppend(k, a->getDegree()) && keyAppend(k, a->getTotalDegree()) &&
            keyAppend(k, heavy) && keyAppend(k, nonH) &&
            keyAppend(k, a->getTotalNumHs(true)) && keyAppend(k, a->getTotalNumHs(false)) &&
            keyAppend(k, a->getImplicitValence()) && keyAppend(k, a->getExplicitValence()) &&
            keyAppend(k, a->getNumExplicitHs()) && keyAppend(k, a->getTotalValence()) &&
            keyAppend(k, a->getIsotope()) && keyAppend(k, a->getFormalCharge()) &&
            keyAppend(k, a->getHybridization()) && keyAppend(k, a->getNumRadicalElectrons()) &&
            keyAppend(k, ri->numAtomRings(idx)) && keyAppend(k, ringBonds) &&
            keyAppend(k, ri->minAtomRingSize(idx)) && keyAppend(k, hetero) &&
            keyAppend(k, aliHetero);
  if (!ok) return kNone;
  k.append(reinterpret_cast<const char *>(&sizes), sizeof sizes);
  auto it = atomKeys_.find(k);
  if (it != atomKeys_.end()) return it->second;
  if (atoms_.size() >= kNone) return kNone;
  auto c = std::uint16_t(atoms_.size());
  atoms_.push_back(a);
  atomKeys_.emplace(std::move(k), c);
  return c;
}

std::uint16_t Classes::bondClass(const Bond *b, bool cyclic) {
  if (b->getBondType() == Bond::DATIVE) return kNone;
  std::string k;
  const RingInfo *ri = b->getOwningMol().getRingInfo();
  if (!ri->isInitialized()) return kNone;
  if (!keyAppend(k, b->getBondType()) || !keyAppend(k, b->getBondDir()) ||
      !keyAppend(k, ri->numBondRings(b->getIdx())) || !keyAppend(k, cyclic)) {
    return kNone;
  }
  auto it = bondKeys_.find(k);
  if (it != bondKeys_.end()) return it->second;
  if (bonds_.size() >= kNone) return kNone;
  auto c = std::uint16_t(bonds_.size());
  bonds_.push_back(b);
  bondCyclic_.push_back(cyclic ? 1 : 0);
  bondKeys_.emplace(std::move(k), c);
  return c;
}

Graph Classes::graph(const ROMol &m) {
  unsigned n = m.getNumAtoms(), nb = m.getNumBonds();
  Graph g;
  if (n == 0 || n >= kNone || 2 * nb >= kNone) return g;
  try {
    std::vector<char> bcyc;
    cycles(m, nullptr, &bcyc);
    g.reserve(2 + n + (n + 1) + 4 * nb);
    g.push_back(std::uint16_t(n));
    g.push_back(std::uint16_t(2 * nb));
    for (const auto a : m.atoms()) g.push_back(atomClass(a));
    size_t starts = g.size();
    g.resize(starts + n + 1 + 4 * nb);
    std::uint16_t *start = &g[starts], *nbr = start + n + 1, *bcls = nbr + 2 * nb;
    unsigned pos = 0;
    for (unsigned i = 0; i < n; i++) {
      start[i] = std::uint16_t(pos);
      for (const auto b : m.atomBonds(m.getAtomWithIdx(i))) {
        nbr[pos] = std::uint16_t(b->getOtherAtomIdx(i));
        bcls[pos] = bondClass(b, bcyc[b->getIdx()] != 0);
        pos++;
      }
    }
    start[n] = std::uint16_t(pos);
  } catch (const std::exception &) {
    // an atom without computed valences or ring information: the walk
    // uses RDKit's molecule
    return Graph();
  }
  return g;
}

// walk is the backtracking search of has and mayHave: query atoms in the
// order of steps_, a component's first atom tried on every molecule atom,
// any other on the neighbours of its parent's image, bonds back to atoms
// placed earlier checked as soon as both ends are placed, stop at the
// first complete mapping g accepts. g is the molecule as the match sees
// it (Exact: RDKit's atoms and bonds; Relaxed: a Compact):
//
//	size()                   molecule atoms
//	atom(qa, ma)             molecule atom ma may take query atom qa
//	bond(qb, ma, mb)         the bond between ma and mb may take query bond qb
//	degree(k, pa, fresh)     neighbours of pa, the image of step k's parent
//	                         (fresh: the first visit since pa was placed)
//	neighbour(k, pa, i)      pa's i-th neighbour
//	parentBond(k, pa, i)     the bond to it may take step k's parent bond
//	complete()               a complete mapping (map_) is a match
template <class G>
bool Matcher::walk(G &g) {
  const unsigned nq = steps_.size(), n = g.size();
  used_.assign(n, 0);
  cur_.assign(nq, -1);  // molecule atom of each step
  int k = 0;
  if (nq > 0) cursor_[0] = 0;
  while (true) {
    if (k == int(nq)) {
      if (g.complete()) return true;
    } else {
      const Step &s = steps_[k];
      auto back = [&](unsigned ma) {
        for (const auto &[qa, qb] : s.back) {
          if (!g.bond(qb, ma, map_[qa])) return false;
        }
        return true;
      };
      int found = -1;
      if (s.parent < 0) {
        while (cursor_[k] < n) {
          unsigned ma = cursor_[k]++;
          if (!used_[ma] && g.atom(s.atom, ma) && back(ma)) {
            found = int(ma);
            break;
          }
        }
      } else {
        unsigned pa = unsigned(cur_[s.parent]);
        unsigned deg = g.degree(k, pa, cursor_[k] == 0);
        while (cursor_[k] < deg) {
          unsigned i = cursor_[k]++;
          unsigned ma = g.neighbour(k, pa, i);
          if (!used_[ma] && g.atom(s.atom, ma) && g.parentBond(k, pa, i) && back(ma)) {
            found = int(ma);
            break;
          }
        }
      }
      if (found >= 0) {
        cur_[k] = found;
        used_[found] = 1;
        map_[s.atom] = unsigned(found);
        k++;
        if (k < int(nq)) cursor_[k] = 0;
        continue;
      }
    }
    k--;
    if (k < 0) return false;
    used_[cur_[k]] = 0;
    cur_[k] = -1;
  }
}

Matcher::Matcher(const ROMol &query, const SubstructMatchParameters &ps)
    : q_(query), ps_(ps) {
  if (ps.useGenericMatchers || ps.extraFinalCheck || ps.useQueryQueryMatches ||
      ps.aromaticMatchesConjugated || !ps.recursionPossible) {
    usable_ = false;
  }
  unsigned nq = query.getNumAtoms();
  atomRoot_.assign(nq, -1);
  for (unsigned i = 0; i < nq; i++) {
    const Atom *a = query.getAtomWithIdx(i);
    qatoms_.push_back(a);
    if (!usable_ || !a->hasQuery()) continue;
    // a tree of its own only where a recursive SMARTS is: elsewhere
    // RDKit's Match (or its answer per class) is the answer
    bool rec = false;
    std::vector<const Atom::QUERYATOM_QUERY *> todo{a->getQuery()};
    while (!todo.empty()) {
      auto q = todo.back();
      todo.pop_back();
      if (q->getDescription() == "RecursiveStructure") rec = true;
      for (auto it = q->beginChildren(); it != q->endChildren(); ++it) todo.push_back(it->get());
    }
    if (rec) {
      atomRoot_[i] = build(a->getQuery());
      if (atomRoot_[i] < 0) usable_ = false;
    }
  }
  if (!usable_ || nq == 0) return;
  chiral_.assign(nq, 0);
  stereoBond_.assign(query.getNumBonds(), 0);
  if (ps.useChirality) {
    for (unsigned i = 0; i < nq; i++) chiral_[i] = chiralTag(qatoms_[i]);
    for (const auto b : query.bonds()) {
      stereoBond_[b->getIdx()] = b->getBondType() == Bond::DOUBLE && b->getStereo() > Bond::STEREOANY;
    }
  }
  cycles(query, nullptr, &qbCyclic_);
  // Breadth-first order, component by component, each from its best
  // ranked atom, neighbours taken best ranked first.
  std::vector<int> stepOf(nq, -1);
  std::vector<unsigned> byRank(nq);
  for (unsigned i = 0; i < nq; i++) byRank[i] = i;
  std::stable_sort(byRank.begin(), byRank.end(), [&](unsigned a, unsigned b) {
    return rank(qatoms_[a]) > rank(qatoms_[b]);
  });
  for (unsigned start : byRank) {
    if (stepOf[start] >= 0) continue;
    std::deque<unsigned> todo{start};
    stepOf[start] = int(steps_.size());
    steps_.push_back(Step{start, -1, nullptr, {}});
    while (!todo.empty()) {
      unsigned a = todo.front();
      todo.pop_front();
      std::vector<std::pair<unsigned, const Bond *>> next;
      for (const auto b : query.atomBonds(qatoms_[a])) {
        unsigned o = b->getOtherAtomIdx(a);
        if (stepOf[o] < 0) next.emplace_back(o, b);
      }
      std::stable_sort(next.begin(), next.end(), [&](const auto &x, const auto &y) {
        return rank(qatoms_[x.first]) > rank(qatoms_[y.first]);
      });
      for (const auto &[o, b] : next) {
        if (stepOf[o] >= 0) continue;
        Step s{o, stepOf[a], b, {}};
        // bonds from o to atoms placed before it, other than the parent's
        for (const auto ob : query.atomBonds(qatoms_[o])) {
          unsigned p = ob->getOtherAtomIdx(o);
          if (ob != b && stepOf[p] >= 0) s.back.emplace_back(p, ob);
        }
        stepOf[o] = int(steps_.size());
        steps_.push_back(std::move(s));
        todo.push_back(o);
      }
    }
  }
  map_.assign(nq, 0);
  qidx_.resize(nq);
  for (unsigned i = 0; i < nq; i++) qidx_[i] = i;
  cursor_.assign(nq, 0);
  nbrs_.resize(nq);
  atomTab_.resize(nq);
  triTab_.resize(nq);
  for (unsigned i = 0; i < nq; i++) atomByClass_.push_back(atomByClass(qatoms_[i]));
  for (unsigned i = 0; i < nq; i++) classOnly_.push_back(atomByClass_[i] && !chiral_[i]);
  bondTab_.resize(query.getNumBonds());
  for (const auto b : query.bonds()) bondByClass_.push_back(bondByClass(b));
}

// build adds the node of query q and those below it, returning its index,
// -1 for a node Matcher cannot evaluate.
int Matcher::build(const Atom::QUERYATOM_QUERY *q) {
  const std::string &d = q->getDescription();
  Node n;
  n.neg = q->getNegation();
  if (d == "RecursiveStructure") {
    // the description names the class (RDKit's MatchSubqueries casts the
    // same way; dynamic_cast fails across RDKit's shared libraries)
    auto rsq = static_cast<const RecursiveStructureQuery *>(q);
    if (!rsq->getQueryMol() || rsq->getQueryMol()->getNumAtoms() == 0) return -1;
    const ROMol &sub = *rsq->getQueryMol();
    Rec r;
    if (sub.hasProp(common_properties::_queryRootAtom)) {
      int root = sub.getProp<int>(common_properties::_queryRootAtom);
      if (root < 0 || unsigned(root) >= sub.getNumAtoms()) return -1;
      r.root = unsigned(root);
    }
    r.sub.reset(new Matcher(sub, ps_));
    if (!r.sub->usable()) return -1;
    r.sub->recRoot_ = r.root;
    n.kind = Node::kRec;
    n.rec = int(recs_.size());
    recs_.push_back(std::move(r));
  } else if (d == "AtomAnd" || d == "AtomOr" || d == "AtomXor") {
    n.kind = d == "AtomAnd" ? Node::kAnd : d == "AtomOr" ? Node::kOr : Node::kXor;
    for (auto it = q->beginChildren(); it != q->endChildren(); ++it) {
      int k = build(it->get());
      if (k < 0) return -1;
      n.kids.push_back(k);
    }
  } else {
    if (q->beginChildren() != q->endChildren()) return -1;
    n.kind = Node::kLeaf;
    n.q = q;
    n.byClass = classAtomQueries().count(baseDescription(d)) > 0;
  }
  nodes_.push_back(std::move(n));
  return int(nodes_.size()) - 1;
}

// eval is node's answer for atom idx of the running has()'s molecule
// (class c or Classes::kNone), as RDKit's Query classes give it. RDKit's
// atom is looked up only for a leaf not answered by class: the lookup
// (ROMol::getAtomWithIdx, and the cache misses of a scattered molecule)
// cost more than the rest of the walk.
bool Matcher::eval(int node, unsigned idx, std::uint16_t c) {
  Node &n = nodes_[node];
  bool r = false;
  switch (n.kind) {
    case Node::kLeaf:
      if (n.byClass && c != Classes::kNone && cls_) {
        if (c >= n.tab.size()) n.tab.resize(cls_->atomClasses(), -1);
        int8_t &v = n.tab[c];
        if (v < 0) v = n.q->Match(cls_->atom(c)) ? 1 : 0;
        return v != 0;
      }
      return n.q->Match(mol_->getAtomWithIdx(idx));  // negation included
    case Node::kRec: {
      Rec &x = recs_[n.rec];
      if (c != Classes::kNone && cls_ && x.sub->atomTri(x.root, c, *cls_) == 0) {
        r = false;  // not a root by class: the set need not be found
        break;
      }
      const auto &set = recSet(n.rec);
      r = idx < set.size() && set[idx];
      break;
    }
    case Node::kAnd:
      r = true;
      for (int k : n.kids) {
        if (!eval(k, idx, c)) {
          r = false;
          break;
        }
      }
      break;
    case Node::kOr:
      for (int k : n.kids) {
        if (eval(k, idx, c)) {
          r = true;
          break;
        }
      }
      break;
    case Node::kXor:
      for (int k : n.kids) {
        if (eval(k, idx, c)) {
          if (r) {
            r = false;
            break;
          }
          r = true;
        }
      }
      break;
  }
  return r != n.neg;
}

// tri is node's answer for every atom of class c: 0 or 1, or 2 when it
// depends on more than the class (a recursive SMARTS whose root the class
// may take, a leaf not asked by class). Three-valued AND, OR and XOR.
int Matcher::tri(int node, std::uint16_t c, const Classes &cls) {
  Node &n = nodes_[node];
  int r = 0;
  switch (n.kind) {
    case Node::kLeaf: {
      if (!n.byClass) return 2;
      if (c >= n.tab.size()) n.tab.resize(cls.atomClasses(), -1);
      int8_t &v = n.tab[c];
      if (v < 0) v = n.q->Match(cls.atom(c)) ? 1 : 0;
      return v;  // negation included
    }
    case Node::kRec: {
      Rec &x = recs_[n.rec];
      if (x.sub->atomTri(x.root, c, cls) != 0) return 2;
      r = 0;  // no embedding can have its root on this atom
      break;
    }
    case Node::kAnd:
      r = 1;
      for (int k : n.kids) {
        int t = tri(k, c, cls);
        if (t == 0) {
          r = 0;
          break;
        }
        if (t == 2) r = 2;
      }
      break;
    case Node::kOr:
      r = 0;
      for (int k : n.kids) {
        int t = tri(k, c, cls);
        if (t == 1) {
          r = 1;
          break;
        }
        if (t == 2) r = 2;
      }
      break;
    case Node::kXor: {
      int ones = 0;
      for (int k : n.kids) {
        int t = tri(k, c, cls);
        if (t == 2) return 2;
        ones += t;
      }
      r = ones == 1 ? 1 : 0;
      break;
    }
  }
  if (r == 2) return 2;
  return n.neg ? 1 - r : r;
}

// atomTri is tri for query atom qa: its answer for every atom of class c,
// 2 when that depends on more (memoised per class).
int Matcher::atomTri(unsigned qa, std::uint16_t c, const Classes &cls) {
  if (chiral_[qa]) return 2;
  if (atomByClass_[qa]) return atomClass(qa, c, cls) ? 1 : 0;
  if (atomRoot_[qa] < 0) return 2;
  auto &t = triTab_[qa];
  if (c >= t.size()) t.resize(cls.atomClasses(), -1);
  if (t[c] < 0) t[c] = int8_t(tri(atomRoot_[qa], c, cls));
  return t[c];
}

// recSet is the root set of recursive query r in the running has()'s
// molecule, found on first use.
const std::vector<char> &Matcher::recSet(int r) {
  Rec &x = recs_[r];
  if (!x.known) {
    x.known = true;
    if (!x.sub->roots(*mol_, graph_, cls_, x.set)) overflow_ = true;
  }
  return x.set;
}

// atomOK: query atom qa may take atom idx (class c) of the running has()'s
// molecule, as SubstructMatch's AtomLabelFunctor answers.
bool Matcher::atomOK(unsigned qa, unsigned idx, std::uint16_t c) {
  if (atomRoot_[qa] >= 0 && c != Classes::kNone && cls_) {
    int t = atomTri(qa, c, *cls_);
    if (t != 2) return t != 0;
  }
  if (chiral_[qa] && !chiralTag(mol_->getAtomWithIdx(idx))) return false;
  if (atomRoot_[qa] >= 0) return eval(atomRoot_[qa], idx, c);
  return atomCompat(qatoms_[qa], mol_->getAtomWithIdx(idx), ps_);
}

// accept decides a complete mapping: RDKit's final check, then when
// listing embeddings (roots), its root marked and the walk told to go on,
// up to RDKit's limit.
bool Matcher::accept(const std::uint32_t *map) {
  MolMatchFinalCheckFunctor check(q_, *mol_, ps_);
  if (!check(qidx_.data(), map)) return false;
  if (!enumerate_) return true;
  if (++count_ > maxRecursiveEmbeddings) {
    overflow_ = true;
    return true;  // stop
  }
  (*roots_)[map[recRoot_]] = 1;
  return false;
}

// roots marks in out the molecule atoms the query's root atom takes in
// some embedding; false when there are more than RDKit's 1,000.
bool Matcher::roots(const ROMol &m, const std::uint16_t *g, const Classes *cls, std::vector<char> &out) {
  out.assign(g ? g[0] : m.getNumAtoms(), 0);
  enumerate_ = true;
  count_ = 0;
  roots_ = &out;
  if (g && cls) {
    has(m, g, *cls);
  } else {
    has(m);
  }
  enumerate_ = false;
  roots_ = nullptr;
  return !overflow_;
}

bool Matcher::compat(unsigned qa, unsigned ma) {
  int8_t &c = memo_[size_t(qa) * matoms_.size() + ma];
  if (c < 0) c = atomOK(qa, ma, Classes::kNone) ? 1 : 0;
  return c != 0;
}

// Exact is has's molecule: RDKit's atoms and bonds, compared by RDKit's
// atomCompat (memoised) and bondCompat, a complete mapping accepted by
// RDKit's MolMatchFinalCheckFunctor.
struct Matcher::Exact {
  Matcher &x;
  const ROMol &m;
  unsigned size() const { return m.getNumAtoms(); }
  bool atom(unsigned qa, unsigned ma) { return x.compat(qa, ma); }
  bool bond(const Bond *qb, unsigned ma, unsigned mb) const {
    const Bond *b = m.getBondBetweenAtoms(ma, mb);
    return b && x.bondOK(qb, b);
  }
  // The neighbours of the parent's image, listed once per visit of step k.
  unsigned degree(unsigned k, unsigned pa, bool fresh) {
    auto &nb = x.nbrs_[k];
    if (fresh) {
      nb.clear();
      for (const auto b : m.atomBonds(x.matoms_[pa])) nb.emplace_back(b->getOtherAtomIdx(pa), b);
    }
    return nb.size();
  }
  unsigned neighbour(unsigned k, unsigned, unsigned i) const { return x.nbrs_[k][i].first; }
  bool parentBond(unsigned k, unsigned, unsigned i) const {
    return x.bondOK(x.steps_[k].parentBond, x.nbrs_[k][i].second);
  }
  bool complete() const { return x.accept(x.map_.data()); }
};

// bondOK: query bond qb may take molecule bond b, as SubstructMatch's
// BondLabelFunctor answers.
bool Matcher::bondOK(const Bond *qb, const Bond *b) const {
  if (stereoBond_[qb->getIdx()] && b->getBondType() == Bond::DOUBLE &&
      b->getStereo() <= Bond::STEREOANY) {
    return false;
  }
  return bondCompat(qb, b, ps_);
}

// start readies the per-molecule state of has() for m.
void Matcher::start(const ROMol &m, const std::uint16_t *g, const Classes *cls) {
  overflow_ = false;
  mol_ = &m;
  graph_ = g;
  cls_ = cls;
  for (auto &r : recs_) r.known = false;
}

bool Matcher::has(const ROMol &m) {
  const unsigned nq = steps_.size(), nm = m.getNumAtoms();
  start(m, nullptr, nullptr);
  if (nq == 0 || nq > nm) return false;
  matoms_.resize(nm);
  for (unsigned i = 0; i < nm; i++) matoms_[i] = m.getAtomWithIdx(i);
  memo_.assign(size_t(nq) * nm, -1);
  Exact g{*this, m};
  return walk(g);
}

// atomClassSlow and bondClassSlow are the first answers for a class (the
// inline atomClass and bondClass look the table up).
bool Matcher::atomClassSlow(unsigned qa, std::uint16_t c, const Classes &cls) {
  auto &t = atomTab_[qa];
  if (c >= t.size()) t.resize(cls.atomClasses(), -1);
  int8_t &v = t[c];
  if (v < 0) v = atomCompat(qatoms_[qa], cls.atom(c), ps_) ? 1 : 0;
  return v != 0;
}

bool Matcher::bondClassSlow(const Bond *qb, std::uint16_t c, const Classes &cls) {
  auto &t = bondTab_[qb->getIdx()];
  if (c >= t.size()) t.resize(cls.bondClasses(), -1);
  int8_t &v = t[c];
  if (v < 0) v = bondCompat(qb, cls.bond(c), ps_) ? 1 : 0;
  return v != 0;
}

// kinds are the Summary kinds query atom qa can take (cyc: the query's
// atoms on a cycle), 0xffff when any.
std::uint16_t Matcher::kinds(unsigned qa, const Classes &cls, const std::vector<char> &cyc) {
  std::uint16_t k = 0;
  if (atomByClass_[qa]) {
    for (std::size_t c = 0; c < cls.atomClasses(); c++) {
      const Atom *r = cls.atom(std::uint16_t(c));
      std::uint16_t e = kindsOf(r->getAtomicNum(), r->getIsAromatic());
      if ((k & e) != e && atomClass(qa, std::uint16_t(c), cls)) k |= e;
    }
  } else if (atomRoot_[qa] >= 0) {
    k = nodeKinds(atomRoot_[qa], cls);
  } else {
    k = 0xffff;
  }
  if (cyc[qa]) k &= std::uint16_t(~acyclicKinds);
  return k;
}

// nodeKinds: the kinds of the atoms that may satisfy a node: those of the
// classes a leaf matches, a recursive SMARTS's root atom's, intersected
// under AND, joined under OR and XOR; any under a negation.
std::uint16_t Matcher::nodeKinds(int node, const Classes &cls) {
  Node &n = nodes_[node];
  switch (n.kind) {
    case Node::kLeaf: {
      if (!n.byClass) return 0xffff;
      std::uint16_t k = 0;
      if (n.tab.size() < cls.atomClasses()) n.tab.resize(cls.atomClasses(), -1);
      for (std::size_t c = 0; c < cls.atomClasses(); c++) {
        const Atom *r = cls.atom(std::uint16_t(c));
        std::uint16_t e = kindsOf(r->getAtomicNum(), r->getIsAromatic());
        if ((k & e) == e) continue;
        int8_t &v = n.tab[c];
        if (v < 0) v = n.q->Match(r) ? 1 : 0;
        if (v) k |= e;
      }
      return k;
    }
    case Node::kRec: {
      if (n.neg) return 0xffff;
      Rec &r = recs_[n.rec];
      return r.sub->kinds(r.root, cls, cyclicAtoms(r.sub->q_));
    }
    case Node::kAnd: {
      if (n.neg) return 0xffff;
      std::uint16_t k = 0xffff;
      for (int kid : n.kids) k &= nodeKinds(kid, cls);
      return k;
    }
    default: {  // OR, XOR: at least one child holds
      if (n.neg) return 0xffff;
      std::uint16_t k = 0;
      for (int kid : n.kids) k |= nodeKinds(kid, cls);
      return k;
    }
  }
}

int Matcher::need(const Classes &cls, std::uint64_t *out, int cap) {
  if (!usable_ || cap < 3) return 0;
  const unsigned nq = qatoms_.size();
  const auto cyc = cyclicAtoms(q_);
  // the kinds each query atom can take: those of the classes it matches
  // (every held molecule's atoms have a class, or the molecule's Summary
  // is all ones), only those on a cycle if the atom is on one of the query
  std::vector<std::uint16_t> kinds(nq);
  for (unsigned qa = 0; qa < nq; qa++) kinds[qa] = this->kinds(qa, cls, cyc);
  // at least as many atoms of the kinds of a set as query atoms whose
  // kinds it includes; an empty mask would also stop the molecules whose
  // Summary is all ones: never written
  std::vector<std::uint64_t> atomNeeds, bondNeeds;
  std::vector<std::uint16_t> sets;
  for (unsigned qa = 0; qa < nq; qa++) {
    std::uint16_t s = kinds[qa];
    if (s == 0 || s == 0xffff || std::find(sets.begin(), sets.end(), s) != sets.end()) continue;
    sets.push_back(s);
  }
  std::stable_sort(sets.begin(), sets.end(), [](std::uint16_t a, std::uint16_t b) {
    return __builtin_popcount(a) < __builtin_popcount(b);
  });
  for (std::uint16_t s : sets) {
    unsigned cnt = 0;
    for (unsigned qa = 0; qa < nq; qa++) {
      if ((kinds[qa] & ~s) == 0) cnt++;
    }
    atomNeeds.push_back(std::uint64_t(s) | (std::uint64_t(std::min(cnt, 15u)) << 16));
  }
  // a bond of one of the kinds a query bond can take
  for (const auto qb : q_.bonds()) {
    unsigned types = 0;
    if (!bondByClass_[qb->getIdx()]) {
      types = 0x1f;
    } else {
      for (std::size_t c = 0; c < cls.bondClasses(); c++) {
        unsigned t = 1u << bondBucket(cls.bond(std::uint16_t(c))->getBondType());
        if (!(types & t) && bondClass(qb, std::uint16_t(c), cls)) types |= t;
      }
    }
    std::uint16_t ka = kinds[qb->getBeginAtomIdx()], kb = kinds[qb->getEndAtomIdx()];
    std::uint64_t mask = 0;
    bool always = false;
    for (int a = 0; a < 16 && !always; a++) {
      if (!(ka >> a & 1)) continue;
      for (int b = 0; b < 16 && !always; b++) {
        if (!(kb >> b & 1)) continue;
        for (int t = 0; t < 5; t++) {
          if (!(types >> t & 1)) continue;
          int bit = bondBit(a, b, t);
          if (bit < 0) {
            always = true;
            break;
          }
          mask |= std::uint64_t(1) << bit;
        }
      }
    }
    if (always || mask == 0 || mask == ~std::uint64_t(0)) continue;
    if (std::find(bondNeeds.begin(), bondNeeds.end(), mask) == bondNeeds.end()) bondNeeds.push_back(mask);
  }
  // the lengths of the query's simple cycles (some of them if there are
  // too many to list: each one found is a requirement)
  std::uint64_t lens = 0;
  cycleLengths(q_, &lens);
  // A recursive SMARTS that every image of a query atom satisfies (one
  // not negated, under ANDs only) embeds in the molecule: what it needs,
  // the molecule has. Why: the atom's own kinds say little of such a
  // query ([C;$(C=O);!$(C(=O)[O,N])] takes any aliphatic carbon).
  for (unsigned qa = 0; qa < nq; qa++) {
    if (atomRoot_[qa] < 0) continue;
    std::vector<int> todo{atomRoot_[qa]};
    while (!todo.empty()) {
      const Node &n = nodes_[todo.back()];
      todo.pop_back();
      if (n.neg) continue;
      if (n.kind == Node::kAnd) {
        todo.insert(todo.end(), n.kids.begin(), n.kids.end());
        continue;
      }
      if (n.kind != Node::kRec) continue;
      std::vector<std::uint64_t> sub(std::max(cap, 3));
      int sw = recs_[n.rec].sub->need(cls, sub.data(), int(sub.size()));
      if (sw < 3) continue;
      std::uint64_t sk = sub[0];
      if (sk + 2 > std::uint64_t(sw)) continue;
      for (std::uint64_t i = 0; i < sk; i++) {
        if (std::find(atomNeeds.begin(), atomNeeds.end(), sub[1 + i]) == atomNeeds.end()) atomNeeds.push_back(sub[1 + i]);
      }
      std::uint64_t sb = sub[1 + sk];
      if (sk + 2 + sb > std::uint64_t(sw)) continue;
      for (std::uint64_t i = 0; i < sb; i++) {
        if (std::find(bondNeeds.begin(), bondNeeds.end(), sub[2 + sk + i]) == bondNeeds.end()) bondNeeds.push_back(sub[2 + sk + i]);
      }
      if (sk + 2 + sb < std::uint64_t(sw)) lens |= sub[2 + sk + sb];
    }
  }
  std::stable_sort(bondNeeds.begin(), bondNeeds.end(), [](std::uint64_t a, std::uint64_t b) {
    return __builtin_popcountll(a) < __builtin_popcountll(b);
  });
  int w = 0;
  int k = std::min<int>(int(atomNeeds.size()), cap - 3);
  out[w++] = std::uint64_t(k);
  for (int i = 0; i < k; i++) out[w++] = atomNeeds[i];
  int b = std::min<int>(int(bondNeeds.size()), cap - w - 2);
  out[w++] = std::uint64_t(b);
  for (int i = 0; i < b; i++) out[w++] = bondNeeds[i];
  out[w++] = lens;
  return w;
}

// Classed is has's molecule with its Graph: atoms and bonds by class where
// both the query's and the molecule's allow it, else by RDKit on m.
struct Matcher::Classed {
  Matcher &x;
  const ROMol &m;
  const Classes &cls;
  unsigned n;
  const std::uint16_t *acls, *start, *nbr, *bcls;  // see Graph
  unsigned size() const { return n; }
  bool atom(unsigned qa, unsigned ma) {
    std::uint16_t c = acls[ma];
    if (c != Classes::kNone && x.classOnly_[qa]) return x.atomClass(qa, c, cls);
    return x.atomOK(qa, ma, c);
  }
  // bondAt compares query bond qb with the bond of neighbour entry j of
  // molecule atom ma. A bond of a query cycle takes only a bond on a
  // cycle (any image of a cycle is one).
  bool bondAt(const Bond *qb, unsigned ma, unsigned j) {
    std::uint16_t c = bcls[j];
    const unsigned qi = qb->getIdx();
    if (c != Classes::kNone) {
      if (x.qbCyclic_[qi] && !cls.cyclic(c)) return false;
      if (x.bondByClass_[qi] && !x.stereoBond_[qi]) return x.bondClass(qb, c, cls);
    }
    const Bond *b = m.getBondBetweenAtoms(ma, nbr[j]);
    return b && x.bondOK(qb, b);
  }
  bool bond(const Bond *qb, unsigned ma, unsigned mb) {
    for (unsigned j = start[ma]; j < start[ma + 1]; j++) {
      if (nbr[j] == mb) return bondAt(qb, ma, j);
    }
    return false;
  }
  unsigned degree(unsigned, unsigned pa, bool) const { return start[pa + 1] - start[pa]; }
  unsigned neighbour(unsigned, unsigned pa, unsigned i) const { return nbr[start[pa] + i]; }
  bool parentBond(unsigned k, unsigned pa, unsigned i) {
    return bondAt(x.steps_[k].parentBond, pa, start[pa] + i);
  }
  bool complete() const { return x.accept(x.map_.data()); }
};

bool Matcher::has(const ROMol &m, const std::uint16_t *g, const Classes &cls) {
  if (!g) return has(m);
  const unsigned nq = steps_.size(), n = g[0], nb2 = g[1];
  start(m, g, &cls);
  if (nq == 0 || nq > n) return false;
  const std::uint16_t *acls = &g[2], *start = acls + n, *nbr = start + n + 1;
  Classed c{*this, m, cls, n, acls, start, nbr, nbr + nb2};
  return walk(c);
}

}  // namespace mg
