package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/molgraph/molgraph/internal/sharedtest"
	"github.com/molgraph/molgraph/jobs/queue/jsq"
)

// The scale-out tests (design T2, T3) start a 3-server NATS cluster in
// this process, serve --queue nats and worker processes, and dock with the
// real vina: CPU-heavy, so they run only with MOLGRAPH_SCALE_TESTS=1
// (make test-scale).
func scaleTests(t *testing.T) {
	t.Helper()
	if os.Getenv("MOLGRAPH_SCALE_TESTS") != "1" {
		t.Skip("set MOLGRAPH_SCALE_TESTS=1 (make test-scale)")
	}
	if _, err := exec.LookPath("vina"); err != nil {
		t.Skip("vina not installed")
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// natsCluster starts three JetStream servers on 127.0.0.1 routed to each
// other (like nats-server's own cluster tests) and returns their client
// URLs, comma-separated.
func natsCluster(t *testing.T) string {
	_, urls := natsClusterServers(t)
	return urls
}

// natsClusterServers is natsCluster with the servers and their client
// URLs.
func natsClusterServers(t *testing.T) ([]*natsserver.Server, string) {
	t.Helper()
	var client, cluster []int
	for range 3 {
		client, cluster = append(client, freePort(t)), append(cluster, freePort(t))
	}
	var routes, urls []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", cluster[i]))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", client[i]))
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	servers := make([]*natsserver.Server, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := jsq.StartEmbedded(jsq.EmbeddedOptions{Name: fmt.Sprintf("n%d", i+1), Dir: t.TempDir(),
				Listen: fmt.Sprintf("127.0.0.1:%d", client[i]),
				Cluster: &jsq.ClusterOptions{Name: "mgtest", Listen: fmt.Sprintf("127.0.0.1:%d", cluster[i]), Routes: routes,
					NoAdvertise: true}}) // a worker behind the proxy must not find the others
			if err != nil {
				errs[i] = err
				return
			}
			servers[i] = s
			t.Cleanup(s.Shutdown)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Wait for the JetStream meta leader.
	nc, err := nats.Connect(strings.Join(urls, ","))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	for end := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("NATS cluster without JetStream: %v", err)
		}
	}
	return servers, strings.Join(urls, ",")
}

// proc is a worker child process.
type proc struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// startWorker runs "molgraph worker" with one slot and a vina wrapper that
// logs "start <name> <pid>" to vinaLog before exec'ing vina.
func startWorker(t *testing.T, bin, urls, name, vinaLog string) *proc {
	t.Helper()
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "vina")
	script := fmt.Sprintf("#!/bin/sh\ncase \"$1\" in --version) ;; *) echo \"start %s $$\" >> %s ;; esac\nexec vina \"$@\"\n", name, vinaLog)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return startProc(t, bin, "worker", "--nats-url", urls, "--kinds", "dock", "--slots", "1", "--name", name, "--vina", wrapper,
		"--work-dir", dir, "--nats-ack-wait", "4s", "--drain-timeout", "5s", "--log-format", "text")
}

// startProc runs bin with args, its output kept (logs), killed at the
// end of the test unless it has been waited for.
func startProc(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// vinaStarts reads the wrapper log: worker name and vina pid per start.
func vinaStarts(t *testing.T, path string) [][2]string {
	data, _ := os.ReadFile(path)
	var out [][2]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "start" {
			out = append(out, [2]string{f[1], f[2]})
		}
	}
	return out
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil {
		return false
	}
	// A zombie is dead too.
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(st), ") Z ")
}

// scaleFixture stores the 1iep receptor and small ligands on server s and
// returns the docking request body.
func scaleFixture(t *testing.T, url, key string) []byte {
	t.Helper()
	recData := sharedtest.ReadFile(t, "docking-corpus", "vina-examples/1iep/1iep_receptor.pdbqt")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "1iep_receptor.pdbqt")
	fw.Write(recData)
	mw.Close()
	var rec struct{ ID string }
	if code := post(t, url+"/v1/receptors", key, mw.FormDataContentType(), body.Bytes(), &rec); code != 201 {
		t.Fatalf("receptor: %d %+v", code, rec)
	}
	var ids []string
	for _, smi := range []string{"Oc1ccccc1", "OC(=O)c1ccccc1", "c1ccc2ccccc2c1", "Nc1ccncc1", "Cc1ccccc1O"} {
		var m struct{ ID string }
		b, _ := json.Marshal(map[string]any{"format": "smiles", "content": smi, "generate_3d": true})
		if code := post(t, url+"/v1/molecules", key, "application/json", b, &m); code != 201 {
			t.Fatalf("molecule %s: %d", smi, code)
		}
		ids = append(ids, m.ID)
	}
	req, _ := json.Marshal(map[string]any{"receptor": rec.ID, "ligands": ids, "pocket": "box",
		"box":            map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{14, 14, 14}},
		"exhaustiveness": 1, "num_modes": 3, "seed": 7})
	return req
}

type jobView struct {
	Status   string
	Finished int `json:"finished_ligands"`
	Failed   int `json:"failed_ligands"`
	Total    int `json:"total_ligands"`
}

func viewJob(t *testing.T, url, key, id string) jobView {
	t.Helper()
	code, b, _ := get(t, url+"/v1/docking/jobs/"+id, key)
	var v jobView
	if code != 200 || json.Unmarshal([]byte(b), &v) != nil {
		t.Fatalf("job view: %d %s", code, b)
	}
	return v
}

func waitJob(t *testing.T, url, key, id string, d time.Duration, logs func() string) jobView {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if v := viewJob(t, url, key, id); v.Status != "queued" && v.Status != "running" {
			return v
		}
	}
	t.Fatalf("job %s not finished after %v\n%s", id, d, logs())
	return jobView{}
}

// affinities reads every ligand's results (all modes) of a job: ligand ->
// mode affinities; it fails on a ligand listed twice.
func affinities(t *testing.T, url, key, id string) map[string][]float64 {
	t.Helper()
	code, b, _ := get(t, url+"/v1/docking/jobs/"+id+"/results?limit=100", key)
	var page struct {
		Results []struct {
			Ligand string
			Modes  []struct {
				Affinity float64 `json:"affinity_kcal"`
			}
		}
		Failures []struct{ Ligand, Error string }
	}
	if code != 200 || json.Unmarshal([]byte(b), &page) != nil {
		t.Fatalf("results: %d %s", code, b)
	}
	out := map[string][]float64{}
	for _, r := range page.Results {
		if _, dup := out[r.Ligand]; dup {
			t.Errorf("ligand %s has two outcomes", r.Ligand)
		}
		out[r.Ligand] = []float64{}
		for _, m := range r.Modes {
			out[r.Ligand] = append(out[r.Ligand], m.Affinity)
		}
	}
	for _, f := range page.Failures {
		if _, dup := out[f.Ligand]; dup {
			t.Errorf("ligand %s has two outcomes", f.Ligand)
		}
		out[f.Ligand] = nil
		t.Errorf("ligand %s failed: %s", f.Ligand, f.Error)
	}
	return out
}

// TestScaleOutWorkerKill (T2, with T3's coordinator kill): serve --queue
// nats against 3 NATS servers with no local slots, two worker processes
// of one slot. A worker is killed (kill -9) while its vina docks: its vina
// dies with it, the ligand is re-docked by the other worker after the ack
// wait. Then the coordinator is killed mid-job and restarted. Each job
// succeeds with exactly one outcome per ligand, and affinities equal those
// of a local-mode run of the same job (fixed seed).
func TestScaleOutWorkerKill(t *testing.T) {
	scaleTests(t)
	bin := buildBinary(t)
	urls := natsCluster(t)
	key := "scale-out-test-key-0123456789abcdefghijklmnopqrstuvwxyz"
	dataDir := t.TempDir()
	env := []string{"MOLGRAPH_API_KEY=" + key, "MOLGRAPH_QUEUE=nats", "MOLGRAPH_NATS_URL=" + urls,
		"MOLGRAPH_LOCAL_SLOTS=0", "MOLGRAPH_NATS_ACK_WAIT=4s", "MOLGRAPH_NATS_REPLICAS=3"}
	s := startServer(t, bin, dataDir, env...)
	req := scaleFixture(t, s.url, key)

	vinaLog := filepath.Join(t.TempDir(), "vina.log")
	a := startWorker(t, bin, urls, "A", vinaLog)
	b := startWorker(t, bin, urls, "B", vinaLog)
	_ = b
	var job struct{ ID string }
	if code := post(t, s.url+"/v1/docking/jobs", key, "application/json", req, &job); code != 202 {
		t.Fatalf("docking job: %d %+v", code, job)
	}
	// Kill A as soon as it runs vina.
	var killedPid int
	for end := time.Now().Add(3 * time.Minute); killedPid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("worker A never started vina\n%s\n%s", a.logs(), s.logs())
		}
		for _, st := range vinaStarts(t, vinaLog) {
			if st[0] == "A" {
				killedPid, _ = strconv.Atoi(st[1])
			}
		}
	}
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	a.cmd.Wait()
	for end := time.Now().Add(10 * time.Second); alive(killedPid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("vina %d of the killed worker still runs", killedPid)
		}
	}
	v := waitJob(t, s.url, key, job.ID, 10*time.Minute, func() string { return s.logs() + b.logs() })
	if v.Status != "succeeded" || v.Finished+v.Failed != v.Total || v.Total != 5 || v.Failed != 0 {
		t.Fatalf("job after the worker kill: %+v\n%s", v, s.logs())
	}
	nats1 := affinities(t, s.url, key, job.ID)
	if len(nats1) != 5 {
		t.Fatalf("%d ligands with outcomes, want 5", len(nats1))
	}
	starts := vinaStarts(t, vinaLog)
	if len(starts) != 6 {
		t.Errorf("%d vina starts, want 6 (5 ligands, one docked twice): %v", len(starts), starts)
	}

	// T3: the coordinator killed mid-job, then restarted.
	var job2 struct{ ID string }
	if code := post(t, s.url+"/v1/docking/jobs", key, "application/json", req, &job2); code != 202 {
		t.Fatalf("docking job 2: %d %+v", code, job2)
	}
	for end := time.Now().Add(3 * time.Minute); len(vinaStarts(t, vinaLog)) < len(starts)+2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("job 2 never started\n%s", s.logs())
		}
	}
	s.cmd.Process.Kill()
	<-s.done
	time.Sleep(2 * time.Second) // the worker goes on meanwhile
	s = startServer(t, bin, dataDir, env...)
	v = waitJob(t, s.url, key, job2.ID, 10*time.Minute, func() string { return s.logs() + b.logs() })
	if v.Status != "succeeded" || v.Finished != 5 || v.Failed != 0 {
		t.Fatalf("job after the coordinator kill: %+v\n%s", v, s.logs())
	}
	nats2 := affinities(t, s.url, key, job2.ID)
	if !strings.Contains(s.logs(), `"msg":"docking units enqueued"`) {
		t.Errorf("no reconcile logged at restart\n%s", s.logs())
	}
	s.stop(t)

	// The reference: the same job docked in this process's way (--queue
	// local) on the same data.
	s = startServer(t, bin, dataDir, "MOLGRAPH_API_KEY="+key, "MOLGRAPH_VINA_WORKERS=2")
	defer s.stop(t)
	var ref struct{ ID string }
	if code := post(t, s.url+"/v1/docking/jobs", key, "application/json", req, &ref); code != 202 {
		t.Fatalf("local job: %d", code)
	}
	if v := waitJob(t, s.url, key, ref.ID, 10*time.Minute, s.logs); v.Status != "succeeded" || v.Finished != 5 {
		t.Fatalf("local job: %+v", v)
	}
	local := affinities(t, s.url, key, ref.ID)
	for lig, want := range local {
		for name, got := range map[string][]float64{"worker kill": nats1[lig], "coordinator kill": nats2[lig]} {
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("ligand %s (%s): affinities %v, local run %v", lig, name, got, want)
			}
		}
	}
}

// tcpProxy forwards 127.0.0.1:<port> to target until cut (connections
// closed, new ones refused) and again after heal.
type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			if p.cut {
				p.mu.Unlock()
				c.Close()
				continue
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				p.mu.Unlock()
				c.Close()
				continue
			}
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
	return p
}

func (p *tcpProxy) url() string { return "nats://" + p.ln.Addr().String() }

func (p *tcpProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

// TestScaleOutPartition (T4 a, b): worker B reaches NATS only through a
// TCP proxy, which is cut for 3 ack waits while B docks a ligand, then
// healed: B fences itself (kills its vina, no ack), A docks that ligand
// again. Then one of the three NATS servers is shut down mid-job. Both
// jobs succeed with exactly one outcome per ligand and the same
// affinities.
func TestScaleOutPartition(t *testing.T) {
	scaleTests(t)
	bin := buildBinary(t)
	servers, urls := natsClusterServers(t)
	key := "scale-out-test-key-0123456789abcdefghijklmnopqrstuvwxyz"
	env := []string{"MOLGRAPH_API_KEY=" + key, "MOLGRAPH_QUEUE=nats", "MOLGRAPH_NATS_URL=" + urls,
		"MOLGRAPH_LOCAL_SLOTS=0", "MOLGRAPH_NATS_ACK_WAIT=4s", "MOLGRAPH_NATS_REPLICAS=3"}
	s := startServer(t, bin, t.TempDir(), env...)
	defer s.stop(t)
	req := scaleFixture(t, s.url, key)
	proxy := newProxy(t, strings.Split(urls, ",")[1][len("nats://"):])
	vinaLog := filepath.Join(t.TempDir(), "vina.log")
	b := startWorker(t, bin, proxy.url(), "B", vinaLog)
	a := startWorker(t, bin, urls, "A", vinaLog)

	var job struct{ ID string }
	if code := post(t, s.url+"/v1/docking/jobs", key, "application/json", req, &job); code != 202 {
		t.Fatalf("docking job: %d %+v", code, job)
	}
	var cutPid int
	for end := time.Now().Add(3 * time.Minute); cutPid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("worker B never started vina\n%s", b.logs())
		}
		for _, st := range vinaStarts(t, vinaLog) {
			if st[0] == "B" {
				cutPid, _ = strconv.Atoi(st[1])
			}
		}
	}
	// The status command sees both workers.
	out, err := exec.Command(bin, "workers", "--nats-url", urls).Output()
	var st jsq.DeploymentStatus
	if err != nil || json.Unmarshal(out, &st) != nil || len(st.Workers) != 2 {
		t.Errorf("molgraph workers: %v\n%s", err, out)
	}
	proxy.setCut(true)
	time.Sleep(12 * time.Second)
	if alive(cutPid) {
		t.Errorf("worker B did not stop its vina when cut off (pid %d)", cutPid)
	}
	proxy.setCut(false)
	starts := vinaStarts(t, vinaLog)
	t.Logf("vina starts (worker, pid) before the heal: %v; B fenced: %v", starts, strings.Contains(b.logs(), "cut off from NATS"))
	bStarts := 0
	for _, st := range starts {
		if st[0] == "B" {
			bStarts++
		}
	}
	if bStarts != 1 {
		t.Errorf("worker B started %d vina runs while cut off, want only the first", bStarts)
	}
	v := waitJob(t, s.url, key, job.ID, 10*time.Minute, func() string { return s.logs() + a.logs() + b.logs() })
	if v.Status != "succeeded" || v.Finished != 5 || v.Failed != 0 {
		t.Fatalf("job after the partition: %+v\n%s", v, s.logs())
	}
	first := affinities(t, s.url, key, job.ID)
	if !strings.Contains(b.logs(), "NATS disconnected") {
		t.Errorf("worker B was never cut off\n%s", b.logs())
	}

	// (b) One of three NATS servers shut down mid-job.
	var job2 struct{ ID string }
	if code := post(t, s.url+"/v1/docking/jobs", key, "application/json", req, &job2); code != 202 {
		t.Fatalf("docking job 2: %d", code)
	}
	n := len(vinaStarts(t, vinaLog))
	for end := time.Now().Add(3 * time.Minute); len(vinaStarts(t, vinaLog)) < n+1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("job 2 never started\n%s", s.logs())
		}
	}
	servers[2].Shutdown()
	v = waitJob(t, s.url, key, job2.ID, 10*time.Minute, func() string { return s.logs() + a.logs() + b.logs() })
	if v.Status != "succeeded" || v.Finished != 5 || v.Failed != 0 {
		t.Fatalf("job with a NATS server down: %+v\n%s", v, s.logs())
	}
	second := affinities(t, s.url, key, job2.ID)
	for lig, want := range first {
		if fmt.Sprint(second[lig]) != fmt.Sprint(want) {
			t.Errorf("ligand %s: %v with a server down, %v after the partition", lig, second[lig], want)
		}
	}
}

// batchView is GET /v1/molecules/batch/{id}.
type batchView struct {
	Status                                      string
	Total, Processed, Created, Existing, Failed int
}

func viewBatch(t *testing.T, url, key, id string) batchView {
	t.Helper()
	code, b, _ := get(t, url+"/v1/molecules/batch/"+id, key)
	var v batchView
	if code != 200 || json.Unmarshal([]byte(b), &v) != nil {
		t.Fatalf("batch view: %d %s", code, b)
	}
	return v
}

// batchItems reads every item of a batch job through the items route.
func batchItems(t *testing.T, url, key, id string) []string {
	t.Helper()
	var out []string
	cursor := ""
	for {
		code, b, _ := get(t, url+"/v1/molecules/batch/"+id+"/items?limit=1000&cursor="+cursor, key)
		var page struct {
			Items []struct {
				Index        int
				Status, Name string
				MoleculeID   string `json:"molecule_id"`
				Err          string `json:"error"`
			}
			NextCursor *string `json:"next_cursor"`
		}
		if code != 200 || json.Unmarshal([]byte(b), &page) != nil {
			t.Fatalf("batch items: %d %s", code, b)
		}
		for _, it := range page.Items {
			out = append(out, fmt.Sprintf("%d %s %s %q %q", it.Index, it.Status, it.MoleculeID, it.Name, it.Err))
		}
		if page.NextCursor == nil {
			return out
		}
		cursor = *page.NextCursor
	}
}

// TestScaleOutBatch (T5 with processes): the NCI sample (4,999 SMILES
// lines and two invalid ones) uploaded to serve --queue nats with the
// embedded NATS server and no chemistry of its own (--local-slots 0),
// prepared by two `molgraph worker --kinds chem` processes, one of them
// killed (kill -9) mid-job: the job succeeds with the counters and items
// of the same upload on serve --queue local.
func TestScaleOutBatch(t *testing.T) {
	scaleTests(t)
	data, err := os.ReadFile("/usr/share/RDKit/Data/NCI/first_5K.smi")
	if err != nil {
		t.Skipf("%v (apt install rdkit-data)", err)
	}
	upload := append(data, []byte("not-a-smiles bad1\nC1CC bad2\n")...)
	bin := buildBinary(t)
	key := "scale-out-test-key-0123456789abcdefghijklmnopqrstuvwxyz"
	submit := func(url string) string {
		var r struct {
			JobID string `json:"job_id"`
		}
		if code := post(t, url+"/v1/molecules/batch", key, "text/plain", upload, &r); code != 202 {
			t.Fatalf("batch upload: %d", code)
		}
		return r.JobID
	}
	wait := func(url, id string, logs func() string) batchView {
		for end := time.Now().Add(20 * time.Minute); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
			if v := viewBatch(t, url, key, id); v.Status != "queued" && v.Status != "running" {
				return v
			}
		}
		t.Fatalf("batch %s not finished\n%s", id, logs())
		return batchView{}
	}

	// The reference: in process.
	ls := startServer(t, bin, t.TempDir(), "MOLGRAPH_API_KEY="+key)
	lid := submit(ls.url)
	lv := wait(ls.url, lid, ls.logs)
	localItems := batchItems(t, ls.url, key, lid)

	dataDir := t.TempDir()
	natsAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s := startServer(t, bin, dataDir, "MOLGRAPH_API_KEY="+key, "MOLGRAPH_QUEUE=nats", "MOLGRAPH_NATS_LISTEN="+natsAddr,
		"MOLGRAPH_LOCAL_SLOTS=0", "MOLGRAPH_NATS_ACK_WAIT=4s")
	chemWorker := func(name string) *proc {
		return startProc(t, bin, "worker", "--nats-url", "nats://"+natsAddr, "--nats-creds", filepath.Join(dataDir, "nats", "worker.nk"),
			"--kinds", "chem", "--chem-workers", "1", "--name", name, "--work-dir", t.TempDir(), "--nats-ack-wait", "4s",
			"--drain-timeout", "5s", "--log-format", "text")
	}
	a, b := chemWorker("A"), chemWorker("B")
	id := submit(s.url)
	// Kill A once part of the job is committed: its units come back
	// after the ack wait and B prepares them.
	for end := time.Now().Add(10 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		v := viewBatch(t, s.url, key, id)
		if v.Processed > 0 {
			break
		}
		if v.Status != "queued" && v.Status != "running" || time.Now().After(end) {
			t.Fatalf("batch %+v before the kill\n%s\n%s", v, s.logs(), a.logs())
		}
	}
	a.cmd.Process.Kill()
	a.cmd.Wait()
	v := wait(s.url, id, func() string { return s.logs() + b.logs() })
	if v.Status != "succeeded" || v != (batchView{Status: "succeeded", Total: lv.Total, Processed: lv.Processed, Created: lv.Created,
		Existing: lv.Existing, Failed: lv.Failed}) || lv.Total != 5001 || lv.Failed < 2 {
		t.Fatalf("queued batch %+v, local %+v", v, lv)
	}
	items := batchItems(t, s.url, key, id)
	if len(items) != len(localItems) || len(items) != lv.Total {
		t.Fatalf("%d items, local %d", len(items), len(localItems))
	}
	for i := range items {
		if items[i] != localItems[i] {
			t.Fatalf("item %d: %s, local %s", i, items[i], localItems[i])
		}
	}
	if !strings.Contains(b.logs(), "worker started") {
		t.Errorf("worker B logs:\n%s", b.logs())
	}
}
