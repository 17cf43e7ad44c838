package jsq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/molgraph/molgraph/jobs/queue"
)

// Config names a deployment's streams and sets their limits.
type Config struct {
	// Deployment keeps deployments sharing a NATS cluster apart (a token:
	// letters, digits, '-', '_').
	Deployment string
	// Replicas of the streams (1 embedded, 3 on a cluster); consumers
	// inherit them.
	Replicas int
	queue.Options
	// ResultAckWait: an outcome delivered to the committer and not
	// acknowledged is delivered again after it (default 5m).
	ResultAckWait time.Duration
	// ResultMaxAge: an outcome nobody consumed is dropped after it
	// (default 24h). Outcomes of a cancelled or finished job (a worker
	// that finished a unit after the purge, a redelivered duplicate)
	// have no consumer; without an age they would stay until the stream
	// is full, and then no worker could publish. Dropping one is safe:
	// the coordinator republishes every pending unit at start and on a
	// stall, so an outcome lost while it was down is docked again.
	ResultMaxAge time.Duration
	// MaxAckPending of a task consumer: at least the slots of all
	// workers of that kind (default 100,000).
	MaxAckPending int
	// MaxBytes bounds the task and the result stream each (default 1 GiB).
	MaxBytes int64
	// WorkerTTL: a worker that stops refreshing its presence is gone
	// after it (default 30s).
	WorkerTTL time.Duration
	// SetupTimeout bounds the retries of New's stream setup (default 1m).
	SetupTimeout time.Duration
	Logger       *slog.Logger
}

func (c Config) withDefaults() Config {
	c.Options = c.Options.WithDefaults()
	if c.Deployment == "" {
		c.Deployment = "default"
	}
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	if c.ResultAckWait <= 0 {
		c.ResultAckWait = 5 * time.Minute
	}
	if c.ResultMaxAge <= 0 {
		c.ResultMaxAge = 24 * time.Hour
	}
	if c.MaxAckPending <= 0 {
		c.MaxAckPending = 100_000
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 1 << 30
	}
	if c.WorkerTTL <= 0 {
		c.WorkerTTL = 30 * time.Second
	}
	if c.SetupTimeout <= 0 {
		c.SetupTimeout = time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Queue is the coordinator's side of the JetStream work list. It
// implements queue.Queue.
type Queue struct {
	cfg Config
	n   names
	nc  *nats.Conn
	js  jetstream.JetStream

	stop context.CancelFunc
	wg   sync.WaitGroup
	// GaveUp counts the advisories turned into failure outcomes.
	mu     sync.Mutex
	gaveUp int
}

// Setup creates or updates the deployment's streams and buckets; the task
// consumers of each kind and engine are created by Enqueue (workers bind
// them).
func Setup(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	cfg = cfg.withDefaults()
	n := names{token(cfg.Deployment)}
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: n.tasks(), Subjects: []string{"mg." + n.dep + ".task.>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: cfg.Replicas,
		Discard: jetstream.DiscardNew, DiscardNewPerSubject: true, MaxMsgsPerSubject: 1, MaxBytes: cfg.MaxBytes,
		MaxMsgSize: 8 << 20})
	if err != nil {
		return fmt.Errorf("jsq: tasks stream: %w", err)
	}
	_, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: n.results(), Subjects: []string{"mg." + n.dep + ".result.>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: cfg.Replicas,
		Discard: jetstream.DiscardNew, MaxBytes: cfg.MaxBytes, MaxMsgSize: 8 << 20, Duplicates: min(10*time.Minute, cfg.ResultMaxAge),
		MaxAge: cfg.ResultMaxAge})
	if err != nil {
		return fmt.Errorf("jsq: results stream: %w", err)
	}
	_, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: n.advisories(), Subjects: []string{n.advisorySubjects()},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: cfg.Replicas, MaxBytes: 64 << 20})
	if err != nil {
		return fmt.Errorf("jsq: advisories stream: %w", err)
	}
	_, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.workers(), TTL: cfg.WorkerTTL,
		Replicas: cfg.Replicas, Storage: jetstream.MemoryStorage})
	if err != nil {
		return fmt.Errorf("jsq: workers bucket: %w", err)
	}
	_, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: n.inputs(), Replicas: cfg.Replicas,
		Storage: jetstream.FileStorage, MaxBytes: 4 << 30})
	if err != nil {
		return fmt.Errorf("jsq: inputs object store: %w", err)
	}
	return nil
}

// New sets up the deployment's streams over nc and returns its queue; it
// turns MAX_DELIVERIES advisories into failure outcomes until Close.
func New(ctx context.Context, nc *nats.Conn, cfg Config) (*Queue, error) {
	cfg = cfg.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jsq: %w", err)
	}
	// A cluster that is starting has no JetStream leader yet: retry.
	for end := time.Now().Add(cfg.SetupTimeout); ; {
		err := Setup(ctx, js, cfg)
		if err == nil {
			break
		}
		if time.Now().After(end) {
			return nil, err
		}
		cfg.Logger.Warn("jsq: setting up the streams; retrying", "err", err)
		if !sleep(ctx, time.Second) {
			return nil, ctx.Err()
		}
	}
	q := &Queue{cfg: cfg, n: names{token(cfg.Deployment)}, nc: nc, js: js}
	actx, stop := context.WithCancel(context.Background())
	q.stop = stop
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		q.advisories(actx)
	}()
	return q, nil
}

// isTaken reports a publish rejected because the unit's subject already
// holds a message (DiscardNewPerSubject).
func isTaken(err error) bool {
	return err != nil && strings.Contains(err.Error(), "maximum messages per subject exceeded")
}

// Enqueue implements queue.Queue: one message per unit on its own subject;
// the server rejects a unit whose subject is taken.
func (q *Queue) Enqueue(ctx context.Context, units []queue.Unit) (int, error) {
	const window = 256
	added := 0
	if err := q.taskConsumers(ctx, units); err != nil {
		return 0, err
	}
	for start := 0; start < len(units); start += window {
		end := min(start+window, len(units))
		futs := make([]jetstream.PubAckFuture, 0, end-start)
		for _, u := range units[start:end] {
			data, err := json.Marshal(u)
			if err != nil {
				return added, err
			}
			f, err := q.js.PublishAsync(q.n.taskSubject(u.Kind, u.Engine, u.Job, u.Key), data)
			if err != nil {
				return added, fmt.Errorf("jsq: enqueue: %w", err)
			}
			futs = append(futs, f)
		}
		for _, f := range futs {
			select {
			case <-f.Ok():
				added++
			case err := <-f.Err():
				if !isTaken(err) {
					return added, fmt.Errorf("jsq: enqueue: %w", err)
				}
			case <-ctx.Done():
				return added, ctx.Err()
			}
		}
	}
	return added, nil
}

// taskConsumers creates (or updates to this coordinator's settings) the
// durable consumer of each kind and engine among units: workers only
// bind them. At every Enqueue, not once: a wiped or recreated stream
// loses its consumers.
func (q *Queue) taskConsumers(ctx context.Context, units []queue.Unit) error {
	done := map[string]bool{}
	for _, u := range units {
		name := q.n.taskConsumer(u.Kind, u.Engine)
		if done[name] {
			continue
		}
		done[name] = true
		_, err := q.js.CreateOrUpdateConsumer(ctx, q.n.tasks(), jetstream.ConsumerConfig{Durable: name,
			FilterSubject: q.n.taskFilter(u.Kind, u.Engine), AckPolicy: jetstream.AckExplicitPolicy, AckWait: q.cfg.AckWait,
			MaxDeliver: q.cfg.MaxDeliver, MaxAckPending: q.cfg.MaxAckPending})
		if err != nil {
			return fmt.Errorf("jsq: enqueue: task consumer %s: %w", name, err)
		}
	}
	return nil
}

// Outcomes implements queue.Queue with the durable consumer res-<job>.
func (q *Queue) Outcomes(ctx context.Context, job quad.IRI) (<-chan queue.Outcome, error) {
	cons, err := q.js.CreateOrUpdateConsumer(ctx, q.n.results(), jetstream.ConsumerConfig{Durable: q.n.resultConsumer(job),
		FilterSubject: q.n.jobResults(job), AckPolicy: jetstream.AckExplicitPolicy, AckWait: q.cfg.ResultAckWait,
		MaxAckPending: 10_000, InactiveThreshold: time.Hour})
	if err != nil {
		return nil, fmt.Errorf("jsq: outcomes of %s: %w", job, err)
	}
	ch := make(chan queue.Outcome)
	go func() {
		defer close(ch)
		var mu sync.Mutex
		open := map[jetstream.Msg]bool{} // delivered, not Done
		defer func() {
			mu.Lock()
			defer mu.Unlock()
			for m := range open {
				_ = m.Nak() // delivered again at once to the next consumer
			}
		}()
		for ctx.Err() == nil {
			b, err := cons.Fetch(256, jetstream.FetchMaxWait(time.Second))
			if err != nil {
				if ctx.Err() == nil {
					q.cfg.Logger.Warn("jsq: fetch outcomes", "job", job, "err", err)
					sleep(ctx, time.Second)
				}
				continue
			}
			for m := range b.Messages() {
				var o queue.Outcome
				if err := json.Unmarshal(m.Data(), &o); err != nil || o.Job != job {
					q.cfg.Logger.Warn("jsq: bad outcome dropped", "subject", m.Subject(), "err", err)
					_ = m.Term()
					continue
				}
				if md, err := m.Metadata(); err == nil {
					o.Delivery = int(md.NumDelivered)
				}
				msg := m
				mu.Lock()
				open[msg] = true
				mu.Unlock()
				o.Done = func() error {
					mu.Lock()
					delete(open, msg)
					mu.Unlock()
					actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					return msg.DoubleAck(actx)
				}
				select {
				case ch <- o:
				case <-ctx.Done():
				}
			}
		}
	}()
	return ch, nil
}

// Cancel implements queue.Queue: the job's tasks and results are purged,
// its results consumer deleted, and workers told to stop its units.
func (q *Queue) Cancel(ctx context.Context, job quad.IRI) error {
	ts, err := q.js.Stream(ctx, q.n.tasks())
	if err == nil {
		err = ts.Purge(ctx, jetstream.WithPurgeSubject(q.n.jobTasks(job)))
	}
	if err != nil {
		return fmt.Errorf("jsq: cancel %s: %w", job, err)
	}
	_ = q.nc.Publish(q.n.cancel(), []byte(job))
	rs, err := q.js.Stream(ctx, q.n.results())
	if err == nil {
		err = rs.Purge(ctx, jetstream.WithPurgeSubject(q.n.jobResults(job)))
	}
	if err != nil {
		return fmt.Errorf("jsq: cancel %s: %w", job, err)
	}
	if err := q.js.DeleteConsumer(ctx, q.n.results(), q.n.resultConsumer(job)); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("jsq: cancel %s: %w", job, err)
	}
	return nil
}

// Stats implements queue.Queue. InFlight is counted over all jobs (the
// task consumers do not know jobs).
func (q *Queue) Stats(ctx context.Context, job quad.IRI) (queue.Stats, error) {
	var s queue.Stats
	tf, rf := "mg."+q.n.dep+".task.>", "mg."+q.n.dep+".result.>"
	if job != "" {
		tf, rf = q.n.jobTasks(job), q.n.jobResults(job)
	}
	ts, err := q.js.Stream(ctx, q.n.tasks())
	if err != nil {
		return s, err
	}
	info, err := ts.Info(ctx, jetstream.WithSubjectFilter(tf))
	if err != nil {
		return s, err
	}
	for _, n := range info.State.Subjects {
		s.Queued += int(n)
	}
	if job == "" {
		cl := ts.ListConsumers(ctx)
		for ci := range cl.Info() {
			s.InFlight += ci.NumAckPending
		}
	}
	rs, err := q.js.Stream(ctx, q.n.results())
	if err != nil {
		return s, err
	}
	if info, err = rs.Info(ctx, jetstream.WithSubjectFilter(rf)); err != nil {
		return s, err
	}
	for _, n := range info.State.Subjects {
		s.Outcomes += int(n)
	}
	return s, nil
}

// GaveUp counts the units given up after MaxDeliver deliveries so far.
func (q *Queue) GaveUp() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.gaveUp
}

// advisories turns each MAX_DELIVERIES advisory of a task consumer into a
// failure outcome and deletes the task (a work queue keeps a message past
// MaxDeliver).
func (q *Queue) advisories(ctx context.Context) {
	cons, err := q.js.CreateOrUpdateConsumer(ctx, q.n.advisories(), jetstream.ConsumerConfig{Durable: "coordinator",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute})
	for err != nil {
		q.cfg.Logger.Warn("jsq: advisories consumer", "err", err)
		if !sleep(ctx, 2*time.Second) {
			return
		}
		cons, err = q.js.CreateOrUpdateConsumer(ctx, q.n.advisories(), jetstream.ConsumerConfig{Durable: "coordinator",
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute})
	}
	for ctx.Err() == nil {
		b, err := cons.Fetch(64, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			sleep(ctx, time.Second)
			continue
		}
		for m := range b.Messages() {
			if err := q.giveUp(ctx, m.Data()); err != nil {
				q.cfg.Logger.Warn("jsq: max deliveries advisory", "err", err)
				_ = m.NakWithDelay(2 * time.Second)
				continue
			}
			_ = m.Ack()
		}
	}
}

func (q *Queue) giveUp(ctx context.Context, data []byte) error {
	var adv struct {
		Stream     string `json:"stream"`
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries int    `json:"deliveries"`
	}
	if err := json.Unmarshal(data, &adv); err != nil || adv.Stream != q.n.tasks() {
		return nil // not ours: dropped
	}
	ts, err := q.js.Stream(ctx, q.n.tasks())
	if err != nil {
		return err
	}
	raw, err := ts.GetMsg(ctx, adv.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil // acked late, purged or handled already
	} else if err != nil {
		return err
	}
	var u queue.Unit
	if err := json.Unmarshal(raw.Data, &u); err != nil {
		return ts.DeleteMsg(ctx, adv.StreamSeq)
	}
	o := queue.Outcome{Kind: u.Kind, Key: u.Key, Job: u.Job, Runs: adv.Deliveries, Failure: queue.GaveUp(adv.Deliveries)}
	if err := q.publishOutcome(ctx, o); err != nil {
		return err
	}
	q.mu.Lock()
	q.gaveUp++
	q.mu.Unlock()
	if err := ts.DeleteMsg(ctx, adv.StreamSeq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return err
	}
	return nil
}

func (q *Queue) publishOutcome(ctx context.Context, o queue.Outcome) error {
	return publishOutcome(ctx, q.js, q.n, o)
}

// publishOutcome publishes o and waits for the stream's ack (retried with
// the same message id: the stream drops a copy within its duplicate
// window, the commit drops any later one).
func publishOutcome(ctx context.Context, js jetstream.JetStream, n names, o queue.Outcome) error {
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	var last error
	for try := 0; try < 5; try++ {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, last = js.Publish(pctx, n.resultSubject(o.Job, o.Kind, o.Key), data, jetstream.WithMsgID(msgID(o.Job, o.Kind, o.Key)))
		cancel()
		if last == nil {
			return nil
		}
		if !sleep(ctx, time.Duration(try+1)*500*time.Millisecond) {
			return ctx.Err()
		}
	}
	return fmt.Errorf("jsq: publish outcome %s/%s: %w", o.Job, o.Key, last)
}

// Close stops the advisory handler; nc stays open (the caller's).
func (q *Queue) Close() error {
	q.stop()
	q.wg.Wait()
	return nil
}

// sleep waits d or until ctx ends (false then).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
