package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/molgraph/molgraph/jobs"
)

// dockRequest is the body of POST /v1/docking/jobs (API.md).
type dockRequest struct {
	Receptor       string   `json:"receptor"`
	Ligands        []string `json:"ligands"`
	Pocket         string   `json:"pocket,omitempty"`
	Box            *dockBox `json:"box,omitempty"`
	Exhaustiveness int      `json:"exhaustiveness,omitempty"`
	NumModes       int      `json:"num_modes,omitempty"`
	EnergyRange    float64  `json:"energy_range,omitempty"`
	Seed           int64    `json:"seed,omitempty"`
}

type dockBox struct {
	Center [3]float64 `json:"center"`
	Size   [3]float64 `json:"size"`
}

// dockStatus is the part of GET /v1/docking/jobs/{id} that dock shows.
type dockStatus struct {
	ID       string            `json:"id"`
	Status   string            `json:"status"`
	Finished int64             `json:"finished_ligands"`
	Failed   int64             `json:"failed_ligands"`
	Total    int64             `json:"total_ligands"`
	Error    string            `json:"error"`
	Links    map[string]string `json:"links"`
}

// dockResults is one page of GET /v1/docking/jobs/{id}/results.
type dockResults struct {
	Results []struct {
		Rank     int        `json:"rank"`
		Ligand   string     `json:"ligand"`
		Affinity float64    `json:"affinity_kcal"`
		PoseURL  string     `json:"pose_url"`
		Modes    []struct{} `json:"modes"` // counted only
	} `json:"results"`
	Failures []struct {
		Ligand string `json:"ligand"`
		Error  string `json:"error"`
	} `json:"failures"`
	NextCursor *string `json:"next_cursor"`
	// FailuresNext (first page only) continues the failures with
	// ?kind=failures.
	FailuresNext *string `json:"failures_next_cursor"`
}

// dockCmd submits a docking job to a running server, follows it with a
// progress bar until it finishes and prints its results, best first.
func dockCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	var quiet bool
	var poll time.Duration
	var req dockRequest
	var ligandFile, box string
	opts := []option{
		dataDirOption(),
		{"server", "MOLGRAPH_SERVER", "http://localhost:8080/", "base URL of the running molgraph"},
		{"key", "MOLGRAPH_API_KEY", "", "API key with write scope (default: <data-dir>/bootstrap-key)"},
	}
	s, rest, err := parseOptions("dock", opts, func(fs *flag.FlagSet) {
		fs.StringVar(&req.Receptor, "receptor", "", "receptor id (rec-...; POST /v1/receptors makes one)")
		fs.StringVar(&ligandFile, "ligands", "", "file of ligand molecule ids, one per line (- for stdin), besides any given as arguments")
		fs.StringVar(&req.Pocket, "pocket", "auto", "auto (best detected pocket), a pocket id of the receptor (p2), or box (with --box)")
		fs.StringVar(&box, "box", "", "search box \"cx,cy,cz,sx,sy,sz\" in Å (implies --pocket box)")
		fs.IntVar(&req.Exhaustiveness, "exhaustiveness", 8, "Vina exhaustiveness (1..64)")
		fs.IntVar(&req.NumModes, "num-modes", 9, "most binding modes per ligand (1..20)")
		fs.Float64Var(&req.EnergyRange, "energy-range", 3, "kcal/mol above the best mode to keep (0..10]")
		fs.Int64Var(&req.Seed, "seed", 42, "Vina random seed")
		fs.BoolVar(&quiet, "quiet", false, "no progress bar")
		fs.DurationVar(&poll, "poll", time.Second, "how often to ask the server for progress")
		fs.Usage = func() {
			fmt.Fprintln(fs.Output(), "Usage: molgraph dock [flags] --receptor REC-ID [MOL-ID ...]")
			fs.PrintDefaults()
		}
	}, args, stderr, getenv)
	if err != nil {
		return err
	}
	req.Ligands = rest
	if ligandFile != "" {
		ids, err := readIDs(ligandFile)
		if err != nil {
			return err
		}
		req.Ligands = append(req.Ligands, ids...)
	}
	switch {
	case req.Receptor == "":
		return fmt.Errorf("%w: --receptor is required", errUsage)
	case len(req.Ligands) == 0:
		return fmt.Errorf("%w: no ligands: give molecule ids as arguments or --ligands FILE", errUsage)
	case poll <= 0:
		return fmt.Errorf("%w: --poll must be positive", errUsage)
	}
	if box != "" {
		b, err := parseBox(box)
		if err != nil {
			return err
		}
		req.Box, req.Pocket = b, "box"
	}
	c, err := newAPIClient(s, 5*time.Minute)
	if err != nil {
		return err
	}

	start := time.Now()
	var st dockStatus
	if err := c.json(ctx, http.MethodPost, "v1/docking/jobs", req, http.StatusAccepted, &st); err != nil {
		return err
	}
	jobPath := strings.TrimPrefix(st.Links["self"], "/")
	if jobPath == "" {
		return fmt.Errorf("the server's reply has no job link")
	}
	fmt.Fprintf(stderr, "docking job %s: %d ligands into %s\n", st.ID, st.Total, req.Receptor)
	var bar *progressbar.ProgressBar
	if !quiet {
		bar = progressbar.NewOptions64(st.Total, progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("docking"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("ligand"), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionFullWidth())
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for !jobs.Status(st.Status).Finished() {
		select {
		case <-ctx.Done():
			fmt.Fprintf(stderr, "\nstopped following; the job goes on (cancel: DELETE /%s)\n", jobPath)
			return ctx.Err()
		case <-t.C:
		}
		if err := c.json(ctx, http.MethodGet, jobPath, nil, http.StatusOK, &st); err != nil {
			return err
		}
		if bar != nil {
			bar.Set64(st.Finished + st.Failed)
		}
	}
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	fmt.Fprintf(stdout, "%s %s: %d ligands, %d docked, %d failed in %s\n",
		st.ID, st.Status, st.Total, st.Finished, st.Failed, time.Since(start).Round(time.Millisecond))
	if err := printDockResults(ctx, c, jobPath, stdout); err != nil {
		return err
	}
	if st.Status != string(jobs.Succeeded) {
		return fmt.Errorf("job %s %s: %s", st.ID, st.Status, st.Error)
	}
	return nil
}

// printDockResults prints every result page (best affinity first) and the
// failures as a table.
func printDockResults(ctx context.Context, c *apiClient, jobPath string, w io.Writer) error {
	tw := bufio.NewWriter(w)
	defer tw.Flush()
	fmt.Fprintf(tw, "%-5s %-32s %13s %5s  %s\n", "rank", "ligand", "affinity_kcal", "modes", "pose")
	var failures []string
	cursor := ""
	for {
		q := url.Values{"limit": {"1000"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page dockResults
		if err := c.json(ctx, http.MethodGet, jobPath+"/results?"+q.Encode(), nil, http.StatusOK, &page); err != nil {
			return err
		}
		for _, r := range page.Results {
			fmt.Fprintf(tw, "%-5d %-32s %13.3f %5d  %s\n", r.Rank, r.Ligand, r.Affinity, len(r.Modes), r.PoseURL)
		}
		if cursor == "" {
			for _, f := range page.Failures {
				failures = append(failures, fmt.Sprintf("failed %s: %s", f.Ligand, f.Error))
			}
			// The first page carries the first failures; the rest are
			// paged apart.
			for next := page.FailuresNext; next != nil && *next != ""; {
				var fp dockResults
				q := url.Values{"kind": {"failures"}, "limit": {"1000"}, "cursor": {*next}}
				if err := c.json(ctx, http.MethodGet, jobPath+"/results?"+q.Encode(), nil, http.StatusOK, &fp); err != nil {
					return err
				}
				for _, f := range fp.Failures {
					failures = append(failures, fmt.Sprintf("failed %s: %s", f.Ligand, f.Error))
				}
				next = fp.NextCursor
			}
		}
		if page.NextCursor == nil || *page.NextCursor == "" {
			break
		}
		cursor = *page.NextCursor
	}
	for _, f := range failures {
		fmt.Fprintln(tw, f)
	}
	return nil
}

// readIDs reads molecule ids, one per line (blank lines and # comments
// skipped), from path or stdin ("-").
func readIDs(path string) ([]string, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var ids []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ids = append(ids, strings.Fields(line)[0])
	}
	return ids, sc.Err()
}

// parseBox reads "cx,cy,cz,sx,sy,sz".
func parseBox(s string) (*dockBox, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 6 {
		return nil, fmt.Errorf("%w: --box %q: want cx,cy,cz,sx,sy,sz", errUsage, s)
	}
	var v [6]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%w: --box %q: %q is not a number", errUsage, s, p)
		}
		v[i] = f
	}
	return &dockBox{Center: [3]float64{v[0], v[1], v[2]}, Size: [3]float64{v[3], v[4], v[5]}}, nil
}
