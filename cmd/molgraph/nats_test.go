package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/molgraph/molgraph/jobs/queue"
	"github.com/molgraph/molgraph/jobs/queue/jsq"
)

// TestEmbeddedNATSUsers: serve --queue nats on a data dir of an earlier
// version (one user: its worker.nk) starts, keeps that seed as the
// workers' and prints none; a worker connecting with it (as `molgraph
// worker` does) reads the deployment's status but may not purge the task
// stream, which keeps its unit.
func TestEmbeddedNATSUsers(t *testing.T) {
	dataDir := t.TempDir()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	seedFile := embeddedSeedFile(dataDir)
	if err := os.MkdirAll(filepath.Dir(seedFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seedFile, append(seed, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	c := natsConfig{url: "embedded", deployment: "up", ackWait: 10 * time.Second, queue: "nats", listen: listen}
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	var out bytes.Buffer
	q, coord, stop, err := natsQueue(ctx, c, dataDir, &out, log)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if out.Len() > 0 {
		t.Errorf("printed %q for an existing seed", out.String())
	}
	if got, _ := os.ReadFile(seedFile); !bytes.Equal(got, append(seed, '\n')) {
		t.Errorf("the seed file changed")
	}
	job := quad.IRI("http://x/job/up")
	if n, err := q.Enqueue(ctx, []queue.Unit{{Kind: "dock", Key: "m1", Engine: "e", Job: job, Body: []byte("{}")}}); err != nil || n != 1 {
		t.Fatalf("enqueue: %d %v", n, err)
	}

	wc := natsConfig{url: "nats://" + listen, creds: seedFile, deployment: "up", ackWait: c.ackWait}
	wnc, err := natsConnect(wc, "molgraph-worker t", log, workerInbox(wc))
	if err != nil {
		t.Fatal(err)
	}
	defer wnc.Close()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := jsq.Status(sctx, wnc, wc.jsq(0))
	if err != nil || st.Units.Queued != 1 {
		t.Fatalf("status with the worker's seed: %+v %v", st, err)
	}
	wjs, _ := jetstream.New(wnc)
	pctx, pcancel := context.WithTimeout(ctx, time.Second)
	defer pcancel()
	if err := wjs.DeleteStream(pctx, "MG_up_TASKS"); err == nil {
		t.Error("a worker deleted the task stream")
	}
	cjs, _ := jetstream.New(coord)
	s, err := cjs.Stream(ctx, "MG_up_TASKS")
	if err != nil || s.CachedInfo().State.Msgs != 1 {
		t.Fatalf("task stream after the attempt: %v", err)
	}

	// A worker without the worker inbox prefix may not subscribe to the
	// coordinator's inboxes: its requests get no answer.
	bare, err := natsConnect(wc, "old worker", log)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	rctx, rcancel := context.WithTimeout(ctx, time.Second)
	defer rcancel()
	if _, err := jsq.Status(rctx, bare, wc.jsq(0)); err == nil {
		t.Error("status through _INBOX with the worker's seed")
	}
}

// TestEmbeddedSeedPrinted: a new data dir gets a worker seed, printed
// once, that connects through the listener.
func TestEmbeddedSeedPrinted(t *testing.T) {
	dataDir := t.TempDir()
	listen := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	c := natsConfig{url: "embedded", deployment: "molgraph", ackWait: 10 * time.Second, queue: "nats", listen: listen}
	var out bytes.Buffer
	_, _, stop, err := natsQueue(context.Background(), c, dataDir, &out, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	seed, err := os.ReadFile(embeddedSeedFile(dataDir))
	if err != nil || !strings.Contains(out.String(), strings.TrimSpace(string(seed))) {
		t.Fatalf("seed file %q, printed %q (%v)", seed, out.String(), err)
	}
	wc := natsConfig{url: "nats://" + listen, creds: embeddedSeedFile(dataDir), deployment: "molgraph"}
	nc, err := natsConnect(wc, "w", slog.New(slog.DiscardHandler), workerInbox(wc))
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	if _, err := nats.Connect("nats://"+listen, nats.MaxReconnects(0)); err == nil {
		t.Error("connected without credentials")
	}
}

// TestPrintPermissions: `molgraph worker --print-permissions` prints a
// nats-server permissions block (JSON) for the deployment, with no NATS
// URL needed.
func TestPrintPermissions(t *testing.T) {
	var out bytes.Buffer
	if err := workerCmd(context.Background(), []string{"--print-permissions", "--nats-deployment", "lab-1"}, &out, io.Discard, envOf(nil)); err != nil {
		t.Fatal(err)
	}
	var p struct {
		Publish, Subscribe struct{ Allow []string }
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	pub, sub := strings.Join(p.Publish.Allow, " "), strings.Join(p.Subscribe.Allow, " ")
	for _, want := range []string{"$JS.API.CONSUMER.MSG.NEXT.MG_lab-1_TASKS.*", "$JS.ACK.MG_lab-1_TASKS.>", "mg.lab-1.result.>"} {
		if !strings.Contains(pub, want) {
			t.Errorf("publish allow has no %s: %s", want, pub)
		}
	}
	if strings.Contains(pub, "mg.lab-1.task") || strings.Contains(pub, "PURGE") || strings.Contains(pub, "DELETE.MG_") ||
		strings.Contains(pub, "RESULTS.") || !strings.Contains(sub, "mg.lab-1.cancel") || strings.Contains(sub, "_INBOX.") {
		t.Errorf("permissions too wide:\n%s", out.String())
	}
	err := workerCmd(context.Background(), []string{"--print-permissions", "--nats-deployment", "a.b"}, io.Discard, io.Discard, envOf(nil))
	if !errors.Is(err, errUsage) {
		t.Errorf("bad deployment: %v", err)
	}
}
