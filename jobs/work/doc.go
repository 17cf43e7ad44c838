// Package work holds the units of distributable work and their pure
// executors, with no access to the graph: a docking unit (one ligand of a
// job) and the executor that turns it into poses; a chemistry unit (a run
// of records of a batch upload) and the executor that turns it into
// prepared molecules (Molecule: record, conformer, fingerprints), the
// same code the in-process batch path runs (PrepareMolecule). The job tasks
// (jobs/docking) plan units from the graph and commit the outcomes in the
// single writer; the executors run either in the serving process (the
// local queue) or in a `molgraph worker` process fed by a JetStream queue
// (jobs/queue/jsq), so both paths compute the same thing.
//
// This package must never import package graph: an executor that could
// read or write the graph would not run on a worker (see
// TestNoGraphImport).
package work
