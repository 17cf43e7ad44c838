"""RDKit reference for package search's tests (Debian python3-rdkit).

  reference.py inputs                   prints "SMILES<TAB>name" for the test library
                                        (RDKit's data sets, the docking corpus's
                                        ligands and edge.smi)
  reference.py search LIBRARY QUERIES   prints the hits of every query as JSON

LIBRARY has one "id<TAB>canonical SMILES" per line (the molecules as
registered). QUERIES is a JSON list of {"type": "substructure" |
"superstructure" | "similarity", "query", "format": "smiles"|"smarts",
"chirality", "threshold"}. For each query the output holds the sorted ids of
the hits, and for similarity the RDKit BulkTanimotoSimilarity scores.
"""
import glob
import json
import os
import sys

from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import AllChem

RDLogger.DisableLog("rdApp.*")

SOURCES_SMI = [
    "/usr/share/RDKit/Data/NCI/first_5K.smi",
    "/usr/share/RDKit/Contrib/FreeWilson/data/CHEMBL2321810.smi",
    "/usr/share/RDKit/Contrib/fraggle/data/ChEMBL_11265_actives.smi",
    "/usr/share/RDKit/Projects/DbCLI/testData/bzr.smi",
    "/usr/share/RDKit/Contrib/Fastcluster/cdk2.smi",
]
SOURCES_SDF = [
    "/usr/share/RDKit/Contrib/PBF/testData/egfr.sdf",
    "/usr/share/RDKit/Contrib/Fastcluster/testdata/cdk2.sdf",
    "/usr/share/RDKit/Projects/DbCLI/testData/bzr.sdf",
    "/usr/share/RDKit/Projects/DbCLI/testData/pubchem.200.sdf",
]


def inputs(corpus):
    out = []
    # edge.smi: isotopes, charges, stereo, unusual elements (see the file)
    edge = os.path.join(os.path.dirname(os.path.abspath(__file__)), "edge.smi")
    for path in SOURCES_SMI + sorted(glob.glob(corpus + "/ligands/*.smi")) + [edge]:
        for line in open(path):
            f = line.split()
            if f and not f[0].startswith("#"):
                out.append((f[0], path))
    for path in SOURCES_SDF:
        for m in Chem.SDMolSupplier(path):
            if m is not None:
                out.append((Chem.MolToSmiles(m), path))
    # WEHI's first 1,500 (a CSV of "SMILES","name")
    for i, line in enumerate(open("/usr/share/RDKit/Data/Pains/test_data/wehi_mols.csv")):
        if i >= 1500:
            break
        out.append((line.split(",")[0].strip('"'), "wehi"))
    for smi, name in out:
        print(smi + "\t" + name)


def search(libpath, qpath):
    ids, mols, morgan, pattern = [], [], [], []
    for line in open(libpath):
        i, smi = line.rstrip("\n").split("\t")
        m = Chem.MolFromSmiles(smi)
        if m is None:
            raise SystemExit("RDKit cannot read " + smi)
        ids.append(i)
        mols.append(m)
        morgan.append(AllChem.GetMorganFingerprintAsBitVect(m, 2, 2048))
    out = []
    for q in json.load(open(qpath)):
        t = q["type"]
        if q.get("format") == "smarts":
            qm = Chem.MolFromSmarts(q["query"])
        else:
            qm = Chem.MolFromSmiles(q["query"])
        if qm is None:
            raise SystemExit("RDKit cannot read query " + q["query"])
        chir = bool(q.get("chirality"))
        if t == "substructure":
            hits = [ids[k] for k, m in enumerate(mols) if m.HasSubstructMatch(qm, useChirality=chir)]
            out.append({"hits": sorted(hits)})
        elif t == "superstructure":
            hits = [ids[k] for k, m in enumerate(mols) if qm.HasSubstructMatch(m, useChirality=chir)]
            out.append({"hits": sorted(hits)})
        else:
            fp = AllChem.GetMorganFingerprintAsBitVect(qm, 2, 2048)
            sims = DataStructs.BulkTanimotoSimilarity(fp, morgan)
            th = q.get("threshold", 0)
            hits = [(s, ids[k]) for k, s in enumerate(sims) if s >= th]
            hits.sort(key=lambda h: (-h[0], h[1]))
            out.append({"hits": [h[1] for h in hits], "scores": [h[0] for h in hits]})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        inputs(sys.argv[2])
    else:
        search(sys.argv[2], sys.argv[3])
