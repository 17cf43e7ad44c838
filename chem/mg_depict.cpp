// mg_depict.cpp: mg_depict, a 2D depiction of a SMILES as SVG with RDKit's
// MolDraw2DSVG, the atoms and bonds of a SMARTS's first match highlighted.
//
// The highlight match is bounded. RDKit's substructure search (VF2) cannot
// be interrupted and is exponential in the worst case: a 22-atom chain of
// "*" ending in an absent element took 0.16 s on a 46-atom fused ring
// system and four times longer with every two atoms more. Every query atom
// (those of recursive SMARTS included) gets an AND-ed StepBudget query
// that counts the atom comparisons the search makes on this thread; once
// the count is spent every comparison fails, the search unwinds at once
// and the match is reported as out of budget. No exception crosses VF2.
//
// Every RDKit object lives on the stack or in a unique_ptr; no C++
// exception crosses the C boundary.
#include "mg_depict.h"

// First: it defines RDK_BUILD_THREADSAFE_SSS, which adds a mutex to
// RecursiveStructureQuery; QueryOps.h does not include it, and without it
// this file would see another layout of the class than librdkit has.
#include <RDGeneral/RDConfig.h>

#include <GraphMol/Depictor/RDDepictor.h>
#include <GraphMol/MolDraw2D/MolDraw2DSVG.h>
#include <GraphMol/MolDraw2D/MolDraw2DUtils.h>
#include <GraphMol/QueryAtom.h>
#include <GraphMol/QueryOps.h>
#include <GraphMol/SanitException.h>
#include <GraphMol/SmilesParse/SmartsWrite.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/Substruct/SubstructMatch.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "mg_internal.hpp"

using namespace RDKit;

namespace {

// stepsLeft is the atom comparisons the running match may still make.
// Each worker thread runs one depiction at a time.
thread_local long stepsLeft = 0;
thread_local bool outOfSteps = false;

// StepBudget matches any atom while the thread's budget lasts.
class StepBudget : public Queries::Query<int, Atom const *, true> {
 public:
  StepBudget() { this->setDescription("StepBudget"); }
  bool Match(Atom const *) const override {
    if (stepsLeft <= 0) {
      outOfSteps = true;
      return false;
    }
    --stepsLeft;
    return true;
  }
  Queries::Query<int, Atom const *, true> *copy() const override {
    return new StepBudget();
  }
};

void budgetMol(ROMol &q, int depth);

// budgetQuery finds the recursive SMARTS under an atom query.
void budgetQuery(const Queries::Query<int, Atom const *, true> *node,
                 int depth) {
  if (!node) return;
  if (auto r = dynamic_cast<const RecursiveStructureQuery *>(node)) {
    // The recursive query owns its molecule; it is ours to change.
    budgetMol(*const_cast<ROMol *>(r->getQueryMol()), depth + 1);
  }
  for (auto it = node->beginChildren(); it != node->endChildren(); ++it) {
    budgetQuery(it->get(), depth);
  }
}

void budgetMol(ROMol &q, int depth) {
  if (depth > 16) throw std::runtime_error("recursive SMARTS nested too deep");
  for (auto a : q.atoms()) {
    auto qa = dynamic_cast<QueryAtom *>(a);
    if (!qa) continue;
    budgetQuery(qa->getQuery(), depth);
    // first in the AND: every comparison is counted
    qa->expandQuery(new StepBudget(), Queries::COMPOSITE_AND, false);
  }
}

std::string join(const std::vector<int> &v) {
  std::ostringstream o;
  for (size_t i = 0; i < v.size(); ++i) o << (i ? " " : "") << v[i];
  return o.str();
}

int depict(const std::string &smiles, const std::string &smarts,
           const mg_depict_params &p, mg_depict_result &out,
           std::string &err) {
  if (smiles.find('\0') != std::string::npos) {
    err = "SMILES contains a NUL byte";
    return MG_DEPICT_BAD_MOLECULE;
  }
  std::unique_ptr<RWMol> mol;
  try {
    mol.reset(SmilesToMol(smiles));
  } catch (const MolSanitizeException &e) {
    err = e.what();
    return MG_DEPICT_BAD_MOLECULE;
  }
  if (!mol) {
    err = "SMILES syntax error";
    return MG_DEPICT_BAD_MOLECULE;
  }
  if (mol->getNumAtoms() == 0) {
    err = "SMILES has no atoms";
    return MG_DEPICT_BAD_MOLECULE;
  }
  out.heavy_atoms = static_cast<int>(mol->getNumHeavyAtoms());
  if (p.max_heavy_atoms > 0 && out.heavy_atoms > p.max_heavy_atoms) {
    err = std::to_string(out.heavy_atoms) + " heavy atoms";
    return MG_DEPICT_TOO_LARGE;
  }

  std::vector<int> atoms, bonds;
  if (!smarts.empty()) {
    if (smarts.find('\0') != std::string::npos) {
      err = "SMARTS contains a NUL byte";
      return MG_DEPICT_BAD_SMARTS;
    }
    std::unique_ptr<RWMol> q;
    try {
      q.reset(SmartsToMol(smarts));
    } catch (const std::exception &e) {
      err = std::string("SMARTS error: ") + e.what();
      return MG_DEPICT_BAD_SMARTS;
    }
    if (!q || q->getNumAtoms() == 0) {
      err = "SMARTS syntax error";
      return MG_DEPICT_BAD_SMARTS;
    }
    try {
      budgetMol(*q, 0);
    } catch (const std::runtime_error &e) {
      err = e.what();
      return MG_DEPICT_BAD_SMARTS;
    }
    stepsLeft = p.match_steps;
    outOfSteps = false;
    SubstructMatchParameters mp;
    mp.maxMatches = 1;
    auto matches = SubstructMatch(*mol, *q, mp);
    if (outOfSteps) {
      err = "the highlight match took more than " +
            std::to_string(p.match_steps) + " atom comparisons";
      return MG_DEPICT_MATCH_BUDGET;
    }
    if (!matches.empty()) {
      std::vector<bool> in(mol->getNumAtoms(), false);
      for (const auto &pr : matches[0]) {
        atoms.push_back(pr.second);
        in[pr.second] = true;
      }
      // the bonds of the match: those the query's bonds map to
      for (const auto qb : q->bonds()) {
        int a = -1, b = -1;
        for (const auto &pr : matches[0]) {
          if (pr.first == static_cast<int>(qb->getBeginAtomIdx())) a = pr.second;
          if (pr.first == static_cast<int>(qb->getEndAtomIdx())) b = pr.second;
        }
        if (a < 0 || b < 0) continue;
        if (const Bond *mb = mol->getBondBetweenAtoms(a, b)) {
          bonds.push_back(static_cast<int>(mb->getIdx()));
        }
      }
    }
  }

  // RDKit's own depictor (compute2DCoords, canonical orientation), not
  // CoordGen, although this RDKit is built with it: CoordGen runs in this
  // process and cannot be stopped, and it segfaults on some molecules
  // (rdkit/rdkit#4845, fixed in coordgenlibs after the 3.0.1 Debian ships)
  // and takes from seconds to more than ten minutes on others (macrocycles,
  // rdkit/rdkit#8812; schrodinger/coordgenlibs#39: 100x slower on average).
  // On a request path any SMILES may come, so one input could kill or hold
  // the server. (It is also reachable only through the process-wide
  // RDDepict::preferCoordGen or libcoordgen-dev's headers.)
  RDDepict::compute2DCoords(*mol, nullptr, true);
  MolDraw2DUtils::prepareMolForDrawing(*mol);
  MolDraw2DSVG drawer(p.width, p.height);
  drawer.drawOptions().prepareMolsBeforeDrawing = false;
  drawer.drawMolecule(*mol, &atoms, &bonds);
  drawer.finishDrawing();
  out.svg = mg::cString(drawer.getDrawingText());
  out.atoms = mg::cString(join(atoms));
  out.bonds = mg::cString(join(bonds));
  if (!out.svg || !out.atoms || !out.bonds) {
    err = "out of memory";
    return MG_DEPICT_ERROR;
  }
  return MG_DEPICT_OK;
}

}  // namespace

extern "C" {

int mg_depict(const char *smiles, size_t len, const char *smarts,
              size_t smarts_len, const mg_depict_params *p,
              mg_depict_result *out) {
  std::memset(out, 0, sizeof *out);
  std::string e;
  int rc = MG_DEPICT_ERROR;
  try {
    rc = depict(std::string(smiles ? smiles : "", len),
                std::string(smarts ? smarts : "", smarts_len), *p, *out, e);
  } catch (const std::exception &x) {
    rc = MG_DEPICT_ERROR;
    std::string w = x.what();
    e = "cannot depict molecule: " + (w.empty() ? "unknown error" : w);
  } catch (...) {
    rc = MG_DEPICT_ERROR;
    e = "cannot depict molecule: unknown error";
  }
  if (rc != MG_DEPICT_OK) {
    std::free(out->svg);
    std::free(out->atoms);
    std::free(out->bonds);
    out->svg = out->atoms = out->bonds = nullptr;
    out->error = mg::cString(e.empty() ? "cannot depict molecule" : e);
  }
  return rc;
}

void mg_depict_result_free(mg_depict_result *r) {
  if (!r) return;
  std::free(r->svg);
  std::free(r->error);
  std::free(r->atoms);
  std::free(r->bonds);
  std::memset(r, 0, sizeof *r);
}

}  // extern "C"
