// Package orca parses ORCA 3.x–6.x output files into a qm.Calculation in
// one streaming pass with bounded memory, tolerant of truncated and failed
// runs.
//
// Conventions: the SCF energy is the "Total Energy" of the TOTAL SCF ENERGY
// block (without dispersion corrections, as cclib's scfenergies); the
// translational and rotational modes ORCA lists as 0.00 cm⁻¹ are dropped
// from Frequencies; dipole components are converted from atomic units with
// qm.AtomicUnitDipoleToDebye; rotational constants come from the MHz line
// (or the cm⁻¹ line in old versions). ORCA prints no method name, so Method
// is taken from the simple-input keywords ("! B3LYP def2-SVP Opt") and
// falls back to "HF" when the Hamiltonian section says Hartree-Fock.
//
// A run of several jobs (inputs joined with $new_job, announced by
// "$$$ JOB NUMBER n $$$" banners, or an ORCA 6 compound script's
// "COMPOUND JOB n" jobs) is read as one calculation per job (qm.ParseSteps):
// each job's method, job types and basis come from its part of the input
// echo and of the basis announcements, its wall time from its "Sum of
// individual times" (ORCA times only the whole run otherwise), and a job
// followed by another terminated normally (ORCA stops the whole run at an
// error). The compound driver's own header and trailer are no step.
//
// Correlated energies (qm.Calculation.Correlated): "MP2 TOTAL ENERGY:"
// (MP2 module), MDCI's "E(MP2)  =" and "E(MP3)  =" (totals; the initial
// guess's "E(MP2) ..." is a correlation energy and is not read),
// "E(CCSD) ...", "E(CCSD(T)) ...", and the E(TOT) of a COUPLED CLUSTER
// ENERGY block (the ground-state CCSD or QCISD of CC, DLPNO and EOM/STEOM
// runs). A printed "Dispersion correction" (DFT-D) is added to the SCF
// energy before it, as Gaussian and NWChem include it in theirs.
//
// There is no maintained Go library for ORCA output; cclib (Python) is the
// reference this parser is tested against.
package orca
