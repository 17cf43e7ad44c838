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
// Queries it cannot take (recursive SMARTS, chirality) go to
// SubstructMatch; the tests compare both on every query and molecule.
#include "mg_match.h"

#include <GraphMol/QueryAtom.h>
#include <GraphMol/QueryOps.h>
#include <GraphMol/Substruct/SubstructUtils.h>

#include <algorithm>
#include <deque>

using namespace RDKit;

namespace mg {

namespace {

// recursive reports whether an atom query holds a recursive SMARTS.
bool recursive(const Atom::QUERYATOM_QUERY *q) {
  if (!q) return false;
  if (q->getDescription() == "RecursiveStructure") return true;
  for (auto it = q->beginChildren(); it != q->endChildren(); ++it) {
    if (recursive(it->get())) return true;
  }
  return false;
}

// rank orders start atoms: an atom of a definite element other than carbon
// is likelier to have few images in a molecule than a carbon, and a carbon
// than an atom of no definite element; then the higher query degree.
int rank(const Atom *a) {
  int z = a->getAtomicNum();
  int r = z == 0 ? 0 : (z == 6 ? 1 : 2);
  return r * 16 + std::min<int>(a->getDegree(), 15);
}

// atomCode is an atom's element and aromaticity in one byte.
std::uint8_t atomCode(int z, bool aromatic) {
  return std::uint8_t((z < 0 || z > 127 ? 0 : z) | (aromatic ? 128 : 0));
}

// bondCode is a bond type as one bit.
std::uint8_t bondCode(Bond::BondType t) {
  switch (t) {
    case Bond::SINGLE: return 1;
    case Bond::DOUBLE: return 2;
    case Bond::TRIPLE: return 4;
    case Bond::AROMATIC: return 8;
    default: return 16;
  }
}

using Codes = std::bitset<256>;

Codes allCodes() { return Codes().set(); }

Codes elementCodes(int z) {
  Codes c;
  c.set(atomCode(z, false));
  c.set(atomCode(z, true));
  return c;
}

// atomCodes is a superset of the codes of the atoms a query matches:
// element and aromaticity where the query fixes them (AtomAtomicNum,
// AtomType, under AND and OR), else every code.
Codes atomCodes(const Atom::QUERYATOM_QUERY *q) {
  if (!q || q->getNegation()) return allCodes();
  const std::string &d = q->getDescription();
  if (d == "AtomAtomicNum" || d == "AtomType") {
    auto eq = dynamic_cast<const ATOM_EQUALS_QUERY *>(q);
    if (!eq) return allCodes();
    int v = eq->getVal();
    if (d == "AtomAtomicNum") return v > 0 && v < 128 ? elementCodes(v) : allCodes();
    int z = v % 1000;  // AtomType: number + 1000 if aromatic
    if (z <= 0 || z >= 128) return allCodes();
    Codes c;
    c.set(atomCode(z, v >= 1000));
    return c;
  }
  if (d == "AtomAnd" || d == "AtomOr") {
    bool isAnd = d == "AtomAnd";
    Codes c = isAnd ? allCodes() : Codes();
    for (auto it = q->beginChildren(); it != q->endChildren(); ++it) {
      Codes k = atomCodes(it->get());
      c = isAnd ? (c & k) : (c | k);
    }
    return c;
  }
  return allCodes();
}

// bondCodes is a superset of the bond codes a query bond matches.
std::uint8_t bondCodes(const Bond *b) {
  if (!b->hasQuery()) return 0xff;  // Bond::Match: left to the exact match
  const auto *q = b->getQuery();
  if (q->getNegation()) return 0xff;
  const std::string &d = q->getDescription();
  if (d == "SingleOrAromaticBond") return 1 | 8;
  if (d == "BondOrder") {
    auto eq = dynamic_cast<const BOND_EQUALS_QUERY *>(q);
    if (!eq) return 0xff;
    return bondCode(Bond::BondType(eq->getVal()));
  }
  return 0xff;
}

}  // namespace

Matcher::Compact Matcher::compact(const ROMol &m) {
  // n, then n atom codes, n+1 neighbour list starts, then per neighbour
  // its index and its bond's code.
  unsigned n = m.getNumAtoms(), nb = m.getNumBonds();
  Compact c;
  if (n == 0 || n > 255 || 2 * nb > 255 * 2) return c;
  c.reserve(1 + n + (n + 1) + 4 * nb);
  c.push_back(std::uint8_t(n));
  for (const auto a : m.atoms()) c.push_back(atomCode(a->getAtomicNum(), a->getIsAromatic()));
  size_t starts = c.size();
  c.resize(c.size() + n + 1);
  unsigned pos = 0;
  for (unsigned i = 0; i < n; i++) {
    c[starts + i] = std::uint8_t(pos);
    for (const auto b : m.atomBonds(m.getAtomWithIdx(i))) {
      c.push_back(std::uint8_t(b->getOtherAtomIdx(i)));
      c.push_back(bondCode(b->getBondType()));
      pos++;
      if (pos > 255) return Compact();
    }
  }
  c[starts + n] = std::uint8_t(pos);
  return c;
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

// Relaxed is mayHave's molecule: a Compact, atoms by their element and
// aromaticity code, bonds by their type code.
struct Matcher::Relaxed {
  const Matcher &x;
  unsigned n;
  const std::uint8_t *type, *start, *adj;  // see compact
  unsigned size() const { return n; }
  bool atom(unsigned qa, unsigned ma) const { return x.types_[qa].test(type[ma]); }
  bool bond(const Bond *qb, unsigned ma, unsigned mb) const {
    for (unsigned i = start[ma]; i < start[ma + 1]; i++) {
      if (adj[2 * i] == mb) return adj[2 * i + 1] & x.bondTypes_[qb->getIdx()];
    }
    return false;
  }
  unsigned degree(unsigned, unsigned pa, bool) const { return start[pa + 1] - start[pa]; }
  unsigned neighbour(unsigned, unsigned pa, unsigned i) const { return adj[2 * (start[pa] + i)]; }
  bool parentBond(unsigned k, unsigned pa, unsigned i) const {
    return adj[2 * (start[pa] + i) + 1] & x.bondTypes_[x.steps_[k].parentBond->getIdx()];
  }
  bool complete() const { return true; }
};

bool Matcher::mayHave(const Compact &c) {
  if (c.empty()) return true;
  const unsigned nq = steps_.size(), n = c[0];
  if (nq > n) return false;
  Relaxed g{*this, n, &c[1], &c[1 + n], &c[2 + 2 * n]};
  return walk(g);
}

Matcher::Matcher(const ROMol &query, const SubstructMatchParameters &ps)
    : q_(query), ps_(ps) {
  if (ps.useChirality || ps.useGenericMatchers || ps.extraFinalCheck) {
    usable_ = false;
  }
  unsigned nq = query.getNumAtoms();
  for (unsigned i = 0; i < nq; i++) {
    const Atom *a = query.getAtomWithIdx(i);
    qatoms_.push_back(a);
    if (a->hasQuery() && recursive(a->getQuery())) usable_ = false;
  }
  if (!usable_ || nq == 0) return;
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
  for (unsigned i = 0; i < nq; i++) {
    const Atom *a = qatoms_[i];
    if (a->hasQuery()) {
      types_.push_back(atomCodes(a->getQuery()));
    } else {
      // Atom::Match compares the element (a dummy matches any), not the
      // aromaticity
      int z = a->getAtomicNum();
      // (dummy molecule atoms kept: no claim on how they compare)
      Codes c = z > 0 && z < 128 ? elementCodes(z) : allCodes();
      c.set(atomCode(0, false));
      c.set(atomCode(0, true));
      types_.push_back(c);
    }
  }
  for (const auto b : query.bonds()) bondTypes_.push_back(bondCodes(b));
}

bool Matcher::compat(unsigned qa, unsigned ma) {
  int8_t &c = memo_[size_t(qa) * matoms_.size() + ma];
  if (c < 0) c = atomCompat(qatoms_[qa], matoms_[ma], ps_) ? 1 : 0;
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
    return b && bondCompat(qb, b, x.ps_);
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
    return bondCompat(x.steps_[k].parentBond, x.nbrs_[k][i].second, x.ps_);
  }
  bool complete() const {
    MolMatchFinalCheckFunctor check(x.q_, m, x.ps_);
    return check(x.qidx_.data(), x.map_.data());
  }
};

bool Matcher::has(const ROMol &m) {
  const unsigned nq = steps_.size(), nm = m.getNumAtoms();
  if (nq == 0 || nq > nm) return false;
  matoms_.resize(nm);
  for (unsigned i = 0; i < nm; i++) matoms_[i] = m.getAtomWithIdx(i);
  memo_.assign(size_t(nq) * nm, -1);
  Exact g{*this, m};
  return walk(g);
}

}  // namespace mg
