// mg_internal.hpp: C++ declarations shared by the chem/*.cpp files.
#ifndef MOLGRAPH_CHEM_MG_INTERNAL_HPP
#define MOLGRAPH_CHEM_MG_INTERNAL_HPP

#include <GraphMol/RWMol.h>
#include <GraphMol/ROMol.h>

#include <bitset>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mg {

// cString copies s into a NUL-terminated malloc'd string (nullptr when
// out of memory) for a C caller, which frees it with mg_free.
inline char *cString(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (!p) return nullptr;
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = 0;
  return p;
}

// InvalidMolecule is thrown for input a chemist must fix; its message is
// shown to the user as is.
struct InvalidMolecule : public std::runtime_error {
  explicit InvalidMolecule(const std::string &m) : std::runtime_error(m) {}
};

// InchiResult is the standard InChI of a molecule.
struct InchiResult {
  std::string inchi, key, message;  // message: InChI warning or error text
};

// molToInchi computes the standard InChI and key from 0D stereo parities.
// It takes the global libinchi mutex. On failure inchi is empty and message
// says why.
InchiResult molToInchi(const RDKit::ROMol &mol);

// inchiToMol builds a sanitized molecule from an InChI string (through
// GetStructFromStdINCHI). Throws InvalidMolecule.
RDKit::RWMol *inchiToMol(const std::string &inchi, std::string &warning);

// sanitizeMessage turns an RDKit sanitization exception into a message.
std::string sanitizeMessage(const std::exception &e, const RDKit::ROMol *mol);

// TypeSet is a set of atom types: element (slots 0-127) and aromatic
// element (128-255).
using TypeSet = std::bitset<256>;

// MolTypes counts the atom types of a molecule.
struct MolTypes {
  TypeSet present;
  std::vector<std::pair<unsigned, unsigned>> counts;  // (type, atoms)
  // atoms returns how many atoms have a type in s.
  unsigned atoms(const TypeSet &s) const;
};

// typesOf returns the atom types of mol.
MolTypes typesOf(const RDKit::ROMol &mol);

// Pattern is a SMARTS query with cheap necessary conditions for a match
// (mg_screen.cpp).
class Pattern {
 public:
  explicit Pattern(std::shared_ptr<const RDKit::ROMol> query);
  static Pattern fromSmarts(const std::string &smarts);
  const RDKit::ROMol &mol() const { return *q_; }
  // mayMatch is false if the pattern cannot match a molecule of these
  // atom types: every query atom needs an atom of its own, of a type it
  // admits.
  bool mayMatch(const MolTypes &types) const;
  // mayMatch(mol, types) adds that every query atom matches some atom of
  // mol, and every query bond some bond of mol together with its two atoms
  // (recursive SMARTS parts taken as matching).
  bool mayMatch(const RDKit::ROMol &mol, const MolTypes &types) const;
  // firstMayMatch is false if atom a cannot be matched by the pattern's
  // first query atom.
  bool firstMayMatch(const RDKit::Atom *a) const;

 private:
  std::shared_ptr<const RDKit::ROMol> q_;
  // need_ holds each distinct type set that query atoms admit (all but
  // "any type") and how many query atoms admit a subset of it: they map to
  // distinct atoms, so the molecule needs at least that many of those types.
  std::vector<std::pair<TypeSet, unsigned>> need_;
  // QueryAtomRef tests a query atom on one atom outside a search: exactly
  // when its query can be tested alone (usable), else by the parts of it
  // that every match passes and that can (a recursive SMARTS is only
  // evaluated by the search); with neither it admits every atom.
  struct QueryAtomRef {
    const RDKit::Atom *atom = nullptr;
    bool usable = false;
    std::vector<const RDKit::Atom::QUERYATOM_QUERY *> parts;
    QueryAtomRef() = default;
    explicit QueryAtomRef(const RDKit::Atom *a);
    bool mayMatch(const RDKit::Atom *a) const;
  };
  struct QueryEdge {
    const RDKit::Bond *bond;
    QueryAtomRef begin, end;
  };
  std::vector<QueryAtomRef> atoms_;          // query atoms
  std::vector<QueryEdge> edges_;            // query bonds with their atoms
  QueryAtomRef first_;  // the first query atom
};

// StepScreen tells when a standardization step of RDKit 2022.09 would
// return its input unchanged: when none of the patterns the step searches
// can match. It screens the step's own catalog, built as the default step
// builds it.
class StepScreen {
 public:
  // reionizer screens MolStandardize::Reionizer (Charge.cpp): with no match
  // of its charge corrections the net charge does not move, and with no
  // match of the ionized (base) forms of its acid-base catalog
  // weakestIonized finds nothing and no proton moves.
  static StepScreen reionizer();
  // normalizer screens MolStandardize::Normalizer (Normalize.cpp) on a
  // one-fragment molecule: the reactant templates of its transforms.
  static StepScreen normalizer();
  // mayChange is false only if the step would return a copy of mol.
  bool mayChange(const RDKit::ROMol &mol, const MolTypes &types) const;
  // patterns lists the screened patterns (for mg_check_screens).
  std::vector<const Pattern *> patterns() const;

 private:
  std::vector<Pattern> patterns_;
  bool always_ = false;  // the step does what the screen cannot judge
};

// Crippen computes RDKit's Wildman-Crippen logP with screened patterns.
class Crippen {
 public:
  Crippen();
  // logP equals Descriptors::calcCrippenDescriptors(mol) logP.
  double logP(const RDKit::ROMol &mol) const;
  // patterns lists the atom-type patterns (for mg_check_screens).
  std::vector<const Pattern *> patterns() const;

 private:
  struct AtomType {
    Pattern pattern;
    double logp;
  };
  std::vector<AtomType> types_;
};

// Counters count HBA and strict rotatable bonds as RDKit 2022.09's
// Descriptors::calcNumHBA and calcNumRotatableBonds(Strict) do, with the
// same SMARTS. Those are recursive, and RDKit copies a recursive query on
// every call (a recursive query caches its matches, so sharing one across
// threads is unsafe); a worker owns its Counters and matches them directly.
class Counters {
 public:
  Counters();
  unsigned hba(const RDKit::ROMol &mol) const;
  unsigned rotatableBonds(const RDKit::ROMol &mol) const;

 private:
  std::unique_ptr<RDKit::ROMol> hba_, rotb_;
};

// QEDInputs are the descriptors QED shares with the molecule record,
// computed once by the caller with the RDKit functions QED.py uses.
struct QEDInputs {
  double mw, logp, tpsa;
  unsigned hbd, rotb;
};

// QED holds the per-thread SMARTS patterns of Bickerton's QED.
class QED {
 public:
  QED();
  // compute returns QED (weighted mean) of mol (a molecule without
  // explicit hydrogens) given its shared descriptors.
  double compute(const RDKit::ROMol &mol, const QEDInputs &in) const;
  // patterns lists the acceptor and alert patterns (for mg_check_screens).
  std::vector<const Pattern *> patterns() const;

 private:
  std::vector<Pattern> acceptors_, alerts_;
  std::unique_ptr<RDKit::ROMol> aliphaticRings_;
};

}  // namespace mg

#endif
