// Package docking is the durable docking job (mg:DockingJob) of the jobs
// runner: AutoDock Vina runs of registered molecules against a receptor.
//
// # Graphs
//
// A job <BASE>id/docking-job/<id> keeps three kinds of named graph:
//
//   - the job graph (written by the runner): status, times, the pocket
//     method and box, Vina's settings and the counters (mg:totalLigands,
//     mg:finishedLigands, mg:failedLigands, mg:bestAffinity);
//   - the inputs graph <job>/inputs, written once before the job is
//     submitted: mg:receptor and mg:ligand (each also prov:used) and
//     prov:wasAssociatedWith the engine (a prov:SoftwareAgent);
//   - one result graph <job>/ligand/<molecule id> per finished ligand: its
//     mg:DockingPose nodes (one per mode in Vina's --out file, with the
//     reassembled SDF as a mg:File blob) or its failure.
//
// Each result graph is committed together with the job's new counters in one
// transaction, so a restart resumes with exactly the ligands that have no
// result graph yet.
package docking
