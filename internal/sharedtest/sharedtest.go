// Package sharedtest holds what tests of several packages share: it locates
// the project's shared corpora, the directory ../shared beside the module
// root (W3C suites, the QM and docking corpora, the spec), which tests read
// there instead of copying them into the repository's testdata; and it
// reports the process's CPU time and peak RSS for benchmarks.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns ../shared beside the module root (the directory holding
// go.mod above the working directory), failing tb when there is no module
// root. It does not check that the directory exists.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("sharedtest: module root (go.mod) not found")
		}
		dir = parent
	}
}

// Dir returns the path of sub (joined) under ../shared, skipping tb when
// it does not exist: the corpora are beside the repository, not in it.
func Dir(tb testing.TB, sub ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Root(tb)}, sub...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared corpus not available: %v", err)
	}
	return p
}

// ReadFile reads the file sub (joined) under ../shared, skipping tb when it
// does not exist and failing it on any other error.
func ReadFile(tb testing.TB, sub ...string) []byte {
	tb.Helper()
	p := filepath.Join(append([]string{Root(tb)}, sub...)...)
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		tb.Skipf("shared corpus not available: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
