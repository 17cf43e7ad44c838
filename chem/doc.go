// Package chem is molgraph's chemistry core: a thin cgo binding over
// Debian's RDKit 2022.09 (librdkit-dev) and the IUPAC InChI library 1.03
// (libinchi-dev).
//
// A Pool runs each Input through one pipeline on a fixed set of OS-locked
// threads:
//
//   - parse: SMILES, standard InChI (GetStructFromStdINCHI), a molfile/SDF
//     record (V2000 or V3000), or a PDBQT ligand (AutoDock types mapped to
//     elements; bond orders from REMARK SMILES / SMILES IDX as Meeko writes
//     them, or from a template SMILES matched by proximity bonding; without
//     either the PDBQT is rejected rather than guessed);
//   - normalize: sanitize, MolStandardize clean-up (remove H, disconnect
//     metals, normalize, reionize), keep the largest organic fragment,
//     neutralize, with the steps and removed fragments reported;
//   - identity: RDKit canonical isomeric SMILES, standard InChI and
//     InChIKey from 0D stereo parities, formula;
//   - properties: average MW, exact mass, Crippen logP (shared with QED),
//     TPSA, HBD, HBA, strict rotatable bonds, heavy atoms, aromatic rings,
//     and QED as RDKit's Python QED.qed computes it;
//   - validation: radicals, dummy/query atoms, elements outside the organic
//     set, heavy-atom count 1..1000 (errors), multiple fragments, isotopes,
//     remaining charge, InChI warnings (warnings);
//   - coordinates: a 2D depiction, or 3D (with H): ETKDGv3 with a fixed
//     seed plus MMFF94, run apart from the registration workers within a
//     budget (heavy atoms, rotatable bonds), bounded ETKDG attempts and
//     MMFF iterations and a wall-time limit, on threads or in killable
//     helper processes (embed.go).
//
// Content that is not a molecule gives a *MoleculeError wrapping
// ErrInvalidMolecule with a message a chemist can act on, e.g. "explicit
// valence for atom 3 N is 4, greater than permitted" (atoms numbered from 1
// in input order). Nothing panics and no C++ exception crosses into Go.
//
// Threading and memory: RDKit's standardizers and SMARTS patterns are not
// safe to share, so each worker thread owns its own; libinchi 1.03 is not
// thread-safe, so every InChI call holds one process-wide mutex (in C++);
// RDKit's global loggers are silenced once. Every C++ object is freed
// explicitly when a call returns (no finalizers).
//
// Speed without changing a result: the descriptors run ~250 SMARTS searches
// per molecule (Crippen atom types, QED acceptors and alerts), most of which
// cannot match. Each pattern carries cheap necessary conditions (the
// element/aromatic types and how many atoms of them it needs, query atoms
// and bonds that must each match something, for Crippen a first atom that
// is still untyped), and a search that cannot succeed is skipped; RDKit's
// recursive HBA and rotatable-bond queries, which RDKit copies on every
// call for thread safety, are owned per worker instead; MW, logP, TPSA,
// HBD and rotatable bonds are computed once for the record and QED. Three
// standardization steps are skipped where they cannot change the molecule:
// removeHs when there is no H atom (it would only sanitize again), the
// Reionizer when none of its charge corrections and ionized acid forms can
// match (by the same screens), the Uncharger when no atom is charged
// (TestShortcutsExact compares every field with the full path). The
// process's malloc is jemalloc's (see cgo.go).
package chem
