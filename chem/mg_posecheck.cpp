// mg_posecheck.cpp: mg_posecheck, the physical-validity checks of docked
// poses. The tests and their tolerances are PoseBusters' (Buttenschoen,
// Morris & Deane, Chem. Sci. 2024, 15, 3130, Table 4); this is our own
// code on RDKit's C++ API:
//
//   - bond_lengths, bond_angles, internal_clash: RDKit's distance-geometry
//     bounds matrix (setTopolBounds with 1-5 bounds and scaled vdW lower
//     bounds, no macrocycle 1-4 configuration, triangle smoothing: what
//     Python's GetMoleculeBoundsMatrix computes with PoseBusters'
//     parameters) on the molecule with its hydrogens; pairs with a
//     hydrogen are skipped. A bonded pair may leave [lower, upper] by
//     bond_tol of the bound it crosses, a 1-3 pair by angle_tol; any other
//     pair must stay at clash_ratio of its lower bound or more;
//   - aromatic_ring_flatness, double_bond_flatness: the atoms of each
//     5- or 6-membered aromatic ring of sp2 atoms, and of each C=C with its
//     four substituents, lie within flat_tol Angstrom of their least-squares
//     plane;
//   - stereo_inchikey: the standard InChIKey of the pose, stereochemistry
//     perceived from its 3D coordinates, equals the key of the docked
//     molecule's SMILES;
//   - energy_ratio: UFF energy of the pose (hydrogens relaxed, heavy atoms
//     fixed) over the mean UFF energy of `conformers` ETKDGv3 conformers of
//     the same molecule relaxed for uff_iters iterations;
//   - protein_clash: the smallest distance between a ligand heavy atom and a
//     receptor heavy atom over the sum of their vdW radii (RDKit's periodic
//     table) is protein_ratio or more.
//
// Everything that depends only on the molecule (bounds, SMARTS matches,
// the reference key, the conformer ensemble) is computed once for all
// poses of the call. Every RDKit object is owned by a unique_ptr; no C++
// exception crosses the C boundary.
#include "mg.h"
#include "mg_internal.hpp"
#include "mg_posecheck.h"

#include <DistGeom/BoundsMatrix.h>
#include <DistGeom/TriangleSmooth.h>
#include <ForceField/ForceField.h>
#include <GraphMol/DistGeomHelpers/BoundsMatrixBuilder.h>
#include <GraphMol/DistGeomHelpers/Embedder.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/ForceFieldHelpers/UFF/AtomTyper.h>
#include <GraphMol/ForceFieldHelpers/UFF/Builder.h>
#include <GraphMol/ForceFieldHelpers/UFF/UFF.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/PeriodicTable.h>
#include <GraphMol/SmilesParse/SmartsWrite.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/Substruct/SubstructMatch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace RDKit;

namespace {

double threadMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// smallestEigenvector returns the eigenvector of the smallest eigenvalue of
// the symmetric 3x3 matrix a, by cyclic Jacobi rotations. Written here
// because RDKit exposes no small dense eigensolver in its C++ headers and
// Eigen is not installed; a plane fit needs nothing more.
void smallestEigenvector(double a[3][3], double out[3]) {
  double v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    if (off < 1e-22) break;
    for (int p = 0; p < 2; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        if (std::fabs(a[p][q]) < 1e-30) continue;
        double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        double t = (theta >= 0 ? 1.0 : -1.0) /
                   (std::fabs(theta) + std::sqrt(theta * theta + 1));
        double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; ++k) {  // a = J^T a J
          double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {
          double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {
          double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
    }
  }
  int m = 0;
  for (int i = 1; i < 3; ++i)
    if (a[i][i] < a[m][m]) m = i;
  for (int k = 0; k < 3; ++k) out[k] = v[k][m];
}

// planeDeviation is the largest distance of the atoms from their
// least-squares plane.
double planeDeviation(const Conformer &conf, const std::vector<int> &atoms) {
  double c[3] = {0, 0, 0};
  for (int i : atoms) {
    const auto &p = conf.getAtomPos(i);
    c[0] += p.x, c[1] += p.y, c[2] += p.z;
  }
  for (double &x : c) x /= atoms.size();
  double cov[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int i : atoms) {
    const auto &p = conf.getAtomPos(i);
    double d[3] = {p.x - c[0], p.y - c[1], p.z - c[2]};
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) cov[r][s] += d[r] * d[s];
  }
  double n[3];
  smallestEigenvector(cov, n);
  double worst = 0;
  for (int i : atoms) {
    const auto &p = conf.getAtomPos(i);
    double d = (p.x - c[0]) * n[0] + (p.y - c[1]) * n[1] + (p.z - c[2]) * n[2];
    worst = std::max(worst, std::fabs(d));
  }
  return worst;
}

// splitRecords cuts an SD file into its molfile blocks.
std::vector<std::string> splitRecords(const std::string &sdf) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < sdf.size()) {
    size_t end = sdf.find("$$$$", start);
    std::string rec = sdf.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (rec.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(rec);
    if (end == std::string::npos) break;
    start = sdf.find('\n', end);
    if (start == std::string::npos) break;
    ++start;
  }
  return out;
}

// PairKind classifies a heavy-atom pair for the DG checks.
enum PairKind : unsigned char { kOther = 0, kBond = 1, kAngle = 2 };

struct Line {
  std::string text;
  void add(int pose, const char *name, int pass, double value) {
    text += "C\t" + std::to_string(pose) + "\t" + name + "\t" +
            (pass < 0 ? std::string("-") : std::to_string(pass)) + "\t" +
            num(value) + "\n";
  }
};

const char *kFlatRings[] = {"[ar5^2]1[ar5^2][ar5^2][ar5^2][ar5^2]1",
                            "[ar6^2]1[ar6^2][ar6^2][ar6^2][ar6^2][ar6^2]1"};
const char *kFlatDoubleBond = "[C;X3;^2](*)(*)=[C;X3;^2](*)(*)";

std::vector<std::vector<int>> matchAll(const ROMol &mol, const char *smarts) {
  std::unique_ptr<RWMol> q(SmartsToMol(smarts));
  std::vector<std::vector<int>> out;
  if (!q) return out;
  std::vector<MatchVectType> ms;
  SubstructMatch(mol, *q, ms, true);
  for (const auto &m : ms) {
    std::vector<int> atoms;
    for (const auto &pr : m) atoms.push_back(pr.second);
    out.push_back(atoms);
  }
  return out;
}

// readPoses reads the SD records of sdf (at most max of them; 0: all):
// each a 3D molecule within max_heavy_atoms, all of one molecule, with
// stereo assigned from the coordinates.
int readPoses(const std::string &sdf, const mg_posecheck_params &p, size_t max,
              std::vector<std::unique_ptr<RWMol>> &poses, std::string &err) {
  if (sdf.find('\0') != std::string::npos) {
    err = "input contains a NUL byte";
    return MG_POSECHECK_BAD_INPUT;
  }
  for (const auto &block : splitRecords(sdf)) {
    if (max > 0 && poses.size() == max) break;
    std::unique_ptr<RWMol> m;
    try {
      m.reset(MolBlockToMol(block, true, false, true));
    } catch (const std::exception &e) {
      err = std::string("pose ") + std::to_string(poses.size() + 1) +
            ": cannot read molfile: " + e.what();
      return MG_POSECHECK_BAD_INPUT;
    }
    if (!m || m->getNumAtoms() == 0 || m->getNumConformers() == 0 ||
        !m->getConformer().is3D()) {
      err = "pose " + std::to_string(poses.size() + 1) + ": no 3D molecule";
      return MG_POSECHECK_BAD_INPUT;
    }
    if (p.max_heavy_atoms > 0 &&
        static_cast<int>(m->getNumHeavyAtoms()) > p.max_heavy_atoms) {
      err = std::to_string(m->getNumHeavyAtoms()) +
            " heavy atoms, more than the " + std::to_string(p.max_heavy_atoms) +
            " a pose may have for its checks";
      return MG_POSECHECK_TOO_LARGE;
    }
    if (!poses.empty()) {
      const ROMol &f = *poses.front();
      bool same = f.getNumAtoms() == m->getNumAtoms() &&
                  f.getNumBonds() == m->getNumBonds();
      for (unsigned i = 0; same && i < f.getNumAtoms(); ++i)
        same = f.getAtomWithIdx(i)->getAtomicNum() ==
               m->getAtomWithIdx(i)->getAtomicNum();
      if (!same) {
        err = "pose " + std::to_string(poses.size() + 1) +
              " is not the molecule of pose 1";
        return MG_POSECHECK_BAD_INPUT;
      }
    }
    MolOps::assignStereochemistryFrom3D(*m);
    poses.push_back(std::move(m));
  }
  if (poses.empty()) {
    err = "no poses";
    return MG_POSECHECK_BAD_INPUT;
  }
  return MG_POSECHECK_OK;
}

// energyReference fills ref with the mean UFF energy of relaxed conformers
// of mol (the energy_ratio's denominator): ETKDGv3 conformers embedded one
// at a time (seeds seed, seed+1, ...) so that the CPU budget bounds the
// ensemble (one ETKDG attempt on a large ring can take seconds, and RDKit
// cannot be interrupted inside one), each relaxed for uff_iters.
void energyReference(const ROMol &mol, const mg_posecheck_params &p, mg_pose_ref &ref) {
  double t0 = threadMicros();
  ref.atoms = static_cast<int>(mol.getNumAtoms());
  ref.mean_energy = std::numeric_limits<double>::quiet_NaN();
  ref.uff_ok = UFF::getAtomTypes(mol).second ? 1 : 0;
  if (ref.uff_ok && p.conformers > 0) {
    RWMol ens(mol);
    ens.clearConformers();
    DGeomHelpers::EmbedParameters ep = DGeomHelpers::ETKDGv3;
    ep.randomSeed = p.seed;
    ep.useRandomCoords = true;
    ep.numThreads = 1;
    ep.maxIterations = p.embed_attempts;
    ep.clearConfs = false;
    for (int c = 0; c < p.conformers; ++c) {
      if (c > 0 && threadMicros() - t0 > p.ensemble_cpu_ms * 1e3) break;
      ep.randomSeed = p.seed + c;
      DGeomHelpers::EmbedMolecule(ens, ep);
    }
    if (ens.getNumConformers() > 0) {
      std::vector<std::pair<int, double>> res;
      UFF::UFFOptimizeMoleculeConfs(ens, res, 1, p.uff_iters, 10.0, true);
      double sum = 0;
      for (const auto &r : res) sum += r.second;
      if (!res.empty()) ref.mean_energy = sum / res.size();
    }
  }
  ref.micros = threadMicros() - t0;
}

int check(const std::string &smiles, const std::string &sdf,
          const double *receptor, int nrec, const mg_posecheck_params &p,
          const mg_pose_ref *given, std::string &out, std::string &err) {
  if (smiles.find('\0') != std::string::npos) {
    err = "input contains a NUL byte";
    return MG_POSECHECK_BAD_INPUT;
  }
  double t0 = threadMicros();
  std::vector<std::unique_ptr<RWMol>> poses;
  if (int rc = readPoses(sdf, p, 0, poses, err); rc != MG_POSECHECK_OK) return rc;
  const ROMol &first = *poses.front();
  const unsigned n = first.getNumAtoms();

  // The reference key: the docked molecule as its SMILES states it.
  std::unique_ptr<RWMol> ref;
  try {
    ref.reset(SmilesToMol(smiles));
  } catch (const std::exception &e) {
    ref.reset();
  }
  if (!ref) {
    err = "cannot parse SMILES " + smiles;
    return MG_POSECHECK_BAD_INPUT;
  }
  mg::InchiResult refKey = mg::molToInchi(*ref);

  // Distance-geometry bounds and the pair classes (heavy atoms only).
  DistGeom::BoundsMatPtr bm(new DistGeom::BoundsMatrix(n));
  DGeomHelpers::initBoundsMat(bm);
  DGeomHelpers::setTopolBounds(first, bm, true, true, false);
  DistGeom::triangleSmoothBounds(bm);
  std::vector<unsigned char> kind(static_cast<size_t>(n) * n, kOther);
  auto at = [n](unsigned i, unsigned j) { return static_cast<size_t>(i) * n + j; };
  for (const auto b : first.bonds()) {
    unsigned i = b->getBeginAtomIdx(), j = b->getEndAtomIdx();
    kind[at(i, j)] = kind[at(j, i)] = kBond;
  }
  for (const auto a : first.atoms()) {
    std::vector<unsigned> nb;
    for (const auto &nbri : boost::make_iterator_range(first.getAtomNeighbors(a)))
      nb.push_back(static_cast<unsigned>(nbri));
    for (size_t x = 0; x < nb.size(); ++x)
      for (size_t y = x + 1; y < nb.size(); ++y)
        if (kind[at(nb[x], nb[y])] != kBond)
          kind[at(nb[x], nb[y])] = kind[at(nb[y], nb[x])] = kAngle;
  }
  std::vector<unsigned> heavy;
  for (const auto a : first.atoms())
    if (a->getAtomicNum() != 1) heavy.push_back(a->getIdx());

  std::vector<std::vector<int>> rings, doubles;
  for (const char *s : kFlatRings)
    for (auto &m : matchAll(first, s)) rings.push_back(m);
  doubles = matchAll(first, kFlatDoubleBond);
  double t1 = threadMicros();

  // The energy reference: relaxed conformers of the same molecule, built
  // here unless the caller built it beforehand (mg_pose_reference).
  mg_pose_ref energy{};
  if (given && given->atoms > 0) {
    if (given->atoms != static_cast<int>(n)) {
      err = "the energy reference is of a molecule of " + std::to_string(given->atoms) +
            " atoms, the poses have " + std::to_string(n);
      return MG_POSECHECK_BAD_INPUT;
    }
    energy = *given;
  } else {
    energyReference(first, p, energy);
  }
  const double meanEnergy = energy.mean_energy;
  const bool uffOK = energy.uff_ok != 0;
  double t2 = threadMicros();

  Line l;
  for (size_t k = 0; k < poses.size(); ++k) {
    RWMol &m = *poses[k];
    const Conformer &conf = m.getConformer();
    const int pose = static_cast<int>(k);
    double worstBond = 0, worstAngle = 0, closest = std::numeric_limits<double>::infinity();
    for (size_t x = 0; x < heavy.size(); ++x) {
      for (size_t y = x + 1; y < heavy.size(); ++y) {
        unsigned i = heavy[x], j = heavy[y];
        double d = (conf.getAtomPos(i) - conf.getAtomPos(j)).length();
        double lb = bm->getLowerBound(i, j), ub = bm->getUpperBound(i, j);
        unsigned char c = kind[at(i, j)];
        double dev = 0;
        if (d < lb) dev = (lb - d) / lb;
        else if (d > ub) dev = (d - ub) / ub;
        if (c == kBond) worstBond = std::max(worstBond, dev);
        else if (c == kAngle) worstAngle = std::max(worstAngle, dev);
        else if (lb > 0) closest = std::min(closest, d / lb);
      }
    }
    l.add(pose, "bond_lengths", worstBond <= p.bond_tol, worstBond);
    l.add(pose, "bond_angles", worstAngle <= p.angle_tol, worstAngle);
    if (std::isfinite(closest))
      l.add(pose, "internal_clash", closest >= p.clash_ratio, closest);
    else
      l.add(pose, "internal_clash", 1, closest);

    double flat = -1;
    for (const auto &r : rings) flat = std::max(flat, planeDeviation(conf, r));
    l.add(pose, "aromatic_ring_flatness", flat <= p.flat_tol,
          flat < 0 ? std::numeric_limits<double>::quiet_NaN() : flat);
    flat = -1;
    for (const auto &r : doubles) flat = std::max(flat, planeDeviation(conf, r));
    l.add(pose, "double_bond_flatness", flat <= p.flat_tol,
          flat < 0 ? std::numeric_limits<double>::quiet_NaN() : flat);

    if (refKey.key.empty()) {
      l.add(pose, "stereo_inchikey", -1, std::numeric_limits<double>::quiet_NaN());
    } else {
      mg::InchiResult key = mg::molToInchi(m);
      l.add(pose, "stereo_inchikey", key.key == refKey.key ? 1 : 0,
            std::numeric_limits<double>::quiet_NaN());
    }

    if (nrec > 0) {
      double best = std::numeric_limits<double>::infinity();
      const PeriodicTable *pt = PeriodicTable::getTable();
      const double s2 = p.protein_search * p.protein_search;
      for (unsigned i : heavy) {
        const auto &a = conf.getAtomPos(i);
        double ri = pt->getRvdw(m.getAtomWithIdx(i)->getAtomicNum());
        for (int r = 0; r < nrec; ++r) {
          const double *q = receptor + 4 * r;
          double dx = a.x - q[0], dy = a.y - q[1], dz = a.z - q[2];
          double d2 = dx * dx + dy * dy + dz * dz;
          if (d2 > s2) continue;
          best = std::min(best, std::sqrt(d2) / (ri + q[3]));
        }
      }
      l.add(pose, "protein_clash", !std::isfinite(best) || best >= p.protein_ratio, best);
    } else {
      l.add(pose, "protein_clash", -1, std::numeric_limits<double>::quiet_NaN());
    }

    // Last: relaxing the hydrogens moves them in m's conformer.
    if (uffOK && std::isfinite(meanEnergy) && meanEnergy != 0) {
      std::unique_ptr<ForceFields::ForceField> ff(
          UFF::constructForceField(m, 10.0, -1, true));
      for (unsigned i : heavy) ff->fixedPoints().push_back(static_cast<int>(i));
      ff->initialize();
      ff->minimize(static_cast<unsigned>(p.uff_iters));
      double ratio = ff->calcEnergy() / meanEnergy;
      l.add(pose, "energy_ratio", std::isfinite(ratio) && ratio <= p.energy_ratio_max, ratio);
    } else {
      l.add(pose, "energy_ratio", -1, std::numeric_limits<double>::quiet_NaN());
    }
  }
  double t3 = threadMicros();
  out = l.text;
  out += "T\tsetup\t" + num(t1 - t0) + "\nT\tensemble\t" + num(t2 - t1) +
         "\nT\tposes\t" + num(t3 - t2) + "\n";
  if (!std::isfinite(meanEnergy))
    out += "N\tenergy_ratio\t" + std::string(uffOK ? "no conformer embedded" : "no UFF parameters") + "\n";
  if (refKey.key.empty()) out += "N\tstereo_inchikey\t" + refKey.message + "\n";
  return MG_POSECHECK_OK;
}

}  // namespace

extern "C" {

int mg_pose_reference(const char *sdf, size_t sdf_len, const mg_posecheck_params *p,
                      mg_pose_ref *ref, char **err) {
  *err = nullptr;
  *ref = mg_pose_ref{};
  try {
    std::string e;
    std::vector<std::unique_ptr<RWMol>> mols;
    int rc = readPoses(std::string(sdf ? sdf : "", sdf ? sdf_len : 0), *p, 1, mols, e);
    if (rc != MG_POSECHECK_OK) {
      *err = mg::cString(e);
      return rc;
    }
    energyReference(*mols.front(), *p, *ref);
    return MG_POSECHECK_OK;
  } catch (const std::exception &e) {
    *err = mg::cString(std::string("pose energy reference: ") + e.what());
  } catch (...) {
    *err = mg::cString("pose energy reference: unknown error");
  }
  *ref = mg_pose_ref{};
  return MG_POSECHECK_ERROR;
}

int mg_posecheck(const char *smiles, size_t smiles_len, const char *sdf,
                 size_t sdf_len, const double *receptor, int n_receptor,
                 const mg_posecheck_params *p, const mg_pose_ref *ref,
                 char **out, char **err) {
  *out = nullptr;
  *err = nullptr;
  try {
    std::string o, e;
    int rc = check(std::string(smiles ? smiles : "", smiles ? smiles_len : 0),
                   std::string(sdf ? sdf : "", sdf ? sdf_len : 0), receptor,
                   n_receptor, *p, ref, o, e);
    if (rc == MG_POSECHECK_OK) {
      *out = mg::cString(o);
    } else {
      *err = mg::cString(e);
    }
    return rc;
  } catch (const std::exception &e) {
    *err = mg::cString(std::string("pose check: ") + e.what());
  } catch (...) {
    *err = mg::cString("pose check: unknown error");
  }
  return MG_POSECHECK_ERROR;
}

double mg_vdw_radius(const char *symbol) {
  try {
    const PeriodicTable *pt = PeriodicTable::getTable();
    int z = pt->getAtomicNumber(symbol);
    if (z <= 0) return -1;
    return pt->getRvdw(z);
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
