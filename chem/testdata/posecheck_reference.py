#!/usr/bin/python3
# Reference values of chem/posecheck_test.go from RDKit Python (python3-rdkit
# 2022.09.3), PoseBusters definitions: DG bounds of GetMoleculeBoundsMatrix
# (set15bounds, scaleVDW, smoothing, no macrocycle 1-4) over heavy-atom pairs;
# UFF energy with H minimised (heavy atoms fixed) over the mean of 10 ETKDGv3
# conformers (seeds 42.., random coords, 20 attempts) after 200 UFF iterations.
# Usage: /usr/bin/python3 posecheck_reference.py FILE.sdf...
import sys, numpy as np
from rdkit import Chem
from rdkit.Chem import AllChem, rdDistGeom
from rdkit.Chem.rdForceFieldHelpers import UFFGetMoleculeForceField, UFFOptimizeMoleculeConfs

def dg(mol, tol_b=0.25, tol_a=0.25):
    bm = rdDistGeom.GetMoleculeBoundsMatrix(mol, set15bounds=True, scaleVDW=True, doTriangleSmoothing=True, useMacrocycle14config=False)
    n = mol.GetNumAtoms()
    pos = mol.GetConformer().GetPositions()
    bonds = {tuple(sorted((b.GetBeginAtomIdx(), b.GetEndAtomIdx()))) for b in mol.GetBonds()}
    angles = set()
    for a in mol.GetAtoms():
        nb = [x.GetIdx() for x in a.GetNeighbors()]
        for i in range(len(nb)):
            for j in range(i+1, len(nb)):
                p = tuple(sorted((nb[i], nb[j])))
                if p not in bonds: angles.add(p)
    wb = wa = 0.0; cl = 1e9
    for i in range(n):
        for j in range(i+1, n):
            if mol.GetAtomWithIdx(i).GetAtomicNum()==1 or mol.GetAtomWithIdx(j).GetAtomicNum()==1: continue
            d = np.linalg.norm(pos[i]-pos[j]); lb = bm[j][i]; ub = bm[i][j]
            dev = (lb-d)/lb if d < lb else ((d-ub)/ub if d > ub else 0.0)
            if (i,j) in bonds: wb = max(wb, dev)
            elif (i,j) in angles: wa = max(wa, dev)
            else: cl = min(cl, d/lb)
    return wb, wa, cl

def energy_ratio(mol, n=10, seed=42, iters=200):
    m = Chem.Mol(mol)
    ff = UFFGetMoleculeForceField(m, vdwThresh=10.0)
    for a in m.GetAtoms():
        if a.GetAtomicNum() != 1: ff.AddFixedPoint(a.GetIdx())
    ff.Initialize(); ff.Minimize(maxIts=iters); e = ff.CalcEnergy()
    ens = Chem.Mol(mol); ens.RemoveAllConformers()
    for c in range(n):
        p = rdDistGeom.ETKDGv3(); p.randomSeed = seed + c; p.useRandomCoords = True; p.maxIterations = 20; p.clearConfs = False
        rdDistGeom.EmbedMolecule(ens, p)
    res = UFFOptimizeMoleculeConfs(ens, numThreads=1, maxIters=iters, vdwThresh=10.0)
    mean = sum(r[1] for r in res)/len(res)
    return e, mean, e/mean, ens.GetNumConformers()

for path in sys.argv[1:]:
    for mol in Chem.SDMolSupplier(path, removeHs=False):
        Chem.AssignStereochemistryFrom3D(mol)
        print(path, mol.GetNumAtoms(), Chem.MolToSmiles(Chem.RemoveHs(mol)))
        print("  dg", dg(mol))
        print("  energy", energy_ratio(mol))
