package jsq

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/molgraph/molgraph/jobs/queue"
)

// Worker runs units fetched from the deployment's task stream; it
// implements queue.Worker. It binds the durable task consumer of each of
// its kinds and its engine (the coordinator's Enqueue creates them:
// WorkerPermissions allow no consumer change), fetches only as many
// units as it has free slots (never a buffered consumer: buffered units
// would age against the ack wait), sends a heartbeat (InProgress) every
// AckWait/3 while a unit runs, publishes the outcome and waits for the
// stream's ack before acknowledging the unit, and fences itself (stops
// its units without acknowledging them) when cut off from NATS for
// AckWait/2. AckWait is the consumers' (the coordinator's setting) when
// shorter than its Config's.
type Worker struct {
	NC     *nats.Conn
	Config Config
	Name   string // presence key and outcome provenance
	Host   string
	Slots  int
	Engine string
	Exec   map[string]queue.Executor
	// Drain is how long running units may finish after ctx ends; the
	// rest are handed back at once (Nak).
	Drain time.Duration

	mu      sync.Mutex
	running map[*run]bool
	done    int
}

type run struct {
	job     quad.IRI
	cancel  context.CancelCauseFunc
	stopped bool
}

var (
	errFenced    = errors.New("cut off from NATS: unit abandoned")
	errCancelled = errors.New("job cancelled")
	errDrained   = errors.New("worker draining")
)

// Done counts the units this worker completed (outcome published and
// acknowledged).
func (w *Worker) Done() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

// Presence is what a worker publishes about itself in the workers bucket.
type Presence struct {
	Name    string    `json:"name"`
	Host    string    `json:"host"`
	Slots   int       `json:"slots"`
	Busy    int       `json:"busy"`
	Engine  string    `json:"engine"`
	Kinds   []string  `json:"kinds"`
	Done    int       `json:"done"`
	Started time.Time `json:"started"`
}

// Serve implements queue.Worker.
func (w *Worker) Serve(ctx context.Context) error {
	cfg := w.Config.withDefaults()
	n := names{token(cfg.Deployment)}
	js, err := jetstream.New(w.NC)
	if err != nil {
		return err
	}
	slots := max(1, w.Slots)
	w.running = map[*run]bool{}
	// The coordinator creates the task consumers (Enqueue): a worker
	// binds them, it has no permission to create or change one. Until
	// the first unit of its kind and engine is queued there is nothing
	// to bind: it tries again.
	cons := map[string]jetstream.Consumer{}
	var kinds []string
	for kind := range w.Exec {
		kinds = append(kinds, kind)
	}
	slices.Sort(kinds)
	waiting := map[string]bool{}
	// The ack wait is the consumers' (the coordinator's setting), or
	// this worker's when shorter: heartbeats and fencing follow it.
	var ackWait atomic.Int64
	ackWait.Store(int64(cfg.AckWait))
	bind := func() {
		for _, kind := range kinds {
			if cons[kind] != nil {
				continue
			}
			c, err := js.Consumer(ctx, n.tasks(), n.taskConsumer(kind, w.Engine))
			if err != nil {
				if !waiting[kind] && ctx.Err() == nil {
					waiting[kind] = true
					cfg.Logger.Info("jsq: worker: no task consumer yet (no unit of this kind and engine queued); retrying",
						"kind", kind, "engine", w.Engine, "err", err)
				}
				continue
			}
			waiting[kind] = false
			cons[kind] = c
			if a := c.CachedInfo().Config.AckWait; a > 0 && int64(a) < ackWait.Load() {
				ackWait.Store(int64(a))
			}
		}
	}
	sub, err := w.NC.Subscribe(n.cancel(), func(m *nats.Msg) { w.stopJob(quad.IRI(m.Data), errCancelled) })
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()

	bg, stopBg := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBg()
	var bgwg sync.WaitGroup
	defer bgwg.Wait()
	defer stopBg()
	// Presence and fencing.
	started := time.Now()
	bgwg.Add(1)
	go func() {
		defer bgwg.Done()
		kv, _ := js.KeyValue(bg, n.workers())
		var downSince time.Time
		tick := time.NewTicker(min(cfg.AckWait/10, cfg.WorkerTTL/3))
		defer tick.Stop()
		lastPresence := time.Time{}
		for {
			if w.NC.Status() != nats.CONNECTED {
				if downSince.IsZero() {
					downSince = time.Now()
				} else if time.Since(downSince) > time.Duration(ackWait.Load())/2 {
					if n := w.stopAll(errFenced); n > 0 {
						cfg.Logger.Warn("cut off from NATS: units stopped without an ack (another worker gets them)", "units", n)
					}
				}
			} else {
				downSince = time.Time{}
				if kv != nil && time.Since(lastPresence) > cfg.WorkerTTL/3 {
					w.mu.Lock()
					p := Presence{Name: w.Name, Host: w.Host, Slots: slots, Busy: len(w.running), Engine: w.Engine,
						Kinds: kinds, Done: w.done, Started: started}
					w.mu.Unlock()
					data, _ := json.Marshal(p)
					if _, err := kv.Put(bg, token(w.Name), data); err == nil {
						lastPresence = time.Now()
					}
				} else if kv == nil {
					kv, _ = js.KeyValue(bg, n.workers())
				}
			}
			select {
			case <-bg.Done():
				if kv != nil {
					dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
					_ = kv.Delete(dctx, token(w.Name))
					cancel()
				}
				return
			case <-tick.C:
			}
		}
	}()

	sem := make(chan struct{}, slots)
	var wg sync.WaitGroup
	defer func() {
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(w.Drain):
			w.stopAll(errDrained)
			<-done
		}
	}()
	for ctx.Err() == nil {
		bind()
		if len(cons) == 0 {
			sleep(ctx, time.Second)
			continue
		}
		for kind, c := range cons {
			free := slots - len(sem)
			if free == 0 {
				select {
				case sem <- struct{}{}:
					<-sem
				case <-ctx.Done():
					return nil
				}
				free = slots - len(sem)
			}
			wait := time.Second
			if len(cons) == 1 {
				wait = 5 * time.Second
			}
			b, err := c.Fetch(free, jetstream.FetchMaxWait(wait))
			if err != nil {
				sleep(ctx, time.Second)
				continue
			}
			for m := range b.Messages() {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					w.runOne(bg, js, n, cfg, time.Duration(ackWait.Load()), kind, m)
				}()
			}
			if err := b.Error(); errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, nats.ErrNoResponders) {
				delete(cons, kind) // bound again once the coordinator recreates it
			}
		}
	}
	return nil
}

func (w *Worker) stopJob(job quad.IRI, cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for r := range w.running {
		if r.job == job {
			r.cancel(cause)
		}
	}
}

// stopAll stops every running unit not stopped yet and returns how many.
func (w *Worker) stopAll(cause error) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for r := range w.running {
		if !r.stopped {
			r.stopped = true
			r.cancel(cause)
			n++
		}
	}
	return n
}

// runOne runs the unit of message m.
func (w *Worker) runOne(ctx context.Context, js jetstream.JetStream, n names, cfg Config, ackWait time.Duration, kind string, m jetstream.Msg) {
	var u queue.Unit
	if err := json.Unmarshal(m.Data(), &u); err != nil || u.Kind != kind {
		_ = m.Term() // not a unit: never deliver it again
		return
	}
	runs := 1
	if md, err := m.Metadata(); err == nil {
		runs = int(md.NumDelivered)
	}
	uctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := &run{job: u.Job, cancel: cancel}
	w.mu.Lock()
	w.running[r] = true
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.running, r)
		w.mu.Unlock()
	}()
	// Heartbeats keep a long unit from being redelivered.
	hb := make(chan struct{})
	go func() {
		t := time.NewTicker(ackWait / 3)
		defer t.Stop()
		for {
			select {
			case <-hb:
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	body, err := w.Exec[kind](uctx, u, runs)
	close(hb)
	cause := context.Cause(uctx)
	switch {
	case errors.Is(cause, errCancelled):
		_ = m.Term()
		return
	case errors.Is(cause, errFenced), errors.Is(err, queue.ErrAbandon):
		return // no ack: delivered again after the ack wait
	case errors.Is(cause, errDrained):
		_ = m.Nak()
		return
	case err != nil:
		_ = m.NakWithDelay(cfg.NakDelay)
		return
	}
	o := queue.Outcome{Kind: u.Kind, Key: u.Key, Job: u.Job, Worker: w.Name, Engine: w.Engine, Runs: runs, Body: body}
	if err := publishOutcome(ctx, js, n, o); err != nil {
		return // not acked: delivered again
	}
	actx, acancel := context.WithTimeout(ctx, 10*time.Second)
	defer acancel()
	if err := m.DoubleAck(actx); err == nil {
		w.mu.Lock()
		w.done++
		w.mu.Unlock()
	}
}

// Workers lists the live workers of the deployment.
func Workers(ctx context.Context, nc *nats.Conn, deployment string) ([]Presence, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	n := names{token(deployment)}
	kv, err := js.KeyValue(ctx, n.workers())
	if err != nil {
		return nil, err
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []Presence
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue
		}
		var p Presence
		if json.Unmarshal(e.Value(), &p) == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// DeploymentStatus is what `molgraph workers` and the status route show.
type DeploymentStatus struct {
	Workers []Presence  `json:"workers"`
	Units   queue.Stats `json:"units"`
}

// Status reads the live workers and the unit counts of a deployment
// without changing anything.
func Status(ctx context.Context, nc *nats.Conn, cfg Config) (DeploymentStatus, error) {
	cfg = cfg.withDefaults()
	var st DeploymentStatus
	ws, err := Workers(ctx, nc, cfg.Deployment)
	if err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		return st, err
	}
	st.Workers = ws
	js, err := jetstream.New(nc)
	if err != nil {
		return st, err
	}
	q := &Queue{cfg: cfg, n: names{token(cfg.Deployment)}, nc: nc, js: js}
	st.Units, err = q.Stats(ctx, "")
	return st, err
}
