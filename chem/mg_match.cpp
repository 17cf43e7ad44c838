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

}  // namespace

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
