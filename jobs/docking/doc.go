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
//   - results graphs <job>/results/<k>, each holding the outcomes of up to
//     ResultsPerGraph ligands (ligand i of the job's ligand order is in
//     graph i / ResultsPerGraph): per docked ligand its mg:DockingPose
//     nodes <job>/ligand/<molecule id>#mode-N (one per mode in Vina's --out
//     file, with the reassembled SDF as a mg:File blob, the pose checks
//     (mg:poseValid and mg:<check>Passed / mg:<check>Value) and one
//     mg:<type>With triple per residue and interaction type of the pose,
//     docking/interact, with the mg:Residue nodes they point to) and the
//     stereoisomers docked, <job>/ligand/<molecule id>#isomer-K (a ligand
//     with unspecified stereo is docked as each of its stereoisomers, its
//     poses are those of the best, mg:stereoisomer), per failed ligand a
//     node <job>/ligand/<molecule id>#failure with the error. Grouping
//     ligands makes listing a 10,000-ligand job about 834 graph reads
//     instead of 10,000.
//
// Beside the graphs, each job has a results index in the store's side
// keyspace (index.go): one entry per outcome, ordered by affinity then
// ligand id (failures apart, by ligand id), committed with the outcome's
// results graph, so that a page of results reads its own ligands only.
//
// Each ligand's outcome is committed (its results graph rewritten with the
// ligand added) together with the job's new counters in one transaction,
// so a restart resumes with exactly the ligands that have no outcome yet,
// and a ligand never has two.
package docking
