// Package features turns a quantum-chemistry calculation into a fixed,
// ordered vector of named numeric features with units, ready for machine
// learning (GET /v1/qm/calculations/{id}/features and the CSV / JSON Lines
// table of GET /v1/qm/features).
//
// The list (List, Names, Units) never changes order within a version of the
// service; a missing quantity is NaN in a Vector, null in JSON and an empty
// cell in CSV — never 0. Counts (atoms of an element, imaginary modes) are
// real zeros when the quantity they count is known.
//
// Features are computed from an ontology.CalculationRecord (FromRecord), the
// projection that the service reads back from the graph, so that stored
// calculations need not be re-parsed; FromCalculation converts a parsed
// *qm.Calculation with Record first.
//
// Why the qm.Calculation → ontology.CalculationRecord converter (Record) lives
// here: package ontology imports none of molgraph's packages, so it cannot
// see qm.Calculation; the parser packages may not need the record. This
// package depends on both by nature (it reads records and parsed
// calculations), and the handler that stores a parsed log needs features
// anyway, so the conversion sits next to the one other consumer of both
// models, with the unit conversions taken from package qm (CODATA 2018).
//
// # Coulomb matrix
//
// The Coulomb matrix of Rupp et al. (Phys. Rev. Lett. 108, 058301, 2012):
// M_ii = 0.5·Z_i^2.4 and M_ij = Z_i·Z_j / |R_i − R_j|, in atomic units with
// distances in bohr (coordinates in Å divided by qm.BohrToAngstrom), so
// every element is in hartree. Its eigenvalues, sorted by decreasing
// absolute value as in Rupp et al., fill coulomb_eig_01 … coulomb_eig_23;
// molecules with fewer than 23 atoms are padded with zeros (the eigenvalues
// of the matrix padded with Z = 0 dummy atoms, part of the representation's
// definition, not missing values), larger ones keep the 23 largest. The
// eigenvalues come from gonum's symmetric eigensolver.
package features
