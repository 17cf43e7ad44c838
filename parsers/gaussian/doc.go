// Package gaussian parses Gaussian 03, 09 and 16 output files (.log/.out)
// into a qm.Calculation: one streaming pass over the lines, bounded memory,
// tolerant of truncated and failed runs. A log with several job steps
// (compound routes such as "opt freq", which Gaussian runs as Link1 internal
// job steps, or jobs joined with --Link1--) is read as one calculation per
// step, returned as a qm.Group: a step starts after a "Normal termination"
// line, at "Link1:  Proceeding to internal job step" or a new "Entering
// Gaussian System" header, and inherits the version, charge and
// multiplicity of the step before unless it prints its own.
//
// Geometries are taken from the "Standard orientation" block when Gaussian
// prints one (the frame of the dipole, rotational constants and normal
// modes), otherwise from "Input orientation"/"Z-Matrix orientation";
// consecutive identical geometries are stored once.
//
// Correlated energies (qm.Calculation.Correlated), each method's last
// value: "EUMP2 =" (MP2), "EUMP3=" (MP3), "UMP4(DQ)=", "UMP4(SDQ)=",
// "UMP4(SDTQ)=" (MP4 by substitutions), "MP5 =", the last "E(CORR)=" of
// the coupled-cluster or QCI iterations (CCSD, QCISD, CCD: the route's
// method without (T); EOMCCSD's ground state is CCSD), "CCSD(T)=" and
// "QCISD(T)=" with a D exponent (the archive's copies are not read). The
// level of theory is the route's "method/basis" keyword (parentheses are
// part of the name: "CCSD(T)", "MP4(SDQ)"; options inside them are not:
// "CIS(D,NStates=5)" is CIS(D)), or a correlated method keyword without
// "/basis" ("EOMCCSD=(…) STO-3G"), or else the SCF label.
//
// There is no maintained Go library for Gaussian logs; cclib (Python) is the
// reference this parser is tested against.
package gaussian
