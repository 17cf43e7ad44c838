// Package jsq is the NATS JetStream implementation of queue.Queue (the
// coordinator's side, Queue) and queue.Worker (Worker, in `molgraph
// worker`), with the streams, subjects and consumers of
// ../shared/design/scaleout.md §3.2:
//
//   - stream MG_<dep>_TASKS (work queue, one message per subject, new
//     messages on a taken subject rejected: an idempotent Enqueue with no
//     time window), subjects mg.<dep>.task.<kind>.<engine>.<job>.<key>;
//     one durable pull consumer per kind and engine shared by all workers;
//   - stream MG_<dep>_RESULTS (work queue), subjects
//     mg.<dep>.result.<job>.<kind>.<key>, one consumer per job, acked
//     only after the graph commit;
//   - stream MG_<dep>_ADVISORIES capturing the MAX_DELIVERIES advisories
//     of the task consumers: each becomes a failure outcome;
//   - key-value bucket mg_<dep>_workers: worker presence (for the status
//     route), entries expire after WorkerTTL;
//   - subject mg.<dep>.cancel: running units of a cancelled job stop.
//
// WorkerPermissions are the least privileges of the workers' NATS user
// (the coordinator's has every permission, in process only).
//
// StartEmbedded runs a nats-server inside the serving process. Only this
// package and cmd/molgraph import nats-io.
package jsq
