#!/usr/bin/python3
"""The pipeline of package chem in one Python RDKit process, with no
storage: the yardstick of `go test -bench Pipeline ./chem/` and of
jobs/batch/bench.sh. For each molecule it computes the fields of a molecule
record: Cleanup -> largest organic fragment -> Uncharger -> canonical
SMILES, formula, MW, exact mass, Crippen logP, TPSA, HBD, HBA, strict
rotatable bonds, heavy atoms, aromatic rings, QED.qed, and InChI/InChIKey
when this RDKit has InChI support (Debian's 2022.09 has not: then the loop
is generous to Python, which skips it).

Run: /usr/bin/python3 chem/testdata/bench_python.py FILE.sdf[.gz]
     (the SD file a batch benchmark posts), or
     /usr/bin/python3 chem/testdata/bench_python.py --reference [repeat]
     (the rdkit-data SMILES of reference.csv.gz, as BenchmarkPipeline).
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


def molecules(args):
    """Yields each input molecule (None for one that does not parse)."""
    if args and args[0] != "--reference":
        opener = gzip.open if args[0].endswith(".gz") else open
        with opener(args[0], "rb") as f:
            yield from Chem.ForwardSDMolSupplier(f)
        return
    repeat = int(args[1]) if len(args) > 1 else 1
    with gzip.open(os.path.join(HERE, "reference.csv.gz"), "rt") as f:
        inputs = [r["input"] for r in csv.DictReader(f) if r["source"] == "rdkit-data"]
    for _ in range(repeat):
        for s in inputs:
            yield Chem.MolFromSmiles(s)


def main():
    chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
    uncharger = rdMolStandardize.Uncharger()
    inchi = Chem.inchi.INCHI_AVAILABLE if hasattr(Chem, "inchi") else False
    n = failed = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for m in molecules(sys.argv[1:]):
        if m is None or m.GetNumAtoms() == 0:
            failed += 1
            continue
        m = uncharger.uncharge(chooser.choose(rdMolStandardize.Cleanup(m)))
        m.UpdatePropertyCache(False)
        Chem.MolToSmiles(m)
        if inchi:
            Chem.MolToInchiKey(m)
        rdmd.CalcMolFormula(m)
        Descriptors.MolWt(m)
        rdmd.CalcExactMolWt(m)
        Crippen.MolLogP(m)
        rdmd.CalcTPSA(m)
        rdmd.CalcNumHBD(m)
        rdmd.CalcNumHBA(m)
        rdmd.CalcNumRotatableBonds(m, rdmd.NumRotatableBondsOptions.Strict)
        m.GetNumHeavyAtoms()
        rdmd.CalcNumAromaticRings(m)
        QED.qed(m)
        n += 1
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    print("python rdkit: %d molecules (%d unreadable) in %.1f s: %.0f mol/s wall, %.0f us CPU per molecule%s"
          % (n, failed, wall, (n + failed) / wall, 1e6 * cpu / max(n, 1), "" if inchi else " (no InChI)"))


if __name__ == "__main__":
    main()
