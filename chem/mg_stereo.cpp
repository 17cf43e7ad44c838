// mg_stereo.cpp: mg_stereoisomers, the stereoisomers of a molecule whose
// stereocentres or double bonds are unspecified. RDKit 2022.09's C++ API has
// no EnumerateStereoisomers (it is Python-only, rdkit.Chem.EnumerateStereoisomers),
// so the enumeration is written here over RDKit's own findPotentialStereo:
// every unspecified tetrahedral centre gets CW/CCW and every unspecified
// double bond cis/trans, as the Python function does with onlyUnassigned
// and unique. No C++ exception crosses the C boundary.
#include "mg.h"
#include "mg_internal.hpp"

#include <GraphMol/Chirality.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace RDKit;

namespace {

// kTriesPerIsomer bounds the assignments tried per isomer wanted.
constexpr unsigned long kTriesPerIsomer = 8;

int enumerate(const std::string &smiles, int max, std::string &out,
              int &total, std::string &err) {
  std::unique_ptr<RWMol> mol(SmilesToMol(smiles));
  if (!mol) {
    err = "not a SMILES";
    return -1;
  }
  auto infos = Chirality::findPotentialStereo(*mol, true, true);
  std::vector<Chirality::StereoInfo> open;
  for (const auto &si : infos) {
    if (si.specified != Chirality::StereoSpecified::Unspecified) continue;
    if (si.type == Chirality::StereoType::Atom_Tetrahedral) open.push_back(si);
    if (si.type == Chirality::StereoType::Bond_Double &&
        si.controllingAtoms.size() == 4 &&
        si.controllingAtoms[0] != Chirality::StereoInfo::NOATOM &&
        si.controllingAtoms[2] != Chirality::StereoInfo::NOATOM)
      open.push_back(si);
  }
  size_t n = open.size();
  total = n >= 30 ? (1 << 30) : (1 << n);
  std::set<std::string> seen;
  std::vector<std::string> order;
  if (n == 0) {
    order.push_back(MolToSmiles(*mol));
  }
  // At most kTriesPerIsomer * max assignments are tried: where the
  // assignments collapse (a symmetric cage: the 24 potential centres of
  // C20H20 written as dodecahedrane are one molecule) the search for max
  // distinct ones went through all 2^24 of them, ~1 ms each, in one call
  // nothing interrupts (hours, on a read: GET .../structure?format=pdbqt).
  const unsigned long tries =
      std::min(1UL << (n < 30 ? n : 30), kTriesPerIsomer * static_cast<unsigned long>(max));
  for (unsigned long code = 0; n > 0 && code < tries &&
                               static_cast<int>(order.size()) < max;
       ++code) {
    RWMol iso(*mol);
    for (size_t k = 0; k < n; ++k) {
      bool bit = (code >> k) & 1;
      const auto &si = open[k];
      if (si.type == Chirality::StereoType::Atom_Tetrahedral) {
        iso.getAtomWithIdx(si.centeredOn)
            ->setChiralTag(bit ? Atom::CHI_TETRAHEDRAL_CCW
                               : Atom::CHI_TETRAHEDRAL_CW);
      } else {
        Bond *b = iso.getBondWithIdx(si.centeredOn);
        b->setStereoAtoms(si.controllingAtoms[0], si.controllingAtoms[2]);
        b->setStereo(bit ? Bond::STEREOTRANS : Bond::STEREOCIS);
      }
    }
    // Re-read the written SMILES so that the string is RDKit's canonical one
    // for the isomer (and an isomer that is not one, e.g. a meso form written
    // twice, is kept once).
    std::string s = MolToSmiles(iso);
    std::unique_ptr<RWMol> back(SmilesToMol(s));
    if (!back) continue;
    s = MolToSmiles(*back);
    if (seen.insert(s).second) order.push_back(s);
  }
  for (const auto &s : order) {
    out += s;
    out += '\n';
  }
  return 0;
}

}  // namespace

extern "C" char *mg_stereoisomers(const char *smiles, size_t len, int max,
                                  int *total, char **err) {
  *err = nullptr;
  *total = 0;
  try {
    std::string out, e;
    int t = 0;
    if (enumerate(std::string(smiles, len), max, out, t, e) != 0) {
      *err = mg::cString(e);
      return nullptr;
    }
    *total = t;
    return mg::cString(out);
  } catch (const std::exception &ex) {
    *err = mg::cString(ex.what());
  } catch (...) {
    *err = mg::cString("unknown RDKit error");
  }
  return nullptr;
}
