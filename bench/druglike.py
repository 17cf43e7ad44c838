#!/usr/bin/python3
"""Realistic drug-like molecules by reaction-based enumeration (molgraph benchmarks).

The reagents are real compounds: RDKit's NCI sample (Debian rdkit-data,
/usr/share/RDKit/Data/NCI/first_5K.smi). Each is reduced to its largest
fragment and kept when it is neutral (nitro groups aside), made of organic
elements, has 3-35 heavy atoms and carries exactly one reactive group of a
kind. Pairs of reagents are combined with the reactions medicinal chemists
use most (amide coupling first, as in real screening libraries), written as
RDKit reaction SMARTS:

    amide         carboxylic acid + primary/secondary amine
    urea          amine + amine (a carbonyl inserted)
    arylamine     aryl bromide/iodide + amine (Buchwald-Hartwig-like)
    redamination  aldehyde + amine (reductive amination)
    ester         carboxylic acid + phenol
    biaryl        aryl bromide/iodide + aryl bromide/iodide (Suzuki-like)
    sulfonamide   sulfonyl chloride + amine

Those give 496,715 unique products from the NCI sample. Beyond that a
second tier (SECOND_TIER) adds reductive amination of ketones, esters of
alcohols, aryl chloride amination, N- and O-alkylation with alkyl halides
and diaryl ethers.

A product is sanitized and kept when it has 20-45 heavy atoms and its
canonical SMILES (RDKit) has not been written yet. The output is
deterministic for a given seed, source and RDKit version: each reaction's
reagent pairs are shuffled with the seed, and the reactions take turns by
their weights, drawn from the same random stream.

Output: a SMILES file, "SMILES name" per line; the name says how the
molecule was made ("amide:1234+567": the reagents' NCI numbers).

Usage: bench/druglike.py [-n COUNT] [--seed S] [-o OUT.smi] [--source NCI.smi] [--stats]
"""

import argparse
import os
import random
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem import rdChemReactions

RDLogger.DisableLog("rdApp.*")

DEFAULT_SOURCE = "/usr/share/RDKit/Data/NCI/first_5K.smi"
MIN_HEAVY, MAX_HEAVY = 20, 45
VERSION = 1  # bump when the output for a given (count, seed) changes

# A primary or secondary amine nitrogen that is not part of an amide,
# sulfonamide, hydrazine, hydroxylamine or imine (aliphatic or anilinic:
# "N", never aromatic "n").
AMINE = "[NX3;H2,H1;!$(N[C,S,P]=[O,S,N]);!$(N-[N,O]);!$(N-[S,P]);!$(N=*)%s]"

# Reactive groups. A reagent must match its group exactly once, and the
# reactions below use the same SMARTS (with atom maps), so each pair reacts
# at exactly that group.
GROUPS = {
    "acid": "[CX3%s](=[O%s])[OX2H1]",
    "amine": AMINE,
    "arylhalide": "[c%s][Br,I]",
    "aldehyde": "[CX3H1%s](=O)[#6%s]",
    "phenol": "[OX2H1%s][c%s]",
    "sulfonylchloride": "[SX4%s](=[O%s])(=[O%s])Cl",
    # Second tier (SECOND_TIER below).
    "ketone": "[#6%s][CX3%s](=O)[#6%s]",
    "alcohol": "[OX2H1%s][CX4%s]",
    "arylchloride": "[c%s]Cl",
    "alkylhalide": "[CH2X4%s][Cl,Br,I]",
}


def group(name, *maps):
    """The group's SMARTS, with atom maps (":1") or without."""
    s = GROUPS[name]
    n = s.count("%s")
    return s % tuple((":%d" % m) if m else "" for m in (list(maps) + [0] * n)[:n])


# name: (reaction SMARTS, first group, second group, weight)
REACTIONS = [
    ("amide", group("acid", 1, 2) + "." + group("amine", 3) + ">>[C:1](=[O:2])[N:3]", "acid", "amine", 45),
    ("urea", group("amine", 1) + "." + group("amine", 2) + ">>[N:1]C(=O)[N:2]", "amine", "amine", 12),
    ("arylamine", group("arylhalide", 1) + "." + group("amine", 2) + ">>[c:1][N:2]", "arylhalide", "amine", 12),
    ("redamination", group("aldehyde", 1, 2) + "." + group("amine", 3) + ">>[C:1]([#6:2])[N:3]", "aldehyde", "amine", 10),
    ("ester", group("acid", 1, 2) + "." + group("phenol", 3, 4) + ">>[C:1](=[O:2])[O:3][c:4]", "acid", "phenol", 10),
    ("biaryl", group("arylhalide", 1) + "." + group("arylhalide", 2) + ">>[c:1][c:2]", "arylhalide", "arylhalide", 8),
    ("sulfonamide", group("sulfonylchloride", 1, 2, 3) + "." + group("amine", 4) + ">>[S:1](=[O:2])(=[O:3])[N:4]",
     "sulfonylchloride", "amine", 3),
]

# The second tier: more reactions of the same reagents, used only once every
# reaction above is exhausted (the NCI sample gives 496,715 unique products
# with those; 1,000,000 needs these too). It draws from its own random
# stream, so the output for any count the first tier can give is the same
# as before the tier existed (VERSION unchanged).
SECOND_TIER = [
    ("ketoneamination", group("ketone", 1, 2, 3) + "." + group("amine", 4) + ">>[#6:1][C:2]([#6:3])[N:4]",
     "ketone", "amine", 30),
    ("alcoholester", group("acid", 1, 2) + "." + group("alcohol", 3, 4) + ">>[C:1](=[O:2])[O:3][C:4]",
     "acid", "alcohol", 25),
    ("arylchlorideamine", group("arylchloride", 1) + "." + group("amine", 2) + ">>[c:1][N:2]",
     "arylchloride", "amine", 20),
    ("nalkylation", group("alkylhalide", 1) + "." + group("amine", 2) + ">>[C:1][N:2]", "alkylhalide", "amine", 10),
    ("oalkylation", group("alkylhalide", 1) + "." + group("phenol", 2, 3) + ">>[C:1][O:2][c:3]",
     "alkylhalide", "phenol", 8),
    ("diarylether", group("arylhalide", 1) + "." + group("phenol", 2, 3) + ">>[c:1][O:2][c:3]",
     "arylhalide", "phenol", 8),
    ("diaryletherCl", group("arylchloride", 1) + "." + group("phenol", 2, 3) + ">>[c:1][O:2][c:3]",
     "arylchloride", "phenol", 8),
]

ORGANIC = {"C", "N", "O", "S", "F", "Cl", "Br", "I", "P"}
NITRO = Chem.MolFromSmarts("[N+](=O)[O-]")


def read_reagents(path):
    """The reagents of each group: lists of (name, mol), in file order."""
    pats = {g: Chem.MolFromSmarts(group(g)) for g in GROUPS}
    pools = {g: [] for g in GROUPS}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            mol = Chem.MolFromSmiles(fields[0])
            if mol is None:
                continue
            name = fields[1] if len(fields) > 1 else str(lineno)
            frags = Chem.GetMolFrags(mol, asMols=True)
            mol = max(frags, key=lambda m: (m.GetNumHeavyAtoms(), Chem.MolToSmiles(m)))
            if any(a.GetSymbol() not in ORGANIC for a in mol.GetAtoms()):
                continue
            charged = sum(1 for a in mol.GetAtoms() if a.GetFormalCharge() != 0)
            if charged != 2 * len(mol.GetSubstructMatches(NITRO)):
                continue
            if not 3 <= mol.GetNumHeavyAtoms() <= 35:
                continue
            for g, p in pats.items():
                if len(mol.GetSubstructMatches(p)) == 1:
                    pools[g].append((name, mol))
    return pools


class Reaction:
    """One reaction's seeded stream of reagent pairs."""

    def __init__(self, name, smarts, g1, g2, weight, pools, rng):
        self.name, self.weight = name, weight
        self.rxn = rdChemReactions.ReactionFromSmarts(smarts)
        self.rxn.Initialize()
        self.a, self.b = pools[g1], pools[g2]
        if g1 == g2:  # unordered pairs of two different reagents
            self.pairs = [(i, j) for i in range(len(self.a)) for j in range(i + 1, len(self.b))]
        else:
            self.pairs = [(i, j) for i in range(len(self.a)) for j in range(len(self.b))]
        rng.shuffle(self.pairs)
        self.next = self.kept = 0

    def exhausted(self):
        return self.next >= len(self.pairs)

    def step(self):
        """The next pair's product as (canonical SMILES, name), or None."""
        i, j = self.pairs[self.next]
        self.next += 1
        (na, ma), (nb, mb) = self.a[i], self.b[j]
        for prods in self.rxn.RunReactants((ma, mb)):
            p = prods[0]
            try:
                Chem.SanitizeMol(p)
            except Exception:  # a product RDKit cannot sanitize: not a molecule
                continue
            if not MIN_HEAVY <= p.GetNumHeavyAtoms() <= MAX_HEAVY:
                return None
            smi = Chem.MolToSmiles(p)
            # Round trip: the SMILES must parse back to the same molecule.
            back = Chem.MolFromSmiles(smi)
            if back is None or Chem.MolToSmiles(back) != smi:
                return None
            return smi, "%s:%s+%s" % (self.name, na, nb)
        return None


def generate(count, seed, source, stats=None):
    """Yields (SMILES, name) until count molecules or the space is exhausted.

    stats, a dict if given, receives the reagent pools and the reactions
    (with their counts) when the generator ends."""
    pools = read_reagents(source)
    seen, done = set(), []
    for tier, rng in ((REACTIONS, random.Random(seed)), (SECOND_TIER, random.Random("%d/second-tier" % seed))):
        if len(seen) >= count:
            break
        reactions = [Reaction(n, s, g1, g2, w, pools, rng) for n, s, g1, g2, w in tier]
        done += reactions
        while len(seen) < count:
            live = [r for r in reactions if not r.exhausted()]
            if not live:
                break
            r = rng.choices(live, weights=[x.weight for x in live])[0]
            got = r.step()
            if got is None or got[0] in seen:
                continue
            seen.add(got[0])
            r.kept += 1
            yield got
    if stats is not None:
        stats.update(pools=pools, reactions=done)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--count", type=int, default=100_000, help="molecules to write (default 100000)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("-o", "--output", default="-", help="output .smi file (default stdout)")
    ap.add_argument("--source", default=DEFAULT_SOURCE, help="reagent SMILES file (default RDKit's NCI sample)")
    ap.add_argument("--stats", action="store_true", help="print reagent and reaction counts to stderr")
    ap.add_argument("--version", action="store_true", help="print the generator's output version and exit")
    args = ap.parse_args(argv)
    if args.version:
        print(VERSION)
        return 0
    if args.count < 1:
        ap.error("--count must be positive")
    out = sys.stdout if args.output == "-" else open(args.output + ".tmp", "w")
    n, stats = 0, {}
    for smi, name in generate(args.count, args.seed, args.source, stats):
        out.write("%s %s\n" % (smi, name))
        n += 1
    if out is not sys.stdout:
        out.close()
    if args.stats:
        print("reagents: " + ", ".join("%s %d" % (g, len(p)) for g, p in stats["pools"].items()), file=sys.stderr)
        for r in stats["reactions"]:
            print("  %-12s %7d pairs tried of %7d, %6d kept" % (r.name, r.next, len(r.pairs), r.kept), file=sys.stderr)
    if n < args.count:
        print("druglike: only %d unique molecules in this reagent space (asked for %d)" % (n, args.count), file=sys.stderr)
        return 1
    if out is not sys.stdout:
        os.replace(args.output + ".tmp", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
