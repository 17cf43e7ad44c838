// mg_interact.cpp: mg_interaction_features, the chemistry of a ligand that
// protein-ligand interaction detection needs (docking/interact): hydrogen
// bond donors and acceptors, hydrophobic carbons, halogen-bond donors,
// metal-binding atoms, aromatic rings and charged groups, perceived by RDKit
// (sanitization, aromaticity, ring info, SMARTS matching) on a molblock
// with every hydrogen explicit. The groups follow PLIP's definitions
// (Salentin et al., Nucleic Acids Res. 2015; PLIP's DOCUMENTATION.md,
// "Detection of possible interacting groups"); where PLIP leans on Open
// Babel's atom typing the SMARTS below say what we count instead (see the
// comments and docking/interact's package doc). No C++ exception crosses
// the C boundary.
#include "mg.h"
#include "mg_internal.hpp"

#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/RingInfo.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/Substruct/SubstructMatch.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace RDKit;

namespace {

// Atom classes: one SMARTS each; every atom matching (the first atom of a
// match) gets the class.
struct AtomClass {
  const char *tag;
  const char *smarts;
};

const AtomClass atomClasses[] = {
    // Donors: N and O carrying a hydrogen (PLIP: Open Babel's donors,
    // halogens excluded).
    {"D", "[#7,#8;!H0,$(*~[#1])]"},
    // Acceptors: every O that is not positively charged; N when its lone
    // pair is free: neutral, not aromatic with three connections (pyrrole
    // type), not a three-connected N on an aromatic atom or on C/S double
    // bonded to a heteroatom or carbon (aniline, amide, sulfonamide,
    // enamine). Halogens are left to halogen bonds, as PLIP does.
    {"A", "[#8;+0,-1]"},
    {"A",
     "[#7;+0;!$([#7;a;X3]);!$([#7;X3;!a]-[a]);!$([#7;X3;!a]-[#6,#16]=[#8,#16,#7,#6])]"},
    // Hydrophobic: carbon bonded to carbon and hydrogen only (PLIP).
    {"H", "[#6;!$([#6]~[!#6;!#1])]"},
    // Halogen-bond donors: F, Cl, Br, I bonded to carbon (PLIP).
    {"X", "[F,Cl,Br,I;X1;$(*-[#6])]"},
    // Metal-binding atoms (PLIP's ligand groups): alcohol / phenol(ate)
    // O, carboxylate O, phosphoryl O, thiol(ate) S, imidazole / pyrrole
    // type aromatic N.
    {"M",
     "[#8;$([OX2H1]-[#6]),$([OX1-]-[#6]),$([OX1]=[#6]-[OX1-,OX2H1])]"},
    {"M", "[#8;$([OX1]=,-[#15]),$([OX2H1]-[#15])]"},
    {"M", "[#16;$([SX1-]-[#6]),$([SX2H1]-[#6])]"},
    {"M", "[n;r5]"},
};

// Charged groups: (sign, kind, SMARTS, which match atoms make the group).
// An atom already in a group is not used again, so the order matters.
struct GroupClass {
  const char *sign;
  const char *kind;
  const char *smarts;
  std::vector<int> take;  // indexes into the match; empty: all
};

const GroupClass groupClasses[] = {
    // Positive (PLIP: quaternary ammonium, tertiary amines, sulfonium,
    // guanidine; we add amidinium and other cationic N).
    {"P", "guanidine", "[CX3](~[#7])(~[#7])~[#7]", {0}},
    {"P", "amidinium", "[CX3](=[#7+])-[#7]", {0}},
    {"P", "ammonium", "[#7X4+]", {}},
    // Tertiary amine: neutral sp3 N with three heavy neighbours, none of
    // them aromatic, unsaturated or a heteroatom (it can pick up a proton).
    {"P", "tertiary amine",
     "[#7X3;H0;+0;!$(*~[!#6]);!$(*-[a]);!$(*-[#6]=,#*)]", {}},
    {"P", "sulfonium", "[SX3+]", {}},
    {"P", "cation", "[#7+;!$(*~[#8-]);!$(*=[#8])]", {}},
    // Negative: carboxylate / carboxylic acid (centre between the two O),
    // phosphate / phosphonate, sulfonate / sulfonic acid / sulfate.
    {"N", "carboxylate", "[CX3](=[OX1])[OX1-,OX2H1]", {1, 2}},
    {"N", "phosphate", "[PX4](=[OX1])[OX1-,OX2H1]", {0}},
    {"N", "sulfonate", "[SX4](=[OX1])(=[OX1])[OX1-,OX2H1]", {0}},
};

int features(const std::string &block, std::string &out, std::string &err) {
  std::unique_ptr<RWMol> mol;
  try {
    mol.reset(MolBlockToMol(block, true, false, false));
  } catch (const std::exception &e) {
    err = e.what();
    return -1;
  }
  if (!mol) {
    err = "not a molblock";
    return -1;
  }
  std::ostringstream o;
  o << "N\t" << mol->getNumAtoms() << "\n";
  for (const auto &c : atomClasses) {
    std::unique_ptr<RWMol> q(SmartsToMol(c.smarts));
    if (!q) {
      err = std::string("bad SMARTS ") + c.smarts;
      return -1;
    }
    std::vector<MatchVectType> ms;
    SubstructMatch(*mol, *q, ms, true, true);
    std::set<int> atoms;
    for (const auto &m : ms) atoms.insert(m[0].second);
    if (atoms.empty()) continue;
    o << c.tag;
    for (int a : atoms) o << "\t" << a;
    o << "\n";
  }
  // Aromatic rings: RDKit's smallest set of smallest rings whose atoms
  // are all aromatic (each ring of a fused system on its own, as PLIP).
  const RingInfo *ri = mol->getRingInfo();
  for (const auto &ring : ri->atomRings()) {
    bool arom = ring.size() >= 5 && ring.size() <= 7;
    for (int a : ring) arom = arom && mol->getAtomWithIdx(a)->getIsAromatic();
    if (!arom) continue;
    o << "R";
    for (int a : ring) o << "\t" << a;
    o << "\n";
  }
  std::set<int> used;
  for (const auto &g : groupClasses) {
    std::unique_ptr<RWMol> q(SmartsToMol(g.smarts));
    if (!q) {
      err = std::string("bad SMARTS ") + g.smarts;
      return -1;
    }
    std::vector<MatchVectType> ms;
    SubstructMatch(*mol, *q, ms, true, true);
    for (const auto &m : ms) {
      std::vector<int> atoms;
      if (g.take.empty()) {
        for (const auto &p : m) atoms.push_back(p.second);
      } else {
        for (int k : g.take) atoms.push_back(m[k].second);
      }
      bool clash = false;
      for (int a : atoms) clash = clash || used.count(a) > 0;
      if (clash) continue;
      for (int a : atoms) used.insert(a);
      o << "G\t" << g.sign << "\t" << g.kind;
      for (int a : atoms) o << "\t" << a;
      o << "\n";
    }
  }
  out = o.str();
  return 0;
}

}  // namespace

extern "C" char *mg_interaction_features(const char *block, size_t len,
                                         char **err) {
  *err = nullptr;
  std::string out, msg;
  try {
    if (features(std::string(block ? block : "", len), out, msg) != 0) {
      *err = mg::cString(msg);
      return nullptr;
    }
  } catch (const std::exception &e) {
    *err = mg::cString(e.what());
    return nullptr;
  } catch (...) {
    *err = mg::cString("unknown C++ exception");
    return nullptr;
  }
  return mg::cString(out);
}
