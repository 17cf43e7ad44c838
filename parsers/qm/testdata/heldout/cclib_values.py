#!/usr/bin/env python3
"""Writes cclib's parse of the held-out and correlated-energy logs as JSON.

Usage (from the repository root):
  PYTHONPATH=/path/to/cclib-master python3 parsers/qm/testdata/heldout/cclib_values.py master
  /usr/bin/python3 parsers/qm/testdata/heldout/cclib_values.py debian   # Debian python3-cclib 1.6.2

For every log of parsers/{gaussian,orca,nwchem,psi4,xtb}/testdata/{heldout,cclib}
(.out/.log; not g98.out) it writes parsers/<prog>/testdata/<dir>/cclib_<which>.json:
{"file": {"scf": [...Eh], "mp": [[...Eh]], "cc": [...Eh], "charge", "mult",
"atomnos", "coords_last", "vibfreqs", "vibirs", "homos", "optdone", "zpve",
"enthalpy", "freeenergy", "error"}}. cclib reports energies in eV; they are
converted back to hartree with cclib's own convertor (so a difference below
1e-6 Eh is conversion noise).
"""
import json, os, sys, glob
import cclib
from cclib.parser.utils import convertor

which = sys.argv[1]
root = "parsers"
for prog in ["gaussian", "orca", "nwchem", "psi4", "xtb"]:
    for d in ["heldout", "cclib"]:
        dirp = os.path.join(root, prog, "testdata", d)
        files = sorted(f for f in glob.glob(os.path.join(dirp, "*")) if f.endswith((".out", ".log")) and not f.endswith("g98.out"))
        if not files:
            continue
        out = {}
        for f in files:
            rec = {}
            try:
                data = cclib.io.ccread(f)
                if data is None:
                    rec["error"] = "not recognised"
                else:
                    eh = lambda xs: [convertor(float(x), "eV", "hartree") for x in xs]
                    if hasattr(data, "scfenergies"):
                        rec["scf"] = eh(data.scfenergies)
                    if hasattr(data, "mpenergies"):
                        rec["mp"] = [eh(r) for r in data.mpenergies]
                    if hasattr(data, "ccenergies"):
                        rec["cc"] = eh(data.ccenergies)
                    for a in ["charge", "mult", "optdone", "zpve", "enthalpy", "freeenergy"]:
                        v = getattr(data, a, None)
                        if v is not None:
                            rec[a] = v if isinstance(v, (bool, int, float)) else (bool(v) if a == "optdone" else float(v))
                    if hasattr(data, "atomnos"):
                        rec["atomnos"] = [int(z) for z in data.atomnos]
                    if hasattr(data, "atomcoords"):
                        rec["coords_last"] = [[float(x) for x in a] for a in data.atomcoords[-1]]
                        rec["ngeoms"] = len(data.atomcoords)
                    if hasattr(data, "vibfreqs"):
                        rec["vibfreqs"] = [float(x) for x in data.vibfreqs]
                    if hasattr(data, "vibirs"):
                        rec["vibirs"] = [float(x) for x in data.vibirs]
                    if hasattr(data, "homos"):
                        rec["homos"] = [int(x) for x in data.homos]
                    if hasattr(data, "moenergies"):
                        rec["homo_ev"] = [float(data.moenergies[s][h]) for s, h in enumerate(data.homos) if h >= 0 and h < len(data.moenergies[s])] if hasattr(data, "homos") else None
                    m = getattr(data, "metadata", {}) or {}
                    for k in ["package_version", "methods", "basis_set", "success"]:
                        if k in m:
                            rec[k] = m[k] if not isinstance(m[k], set) else sorted(m[k])
                    if hasattr(data, "atomcharges") and "mulliken" in data.atomcharges:
                        rec["mulliken"] = [float(x) for x in data.atomcharges["mulliken"]]
            except Exception as e:  # cclib fails on some logs: record how
                rec["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
            out[os.path.basename(f)] = rec
        with open(os.path.join(dirp, "cclib_%s.json" % which), "w") as fh:
            json.dump(out, fh, indent=1, sort_keys=True, default=str)
            fh.write("\n")
        print(dirp, len(out))
