package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runCLI runs a command line in-process.
func runCLI(t *testing.T, e map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), nil, args, &out, &errb, envOf(e))
	return code, out.String(), errb.String()
}

func TestKeysCLI(t *testing.T) {
	dir := t.TempDir()
	e := map[string]string{"MOLGRAPH_DATA_DIR": dir}
	code, out, errOut := runCLI(t, e, "keys", "create", "--name", "ci", "--scopes", "read,write", "--expires", "720h")
	if code != 0 {
		t.Fatalf("create: %d %s", code, errOut)
	}
	token := strings.TrimSpace(out)
	if !strings.HasPrefix(token, "mgk_") || strings.Count(out, "\n") != 1 {
		t.Fatalf("stdout should be the token alone: %q", out)
	}
	if !strings.Contains(errOut, "scopes read,write") || !strings.Contains(errOut, "expires ") {
		t.Fatalf("stderr: %q", errOut)
	}
	code, out, _ = runCLI(t, e, "keys", "list", "--json")
	if code != 0 || strings.Contains(out, token) {
		t.Fatalf("list: %d %s", code, out)
	}
	var list struct {
		Keys []struct{ ID, Name, Status string }
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Keys) != 1 || list.Keys[0].Name != "ci" {
		t.Fatalf("list json: %v %s", err, out)
	}
	id := list.Keys[0].ID
	// Flags after the positional argument work too.
	if code, out, errOut := runCLI(t, nil, "keys", "revoke", id, "--data-dir", dir); code != 0 || !strings.Contains(out, "revoked "+id) {
		t.Fatalf("revoke: %d %s %s", code, out, errOut)
	}
	code, out, _ = runCLI(t, e, "keys", "list")
	if code != 0 || !strings.Contains(out, "revoked") || !strings.HasPrefix(out, "ID") {
		t.Fatalf("list table: %s", out)
	}
	usage := [][]string{
		{"keys"},
		{"keys", "create", "--scopes", "read"},
		{"keys", "create", "--name", "x", "--scopes", "root"},
		{"keys", "create", "--name", "x", "--expires", "soon"},
		{"keys", "revoke"},
		{"keys", "frobnicate"},
		{"nonsense"},
		{},
	}
	for _, args := range usage {
		if code, _, _ := runCLI(t, e, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	if code, _, errOut := runCLI(t, e, "keys", "revoke", "key-nope"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("revoke unknown: %d %s", code, errOut)
	}
}

// buildBinary compiles the molgraph command once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	bin := filepath.Join(t.TempDir(), "molgraph")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// server is a running "molgraph serve" child process.
type server struct {
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan error
}

func (s *server) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdout.String() + s.stderr.String()
}

// startServer runs the binary on a free port and waits for its
// "listening" log line.
func startServer(t *testing.T, bin, dataDir string, extraEnv ...string) *server {
	t.Helper()
	s := &server{done: make(chan error, 1)}
	s.cmd = exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--shutdown-timeout", "10s")
	s.cmd.Env = append(os.Environ(), extraEnv...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stdout = &lockedWriter{mu: &s.mu, w: &s.stdout}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
				addr <- rec.Addr
			}
		}
		s.done <- s.cmd.Wait()
	}()
	select {
	case a := <-addr:
		s.url = "http://" + a
	case err := <-s.done:
		t.Fatalf("server exited before listening: %v\n%s", err, s.logs())
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		t.Fatalf("server did not start\n%s", s.logs())
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
		}
	})
	return s
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// stop sends SIGTERM and expects a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, s.logs())
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		t.Fatalf("no exit within 30 s of SIGTERM\n%s", s.logs())
	}
	if !strings.Contains(s.logs(), `"msg":"shutdown complete"`) {
		t.Fatalf("no clean shutdown logged\n%s", s.logs())
	}
}

func get(t *testing.T, url, token string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header
}

// TestServeEndToEnd builds the binary and runs it as a user would: first
// start prints and saves the bootstrap key, the key works, the CLI creates
// and revokes keys while the server runs, SIGTERM stops it cleanly, and a
// restart keeps the keys without a new bootstrap.
func TestServeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	s := startServer(t, bin, dataDir)

	raw, err := os.ReadFile(filepath.Join(dataDir, "bootstrap-key"))
	if err != nil {
		t.Fatalf("bootstrap-key: %v\n%s", err, s.logs())
	}
	admin := strings.TrimSpace(string(raw))
	if st, _ := os.Stat(filepath.Join(dataDir, "bootstrap-key")); st.Mode().Perm() != 0o600 {
		t.Fatalf("bootstrap-key mode %v", st.Mode().Perm())
	}
	if n := strings.Count(s.logs(), admin); n != 1 {
		t.Fatalf("bootstrap token printed %d times, want once\n%s", n, s.logs())
	}

	if code, body, _ := get(t, s.url+"/healthz", ""); code != 200 || !strings.Contains(body, "ok") {
		t.Fatalf("healthz: %d %s", code, body)
	}
	if code, body, _ := get(t, s.url+"/readyz", ""); code != 200 {
		t.Fatalf("readyz: %d %s", code, body)
	}
	if code, _, h := get(t, s.url+"/v1/keys", ""); code != 401 || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("no key: %d %v", code, h)
	}
	if code, body, _ := get(t, s.url+"/v1/keys", admin); code != 200 || !strings.Contains(body, `"name":"bootstrap"`) {
		t.Fatalf("/v1/keys: %d %s", code, body)
	}

	// The CLI works on the same data dir while the server runs.
	out, err := exec.Command(bin, "keys", "create", "--data-dir", dataDir, "--name", "reader", "--scopes", "read").Output()
	if err != nil {
		t.Fatal(err)
	}
	reader := strings.TrimSpace(string(out))
	if code, _, _ := get(t, s.url+"/v1/openapi.json", reader); code != 200 {
		t.Fatalf("CLI-created key rejected: %d", code)
	}
	if code, _, _ := get(t, s.url+"/v1/keys", reader); code != 403 {
		t.Fatalf("read key on admin route: %d", code)
	}
	code, body, _ := get(t, s.url+"/v1/keys", admin)
	var list struct{ Keys []struct{ ID, Name string } }
	json.Unmarshal([]byte(body), &list)
	var readerID string
	for _, k := range list.Keys {
		if k.Name == "reader" {
			readerID = k.ID
		}
	}
	if code != 200 || readerID == "" {
		t.Fatalf("server does not list the CLI's key: %s", body)
	}
	if out, err := exec.Command(bin, "keys", "revoke", "--data-dir", dataDir, readerID).CombinedOutput(); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	if code, _, _ := get(t, s.url+"/v1/openapi.json", reader); code != 401 {
		t.Fatalf("revoked key accepted: %d", code)
	}
	if code, _, _ := get(t, s.url+"/metrics", admin); code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	s.stop(t)

	// Restart: no second bootstrap, the admin key still works.
	s2 := startServer(t, bin, dataDir)
	if strings.Contains(s2.logs(), "bootstrap admin key created") || strings.Contains(s2.logs(), "shown only this once") {
		t.Fatalf("second start bootstrapped again\n%s", s2.logs())
	}
	if code, _, _ := get(t, s2.url+"/v1/keys", admin); code != 200 {
		t.Fatalf("admin key after restart: %d", code)
	}
	s2.stop(t)
}

// MOLGRAPH_API_KEY sets the first key; nothing is written to disk but
// its hash.
func TestServeWithOperatorKey(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	const key = "operator-chosen-key-with-enough-characters-0123456789"
	s := startServer(t, bin, dataDir, "MOLGRAPH_API_KEY="+key, "MOLGRAPH_STORE=memory")
	if _, err := os.Stat(filepath.Join(dataDir, "bootstrap-key")); !os.IsNotExist(err) {
		t.Fatalf("bootstrap-key written for an operator key: %v", err)
	}
	if strings.Contains(s.logs(), key) {
		t.Fatal("operator key printed")
	}
	keysFile, _ := os.ReadFile(filepath.Join(dataDir, "keys.json"))
	if bytes.Contains(keysFile, []byte(key)) {
		t.Fatal("keys.json contains the operator key")
	}
	if code, body, _ := get(t, s.url+"/v1/keys", key); code != 200 {
		t.Fatalf("operator key: %d %s", code, body)
	}
	s.stop(t)

	// A too-short operator key on a fresh dir is refused at start.
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--store", "memory")
	cmd.Env = append(os.Environ(), "MOLGRAPH_API_KEY=short")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "MOLGRAPH_API_KEY") {
		t.Fatalf("short operator key: %v\n%s", err, out)
	}
}
