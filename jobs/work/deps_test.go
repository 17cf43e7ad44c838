package work

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoGraphImport: the executors run on workers with no store, so
// neither this package nor anything it imports may import package graph.
func TestNoGraphImport(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/molgraph/molgraph/graph" || strings.HasPrefix(p, "github.com/molgraph/molgraph/graph/") {
			t.Errorf("jobs/work depends on %s", p)
		}
	}
}
