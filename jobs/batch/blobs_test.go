package batch_test

import (
	"context"
	"testing"
	"time"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
)

// TestTwinSpoolKept: two uploads of the same records share one spool blob
// (blobs are content-addressed). When the first job has ended and the
// second is still queued, the spool is referenced, not released: a
// collection must not take the queued job's records away.
func TestTwinSpoolKept(t *testing.T) {
	lines := readNCI(t, 20)
	st := openStore(t, t.TempDir())
	defer st.Close()
	task := batch.NewTask(batch.NewRegistry(st, newPool(t), base, nil), batch.TaskOptions{})
	runner, err := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := submit(t, st, task, runner, lines)
	first = waitFor(t, runner, first.IRI, func(j jobs.Job) bool { return j.Status.Finished() })
	runner.Close()
	sha := first.Source.SHA256
	ctx := context.Background()
	if u, err := batch.BlobUse(ctx, st, sha); err != nil || u != graph.BlobReleased {
		t.Fatalf("spool of the ended job alone: %v %v, want released", u, err)
	}

	// The twin, submitted to a runner that is not started: it stays queued.
	queued, err := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer queued.Close()
	twin := submit(t, st, task, queued, lines)
	if twin.Source.SHA256 != sha {
		t.Fatalf("the twin's spool %s differs from %s", twin.Source.SHA256, sha)
	}
	if u, err := batch.BlobUse(ctx, st, sha); err != nil || u != graph.BlobReferenced {
		t.Errorf("BlobUse with a queued twin: %v %v, want referenced", u, err)
	}
	uses, err := batch.BlobUses(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if u := uses(sha); u != graph.BlobReferenced {
		t.Errorf("BlobUses with a queued twin: %v, want referenced", u)
	}
	if _, err := st.Blobs().Collect(ctx, uses, time.Now(), 0); err != nil || !st.Blobs().Has(sha) {
		t.Errorf("collection removed the queued twin's spool (%v)", err)
	}
}
