package queue_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyJSQImportsNATS: the NATS client and server are imported only
// by the JetStream queue and the command that wires it.
func TestOnlyJSQImportsNATS(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/molgraph/molgraph/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	allowed := map[string]bool{"github.com/molgraph/molgraph/jobs/queue/jsq": true, "github.com/molgraph/molgraph/cmd/molgraph": true}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		n++
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "github.com/nats-io/") && !allowed[f[0]] {
				t.Errorf("%s imports %s", f[0], imp)
			}
		}
	}
	if n < 10 {
		t.Errorf("go list gave %d packages", n)
	}
}
