package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestServeSweepsTempDirs: serve removes, at start, the working
// directories that a dead process left in its temp root
// (<data-dir>/tmp by default), and leaves alone those of a live process
// and names it did not make.
func TestServeSweepsTempDirs(t *testing.T) {
	dataDir := t.TempDir()
	root := filepath.Join(dataDir, "tmp")
	// pid 2^22+1 is above Linux's pid_max limit: no such process can run.
	dead := filepath.Join(root, strconv.Itoa(1<<22+1)+".123.vina-1")
	notOurs := filepath.Join(root, "keep-me")
	for _, d := range []string{dead, notOurs} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, []string{"--addr", "127.0.0.1:0", "--data-dir", dataDir, "--store", "memory"}, io.Discard, pw,
			envOf(map[string]string{"MOLGRAPH_API_KEY": "tmp-test-key-0123456789abcdefghijklmnopqrstuvwxyz"}))
		pw.Close()
	}()
	var swept int
	listening := false
	sc := bufio.NewScanner(pr)
	for !listening && sc.Scan() {
		var rec struct {
			Msg     string
			Removed int
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		switch rec.Msg {
		case "removed temporary directories left by dead processes":
			swept = rec.Removed
		case "listening":
			listening = true
		}
	}
	if !listening {
		t.Fatalf("serve did not start: %v", <-done)
	}
	go io.Copy(io.Discard, pr)
	if swept != 1 {
		t.Errorf("serve logged %d removed temp dirs, want 1", swept)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead process's dir is still there (%v)", err)
	}
	if _, err := os.Stat(notOurs); err != nil {
		t.Errorf("a name serve did not make was removed: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop")
	}
}
