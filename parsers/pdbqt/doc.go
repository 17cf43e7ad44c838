// Package pdbqt reads and writes PDBQT, the AutoDock/Vina coordinate format:
// PDB-style ATOM/HETATM records extended with a partial charge (columns
// 69-76) and an AutoDock atom type (from column 78), plus the torsion tree
// of a flexible ligand (ROOT/ENDROOT, BRANCH/ENDBRANCH, TORSDOF), flexible
// receptor residues (BEGIN_RES/END_RES) and REMARK lines.
//
// Three shapes of file are read by one parser:
//
//   - a rigid receptor (Open Babel -xr, Meeko, MGLTools): ATOM/HETATM and TER
//     records, no tree;
//   - a ligand (Meeko, Open Babel, MGLTools): one torsion tree, with Meeko's
//     REMARK SMILES / REMARK SMILES IDX / REMARK H PARENT lines that map the
//     PDBQT atoms to the atoms of a SMILES string (see SMILESIdx, HParent);
//   - a Vina output (--out): one MODEL per docked mode, each starting with
//     REMARK VINA RESULT: affinity rmsd_lb rmsd_ub and the INTER/INTRA/UNBOUND
//     energy remarks, then a copy of the input ligand(s) with new coordinates
//     and, for flexible docking, the moved receptor side chains.
//
// Parse returns every model (a file without MODEL records is one model);
// Write is the inverse for the records this package models. Vina copies the
// input ligand's atoms, serials, types and charges into every model and only
// changes x, y, z, so a docked model can be mapped back to the input through
// serial numbers.
//
// No maintained Go library reads PDBQT (the Go PDB readers ignore the charge
// and type columns and the torsion tree), so this one is written here from
// the format as Vina 1.2.3 and Meeko write it.
package pdbqt
