package handlers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/graph/rdfio"
	"github.com/molgraph/molgraph/internal/sharedtest"
)

// BenchmarkExportStore exports a real store (the data directory named by
// MOLGRAPH_BENCH_EXPORT_DIR, e.g. a copy of the bench-sparql store of
// 100,000 drug-like molecules; skipped without it) as N-Quads to a
// counting writer, side by side: "dump" is the export's path (from ids),
// "match" the path it replaced for N-Quads (each graph matched, decoded,
// sorted and written by rdfio's writer), "http" the dump through GET
// /v1/export (N-Quads, identity) over a loopback listener, read by Go's
// client. It reports quads per second of wall time and per CPU second of
// the process (the figure that holds on a busy machine; "http" counts the
// client's CPU too).
func BenchmarkExportStore(b *testing.B) {
	dir := os.Getenv("MOLGRAPH_BENCH_EXPORT_DIR")
	if dir == "" {
		b.Skip("MOLGRAPH_BENCH_EXPORT_DIR not set")
	}
	st, err := graph.Open(dir, graph.Options{ColumnsMaxTriples: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	b.Run("http", func(b *testing.B) {
		f := newBenchFixture(b, st)
		srv := httptest.NewServer(f.srv)
		defer srv.Close()
		for b.Loop() {
			start, cpu0 := time.Now(), sharedtest.CPUTime()
			req, _ := http.NewRequest("GET", srv.URL+"/v1/export?format=nquads", nil)
			req.Header.Set("Authorization", "Bearer "+f.tokens["admin"])
			req.Header.Set("Accept-Encoding", "identity")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			quads, perr := strconv.ParseInt(resp.Trailer.Get(ExportTrailer), 10, 64)
			if err != nil || resp.StatusCode != 200 || perr != nil {
				b.Fatal(resp.StatusCode, err, perr)
			}
			el, cpu := time.Since(start), sharedtest.CPUTime()-cpu0
			b.ReportMetric(float64(quads)/el.Seconds(), "quads/s")
			b.ReportMetric(float64(quads)/cpu.Seconds(), "quads/cpu-s")
			b.ReportMetric(float64(quads), "quads")
			b.ReportMetric(float64(n)/1e6, "MB")
		}
	})
	for _, path := range []string{"dump", "match"} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				start, cpu0 := time.Now(), sharedtest.CPUTime()
				e, err := NewExporter(ctx, st, rdfio.NQuads)
				if err != nil {
					b.Fatal(err)
				}
				if path == "match" {
					e.dump = false
					if e.names, err = GraphNames(ctx, st); err != nil {
						b.Fatal(err)
					}
				}
				cw := &countWriter{}
				es, err := e.Write(ctx, cw, nil)
				e.Close()
				if err != nil {
					b.Fatal(err)
				}
				el, cpu := time.Since(start), sharedtest.CPUTime()-cpu0
				b.ReportMetric(float64(es.Quads)/el.Seconds(), "quads/s")
				b.ReportMetric(float64(es.Quads)/cpu.Seconds(), "quads/cpu-s")
				b.ReportMetric(float64(es.Quads), "quads")
				b.ReportMetric(float64(cw.n)/1e6, "MB")
			}
		})
	}
}
