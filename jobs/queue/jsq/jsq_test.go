package jsq

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/queue/queuetest"
)

func TestJetStreamConformance(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) *queuetest.Harness {
		s, err := StartEmbedded(EmbeddedOptions{Dir: t.TempDir(), Listen: "none"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Shutdown)
		nc, err := ConnectInProcess(s, "coordinator")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		cfg := Config{Deployment: "test", Options: queuetest.Options, ResultAckWait: queuetest.Options.AckWait}
		q, err := New(context.Background(), nc, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		return &queuetest.Harness{Queue: q,
			Lose: func() {
				// A wiped store: the task stream is gone and comes back
				// empty.
				js, _ := jetstream.New(nc)
				if err := js.DeleteStream(context.Background(), q.n.tasks()); err != nil {
					t.Fatal(err)
				}
				if err := Setup(context.Background(), js, cfg); err != nil {
					t.Fatal(err)
				}
			},
			NewWorker: func(name string, slots int, exec queue.Executor) queue.Worker {
				wnc, err := ConnectInProcess(s, name)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(wnc.Close)
				return &Worker{NC: wnc, Config: cfg, Name: name, Slots: slots, Engine: queuetest.Engine,
					Exec: map[string]queue.Executor{queuetest.Kind: exec}}
			}}
	})
}
