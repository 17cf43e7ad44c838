// Package interact finds the non-covalent interactions between a docked
// ligand pose and its receptor, with PLIP's definitions as the model
// (Salentin et al., Nucleic Acids Res. 2015, 43:W443; PLIP 2.2.2's
// DOCUMENTATION.md and the thresholds of its config.py, which are the
// constants below). It is pure: a Receptor (built once per receptor from
// its PDB or PDBQT atoms) and a Ligand (the chemistry RDKit perceives,
// chem.Features, placed at a pose's coordinates) in, interactions out. No
// code was taken from PLIP; the rules are written from its documentation.
//
// # Groups
//
// Ligand groups come from RDKit (chem.Features: SMARTS over the sanitized
// molecule). Receptor groups are derived from residue and atom names, as
// PLIP does for charges and rings, and from the atoms' bonds (by distance,
// within 0.45 Å over the sum of covalent radii) for hydrophobic carbons and
// polar hydrogens:
//
//   - donors: N and O carrying a hydrogen (the receptor's hydrogens are
//     the ones in its file: a PDBQT from the service has all polar H);
//   - acceptors: every O; the N of a histidine ring that carries no H;
//     N and O typed NA/OA in a PDBQT of a non-standard residue;
//   - hydrophobic: carbon bonded only to carbon and hydrogen;
//   - aromatic rings: PHE, TYR, TRP (both rings), HIS (and HID, HIE, HIP,
//     HSD, HSE, HSP);
//   - positive: LYS NZ; ARG NE, NH1, NH2 (one group); HIS (and HIP, HSP)
//     ND1, NE2 (one group); negative: ASP OD1, OD2; GLU OE1, OE2;
//   - halogen-bond acceptors: O, N, S bonded to C, P or S;
//   - metals: Zn, Mg, Ca, Mn, Fe, Cu, Co, Ni, Cd, Hg, Na, K, ... atoms.
//
// # Interactions (thresholds in Å and degrees, PLIP 2.2.2 defaults)
//
//   - hydrogen bond: donor–acceptor distance in (MinDist, HBondDistMax],
//     angle D–H···A ≥ HBondDonAngleMin at the best hydrogen; a donor atom
//     keeps only its bond with the angle closest to 180°; a hydrogen bond
//     between two atoms of groups that form a salt bridge is dropped;
//   - salt bridge: centres of opposite charge within SaltBridgeDistMax;
//   - π-stacking: ring centres within PiStackDistMax, angle between the
//     ring planes within PiStackAngDev of 0° (parallel) or 90° (T-shaped),
//     offset (a centre projected on the other ring's plane, to that
//     ring's centre; the smaller of the two) ≤ PiStackOffsetMax;
//   - π–cation: charge centre within PiCationDistMax of a ring centre,
//     offset ≤ PiStackOffsetMax; a ligand tertiary amine (not protonated)
//     also needs the normal of its substituents' plane within
//     PiStackAngDev of the ring normal;
//   - hydrophobic contact: hydrophobic carbons within HydrophobDistMax,
//     then reduced as PLIP does: contacts between rings that π-stack are
//     dropped, a ligand atom keeps its closest contact per residue, a
//     receptor atom keeps its closest contact;
//   - halogen bond: C–X···A with X···A ≤ HalogenDistMax, angle C–X···A
//     within HalogenAngleDev of HalogenDonAngle and X···A–Y within
//     HalogenAngleDev of HalogenAccAngle;
//   - metal coordination: a ligand metal-binding atom (alcohol, phenol(ate)
//     or carboxylate O, phosphoryl O, thiol(ate) S, azole N) within
//     MetalDistMax of a receptor metal.
//
// Intended differences from PLIP (cmd: plip -f complex.pdb --nohydro -x):
// no water bridges (prepared receptors have no waters); metal
// coordination reports each ligand atom within MetalDistMax of a metal
// (PLIP also fits a coordination geometry and reports the protein's
// coordinating residues); non-aromatic rings are not promoted to aromatic
// by a planarity test; ligand donors and acceptors come from RDKit SMARTS
// (above and in chem/mg_interact.cpp) rather than Open Babel's typing, so
// an amide or aniline N is never an acceptor and a sulfonamide N is never
// a chargeable amine. The figures of agreement with plip are measured by
// TestPLIPAgreement.
//
// # Fingerprint
//
// A pose's fingerprint is the sorted set of "<chain>-<number><icode>:<residue
// name>:<type>" strings of its interactions (e.g. "A-318:MET:hbond"),
// sorted by chain, residue number, insertion code, then type: one entry
// per residue and interaction type however many atom pairs make it. Two
// poses with equal fingerprints make the same kinds of contact with the
// same residues; the Tanimoto similarity of two fingerprints as sets
// compares poses across a screen.
//
// # Bounds
//
// Receptor atoms are indexed once in a spatial hash grid (cells of
// CellSize Å), so a pose costs the ligand atoms times the receptor atoms
// within the largest cutoff, not times the whole receptor. NewReceptor
// refuses more than MaxReceptorAtoms atoms; ligands are bounded by chem
// (999 atoms).
package interact
