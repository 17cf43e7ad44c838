package jsq

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/molgraph/molgraph/jobs/queue"
)

// auth is an embedded server with serve's two users.
type auth struct {
	s          *server.Server
	url        string
	dep        string
	coordOpt   nats.Option
	workerSeed []byte
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startAuth starts an embedded server listening on loopback with the
// coordinator (in process) and a worker user of deployment dep.
func startAuth(t *testing.T, dep string) *auth {
	t.Helper()
	coord, coordOpt, err := NewCoordinator()
	if err != nil {
		t.Fatal(err)
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	pub, _ := kp.PublicKey()
	perms := WorkerPermissions(dep)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Listen: addr,
		Users: []User{coord, {Nkey: pub, Permissions: &perms}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return &auth{s: s, url: "nats://" + addr, dep: dep, coordOpt: coordOpt, workerSeed: seed}
}

func (a *auth) coordinator(t *testing.T) *nats.Conn {
	t.Helper()
	nc, err := ConnectInProcess(a.s, "coordinator", a.coordOpt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// worker connects with the worker user through the listener, as
// `molgraph worker` does; denied returns the subjects the server refused
// it so far.
func (a *auth) worker(t *testing.T, name string) (nc *nats.Conn, denied func() []string) {
	t.Helper()
	kp, err := nkeys.FromSeed(a.workerSeed)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	var mu sync.Mutex
	var errs []string
	nc, err = nats.Connect(a.url, nats.Name(name), nats.Nkey(pub, kp.Sign), nats.CustomInboxPrefix(WorkerInbox(a.dep)),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) {
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), errs...)
	}
}

// TestCoordinatorInProcessOnly: the coordinator's user (every
// permission) cannot come in through the listener, even with its key.
func TestCoordinatorInProcessOnly(t *testing.T) {
	coord, coordOpt, err := NewCoordinator()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Listen: addr, Users: []User{coord}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if nc, err := nats.Connect("nats://"+addr, coordOpt, nats.MaxReconnects(0)); err == nil {
		nc.Close()
		t.Fatal("the coordinator's user connected through the listener")
	}
	nc, err := ConnectInProcess(s, "coordinator", coordOpt)
	if err != nil {
		t.Fatalf("in process: %v", err)
	}
	nc.Close()
}

// TestWorkerPermissions: with the workers' user a worker runs a unit end
// to end (bind, fetch, heartbeat, outcome, ack, presence, status), and
// every request that would change the deployment or read outcomes is
// refused by the server and changes nothing.
func TestWorkerPermissions(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Deployment: "perm", Options: queue.Options{AckWait: 3 * time.Second, MaxDeliver: 3}}
	a := startAuth(t, cfg.Deployment)
	nc := a.coordinator(t)
	q, err := New(ctx, nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	job := quad.IRI("http://x/job/perm")
	other := quad.IRI("http://x/job/other")
	if n, err := q.Enqueue(ctx, []queue.Unit{{Kind: "k", Key: "u1", Engine: "e", Job: job, Body: []byte("1")}}); err != nil || n != 1 {
		t.Fatalf("enqueue: %d %v", n, err)
	}
	// The worker path, end to end, with the worker's user.
	wnc, denied := a.worker(t, "w1")
	w := &Worker{NC: wnc, Config: cfg, Name: "w1", Slots: 1, Engine: "e",
		Exec: map[string]queue.Executor{"k": func(ctx context.Context, u queue.Unit, _ int) ([]byte, error) {
			time.Sleep(1500 * time.Millisecond) // one heartbeat (ack wait / 3)
			return append([]byte("out "), u.Body...), nil
		}}}
	wctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- w.Serve(wctx) }()
	octx, ocancel := context.WithTimeout(ctx, 20*time.Second)
	ch, err := q.Outcomes(octx, job)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := <-ch
	if !ok || o.Key != "u1" || string(o.Body) != "out 1" || o.Worker != "w1" {
		t.Fatalf("outcome %+v (%v)", o, ok)
	}
	// Leave it on the results stream (not Done) for the checks below.
	ocancel()
	for range ch {
	}
	for end := time.Now().Add(10 * time.Second); w.Done() != 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the unit was not acknowledged")
		}
	}
	st, err := Status(ctx, wnc, cfg)
	if err != nil || len(st.Workers) != 1 || st.Workers[0].Name != "w1" {
		t.Fatalf("status with the worker's user: %+v %v", st, err)
	}
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if d := denied(); len(d) > 0 {
		t.Fatalf("the worker path was denied: %q", d)
	}

	// State before the attempts: a queued unit of another job, the
	// outcome waiting, the consumers.
	if _, err := q.Enqueue(ctx, []queue.Unit{{Kind: "k", Key: "o1", Engine: "e", Job: other, Body: []byte("2")}}); err != nil {
		t.Fatal(err)
	}
	cjs, _ := jetstream.New(nc)
	state := func() string {
		t.Helper()
		var b strings.Builder
		for _, name := range []string{q.n.tasks(), q.n.results(), q.n.advisories(), "KV_" + q.n.workers(), "OBJ_" + q.n.inputs()} {
			s, err := cjs.Stream(ctx, name)
			if err != nil {
				t.Fatalf("stream %s: %v", name, err)
			}
			i := s.CachedInfo()
			fmt.Fprintf(&b, "%s msgs=%d bytes=%d subjects=%v maxbytes=%d consumers=%d\n", name, i.State.Msgs, i.State.Bytes,
				i.Config.Subjects, i.Config.MaxBytes, i.State.Consumers)
		}
		for _, c := range [][2]string{{q.n.tasks(), q.n.taskConsumer("k", "e")}, {q.n.results(), q.n.resultConsumer(job)}} {
			ci, err := cjs.Consumer(ctx, c[0], c[1])
			if err != nil {
				t.Fatalf("consumer %s: %v", c[1], err)
			}
			fmt.Fprintf(&b, "%s ackwait=%s maxdeliver=%d pending=%d\n", c[1], ci.CachedInfo().Config.AckWait,
				ci.CachedInfo().Config.MaxDeliver, ci.CachedInfo().NumPending)
		}
		return b.String()
	}
	// The consumer counts the new unit a moment after the stream stored
	// it: wait for that, or the count changes between the two states.
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ci, err := cjs.Consumer(ctx, q.n.tasks(), q.n.taskConsumer("k", "e"))
		if err != nil {
			t.Fatal(err)
		}
		if ci.CachedInfo().NumPending == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("task consumer pending %d, want the unit of the other job", ci.CachedInfo().NumPending)
		}
	}
	before := state()
	cancels, err := nc.SubscribeSync(q.n.cancel())
	if err != nil {
		t.Fatal(err)
	}
	wjs, _ := jetstream.New(wnc)
	try := func(what, subject string, f func(ctx context.Context) error) {
		t.Helper()
		n := len(denied())
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		err := f(tctx)
		// The server answers a denied publish with an asynchronous
		// error; a request then times out.
		for end := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			d := denied()
			if len(d) > n && strings.Contains(strings.Join(d[n:], " "), subject) {
				break
			}
			if time.Now().After(end) {
				t.Errorf("%s: not denied (%v; denied: %q)", what, err, d[n:])
				break
			}
		}
		if err == nil && !strings.HasPrefix(what, "subscribe") && !strings.HasPrefix(what, "publish (core)") {
			t.Errorf("%s: no error", what)
		}
	}
	api := "$JS.API."
	tasks, results := q.n.tasks(), q.n.results()
	try("purge the task stream", api+"STREAM.PURGE."+tasks, func(ctx context.Context) error {
		s, err := wjs.Stream(ctx, tasks)
		if err != nil {
			return err
		}
		return s.Purge(ctx)
	})
	try("delete the task stream", api+"STREAM.DELETE."+tasks, func(ctx context.Context) error { return wjs.DeleteStream(ctx, tasks) })
	try("delete the results stream", api+"STREAM.DELETE."+results, func(ctx context.Context) error { return wjs.DeleteStream(ctx, results) })
	try("update the task stream", api+"STREAM.UPDATE."+tasks, func(ctx context.Context) error {
		_, err := wjs.UpdateStream(ctx, jetstream.StreamConfig{Name: tasks, Subjects: []string{"mg.perm.task.>"}, MaxBytes: 1})
		return err
	})
	try("delete the workers bucket", api+"STREAM.DELETE.KV_"+q.n.workers(), func(ctx context.Context) error {
		return wjs.DeleteKeyValue(ctx, q.n.workers())
	})
	try("delete a task consumer", api+"CONSUMER.DELETE."+tasks, func(ctx context.Context) error {
		return wjs.DeleteConsumer(ctx, tasks, q.n.taskConsumer("k", "e"))
	})
	try("update a task consumer", api+"CONSUMER.CREATE."+tasks, func(ctx context.Context) error {
		_, err := wjs.CreateOrUpdateConsumer(ctx, tasks, jetstream.ConsumerConfig{Durable: q.n.taskConsumer("k", "e"),
			FilterSubject: q.n.taskFilter("k", "e"), AckPolicy: jetstream.AckExplicitPolicy, MaxDeliver: 100})
		return err
	})
	try("create a task consumer", api+"CONSUMER.CREATE."+tasks, func(ctx context.Context) error {
		_, err := wjs.CreateOrUpdateConsumer(ctx, tasks, jetstream.ConsumerConfig{Durable: "spy", AckPolicy: jetstream.AckNonePolicy})
		return err
	})
	try("delete a results consumer", api+"CONSUMER.DELETE."+results, func(ctx context.Context) error {
		return wjs.DeleteConsumer(ctx, results, q.n.resultConsumer(job))
	})
	try("bind a results consumer", api+"CONSUMER.INFO."+results, func(ctx context.Context) error {
		_, err := wjs.Consumer(ctx, results, q.n.resultConsumer(job))
		return err
	})
	try("create a results consumer", api+"CONSUMER.CREATE."+results, func(ctx context.Context) error {
		_, err := wjs.CreateOrUpdateConsumer(ctx, results, jetstream.ConsumerConfig{Durable: "spy", AckPolicy: jetstream.AckNonePolicy})
		return err
	})
	try("fetch outcomes", api+"CONSUMER.MSG.NEXT."+results, func(ctx context.Context) error {
		_, err := wnc.RequestWithContext(ctx, api+"CONSUMER.MSG.NEXT."+results+"."+q.n.resultConsumer(job), []byte(`{"batch":1}`))
		return err
	})
	try("get an outcome", api+"STREAM.MSG.GET."+results, func(ctx context.Context) error {
		_, err := wnc.RequestWithContext(ctx, api+"STREAM.MSG.GET."+results, []byte(`{"seq":1}`))
		return err
	})
	try("direct get an outcome", api+"DIRECT.GET."+results, func(ctx context.Context) error {
		_, err := wnc.RequestWithContext(ctx, api+"DIRECT.GET."+results, []byte(`{"seq":1}`))
		return err
	})
	try("delete a queued unit", api+"STREAM.MSG.DELETE."+tasks, func(ctx context.Context) error {
		s, err := wjs.Stream(ctx, tasks)
		if err != nil {
			return err
		}
		return s.DeleteMsg(ctx, 1)
	})
	try("publish a task", q.n.taskSubject("k", "e", other, "forged"), func(ctx context.Context) error {
		_, err := wjs.Publish(ctx, q.n.taskSubject("k", "e", other, "forged"), []byte(`{"kind":"k","key":"forged"}`))
		return err
	})
	try("publish (core) a cancellation", q.n.cancel(), func(ctx context.Context) error {
		return wnc.Publish(q.n.cancel(), []byte(other))
	})
	try("publish (core) an input chunk", "$O."+q.n.inputs(), func(ctx context.Context) error {
		return wnc.Publish("$O."+q.n.inputs()+".C.forged", []byte("x"))
	})
	try("subscribe to the outcomes", "mg.perm.result.>", func(ctx context.Context) error {
		_, err := wnc.SubscribeSync("mg.perm.result.>")
		return err
	})
	try("subscribe to the coordinator's inboxes", "_INBOX.>", func(ctx context.Context) error {
		_, err := wnc.SubscribeSync("_INBOX.>")
		return err
	})
	try("subscribe to the advisories", "$JS.EVENT.>", func(ctx context.Context) error {
		_, err := wnc.SubscribeSync("$JS.EVENT.>")
		return err
	})
	if after := state(); after != before {
		t.Errorf("the refused requests changed the deployment:\nbefore:\n%safter:\n%s", before, after)
	}
	if m, err := cancels.NextMsg(300 * time.Millisecond); err == nil {
		t.Errorf("a worker's cancellation reached the coordinator: %q", m.Data)
	}
	// The coordinator still gets the waiting outcome.
	octx, ocancel = context.WithTimeout(ctx, 10*time.Second)
	defer ocancel()
	if ch, err = q.Outcomes(octx, job); err != nil {
		t.Fatal(err)
	}
	if o, ok := <-ch; !ok || o.Key != "u1" {
		t.Fatalf("outcome after the attempts: %+v %v", o, ok)
	} else if err := o.Done(); err != nil {
		t.Fatal(err)
	}
}
