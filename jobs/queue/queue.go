// Package queue is the work list between the jobs that plan units of work
// (ligands to dock, blocks of records to prepare) and the executors that
// run them, with the same semantics in one process (Local) and across
// machines (package jsq, NATS JetStream):
//
//   - Enqueue is idempotent: a unit whose key is still queued (or running
//     unacknowledged) is skipped, so "republish every pending unit" is a
//     safe reconcile after a restart or a lost stream.
//   - Delivery is at least once: a unit whose worker dies is delivered
//     again after the ack wait, a worker fault returns it after a delay,
//     and after MaxDeliver deliveries it becomes a failure outcome.
//   - Outcomes are delivered until their Done is called, which the single
//     writer does only after committing them; the commit drops an outcome
//     that is already stored. "Exactly one outcome per unit" comes from
//     that commit, never from the queue.
//
// The shared conformance suite is package queuetest.
package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/cayleygraph/quad"
)

// Unit is one unit of work. Key identifies it within its job (a ligand
// id, a block index); Engine is the fingerprint of the executor that may
// run it (a worker built differently never receives it).
type Unit struct {
	Kind   string   `json:"kind"`
	Key    string   `json:"key"`
	Engine string   `json:"engine"`
	Job    quad.IRI `json:"job"`
	Body   []byte   `json:"body"`
}

// Outcome is the result of a unit: Body from the executor, or Failure when
// the queue gave the unit up (MaxDeliver). Delivery counts the deliveries
// of the outcome to the committer. Done acknowledges it; call it only
// after the outcome is durably committed (or dropped as a duplicate).
type Outcome struct {
	Kind     string       `json:"kind"`
	Key      string       `json:"key"`
	Job      quad.IRI     `json:"job"`
	Worker   string       `json:"worker,omitempty"`
	Engine   string       `json:"engine,omitempty"` // the fingerprint of the worker that ran it
	Runs     int          `json:"runs,omitempty"`   // deliveries of the unit to executors
	Body     []byte       `json:"body,omitempty"`
	Failure  string       `json:"failure,omitempty"`
	Delivery int          `json:"-"`
	Done     func() error `json:"-"`
}

// Queue is the coordinator's side of the work list.
type Queue interface {
	// Enqueue adds units; a unit whose (job, kind, key) is still queued
	// or unacknowledged is skipped. It returns how many were added.
	Enqueue(ctx context.Context, units []Unit) (added int, err error)
	// Outcomes delivers the outcomes of job's units until ctx ends; the
	// channel is closed then. Outcomes not Done by then are delivered
	// again to the next call.
	Outcomes(ctx context.Context, job quad.IRI) (<-chan Outcome, error)
	// Cancel drops job's queued units and outcomes and asks workers to
	// stop its running units.
	Cancel(ctx context.Context, job quad.IRI) error
	// Stats counts the queued and running units of job ("" = all jobs).
	Stats(ctx context.Context, job quad.IRI) (Stats, error)
	Close() error
}

// Stats counts units.
type Stats struct {
	Queued   int `json:"queued"`   // waiting or running, not yet acknowledged
	InFlight int `json:"inFlight"` // delivered to a worker, not yet acknowledged
	Outcomes int `json:"outcomes"` // outcomes waiting for the committer
}

// Executor runs one unit on a worker (runs counts its deliveries, from
// 1) and returns the outcome body. A unit's own failure (a ligand vina
// cannot dock) belongs in the body; an error means the worker could not
// run it: wrap ErrFault to have it tried again after a delay (another
// worker may succeed), return ErrAbandon (or stop because ctx ended) to
// leave it unacknowledged, so it is delivered again after the ack wait.
type Executor func(ctx context.Context, u Unit, runs int) ([]byte, error)

// Errors of executors.
var (
	// ErrFault: the worker cannot run the unit now (vina missing, disk
	// full); the unit is returned after Options.NakDelay.
	ErrFault = errors.New("worker fault")
	// ErrAbandon: the worker gives the unit up without a word (fenced off,
	// dying): it is delivered again after the ack wait.
	ErrAbandon = errors.New("unit abandoned")
)

// Worker runs units of some kinds with an executor each, Slots at a time.
type Worker interface {
	// Serve runs units until ctx ends, then stops fetching, lets running
	// units finish for the drain time and returns the rest to the queue.
	Serve(ctx context.Context) error
}

// Options are the delivery settings both implementations honour.
type Options struct {
	AckWait    time.Duration // a silent unit is delivered again after it (default 60s)
	NakDelay   time.Duration // a faulted unit waits this long (default 30s)
	MaxDeliver int           // deliveries before the unit fails (default 5)
}

// WithDefaults fills zero fields.
func (o Options) WithDefaults() Options {
	if o.AckWait <= 0 {
		o.AckWait = 60 * time.Second
	}
	if o.NakDelay <= 0 {
		o.NakDelay = 30 * time.Second
	}
	if o.MaxDeliver <= 0 {
		o.MaxDeliver = 5
	}
	return o
}

// GaveUp is the failure of a unit delivered MaxDeliver times.
func GaveUp(n int) string { return "gave up after " + strconv.Itoa(n) + " deliveries" }

// Inputs stores the large inputs the units of a job share (a receptor),
// under their SHA-256, so units carry the digest only.
type Inputs interface {
	PutInput(ctx context.Context, data []byte) (sha string, err error)
	GetInput(ctx context.Context, sha string) ([]byte, error)
}

// MemInputs is Inputs in memory (the in-process queue's).
type MemInputs struct {
	mu sync.Mutex
	m  map[string][]byte
}

// PutInput implements Inputs.
func (m *MemInputs) PutInput(ctx context.Context, data []byte) (string, error) {
	h := sha256.Sum256(data)
	sha := hex.EncodeToString(h[:])
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string][]byte{}
	}
	m.m[sha] = data
	return sha, nil
}

// GetInput implements Inputs.
func (m *MemInputs) GetInput(ctx context.Context, sha string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.m[sha]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("%w: input %s not found", ErrFault, sha)
}

// Retry calls fn until it succeeds or ctx ends, waiting 1 s, 2 s, 4 s …
// (at most 15 s) between calls and logging each failure on log: queue
// errors (NATS unreachable, a stream leader moving) stall a job, never
// fail it. It returns nil, or ctx's error once ctx has ended.
func Retry(ctx context.Context, log *slog.Logger, what string, fn func() error) error {
	for wait := time.Second; ; wait = min(2*wait, 15*time.Second) {
		err := fn()
		if err == nil || ctx.Err() != nil {
			return err
		}
		log.Warn("queue unreachable; retrying", "op", what, "err", err, "in", wait.String())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// EnqueueRetrying is q.Enqueue(ctx, units) retried as Retry does (the
// step every queued job takes at its start and after a stall): it returns
// how many units were added.
func EnqueueRetrying(ctx context.Context, log *slog.Logger, q Queue, units []Unit) (int, error) {
	var n int
	err := Retry(ctx, log, "enqueue", func() (err error) {
		n, err = q.Enqueue(ctx, units)
		return err
	})
	return n, err
}

// OutcomesRetrying is q.Outcomes(ctx, job) retried as Retry does.
func OutcomesRetrying(ctx context.Context, log *slog.Logger, q Queue, job quad.IRI) (<-chan Outcome, error) {
	var outs <-chan Outcome
	err := Retry(ctx, log, "outcomes", func() (err error) {
		outs, err = q.Outcomes(ctx, job)
		return err
	})
	return outs, err
}
