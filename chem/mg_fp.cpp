// mg_fp.cpp: fingerprints, structure queries and substructure matching for
// structure search (mg_fp.h). RDKit's own functions do the chemistry:
// MorganFingerprints::getFingerprintAsBitVect (what Python's
// AllChem.GetMorganFingerprintAsBitVect(m, 2, 2048) calls),
// PatternFingerprintMol (Chem.PatternFingerprint, SubstructLibrary's
// screen), SubstructMatch (HasSubstructMatch) and MolPickler. Every RDKit
// object lives in a unique_ptr; no exception crosses the C boundary.
// RDConfig.h first: it defines RDK_BUILD_THREADSAFE_SSS, which changes
// the layout of RDKit classes (RecursiveStructureQuery holds a mutex then),
// and the RDKit headers used here do not include it.
#include <RDGeneral/RDConfig.h>

#include "mg.h"
#include "mg_fp.h"
#include "mg_guard.h"
#include "mg_match.h"
#include "mg_pattern.h"
#include "mg_internal.hpp"

#include <DataStructs/ExplicitBitVect.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/Fingerprints/Fingerprints.h>
#include <GraphMol/Fingerprints/MorganFingerprints.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/MolPickler.h>
#include <GraphMol/QueryAtom.h>
#include <GraphMol/QueryOps.h>
#include <GraphMol/RingInfo.h>
#include <GraphMol/SanitException.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/Substruct/SubstructMatch.h>
#include <RDGeneral/FileParseException.h>

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

using namespace RDKit;

namespace {

void words(const ExplicitBitVect &bv, uint64_t *out) {
  std::memset(out, 0, MG_FP_WORDS * sizeof(uint64_t));
  std::vector<int> on;
  bv.getOnBits(on);
  for (int i : on) {
    if (i >= 0 && i < MG_FP_WORDS * 64) out[i / 64] |= uint64_t(1) << (i % 64);
  }
}

void morganOf(const ROMol &m, uint64_t *out) {
  std::unique_ptr<ExplicitBitVect> fp(
      MorganFingerprints::getFingerprintAsBitVect(m, 2, 2048));
  words(*fp, out);
}

void patternOf(const ROMol &m, uint64_t *out) {
  std::unique_ptr<ExplicitBitVect> fp(PatternFingerprintMol(m, 2048));
  words(*fp, out);
}

// elementOf finds the element a query atom requires: an AtomAtomicNum or
// AtomType equality, alone or under an AND.
bool elementOf(const Atom::QUERYATOM_QUERY *q, int &z) {
  if (!q || q->getNegation()) return false;
  const std::string &d = q->getDescription();
  if (d == "AtomAtomicNum" || d == "AtomType") {
    auto eq = dynamic_cast<const ATOM_EQUALS_QUERY *>(q);
    if (!eq) return false;
    z = eq->getVal() % 1000;  // AtomType: number + 1000 if aromatic
    return true;
  }
  if (d == "AtomAnd") {
    for (auto it = q->beginChildren(); it != q->endChildren(); ++it) {
      if (elementOf(it->get(), z)) return true;
    }
  }
  return false;
}

// screenCopy returns the molecule whose pattern fingerprint screens the
// query. RDKit's PatternFingerprintMol takes a query atom it does not
// consider complex by its getAtomicNum(), which the SMARTS parser leaves at
// 0 when the element is not the atom's first primitive ([D4;#6], [R;N]):
// the fingerprint then has bits no molecule has, and the screen drops true
// hits (RDKit 2022.09). Such atoms become "any atom" in the copy, which
// matches wherever the query does, so the screen stays a necessary
// condition.
std::unique_ptr<ROMol> screenCopy(const ROMol &q) {
  std::unique_ptr<RWMol> rw(new RWMol(q));
  for (unsigned i = 0; i < rw->getNumAtoms(); i++) {
    Atom *a = rw->getAtomWithIdx(i);
    if (!a->hasQuery() || isComplexQuery(a)) continue;
    int z = -1;
    if (elementOf(a->getQuery(), z) && z == int(a->getAtomicNum())) continue;
    QueryAtom any;
    any.setQuery(makeAtomNullQuery());
    rw->replaceAtom(i, &any);
  }
  return std::unique_ptr<ROMol>(rw.release());
}

// parseQuery builds the query molecule. Throws mg::InvalidMolecule for a
// query that does not parse.
std::unique_ptr<ROMol> parseQuery(const std::string &text, int kind,
                                  int flags) {
  if (text.find('\0') != std::string::npos)
    throw mg::InvalidMolecule("query contains a NUL byte");
  std::unique_ptr<ROMol> q;
  try {
    switch (kind) {
      case MG_Q_SMILES:
        q.reset(SmilesToMol(text));
        if (!q) throw mg::InvalidMolecule("not a valid SMILES");
        break;
      case MG_Q_SMARTS:
        q.reset(SmartsToMol(text));
        if (!q) throw mg::InvalidMolecule("not a valid SMARTS");
        break;
      case MG_Q_MOLBLOCK:
        if (text.find("M  END") == std::string::npos)
          throw mg::InvalidMolecule("molfile has no \"M  END\" line");
        q.reset(MolBlockToMol(text, true, true, true));
        if (!q) throw mg::InvalidMolecule("not a valid molfile");
        break;
      default:
        throw mg::InvalidMolecule("unknown query kind");
    }
  } catch (const mg::InvalidMolecule &) {
    throw;
  } catch (const MolSanitizeException &e) {
    throw mg::InvalidMolecule(mg::sanitizeMessage(e, nullptr));
  } catch (const FileParseException &e) {
    throw mg::InvalidMolecule(std::string("cannot read molfile: ") + e.what());
  } catch (const std::exception &e) {
    throw mg::InvalidMolecule(std::string("cannot parse query: ") + e.what());
  }
  if (q->getNumAtoms() == 0) throw mg::InvalidMolecule("query has no atoms");
  if (kind != MG_Q_SMARTS) {
    // A query molecule's atoms compare charge and isotope only where they
    // are not zero (RDKit's Atom::Match): zeroing them lifts the condition.
    for (auto a : q->atoms()) {
      if (flags & MG_Q_NOCHARGES) a->setFormalCharge(0);
      if (flags & MG_Q_NOISOTOPES) a->setIsotope(0);
    }
  }
  return q;
}

// unpickle reads a molecule written by mg_fp.
std::unique_ptr<ROMol> unpickle(const char *p, size_t n) {
  std::unique_ptr<ROMol> m(new ROMol());
  MolPickler::molFromPickle(std::string(p, n), *m);
  if (!m->getRingInfo()->isInitialized()) MolOps::findSSSR(*m);
  return m;
}

// compute writes the fingerprints and the pickle (without conformers: a
// molfile's coordinates are not needed for matching) of m.
int compute(const ROMol &m, uint64_t *morgan, uint64_t *pattern, char **pickle,
            size_t *pickle_len, char **err) {
  mg::checkPathWork(m, "molecule");
  morganOf(m, morgan);
  // RDKit's bits, by mg_pattern.cpp's walk where it applies (a molecule
  // without query features: ~5x less CPU than PatternFingerprintMol)
  if (!mg::patternFingerprint(m, pattern)) patternOf(m, pattern);
  std::string pk;
  MolPickler::pickleMol(
      m, pk,
      MolPickler::getDefaultPickleProperties() | PicklerOps::NoConformers);
  *pickle = static_cast<char *>(std::malloc(pk.size() ? pk.size() : 1));
  if (!*pickle) {
    *err = mg::cString("out of memory");
    return -1;
  }
  std::memcpy(*pickle, pk.data(), pk.size());
  *pickle_len = pk.size();
  return 0;
}

// plain: no query atom or bond (a molfile's "A", "L" or "any" bond), which
// the SMILES writer turns into plain ones that fingerprint differently.
bool plain(const ROMol &m) {
  for (const auto a : m.atoms()) {
    if (a->hasQuery()) return false;
  }
  for (const auto b : m.bonds()) {
    if (b->hasQuery()) return false;
  }
  return true;
}

// bridged: two rings share more than one bond. RDKit 2022.09 writes some
// bridged ring systems as a SMILES of another graph (WEHI's
// N(C)(c1ccc(cc1)O)C(=O)C2C3C(C2CCC3)c4ccccc4 gives
// CN(C(=O)C1C2CCCC1C2c1ccccc1)c1ccc(O)cc1, which it does not contain), so
// the molecule read back from the canonical SMILES is not the pipeline's.
bool bridged(const ROMol &m) {
  const auto &rings = m.getRingInfo()->atomRings();
  for (size_t i = 0; i < rings.size(); i++) {
    for (size_t j = i + 1; j < rings.size(); j++) {
      int shared = 0;
      for (int a : rings[i]) {
        if (std::find(rings[j].begin(), rings[j].end(), a) != rings[j].end()) {
          shared++;
        }
      }
      if (shared > 2) return true;
    }
  }
  return false;
}

// yesNoParams are the SubstructMatch parameters of a yes/no question
// (the first match is enough) under the query flags.
SubstructMatchParameters yesNoParams(int flags) {
  SubstructMatchParameters ps;
  ps.useChirality = (flags & MG_Q_CHIRALITY) != 0;
  ps.maxMatches = 1;
  ps.uniquify = false;
  return ps;
}

// hasMatch: q is a substructure of m (super: m of q), by fast when it can
// take the query and knows the answer, else by RDKit's SubstructMatch.
bool hasMatch(const ROMol &q, const ROMol &m, const SubstructMatchParameters &ps,
              bool super, mg::Matcher &fast) {
  if (super) return !SubstructMatch(q, m, ps).empty();
  if (fast.usable()) {
    bool r = fast.has(m);
    if (!fast.overflowed()) return r;
  }
  return !SubstructMatch(m, q, ps).empty();
}

}  // namespace

// Outside extern "C": it takes C++ types (declared in mg_fp.h).
mg_fingerprints *mg_fingerprints_of(ROMol &m, const std::string &smiles,
                                    bool reuse) {
  auto f = static_cast<mg_fingerprints *>(std::calloc(1, sizeof(mg_fingerprints)));
  if (!f) return nullptr;
  try {
    std::unique_ptr<ROMol> parsed;
    const ROMol *src = &m;
    bool own = reuse && plain(m);
    if (own) {
      // Fingerprints read ring membership and ring counts: make them
      // sanitization's (a fragment or a normalized copy may carry rings
      // found by fastFindRings, which counts rings differently).
      m.getRingInfo()->reset();
      MolOps::symmetrizeSSSR(m);
      own = !bridged(m);
    }
    if (!own) {
      parsed.reset(SmilesToMol(smiles));
      if (!parsed) {
        f->error = mg::cString("not a valid SMILES");
        return f;
      }
      src = parsed.get();
      f->reparsed = 1;
    }
    compute(*src, f->morgan, f->pattern, &f->pickle, &f->pickle_len,
            &f->error);
  } catch (const std::exception &e) {
    f->error = mg::cString(std::string("fingerprint: ") + e.what());
  } catch (...) {
    f->error = mg::cString("fingerprint: unknown error");
  }
  if (f->error) {
    std::free(f->pickle);
    f->pickle = nullptr;
    f->pickle_len = 0;
  }
  return f;
}

extern "C" {

int mg_fp(const char *smiles, size_t len, uint64_t *morgan, uint64_t *pattern,
          char **pickle, size_t *pickle_len, char **err) {
  *pickle = nullptr;
  *pickle_len = 0;
  *err = nullptr;
  try {
    std::string s(smiles ? smiles : "", len);
    if (s.find('\0') != std::string::npos) {
      *err = mg::cString("SMILES contains a NUL byte");
      return -1;
    }
    std::unique_ptr<ROMol> m(SmilesToMol(s));
    if (!m) {
      *err = mg::cString("not a valid SMILES");
      return -1;
    }
    return compute(*m, morgan, pattern, pickle, pickle_len, err);
  } catch (const std::exception &e) {
    *err = mg::cString(std::string("fingerprint: ") + e.what());
  } catch (...) {
    *err = mg::cString("fingerprint: unknown error");
  }
  return -1;
}

void mg_fingerprints_free(mg_fingerprints *f) {
  if (!f) return;
  std::free(f->pickle);
  std::free(f->error);
  std::free(f);
}

int mg_query(const char *text, size_t len, int kind, int flags,
             uint64_t *morgan, uint64_t *pattern, int *is_mol, char **err) {
  *err = nullptr;
  *is_mol = 0;
  try {
    auto q = parseQuery(std::string(text ? text : "", len), kind, flags);
    mg::checkPathWork(*q, "query");
    patternOf(*screenCopy(*q), pattern);
    if (kind != MG_Q_SMARTS) {
      morganOf(*q, morgan);
      *is_mol = 1;
    }
    return 0;
  } catch (const std::exception &e) {
    *err = mg::cString(e.what());
  } catch (...) {
    *err = mg::cString("cannot parse query");
  }
  return -1;
}

struct mg_matcher {
  std::unique_ptr<ROMol> q;
  SubstructMatchParameters ps;
  bool super = false;
  std::unique_ptr<mg::Matcher> fast;  // holds references to q and ps
};

mg_matcher *mg_matcher_new(const char *text, size_t len, int kind, int flags,
                           int super, char **err) {
  *err = nullptr;
  try {
    std::unique_ptr<mg_matcher> m(new mg_matcher());
    m->q = parseQuery(std::string(text ? text : "", len), kind, flags);
    if (super && kind == MG_Q_SMARTS) {
      *err = mg::cString("a superstructure query must be a molecule, not SMARTS");
      return nullptr;
    }
    m->ps = yesNoParams(flags);
    m->super = super != 0;
    m->fast.reset(new mg::Matcher(*m->q, m->ps));
    return m.release();
  } catch (const std::exception &e) {
    *err = mg::cString(e.what());
  } catch (...) {
    *err = mg::cString("match: unknown error");
  }
  return nullptr;
}

void mg_matcher_free(mg_matcher *m) { delete m; }

int mg_match(mg_matcher *mt, const char *pickles, const size_t *offsets, int n,
             unsigned char *out, const int *stop, char **err) {
  *err = nullptr;
  try {
    for (int i = 0; i < n; i++) {
      if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) return 2;
      auto m = unpickle(pickles + offsets[i], offsets[i + 1] - offsets[i]);
      out[i] = hasMatch(*mt->q, *m, mt->ps, mt->super, *mt->fast) ? 1 : 0;
    }
    return 0;
  } catch (const std::exception &e) {
    *err = mg::cString(e.what());
  } catch (...) {
    *err = mg::cString("match: unknown error");
  }
  return -1;
}

int mg_match_engines(const char *text, size_t len, int kind, int flags,
                     const char *pickles, const size_t *offsets, int n,
                     unsigned char *fast, unsigned char *rdkit, char **err) {
  *err = nullptr;
  try {
    auto q = parseQuery(std::string(text ? text : "", len), kind, flags);
    const SubstructMatchParameters ps = yesNoParams(flags);
    mg::Matcher matcher(*q, ps);
    // as mg_molset holds them: the classes' representatives point into
    // the molecules, which live as long as the classes
    mg::Classes classes;
    std::vector<std::unique_ptr<ROMol>> mols;
    std::vector<mg::Graph> graphs;
    for (int i = 0; i < n; i++) {
      mols.push_back(unpickle(pickles + offsets[i], offsets[i + 1] - offsets[i]));
      graphs.push_back(classes.graph(*mols.back()));
    }
    for (int i = 0; i < n; i++) {
      const ROMol &m = *mols[i];
      if (matcher.usable()) {
        bool byGraph = matcher.has(m, graphs[i].empty() ? nullptr : graphs[i].data(), classes);
        bool over = matcher.overflowed();
        bool plain = matcher.has(m);
        over = over || matcher.overflowed();
        if (over) {
          byGraph = plain = hasMatch(*q, m, ps, false, matcher);
        }
        fast[i] = byGraph == plain ? (byGraph ? 1 : 0) : 3;
      } else {
        fast[i] = 2;
      }
      rdkit[i] = SubstructMatch(m, *q, ps).empty() ? 0 : 1;
    }
    return 0;
  } catch (const std::exception &e) {
    *err = mg::cString(e.what());
  } catch (...) {
    *err = mg::cString("match: unknown error");
  }
  return -1;
}

// graphArena holds the Graphs of a molset in chunks of 2 MiB, each
// allocated once and marked for huge pages. Why not a vector per Graph: a
// candidate's Graph is the one part of it a search reads, and held apart
// from each other between the ~15 KB RDKit molecules, the Graphs of a
// batch of candidates cost a TLB miss each, the largest part of matching
// an unselective query (perf: 3/4 of mg_molset_match's samples on the
// prefetch of the next Graph). Packed, 100,000 Graphs take ~20 huge pages.
class graphArena {
 public:
  static constexpr size_t kChunk = size_t(2) << 20;  // bytes; a Graph is < 1 MiB
  graphArena() = default;
  graphArena(const graphArena &) = delete;
  graphArena &operator=(const graphArena &) = delete;
  ~graphArena() {
    for (void *c : chunks_) std::free(c);
  }
  // put copies g and returns where it lives until the arena is freed
  // (nullptr for an empty Graph).
  const std::uint16_t *put(const mg::Graph &g) {
    if (g.empty()) return nullptr;
    size_t bytes = g.size() * sizeof(std::uint16_t);
    if (bytes > kChunk) throw std::length_error("graph too large");
    if (chunks_.empty() || used_ + bytes > kChunk) {
      void *c = std::aligned_alloc(kChunk, kChunk);
      if (!c) throw std::bad_alloc();
      madvise(c, kChunk, MADV_HUGEPAGE);  // advice: fine if refused
      chunks_.push_back(c);
      used_ = 0;
    }
    auto *p = reinterpret_cast<std::uint16_t *>(static_cast<char *>(chunks_.back()) + used_);
    std::memcpy(p, g.data(), bytes);
    used_ += (bytes + 7) & ~size_t(7);
    return p;
  }

 private:
  std::vector<void *> chunks_;
  size_t used_ = 0;
};

struct mg_molset {
  int max;
  std::shared_mutex mu;
  struct entry {
    std::unique_ptr<ROMol> mol;
    const std::uint16_t *graph;  // in arena, for mg::Matcher::has; nullptr: none
    mg::Summary sum;  // for the search index's screen (mg_molset_summary)
  };
  // by slot: a search names its candidates by slot, not by id (a hash
  // lookup by id per candidate cost more than matching it)
  std::vector<entry> mols;
  std::unordered_map<std::string, std::int32_t> slots;  // id -> slot
  mg::Classes classes;  // never forgets a molecule it points into
  graphArena arena;
};

mg_molset *mg_molset_new(int max) {
  try {
    auto s = new mg_molset();
    s->max = max;
    return s;
  } catch (...) {
    return nullptr;
  }
}

void mg_molset_free(mg_molset *s) { delete s; }

int mg_molset_len(mg_molset *s) {
  std::shared_lock<std::shared_mutex> lock(s->mu);
  return int(s->mols.size());
}

int mg_molset_slot(mg_molset *s, const char *id, size_t idlen) {
  try {
    std::string key(id, idlen);
    std::shared_lock<std::shared_mutex> lock(s->mu);
    auto it = s->slots.find(key);
    return it == s->slots.end() ? -1 : it->second;
  } catch (...) {
    return -1;
  }
}

int mg_molset_add(mg_molset *s, const char *id, size_t idlen,
                  const char *pickle, size_t len) {
  try {
    std::string key(id, idlen);
    {
      std::shared_lock<std::shared_mutex> lock(s->mu);
      auto it = s->slots.find(key);
      if (it != s->slots.end()) return it->second;
      if (int(s->mols.size()) >= s->max) return -1;
    }
    auto m = unpickle(pickle, len);  // outside the lock
    std::unique_lock<std::shared_mutex> lock(s->mu);
    auto it = s->slots.find(key);
    if (it != s->slots.end()) return it->second;
    if (int(s->mols.size()) >= s->max) return -1;
    auto g = s->classes.graph(*m);
    auto sum = mg::summarize(*m, g);
    auto slot = std::int32_t(s->mols.size());
    const std::uint16_t *gp = s->arena.put(g);
    s->mols.push_back(mg_molset::entry{std::move(m), gp, sum});
    s->slots.emplace(std::move(key), slot);
    return slot;
  } catch (...) {
    return -2;
  }
}

int mg_molset_match(mg_molset *s, mg_matcher *mt, const int32_t *slots, int n,
                    unsigned char *out, char **err) {
  *err = nullptr;
  try {
    std::shared_lock<std::shared_mutex> lock(s->mu);
    const bool byGraph = !mt->super && mt->fast->usable();
    const size_t held = s->mols.size();
    // Candidates are scattered over the set: their entries and Graphs are
    // cache misses that cost more than most walks. Prefetch entries 16
    // candidates ahead and Graphs 8 ahead.
    auto at = [&](int i) -> const mg_molset::entry * {
      return i < n && slots[i] >= 0 && size_t(slots[i]) < held ? &s->mols[slots[i]] : nullptr;
    };
    for (int i = 0; i < n; i++) {
      if (const auto *p = at(i + 16)) __builtin_prefetch(p);
      if (const auto *p = at(i + 8); p && byGraph && p->graph) {
        // its first 512 bytes, whatever its size (reading its header
        // for the size would wait for the miss; a prefetch never faults)
        const char *d = reinterpret_cast<const char *>(p->graph);
        for (size_t o = 0; o < 512; o += 64) __builtin_prefetch(d + o);
      }
      if (slots[i] < 0 || size_t(slots[i]) >= held) {
        out[i] = 2;
        continue;
      }
      const auto &e = s->mols[slots[i]];
      if (byGraph) {
        bool r = mt->fast->has(*e.mol, e.graph, s->classes);
        if (mt->fast->overflowed()) r = !SubstructMatch(*e.mol, *mt->q, mt->ps).empty();
        out[i] = r ? 1 : 0;
      } else {
        out[i] = hasMatch(*mt->q, *e.mol, mt->ps, mt->super, *mt->fast) ? 1 : 0;
      }
    }
    return 0;
  } catch (const std::exception &e) {
    *err = mg::cString(e.what());
  } catch (...) {
    *err = mg::cString("match: unknown error");
  }
  return -1;
}

void mg_molset_summary(mg_molset *s, int32_t slot, uint64_t *out) {
  mg::Summary sum;
  {
    std::shared_lock<std::shared_mutex> lock(s->mu);
    if (slot >= 0 && size_t(slot) < s->mols.size()) sum = s->mols[slot].sum;
  }
  out[0] = sum.counts;
  out[1] = sum.bonds;
  out[2] = sum.cycles;
}

int mg_molset_need(mg_molset *s, mg_matcher *m, uint64_t *out, int cap) {
  try {
    if (m->super || !m->fast->usable()) return 0;
    std::shared_lock<std::shared_mutex> lock(s->mu);
    return m->fast->need(s->classes, out, cap);
  } catch (...) {
    return 0;  // no screen
  }
}

}  // extern "C"
