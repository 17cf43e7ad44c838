// mg_screen.cpp: cheap necessary conditions for a SMARTS match, the
// Wildman-Crippen logP computed with them, and per-thread HBA and
// rotatable-bond counters.
//
// The descriptors of a molecule run ~250 substructure searches (Crippen's
// ~110 atom types, QED's 11 acceptor and 116 alert patterns), and most of
// them cannot match: they ask for an element or an aromatic atom the
// molecule has not. RDKit's VF2 search pays its set-up cost even then, so
// each pattern here carries, per query atom, the set of (element,
// aromaticity) types its query admits, worked out from the query tree and
// erring on "any"; a pattern is searched only if every query atom has a
// type present in the molecule. Skipping a pattern that cannot match leaves
// every result exactly as RDKit computes it.
#include "mg_internal.hpp"

#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/MolStandardize/AcidBaseCatalog/AcidBaseCatalogParams.h>
#include <GraphMol/MolStandardize/Charge.h>
#include <GraphMol/MolStandardize/MolStandardize.h>
#include <GraphMol/MolStandardize/TransformCatalog/TransformCatalogParams.h>
#include <GraphMol/ChemReactions/Reaction.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/QueryAtom.h>
#include <GraphMol/QueryOps.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/Substruct/SubstructMatch.h>

#include <boost/dynamic_bitset.hpp>

#include <algorithm>
#include <typeinfo>

using namespace RDKit;

namespace mg {

namespace {

// typeIndex is an atom's slot in a TypeSet: its element, plus 128 if
// aromatic (elements beyond 127 share the last slot).
unsigned typeIndex(int atomicNum, bool aromatic) {
  unsigned z = atomicNum < 0 ? 0 : atomicNum > 127 ? 127 : atomicNum;
  return z + (aromatic ? 128 : 0);
}

TypeSet allTypes() {
  TypeSet s;
  s.set();
  return s;
}

// equality returns q as an equality query, or nullptr if it is another kind
// (a range, less or greater query).
const ATOM_EQUALS_QUERY *equality(const Atom::QUERYATOM_QUERY *q) {
  if (typeid(*q) != typeid(ATOM_EQUALS_QUERY)) return nullptr;
  return static_cast<const ATOM_EQUALS_QUERY *>(q);
}

// admitted over-approximates the atom types a query admits. Anything it
// does not understand (negation, recursion, ranges) admits every type.
TypeSet admitted(const Atom::QUERYATOM_QUERY *q) {
  if (!q || q->getNegation()) return allTypes();
  const std::string &d = q->getDescription();
  if (d == "AtomAnd") {
    TypeSet s = allTypes();
    for (auto c = q->beginChildren(); c != q->endChildren(); ++c) {
      s &= admitted(c->get());
    }
    return s;
  }
  if (d == "AtomOr") {
    TypeSet s;
    for (auto c = q->beginChildren(); c != q->endChildren(); ++c) {
      s |= admitted(c->get());
    }
    return s;
  }
  if (d == "AtomAtomicNum" || d == "AtomType") {
    auto eq = equality(q);
    if (!eq) return allTypes();
    TypeSet s;
    if (d == "AtomAtomicNum") {
      s.set(typeIndex(eq->getVal(), false));
      s.set(typeIndex(eq->getVal(), true));
    } else {
      int z;
      bool arom;
      parseAtomType(eq->getVal(), z, arom);
      s.set(typeIndex(z, arom));
    }
    return s;
  }
  if (d == "AtomIsAromatic" || d == "AtomIsAliphatic") {
    auto eq = equality(q);
    if (!eq || eq->getVal() != 1) return allTypes();
    TypeSet s;
    for (unsigned i = 0; i < 128; ++i) s.set(i + (d == "AtomIsAromatic" ? 128 : 0));
    return s;
  }
  return allTypes();
}

// queryAtomUsable reports whether a query atom can be tested on one atom
// outside a search: a recursive SMARTS is only evaluated by the search.
bool queryAtomUsable(const Atom::QUERYATOM_QUERY *q) {
  if (!q) return false;
  if (q->getDescription() == "RecursiveStructure") return false;
  for (auto c = q->beginChildren(); c != q->endChildren(); ++c) {
    if (!queryAtomUsable(c->get())) return false;
  }
  return true;
}

// conjuncts collects the parts of q that every match must pass and that
// can be tested alone: q itself if it can, else (an AND) those of its
// children. A negated or an OR node over a recursive SMARTS adds nothing.
void conjuncts(const Atom::QUERYATOM_QUERY *q, std::vector<const Atom::QUERYATOM_QUERY *> &out) {
  if (queryAtomUsable(q)) {
    out.push_back(q);
    return;
  }
  if (q->getNegation() || q->getDescription() != "AtomAnd") return;
  for (auto c = q->beginChildren(); c != q->endChildren(); ++c) conjuncts(c->get(), out);
}

}  // namespace

Pattern::QueryAtomRef::QueryAtomRef(const Atom *a) : atom(a) {
  if (!a || !a->hasQuery()) return;
  usable = queryAtomUsable(a->getQuery());
  if (!usable) conjuncts(a->getQuery(), parts);
}

bool Pattern::QueryAtomRef::mayMatch(const Atom *a) const {
  if (usable) return atom->Match(a);
  for (const auto *q : parts) {
    if (!q->Match(a)) return false;
  }
  return true;
}

MolTypes typesOf(const ROMol &mol) {
  MolTypes t;
  std::vector<unsigned> n(256);
  for (const auto a : mol.atoms()) {
    unsigned i = typeIndex(a->getAtomicNum(), a->getIsAromatic());
    t.present.set(i);
    n[i]++;
  }
  for (unsigned i = 0; i < n.size(); ++i) {
    if (n[i]) t.counts.emplace_back(i, n[i]);
  }
  return t;
}

unsigned MolTypes::atoms(const TypeSet &s) const {
  unsigned n = 0;
  for (const auto &c : counts) {
    if (s.test(c.first)) n += c.second;
  }
  return n;
}

Pattern::Pattern(std::shared_ptr<const ROMol> q) : q_(std::move(q)) {
  if (!q_) throw std::runtime_error("null pattern");
  std::vector<TypeSet> sets;
  for (const auto a : q_->atoms()) {
    TypeSet s = a->hasQuery() ? admitted(a->getQuery()) : allTypes();
    if (!s.all()) sets.push_back(s);
    QueryAtomRef r(a);
    if (r.usable || !r.parts.empty()) atoms_.push_back(r);
  }
  if (q_->getNumAtoms() > 0) first_ = QueryAtomRef(q_->getAtomWithIdx(0));
  for (const auto &s : sets) {
    if (std::any_of(need_.begin(), need_.end(), [&](const auto &n) { return n.first == s; })) {
      continue;
    }
    unsigned k = 0;
    for (const auto &o : sets) {
      if ((o & ~s).none()) ++k;  // o is a subset of s
    }
    need_.emplace_back(s, k);
  }
  for (const auto b : q_->bonds()) {
    if (b->hasQuery()) edges_.push_back({b, QueryAtomRef(b->getBeginAtom()), QueryAtomRef(b->getEndAtom())});
  }
}

Pattern Pattern::fromSmarts(const std::string &smarts) {
  std::shared_ptr<const ROMol> q(SmartsToMol(smarts));
  if (!q) throw std::runtime_error("bad SMARTS " + smarts);
  return Pattern(q);
}

bool Pattern::mayMatch(const MolTypes &types) const {
  for (const auto &n : need_) {
    if ((n.first & types.present).none()) return false;
  }
  for (const auto &n : need_) {
    if (n.second > 1 && types.atoms(n.first) < n.second) return false;
  }
  return true;
}

// mayMatch adds to the type test that every query atom matches some atom
// of mol, and every query bond some bond of mol with its two atoms: a match
// maps each of them to one, and the search tests them with the same Match
// (see QueryAtomRef for recursive SMARTS). A test that needs what mol lacks
// (ring information) counts as a possible match.
bool Pattern::mayMatch(const ROMol &mol, const MolTypes &types) const {
  if (!mayMatch(types)) return false;
  try {
    for (const auto &qa : atoms_) {
      bool found = false;
      for (const auto a : mol.atoms()) {
        if (qa.mayMatch(a)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    for (const auto &e : edges_) {
      bool found = false;
      for (const auto b : mol.bonds()) {
        const Atom *a = b->getBeginAtom(), *c = b->getEndAtom();
        if (e.bond->Match(b) && ((e.begin.mayMatch(a) && e.end.mayMatch(c)) ||
                                 (e.begin.mayMatch(c) && e.end.mayMatch(a)))) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
  } catch (...) {
    return true;
  }
  return true;
}

bool Pattern::firstMayMatch(const Atom *a) const {
  try {
    return first_.mayMatch(a);
  } catch (...) {
    return true;  // e.g. ring information the search would compute
  }
}

namespace {

// shared keeps the catalog's query molecule alive for as long as the
// Pattern that borrows it.
std::shared_ptr<const ROMol> shared(boost::shared_ptr<const ROMol> m) {
  return std::shared_ptr<const ROMol>(m.get(), [m](const ROMol *) {});
}

}  // namespace

StepScreen StepScreen::reionizer() {
  StepScreen s;
  for (const auto &cc : MolStandardize::CHARGE_CORRECTIONS) {
    s.patterns_.push_back(Pattern::fromSmarts(cc.Smarts));
  }
  // the built-in acid-base pairs when acidbaseFile is empty
  MolStandardize::AcidBaseCatalogParams params(
      MolStandardize::defaultCleanupParameters.acidbaseFile);
  for (const auto &pair : params.getPairs()) s.patterns_.emplace_back(shared(pair.second));
  if (params.getPairs().empty()) s.always_ = true;
  return s;
}

StepScreen StepScreen::normalizer() {
  StepScreen s;
  MolStandardize::TransformCatalogParams params(
      MolStandardize::defaultCleanupParameters.normalizations);
  for (const auto &rxn : params.getTransformations()) {
    rxn->initReactantMatchers();
    if (rxn->getNumReactantTemplates() != 1) {
      s.always_ = true;  // the Normalizer runs transforms on one molecule
      continue;
    }
    s.patterns_.emplace_back(shared(rxn->getReactants()[0]));
  }
  if (params.getTransformations().empty()) s.always_ = true;
  return s;
}

bool StepScreen::mayChange(const ROMol &mol, const MolTypes &types) const {
  if (always_) return true;
  for (const auto &p : patterns_) {
    if (p.mayMatch(mol, types)) return true;
  }
  return false;
}

std::vector<const Pattern *> StepScreen::patterns() const {
  std::vector<const Pattern *> out;
  for (const auto &p : patterns_) out.push_back(&p);
  return out;
}

std::vector<const Pattern *> Crippen::patterns() const {
  std::vector<const Pattern *> out;
  for (const auto &t : types_) out.push_back(&t.pattern);
  return out;
}

Crippen::Crippen() {
  const auto *params = Descriptors::CrippenParamCollection::getParams();
  for (const auto &p : *params) {
    types_.push_back({Pattern(shared(p.dp_pattern)), p.logp});
  }
}

// logP is RDKit's Descriptors::calcCrippenDescriptors (includeHs) logP: the
// atoms of the molecule with explicit hydrogens are typed by the first
// pattern (in table order) whose first atom they match, and the
// contributions summed in atom order. A pattern is skipped when it cannot
// match or when no atom still untyped can be its first atom: it would
// type nothing.
double Crippen::logP(const ROMol &mol) const {
  std::unique_ptr<ROMol> h(MolOps::addHs(mol, false, false));
  const unsigned n = h->getNumAtoms();
  std::vector<double> contrib(n, 0.0);
  boost::dynamic_bitset<> needed(n);
  needed.set();
  const MolTypes present = typesOf(*h);
  std::vector<MatchVectType> matches;
  for (const auto &t : types_) {
    if (!t.pattern.mayMatch(present)) continue;
    bool any = false;
    for (auto i = needed.find_first(); i != needed.npos; i = needed.find_next(i)) {
      if (t.pattern.firstMayMatch(h->getAtomWithIdx(i))) {
        any = true;
        break;
      }
    }
    if (!any || !t.pattern.mayMatch(*h, present)) continue;
    matches.clear();
    SubstructMatch(*h, t.pattern.mol(), matches, false, true);
    for (const auto &m : matches) {
      int idx = m[0].second;
      if (needed[idx]) {
        needed[idx] = 0;
        contrib[idx] = t.logp;
      }
    }
    if (needed.none()) break;
  }
  double logp = 0.0;
  for (double c : contrib) logp += c;
  return logp;
}

// The SMARTS of RDKit 2022.09 (Code/GraphMol/Descriptors/Lipinski.cpp, as
// compiled into libRDKitDescriptors): NumHBA 2.0.1 and the Strict
// rotatable-bond pattern.
const char *const hbaSmarts =
    "[$([O,S;H1;v2]-[!$(*=[O,N,P,S])]),$([O,S;H0;v2]),$([O,S;-]),"
    "$([N;v3;!$(N-*=!@[O,N,P,S])]),$([nH0,o,s;+0])]";
const char *const rotbStrictSmarts =
    "[!$(*#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])("
    "[CH3])[CH3])&!$([CD3](=[N,O,S])-!@[#7,O,S!D1])&!$([#7,O,S!D1]-!@[CD3]="
    "[N,O,S])&!$([CD3](=[N+])-!@[#7!D1])&!$([#7!D1]-!@[CD3]=[N+])]-,:;!@[!$(*"
    "#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])([CH3])"
    "[CH3])]";

Counters::Counters()
    : hba_(SmartsToMol(hbaSmarts)), rotb_(SmartsToMol(rotbStrictSmarts)) {
  if (!hba_ || !rotb_) throw std::runtime_error("bad counter SMARTS");
}

// Both count unique matches with RDKit's default parameters, as
// ss_matcher::countMatches does.
unsigned Counters::hba(const ROMol &mol) const {
  return static_cast<unsigned>(SubstructMatch(mol, *hba_, SubstructMatchParameters()).size());
}

unsigned Counters::rotatableBonds(const ROMol &mol) const {
  return static_cast<unsigned>(SubstructMatch(mol, *rotb_, SubstructMatchParameters()).size());
}

}  // namespace mg
