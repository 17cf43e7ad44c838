// mg_inchi.cpp: RDKit molecule <-> libinchi 1.03.
//
// Debian's RDKit is built without its InChI extension, so the conversion is
// written here against inchi_api.h. Stereo goes to libinchi as 0D parities
// derived from RDKit's chiral tags and double-bond stereo (coordinates are
// never passed: they can invent or lose stereo). libinchi 1.03 is not
// thread-safe, so every call holds one process-wide mutex.
#include "mg_internal.hpp"

#include <GraphMol/MolOps.h>
#include <GraphMol/PeriodicTable.h>
#include <GraphMol/SanitException.h>

#include <inchi_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

using namespace RDKit;

namespace mg {

namespace {

std::mutex inchiMutex;  // libinchi 1.03 keeps global state

// permutationOdd reports whether b is an odd permutation of a (same elements).
bool permutationOdd(std::vector<int> a, const std::vector<int> &b) {
  bool odd = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    size_t j = i + 1;
    while (j < a.size() && a[j] != b[i]) ++j;
    if (j == a.size()) return false;  // not a permutation; caller checked
    std::swap(a[i], a[j]);
    odd = !odd;
  }
  return odd;
}

// rdkitOrder lists the neighbours of a tetrahedral centre in the order the
// chiral tag refers to: bond order, with the implicit hydrogen (represented by
// the centre's own index, as libinchi does) last. (Checked against Open
// Babel's InChI for L-alanine and CHFClBr written both ways.)
std::vector<int> rdkitOrder(const ROMol &mol, const Atom *a) {
  std::vector<int> order;
  for (const auto &nbri : boost::make_iterator_range(mol.getAtomBonds(a))) {
    order.push_back(mol[nbri]->getOtherAtomIdx(a->getIdx()));
  }
  if (order.size() == 3) order.push_back(a->getIdx());
  return order;
}

// The perchlorate fix: RDKit writes [O-][Cl+3]([O-])([O-])[O-] for
// perchlorate (and the like for other oxo-halogen anions); InChI expects the
// hypervalent neutral form, so move each positive charge of a halogen back
// into a double bond to one of its terminal O- neighbours.
void undoChargeSeparatedHalogens(RWMol &m) {
  for (auto a : m.atoms()) {
    int z = a->getAtomicNum();
    if (z != 17 && z != 35 && z != 53) continue;
    for (const auto &nbri : boost::make_iterator_range(m.getAtomBonds(a))) {
      if (a->getFormalCharge() <= 0) break;
      Bond *b = m[nbri];
      Atom *o = b->getOtherAtom(a);
      if (o->getAtomicNum() == 8 && o->getFormalCharge() == -1 &&
          o->getDegree() == 1 && b->getBondType() == Bond::SINGLE) {
        b->setBondType(Bond::DOUBLE);
        o->setFormalCharge(0);
        a->setFormalCharge(a->getFormalCharge() - 1);
      }
    }
  }
}

// chargeSeparateHypervalentOxygens rewrites the hypervalent oxo forms that
// libinchi returns into the ones RDKit accepts: a halogen's X=O becomes
// [X+]-[O-] (perchlorate as RDKit writes it), and an anionic S/P/Se centre
// with X=O hands its charge to that oxygen (sulfonate [S-](=O)(=O)=O ->
// S(=O)(=O)[O-]).
void chargeSeparateHypervalentOxygens(RWMol &m) {
  for (auto a : m.atoms()) {
    int z = a->getAtomicNum();
    bool halogen = z == 17 || z == 35 || z == 53;
    bool chalcPn = z == 15 || z == 16 || z == 34;
    if (!halogen && !chalcPn) continue;
    for (const auto &nbri : boost::make_iterator_range(m.getAtomBonds(a))) {
      Bond *b = m[nbri];
      Atom *o = b->getOtherAtom(a);
      if (o->getAtomicNum() != 8 || o->getDegree() != 1 ||
          o->getFormalCharge() != 0 || b->getBondType() != Bond::DOUBLE) {
        continue;
      }
      if (halogen || (chalcPn && a->getFormalCharge() < 0)) {
        b->setBondType(Bond::SINGLE);
        o->setFormalCharge(-1);
        a->setFormalCharge(a->getFormalCharge() + 1);
      }
    }
  }
}

}  // namespace

InchiResult molToInchi(const ROMol &in) {
  InchiResult res;
  RWMol m(in);
  undoChargeSeparatedHalogens(m);
  m.updatePropertyCache(false);
  try {
    MolOps::Kekulize(m, true);
  } catch (const std::exception &e) {
    res.message = std::string("cannot kekulize for InChI: ") + e.what();
    return res;
  }
  const unsigned n = m.getNumAtoms();
  if (n == 0) {
    res.message = "empty molecule";
    return res;
  }
  if (n >= 1024) {
    res.message = "too many atoms for InChI (limit 1023)";
    return res;
  }
  std::vector<inchi_Atom> atoms(n);
  std::memset(atoms.data(), 0, sizeof(inchi_Atom) * n);
  for (const auto a : m.atoms()) {
    inchi_Atom &ia = atoms[a->getIdx()];
    if (a->getAtomicNum() < 1) {
      res.message = "dummy or query atom: no InChI";
      return res;
    }
    std::string sym = a->getSymbol();
    if (sym.size() >= ATOM_EL_LEN) {
      res.message = "unknown element " + sym;
      return res;
    }
    std::strncpy(ia.elname, sym.c_str(), ATOM_EL_LEN - 1);
    ia.num_iso_H[0] = static_cast<S_CHAR>(a->getTotalNumHs(false));
    ia.isotopic_mass = static_cast<AT_NUM>(a->getIsotope());
    ia.charge = static_cast<S_CHAR>(a->getFormalCharge());
    switch (a->getNumRadicalElectrons()) {
      case 0:
        break;
      case 1:
        ia.radical = INCHI_RADICAL_DOUBLET;
        break;
      case 2:
        ia.radical = INCHI_RADICAL_TRIPLET;
        break;
      default:
        res.message = "unsupported radical";
        return res;
    }
  }
  for (const auto b : m.bonds()) {
    S_CHAR bt;
    switch (b->getBondType()) {
      case Bond::SINGLE:
        bt = INCHI_BOND_TYPE_SINGLE;
        break;
      case Bond::DOUBLE:
        bt = INCHI_BOND_TYPE_DOUBLE;
        break;
      case Bond::TRIPLE:
        bt = INCHI_BOND_TYPE_TRIPLE;
        break;
      case Bond::AROMATIC:
        bt = INCHI_BOND_TYPE_ALTERN;
        break;
      case Bond::ZERO:
      case Bond::HYDROGEN:
      case Bond::IONIC:
        continue;
      default:
        bt = INCHI_BOND_TYPE_SINGLE;  // dative and other exotic kinds
    }
    unsigned i = std::max(b->getBeginAtomIdx(), b->getEndAtomIdx());
    unsigned j = std::min(b->getBeginAtomIdx(), b->getEndAtomIdx());
    inchi_Atom &ia = atoms[i];
    if (ia.num_bonds >= MAXVAL) {
      res.message = "atom with more than 20 bonds";
      return res;
    }
    ia.neighbor[ia.num_bonds] = static_cast<AT_NUM>(j);
    ia.bond_type[ia.num_bonds] = bt;
    ia.num_bonds++;
  }

  std::vector<inchi_Stereo0D> stereo;
  for (const auto a : m.atoms()) {
    auto tag = a->getChiralTag();
    if (tag != Atom::CHI_TETRAHEDRAL_CW && tag != Atom::CHI_TETRAHEDRAL_CCW) {
      continue;
    }
    std::vector<int> order = rdkitOrder(m, a);
    if (order.size() != 4) continue;
    inchi_Stereo0D s;
    std::memset(&s, 0, sizeof s);
    for (int k = 0; k < 4; ++k) s.neighbor[k] = static_cast<AT_NUM>(order[k]);
    s.central_atom = static_cast<AT_NUM>(a->getIdx());
    s.type = INCHI_StereoType_Tetrahedral;
    s.parity = tag == Atom::CHI_TETRAHEDRAL_CW ? INCHI_PARITY_EVEN
                                               : INCHI_PARITY_ODD;
    stereo.push_back(s);
  }
  for (const auto b : m.bonds()) {
    auto st = b->getStereo();
    bool trans = st == Bond::STEREOE || st == Bond::STEREOTRANS;
    bool cis = st == Bond::STEREOZ || st == Bond::STEREOCIS;
    if (!trans && !cis) continue;
    const auto &sa = b->getStereoAtoms();
    if (sa.size() != 2) continue;
    int x = sa[0], y = sa[1];
    int a1 = b->getBeginAtomIdx(), a2 = b->getEndAtomIdx();
    if (!m.getBondBetweenAtoms(x, a1)) std::swap(x, y);
    if (!m.getBondBetweenAtoms(x, a1) || !m.getBondBetweenAtoms(y, a2)) {
      continue;
    }
    inchi_Stereo0D s;
    std::memset(&s, 0, sizeof s);
    s.neighbor[0] = static_cast<AT_NUM>(x);
    s.neighbor[1] = static_cast<AT_NUM>(a1);
    s.neighbor[2] = static_cast<AT_NUM>(a2);
    s.neighbor[3] = static_cast<AT_NUM>(y);
    s.central_atom = NO_ATOM;
    s.type = INCHI_StereoType_DoubleBond;
    s.parity = trans ? INCHI_PARITY_EVEN : INCHI_PARITY_ODD;
    stereo.push_back(s);
  }

  inchi_Input input;
  std::memset(&input, 0, sizeof input);
  input.atom = atoms.data();
  input.num_atoms = static_cast<AT_NUM>(n);
  input.stereo0D = stereo.empty() ? nullptr : stereo.data();
  input.num_stereo0D = static_cast<AT_NUM>(stereo.size());
  char options[] = "";
  input.szOptions = options;
  inchi_Output out;
  std::memset(&out, 0, sizeof out);

  std::lock_guard<std::mutex> lock(inchiMutex);
  int ret = GetStdINCHI(&input, &out);
  if ((ret == inchi_Ret_OKAY || ret == inchi_Ret_WARNING) && out.szInChI) {
    res.inchi = out.szInChI;
    if (out.szMessage) res.message = out.szMessage;
  } else {
    res.message = out.szMessage && *out.szMessage ? out.szMessage
                                                  : "InChI generation failed";
  }
  FreeStdINCHI(&out);
  if (!res.inchi.empty()) {
    char key[32] = {0};
    if (GetStdINCHIKeyFromStdINCHI(res.inchi.c_str(), key) == 0) {
      res.key = key;
    } else {
      res.message = "InChIKey generation failed";
    }
  }
  return res;
}

namespace {

// inchiLayers returns an InChI's formula and its /q, /p and /i layers
// (the charge, proton and isotope layers), "" for an absent one.
std::vector<std::string> inchiLayers(const std::string &inchi) {
  std::vector<std::string> out(4);
  size_t pos = inchi.find('/');
  if (pos == std::string::npos) return out;
  bool first = true;
  while (pos != std::string::npos) {
    size_t next = inchi.find('/', pos + 1);
    std::string l = inchi.substr(
        pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
    pos = next;
    if (first) {
      out[0] = l;
      first = false;
      continue;
    }
    if (l.empty()) continue;
    int k = l[0] == 'q' ? 1 : l[0] == 'p' ? 2 : l[0] == 'i' ? 3 : 0;
    if (k > 0 && out[k].empty()) out[k] = l;
  }
  return out;
}

// checkInchiLayers refuses an InChI whose formula, charge, proton or
// isotope layer libinchi did not carry into the structure it built (it
// only warns: "/p-1" on methane gives methane, "/i1+500" a wrong mass):
// the standard InChI of that structure must have the same layers. The
// other layers may legitimately differ (a fixed-H /h written by another
// program comes back in the mobile-H form).
void checkInchiLayers(const std::string &inchi, const ROMol &m) {
  InchiResult back = molToInchi(m);
  if (back.inchi.empty()) {
    throw InvalidMolecule("InChI describes a structure that has no InChI (" +
                          back.message + ")");
  }
  std::vector<std::string> want = inchiLayers(inchi);
  std::vector<std::string> got = inchiLayers(back.inchi);
  static const char *what[] = {"formula", "charge", "proton", "isotope"};
  for (size_t k = 0; k < want.size(); ++k) {
    if (want[k] == got[k]) continue;
    std::string shown = want[k].empty() ? "(none)" : "/" + want[k];
    if (k == 0) shown = want[k];
    if (shown.size() > 60) shown = shown.substr(0, 60) + "...";
    throw InvalidMolecule("InChI " + std::string(what[k]) + " layer " + shown +
                          " does not fit its structure (libinchi reads it as " +
                          back.inchi.substr(0, 200) + ")");
  }
}

}  // namespace

RWMol *inchiToMol(const std::string &inchiText, std::string &warning) {
  std::string text = inchiText;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.pop_back();
  }
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) throw InvalidMolecule("empty InChI");
  text = text.substr(start);
  if (text.rfind("InChI=", 0) != 0) {
    throw InvalidMolecule("an InChI must start with \"InChI=\"");
  }
  std::unique_ptr<RWMol> m(new RWMol());
  inchi_InputINCHI in;
  std::memset(&in, 0, sizeof in);
  std::vector<char> buf(text.begin(), text.end());
  buf.push_back(0);
  in.szInChI = buf.data();
  char options[] = "";
  in.szOptions = options;
  inchi_OutputStruct out;
  std::memset(&out, 0, sizeof out);
  std::vector<inchi_Stereo0D> stereo;
  {
    std::lock_guard<std::mutex> lock(inchiMutex);
    int ret = GetStructFromStdINCHI(&in, &out);
    if (ret != inchi_Ret_OKAY && ret != inchi_Ret_WARNING) {
      std::string msg = out.szMessage && *out.szMessage
                            ? out.szMessage
                            : "not a valid InChI";
      FreeStructFromStdINCHI(&out);
      throw InvalidMolecule("cannot read InChI: " + msg);
    }
    if (ret == inchi_Ret_WARNING && out.szMessage) warning = out.szMessage;
    if (out.num_atoms <= 0) {
      FreeStructFromStdINCHI(&out);
      throw InvalidMolecule("InChI has no atoms");
    }
    const PeriodicTable *pt = PeriodicTable::getTable();
    try {
      for (int i = 0; i < out.num_atoms; ++i) {
        const inchi_Atom &ia = out.atom[i];
        char el[ATOM_EL_LEN + 1] = {0};
        std::memcpy(el, ia.elname, ATOM_EL_LEN);
        auto *a = new Atom(pt->getAtomicNumber(el));
        a->setFormalCharge(ia.charge);
        if (ia.radical == INCHI_RADICAL_DOUBLET) a->setNumRadicalElectrons(1);
        if (ia.radical == INCHI_RADICAL_TRIPLET ||
            ia.radical == INCHI_RADICAL_SINGLET) {
          a->setNumRadicalElectrons(2);
        }
        // libinchi reads charge and isotope layers without asking whether
        // the atom can carry them (/q+99 on carbon, /i1-99 makes a mass
        // number of -87): refuse what no atom can be.
        if (ia.charge > a->getAtomicNum()) {
          int z = a->getAtomicNum();
          delete a;
          throw InvalidMolecule(
              "charge layer gives atom " + std::to_string(i + 1) + " (" + el +
              ") a charge of +" + std::to_string(ia.charge) + ", more than its " +
              std::to_string(z) + " electrons");
        }
        if (ia.isotopic_mass) {
          int iso = ia.isotopic_mass;
          if (iso > ISOTOPIC_SHIFT_FLAG - ISOTOPIC_SHIFT_MAX) {
            iso = static_cast<int>(
                      std::lround(pt->getAtomicWeight(a->getAtomicNum()))) +
                  iso - ISOTOPIC_SHIFT_FLAG;
          }
          // A mass number is at least the atomic number; no nuclide
          // heavier than 300 is known.
          if (iso < static_cast<int>(a->getAtomicNum()) || iso > 300) {
            delete a;
            throw InvalidMolecule("isotopic layer gives atom " +
                                  std::to_string(i + 1) + " (" + el +
                                  ") the mass number " + std::to_string(iso) +
                                  ", not a possible nuclide");
          }
          a->setIsotope(iso);
        }
        a->setNoImplicit(true);
        a->setNumExplicitHs(std::max<int>(0, ia.num_iso_H[0]));
        m->addAtom(a, true, true);
      }
      for (int i = 0; i < out.num_atoms; ++i) {
        const inchi_Atom &ia = out.atom[i];
        for (int k = 0; k < ia.num_bonds; ++k) {
          int j = ia.neighbor[k];
          if (j < 0 || j >= out.num_atoms || j == i) continue;
          if (m->getBondBetweenAtoms(i, j)) continue;
          Bond::BondType bt = Bond::SINGLE;
          switch (ia.bond_type[k]) {
            case INCHI_BOND_TYPE_DOUBLE:
              bt = Bond::DOUBLE;
              break;
            case INCHI_BOND_TYPE_TRIPLE:
              bt = Bond::TRIPLE;
              break;
            case INCHI_BOND_TYPE_ALTERN:
              bt = Bond::AROMATIC;
              break;
          }
          m->addBond(i, j, bt);
        }
      }
      // isotopic implicit hydrogens become explicit H atoms
      for (int i = 0; i < out.num_atoms; ++i) {
        const inchi_Atom &ia = out.atom[i];
        for (int iso = 1; iso <= NUM_H_ISOTOPES; ++iso) {
          for (int c = 0; c < ia.num_iso_H[iso]; ++c) {
            auto *h = new Atom(1);
            h->setIsotope(iso);
            unsigned hi = m->addAtom(h, true, true);
            m->addBond(static_cast<unsigned>(i), hi, Bond::SINGLE);
          }
        }
      }
      stereo.assign(out.stereo0D, out.stereo0D + out.num_stereo0D);
    } catch (const std::exception &e) {
      FreeStructFromStdINCHI(&out);
      throw InvalidMolecule(std::string("cannot build molecule from InChI: ") +
                            e.what());
    }
    FreeStructFromStdINCHI(&out);
  }

  chargeSeparateHypervalentOxygens(*m);
  try {
    MolOps::sanitizeMol(*m);
  } catch (const std::exception &e) {
    throw InvalidMolecule(sanitizeMessage(e, m.get()));
  }

  // stereo from 0D parities
  bool anyBond = false;
  for (const auto &s : stereo) {
    if (s.parity != INCHI_PARITY_EVEN && s.parity != INCHI_PARITY_ODD) {
      continue;
    }
    if (s.type == INCHI_StereoType_Tetrahedral) {
      Atom *c = m->getAtomWithIdx(s.central_atom);
      std::vector<int> want(s.neighbor, s.neighbor + 4);
      std::vector<int> have = rdkitOrder(*m, c);
      if (have.size() != 4) continue;
      // an isotopic H added above stands where libinchi put the centre
      std::vector<int> w2 = want;
      for (auto &x : w2) {
        if (x == static_cast<int>(s.central_atom)) {
          for (int h : have) {
            if (std::find(want.begin(), want.end(), h) == want.end()) x = h;
          }
        }
      }
      std::vector<int> sa = w2, sb = have;
      std::sort(sa.begin(), sa.end());
      std::sort(sb.begin(), sb.end());
      if (sa != sb) continue;
      bool even = s.parity == INCHI_PARITY_EVEN;
      if (permutationOdd(w2, have)) even = !even;
      c->setChiralTag(even ? Atom::CHI_TETRAHEDRAL_CW
                           : Atom::CHI_TETRAHEDRAL_CCW);
    } else if (s.type == INCHI_StereoType_DoubleBond) {
      Bond *b = m->getBondBetweenAtoms(s.neighbor[1], s.neighbor[2]);
      if (!b || b->getBondType() != Bond::DOUBLE) continue;
      int x = s.neighbor[0], y = s.neighbor[3];
      if (b->getBeginAtomIdx() != static_cast<unsigned>(s.neighbor[1])) {
        std::swap(x, y);
      }
      b->setStereoAtoms(x, y);
      b->setStereo(s.parity == INCHI_PARITY_EVEN ? Bond::STEREOTRANS
                                                 : Bond::STEREOCIS);
      anyBond = true;
    } else if (s.type == INCHI_StereoType_Allene) {
      if (!warning.empty()) warning += "; ";
      warning += "allene stereo from InChI is not kept";
    }
  }
  if (anyBond) MolOps::setDoubleBondNeighborDirections(*m);
  MolOps::assignStereochemistry(*m, true, true);
  checkInchiLayers(text, *m);
  return m.release();
}

std::string sanitizeMessage(const std::exception &e, const ROMol *mol) {
  if (auto *ve = dynamic_cast<const AtomValenceException *>(&e)) {
    unsigned idx = ve->getAtomIdx();
    std::string sym = "?";
    int valence = -1;
    if (mol && idx < mol->getNumAtoms()) {
      const Atom *a = mol->getAtomWithIdx(idx);
      sym = a->getSymbol();
      valence = 0;
      for (const auto &nbri :
           boost::make_iterator_range(mol->getAtomBonds(a))) {
        valence += static_cast<int>(std::lround((*mol)[nbri]->getBondTypeAsDouble()));
      }
      valence += static_cast<int>(a->getNumExplicitHs());
      if (a->getFormalCharge() != 0) {
        sym += a->getFormalCharge() > 0 ? "+" : "-";
      }
    }
    std::string msg = "explicit valence for atom " + std::to_string(idx + 1) +
                      " " + sym;
    if (valence >= 0) msg += " is " + std::to_string(valence);
    return msg + ", greater than permitted";
  }
  if (auto *ke = dynamic_cast<const KekulizeException *>(&e)) {
    std::string msg = "cannot assign a Kekulé structure to the aromatic atoms";
    const auto &idx = ke->getAtomIndices();
    for (size_t i = 0; i < idx.size(); ++i) {
      msg += (i == 0 ? " " : ", ") + std::to_string(idx[i] + 1);
      if (mol && idx[i] < mol->getNumAtoms()) {
        msg += " " + mol->getAtomWithIdx(idx[i])->getSymbol();
      }
    }
    return msg + " (check aromatic n/[nH] and ring closures)";
  }
  if (auto *ae = dynamic_cast<const AtomKekulizeException *>(&e)) {
    unsigned idx = ae->getAtomIdx();
    std::string msg = "non-ring atom " + std::to_string(idx + 1);
    if (mol && idx < mol->getNumAtoms()) {
      msg += " " + mol->getAtomWithIdx(idx)->getSymbol();
    }
    return msg + " is marked aromatic";
  }
  std::string w = e.what();
  if (!w.empty()) w[0] = static_cast<char>(std::tolower(w[0]));
  return w;
}

}  // namespace mg
