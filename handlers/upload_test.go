package handlers

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/graphtest"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
)

// diskFixture is a server on a Badger store in a data directory, with a
// real chem pool, a job runner and a blob collector.
type diskFixture struct {
	*molFixture
	dir    string
	gc     *graph.BlobCollector
	runner *jobs.Runner
}

func newDiskFixture(t *testing.T, dir string, lim UploadLimits, minFree int64) *diskFixture {
	t.Helper()
	pool, err := chem.NewPool(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	st, err := graph.Open(dir, graph.Options{SyncWrites: true, MinFreeBytes: minFree})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const base = "http://example.org/"
	reg := batch.NewRegistry(st, pool, base, nil)
	task := batch.NewTask(reg, batch.TaskOptions{ChunkRecords: 100})
	runner, err := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Close() })
	// Wired as serve wires it: collected at start and soon after each
	// batch job (no periodic collection here).
	gc := graph.NewBlobCollector(st.Blobs(), func(ctx context.Context) (graph.BlobUses, error) {
		return batch.BlobUses(ctx, st)
	}, graph.CollectorOptions{Interval: -1, KickDelay: 100 * time.Millisecond})
	if err := gc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gc.Close)
	task.SetAfterRun(gc.Kick)
	runner.SetOnEnd(func(jobs.Job) { gc.Kick() }) // a job cancelled while queued never runs its task
	f := newFixture(t, func(c *Config) {
		c.Store = st
		c.Graph = st
		c.Molecules = MoleculeServices{Registry: reg, Jobs: runner, Batch: task}
		c.Uploads = lim
	})
	return &diskFixture{molFixture: &molFixture{fixture: f, store: st, runner: runner}, dir: dir, gc: gc, runner: runner}
}

// blobFiles lists the files under the data directory's blobs (tmp
// included).
func (f *diskFixture) blobFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(f.dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, strings.TrimPrefix(p, f.dir+"/"))
		}
		return nil
	})
	return out
}

// TestUploadBounds sends uploads over each bound: each is refused with its
// 413 while it is read (the gzip bomb within seconds), and none leaves a
// blob, a spool or a temporary file in the data directory, nor a quad.
func TestUploadBounds(t *testing.T) {
	dflt := newDiskFixture(t, t.TempDir(), UploadLimits{}, 0)
	small := newDiskFixture(t, t.TempDir(), UploadLimits{MaxDecompressedBytes: 1 << 20, MaxSpoolBytes: 64 << 10,
		MaxSMILESLineBytes: 1 << 10, MaxSDRecordBytes: 4 << 10}, 0)
	sdRecord := firstSDRecord(t)
	bigSD := sdRecord + "\n> <junk>\n" + strings.Repeat("x", 8<<10) + "\n\n$$$$\n"
	tests := []struct {
		name       string
		f          *diskFixture
		ct, enc    string
		body       func() []byte
		status     int
		code, says string
		within     time.Duration
	}{
		{"gzip bomb: 1 GiB of comments", dflt, "text/plain", "gzip", func() []byte { bombs(); return commentBomb },
			413, "upload_too_large", "536870912", 60 * time.Second},
		{"40 gzipped SMILES lines of 8 MiB", dflt, "text/plain", "gzip", func() []byte { bombs(); return longLineBomb },
			413, "record_too_large", "65536", 10 * time.Second},
		{"decompressed bytes", small, "text/plain", "", func() []byte { return bytes.Repeat([]byte("# comment line\n"), 80000) },
			413, "upload_too_large", "1048576", 10 * time.Second},
		{"spool bytes", small, "text/plain", "", func() []byte { return bytes.Repeat([]byte("CCO\n"), 5000) },
			413, "upload_too_large", "65536", 10 * time.Second},
		{"SD record", small, "chemical/x-mdl-sdfile", "", func() []byte { return []byte(sdRecord + "\n$$$$\n" + bigSD) },
			413, "record_too_large", "4096", 10 * time.Second},
		{"SMILES line", small, "text/plain", "", func() []byte { return []byte("CCO\n" + strings.Repeat("C", 2000) + "\n") },
			413, "record_too_large", "1024", 10 * time.Second},
		{"JSON record", small, "application/json", "", func() []byte {
			return []byte(`{"molecules": [{"format": "smiles", "content": "CCO"}, {"format": "smiles", "content": "` + strings.Repeat("C", 2000) + `"}]}`)
		}, 413, "record_too_large", "1024", 10 * time.Second},
		{"empty", small, "text/plain", "", func() []byte { return []byte("\n# nothing\n\n") },
			400, "invalid_request", "no records", 10 * time.Second},
		{"empty gzip", small, "text/plain", "gzip", func() []byte { return gz(nil) },
			400, "invalid_request", "no records", 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body()
			t0 := time.Now()
			r := tt.f.do(t, "POST", "/v1/molecules/batch", "write", bytes.NewReader(body), "Content-Type", tt.ct, "Content-Encoding", tt.enc)
			took := time.Since(t0)
			p := problemOf(t, r, tt.status, tt.code)
			if !strings.Contains(p.Detail, tt.says) {
				t.Errorf("detail %q does not name %q", p.Detail, tt.says)
			}
			t.Logf("%d bytes sent: %d %s in %v", len(body), r.Code, tt.code, took.Round(time.Millisecond))
			if took > tt.within {
				t.Errorf("took %v, want < %v", took, tt.within)
			}
			if left := tt.f.blobFiles(t); len(left) != 0 {
				t.Errorf("left in the data directory: %v", left)
			}
		})
	}
	for _, f := range []*diskFixture{dflt, small} {
		if q, _, _ := f.store.Stats(context.Background()); q != 0 {
			t.Errorf("%d quads stored by refused uploads", q)
		}
	}
}

// TestRefusedJobLeavesNoSpool: an upload that is spooled but whose job is
// refused (here the runner is closed: 503) leaves no spool behind.
func TestRefusedJobLeavesNoSpool(t *testing.T) {
	f := newDiskFixture(t, t.TempDir(), UploadLimits{}, 0)
	f.runner.Close()
	r := f.do(t, "POST", "/v1/molecules/batch", "write", strings.NewReader("CCO\nCCN\n"), "Content-Type", "text/plain")
	if r.Code < 400 {
		t.Fatalf("upload to a closed runner: %d %s", r.Code, r.Body)
	}
	if left := f.blobFiles(t); len(left) != 0 {
		t.Errorf("a refused job left %v", left)
	}
}

// TestSpoolDeletedAfterJob: once a batch job has ended, a collection
// deletes its spool and keeps the structure files its molecules reference.
func TestSpoolDeletedAfterJob(t *testing.T) {
	f := newDiskFixture(t, t.TempDir(), UploadLimits{}, 0)
	r := f.do(t, "POST", "/v1/molecules/batch?generate_3d=true", "write", strings.NewReader("CCO ethanol\nCCN ethylamine\n"), "Content-Type", "text/plain")
	if r.Code != 202 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	id := decode[map[string]any](t, r)["job_id"].(string)
	if m := waitBatch(t, f.molFixture, id); m["status"] != "succeeded" || m["created"] != 2.0 {
		t.Fatalf("job %v", m)
	}
	// The job's end kicked the collector: the spool goes, the two
	// structure files stay.
	var after []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if after = f.blobFiles(t); len(after) == 2 {
			break
		}
	}
	if len(after) != 2 {
		t.Fatalf("blobs after the job ended: %v (want the two structure files)", after)
	}
	if st, err := f.gc.Collect(context.Background()); err != nil || st.Blobs != 0 {
		t.Fatalf("a second collection removed %+v (%v)", st, err)
	}
	// The structure files are the ones kept: both molecules read their 3D.
	r = f.do(t, "GET", "/v1/molecules?smiles=CCO", "read", nil)
	if !strings.Contains(r.Body.String(), `"has_3d":true`) {
		t.Fatalf("molecule after the collection: %s", r.Body)
	}
	mid := decode[struct {
		Molecules []struct{ ID string }
	}](t, r).Molecules[0].ID
	if s := f.do(t, "GET", "/v1/molecules/"+mid+"/structure?format=sdf", "read", nil); s.Code != 200 {
		t.Errorf("structure after the collection: %d %s", s.Code, s.Body)
	}
}

// TestDiskFullHTTP fills the data directory's file system (a tmpfs the
// test mounts): writes answer 507 insufficient_storage with Retry-After,
// /readyz 503, reads go on; once space is freed, /readyz is 200 again and
// writes succeed.
func TestDiskFullHTTP(t *testing.T) {
	mnt := graphtest.MountTmpfs(t, 64<<20)
	f := newDiskFixture(t, filepath.Join(mnt, "data"), UploadLimits{}, 8<<20)
	if r := f.post(t, `{"format": "smiles", "content": "CCO"}`); r.Code != 201 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	if r := f.do(t, "GET", "/readyz", "", nil); r.Code != 200 {
		t.Fatalf("readyz: %d %s", r.Code, r.Body)
	}
	filler := graphtest.Fill(t, mnt, 4<<20)
	r := f.post(t, `{"format": "smiles", "content": "CCN"}`)
	problemOf(t, r, 507, "insufficient_storage")
	if r.Header().Get("Retry-After") == "" {
		t.Error("507 without Retry-After")
	}
	problemOf(t, f.do(t, "POST", "/v1/molecules/batch", "write", strings.NewReader("CCCO\n"), "Content-Type", "text/plain"), 507, "insufficient_storage")
	problemOf(t, f.do(t, "GET", "/readyz", "", nil), 503, "not_ready")
	if r := f.do(t, "GET", "/v1/molecules?smiles=CCO", "read", nil); r.Code != 200 || !strings.Contains(r.Body.String(), "CCO") {
		t.Errorf("read on a full disk: %d %s", r.Code, r.Body)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := f.do(t, "GET", "/readyz", "", nil); r.Code != 200 {
		t.Errorf("readyz after space came back: %d %s", r.Code, r.Body)
	}
	if r := f.post(t, `{"format": "smiles", "content": "CCN"}`); r.Code != 201 {
		t.Errorf("write after space came back: %d %s", r.Code, r.Body)
	}
}

// TestSpoolDeletedAfterCancel: the spool of a cancelled job is deleted too
// (the collector the job's end kicks).
func TestSpoolDeletedAfterCancel(t *testing.T) {
	f := newDiskFixture(t, t.TempDir(), UploadLimits{}, 0)
	var b strings.Builder
	for i := 1; i <= 1500; i++ {
		b.WriteString(strings.Repeat("C", i%40+1) + "O\n")
	}
	r := f.do(t, "POST", "/v1/molecules/batch", "write", strings.NewReader(b.String()), "Content-Type", "text/plain")
	if r.Code != 202 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	id := decode[map[string]any](t, r)["job_id"].(string)
	if d := f.do(t, "DELETE", "/v1/molecules/batch/"+id, "write", nil); d.Code != 200 {
		t.Fatalf("cancel: %d %s", d.Code, d.Body)
	}
	var left []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left = f.blobFiles(t); len(left) == 0 {
			return
		}
	}
	t.Fatalf("the cancelled job's spool stays: %v", left)
}
