// mg_match.h: substructure matching with early exit for structure search
// (mg_match.cpp), used by mg_fp.cpp's matching loops.
#ifndef MOLGRAPH_CHEM_MG_MATCH_H
#define MOLGRAPH_CHEM_MG_MATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <GraphMol/ROMol.h>
#include <GraphMol/Substruct/SubstructMatch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace mg {

// Graph is a molecule as Matcher::has walks it: per atom its atom class,
// per neighbour the neighbour and its bond's class (Classes), in one
// buffer of 16-bit words:
//
//	n, 2*bonds, class[n], start[n+1], neighbour[2*bonds], bondClass[2*bonds]
//
// Empty: the molecule is too large to encode (the walk then uses RDKit's
// molecule).
using Graph = std::vector<std::uint16_t>;

// Classes numbers molecule atoms (and bonds) so that two atoms of one class
// answer every query Matcher::classable accepts alike: the class of an
// atom is the tuple of every property those queries read (element,
// aromaticity, degrees, H counts, valences, charge, isotope, radicals,
// hybridization, ring counts and sizes, heteroatom neighbours). A query
// atom is then evaluated once per class, by RDKit's own atomCompat on the
// class's first atom (its representative), instead of once per molecule
// atom. Not safe for concurrent use: callers lock. Representatives point
// into the molecules given to graph(), which must outlive the Classes.
class Classes {
 public:
  static constexpr std::uint16_t kNone = 0xffff;  // no class: ask RDKit
  Graph graph(const RDKit::ROMol &m);
  std::size_t atomClasses() const { return atoms_.size(); }
  std::size_t bondClasses() const { return bonds_.size(); }
  const RDKit::Atom *atom(std::uint16_t c) const { return atoms_[c]; }
  const RDKit::Bond *bond(std::uint16_t c) const { return bonds_[c]; }
  // cyclic: the bonds of class c lie on a cycle of their molecule's graph
  // (by our own walk, part of the class key), so a bond of a query cycle
  // can only map onto one of them.
  bool cyclic(std::uint16_t c) const { return bondCyclic_[c] != 0; }

 private:
  std::unordered_map<std::string, std::uint16_t> atomKeys_, bondKeys_;
  std::vector<const RDKit::Atom *> atoms_;
  std::vector<const RDKit::Bond *> bonds_;
  std::vector<char> bondCyclic_;
  std::uint16_t atomClass(const RDKit::Atom *a);
  std::uint16_t bondClass(const RDKit::Bond *b, bool cyclic);
};

// Summary is what the search index keeps of a held molecule beside its
// pattern fingerprint, for a screen that runs before any matching
// (Matcher::need): per atom kind (kindOf: element, aromatic, on a cycle)
// the count of the molecule's atoms of that kind, 4 bits each, saturated
// at 15; and one bit per kind of bond between atom kinds (bondBit), where
// at least one end is not a carbon; and bit L for each length L of a
// simple cycle of its graph (cycleLengths: 63 for 63 and longer). All
// ones: nothing known (every requirement holds).
struct Summary {
  std::uint64_t counts = ~std::uint64_t(0);
  std::uint64_t bonds = ~std::uint64_t(0);
  std::uint64_t cycles = ~std::uint64_t(0);
};
// summarize is m's Summary, or all ones if the Graph g (from cls) is empty
// or has an atom or bond without a class: Matcher::need learns which kinds
// a query atom can take from the classes, so it knows nothing of such an
// atom.
Summary summarize(const RDKit::ROMol &m, const Graph &g);

// Matcher answers "has molecule m a substructure match of the query" with
// RDKit's own atom and bond comparisons (atomCompat, bondCompat) and final
// check, so its answer is SubstructMatch's; see mg_match.cpp for why it is
// not SubstructMatch itself. A Matcher belongs to one thread.
class Matcher {
 public:
  Matcher(const RDKit::ROMol &query, const RDKit::SubstructMatchParameters &ps);
  // usable: the query holds nothing this matcher cannot evaluate (query
  // nodes other than RDKit's atom and bond primitives, AND, OR, XOR and
  // recursive SMARTS; generic matchers, an extra final check); otherwise
  // call SubstructMatch.
  bool usable() const { return usable_; }
  // has reports whether m contains the query (usable() must hold). When
  // overflowed() is true afterwards, the answer is not known: ask
  // SubstructMatch (see recursive SMARTS in mg_match.cpp).
  bool has(const RDKit::ROMol &m);
  // has with m's Graph g from cls (the caller holds cls still): atoms and
  // bonds of a class the query can be asked about by class are compared
  // once per class and query atom (a table lookup after that), the others
  // by RDKit on m. The same answer as has(m).
  // g points to a Graph's words, nullptr when m has none (has(m) then).
  bool has(const RDKit::ROMol &m, const std::uint16_t *g, const Classes &cls);
  // overflowed: the last has() met a recursive SMARTS with more than
  // RDKit's 1,000 embeddings in the molecule (RDKit then knows only the
  // roots of the first 1,000 it finds).
  bool overflowed() const { return overflow_; }
  // need writes the requirements every molecule with a match meets, as
  // its Summary tells them (usable() must hold; the classes must include
  // those of every molecule screened, so that a query atom's kinds are
  // known): out[0] = K, then K words "kind mask | count << 16" (at least
  // count atoms of the kinds in the mask), then B, then B masks of bond
  // bits (at least one of them set), then a mask of cycle lengths (all of
  // them in the Summary's). Requirements that do not fit in cap words are
  // left out (the screen is then weaker, never wrong). Returns the words
  // written.
  int need(const Classes &cls, std::uint64_t *out, int cap);

 private:
  struct Step {
    unsigned atom;    // query atom placed at this step
    int parent;       // step of an already placed neighbour, -1: a new component
    const RDKit::Bond *parentBond;
    // bonds to atoms placed earlier than this one (other than parent's)
    std::vector<std::pair<unsigned, const RDKit::Bond *>> back;
  };
  // Node is a node of a query atom's query tree that holds a recursive
  // SMARTS: evaluated here (RDKit's RecursiveStructureQuery::Match reads
  // a set SubstructMatch fills per molecule under a global lock).
  struct Node {
    enum Kind { kLeaf, kRec, kAnd, kOr, kXor } kind;
    bool neg = false;  // kRec, kAnd, kOr, kXor (a leaf's Match negates itself)
    const RDKit::Atom::QUERYATOM_QUERY *q = nullptr;  // kLeaf
    bool byClass = false;                             // kLeaf
    int rec = -1;                                     // kRec: index in recs_
    std::vector<int> kids;
    std::vector<int8_t> tab;  // kLeaf by class: answers per class, -1 unknown
  };
  // Rec is a recursive SMARTS: the molecule atoms its root takes in some
  // embedding, found per molecule (when first asked) by sub.
  struct Rec {
    std::unique_ptr<Matcher> sub;
    unsigned root = 0;
    bool known = false;
    std::vector<char> set;
  };
  const RDKit::ROMol &q_;
  const RDKit::SubstructMatchParameters &ps_;
  bool usable_ = true;
  std::vector<Node> nodes_;
  std::vector<int> atomRoot_;  // per query atom: its tree's root node, -1: no recursion
  std::vector<Rec> recs_;
  std::vector<char> chiral_;      // per query atom: tetrahedral tag checked (useChirality)
  std::vector<char> stereoBond_;  // per query bond: double bond stereo checked (useChirality)
  std::vector<char> qbCyclic_;    // per query bond: on a cycle of the query
  // the molecule of the running has(), for the recursive SMARTS
  const RDKit::ROMol *mol_ = nullptr;
  const std::uint16_t *graph_ = nullptr;
  const Classes *cls_ = nullptr;
  // enumeration (roots): every embedding, each root marked in *roots_
  bool enumerate_ = false;
  unsigned count_ = 0;
  std::vector<char> *roots_ = nullptr;
  bool overflow_ = false;
  unsigned recRoot_ = 0;  // the root atom when this Matcher is a Rec's sub
  int build(const RDKit::Atom::QUERYATOM_QUERY *q);
  bool eval(int node, unsigned idx, std::uint16_t c);
  int tri(int node, std::uint16_t c, const Classes &cls);
  int atomTri(unsigned qa, std::uint16_t c, const Classes &cls);
  std::vector<std::vector<int8_t>> triTab_;  // per query atom: atomTri per class, -1 unknown
  const std::vector<char> &recSet(int r);
  bool atomOK(unsigned qa, unsigned idx, std::uint16_t c);
  bool accept(const std::uint32_t *map);
  bool bondOK(const RDKit::Bond *qb, const RDKit::Bond *b) const;
  void start(const RDKit::ROMol &m, const std::uint16_t *g, const Classes *cls);
  bool roots(const RDKit::ROMol &m, const std::uint16_t *g, const Classes *cls, std::vector<char> &out);
  std::uint16_t kinds(unsigned qa, const Classes &cls, const std::vector<char> &cyc);
  std::uint16_t nodeKinds(int node, const Classes &cls);
  std::vector<Step> steps_;
  std::vector<const RDKit::Atom *> qatoms_;
  // per molecule scratch
  std::vector<int8_t> memo_;     // query atom x mol atom: -1 unknown, 0, 1
  std::vector<char> used_;       // mol atoms mapped
  std::vector<std::uint32_t> map_;   // query atom -> mol atom
  std::vector<unsigned> cursor_;  // per step: next candidate position
  std::vector<const RDKit::Atom *> matoms_;
  std::vector<std::uint32_t> qidx_;
  std::vector<int> cur_;  // molecule atom of each step, -1 none
  // per step: the neighbours of its parent's image (Exact)
  std::vector<std::vector<std::pair<unsigned, const RDKit::Bond *>>> nbrs_;
  // per query atom (bond): asked by class (classable), and its answers
  // per class (-1 not asked yet)
  std::vector<char> atomByClass_, bondByClass_;
  std::vector<std::vector<int8_t>> atomTab_, bondTab_;
  bool compat(unsigned qa, unsigned ma);
  std::vector<char> classOnly_;  // per query atom: answered by its class alone
  // the answers of query atom qa (bond qb) for class c, from the tables
  // (inline: the walk asks them for nearly every atom it visits)
  bool atomClass(unsigned qa, std::uint16_t c, const Classes &cls) {
    const auto &t = atomTab_[qa];
    if (__builtin_expect(c < t.size() && t[c] >= 0, 1)) return t[c] != 0;
    return atomClassSlow(qa, c, cls);
  }
  bool bondClass(const RDKit::Bond *qb, std::uint16_t c, const Classes &cls) {
    const auto &t = bondTab_[qb->getIdx()];
    if (__builtin_expect(c < t.size() && t[c] >= 0, 1)) return t[c] != 0;
    return bondClassSlow(qb, c, cls);
  }
  __attribute__((noinline)) bool atomClassSlow(unsigned qa, std::uint16_t c, const Classes &cls);
  __attribute__((noinline)) bool bondClassSlow(const RDKit::Bond *qb, std::uint16_t c, const Classes &cls);
  // the one backtracking search, over the molecule as has (Exact) or
  // has with a Graph (Classed) sees it
  struct Exact;
  struct Classed;
  template <class G>
  bool walk(G &g);
};

}  // namespace mg
#endif

#ifdef __cplusplus
extern "C" {
#endif

// mg_match_engines runs both matchers on n pickled molecules (one buffer,
// n+1 offsets) for the tests: fast[i] from mg::Matcher on the molecule's
// Graph as mg_molset holds it (2 when it cannot take the query, 3 when
// Matcher::has on the molecule itself answers otherwise), rdkit[i] from
// RDKit's SubstructMatch. Returns 0, or -1 with *err set.
int mg_match_engines(const char *text, size_t len, int kind, int flags,
                     const char *pickles, const size_t *offsets, int n,
                     unsigned char *fast, unsigned char *rdkit, char **err);

// The summary screen (mg::Summary, implemented with mg_molset in
// mg_fp.cpp). mg_molset_summary writes the Summary of the molecule in a
// slot (all ones if there is none); mg_molset_need writes the matcher's
// requirements (mg::Matcher::need) over the set's classes, and returns
// the words written, 0 when the matcher has none to give (a
// superstructure query, one mg::Matcher cannot take).
struct mg_molset;
struct mg_matcher;
void mg_molset_summary(struct mg_molset *s, int32_t slot, uint64_t *out);
int mg_molset_need(struct mg_molset *s, struct mg_matcher *m, uint64_t *out, int cap);

#ifdef __cplusplus
}
#endif

#endif
