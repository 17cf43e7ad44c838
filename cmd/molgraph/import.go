package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/handlers"
	"github.com/molgraph/molgraph/internal/subproc"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
)

// moleculeServices starts the chem pool, the molecule registry and the job
// runner (which resumes unfinished batch jobs) for "serve". The returned
// function stops them (runner first: running jobs keep their state and
// resume at the next start).
func moleculeServices(cfg serveConfig, store *graph.Store, tmp *subproc.TempDirs, dq *dockQueue, log *slog.Logger) (handlers.MoleculeServices, handlers.DockingServices, func(), error) {
	c3 := cfg.chem3D
	embed := chem.EmbedOptions{MaxHeavyAtoms: c3.maxHeavyAtoms, MaxRotatableBonds: c3.maxRotatableBonds,
		MaxAttempts: c3.maxAttempts, MMFFMaxIters: c3.mmffIters, Timeout: c3.timeout, Workers: c3.workers,
		HelperMemoryBytes: c3.memory}
	if c3.mode == "process" {
		exe, err := os.Executable()
		if err != nil {
			return handlers.MoleculeServices{}, handlers.DockingServices{}, nil, fmt.Errorf("chem 3D helper: %w", err)
		}
		embed.Helper = func() *exec.Cmd {
			c := exec.Command(exe, embedHelperCommand)
			c.Env = subproc.Environ() // not the server's MOLGRAPH_* configuration and key
			return c
		}
	}
	pool, err := chem.New(chem.Options{Workers: cfg.chemWorkers, Embed: embed, Max2DHeavyAtoms: c3.max2DHeavyAtoms, Nice: cfg.chemNice})
	if err != nil {
		return handlers.MoleculeServices{}, handlers.DockingServices{}, nil, fmt.Errorf("chem pool: %w", err)
	}
	if a := chem.Allocator(); a != "" {
		log.Info("chem pool started", "workers", pool.Workers(), "allocator", a, "3d_mode", c3.mode,
			"3d_max_heavy_atoms", c3.maxHeavyAtoms, "3d_max_rotatable_bonds", c3.maxRotatableBonds, "3d_timeout", c3.timeout.String())
	} else {
		log.Warn("chem pool started, but malloc is not jemalloc's: the chemistry runs ~20% slower", "workers", pool.Workers())
	}
	reg := batch.NewRegistry(store, pool, cfg.baseIRI, nil)
	if !cfg.structureSearch {
		reg.DisableStructureSearch() // before the runner resumes jobs
	}
	var bopt batch.TaskOptions
	if dq != nil {
		dq.wireBatch(&bopt, pool, cfg, log)
	}
	task := batch.NewTask(reg, bopt)
	tasks := []jobs.Task{task}
	// Docking needs the vina binary; without it the docking routes answer
	// 503 and everything else works.
	var dockTask *jobsdocking.Task
	if vina, err := docking.NewVina(context.Background(), ""); err != nil {
		log.Warn("docking disabled: AutoDock Vina not found", "error", err)
	} else {
		vina = vina.WithTempDirs(tmp)
		opt := jobsdocking.Options{Workers: cfg.vinaWorkers, LigandTimeout: cfg.vinaTimeout}
		if dq != nil {
			dq.wire(&opt, vina, pool, cfg, log)
		}
		dockTask = jobsdocking.NewTask(reg, vina, opt)
		tasks = append(tasks, dockTask)
	}
	runner, err := jobs.NewRunner(store, cfg.baseIRI, tasks, jobs.Options{Workers: cfg.jobWorkers,
		MaxUnfinished: cfg.maxJobs, MaxUnfinishedPerOwner: cfg.maxJobsPerKey, Logger: log})
	if err != nil {
		pool.Close()
		return handlers.MoleculeServices{}, handlers.DockingServices{}, nil, err
	}
	n, err := runner.Start(context.Background())
	if err != nil {
		pool.Close()
		return handlers.MoleculeServices{}, handlers.DockingServices{}, nil, err
	}
	if n > 0 {
		log.Info("resuming unfinished jobs", "jobs", n)
	}
	stop := func() {
		runner.Close()
		pool.Close()
	}
	var dock handlers.DockingServices
	if dockTask != nil {
		dock = handlers.DockingServices{Task: dockTask, Jobs: runner}
	}
	return handlers.MoleculeServices{Registry: reg, Jobs: runner, Batch: task, MaxBatchRecords: cfg.batchMaxRecords}, dock, stop, nil
}

// batchStatus is the part of GET /v1/molecules/batch/{id} that import shows.
type batchStatus struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Total     int64  `json:"total"`
	Processed int64  `json:"processed"`
	Created   int64  `json:"created"`
	Existing  int64  `json:"existing"`
	Failed    int64  `json:"failed"`
	Error     string `json:"error"`
	Errors    []struct {
		Index   int    `json:"index"`
		Name    string `json:"name"`
		Message string `json:"message"`
	} `json:"errors"`
}

// importCmd uploads an SD or SMILES file (optionally .gz) to a running
// server as one batch job and follows the job with a progress bar (rate and
// ETA) until it finishes.
func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	var quiet, gen3D bool
	var poll time.Duration
	opts := []option{
		dataDirOption(),
		{"server", "MOLGRAPH_SERVER", "http://localhost:8080/", "base URL of the running molgraph"},
		{"key", "MOLGRAPH_API_KEY", "", "API key with write scope (default: <data-dir>/bootstrap-key)"},
		{"format", "MOLGRAPH_IMPORT_FORMAT", "", "sdf or smiles (default: from the file name)"},
	}
	s, rest, err := parseOptions("import", opts, func(fs *flag.FlagSet) {
		fs.BoolVar(&quiet, "quiet", false, "no progress bar")
		fs.BoolVar(&gen3D, "generate-3d", false, "add 3D conformers (ETKDG + MMFF94; about 50 ms per molecule)")
		fs.DurationVar(&poll, "poll", 500*time.Millisecond, "how often to ask the server for progress")
		fs.Usage = func() {
			fmt.Fprintln(fs.Output(), "Usage: molgraph import [flags] FILE.sdf[.gz]|FILE.smi[.gz]")
			fs.PrintDefaults()
		}
	}, args, stderr, getenv)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: want one input FILE", errUsage)
	}
	if poll <= 0 {
		return fmt.Errorf("%w: --poll must be positive", errUsage)
	}
	path := rest[0]
	format := strings.ToLower(s.str("format"))
	if format == "" {
		switch filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz")) {
		case ".smi", ".smiles", ".txt":
			format = "smiles"
		default:
			format = "sdf"
		}
	}
	if format != "sdf" && format != "smiles" {
		return fmt.Errorf("%w: --format %q: want sdf or smiles", errUsage, format)
	}
	c, err := newAPIClient(s, 0)
	if err != nil {
		return err
	}

	start := time.Now()
	jobURL, err := c.submit(ctx, path, format, gen3D)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "uploaded %s in %s; job %s\n", filepath.Base(path), time.Since(start).Round(time.Millisecond), jobURL)
	var bar *progressbar.ProgressBar
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		st, err := c.status(ctx, jobURL)
		if err != nil {
			return err
		}
		if bar == nil && !quiet && st.Total > 0 {
			bar = progressbar.NewOptions64(st.Total, progressbar.OptionSetWriter(stderr),
				progressbar.OptionSetDescription("registering"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
				progressbar.OptionSetItsString("mol"), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionFullWidth())
		}
		if bar != nil {
			bar.Set64(st.Processed)
		}
		if jobs.Status(st.Status).Finished() {
			if bar != nil {
				bar.Finish()
				fmt.Fprintln(stderr)
			}
			el := time.Since(start)
			fmt.Fprintf(stdout, "%s %s: %d records, %d created, %d existing, %d failed in %s (%.0f mol/s)\n",
				st.ID, st.Status, st.Total, st.Created, st.Existing, st.Failed, el.Round(time.Millisecond), float64(st.Processed)/el.Seconds())
			for _, e := range st.Errors {
				fmt.Fprintf(stdout, "  record %d %q: %s\n", e.Index, e.Name, e.Message)
			}
			if st.Status != string(jobs.Succeeded) {
				return fmt.Errorf("job %s %s: %s", st.ID, st.Status, st.Error)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(stderr, "\nstopped following; the job goes on (cancel: DELETE %s)\n", jobURL)
			return ctx.Err()
		case <-t.C:
		}
	}
}

// submit posts the file as a raw body and returns the job's URL.
func (c *apiClient) submit(ctx context.Context, path, format string, gen3D bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	u := c.base.ResolveReference(&url.URL{Path: "v1/molecules/batch"})
	q := url.Values{"format": {format}}
	if gen3D {
		q.Set("generate_3d", "true")
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), f)
	if err != nil {
		return "", err
	}
	req.ContentLength = fi.Size()
	req.Header.Set("Content-Type", map[string]string{"sdf": "chemical/x-mdl-sdfile", "smiles": "text/plain"}[format])
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		req.Header.Set("Content-Encoding", "gzip")
	}
	var acc struct {
		JobID string            `json:"job_id"`
		Links map[string]string `json:"links"`
	}
	if err := c.do(req, http.StatusAccepted, &acc); err != nil {
		return "", err
	}
	if acc.Links["self"] == "" {
		return "", errors.New("the server's reply has no job link")
	}
	return c.base.ResolveReference(&url.URL{Path: strings.TrimPrefix(acc.Links["self"], "/")}).String(), nil
}

func (c *apiClient) status(ctx context.Context, jobURL string) (batchStatus, error) {
	var st batchStatus
	err := c.json(ctx, http.MethodGet, jobURL, nil, http.StatusOK, &st)
	return st, err
}
