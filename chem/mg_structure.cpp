// mg_structure.cpp: mg_structure, the per-atom analysis of a 3D molecule
// with hydrogens that ligand preparation (package docking) needs: atoms,
// bonds (with a Kekule form), smallest rings, Gasteiger charges, canonical
// ranks without tie breaking, and the canonical SMILES of the molecule
// without hydrogens with its atom output order. Every RDKit object lives on
// the stack or in a unique_ptr; no C++ exception crosses the C boundary.
#include "mg.h"
#include "mg_internal.hpp"

#include <GraphMol/Conformer.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/PartialCharges/GasteigerCharges.h>
#include <GraphMol/RingInfo.h>
#include <GraphMol/SanitException.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>
#include <GraphMol/new_canon.h>
#include <RDGeneral/FileParseException.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

using namespace RDKit;

namespace {

std::string num(double v) {
  if (std::isnan(v)) return "nan";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// analyse writes the table described in chem/structure.go.
int analyse(const std::string &block, const std::string &expect,
            std::string &out, std::string &err) {
  if (block.find('\0') != std::string::npos) {
    err = "input contains a NUL byte";
    return 2;
  }
  if (block.find("M  END") == std::string::npos) {
    err = "molfile has no \"M  END\" line";
    return 2;
  }
  std::unique_ptr<RWMol> mol;
  try {
    mol.reset(MolBlockToMol(block, true, false, true));
  } catch (const MolSanitizeException &e) {
    err = mg::sanitizeMessage(e, nullptr);
    return 2;
  } catch (const FileParseException &e) {
    err = std::string("cannot read molfile: ") + e.what();
    return 2;
  }
  if (!mol || mol->getNumAtoms() == 0) {
    err = "molfile has no atoms";
    return 2;
  }
  if (mol->getNumConformers() == 0 || !mol->getConformer().is3D()) {
    err = "mismatch: molfile has no 3D coordinates";
    return 1;
  }
  bool implicitH = false;
  for (const auto a : mol->atoms()) {
    if (a->getTotalNumHs(false) > 0) implicitH = true;
  }
  if (implicitH) MolOps::addHs(*mol, false, true);

  // canonical SMILES without H and the output position of every atom
  for (const auto a : mol->atoms()) a->setProp<int>("mg_orig", a->getIdx());
  RWMol noH(*mol);
  MolOps::removeHs(noH);
  std::string smiles = MolToSmiles(noH);
  if (!expect.empty() && smiles != expect) {
    err = "mismatch: molfile is " + smiles + ", expected " + expect;
    return 1;
  }
  std::vector<int> smilesIdx(mol->getNumAtoms(), 0);
  std::vector<unsigned int> order;
  if (!noH.getPropIfPresent(common_properties::_smilesAtomOutputOrder, order)) {
    err = "no SMILES atom output order";
    return 2;
  }
  for (size_t k = 0; k < order.size(); ++k) {
    int orig = noH.getAtomWithIdx(order[k])->getProp<int>("mg_orig");
    smilesIdx[orig] = static_cast<int>(k) + 1;
  }

  // Gasteiger charges on a copy where Se is S (as Meeko does)
  RWMol gc(*mol);
  for (auto a : gc.atoms()) {
    if (a->getAtomicNum() == 34) a->setAtomicNum(16);
  }
  gc.updatePropertyCache(false);
  computeGasteigerCharges(gc, 12, false);

  std::vector<unsigned int> ranks;
  Canon::rankMolAtoms(*mol, ranks, false);

  RWMol kek(*mol);
  MolOps::Kekulize(kek, true);

  if (!mol->getRingInfo()->isInitialized()) MolOps::findSSSR(*mol);
  const RingInfo *ri = mol->getRingInfo();
  const Conformer &conf = mol->getConformer();

  std::ostringstream o;
  o << "S\t" << smiles << "\n";
  for (const auto a : mol->atoms()) {
    unsigned i = a->getIdx();
    const auto &p = conf.getAtomPos(i);
    double q = gc.getAtomWithIdx(i)->getProp<double>(
        common_properties::_GasteigerCharge);
    o << "A\t" << a->getAtomicNum() << "\t" << a->getSymbol() << "\t"
      << a->getFormalCharge() << "\t" << (a->getIsAromatic() ? 1 : 0) << "\t"
      << (ri->numAtomRings(i) > 0 ? 1 : 0) << "\t" << a->getTotalNumHs(true)
      << "\t" << a->getTotalDegree() << "\t" << a->getTotalValence() << "\t"
      << num(p.x) << "\t" << num(p.y) << "\t" << num(p.z) << "\t" << num(q)
      << "\t" << ranks[i] << "\t" << smilesIdx[i] << "\n";
  }
  for (const auto b : mol->bonds()) {
    unsigned i = b->getIdx();
    int kk = 1;
    switch (kek.getBondWithIdx(i)->getBondType()) {
      case Bond::DOUBLE:
        kk = 2;
        break;
      case Bond::TRIPLE:
        kk = 3;
        break;
      default:
        kk = 1;
    }
    double order = 1;
    switch (b->getBondType()) {
      case Bond::SINGLE:
        order = 1;
        break;
      case Bond::DOUBLE:
        order = 2;
        break;
      case Bond::TRIPLE:
        order = 3;
        break;
      case Bond::AROMATIC:
        order = 1.5;
        break;
      default:
        order = b->getBondTypeAsDouble();
    }
    o << "B\t" << b->getBeginAtomIdx() << "\t" << b->getEndAtomIdx() << "\t"
      << num(order) << "\t" << kk << "\t"
      << (ri->numBondRings(i) > 0 ? 1 : 0) << "\t"
      << (b->getIsConjugated() ? 1 : 0) << "\n";
  }
  for (const auto &ring : ri->atomRings()) {
    o << "R";
    for (size_t k = 0; k < ring.size(); ++k) o << (k ? " " : "\t") << ring[k];
    o << "\n";
  }
  out = o.str();
  return 0;
}

}  // namespace

extern "C" {

int mg_structure(const char *molblock, size_t len, const char *expect_smiles,
                 size_t expect_len, char **out, char **err) {
  *out = nullptr;
  *err = nullptr;
  std::string o, e;
  int rc = 2;
  try {
    rc = analyse(std::string(molblock ? molblock : "", len),
                 std::string(expect_smiles ? expect_smiles : "", expect_len),
                 o, e);
  } catch (const std::exception &x) {
    rc = 2;
    std::string w = x.what();
    e = "cannot analyse molecule: " + (w.empty() ? "unknown error" : w);
  } catch (...) {
    rc = 2;
    e = "cannot analyse molecule: unknown error";
  }
  if (rc == 0) {
    *out = mg::cString(o);
  } else {
    *err = mg::cString(e.empty() ? "cannot analyse molecule" : e);
  }
  return rc;
}

}  // extern "C"
