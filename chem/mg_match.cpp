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

bool Matcher::mayHave(const Compact &c) {
  if (c.empty()) return true;
  const unsigned nq = steps_.size(), n = c[0];
  if (nq > n) return false;
  const std::uint8_t *type = &c[1], *start = &c[1 + n], *adj = &c[2 + 2 * n];
  auto bondBetween = [&](unsigned a, unsigned b) -> int {
    for (unsigned i = start[a]; i < start[a + 1]; i++) {
      if (adj[2 * i] == b) return adj[2 * i + 1];
    }
    return -1;
  };
  used_.assign(n, 0);
  std::vector<int> &cur = cur_;
  cur.assign(nq, -1);
  int k = 0;
  cursor_[0] = 0;
  while (true) {
    if (k == int(nq)) return true;
    const Step &s = steps_[k];
    const Codes &ts = types_[s.atom];
    int found = -1;
    auto ok = [&](unsigned ma) {
      if (used_[ma] || !ts.test(type[ma])) return false;
      for (const auto &[qa, qb] : s.back) {
        int bc = bondBetween(ma, map_[qa]);
        if (bc < 0 || !(bc & bondTypes_[qb->getIdx()])) return false;
      }
      return true;
    };
    if (s.parent < 0) {
      while (cursor_[k] < n) {
        unsigned ma = cursor_[k]++;
        if (ok(ma)) {
          found = int(ma);
          break;
        }
      }
    } else {
      unsigned pa = unsigned(cur[s.parent]);
      std::uint8_t pb = bondTypes_[s.parentBond->getIdx()];
      while (start[pa] + cursor_[k] < start[pa + 1]) {
        unsigned i = start[pa] + cursor_[k]++;
        if ((adj[2 * i + 1] & pb) && ok(adj[2 * i])) {
          found = adj[2 * i];
          break;
        }
      }
    }
    if (found >= 0) {
      cur[k] = found;
      used_[found] = 1;
      map_[s.atom] = unsigned(found);
      k++;
      if (k < int(nq)) cursor_[k] = 0;
      continue;
    }
    k--;
    if (k < 0) return false;
    used_[cur[k]] = 0;
    cur[k] = -1;
  }
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

// place reports whether query step k may take molecule atom ma (its parent
// bond already checked by the caller).
bool Matcher::place(const ROMol &m, unsigned k, unsigned ma) {
  const Step &s = steps_[k];
  if (used_[ma] || !compat(s.atom, ma)) return false;
  for (const auto &[qa, qb] : s.back) {
    const Bond *mb = m.getBondBetweenAtoms(ma, map_[qa]);
    if (!mb || !bondCompat(qb, mb, ps_)) return false;
  }
  return true;
}

bool Matcher::has(const ROMol &m) {
  const unsigned nq = steps_.size(), nm = m.getNumAtoms();
  if (nq == 0 || nq > nm) return false;
  matoms_.resize(nm);
  for (unsigned i = 0; i < nm; i++) matoms_[i] = m.getAtomWithIdx(i);
  memo_.assign(size_t(nq) * nm, -1);
  used_.assign(nm, 0);
  std::vector<int> &cur = cur_;  // molecule atom of each step
  cur.assign(nq, -1);
  // Each step's candidates: every molecule atom for a component's first
  // atom, else the bonds of the parent's image, walked by a cursor.
  auto &nbrs = nbrs_;
  int k = 0;
  cursor_[0] = 0;
  while (true) {
    if (k == int(nq)) {
      MolMatchFinalCheckFunctor check(q_, m, ps_);
      if (check(qidx_.data(), map_.data())) return true;
      k--;
      used_[cur[k]] = 0;
      cur[k] = -1;
      continue;
    }
    const Step &s = steps_[k];
    int found = -1;
    if (s.parent < 0) {
      while (cursor_[k] < nm) {
        unsigned ma = cursor_[k]++;
        if (place(m, k, ma)) {
          found = int(ma);
          break;
        }
      }
    } else {
      auto &nb = nbrs[k];
      if (cursor_[k] == 0) {
        nb.clear();
        const Atom *pa = matoms_[cur[s.parent]];
        for (const auto b : m.atomBonds(pa)) {
          nb.emplace_back(b->getOtherAtomIdx(pa->getIdx()), b);
        }
      }
      while (cursor_[k] < nb.size()) {
        const auto &[ma, mb] = nb[cursor_[k]++];
        if (!used_[ma] && compat(s.atom, ma) && bondCompat(s.parentBond, mb, ps_) &&
            place(m, k, ma)) {
          found = int(ma);
          break;
        }
      }
    }
    if (found >= 0) {
      cur[k] = found;
      used_[found] = 1;
      map_[s.atom] = unsigned(found);
      k++;
      if (k < int(nq)) cursor_[k] = 0;
      continue;
    }
    k--;
    if (k < 0) return false;
    used_[cur[k]] = 0;
    cur[k] = -1;
  }
}

}  // namespace mg
