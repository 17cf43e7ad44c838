// Package xtb parses the standard output of the xtb program (Grimme's
// extended tight-binding methods GFN0/1/2-xTB and GFN-FF, versions 6.x)
// into a qm.Calculation in one streaming pass with bounded memory, tolerant
// of truncated and failed runs. One xtb run (e.g. --ohess: optimisation then
// Hessian) is one calculation.
//
// Conventions:
//   - Method is the Hamiltonian xtb names ("GFN2-xTB"), or "GFN-FF" from
//     the force field's banner (it prints no Hamiltonian row); there is no
//     basis set. SolventModel is the "Solvation model" xtb prints (ALPB,
//     GBSA). Charge is the "total charge" of the summary; xtb prints no
//     multiplicity: it is the number of unpaired electrons given with
//     --uhf/-u in the program call, plus one, or else 1 for an even and 2
//     for an odd number of electrons (xtb's own default).
//   - SCF energies are the "total energy" of each single point summary and
//     of each optimisation cycle, one per geometry: the first cycle
//     re-evaluates the starting geometry and is not repeated, and the final
//     single point replaces the last cycle's rounded energy with its full
//     precision; the closing "| TOTAL ENERGY" box, when within 1e-6 Eh of
//     the last SCF (after --ohess with ALPB it is the Hessian's reference
//     evaluation, 4.5e-9 Eh off), replaces it, so that enthalpy and free
//     energy minus the final energy are xtb's thermal corrections. GFN-FF energies are evaluations without an SCC: they count
//     as converged. An SCC cut short ("cannot be satisfied within n
//     iterations") is an unconverged SCF without energy.
//   - Orbital energies come from the "Energy/Eh" column of the orbital table,
//     never the "Energy/eV" column (cclib master reads the eV column as
//     hartree, 27.2× too large). For larger molecules xtb prints orbital
//     1, "...", a window around the frontier orbitals, "...", and the
//     highest orbital: the window holding the HOMO is kept, and
//     qm.Orbitals.First says where it starts.
//   - Geometry: xtb prints coordinates only for the final structure of an
//     optimisation (xyz in Å, or Turbomole $coord in bohr) and, for GFN-FF,
//     the input structure in its topology table (bohr); an xTB single point
//     has no geometry in its log. For GFN-FF, which prints no electron
//     count, the multiplicity follows xtb's default from the final geometry
//     and the charge.
//   - Frequencies are the projected ones; xtb lists all 3N modes and the
//     translations and rotations (3N minus the "# frequencies" of the
//     thermochemistry plus its "# imaginary freq.", since "# frequencies"
//     counts real modes only; without thermochemistry, the 5 or 6 modes printed
//     as 0.00, else 6, or 5 for linear molecules) are dropped, as
//     Gaussian, ORCA and Psi4 never print them (cclib keeps them).
//   - Dipole: xtb prints the "full" dipole components (GFN1: the "dipole
//     moment from electron density") in atomic units and only the total in
//     debye; components are converted with qm.AtomicUnitDipoleToDebye.
//   - Mulliken charges are the "q" column of the property printout (for GFN2
//     the Mulliken charges xtb's self-consistent charges use), or for GFN1
//     the first column of its "Mulliken/CM5 charges" table.
//   - Thermochemistry: ZPE, "TOTAL ENTHALPY" and "TOTAL FREE ENERGY" (Eh) and
//     the temperature of the last thermochemistry row; rotational constants
//     are converted from cm⁻¹ with qm.WavenumberToGHz.
//   - Normal termination: "finished run" printed and no "[ERROR]" or
//     "abnormal termination". An optimisation that ran out of cycles
//     ("FAILED TO CONVERGE GEOMETRY OPTIMIZATION") still terminates
//     normally; its Optimization is not converged.
//
// There is no maintained Go library for xtb output; cclib (Python) is the
// reference this parser is tested against, with the values xtb prints.
package xtb
