"""Held-out SMARTS reference for package search (Debian python3-rdkit).

The queries of bench/search_queries.txt and reference_test.go were chosen
by us; these were not: every SMARTS RDKit ships as data, matched over
molecules we did not pick either, with RDKit's own HasSubstructMatch as
the reference (useChirality=False: molgraph's default).

  heldout.py smarts > heldout_smarts.txt
      the SMARTS of RDKit's filter catalogs (PAINS A/B/C, Brenk, NIH, ZINC
      and the ChEMBL sets, read from the string table of
      libRDKitFilterCatalog: the Python API does not expose a filter's
      SMARTS), of Data/Pains/wehi_pains.csv (the original PAINS, with
      explicit [#1]), Data/SmartsLib/RLewis_smarts.txt,
      Data/FunctionalGroups.txt, Data/Crippen.txt,
      Data/FragmentDescriptors.csv and Contrib/NIBRSubstructureFilters;
      one per line, deduplicated, in that order; then mutants of every
      7th (one character deleted or doubled, seeded); then WEHI's PAINS
      as RDKit's FilterCatalog matches them (explicit hydrogens merged into
      their neighbours, MergeQueryHs, written back by MolToSmarts). A
      line RDKit cannot parse is kept with the prefix "!" (molgraph must
      refuse it, 422).
  heldout.py molecules DRUGLIKE.smi > heldout.smi
      the molecules: NCI's first 5K as RDKit reads them, every 4th of
      the first 4,000 of Data/Pains/test_data/wehi_mols.csv (PAINS test
      molecules), every 500th of the first 1,000,000 of bench/druglike.py's
      set (DRUGLIKE.smi, its make bench-search cache) and search/testdata
      edge.smi; RDKit's canonical SMILES, deduplicated.
  heldout.py expect heldout.smi heldout_smarts.txt > heldout_hits.txt
      one line per parseable query, in order: the 0-based line numbers of
      the molecules of heldout.smi it matches, as gaps ("3 0 12" is lines
      3, 4 and 17); an empty line for no hit.
"""
import csv
import os
import random
import re
import subprocess
import sys

from rdkit import Chem, RDLogger

RDLogger.DisableLog("rdApp.*")

DATA = "/usr/share/RDKit/Data/"
LIB = "/usr/lib/libRDKitFilterCatalog.so.1"


def filtercatalog():
    """The SMARTS among the string table of RDKit's filter catalog library."""
    out = subprocess.run(["strings", "-n", "3", LIB], capture_output=True, text=True, check=True).stdout
    for s in out.split("\n"):
        s = s.strip()
        # a SMARTS has a bracket, bond or recursion character; filter
        # names and messages have spaces or underscores
        if not re.search(r"[\[\]=#~@$]", s) or re.search(r"[ _]", s):
            continue
        m = Chem.MolFromSmarts(s)
        if m is not None and m.GetNumAtoms() > 0:
            yield s


def fields(path, col, sep=None, skip="#"):
    for line in open(path):
        if not line.strip() or line.startswith(skip):
            continue
        f = line.rstrip("\n").split(sep)
        if len(f) > col:
            yield f[col].strip()


def smarts():
    seen = set()
    srcs = [filtercatalog()]
    srcs.append(row[0] for row in csv.reader(open(DATA + "Pains/wehi_pains.csv")))
    srcs.append(fields(DATA + "SmartsLib/RLewis_smarts.txt", 0))
    srcs.append(fields(DATA + "FunctionalGroups.txt", 1, "\t", "//"))
    srcs.append(fields(DATA + "Crippen.txt", 1, "\t"))
    srcs.append(fields(DATA + "FragmentDescriptors.csv", 2, "\t"))
    nibr = "/usr/share/RDKit/Contrib/NIBRSubstructureFilters/SubstructureFilter_HitTriaging_wPubChemExamples.csv"
    srcs.append(row["SMARTS"] for row in csv.DictReader(open(nibr)))
    real = []
    for src in srcs:
        for s in src:
            if not s or s in seen or "\t" in s:
                continue
            seen.add(s)
            real.append(s)
    # mutants: every 7th SMARTS with one character deleted or doubled
    # (seeded), half of which RDKit refuses
    rng = random.Random(17)
    mutants = []
    for s in real[::7]:
        i = rng.randrange(len(s))
        t = s[:i] + s[i + 1:] if rng.random() < 0.5 else s[:i] + s[i] + s[i:]
        if t and t not in seen:
            seen.add(t)
            mutants.append(t)
    # PAINS as RDKit's FilterCatalog matches them: with their explicit
    # hydrogens merged into their neighbours (MergeQueryHs)
    merged = []
    for row in csv.reader(open(DATA + "Pains/wehi_pains.csv")):
        t = Chem.MolToSmarts(Chem.MergeQueryHs(Chem.MolFromSmarts(row[0])))
        if t not in seen:
            seen.add(t)
            merged.append(t)
    for s in real + mutants + merged:
        m = Chem.MolFromSmarts(s)
        print(("" if m is not None else "!") + s)


def molecules(druglike):
    seen = set()

    def emit(smi):
        m = Chem.MolFromSmiles(smi)
        if m is None:
            return
        c = Chem.MolToSmiles(m)
        if c and c not in seen and Chem.MolFromSmiles(c) is not None:
            seen.add(c)
            print(c)

    for line in open(DATA + "NCI/first_5K.smi"):
        f = line.split()
        if f:
            emit(f[0])
    for i, row in enumerate(csv.reader(open(DATA + "Pains/test_data/wehi_mols.csv"))):
        if i >= 4000:
            break
        if i % 4 == 0:
            emit(row[0])
    for i, line in enumerate(open(druglike)):
        if i >= 1000000:
            break
        if i % 500 == 0:
            emit(line.split()[0])
    edge = os.path.join(os.path.dirname(os.path.abspath(__file__)), "edge.smi")
    for line in open(edge):
        f = line.split()
        if f and not f[0].startswith("#"):
            emit(f[0])


def expect(smipath, qpath):
    mols = [Chem.MolFromSmiles(line.strip()) for line in open(smipath)]
    for line in open(qpath):
        q = line.rstrip("\n")
        if q.startswith("!"):
            continue
        qm = Chem.MolFromSmarts(q)
        gaps, last = [], -1
        for k, m in enumerate(mols):
            if m.HasSubstructMatch(qm, useChirality=False):
                gaps.append(str(k - last - 1))
                last = k
        print(" ".join(gaps))


if __name__ == "__main__":
    {"smarts": lambda: smarts(), "molecules": lambda: molecules(sys.argv[2]),
     "expect": lambda: expect(sys.argv[2], sys.argv[3])}[sys.argv[1]]()
