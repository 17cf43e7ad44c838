// mg_embed.cpp: mg_embed, 3D coordinates for one molecule given as SMILES:
// hydrogens added, ETKDGv3 with a fixed seed, then MMFF94. It runs apart
// from the per-thread workers (package chem runs it on its own threads or
// in a helper process) and checks a stop flag between ETKDG attempts and
// between chunks of MMFF iterations, so a cancelled or over-time embedding
// gives its thread back after one attempt or one chunk. Every RDKit object
// is owned by a unique_ptr; no C++ exception crosses the C boundary.
#include "mg.h"

#include <ForceField/ForceField.h>
#include <GraphMol/DistGeomHelpers/Embedder.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/ForceFieldHelpers/MMFF/AtomTyper.h>
#include <GraphMol/ForceFieldHelpers/MMFF/Builder.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/SmilesParse/SmilesParse.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "mg_internal.hpp"

using namespace RDKit;

namespace {

// stopped reads the flag Go sets from another thread (atomic store).
bool stopped(const int *stop) {
  return stop != nullptr && __atomic_load_n(stop, __ATOMIC_RELAXED) != 0;
}

}  // namespace

extern "C" {

int mg_embed(const char *smiles, size_t len, const mg_embed_params *p,
             const int *stop, mg_embed_result *out) {
  std::memset(out, 0, sizeof *out);
  try {
    std::string smi(smiles ? smiles : "", smiles ? len : 0);
    std::unique_ptr<RWMol> m(SmilesToMol(smi));
    if (!m) {
      out->error = mg::cString("cannot parse SMILES " + smi);
      return -1;
    }
    if (p->max_heavy_atoms > 0 &&
        static_cast<int>(m->getNumHeavyAtoms()) > p->max_heavy_atoms) {
      out->error = mg::cString(std::to_string(m->getNumHeavyAtoms()) +
                        " heavy atoms, more than " +
                        std::to_string(p->max_heavy_atoms));
      return 3;
    }
    MolOps::addHs(*m);
    // One EmbedMolecule call per attempt (maxIterations 1, seed + k), so
    // that the stop flag is read between attempts: RDKit 2022.09 has no
    // other way to interrupt an embedding. The first attempt is the one a
    // single call with the same seed makes. The second half of the
    // attempts starts from random coordinates, which RDKit recommends for
    // molecules whose distance-matrix eigenvectors fail.
    DGeomHelpers::EmbedParameters ep = DGeomHelpers::ETKDGv3;
    ep.maxIterations = 1;
    int n = std::max(1, p->max_attempts);
    int cid = -1;
    for (int k = 0; k < n && cid < 0; ++k) {
      if (stopped(stop)) return 2;
      ep.randomSeed = p->seed + k;
      ep.useRandomCoords = k >= (n + 1) / 2;
      cid = DGeomHelpers::EmbedMolecule(*m, ep);
      out->attempts = k + 1;
    }
    if (cid < 0) return 1;
    MMFF::MMFFMolProperties props(*m);
    if (props.isValid()) {
      // MMFFOptimizeMolecule's force field (non-bonded threshold 10),
      // minimized in one call: chunks would let the stop flag be read
      // between them, but each restarts BFGS and ends elsewhere (see
      // embed.go).
      if (stopped(stop)) return 2;
      std::unique_ptr<ForceFields::ForceField> ff(
          MMFF::constructForceField(*m, &props, 10.0, cid, true));
      ff->initialize();
      int needMore = ff->minimize(p->mmff_max_iters);
      out->mmff_iters = p->mmff_max_iters;
      out->mmff = 1;
      out->converged = needMore ? 0 : 1;
    }
    out->molblock = mg::cString(MolToMolBlock(*m));
    out->xyz = mg::cString(MolToXYZBlock(*m));
    if (!out->molblock || !out->xyz) {
      mg_embed_result_free(out);
      out->error = mg::cString("out of memory");
      return -1;
    }
    return 0;
  } catch (const std::bad_alloc &) {
    mg_embed_result_free(out);
    out->error = mg::cString("out of memory");
  } catch (const std::exception &e) {
    mg_embed_result_free(out);
    std::string w = e.what();
    out->error = mg::cString("embedding: " + (w.empty() ? "unknown error" : w));
  } catch (...) {
    mg_embed_result_free(out);
    out->error = mg::cString("embedding: unknown error");
  }
  return -1;
}

void mg_embed_result_free(mg_embed_result *r) {
  std::free(r->error);
  std::free(r->molblock);
  std::free(r->xyz);
  r->error = r->molblock = r->xyz = nullptr;
}

}  // extern "C"
