// Package gaussian parses Gaussian 03, 09 and 16 output files (.log/.out)
// into a qm.Calculation: one streaming pass over the lines, bounded memory,
// tolerant of truncated and failed runs. Multi-step jobs (Link1, e.g.
// opt then freq) are read as one calculation: geometries, SCF solutions and
// job types accumulate, and the last analysis of each kind (orbitals,
// charges, dipole, frequencies, thermochemistry) wins.
//
// Geometries are taken from the "Standard orientation" block when Gaussian
// prints one (the frame of the dipole, rotational constants and normal
// modes), otherwise from "Input orientation"/"Z-Matrix orientation";
// consecutive identical geometries are stored once.
//
// There is no maintained Go library for Gaussian logs; cclib (Python) is the
// reference this parser is tested against.
package gaussian
