package queue_test

import (
	"testing"

	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/queue/queuetest"
)

func TestLocalConformance(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) *queuetest.Harness {
		q := queue.NewLocal(queuetest.Options)
		t.Cleanup(func() { q.Close() })
		return &queuetest.Harness{Queue: q, Lose: q.Lose,
			NewWorker: func(name string, slots int, exec queue.Executor) queue.Worker {
				return &queue.LocalWorker{Queue: q, Name: name, Slots: slots, Engine: queuetest.Engine,
					Exec: map[string]queue.Executor{queuetest.Kind: exec}}
			}}
	})
}
