package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/molgraph/molgraph/internal/servechild"
)

// The molgraph side: the cached store (built through the API with the
// real binary), the server over it, and the export.

// buildStats says how the store was built (nil when it came from the
// cache).
type buildStats struct {
	Molecules, Failed, Drugs, Calculations, Logs int
	Generate, Upload, QM                         time.Duration
}

// storeInfo is written beside a complete store (store.json).
type storeInfo struct {
	N, Seed, Format int
	Molecules       int       `json:"molecules"`
	Failed          int       `json:"failed"`
	Calculations    int       `json:"calculations"`
	Built           time.Time `json:"built"`
}

// lockStore takes an exclusive lock on storeDir (storeDir/lock, flock),
// waiting while another run of the benchmark holds it: two servers cannot
// open one store, and a run that found the store busy must not take it
// for broken and rebuild it under the other. The lock goes with the
// returned file (closing it, or the process ending, releases it).
func lockStore(ctx context.Context, storeDir string, out io.Writer) (*os.File, error) {
	if err := os.MkdirAll(storeDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(storeDir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for waited := false; ; waited = true {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if !waited {
			fmt.Fprintf(out, "molgraph: another run of the benchmark uses %s; waiting for it\n", storeDir)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// openStore serves the cached store of storeDir, building it first when it
// is missing or the server cannot open it. The caller holds the store's
// lock (lockStore).
func openStore(ctx context.Context, cfg config, storeDir string, out io.Writer) (*server, *buildStats, error) {
	data := filepath.Join(storeDir, "data")
	if _, err := os.Stat(filepath.Join(storeDir, "store.json")); err == nil {
		srv, err := startServer(ctx, cfg, data)
		if err == nil {
			err = srv.check(ctx)
			if err == nil {
				fmt.Fprintf(out, "molgraph: cached store %s\n", storeDir)
				return srv, nil, nil
			}
			srv.stop(io.Discard)
		}
		fmt.Fprintf(out, "molgraph: the cached store %s does not open (%v); rebuilding it\n", storeDir, err)
	}
	st, err := buildStore(ctx, cfg, storeDir, out)
	if err != nil {
		return nil, nil, err
	}
	srv, err := startServer(ctx, cfg, data)
	if err != nil {
		return nil, nil, err
	}
	if err := srv.check(ctx); err != nil {
		srv.stop(io.Discard)
		return nil, nil, fmt.Errorf("the store just built does not answer: %w", err)
	}
	return srv, st, nil
}

// buildStore generates the molecules and registers them, the reference
// drugs and the QM logs through the API into storeDir/data.
func buildStore(ctx context.Context, cfg config, storeDir string, out io.Writer) (*buildStats, error) {
	for _, p := range []string{cfg.binary, cfg.generator, cfg.drugs} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("build the store: %w", err)
		}
	}
	if err := os.MkdirAll(storeDir, 0o755); err != nil {
		return nil, err
	}
	os.Remove(filepath.Join(storeDir, "store.json"))
	st := &buildStats{}
	smi := filepath.Join(storeDir, "druglike.smi")
	if _, err := os.Stat(smi); err != nil {
		t0 := time.Now()
		fmt.Fprintf(out, "generating %d molecules (seed %d): %s %s\n", cfg.n, cfg.seed, cfg.python, cfg.generator)
		if b, err := commandOutput(ctx, cfg.python, cfg.generator, "-n", strconv.Itoa(cfg.n), "--seed", strconv.Itoa(cfg.seed), "-o", smi, "--stats"); err != nil {
			return nil, fmt.Errorf("generator: %w: %s", err, b)
		} else {
			out.Write(b)
		}
		st.Generate = time.Since(t0)
	}
	lines, err := readLines(smi)
	if err != nil {
		return nil, err
	}
	building := filepath.Join(storeDir, "data.building")
	if err := os.RemoveAll(building); err != nil {
		return nil, err
	}
	srv, err := startServer(ctx, cfg, building)
	if err != nil {
		return nil, err
	}
	defer srv.stop(out)

	// The molecules, in batches of at most 50,000 records (the API takes
	// up to 100,000 in one).
	t0 := time.Now()
	const chunk = 50_000
	for i := 0; i < len(lines); i += chunk {
		part := lines[i:min(i+chunk, len(lines))]
		created, failed, err := srv.batch(ctx, part, out)
		if err != nil {
			return nil, err
		}
		st.Molecules += created
		st.Failed += failed
	}
	st.Upload = time.Since(t0)
	fmt.Fprintf(out, "molgraph: %d molecules registered, %d refused, in %s (%.0f/s)\n", st.Molecules, st.Failed,
		st.Upload.Round(time.Second), float64(len(lines))/st.Upload.Seconds())

	// Reference drugs, one POST each, as a user registers a compound.
	drugs, err := readLines(cfg.drugs)
	if err != nil {
		return nil, err
	}
	for _, l := range drugs {
		f := strings.Fields(l)
		body, _ := json.Marshal(map[string]any{"format": "smiles", "content": f[0], "name": strings.Join(f[1:], " "), "generate_3d": false})
		code, data, err := srv.do(ctx, "POST", "/v1/molecules", "application/json", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		if code != http.StatusCreated && code != http.StatusOK {
			return nil, fmt.Errorf("register %s: %d %s", l, code, trim(data))
		}
		st.Drugs++
	}

	// QM logs: each becomes calculations linked to their molecule.
	t0 = time.Now()
	logs, err := qmLogs(cfg.qmCorpus)
	if err != nil {
		return nil, err
	}
	for _, p := range logs {
		code, data, err := srv.postLog(ctx, p)
		if err != nil {
			return nil, err
		}
		st.Logs++
		switch code {
		case http.StatusCreated, http.StatusOK:
			st.Calculations++
		case http.StatusUnprocessableEntity:
			// not a log of a supported program, or no result: skipped
		default:
			return nil, fmt.Errorf("POST /v1/qm/parse %s: %d %s", p, code, trim(data))
		}
	}
	st.QM = time.Since(t0)
	fmt.Fprintf(out, "molgraph: %d reference drugs, %d of %d QM logs parsed in %s\n", st.Drugs, st.Calculations, st.Logs, st.QM.Round(time.Second))
	srv.stop(out)
	if srv.ExitErr != nil {
		return nil, fmt.Errorf("molgraph serve did not stop cleanly after the build: %v", srv.ExitErr)
	}
	data := filepath.Join(storeDir, "data")
	if err := os.RemoveAll(data); err != nil {
		return nil, err
	}
	if err := os.Rename(building, data); err != nil {
		return nil, err
	}
	info, _ := json.MarshalIndent(storeInfo{N: cfg.n, Seed: cfg.seed, Format: storeFormat, Molecules: st.Molecules,
		Failed: st.Failed, Calculations: st.Calculations, Built: time.Now().UTC()}, "", "  ")
	if err := os.WriteFile(filepath.Join(storeDir, "store.json"), info, 0o644); err != nil {
		return nil, err
	}
	return st, nil
}

// qmLogs lists the output files of the QM corpus (programs' logs; inputs
// and stderr captures are left out).
func qmLogs(dir string) ([]string, error) {
	var out []string
	for _, prog := range []string{"gaussian", "orca", "nwchem", "psi4", "xtb"} {
		err := filepath.WalkDir(filepath.Join(dir, prog), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".out") || strings.HasSuffix(p, ".log")) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no QM log under %s (-qm-corpus)", dir)
	}
	return out, nil
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}

func commandOutput(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.Bytes(), err
}

func trim(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// server is a molgraph serve process started by the driver.
type server struct {
	*servechild.Server
	client *http.Client
}

// startServer starts cfg.binary serve on a free loopback port over the
// data directory dir and waits for /readyz; the admin key is the one the
// server wrote to dir/bootstrap-key on its first start.
func startServer(ctx context.Context, cfg config, dir string) (*server, error) {
	srv, err := servechild.Start(ctx, cfg.binary, dir, filepath.Join(filepath.Dir(dir), "server.log"), 5*time.Minute,
		func(string) []string {
			return []string{"--base-iri", baseIRI, "--log-level", "warn", "--rate-limit", "0", "--sync-writes", "false",
				"--sparql-timeout", cfg.timeout.String(), "--write-timeout", "30m"}
		})
	if err != nil {
		return nil, err
	}
	return &server{Server: srv, client: httpClient(10 * time.Minute)}, nil
}

// check asks the server whether it holds molecules.
func (s *server) check(ctx context.Context) error {
	q := url.Values{"query": {"ASK { ?m a <https://w3id.org/molgraph/vocab#Molecule> }"}}
	code, data, err := s.do(ctx, "POST", "/v1/sparql", "application/x-www-form-urlencoded", strings.NewReader(q.Encode()))
	switch {
	case err != nil:
		return err
	case code != http.StatusOK:
		return fmt.Errorf("ASK: %d %s", code, trim(data))
	case !bytes.Contains(data, []byte("true")):
		return fmt.Errorf("ASK: no molecule in the store: %s", trim(data))
	}
	return nil
}

// stop interrupts the server (a clean shutdown) and kills it after 60 s.
func (s *server) stop(out io.Writer) { s.Stop(out, 60*time.Second) }

func (s *server) do(ctx context.Context, method, path, ctype string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.Base+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.Key)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// batch posts lines ("SMILES name") as one batch upload without 3D and
// waits for the job to end.
func (s *server) batch(ctx context.Context, lines []string, out io.Writer) (created, failed int, err error) {
	body := strings.Join(lines, "\n") + "\n"
	code, data, err := s.do(ctx, "POST", "/v1/molecules/batch?generate_3d=false", "text/plain", strings.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	if code != http.StatusAccepted {
		return 0, 0, fmt.Errorf("batch upload: %d %s", code, trim(data))
	}
	var j struct {
		JobID string `json:"job_id"`
	}
	if err := json.Unmarshal(data, &j); err != nil || j.JobID == "" {
		return 0, 0, fmt.Errorf("batch upload: no job id in %s", trim(data))
	}
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(time.Second):
		}
		code, data, err := s.do(ctx, "GET", "/v1/molecules/batch/"+j.JobID, "", nil)
		if err != nil {
			return 0, 0, err
		}
		if code != http.StatusOK {
			return 0, 0, fmt.Errorf("batch job %s: %d %s", j.JobID, code, trim(data))
		}
		var st struct {
			Status                                      string
			Total, Processed, Created, Existing, Failed int
		}
		json.Unmarshal(data, &st)
		switch st.Status {
		case "succeeded":
			return st.Created + st.Existing, st.Failed, nil
		case "failed", "cancelled":
			return 0, 0, fmt.Errorf("batch job %s ended %s: %s", j.JobID, st.Status, trim(data))
		}
		if time.Since(last) >= 15*time.Second {
			last = time.Now()
			fmt.Fprintf(out, "  batch %s: %s, %d of %d records\n", j.JobID, st.Status, st.Processed, st.Total)
		}
	}
}

// postLog uploads one QM log to /v1/qm/parse.
func (s *server) postLog(ctx context.Context, path string) (int, []byte, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", filepath.Base(path))
	if err != nil {
		return 0, nil, err
	}
	fw.Write(content)
	mw.Close()
	return s.do(ctx, "POST", "/v1/qm/parse", mw.FormDataContentType(), &body)
}

// exportFile is the export's file name in the export directory.
const exportFile = "molgraph.nq"

// exportStats is the measured export.
type exportStats struct {
	Quads    int64
	Bytes    int64
	Duration time.Duration
}

// exportNQuads streams GET /v1/export (N-Quads, uncompressed) into
// dir/molgraph.nq and times it.
func exportNQuads(ctx context.Context, base, key, dir string, out io.Writer) (exportStats, error) {
	var st exportStats
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	tmp := filepath.Join(dir, exportFile+".part")
	f, err := os.Create(tmp)
	if err != nil {
		return st, err
	}
	defer os.Remove(tmp)
	defer f.Close()
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/export?format=nquads", nil)
	if err != nil {
		return st, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	// identity: the figure is the export's, not gzip's (and Go's client
	// would otherwise ask for gzip and decompress it).
	req.Header.Set("Accept-Encoding", "identity")
	t0 := time.Now()
	resp, err := httpClient(30 * time.Minute).Do(req)
	if err != nil {
		return st, fmt.Errorf("export: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return st, fmt.Errorf("export: %d %s", resp.StatusCode, trim(b))
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, err := io.Copy(w, resp.Body)
	if err == nil {
		err = w.Flush()
	}
	st.Duration = time.Since(t0)
	st.Bytes = n
	if err != nil {
		return st, fmt.Errorf("export: %w", err)
	}
	quads, perr := strconv.ParseInt(resp.Trailer.Get("X-Molgraph-Quads"), 10, 64)
	if perr != nil {
		return st, fmt.Errorf("export: no X-Molgraph-Quads trailer: the dump was cut short")
	}
	st.Quads = quads
	if err := f.Close(); err != nil {
		return st, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, exportFile)); err != nil {
		return st, err
	}
	fmt.Fprintf(out, "export: %d quads, %.1f MB in %s: %.0f quads/s\n", st.Quads, float64(st.Bytes)/1e6,
		st.Duration.Round(time.Millisecond), float64(st.Quads)/st.Duration.Seconds())
	return st, nil
}

// httpClient is a client whose requests end after timeout (plus a margin
// for the transfer).
func httpClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout + 10*time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute, DisableCompression: true}}
}
