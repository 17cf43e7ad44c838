#!/usr/bin/python3
"""The pipeline of package chem in Python RDKit, for a side-by-side speed
comparison with `go test -bench Pipeline ./chem/` (same molecules: the
rdkit-data rows of reference.csv.gz).

parse -> Cleanup -> largest organic fragment -> Uncharger -> canonical
SMILES -> formula, MW, exact mass, Crippen logP, TPSA, HBD, HBA, rotatable
bonds, heavy atoms, aromatic rings -> QED.qed. Debian's RDKit has no InChI
support, so the InChI step is absent here (package chem spends ~100-150 us
per molecule on it); the comparison is therefore generous to Python.

Run: /usr/bin/python3 chem/testdata/bench_python.py [repeat]
"""
import csv
import gzip
import os
import sys
import time

sys.path.insert(0, "/usr/lib/python3/dist-packages")
from rdkit import Chem, RDLogger  # noqa: E402
from rdkit.Chem import Crippen, Descriptors, QED  # noqa: E402
from rdkit.Chem import rdMolDescriptors as rdmd  # noqa: E402
from rdkit.Chem.MolStandardize import rdMolStandardize  # noqa: E402

RDLogger.DisableLog("rdApp.*")
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    with gzip.open(os.path.join(HERE, "reference.csv.gz"), "rt") as f:
        inputs = [r["input"] for r in csv.DictReader(f) if r["source"] == "rdkit-data"]
    chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
    uncharger = rdMolStandardize.Uncharger()
    n = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        for s in inputs:
            m = Chem.MolFromSmiles(s)
            if m is None:
                continue
            m = uncharger.uncharge(chooser.choose(rdMolStandardize.Cleanup(m)))
            m.UpdatePropertyCache(False)
            Chem.MolToSmiles(m)
            rdmd.CalcMolFormula(m)
            Descriptors.MolWt(m)
            rdmd.CalcExactMolWt(m)
            logp = Crippen.MolLogP(m)
            rdmd.CalcTPSA(m)
            rdmd.CalcNumHBD(m)
            rdmd.CalcNumHBA(m)
            rdmd.CalcNumRotatableBonds(m, rdmd.NumRotatableBondsOptions.Strict)
            m.GetNumHeavyAtoms()
            rdmd.CalcNumAromaticRings(m)
            QED.qed(m)
            n += 1
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    print("python rdkit: %d molecules, %.0f mol/s wall, %.0f us CPU per molecule (one process, no InChI)"
          % (n, n / wall, 1e6 * cpu / n))


if __name__ == "__main__":
    main()
