package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// The Virtuoso side: a server in a temporary directory, loaded with the
// export by Virtuoso's bulk loader.

type virtuoso struct {
	cmd       *exec.Cmd
	dir       string
	isqlAddr  string
	isql      string
	sparqlURL string
	done      chan error
	loadTime  time.Duration
	mem       int64
	stopped   bool
}

// iniFields fill bench/sparql/virtuoso.ini.
type iniFields struct {
	Dir, DirsAllowed                 string
	ISQLPort, HTTPPort               int
	NumberOfBuffers, MaxDirtyBuffers int64
	MaxQueryMem                      string
	Threads                          int
	QueryTimeout                     int // MaxQueryExecutionTime, seconds
}

// virtuosoBuffers follows Virtuoso's guidance (the comments of Debian's
// virtuoso.ini): 8 KiB pages, about 2/3 of the memory given to Virtuoso as
// buffers ("4 GB free: NumberOfBuffers 340000, MaxDirtyBuffers 250000"),
// MaxDirtyBuffers about 3/4 of them.
func virtuosoBuffers(mem int64) (buffers, dirty int64) {
	buffers = mem * 2 / 3 / 8192
	return buffers, buffers * 3 / 4
}

// autoMemory is twice the export's size, at least 2 GiB, at most half the
// available memory (MemAvailable).
func autoMemory(exportBytes int64) int64 {
	mem := max(2*exportBytes, 2<<30)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 && f[0] == "MemAvailable:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb*1024/2 < mem {
					mem = max(kb*1024/2, 512<<20)
				}
			}
		}
	}
	return mem
}

// startVirtuoso starts virtuoso-t in a temporary directory, hides its
// system graphs from the /sparql endpoint and bulk-loads exportDir.
func startVirtuoso(ctx context.Context, cfg config, exportDir string, out io.Writer) (v *virtuoso, err error) {
	for _, p := range []string{cfg.virtuosoBin, cfg.isqlBin, cfg.iniTemplate} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("virtuoso: %w (Debian package virtuoso-opensource-7; make bench-sparql installs it)", err)
		}
	}
	tmplText, err := os.ReadFile(cfg.iniTemplate)
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("virtuoso.ini").Option("missingkey=error").Parse(string(tmplText))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.iniTemplate, err)
	}
	absExport, err := filepath.Abs(exportDir)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(filepath.Join(absExport, exportFile))
	if err != nil {
		return nil, err
	}
	mem := cfg.virtuosoMem
	if mem == 0 {
		mem = autoMemory(fi.Size())
	}
	dir, err := os.MkdirTemp("", "molgraph-bench-virtuoso-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && v == nil {
			os.RemoveAll(dir)
		}
	}()
	if err := os.MkdirAll(filepath.Join(dir, "vsp"), 0o755); err != nil {
		return nil, err
	}
	isqlPort, err := freePortNumber()
	if err != nil {
		return nil, err
	}
	httpPort, err := freePortNumber()
	if err != nil {
		return nil, err
	}
	buffers, dirty := virtuosoBuffers(mem)
	var ini bytes.Buffer
	err = tmpl.Execute(&ini, iniFields{Dir: dir, DirsAllowed: absExport, ISQLPort: isqlPort, HTTPPort: httpPort,
		NumberOfBuffers: buffers, MaxDirtyBuffers: dirty, MaxQueryMem: strconv.FormatInt(max(mem/4, 256<<20)>>20, 10) + "M",
		Threads: runtime.NumCPU(), QueryTimeout: int(max(cfg.timeout.Seconds(), 1))})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.iniTemplate, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "virtuoso.ini"), ini.Bytes(), 0o644); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "virtuoso.out"))
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread() // see startServer: Pdeathsig
	cmd := exec.Command(cfg.virtuosoBin, "-f", "-c", filepath.Join(dir, "virtuoso.ini"))
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		runtime.UnlockOSThread()
		logf.Close()
		return nil, fmt.Errorf("virtuoso: %w", err)
	}
	v = &virtuoso{cmd: cmd, dir: dir, isql: cfg.isqlBin, isqlAddr: "127.0.0.1:" + strconv.Itoa(isqlPort),
		sparqlURL: "http://127.0.0.1:" + strconv.Itoa(httpPort) + "/sparql", done: make(chan error, 1), mem: mem}
	go func() { v.done <- cmd.Wait(); logf.Close() }()
	fail := func(err error) (*virtuoso, error) {
		v.stop(out)
		return nil, err
	}
	fmt.Fprintf(out, "virtuoso: starting in %s (buffers %d, dirty %d: %.1f GiB; isql %d, http %d)\n",
		dir, buffers, dirty, float64(mem)/(1<<30), isqlPort, httpPort)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		select {
		case err := <-v.done:
			v.stopped = true
			runtime.UnlockOSThread()
			log, _ := os.ReadFile(filepath.Join(dir, "virtuoso.log"))
			os.RemoveAll(dir)
			return nil, fmt.Errorf("virtuoso exited before it was ready (%v): %s", err, trim(tail(log, 1000)))
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(300 * time.Millisecond):
		}
		if sparqlReady(v.sparqlURL) {
			break
		}
		if time.Now().After(deadline) {
			return fail(errors.New("virtuoso: /sparql not ready after 3 minutes"))
		}
	}
	// The /sparql endpoint runs queries as the user "nobody" over all
	// graphs the user may read. Virtuoso's own graphs (its quad-map
	// schema, and two small sample graphs) would show in class counts and
	// triple counts: the samples are dropped, the schema graph is made
	// private (readable by dba only). molgraph's default graph is the
	// union of its data's graphs; so is Virtuoso's after this.
	setup := `SPARQL CLEAR GRAPH <http://www.w3.org/ns/ldp#>;
SPARQL CLEAR GRAPH <http://localuriqaserver/sparql>;
DB.DBA.RDF_GRAPH_GROUP_CREATE ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', 1);
DB.DBA.RDF_GRAPH_GROUP_INS ('http://www.openlinksw.com/schemas/virtrdf#PrivateGraphs', 'http://www.openlinksw.com/schemas/virtrdf#');
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 1);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 0, 1);
`
	if _, err := v.isqlRun(ctx, setup); err != nil {
		return fail(err)
	}
	// The bulk loader (https://vos.openlinksw.com/owiki/wiki/VOS/VirtBulkRDFLoader):
	// .nq files are read as N-Quads, each quad into its graph; the graph
	// argument names the graph of quads without one (there are none).
	t0 := time.Now()
	load := fmt.Sprintf("ld_dir ('%s', '%s', 'urn:molgraph:bench:no-graph');\nrdf_loader_run ();\ncheckpoint;\n", absExport, exportFile)
	for attempt := 1; ; attempt++ {
		if _, err := v.isqlRun(ctx, load); err != nil {
			return fail(err)
		}
		res, err := v.isqlRun(ctx, "SELECT COUNT(*) FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL OR ll_state <> 2;\n")
		if err != nil {
			return fail(err)
		}
		if strings.TrimSpace(res) == "0" {
			break
		}
		errs, _ := v.isqlRun(ctx, "SELECT ll_file, ll_state, ll_error FROM DB.DBA.LOAD_LIST;\n")
		// The loader's parallel inserts sometimes deadlock (SQL state
		// 40001) under load; the file is then marked failed, part loaded.
		// Loading it again is safe (the quad store keeps a quad once): the
		// file's state is reset and the loader run again.
		if attempt == 3 || !strings.Contains(errs, "40001") {
			return fail(fmt.Errorf("virtuoso: the bulk load failed: %s", trim([]byte(errs))))
		}
		fmt.Fprintf(out, "virtuoso: the bulk load hit a transaction deadlock; loading again (%s)\n", trim([]byte(errs)))
		load = "UPDATE DB.DBA.LOAD_LIST SET ll_state = 0, ll_error = NULL WHERE ll_error IS NOT NULL OR ll_state <> 2;\nrdf_loader_run ();\ncheckpoint;\n"
	}
	v.loadTime = time.Since(t0)
	// Every quad of the export, and nothing else, is what /sparql sees.
	want, err := countLines(filepath.Join(absExport, exportFile))
	if err != nil {
		return fail(err)
	}
	got, err := v.visibleQuads(ctx)
	if err != nil {
		return fail(err)
	}
	if got != want {
		return fail(fmt.Errorf("virtuoso: /sparql sees %d quads, the export has %d", got, want))
	}
	fmt.Fprintf(out, "virtuoso: bulk load of %.1f MB of N-Quads in %s (with the checkpoint)\n", float64(fi.Size())/1e6, v.loadTime.Round(time.Millisecond))
	return v, nil
}

// isqlRun runs SQL statements through isql-vt as dba; an error message in
// the output is an error.
func (v *virtuoso) isqlRun(ctx context.Context, sql string) (string, error) {
	cmd := exec.CommandContext(ctx, v.isql, v.isqlAddr, "dba", "dba", "VERBOSE=OFF", "BANNER=OFF", "PROMPT=OFF", "ECHO=OFF")
	cmd.Stdin = strings.NewReader(sql)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	s := buf.String()
	if err != nil {
		return s, fmt.Errorf("isql: %w: %s", err, trim([]byte(s)))
	}
	if strings.Contains(s, "*** Error") {
		return s, fmt.Errorf("isql: %s", trim([]byte(s[strings.Index(s, "*** Error"):])))
	}
	return s, nil
}

// stop shuts Virtuoso down (SIGTERM, SIGKILL after 60 s) and removes its
// directory.
func (v *virtuoso) stop(out io.Writer) {
	if v.stopped {
		return
	}
	v.stopped = true
	defer runtime.UnlockOSThread()
	v.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-v.done:
	case <-time.After(60 * time.Second):
		v.cmd.Process.Kill()
		<-v.done
		fmt.Fprintln(out, "virtuoso did not stop within 60 s of SIGTERM; killed")
	}
	if err := os.RemoveAll(v.dir); err != nil {
		fmt.Fprintf(out, "virtuoso: remove %s: %v\n", v.dir, err)
	}
}

// visibleQuads counts the quads the /sparql endpoint sees.
func (v *virtuoso) visibleQuads(ctx context.Context) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", v.sparqlURL,
		strings.NewReader(url.Values{"query": {"SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"}}.Encode()))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/sparql-results+json")
	resp, err := httpClient(10 * time.Minute).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	a, err := parseAnswer(resp.Header.Get("Content-Type"), body)
	if err != nil || len(a.rows) != 1 || len(a.rows[0]) != 1 || !a.rows[0][0].isNum {
		return 0, fmt.Errorf("virtuoso: counting quads: %v %s", err, trim(body))
	}
	return int64(a.rows[0][0].num), nil
}

// countLines counts the lines of a file (an N-Quads export: its quads).
func countLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		k, err := f.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func sparqlReady(endpoint string) bool {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.PostForm(endpoint, url.Values{"query": {"ASK {}"}})
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func freePortNumber() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
