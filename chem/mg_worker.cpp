// mg_worker.cpp: the per-thread worker and the processing pipeline behind
// mg_process: parse -> normalize -> identity -> properties -> QED ->
// validation -> coordinates. Every RDKit object is owned by a unique_ptr or
// lives on the stack, and every C++ exception stops at the extern "C"
// boundary.
#include "mg.h"
#include "mg_fp.h"
#include "mg_guard.h"
#include "mg_internal.hpp"

#include <GraphMol/Chirality.h>
#include <GraphMol/Conformer.h>
#include <GraphMol/Depictor/RDDepictor.h>
#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/Descriptors/Lipinski.h>
#include <GraphMol/Descriptors/MolDescriptors.h>
#include <GraphMol/Descriptors/MolSurf.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/FileParsers/MolFileStereochem.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/MolStandardize/Charge.h>
#include <GraphMol/MolStandardize/Fragment.h>
#include <GraphMol/MolStandardize/Metal.h>
#include <GraphMol/MolStandardize/Normalize.h>
#include <GraphMol/PeriodicTable.h>
#include <GraphMol/QueryAtom.h>
#include <GraphMol/QueryBond.h>
#include <GraphMol/QueryOps.h>
#include <GraphMol/SanitException.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>
#include <GraphMol/Substruct/SubstructMatch.h>
#include <RDGeneral/FileParseException.h>
#include <RDGeneral/RDLog.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <sstream>

using namespace RDKit;

struct mg_worker {
  MolStandardize::MetalDisconnector metal;
  MolStandardize::Normalizer normalizer;
  MolStandardize::Reionizer reionizer;
  MolStandardize::LargestFragmentChooser chooser{true};  // prefer organic
  MolStandardize::Uncharger uncharger;
  mg::StepScreen normalizeScreen = mg::StepScreen::normalizer();
  mg::StepScreen reionizeScreen = mg::StepScreen::reionizer();
  mg::QED qed;
  mg::Crippen crippen;
  mg::Counters counters;
};

namespace {

double cpuMicros() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct Issue {
  std::string level, code, message;
};

// signature is a cheap order-independent hash of a molecule, used only to
// tell whether a standardization step changed anything.
std::uint64_t signature(const ROMol &m) {
  auto mix = [](std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  };
  std::uint64_t h = m.getNumAtoms() * 0x9e3779b97f4a7c15ULL + m.getNumBonds();
  for (const auto a : m.atoms()) {
    std::uint64_t v = static_cast<std::uint64_t>(a->getAtomicNum()) |
                      static_cast<std::uint64_t>(a->getFormalCharge() + 16) << 8 |
                      static_cast<std::uint64_t>(a->getTotalNumHs()) << 16 |
                      static_cast<std::uint64_t>(a->getIsotope()) << 24 |
                      static_cast<std::uint64_t>(a->getChiralTag()) << 40;
    h += mix(v);
  }
  for (const auto b : m.bonds()) {
    h += mix(0x100000000000ULL + static_cast<std::uint64_t>(b->getBondType()));
  }
  return h;
}

// sanitizedCopy returns a sanitized copy of m, or null if RDKit's
// sanitization fails on it.
std::unique_ptr<ROMol> sanitizedCopy(const ROMol &m) {
  std::unique_ptr<RWMol> rw(new RWMol(m));
  try {
    MolOps::sanitizeMol(*rw);
  } catch (const MolSanitizeException &) {
    return nullptr;
  }
  return std::unique_ptr<ROMol>(rw.release());
}

// resanitizeIsNoop is true if m has no H atom to remove and is a plain
// molecule on which a second sanitization is a no-op: no query atom or bond
// (a molfile's "A" or "any" bond), no dummy atom, only single, double,
// triple and aromatic bonds, aromatic atoms only of C, N, O and S, each
// with at least two aromatic bonds, aromatic bonds (and only they) flagged
// aromatic and only between aromatic atoms, and every atom's valence
// allowed as it is now.
// RDKit's sanitization is not idempotent everywhere: the fuzzer found
// "B[o]1BB1", whose O passes the valence check while aromatic and is then
// kekulized to three single bonds, so a second sanitization fails.
bool resanitizeIsNoop(RWMol &m) {
  try {
    for (auto a : m.atoms()) a->updatePropertyCache(true);
  } catch (const MolSanitizeException &) {
    return false;
  }
  for (const auto a : m.atoms()) {
    const int z = a->getAtomicNum();
    if (z <= 1 || a->hasQuery()) return false;
    if (!a->getIsAromatic()) continue;
    if (z != 6 && z != 7 && z != 8 && z != 16) return false;
    unsigned aromaticBonds = 0;
    for (const auto b : m.atomBonds(a)) {
      if (b->getIsAromatic()) ++aromaticBonds;
    }
    if (aromaticBonds < 2) return false;
  }
  for (const auto b : m.bonds()) {
    if (b->hasQuery()) return false;
    switch (b->getBondType()) {
      case Bond::SINGLE:
      case Bond::DOUBLE:
      case Bond::TRIPLE:
      case Bond::AROMATIC:
        break;
      default:  // zero-order, dative, unspecified ... bonds
        return false;
    }
    if (b->getIsAromatic() != (b->getBondType() == Bond::AROMATIC)) return false;
    if (b->getIsAromatic() &&
        !(b->getBeginAtom()->getIsAromatic() && b->getEndAtom()->getIsAromatic())) {
      return false;
    }
  }
  return true;
}

bool hasFormalCharge(const ROMol &m) {
  for (const auto a : m.atoms()) {
    if (a->getFormalCharge() != 0) return true;
  }
  return false;
}

RWMol *parseSmiles(const std::string &text) {
  std::string s = text;
  // a SMILES line may carry a name after whitespace
  size_t start = s.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) throw mg::InvalidMolecule("empty SMILES");
  s = s.substr(start);
  size_t end = s.find_first_of(" \t\r\n");
  if (end != std::string::npos) s = s.substr(0, end);
  SmilesParserParams p;
  p.allowCXSMILES = false;
  RWMol *m = nullptr;
  try {
    m = SmilesToMol(s, p);
  } catch (const MolSanitizeException &e) {
    // parse again without sanitization to name the atom
    SmilesParserParams raw;
    raw.sanitize = false;
    raw.removeHs = false;  // else the parser still perceives stereo: CIP
                           // ranks took 22 s on a 3,000-atom chain
    raw.allowCXSMILES = false;
    std::unique_ptr<RWMol> r;
    try {
      r.reset(SmilesToMol(s, raw));
      if (r) r->updatePropertyCache(false);
    } catch (...) {
    }
    throw mg::InvalidMolecule(mg::sanitizeMessage(e, r.get()));
  }
  if (!m) throw mg::InvalidMolecule("SMILES syntax error in \"" + s + "\"");
  return m;
}

RWMol *parseMolBlock(const std::string &text) {
  std::string block = text;
  size_t dollars = block.find("$$$$");
  if (dollars != std::string::npos) block = block.substr(0, dollars);
  if (block.find("M  END") == std::string::npos) {
    throw mg::InvalidMolecule("molfile has no \"M  END\" line");
  }
  RWMol *m = nullptr;
  try {
    m = MolBlockToMol(block, true, true, true);
  } catch (const MolSanitizeException &e) {
    std::unique_ptr<RWMol> r;
    try {
      r.reset(MolBlockToMol(block, false, false, true));
      if (r) r->updatePropertyCache(false);
    } catch (...) {
    }
    throw mg::InvalidMolecule(mg::sanitizeMessage(e, r.get()));
  } catch (const FileParseException &e) {
    std::string w = e.what();
    if (!w.empty()) w[0] = static_cast<char>(std::tolower(w[0]));
    throw mg::InvalidMolecule("cannot read molfile: " + w);
  }
  if (!m) throw mg::InvalidMolecule("cannot read molfile");
  return m;
}

// proximityBonds connects atoms closer than the sum of their covalent radii
// plus 0.45 A, the usual tolerance of bond perception from coordinates.
void proximityBonds(RWMol &m, const mg_atoms &in, const std::vector<int> &idx) {
  const PeriodicTable *pt = PeriodicTable::getTable();
  for (size_t i = 0; i < idx.size(); ++i) {
    for (size_t j = i + 1; j < idx.size(); ++j) {
      int a = idx[i], b = idx[j];
      if (in.atomic_num[a] == 1 && in.atomic_num[b] == 1) continue;
      double dx = in.xyz[3 * a] - in.xyz[3 * b];
      double dy = in.xyz[3 * a + 1] - in.xyz[3 * b + 1];
      double dz = in.xyz[3 * a + 2] - in.xyz[3 * b + 2];
      double d = std::sqrt(dx * dx + dy * dy + dz * dz);
      double lim = pt->getRcovalent(in.atomic_num[a]) +
                   pt->getRcovalent(in.atomic_num[b]) + 0.45;
      if (d > 0.4 && d < lim) m.addBond(i, j, Bond::SINGLE);
    }
  }
}

// fromAtoms builds a molecule from a 3D ligand (PDBQT) and a template SMILES
// that supplies bond orders, charges and hydrogens; the coordinates supply
// the atom mapping (when no SMILES IDX was given) and, where the template
// has none, the stereo.
RWMol *fromAtoms(const mg_atoms &in, std::vector<Issue> &issues) {
  std::string tmpl(in.template_smiles ? in.template_smiles : "",
                   in.template_len);
  std::vector<int> heavy;
  for (int i = 0; i < in.n; ++i) {
    if (in.atomic_num[i] < 0 || in.atomic_num[i] > 118) {
      throw mg::InvalidMolecule("unknown element in PDBQT");
    }
    if (in.atomic_num[i] > 1) heavy.push_back(i);
  }
  if (heavy.empty()) throw mg::InvalidMolecule("PDBQT ligand has no heavy atoms");
  if (tmpl.empty()) {
    throw mg::InvalidMolecule(
        "PDBQT ligand has no REMARK SMILES line and no template SMILES was "
        "given: bond orders cannot be recovered from a PDBQT whose non-polar "
        "hydrogens were merged; supply the ligand's SMILES as a template");
  }
  std::unique_ptr<RWMol> t;
  try {
    t.reset(parseSmiles(tmpl));
  } catch (const mg::InvalidMolecule &e) {
    throw mg::InvalidMolecule(std::string("template SMILES: ") + e.what());
  }
  MolOps::removeHs(*t);
  if (t->getNumHeavyAtoms() != heavy.size() ||
      t->getNumAtoms() != heavy.size()) {
    throw mg::InvalidMolecule(
        "template SMILES has " + std::to_string(t->getNumAtoms()) +
        " heavy atoms but the PDBQT ligand has " +
        std::to_string(heavy.size()));
  }
  std::vector<int> map(t->getNumAtoms(), -1);  // template atom -> input atom
  if (in.have_idx) {
    for (int i : heavy) {
      int k = in.template_idx[i];
      if (k < 0) continue;
      if (k >= static_cast<int>(map.size())) {
        throw mg::InvalidMolecule("REMARK SMILES IDX refers to atom " +
                                  std::to_string(k + 1) +
                                  " beyond the SMILES");
      }
      if (t->getAtomWithIdx(k)->getAtomicNum() != in.atomic_num[i]) {
        throw mg::InvalidMolecule("REMARK SMILES IDX maps SMILES atom " +
                                  std::to_string(k + 1) + " (" +
                                  t->getAtomWithIdx(k)->getSymbol() +
                                  ") to a different element");
      }
      map[k] = i;
    }
    for (size_t k = 0; k < map.size(); ++k) {
      if (map[k] < 0) {
        throw mg::InvalidMolecule("REMARK SMILES IDX gives no coordinates for "
                                  "SMILES atom " + std::to_string(k + 1));
      }
    }
  } else {
    // connectivity from distances, then match the template graph onto it
    RWMol prox;
    for (int i : heavy) prox.addAtom(new Atom(in.atomic_num[i]), true, true);
    proximityBonds(prox, in, heavy);
    prox.updatePropertyCache(false);
    RWMol q;
    for (const auto a : t->atoms()) {
      auto *qa = new QueryAtom(a->getAtomicNum());
      q.addAtom(qa, true, true);
    }
    for (const auto b : t->bonds()) {
      auto *qb = new QueryBond();
      qb->setBeginAtomIdx(b->getBeginAtomIdx());
      qb->setEndAtomIdx(b->getEndAtomIdx());
      qb->setQuery(makeBondNullQuery());
      q.addBond(qb, true);
    }
    if (prox.getNumBonds() != t->getNumBonds()) {
      throw mg::InvalidMolecule(
          "the PDBQT atoms form " + std::to_string(prox.getNumBonds()) +
          " bonds by distance but the template SMILES has " +
          std::to_string(t->getNumBonds()) +
          ": the template does not match the ligand");
    }
    MolOps::fastFindRings(prox);
    SubstructMatchParameters p;
    p.maxMatches = 1;
    p.uniquify = false;
    auto matches = SubstructMatch(prox, q, p);
    if (matches.empty()) {
      throw mg::InvalidMolecule(
          "the template SMILES does not match the PDBQT ligand's atoms and "
          "connectivity");
    }
    for (const auto &pr : matches[0]) map[pr.first] = heavy[pr.second];
    issues.push_back({"warning", "bond_orders_from_template",
                      "bond orders taken from the template SMILES, atoms "
                      "matched by proximity bonding"});
  }
  auto *conf = new Conformer(t->getNumAtoms());
  for (size_t k = 0; k < map.size(); ++k) {
    int i = map[k];
    conf->setAtomPos(k, RDGeom::Point3D(in.xyz[3 * i], in.xyz[3 * i + 1],
                                        in.xyz[3 * i + 2]));
  }
  conf->set3D(true);
  t->addConformer(conf, true);
  bool hasStereo = tmpl.find('@') != std::string::npos ||
                   tmpl.find('/') != std::string::npos ||
                   tmpl.find('\\') != std::string::npos;
  if (!hasStereo) MolOps::assignStereochemistryFrom3D(*t);
  return t.release();
}

}  // namespace

extern "C" {

void mg_init(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    rdErrorLog = nullptr;
    rdWarningLog = nullptr;
    rdInfoLog = nullptr;
    rdDebugLog = nullptr;
    rdStatusLog = nullptr;
    rdAppLog = nullptr;
  });
}

mg_worker *mg_worker_new(char **err) {
  try {
    return new mg_worker();
  } catch (const std::exception &e) {
    if (err) *err = mg::cString(e.what());
  } catch (...) {
    if (err) *err = mg::cString("unknown C++ exception");
  }
  return nullptr;
}

void mg_worker_free(mg_worker *w) { delete w; }

void mg_free(void *p) { std::free(p); }

void mg_result_free(mg_result *r) {
  if (!r) return;
  for (char **p : {&r->error, &r->smiles, &r->inchi, &r->inchikey, &r->formula,
                   &r->issues, &r->steps, &r->removed, &r->molblock}) {
    std::free(*p);
    *p = nullptr;
  }
  mg_fingerprints_free(r->fp);
  r->fp = nullptr;
}

int mg_check_screens(mg_worker *w, const char *smiles, size_t len,
                     char **report) {
  *report = nullptr;
  try {
    std::unique_ptr<RWMol> m0(SmilesToMol(std::string(smiles, len)));
    if (!m0) return -1;
    std::vector<std::unique_ptr<ROMol>> mols;
    mols.emplace_back(new ROMol(*m0));
    mols.emplace_back(MolOps::addHs(static_cast<const ROMol &>(*m0)));
    std::string diff;
    std::vector<const mg::Pattern *> pats = w->qed.patterns();
    for (const auto *p : w->crippen.patterns()) pats.push_back(p);
    for (const auto *p : w->reionizeScreen.patterns()) pats.push_back(p);
    for (const auto *p : w->normalizeScreen.patterns()) pats.push_back(p);
    for (const auto &m : mols) {
      const mg::MolTypes types = mg::typesOf(*m);
      for (const auto *p : pats) {
        bool may = p->mayMatch(*m, types);
        if (may) {
          may = false;
          for (const auto a : m->atoms()) {
            if (p->firstMayMatch(a)) {
              may = true;
              break;
            }
          }
        }
        if (!may && !SubstructMatch(*m, p->mol(), SubstructMatchParameters()).empty()) {
          diff += "screen skips a matching pattern with " +
                  std::to_string(p->mol().getNumAtoms()) + " atoms\n";
        }
      }
      double logp = 0, mr = 0;
      {
        ROMol c(*m);
        Descriptors::calcCrippenDescriptors(c, logp, mr);
      }
      if (w->crippen.logP(*m) != logp) diff += "logP differs\n";
      if (w->counters.hba(*m) != Descriptors::calcNumHBA(*m)) diff += "HBA differs\n";
      if (w->counters.rotatableBonds(*m) !=
          Descriptors::calcNumRotatableBonds(*m, Descriptors::Strict)) {
        diff += "rotatable bonds differ\n";
      }
    }
    if (diff.empty()) return 0;
    *report = mg::cString(diff);
    return 1;
  } catch (...) {
    return -1;
  }
}

int mg_process(mg_worker *w, int format, const char *content, size_t len,
               const mg_atoms *atoms, int flags, mg_result *out) {
  std::memset(out, 0, sizeof *out);
  std::vector<Issue> issues;
  std::vector<std::string> steps, removed;
  try {
    std::string text(content ? content : "", len);
    if (text.find('\0') != std::string::npos) {
      throw mg::InvalidMolecule("input contains a NUL byte");
    }
    double t0 = cpuMicros();
    std::unique_ptr<RWMol> mol;
    switch (format) {
      case MG_SMILES:
        mol.reset(parseSmiles(text));
        break;
      case MG_MOLBLOCK:
        mol.reset(parseMolBlock(text));
        break;
      case MG_INCHI: {
        std::string warn;
        mol.reset(mg::inchiToMol(text, warn));
        if (!warn.empty()) issues.push_back({"warning", "inchi_input", warn});
        break;
      }
      case MG_ATOMS:
        if (!atoms) throw mg::InvalidMolecule("no atoms");
        mol.reset(fromAtoms(*atoms, issues));
        break;
      default:
        throw mg::InvalidMolecule("unsupported input format");
    }
    if (mol->getNumAtoms() == 0) throw mg::InvalidMolecule("no atoms");
    // before normalization and fingerprints, whose cost grows with it
    mg::checkPathWork(*mol, "molecule");
    steps.push_back("sanitize");
    double t1 = cpuMicros();
    out->us_parse = t1 - t0;

    // --- normalization
    // untouched: no step changed the parsed molecule's atoms and bonds
    // other than removing hydrogens (with a new sanitization) or whole
    // fragments (MG_FINGERPRINTS then fingerprints fin itself).
    bool untouched = format == MG_SMILES || format == MG_MOLBLOCK;
    unsigned nInputFrags = 0;
    {
      std::vector<int> mapping;
      nInputFrags = MolOps::getMolFrags(*mol, mapping);
    }
    std::unique_ptr<ROMol> fin;
    if (flags & MG_NO_NORMALIZE) {
      fin.reset(new ROMol(*mol));
    } else {
      // Four steps are skipped where they cannot change the molecule
      // (flag MG_NO_SHORTCUTS runs them anyway; TestShortcutsExact
      // compares both ways). Together they took 30% of the pipeline's CPU.
      const bool shortcuts = !(flags & MG_NO_SHORTCUTS);
      RWMol m(*mol);
      if (shortcuts && resanitizeIsNoop(m)) {
        // With no H atom to remove, MolOps::removeHs only sanitizes again
        // (RDKit 2022.09 AddHs.cpp tests atomsToRemove.empty(), the
        // bitset's size), and the molecule was sanitized when parsed. Of
        // that sanitization, what is not a no-op on a sanitized molecule is
        // its first step: computed properties are cleared, so that the
        // stereo perception below runs again. (It also clears the ring
        // information, then finds the same symmetrized SSSR again.) The
        // atoms' property caches are up to date: resanitizeIsNoop updated
        // them.
        m.clearComputedProps(false);  // keeps the ring information
        out->shortcuts |= MG_SKIPPED_REMOVEHS;
      } else {
        MolOps::removeHs(m);
      }
      std::uint64_t before = signature(m);
      w->metal.disconnect(m);
      if (signature(m) != before) untouched = false;
      std::unique_ptr<ROMol> norm;
      std::vector<int> normFrags;
      const mg::MolTypes types = mg::typesOf(m);
      bool normalized = true;
      if (shortcuts && MolOps::getMolFrags(m, normFrags) == 1 &&
          !w->normalizeScreen.mayChange(m, types)) {
        // what Normalizer::normalize returns for one fragment that no
        // transform matches: a copy with its property cache updated and
        // its rings found (a no-op when they are known)
        norm.reset(new ROMol(m));
        norm->updatePropertyCache(false);
        MolOps::fastFindRings(*norm);
        out->shortcuts |= MG_SKIPPED_NORMALIZE;
        normalized = false;
      } else {
        norm.reset(w->normalizer.normalize(m));
      }
      std::unique_ptr<ROMol> reion;
      if (shortcuts &&
          !w->reionizeScreen.mayChange(*norm, normalized ? mg::typesOf(*norm) : types)) {
        // what Reionizer::reionize returns when nothing matches
        reion.reset(new ROMol(*norm));
        if (reion->needsUpdatePropertyCache()) reion->updatePropertyCache(false);
        out->shortcuts |= MG_SKIPPED_REIONIZE;
      } else {
        reion.reset(w->reionizer.reionize(*norm));
      }
      MolOps::assignStereochemistry(*reion);
      std::uint64_t after = signature(*reion);
      steps.push_back(before == after ? "cleanup"
                                      : "cleanup: functional groups and "
                                        "charges normalized");
      std::vector<int> fragMap;
      std::unique_ptr<ROMol> chosen;
      if (MolOps::getMolFrags(*reion, fragMap) > 1) {
        std::vector<boost::shared_ptr<ROMol>> frags =
            MolOps::getMolFrags(*reion, true);
        chosen.reset(w->chooser.choose(*reion));
        std::string keep = MolToSmiles(*chosen);
        bool skipped = false;
        for (const auto &f : frags) {
          std::string s = MolToSmiles(*f);
          if (!skipped && s == keep) {
            skipped = true;
            continue;
          }
          removed.push_back(s);
        }
        std::string msg = "largest organic fragment: removed ";
        for (size_t i = 0; i < removed.size(); ++i) {
          msg += (i ? ", " : "") + removed[i];
        }
        steps.push_back(msg);
      } else {
        chosen = std::move(reion);
        steps.push_back("largest organic fragment");
      }
      int q0 = MolOps::getFormalCharge(*chosen);
      std::uint64_t s0 = signature(*chosen);
      if (shortcuts && !hasFormalCharge(*chosen)) {
        // Uncharger::uncharge (2022.09) copies the molecule, updating its
        // property cache if needed; every one of its four patterns asks
        // for a charged atom, and with no charge there is none to remove.
        fin.reset(new ROMol(*chosen));
        if (fin->needsUpdatePropertyCache()) fin->updatePropertyCache(false);
        out->shortcuts |= MG_SKIPPED_UNCHARGE;
      } else {
        fin.reset(w->uncharger.uncharge(*chosen));
      }
      // MetalDisconnector, Reionizer and Uncharger edit charges, H counts
      // and bonds in place and do not sanitize (RDKit 2022.09; Python's
      // rdMolStandardize the same): neutralizing cyclopentadienide
      // (ferrocene's or sodium cyclopentadienide's [cH-]) or tropylium
      // leaves the ring flagged aromatic, and its SMILES "c1cccc1" cannot be
      // read back. So whatever they changed is sanitized again, which
      // kekulizes it and perceives aromaticity afresh (C1=CCC=C1, as
      // Python's SanitizeMol after the same steps). If that fails, the
      // charged fragment is kept, then the parsed molecule's largest
      // organic fragment, with a "standardization" warning saying so.
      if (before != after || s0 != signature(*fin)) {
        std::unique_ptr<ROMol> ok = sanitizedCopy(*fin);
        if (!ok) {
          std::string why = "neutralized fragment " + MolToSmiles(*fin) +
                            " does not sanitize; ";
          ok = sanitizedCopy(*chosen);
          if (ok) {
            why += "kept it charged";
          } else {
            // the parsed molecule was sanitized: its fragment needs none
            RWMol p(*mol);
            MolOps::removeHs(p, false, false, false);
            ok.reset(w->chooser.choose(p));
            why += "kept the input's largest organic fragment unstandardized";
          }
          issues.push_back({"warning", "standardization", why});
        }
        fin = std::move(ok);
      }
      // The Uncharger leaves cached valences of the charged form, and a
      // neutralized amine N may keep a chiral tag it no longer supports:
      // recompute both, as RDKit's SMILES writer does on a fresh copy.
      fin->updatePropertyCache(false);
      MolOps::assignStereochemistry(*fin, true, true);
      const int skipped =
          MG_SKIPPED_NORMALIZE | MG_SKIPPED_REIONIZE | MG_SKIPPED_UNCHARGE;
      if ((out->shortcuts & skipped) != skipped) untouched = false;
      int q1 = MolOps::getFormalCharge(*fin);
      if (s0 == signature(*fin)) {
        steps.push_back("neutralize");
      } else {
        steps.push_back("neutralize: net charge " + std::to_string(q0) +
                        " -> " + std::to_string(q1));
      }
    }
    fin->updatePropertyCache(false);
    double t2 = cpuMicros();
    out->us_normalize = t2 - t1;

    // --- identity
    out->smiles = mg::cString(MolToSmiles(*fin));
    double t3 = cpuMicros();
    out->us_smiles = t3 - t2;
    mg::InchiResult ir = mg::molToInchi(*fin);
    if (!ir.inchi.empty()) {
      out->inchi = mg::cString(ir.inchi);
      out->inchikey = mg::cString(ir.key);
      if (!ir.message.empty()) {
        issues.push_back({"warning", "inchi", "InChI: " + ir.message});
      }
    } else {
      issues.push_back({"error", "inchi", "no InChI: " + ir.message});
    }
    double t4 = cpuMicros();
    out->us_inchi = t4 - t3;

    // --- properties
    out->formula = mg::cString(Descriptors::calcMolFormula(*fin));
    mg::QEDInputs qin;
    qin.logp = w->crippen.logP(*fin);
    qin.mw = Descriptors::calcAMW(*fin);
    qin.tpsa = Descriptors::calcTPSA(*fin);
    qin.hbd = Descriptors::calcNumHBD(*fin);
    qin.rotb = w->counters.rotatableBonds(*fin);
    out->logp = qin.logp;
    out->mw = qin.mw;
    out->exact_mass = Descriptors::calcExactMW(*fin);
    out->tpsa = qin.tpsa;
    out->hbd = static_cast<int>(qin.hbd);
    out->hba = static_cast<int>(w->counters.hba(*fin));
    out->rotb = static_cast<int>(qin.rotb);
    out->heavy_atoms = static_cast<int>(fin->getNumHeavyAtoms());
    out->aromatic_rings =
        static_cast<int>(Descriptors::calcNumAromaticRings(*fin));
    out->charge = MolOps::getFormalCharge(*fin);
    double t5 = cpuMicros();
    out->us_props = t5 - t4;
    out->qed = w->qed.compute(*fin, qin);
    double t6 = cpuMicros();
    out->us_qed = t6 - t5;

    // --- validation
    if (nInputFrags > 1) {
      std::string msg = "input has " + std::to_string(nInputFrags) +
                        " fragments; kept the largest organic one";
      if (!removed.empty()) {
        msg += ", removed ";
        for (size_t i = 0; i < removed.size(); ++i) {
          msg += (i ? ", " : "") + removed[i];
        }
      }
      issues.push_back({"warning", "multiple_fragments", msg});
    }
    static const int organic[] = {1, 5, 6, 7, 8, 9, 14, 15, 16, 17, 34, 35, 53};
    bool dummy = false, isotope = false;
    std::vector<std::string> badElements;
    for (const auto a : fin->atoms()) {
      std::string where = "atom " + std::to_string(a->getIdx() + 1) + " " +
                          a->getSymbol();
      if (a->getAtomicNum() == 0 || a->hasQuery()) dummy = true;
      if (a->getNumRadicalElectrons() > 0) {
        issues.push_back({"error", "radical",
                          where + " has " +
                              std::to_string(a->getNumRadicalElectrons()) +
                              " unpaired electron(s)"});
      }
      if (a->getAtomicNum() > 0 &&
          std::find(std::begin(organic), std::end(organic),
                    a->getAtomicNum()) == std::end(organic)) {
        if (std::find(badElements.begin(), badElements.end(),
                      a->getSymbol()) == badElements.end()) {
          badElements.push_back(a->getSymbol());
        }
      }
      if (a->getIsotope() != 0) isotope = true;
    }
    if (dummy) {
      issues.push_back({"error", "dummy_atom",
                        "structure contains dummy (*) or query atoms"});
    }
    for (const auto &e : badElements) {
      issues.push_back({"error", "element",
                        "element " + e +
                            " is outside the organic set (H B C N O F Si P S "
                            "Cl Se Br I)"});
    }
    if (out->heavy_atoms < 1 || out->heavy_atoms > 1000) {
      issues.push_back({"error", "size",
                        std::to_string(out->heavy_atoms) +
                            " heavy atoms, outside the allowed 1..1000"});
    }
    if (isotope) {
      issues.push_back({"warning", "isotope", "structure contains isotopes"});
    }
    if (out->charge != 0) {
      issues.push_back({"warning", "charged",
                        "net charge " + std::to_string(out->charge) +
                            " remains after neutralization"});
    }

    // --- coordinates (3D is mg_embed's, outside the worker threads)
    if (flags & MG_COORDS2D) {
      RWMol d(*fin);
      RDDepict::compute2DCoords(d);
      out->molblock = mg::cString(MolToMolBlock(d));
    }
    double t7 = cpuMicros();
    out->us_coords = t7 - t6;

    // --- structure-search fingerprints, last: they may recompute fin's
    // rings
    if (flags & MG_FINGERPRINTS) {
      out->fp = mg_fingerprints_of(*fin, out->smiles ? out->smiles : "",
                                   untouched);
      out->us_fp = cpuMicros() - t7;
    }
  } catch (const mg::InvalidMolecule &e) {
    mg_result_free(out);
    out->error = mg::cString(e.what());
  } catch (const MolSanitizeException &e) {
    mg_result_free(out);
    out->error = mg::cString(mg::sanitizeMessage(e, nullptr));
  } catch (const std::exception &e) {
    mg_result_free(out);
    std::string w = e.what();
    out->error = mg::cString("cannot process molecule: " + (w.empty() ? "unknown error" : w));
  } catch (...) {
    mg_result_free(out);
    out->error = mg::cString("cannot process molecule: unknown error");
  }
  std::string s;
  for (const auto &i : issues) {
    s += i.level + "\t" + i.code + "\t" + i.message + "\n";
  }
  out->issues = mg::cString(s);
  s.clear();
  for (const auto &st : steps) s += st + "\n";
  out->steps = mg::cString(s);
  s.clear();
  for (const auto &r : removed) s += r + "\n";
  out->removed = mg::cString(s);
  return 0;
}

}  // extern "C"
