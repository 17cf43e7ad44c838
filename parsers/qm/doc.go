// Package qm holds the program-independent model of a quantum-chemistry
// calculation (Calculation), program detection from a log's content
// (Detect), the units and CODATA 2018 conversion constants every parser
// uses (units.go), a bounded line reader for streaming parsers (Lines), and
// the dispatch from a log to the parser of its program (Table).
//
// Program parsers live in their own packages (parsers/gaussian,
// parsers/orca, parsers/psi4, parsers/nwchem, parsers/xtb). They import
// this package for the model, so this package cannot import them; the
// caller wires them explicitly:
//
//	parsers := qm.Table{gaussian.Parser{}, orca.Parser{}, psi4.Parser{}, nwchem.Parser{}, xtb.Parser{}}
//	calc, err := parsers.Parse(r, "") // "" = detect the program
//
// # Units
//
// Energies (SCF, orbital, ZPE, enthalpy, Gibbs energy) are in hartree (Eh),
// coordinates in ångström, dipole moments in debye, rotational constants in
// GHz, wavenumbers in cm⁻¹, IR intensities in km/mol, times in seconds,
// temperatures in kelvin and pressures in atm. Quantities a log does not
// contain are nil (pointers) or empty slices, never 0.
//
// A log with several job steps (Gaussian Link1 jobs, NWChem tasks, Psi4
// driver calls, ORCA $new_job and compound jobs) is read
// by ParseSteps into one Calculation per step, returned as their Group
// (Calculation.Steps); at most MaxSteps steps per log.
//
// Parsers never panic on bad input; they return what they could read, with
// NormalTermination false for truncated or failed runs, and wrap the
// sentinel errors of this package (ErrUnsupportedLog, ErrEmptyLog, ...).
package qm
