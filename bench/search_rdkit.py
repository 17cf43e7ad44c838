#!/usr/bin/python3
"""RDKit's side of `make bench-search` (cmd/molgraph-benchsearch).

Reads "SMILES name" lines and a JSON file of queries, and times, in one
thread:

  similarity    Morgan radius-2 2048-bit fingerprints of all molecules, then
                per query DataStructs.BulkTanimotoSimilarity over all of them,
                keeping the hits >= threshold, and the top k
  substructure  rdSubstructLibrary.SubstructLibrary over the first nsub
                molecules, with molecules held in memory (MolHolder, the
                fastest holder) and RDKit's pattern-fingerprint screen
                (PatternHolder), per query GetMatches(numThreads=1,
                useChirality=False: molgraph's default options) for every hit

Prints one JSON object: per query the hit count and the seconds taken.

RDKit 2022.09's pattern-fingerprint screen drops true hits of some SMARTS
(an element that is not the atom's first primitive, [r{5-6};#7]; ring-bond,
degree or stereo primitives: [Z1;C], C/C=C/C), so SubstructLibrary then
finds fewer hits than a plain HasSubstructMatch. Where the count differs from
"expect" (molgraph's count, if given), the query is counted again with
HasSubstructMatch over every molecule of the library, without the screen and
untimed, as "unscreened_hits": it tells a screen drop from a real mismatch.

Usage: search_rdkit.py SMILES_FILE QUERIES_JSON
QUERIES_JSON: {"similarity": [SMILES...], "threshold": 0.7, "top": 10,
               "substructure": [SMARTS...], "nsub": 100000, "nsim": N,
               "expect": [molgraph's hit count per SMARTS],
               "set": [SMARTS...], "set_expect": [molgraph's hit counts]}
"set" (make bench-search's PAINS table) is timed as a whole: CPU and wall
seconds for all its queries, one GetMatches each.
"""
import json
import sys
import time

from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import AllChem, rdSubstructLibrary

RDLogger.DisableLog("rdApp.*")


def main(path, qpath):
    q = json.load(open(qpath))
    smiles = [line.split()[0] for line in open(path) if line.strip()]
    out = {}
    if q.get("similarity"):
        t0 = time.time()
        fps = [AllChem.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(s), 2, 2048) for s in smiles[: q["nsim"]]]
        out["fingerprint_seconds"] = time.time() - t0
        sims = []
        for s in q["similarity"]:
            fp = AllChem.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(s), 2, 2048)
            t0 = time.time()
            scores = DataStructs.BulkTanimotoSimilarity(fp, fps)
            hits = [x for x in scores if x >= q["threshold"]]
            t1 = time.time()
            top = sorted(scores, reverse=True)[: q["top"]]
            t2 = time.time()
            sims.append({"query": s, "hits": len(hits), "threshold_seconds": t1 - t0,
                         "top_seconds": t2 - t0, "top_last": top[-1]})
        out["similarity"] = sims
    if q.get("substructure") or q.get("set"):
        t0 = time.time()
        lib = rdSubstructLibrary.SubstructLibrary(rdSubstructLibrary.MolHolder(), rdSubstructLibrary.PatternHolder())
        for s in smiles[: q["nsub"]]:
            lib.AddMol(Chem.MolFromSmiles(s))
        out["library_seconds"] = time.time() - t0
        subs = []
        expect = q.get("expect") or []
        for i, s in enumerate(q.get("substructure") or []):
            qm = Chem.MolFromSmarts(s)
            c0 = time.process_time()
            t0 = time.time()
            m = lib.GetMatches(qm, useChirality=False, numThreads=1, maxResults=len(smiles) + 1)
            subs.append({"query": s, "hits": len(m), "seconds": time.time() - t0,
                         "cpu_seconds": time.process_time() - c0})
        # not timed: the unscreened count where SubstructLibrary's differs
        for i, r in enumerate(subs):
            if i < len(expect) and expect[i] != r["hits"]:
                qm = Chem.MolFromSmarts(r["query"])
                r["unscreened_hits"] = sum(1 for j in range(len(lib))
                                           if lib.GetMol(j).HasSubstructMatch(qm, useChirality=False))
        out["substructure"] = subs
    if q.get("set"):
        # a query set (PAINS) timed as a whole; per query hit counts, and
        # the unscreened count where they differ from "set_expect"
        qms = [Chem.MolFromSmarts(s) for s in q["set"]]
        hits = []
        c0 = time.process_time()
        t0 = time.time()
        for qm in qms:
            hits.append(len(lib.GetMatches(qm, useChirality=False, numThreads=1, maxResults=len(smiles) + 1)))
        st = {"hits": hits, "seconds": time.time() - t0, "cpu_seconds": time.process_time() - c0}
        expect = q.get("set_expect") or []
        st["unscreened_hits"] = [
            sum(1 for j in range(len(lib)) if lib.GetMol(j).HasSubstructMatch(qm, useChirality=False))
            if i < len(expect) and expect[i] != h else -1
            for i, (qm, h) in enumerate(zip(qms, hits))]
        out["set"] = st
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
