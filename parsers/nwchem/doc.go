// Package nwchem parses NWChem output files (6.x and 7.x) into a
// qm.Calculation in one streaming pass with bounded memory, tolerant of
// truncated and failed runs.
//
// Tasks. Every `task` line of an NWChem input is a job step: the module it
// runs ends with "Task  times", and the next task starts with its own
// module header. A log with one task gives one calculation; a log with
// several gives a qm.Group whose Steps are the tasks in order. A task works
// on the geometry the previous one left in NWChem's database, so a step
// that prints no geometry of its own (a frequency task after an
// optimisation) starts from the previous step's final geometry; charge and
// multiplicity carry over the same way.
//
// Conventions:
//   - The SCF energy of a solution is the "Total SCF energy" (SCF module) or
//     "Total DFT energy" (DFT module) line. In optimisations the energies
//     of line-search SCF solutions (after an "@" step line and before the
//     next geometry) are skipped, as cclib does, so that there is one SCF
//     energy per optimisation geometry; "The SCF is already converged"
//     reprints count as the solution of their geometry. Iterations are the
//     rows of the SCF module's "iter energy gnorm gmax" table or the DFT
//     module's "d=" lines.
//   - Method: the functional the DFT module's "XC Information" names, or
//     for an "xc" line of components a name composed from them (BP86,
//     BLYP, SVWN5, PBE, PBE0, TPSS; unknown rows joined as printed), "HF" for
//     the SCF module, "MP2" when the MP2 module ran, or the CCSD module's
//     "level of theory" ("CCSD", "CCSD(T)") or the TCE module's last
//     "<METHOD> total energy / hartree" line; the SCF energies of a
//     correlated task are those of its reference. SolventModel is "COSMO"
//     when the "-cosmo- solvent" block is printed.
//   - Multiplicity: the DFT module prints it; the SCF module prints closed
//     and open shells (RHF/ROHF: 2S+1 = open+1) or, for UHF, only the α and
//     β electron counts, from which it is derived as n_α − n_β + 1 (cclib
//     leaves it unset).
//   - Orbital energies come from the "Final … Molecular Orbital Analysis"
//     (hartree), completed by the "Final eigenvalues" lists for vectors the
//     analysis leaves out (NWChem prints core orbitals only in the list);
//     the HOMO index is the number of α (β) electrons − 1. If the lowest
//     vectors are printed in neither, the energies are the printed window
//     (qm.Orbitals.First says where it starts).
//   - Mulliken charges are nuclear charge minus the gross population of the
//     last "Mulliken analysis of the total density", "Total Density -
//     Mulliken Population Analysis" or property-module "gross population on
//     atoms" table.
//   - Dipole: the L = 1 rows of the last multipole analysis, or the
//     property module's DMX/DMY/DMZ, in atomic units, converted with
//     qm.AtomicUnitDipoleToDebye (the property module's second block,
//     after "Dipole moment … Debye(s)", is already in debye).
//   - Frequencies are the projected ones (from the projected IR table, which
//     has one more decimal than the "P.Frequency" rows; the unprojected
//     ones if no projected ones are printed) with the projected IR
//     intensities in km/mol. NWChem lists all 3N modes; the 6 (linear: 5)
//     of smallest magnitude are the translations and rotations and are
//     dropped, as Gaussian, ORCA and Psi4 never print them (cclib keeps
//     them for NWChem).
//   - Thermochemistry (at NWChem's 1 atm): ZPE from "Zero-Point correction
//     to Energy"; H = E_SCF + "Thermal correction to Enthalpy"; G = H − T·S
//     with S converted from cal/(mol·K) with qm.HartreeToKcalPerMol.
//     Rotational constants are converted from cm⁻¹ with qm.WavenumberToGHz.
//   - Normal termination: a task terminated normally if it printed "Task
//     times" without an error banner ("… failed"); the last task needs the
//     final "Total times" too. An aborted SCF is therefore false, not absent;
//     so is a run stopped by an error ("There is an error in the specified
//     basis set", "This error has not yet been assigned to a category"),
//     kept as a warning with the message of its errquit banner.
//
// Correlated energies (qm.Calculation.Correlated): the MP2 module's
// "Total MP2 energy", the CCSD module's "Total MP2 energy:", "Total CCSD
// energy:", "Total CCSD(T) energy:", and TCE's "<method> total energy /
// hartree =" for the canonical methods (CCSD[T] and CCSD+T(CCSD) are not
// kept); each method keeps its last value (an MP2 optimisation's final
// geometry).
//
// There is no maintained Go library for NWChem output; cclib (Python) is the
// reference this parser is tested against.
package nwchem
