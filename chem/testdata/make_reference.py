#!/usr/bin/python3
"""Regenerate the yardstick of package chem's tests from RDKit itself.

Needs Debian's python3-rdkit (RDKit 2022.09, the same C++ library package
chem links), rdkit-data (the ChEMBL/EGFR/CDK2/BZR/WEHI files) and openbabel
(for InChI/InChIKey: Debian's RDKit is built without InChI support).

Writes, next to this script:
  reference.csv.gz   one row per molecule: input SMILES and, for the
                     normalized molecule (Cleanup -> largest organic fragment
                     -> Uncharger, as package chem does), canonical SMILES,
                     formula, MW, exact mass, logP, TPSA, HBD, HBA, strict
                     rotatable bonds, heavy atoms, aromatic rings, QED, and
                     Open Babel's standard InChI and InChIKey.
  molblocks_v2000.sdf, molblocks_v3000.sdf
                     the curated molecules as molfiles (title = id), to test
                     the molfile reader against the same rows.

Run: /usr/bin/python3 chem/testdata/make_reference.py
"""
import csv
import gzip
import io
import os
import subprocess
import sys

sys.path.insert(0, "/usr/lib/python3/dist-packages")
from rdkit import Chem, RDLogger  # noqa: E402
from rdkit.Chem import Crippen, Descriptors, QED, rdDepictor  # noqa: E402
from rdkit.Chem import rdMolDescriptors as rdmd  # noqa: E402
from rdkit.Chem.MolStandardize import rdMolStandardize  # noqa: E402

RDLogger.DisableLog("rdApp.*")
HERE = os.path.dirname(os.path.abspath(__file__))
RDDATA = "/usr/share/RDKit"
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared"))

# Hand-picked molecules: drugs, salts, charged species, stereo, isotopes,
# heterocycles, macrocycles. SMILES from the structures' usual depictions.
CURATED = [
    ("aspirin", "CC(=O)Oc1ccccc1C(=O)O"),
    ("paracetamol", "CC(=O)Nc1ccc(O)cc1"),
    ("caffeine", "Cn1cnc2c1c(=O)n(C)c(=O)n2C"),
    ("ibuprofen", "CC(C)Cc1ccc(C(C)C(=O)O)cc1"),
    ("s_ibuprofen", "CC(C)Cc1ccc([C@H](C)C(=O)O)cc1"),
    ("naproxen", "COc1ccc2cc([C@H](C)C(=O)O)ccc2c1"),
    ("diclofenac_sodium", "[Na+].[O-]C(=O)Cc1ccccc1Nc1c(Cl)cccc1Cl"),
    ("metformin_hcl", "Cl.CN(C)C(=N)NC(=N)N"),
    ("sertraline_hcl", "Cl.CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc12"),
    ("imatinib", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"),
    ("imatinib_mesylate", "CS(=O)(=O)O.Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"),
    ("imatinib_meeko", "Cc1ccc(NC(=O)c2ccc(CN3CC[NH+](C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"),
    ("nilotinib", "Cc1cn(-c2cc(NC(=O)c3ccc(C)c(Nc4nccc(-c5cccnc5)n4)c3)cc(C(F)(F)F)c2)cn1"),
    ("dasatinib", "Cc1nc(Nc2ncc(C(=O)Nc3c(C)cccc3Cl)s2)cc(N2CCN(CCO)CC2)n1"),
    ("gefitinib", "COc1cc2ncnc(Nc3ccc(F)c(Cl)c3)c2cc1OCCCN1CCOCC1"),
    ("erlotinib", "COCCOc1cc2ncnc(Nc3cccc(C#C)c3)c2cc1OCCOC"),
    ("testosterone", "C[C@]12CC[C@H]3[C@@H](CCC4=CC(=O)CC[C@@]43C)[C@@H]1CC[C@@H]2O"),
    ("epitestosterone", "C[C@]12CC[C@H]3[C@@H](CCC4=CC(=O)CC[C@@]43C)[C@@H]1CC[C@H]2O"),
    ("cholesterol", "CC(C)CCC[C@@H](C)[C@H]1CC[C@H]2[C@@H]3CC=C4C[C@@H](O)CC[C@]4(C)[C@H]3CC[C@]12C"),
    ("l_alanine", "C[C@H](N)C(=O)O"),
    ("d_alanine", "C[C@@H](N)C(=O)O"),
    ("alanine", "CC(N)C(=O)O"),
    ("l_alanine_zwitterion", "C[C@H]([NH3+])C(=O)[O-]"),
    ("e_2_butene", "C/C=C/C"),
    ("z_2_butene", "C/C=C\\C"),
    ("e_stilbene", "c1ccccc1/C=C/c1ccccc1"),
    ("z_3_methyl_2_pentene", "C/C=C(/C)CC"),
    ("fumaric_acid", "OC(=O)/C=C/C(=O)O"),
    ("maleic_acid", "OC(=O)/C=C\\C(=O)O"),
    ("alpha_d_glucopyranose", "OC[C@H]1O[C@H](O)[C@H](O)[C@@H](O)[C@@H]1O"),
    ("beta_d_glucopyranose", "OC[C@H]1O[C@@H](O)[C@H](O)[C@@H](O)[C@@H]1O"),
    ("d_glucose_open", "OC[C@@H](O)[C@@H](O)[C@H](O)[C@@H](O)C=O"),
    ("sucrose", "OC[C@H]1O[C@@](CO)(O[C@H]2O[C@H](CO)[C@@H](O)[C@H](O)[C@H]2O)[C@@H](O)[C@@H]1O"),
    ("r_thalidomide", "O=C1CC[C@@H](N2C(=O)c3ccccc3C2=O)C(=O)N1"),
    ("l_dopa", "N[C@@H](Cc1ccc(O)c(O)c1)C(=O)O"),
    ("penicillin_g", "CC1(C)S[C@@H]2[C@H](NC(=O)Cc3ccccc3)C(=O)N2[C@H]1C(=O)O"),
    ("amoxicillin", "CC1(C)S[C@@H]2[C@H](NC(=O)[C@H](N)c3ccc(O)cc3)C(=O)N2[C@H]1C(=O)O"),
    ("morphine", "CN1CC[C@]23c4c5ccc(O)c4O[C@H]2[C@@H](O)C=C[C@H]3[C@H]1C5"),
    ("quinine", "COc1ccc2nccc([C@@H](O)[C@@H]3C[C@@H]4CCN3C[C@@H]4C=C)c2c1"),
    ("atorvastatin", "CC(C)c1c(C(=O)Nc2ccccc2)c(-c2ccccc2)c(-c2ccc(F)cc2)n1CC[C@@H](O)C[C@@H](O)CC(=O)O"),
    ("atorvastatin_calcium", "[Ca+2].CC(C)c1c(C(=O)Nc2ccccc2)c(-c2ccccc2)c(-c2ccc(F)cc2)n1CC[C@@H](O)C[C@@H](O)CC(=O)[O-].CC(C)c1c(C(=O)Nc2ccccc2)c(-c2ccccc2)c(-c2ccc(F)cc2)n1CC[C@@H](O)C[C@@H](O)CC(=O)[O-]"),
    ("sildenafil", "CCCc1nn(C)c2c(=O)[nH]c(-c3cc(S(=O)(=O)N4CCN(C)CC4)ccc3OCC)nc12"),
    ("omeprazole", "COc1ccc2[nH]c(S(=O)Cc3ncc(C)c(OC)c3C)nc2c1"),
    ("esomeprazole", "COc1ccc2[nH]c([S@@](=O)Cc3ncc(C)c(OC)c3C)nc2c1"),
    ("warfarin", "CC(=O)CC(c1ccccc1)c1c(O)c2ccccc2oc1=O"),
    ("tamoxifen", "CC/C(=C(\\c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1"),
    ("celecoxib", "Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1"),
    ("ciprofloxacin", "O=C(O)c1cn(C2CC2)c2cc(N3CCNCC3)c(F)cc2c1=O"),
    ("nicotine", "CN1CCC[C@H]1c1cccnc1"),
    ("histamine", "NCCc1c[nH]cn1"),
    ("adenine", "Nc1ncnc2[nH]cnc12"),
    ("guanine", "Nc1nc2[nH]cnc2c(=O)[nH]1"),
    ("uracil", "O=c1cc[nH]c(=O)[nH]1"),
    ("indole", "c1ccc2[nH]ccc2c1"),
    ("thiophene", "c1ccsc1"),
    ("furan", "c1ccoc1"),
    ("pyrrole", "c1cc[nH]c1"),
    ("imidazole", "c1c[nH]cn1"),
    ("tetrazole", "c1nn[nH]n1"),
    ("pyridine_n_oxide", "[O-][n+]1ccccc1"),
    ("nitrobenzene", "O=[N+]([O-])c1ccccc1"),
    ("nitrobenzene_pentavalent", "O=N(=O)c1ccccc1"),
    ("dmso", "CS(C)=O"),
    ("tetramethylammonium_chloride", "C[N+](C)(C)C.[Cl-]"),
    ("choline", "C[N+](C)(C)CCO"),
    ("sodium_acetate", "CC(=O)[O-].[Na+]"),
    ("ammonium_benzoate", "[NH4+].[O-]C(=O)c1ccccc1"),
    ("sodium_perchlorate", "[Na+].[O-]Cl(=O)(=O)=O"),
    ("perchloric_acid", "OCl(=O)(=O)=O"),
    ("hydroxide_salt_ethanolamine", "NCCO.O"),
    ("phenolate", "[O-]c1ccccc1"),
    ("guanidinium", "NC(N)=[NH2+]"),
    ("betaine", "C[N+](C)(C)CC(=O)[O-]"),
    ("deuterochloroform", "[2H]C(Cl)(Cl)Cl"),
    ("c13_methanol", "[13CH3]O"),
    ("heavy_water", "[2H]O[2H]"),
    ("n15_aniline", "[15NH2]c1ccccc1"),
    ("tritiated_thymidine", "[3H]c1cn([C@H]2C[C@H](O)[C@@H](CO)O2)c(=O)[nH]c1=O"),
    ("f18_fdg", "OC[C@H]1OC(O)[C@H]([18F])[C@@H](O)[C@@H]1O"),
    ("benzene", "c1ccccc1"),
    ("naphthalene", "c1ccc2ccccc2c1"),
    ("azulene", "c1ccc2cccc2cc1"),
    ("pyrene", "c1cc2ccc3cccc4ccc(c1)c2c34"),
    ("cyclododecane", "C1CCCCCCCCCCC1"),
    ("18_crown_6", "C1COCCOCCOCCOCCOCCO1"),
    ("erythromycin", "CC[C@H]1OC(=O)[C@H](C)[C@@H](O[C@H]2C[C@@](C)(OC)[C@@H](O)[C@H](C)O2)[C@H](C)[C@@H](O[C@@H]2O[C@H](C)C[C@H](N(C)C)[C@H]2O)[C@](C)(O)C[C@@H](C)C(=O)[C@H](C)[C@@H](O)[C@]1(C)O"),
    ("cyclosporin_a", "CC[C@H]1C(=O)N(CC(=O)N([C@H](C(=O)N[C@H](C(=O)N([C@H](C(=O)N[C@H](C(=O)N[C@@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N([C@H](C(=O)N1)[C@@H]([C@H](C)C/C=C/C)O)C)C(C)C)C)CC(C)C)C)CC(C)C)C)C)C)CC(C)C)C)C(C)C)CC(C)C)C)C"),
    ("vancomycin_aglycone_fragment", "O=C(O)[C@@H]1NC(=O)[C@H]2NC(=O)[C@@H](N)c3ccc(O)c(c3)Oc3cc2cc(c3O)Oc2ccc1cc2"),
    ("rifampicin_core", "COC1C=COC2(C)Oc3c(C)c(O)c4c(O)c(c(C=NN5CCN(C)CC5)c(O)c4c3C2=O)NC(=O)C(C)=CC=CC(C)C(O)C(C)C(O)C(C)C(OC(C)=O)C1C"),
    ("porphine", "c1cc2cc3ccc(cc4ccc(cc5ccc(cc1n2)[nH]5)n4)[nH]3"),
    ("acetylene", "C#C"),
    ("hcn", "C#N"),
    ("carbon_dioxide", "O=C=O"),
    ("methane", "C"),
    ("water", "O"),
    ("ammonia", "N"),
    ("allene_dimethyl", "CC=C=CC"),
    ("triphenylphosphine", "c1ccc(P(c2ccccc2)c2ccccc2)cc1"),
    ("boronic_acid", "OB(O)c1ccccc1"),
    ("trimethylsilyl_ether", "C[Si](C)(C)OC"),
    ("selenophene", "c1cc[se]c1"),
    ("iodobenzene", "Ic1ccccc1"),
    ("trifluoroacetic_acid", "OC(=O)C(F)(F)F"),
    ("azide", "CN=[N+]=[N-]"),
    ("diazomethane", "C=[N+]=[N-]"),
    ("isocyanate", "CN=C=O"),
    ("hydroxamic_acid", "CC(=O)NO"),
    ("sulfonamide", "NS(=O)(=O)c1ccccc1"),
    ("phosphate_ester", "COP(=O)(OC)OC"),
    ("atp", "Nc1ncnc2c1ncn2[C@@H]1O[C@H](COP(=O)(O)OP(=O)(O)OP(=O)(O)O)[C@@H](O)[C@H]1O"),
    ("glutathione", "N[C@@H](CCC(=O)N[C@@H](CS)C(=O)NCC(=O)O)C(=O)O"),
    ("cisplatin", "N.N.Cl[Pt]Cl"),
    ("lithium_carbonate", "[Li+].[Li+].[O-]C([O-])=O"),
    ("zinc_pyrithione_like", "[O-][n+]1ccccc1[S-].[Zn+2]"),
    ("radical_methyl", "[CH3]"),
    ("dummy_atom", "*c1ccccc1"),
    ("iron_complex", "[Fe+2].[Cl-].[Cl-]"),
    ("tautomer_2_pyridone", "O=c1cccc[nH]1"),
    ("tautomer_2_hydroxypyridine", "Oc1ccccn1"),
    ("thalidomide_racemic", "O=C1CCC(N2C(=O)c3ccccc3C2=O)C(=O)N1"),
    ("spiro_compound", "C1CCC2(CC1)CCCC2"),
    ("cubane", "C12C3C4C1C5C2C3C45"),
    ("adamantane", "C1C2CC3CC1CC(C2)C3"),
    ("chiral_sulfoxide", "C[S@](=O)c1ccccc1"),
    ("atropisomer_biaryl", "Cc1cccc(O)c1-c1c(C)cccc1O"),
    ("peptide_4mer", "CC[C@H](C)[C@H](NC(=O)[C@H](Cc1ccccc1)NC(=O)CN)C(=O)N[C@@H](CCCCN)C(=O)O"),
]

# Molecules written as molfiles for the V2000/V3000 reader tests.
MOLFILE_IDS = [
    "aspirin", "s_ibuprofen", "sertraline_hcl", "imatinib_meeko", "testosterone",
    "l_alanine", "d_alanine", "e_2_butene", "z_2_butene", "tamoxifen",
    "alpha_d_glucopyranose", "beta_d_glucopyranose", "sodium_perchlorate",
    "deuterochloroform", "c13_methanol", "erythromycin", "cyclosporin_a",
    "pyridine_n_oxide", "nitrobenzene", "betaine", "esomeprazole", "atp",
]


def rdkit_data():
    """The rdkit-data molecules, in a fixed order, up to 2000."""
    out = []

    def sdf(path, tag):
        sup = Chem.SDMolSupplier(os.path.join(RDDATA, path))
        for i, m in enumerate(sup):
            if m is None:
                continue
            name = m.GetProp("_Name") if m.HasProp("_Name") else ""
            out.append(("%s_%d" % (tag, i + 1), Chem.MolToSmiles(m), name))

    def smi(path, tag, sep=None, quoted=False):
        with open(os.path.join(RDDATA, path)) as f:
            for i, line in enumerate(f):
                line = line.strip()
                if not line:
                    continue
                if quoted:
                    row = next(csv.reader([line]))
                    s = row[0]
                else:
                    s = line.split(sep)[0]
                out.append(("%s_%d" % (tag, i + 1), s, ""))

    sdf("Contrib/Fastcluster/testdata/cdk2.sdf", "cdk2")
    sdf("Contrib/PBF/testData/egfr.sdf", "egfr")
    sdf("Projects/DbCLI/testData/bzr.sdf", "bzr")
    smi("Contrib/fraggle/data/ChEMBL_11265_actives.smi", "chembl")
    smi("Data/Pains/test_data/wehi_mols.csv", "wehi", quoted=True)
    return out[:2000]


def normalize(mol):
    m = rdMolStandardize.Cleanup(mol)
    m = rdMolStandardize.LargestFragmentChooser(preferOrganic=True).choose(m)
    m = rdMolStandardize.Uncharger().uncharge(m)
    # The Uncharger leaves implicit valences cached from the charged form
    # (CalcNumHBA then misses a neutralized amine N) and a neutralized
    # cyclopentadienide or tropylium still marked aromatic (its SMILES does
    # not parse back): sanitize again, as package chem does.
    try:
        Chem.SanitizeMol(m)
    except Exception:
        m.UpdatePropertyCache(False)
    return m


def props(mol):
    return {
        "smiles": Chem.MolToSmiles(mol),
        "formula": rdmd.CalcMolFormula(mol),
        "mw": "%.6f" % Descriptors.MolWt(mol),
        "exact_mass": "%.6f" % rdmd.CalcExactMolWt(mol),
        "logp": "%.6f" % Crippen.MolLogP(mol),
        "tpsa": "%.6f" % rdmd.CalcTPSA(mol),
        "hbd": rdmd.CalcNumHBD(mol),
        "hba": rdmd.CalcNumHBA(mol),
        "rotb": rdmd.CalcNumRotatableBonds(mol, rdmd.NumRotatableBondsOptions.Strict),
        "heavy_atoms": mol.GetNumHeavyAtoms(),
        "aromatic_rings": rdmd.CalcNumAromaticRings(mol),
        "qed": "%.9f" % QED.qed(mol),
    }


def obabel(rows, fmt):
    """Open Babel output for the canonical SMILES of rows, keyed by id."""
    res = {}
    todo = [r for r in rows if r.get("smiles")]
    text = "".join("%s %s\n" % (r["smiles"], r["id"]) for r in todo)
    p = subprocess.run(["obabel", "-ismi", "-o" + fmt, "-xt", "-xw"], input=text,
                       capture_output=True, text=True)
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2:
            res[parts[1]] = parts[0]
    for r in todo:  # Open Babel drops the record after an error: retry one by one
        if r["id"] not in res:
            p = subprocess.run(["obabel", "-:" + r["smiles"], "-o" + fmt, "-xw"],
                               capture_output=True, text=True)
            v = p.stdout.strip().split()
            res[r["id"]] = v[0] if v else ""
    return res


def main():
    inputs = [(i, s, "curated") for i, s in CURATED]
    for ligand in sorted(os.listdir(os.path.join(SHARED, "docking-corpus", "ligands"))):
        if ligand.endswith(".smi"):
            with open(os.path.join(SHARED, "docking-corpus", "ligands", ligand)) as f:
                for line in f:
                    s, name = line.split()
                    inputs.append(("corpus_" + name, s, "docking-corpus"))
    inputs += [(i, s, "rdkit-data") for i, s, _ in rdkit_data()]

    rows = []
    for ident, smiles, source in inputs:
        row = {"id": ident, "source": source, "input": smiles}
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            print("skip (RDKit cannot parse):", ident, smiles, file=sys.stderr)
            continue
        try:
            row.update(props(normalize(mol)))
        except Exception as e:  # noqa: BLE001
            print("skip:", ident, e, file=sys.stderr)
            continue
        rows.append(row)

    inchi = obabel(rows, "inchi")
    keys = obabel(rows, "inchikey")
    for r in rows:
        r["inchi_obabel"] = inchi.get(r["id"], "")
        r["inchikey_obabel"] = keys.get(r["id"], "")

    fields = ["id", "source", "input", "smiles", "formula", "mw", "exact_mass", "logp",
              "tpsa", "hbd", "hba", "rotb", "heavy_atoms", "aromatic_rings", "qed",
              "inchi_obabel", "inchikey_obabel"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    with gzip.GzipFile(os.path.join(HERE, "reference.csv.gz"), "wb", mtime=0) as f:
        f.write(buf.getvalue().encode())

    curated = dict(CURATED)
    for version, name in ((False, "molblocks_v2000.sdf"), (True, "molblocks_v3000.sdf")):
        with open(os.path.join(HERE, name), "w") as f:
            for ident in MOLFILE_IDS:
                m = Chem.MolFromSmiles(curated[ident])
                m.SetProp("_Name", ident)
                rdDepictor.Compute2DCoords(m)
                f.write(Chem.MolToMolBlock(m, forceV3000=version))
                f.write("$$$$\n")
    print("%d rows" % len(rows), file=sys.stderr)


if __name__ == "__main__":
    main()
