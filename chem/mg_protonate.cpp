// mg_protonate.cpp: mg_protonate, the protonation state of a molecule at a
// pH for docking. RDKit 2022.09 has no pKa model (Dimorphite-DL and molscrub
// are Python packages outside Debian; Open Babel's `-p` puts both piperazine
// N of imatinib and both guanidines of metformin in their cationic forms),
// so the model is written here, after theirs: acid/base sites found by
// SMARTS, each with a pKa from the literature, then corrected in the
// manner of Perrin, Dempsey and Serjeant (electron-withdrawing atoms two and
// three bonds from an amine N) and for the charges already placed.
//
// The sites are ionized greedily: the site whose ionization is most
// favoured at the pH (pKa - pH for a base, pH - pKa for an acid, > 0) goes
// first, then every other site's pKa is shifted by the new charge (a like
// charge makes a base less basic and an acid less acidic, an opposite one
// the reverse), by a term that decays with the number of bonds between the
// sites' centres (the second pKa of piperazine, ethylenediamine,
// 1,3-propanediamine and 1,4-butanediamine, ~4.4, 3.0, 2.0 and 1.4 units
// below the first). Only neutral sites are considered; a charge the input
// already carries (a quaternary N) stays and shifts the sites near it.
// No C++ exception crosses the C boundary.
#include "mg.h"
#include "mg_internal.hpp"

#include <GraphMol/Chirality.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/SmilesParse/SmartsWrite.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>
#include <GraphMol/Substruct/SubstructMatch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace RDKit;

namespace {

enum Kind { Acid, Base };

enum Family { Other, Amine, Amidine };

// SiteRule is one class of ionizable site: the atom of map number 1 gains
// (Base) or loses (Acid) a proton; map number 2, when present, is the
// site's centre for the distance between charges (the carboxyl C, the P of
// a phosphate, the central C of an amidine), else the atom itself.
struct SiteRule {
  const char *name;
  Kind kind;
  Family family;
  double pKa;
  const char *smarts;
};

// Plain amidine/guanidine nitrogens: not acylated, sulfonylated,
// cyanated or bonded to O or N (such groups are not basic at pH 7).
#define PLAIN_N3 \
  "[NX3;!a;+0;!$(N[CX3]=[O,S]);!$(N[SX4](=O)=O);!$(NC#N);!$(N[O,N])]"
#define PLAIN_N2 \
  "[NX2;!a;+0;!$(N[CX3]=[O,S]);!$(N[SX4](=O)=O);!$(NC#N);!$(N[O,N])"

// The rules, in order: an atom claimed by an earlier rule is not matched
// again. pKa values: carboxylic, phosphoric, sulfonic acids, tetrazole,
// amines, amidine, guanidine, imidazole, pyridine, phenol as in molscrub's
// pka_reactions.txt and standard tables (Perrin; Williams' pKa
// compilation); acylsulfonamide, N-heteroaryl sulfonamide and biguanide from
// their drugs (e.g. sulfamethoxazole 5.7, sulfadiazine 6.5, metformin
// 12.4).
const SiteRule kRules[] = {
    {"sulfonic acid", Acid, Other, -2.0, "[SX4:2](=O)(=O)[OX2H1:1]"},
    {"phosphoric acid", Acid, Other, 2.1, "[PX4:2](=O)[OX2H1:1]"},
    {"carboxylic acid", Acid, Other, 4.5, "[CX3:2](=O)[OX2H1:1]"},
    {"tetrazole", Acid, Other, 4.9, "[nH1:1]1[nX2][nX2][nX2]c1"},
    {"tetrazole", Acid, Other, 4.9, "[nH1:1]1[nX2][nX2]c[nX2]1"},
    {"acylsulfonamide", Acid, Other, 4.5,
     "[CX3](=[O,S])[NX3H1:1][SX4](=O)=O"},
    {"N-heteroaryl sulfonamide", Acid, Other, 6.5,
     "[SX4](=O)(=O)[NX3H1:1][c,n;$(a:n),$(a:o),$(a:s)]"},
    {"thiol", Acid, Other, 10.4, "[CX4][SX2H1:1]"},
    {"4-hydroxycoumarin", Acid, Other, 5.0, "[OX2H1:1]c1cc(=O)occ1"},
    {"phenol", Acid, Other, 10.0, "c[OX2H1:1]"},
    {"biguanide", Base, Amidine, 12.4,
     PLAIN_N2 ":1]=[CX3;!a:2]([NX3;!a])[NX3;!a][CX3;!a]=[NX2;!a]"},
    {"biguanide", Base, Amidine, 12.4,
     PLAIN_N2 ":1]=[CX3;!a:2]([NX3;!a])[NX2;!a]=[CX3;!a]([NX3;!a])[NX3;!a]"},
    {"guanidine", Base, Amidine, 13.6,
     PLAIN_N2 ":1]=[CX3;!a:2](" PLAIN_N3 ")" PLAIN_N3},
    {"amidine", Base, Amidine, 12.4,
     PLAIN_N2 ":1]=[CX3;!a;!$(C[O,S]):2](" PLAIN_N3 ")[#6,#1]"},
    {"amidine", Base, Amidine, 12.4, PLAIN_N2 ":1]=[CX3;H1;!a:2]" PLAIN_N3},
    // aliphatic amines: every heavy neighbour an sp3 carbon
    {"primary amine", Base, Amine, 10.6, "[NX3;H2;+0;!$(N~[!#6]);!$(N~[#6;!X4]):1]"},
    {"secondary amine", Base, Amine, 10.9, "[NX3;H1;+0;!$(N~[!#6]);!$(N~[#6;!X4]):1]"},
    {"tertiary amine", Base, Amine, 10.0, "[NX3;H0;+0;!$(N~[!#6]);!$(N~[#6;!X4]):1]"},
    {"4-aminopyridine", Base, Other, 9.2,
     "[nX2;r6:1]1ccc([NX3;!$(N[CX3]=[O,S]);!$(NS(=O)=O)])cc1"},
    {"imidazole", Base, Other, 6.95, "[nX2;r5:1]1c[nX3;H1,$(n[CX4])]cc1"},
    {"pyridine", Base, Other, 5.2, "[nX2;r6;$(n(c)c):1]"},
    {"aniline", Base, Other, 4.6, "[NX3;H2,H1;+0;$(Nc);!$(N[!#6;!#1]);!$(N[#6]=[!#6]):1]"},
};

struct Site {
  const SiteRule *rule;
  unsigned atom, centre;
  double pKa;  // corrected as charges are placed
  bool done;
};

// gammaN is the withdrawal of an N three bonds from an amine (reached
// from atom from): 1.5 for an amide or sulfonamide N, 1.0 for an N on an
// aromatic or double-bonded atom, 0.7 for an amine N.
double gammaN(const ROMol &mol, const Atom *nn, const Atom *from) {
  double w = 0.7;
  for (const auto &nb : mol.atomNeighbors(nn)) {
    if (nb->getIdx() == from->getIdx()) continue;
    for (const auto &b : mol.atomBonds(nb)) {
      if (b->getBondType() != Bond::DOUBLE) continue;
      int z = b->getOtherAtom(nb)->getAtomicNum();
      int zn = nb->getAtomicNum();
      if ((zn == 6 || zn == 16) && (z == 8 || z == 16)) return 1.5;
      w = 1.0;
    }
    if (nb->getIsAromatic()) w = 1.0;
  }
  return w;
}

// amineCorrection is the shift of an aliphatic amine's pKa for the atoms
// two and three bonds away, counted per path (morpholine: its O three
// bonds away on two paths, 8.4 against piperidine's 11.1): an aromatic or
// double-bonded carbon on an alpha carbon -1.0 (benzylamine 9.3), a
// carbonyl or nitrile carbon -1.5 (glycinamide 8.0), a heteroatom -2.0;
// three bonds away and singly bonded (not the O of that carbonyl): O -1.3
// (2-methoxyethylamine 9.4 against ethylamine 10.7), an amine N -0.7
// (piperazine 9.7), an N on an aromatic or double-bonded atom -1.0
// (ciprofloxacin's piperazine NH 8.7), an amide or sulfonamide N -1.5
// (sildenafil's N-methylpiperazine 6.5), F -1.7 (2,2,2-trifluoroethylamine
// 5.7), Cl, Br -1.0, S -0.5.
double amineCorrection(const ROMol &mol, const Atom *n) {
  double d = 0;
  for (const auto &nb1 : mol.atomNeighbors(n)) {
    for (const auto &nb2 : mol.atomNeighbors(nb1)) {
      if (nb2->getIdx() == n->getIdx() || nb2->getAtomicNum() == 1) continue;
      if (nb2->getAtomicNum() == 6) {
        bool multiple = nb2->getIsAromatic(), hetero = false;
        for (const auto &b : mol.atomBonds(nb2)) {
          if (b->getBondType() == Bond::DOUBLE || b->getBondType() == Bond::TRIPLE) {
            if (b->getOtherAtom(nb2)->getAtomicNum() == 6) {
              multiple = true;
            } else {
              hetero = true;
            }
          }
        }
        d -= hetero ? 1.5 : multiple ? 1.0 : 0;
      } else {
        d -= 2.0;
      }
      for (const auto &b3 : mol.atomBonds(nb2)) {
        const Atom *nb3 = b3->getOtherAtom(nb2);
        if (nb3->getIdx() == nb1->getIdx() || nb3->getIdx() == n->getIdx() ||
            b3->getBondType() != Bond::SINGLE)
          continue;
        switch (nb3->getAtomicNum()) {
          case 8: d -= 1.3; break;
          case 7: d -= gammaN(mol, nb3, nb2); break;
          case 9: d -= 1.7; break;
          case 17: case 35: d -= 1.0; break;
          case 16: d -= 0.5; break;
        }
      }
    }
  }
  return d;
}

// amidineCorrection is the shift of an amidine's, guanidine's or
// biguanide's pKa for its N atoms bonded to an aromatic atom: -2.8 each
// (phenylguanidine 10.8 against guanidine 13.6).
double amidineCorrection(const ROMol &mol, const Atom *centre) {
  double d = 0;
  for (const auto &nn : mol.atomNeighbors(centre)) {
    if (nn->getAtomicNum() != 7) continue;
    for (const auto &x : mol.atomNeighbors(nn)) {
      if (x->getIsAromatic()) {
        d -= 2.8;
        break;
      }
    }
  }
  return d;
}

// interaction is the pKa shift one unit charge causes at a site whose
// centre is d bonds from it (d = 0: the same centre, as the second proton
// of a phosphate, 7.2 against 2.1); shift applies it with its sign, half of
// it between opposite charges (glycine's amine 9.6 against 7.7 for its
// ester: +1.9 at two bonds, where two like charges, malonate, differ by
// ~3).
double interaction(int d, bool bothAmidine) {
  if (d == 2 && bothAmidine) return 9.0;  // biguanide: 12.4, then ~2.8
  static const double g[] = {5.0, 6.0, 4.0, 3.5, 2.0, 1.4, 1.0, 0.8};
  if (d < 0) return 0;
  if (d < 8) return g[d];
  return 0;
}

// shift is the change of a site's pKa (kind k) caused by a charge q at d
// bonds: a positive charge lowers it, a negative one raises it.
double shift(int q, Kind k, int d, bool bothAmidine) {
  double g = interaction(d, bothAmidine);
  bool like = (q > 0) == (k == Base);
  return (q > 0 ? -g : g) * (like ? 1.0 : 0.5);
}

// protonate sets the protonation state of mol at ph; it returns the sites
// ionized as "name\tatom\tpKa" lines and the atoms protonated.
std::string protonate(RWMol &mol, double ph, std::vector<unsigned> &protonated) {
  std::vector<Site> sites;
  std::vector<bool> claimed(mol.getNumAtoms(), false);
  for (const auto &r : kRules) {
    std::unique_ptr<RWMol> q(SmartsToMol(r.smarts));
    if (!q) throw std::runtime_error(std::string("bad site SMARTS ") + r.name);
    int mapAtom = -1, mapCentre = -1;
    for (const auto a : q->atoms()) {
      if (a->getAtomMapNum() == 1) mapAtom = a->getIdx();
      if (a->getAtomMapNum() == 2) mapCentre = a->getIdx();
    }
    std::vector<MatchVectType> matches;
    SubstructMatch(mol, *q, matches, true);
    for (const auto &m : matches) {
      unsigned atom = 0, centre = 0;
      for (const auto &p : m) {
        if (p.first == mapAtom) atom = p.second;
        if (p.first == mapCentre) centre = p.second;
      }
      if (mapCentre < 0) centre = atom;
      if (claimed[atom]) continue;
      claimed[atom] = true;
      double pKa = r.pKa;
      if (r.family == Amine) pKa += amineCorrection(mol, mol.getAtomWithIdx(atom));
      if (r.family == Amidine) pKa += amidineCorrection(mol, mol.getAtomWithIdx(centre));
      sites.push_back(Site{&r, atom, centre, pKa, false});
    }
  }
  const double *dm = MolOps::getDistanceMat(mol);
  const unsigned n = mol.getNumAtoms();
  auto dist = [&](unsigned a, unsigned b) {
    double v = dm[a * n + b];
    return v > 1e6 ? -1 : static_cast<int>(std::lround(v));
  };
  // Charges the input carries (not those of a zwitterionic group such as
  // a nitro group, whose neighbours carry the opposite charge).
  for (const auto a : mol.atoms()) {
    int q = a->getFormalCharge();
    if (q == 0) continue;
    bool paired = false;
    for (const auto &nb : mol.atomNeighbors(a)) {
      if (nb->getFormalCharge() * q < 0) paired = true;
    }
    if (paired) continue;
    for (auto &s : sites) s.pKa += shift(q, s.rule->kind, dist(a->getIdx(), s.centre), false);
  }
  std::string out;
  for (;;) {
    Site *best = nullptr;
    double bestMargin = 0;
    for (auto &s : sites) {
      if (s.done) continue;
      double margin = s.rule->kind == Base ? s.pKa - ph : ph - s.pKa;
      if (margin > bestMargin) {
        best = &s;
        bestMargin = margin;
      }
    }
    if (!best) break;
    best->done = true;
    Atom *a = mol.getAtomWithIdx(best->atom);
    int q = best->rule->kind == Base ? 1 : -1;
    int h = a->getTotalNumHs();
    if (q < 0 && h < 1) continue;  // cannot happen: every acid SMARTS asks for H
    a->setFormalCharge(q);
    a->setNoImplicit(true);
    a->setNumExplicitHs(h + q);
    if (q > 0) protonated.push_back(best->atom);
    char line[160];
    std::snprintf(line, sizeof line, "%s\t%u\t%.2f\n", best->rule->name, best->atom, best->pKa);
    out += line;
    for (auto &s : sites) {
      if (s.done) continue;
      bool amidines = s.rule->family == Amidine && best->rule->family == Amidine;
      s.pKa += shift(q, s.rule->kind, dist(best->centre, s.centre), amidines);
    }
    mol.updatePropertyCache(false);
  }
  return out;
}

int run(const std::string &smiles, double ph, std::string &out, int &charge,
        std::string &err) {
  std::unique_ptr<RWMol> mol(SmilesToMol(smiles));
  if (!mol) {
    err = "not a SMILES";
    return -1;
  }
  std::vector<unsigned> protonated;
  std::string sites = protonate(*mol, ph, protonated);
  MolOps::sanitizeMol(*mol);
  // A protonated amine N with three different substituents is a
  // stereocentre RDKit leaves unspecified (its configuration is that of
  // the neutral amine's inverting lone pair): the first configuration is
  // written, so that the molecule docked is one stereoisomer, as
  // embedding would make it, and the SMILES names it.
  if (!protonated.empty()) {
    std::set<unsigned> prot(protonated.begin(), protonated.end());
    for (const auto &si : Chirality::findPotentialStereo(*mol, true, true)) {
      if (si.type == Chirality::StereoType::Atom_Tetrahedral &&
          si.specified == Chirality::StereoSpecified::Unspecified &&
          prot.count(si.centeredOn)) {
        mol->getAtomWithIdx(si.centeredOn)->setChiralTag(Atom::CHI_TETRAHEDRAL_CW);
      }
    }
  }
  charge = MolOps::getFormalCharge(*mol);
  // Re-read the written SMILES so that the string is RDKit's canonical one
  // for the molecule (as Stereoisomers does).
  std::string s = MolToSmiles(*mol);
  std::unique_ptr<RWMol> back(SmilesToMol(s));
  if (!back) {
    err = "protonated form is not a molecule: " + s;
    return -1;
  }
  out = MolToSmiles(*back) + "\n" + sites;
  return 0;
}

}  // namespace

extern "C" char *mg_protonate(const char *smiles, size_t len, double ph,
                              int *charge, char **err) {
  *err = nullptr;
  *charge = 0;
  try {
    std::string out, e;
    int q = 0;
    if (run(std::string(smiles, len), ph, out, q, e) != 0) {
      *err = mg::cString(e);
      return nullptr;
    }
    *charge = q;
    return mg::cString(out);
  } catch (const std::exception &ex) {
    *err = mg::cString(ex.what());
  } catch (...) {
    *err = mg::cString("unknown RDKit error");
  }
  return nullptr;
}
