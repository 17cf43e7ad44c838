package chem

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRDKitVersion compares the linked RDKit's version with the one
// Debian's python3-rdkit (built from the same source package) reports.
func TestRDKitVersion(t *testing.T) {
	out, err := exec.Command("python3", "-c", "import rdkit; print(rdkit.__version__)").Output()
	if err != nil {
		t.Skipf("python3-rdkit: %v", err)
	}
	if got, want := RDKitVersion(), strings.TrimSpace(string(out)); got != want {
		t.Fatalf("RDKitVersion() = %q, python3-rdkit says %q", got, want)
	}
}
