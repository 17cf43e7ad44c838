package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/schollz/progressbar/v3"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/handlers"
)

// exportCmd is "molgraph export": the whole graph to a file, with a
// progress bar on stderr.
//
// Two sources, chosen explicitly rather than guessed:
//   - --server URL (MOLGRAPH_SERVER): GET <URL>v1/export from a running
//     server with an admin key (--key, MOLGRAPH_API_KEY, or the data
//     directory's bootstrap-key). The server's trailer is checked, so a
//     dump cut short is an error, not a short file.
//   - otherwise the data directory itself (Badger). Badger locks its
//     directory, so this works only while no server uses it; the error
//     says to use --server then.
//
// The file is written under a temporary name and renamed when complete.
func exportCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	var quiet bool
	opts := []option{
		dataDirOption(),
		{"format", "MOLGRAPH_EXPORT_FORMAT", "", "nquads, ntriples, turtle or jsonld (default: from the file name, else nquads)"},
		{"server", "MOLGRAPH_SERVER", "", "base URL of a running molgraph (e.g. http://localhost:8080/); empty: read the data directory"},
		{"key", "MOLGRAPH_API_KEY", "", "admin API key for --server (default: <data-dir>/bootstrap-key)"},
	}
	s, rest, err := parseOptions("export", opts, func(fs *flag.FlagSet) {
		fs.BoolVar(&quiet, "quiet", false, "no progress bar")
		fs.Usage = func() {
			fmt.Fprintln(fs.Output(), "Usage: molgraph export [flags] FILE   (FILE \"-\" is stdout; a .gz suffix compresses)")
			fs.PrintDefaults()
		}
	}, args, stderr, getenv)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: want one output FILE (\"-\" for stdout)", errUsage)
	}
	out := rest[0]
	gz := strings.HasSuffix(out, ".gz")
	f, err := exportFormat(s.str("format"), strings.TrimSuffix(out, ".gz"))
	if err != nil {
		return err
	}
	var w io.Writer = stdout
	var commit func() error
	var abort func()
	if out != "-" {
		tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		w = tmp
		commit = func() error {
			if err := tmp.Close(); err != nil {
				return err
			}
			return os.Rename(tmp.Name(), out)
		}
		abort = func() { tmp.Close(); os.Remove(tmp.Name()) }
	}
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(w)
		w = zw
	}
	var bar *progressbar.ProgressBar
	newBar := func(max int64, desc string, bytes bool) *progressbar.ProgressBar {
		if quiet {
			return nil
		}
		bar = progressbar.NewOptions64(max, progressbar.OptionSetWriter(stderr), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(), progressbar.OptionShowBytes(bytes),
			progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(max > 0))
		return bar
	}
	start := time.Now()
	var st handlers.ExportStats
	var bytes int64
	if server := s.str("server"); server != "" {
		st, bytes, err = exportHTTP(ctx, server, s.apiKey(), f, w, newBar)
	} else {
		st, bytes, err = exportLocal(ctx, s.str("data-dir"), f, w, newBar)
	}
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if err == nil && commit != nil {
		err = commit()
	}
	if err != nil {
		if abort != nil {
			abort()
		}
		return err
	}
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	el := time.Since(start)
	fmt.Fprintf(stderr, "exported %d quads from %d graphs (%s, %.1f MB) in %s: %.0f quads/s\n",
		st.Quads, st.Graphs, f, float64(bytes)/1e6, el.Round(time.Millisecond), float64(st.Quads)/el.Seconds())
	return nil
}

// exportFormat takes --format, else the file extension, else N-Quads.
func exportFormat(name, file string) (rdfio.Format, error) {
	if name != "" {
		f, err := rdfio.ParseFormat(name)
		if err != nil {
			return 0, fmt.Errorf("%w: --format: %v", errUsage, err)
		}
		return f, nil
	}
	switch strings.ToLower(filepath.Ext(file)) {
	case ".nt":
		return rdfio.NTriples, nil
	case ".ttl":
		return rdfio.Turtle, nil
	case ".jsonld", ".json":
		return rdfio.JSONLD, nil
	}
	return rdfio.NQuads, nil
}

// countingWriter counts bytes.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// barFunc makes the progress bar (nil when quiet): max -1 is unknown.
type barFunc func(max int64, desc string, bytes bool) *progressbar.ProgressBar

func exportLocal(ctx context.Context, dataDir string, f rdfio.Format, w io.Writer, newBar barFunc) (handlers.ExportStats, int64, error) {
	store, err := graph.Open(dataDir, graph.Options{})
	if err != nil {
		return handlers.ExportStats{}, 0, fmt.Errorf("export: open %s: %w (if a server is running on this data directory, export through it: --server http://HOST:PORT/)", dataDir, err)
	}
	defer store.Close()
	e, err := handlers.NewExporter(ctx, store, f)
	if err != nil {
		return handlers.ExportStats{}, 0, err
	}
	defer e.Close()
	bar := newBar(int64(e.Graphs()), "graphs", false)
	cw := &countingWriter{w: w}
	st, err := e.Write(ctx, cw, func(st handlers.ExportStats) {
		if bar != nil {
			bar.Set(st.Graphs)
		}
	})
	return st, cw.n, err
}

func exportHTTP(ctx context.Context, server, key string, f rdfio.Format, w io.Writer, newBar barFunc) (handlers.ExportStats, int64, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return handlers.ExportStats{}, 0, fmt.Errorf("%w: --server %q is not an http(s) URL", errUsage, server)
	}
	if key == "" {
		return handlers.ExportStats{}, 0, fmt.Errorf("%w: --server needs an admin key (--key or MOLGRAPH_API_KEY)", errUsage)
	}
	u = u.JoinPath("v1", "export")
	u.RawQuery = url.Values{"format": {f.String()}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return handlers.ExportStats{}, 0, fmt.Errorf("export: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req) // asks for gzip and decompresses
	if err != nil {
		return handlers.ExportStats{}, 0, fmt.Errorf("export: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var p handlers.Problem
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		if json.Unmarshal(body, &p) == nil && p.Detail != "" {
			return handlers.ExportStats{}, 0, fmt.Errorf("export: %s: %s (%s)", u.Redacted(), resp.Status, p.Detail)
		}
		return handlers.ExportStats{}, 0, fmt.Errorf("export: %s: %s", u.Redacted(), resp.Status)
	}
	var st handlers.ExportStats
	fmt.Sscan(resp.Header.Get(handlers.ExportHeader), &st.GraphsTotal)
	bar := newBar(-1, fmt.Sprintf("downloading %d graphs", st.GraphsTotal), true)
	cw := &countingWriter{w: w}
	dst := io.Writer(cw)
	if bar != nil {
		dst = io.MultiWriter(cw, bar)
	}
	if _, err := io.Copy(dst, resp.Body); err != nil {
		return st, cw.n, fmt.Errorf("export: reading the dump: %w", err)
	}
	trailer := resp.Trailer.Get(handlers.ExportTrailer)
	if trailer == "" {
		return st, cw.n, errors.New("export: the server's dump ended without its completion trailer: it was cut short")
	}
	fmt.Sscan(trailer, &st.Quads)
	st.Graphs = st.GraphsTotal
	return st, cw.n, nil
}
