// Package jobs is molgraph's durable job runner: background jobs (batch
// uploads now, docking later) whose whole state lives in the graph, so that a
// restarted process resumes every unfinished job where its last committed
// chunk ended.
//
// # State
//
// A job is the named graph <BASE>id/<kind>/<id> holding one node of the
// job's class (mg:BatchUploadJob, ...), which is also a prov:Activity:
//
//	J a <class>, prov:Activity ; mg:status "queued"|"running"|"succeeded"|"failed"|"cancelled" ;
//	  mg:createdAt ; prov:startedAtTime ; prov:endedAtTime ; mg:errorMessage ;
//	  mg:sourceFile F ; <kind-specific properties: counters, parameters> .
//	F a mg:File ; mg:sha256 ; mg:byteSize ; mg:mediaType ; mg:fileName .
//
// # Work and commits
//
// What a job does is behind the small Task interface: the Runner knows the
// lifecycle (queue, start, resume, cancel, finish), a Task knows one kind of
// work. Task.Run continues a job from its committed properties and calls
// commit after each chunk with the chunk's graphs (registered molecules,
// item records) and the job's new properties (progress counters). The runner
// writes both with one graph.Store.PutGraphs call that fits in one
// transaction, so progress and data become durable together: after a crash
// the job resumes from the last commit, and the records of an interrupted
// chunk are neither lost nor counted twice.
//
// # Lifecycle
//
// Submit stores a job as queued and queues it. Start resumes every job whose
// stored status is queued or running and starts the workers: one pool per
// job class (Options.Workers, ClassWorkers), so that a docking job that runs
// for an hour never holds up a ten-record batch upload. Cancel marks a
// queued job cancelled at once, or stops a running one after its current
// commit (what was committed stays); SetOnEnd hears of every job that ends,
// whichever way. Close stops the workers; running jobs
// keep their "running" status and resume at the next Start.
//
// # Admission
//
// Submit refuses a job (QuotaError, ErrTooManyJobs; nothing is stored) when
// its owner (WithOwner: the API key id) already has
// Options.MaxUnfinishedPerOwner queued or running jobs, or the runner has
// Options.MaxUnfinished. Owners live in memory only: jobs resumed at Start
// count against the overall cap alone. Admit asks the same question without
// submitting, so that a handler can refuse before it spools an upload.
//
// There are no init-time registries: the Tasks are passed to NewRunner.
package jobs
