// Package psi4 parses Psi4 output files (1.x, and the 4.0 betas) into a
// qm.Calculation in one streaming pass with bounded memory, tolerant of
// truncated and failed runs.
//
// Conventions: the SCF energy of each solution is the "@<ref> Final
// Energy" line; in finite-difference frequency runs (FINDIF) only the first
// (reference-geometry) SCF solution and geometry are kept, the displaced
// ones are skipped; dipoles printed in atomic units are converted with
// qm.AtomicUnitDipoleToDebye; rotational constants come from the MHz line,
// with the infinite A constant of linear molecules ("****") stored as 0 as
// Gaussian prints it; ZPE is the "Correction ZPE" (Eh) and enthalpy and
// Gibbs energy the "Total H"/"Total G" lines. Frequencies are the
// "Vibration"s Psi4 lists; at a non-stationary geometry it projects
// translations only and may list rotation-like modes among them (then,
// with more than 3N−6 vibrations, its note 'Note that "Vibration"s include
// 3 un-projected rotation-like modes.' is kept as a warning). The version string tolerates
// Debian's build header ("Git: Rev {} zzzzzzz"): it is read from the
// "Psi4 1.3.2 release" line.
//
// Driver calls. When the input (echoed in the log) makes two or more
// SCF-level driver calls at top level (energy, optimize, frequency, ...;
// no loops, functions or correlated methods, whose modules cannot be told
// apart in the output), each call is a job step, returned as a qm.Group: a
// call ends when its work is done (its SCF energy; "Optimization is
// complete"; the Gibbs energy of a frequency analysis) and the next starts
// at the next "tstart() called" line. Otherwise the log is one calculation;
// if the input's last call names a correlated method (mp2, sapt0, ccsd(t),
// casscf, ...), that method, upper case, is its Method (the SCF energies
// are the reference's), since the output names it in no fixed place: the
// final results are that call's (energy('scf') then energy('mp2') is MP2).
//
// Correlated energies (qm.Calculation.Correlated): ccenergy's and fnocc's
// "* MP2 total energy", "* CCSD total energy", "* CCSD(T) total energy",
// "* QCISD(T) total energy" (with "=", ":" or nothing before the value),
// occ's "MP2/MP3/OMP2/OMP3 Total Energy (a.u.)" (the MP2 block occ prints
// again after orbital optimisation is the OMP2 energy and is not MP2),
// dfmp2's "Total Energy" of its "DF-MP2 Energies" block; SCS and SOS
// variants are not kept. Each method keeps its last value.
//
// There is no maintained Go library for Psi4 output; cclib (Python) is the
// reference this parser is tested against.
package psi4
