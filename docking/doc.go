// Package docking prepares receptors, finds pockets and runs AutoDock Vina.
//
// The pieces, each usable on its own (the job runner and HTTP handlers
// call them; nothing here touches the graph):
//
//   - PrepareReceptor: an uploaded PDB is cleaned (waters and non-polymer
//     HETATM residues removed unless kept by option, one alternate location
//     per atom, first MODEL only), then protonated at a pH (default 7.4) by
//     PDB2PQR with PROPKA and written as a rigid receptor PDBQT by Open
//     Babel without adding hydrogens (obabel -xr); when PDB2PQR fails (a
//     residue it has no template for, an error, its time limit) Open Babel
//     adds the hydrogens itself (obabel -xr -h), and the Preparation record
//     says which route was taken and why (tool, version, pH, argument
//     lists). Residue numbers and chains are kept. A PDBQT upload is
//     validated and used as is.
//   - FindPockets: a LIGSITE-style grid buriedness detector (protein-solvent-
//     protein events along 7 directions), clustering of buried grid points,
//     ranking, and a docking box per pocket.
//   - Vina and Batch: one vina process per ligand with a fixed seed,
//     per-ligand timeout, cancellation that kills the process group, progress
//     from finished ligands and from Vina's 51-star progress bar, and every
//     mode of the --out file parsed (the file, not stdout: Vina keeps only
//     the modes within energy_range in the file).
//   - PoseMap: the mapping from a docked Vina model back to the atoms of the
//     registered molecule through Meeko's REMARK SMILES / SMILES IDX /
//     H PARENT lines; the chem package builds the SDF from it.
//   - RMSD: symmetry-aware heavy-atom RMSD between two poses of the same
//     molecule (no fitting), as used to compare a docked pose with a crystal
//     ligand.
//
// Ligand preparation (RDKit through chem: charges, AutoDock types, torsion
// tree, Meeko remarks) produces a Ligand (name + PDBQT bytes), which is all
// the runner needs.
//
// External programs: vina (Debian autodock-vina 1.2.3), obabel (Debian
// openbabel 3.1.1) and pdb2pqr30 (Debian pdb2pqr 3.5.2 with python3-propka
// 3.5). Their behaviour here is recorded in
// ../shared/docking-corpus/README.md. All run through package subproc:
// argument lists only, their own process group (killed on timeout or
// cancellation), a parent-death signal (no vina outlives a server killed
// with SIGKILL), bounded captured output, and working directories under
// one root (Vina.WithTempDirs, ReceptorOptions.TempDirs) that the server
// sweeps of dead processes' leftovers at start.
package docking
