package sharedtest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
)

// PythonJSON runs script with Debian's /usr/bin/python3 (the independent
// references: python3-rdkit, python3-numpy), in as JSON on its standard
// input, and decodes its standard output into out. tb is skipped when the
// interpreter or a module it imports is missing (the script fails), and
// fails when the output is not JSON.
func PythonJSON(tb testing.TB, script string, in, out any) {
	tb.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		tb.Skipf("needs Debian python3 with the script's modules (python3-rdkit): %v %s", err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		tb.Fatalf("python output: %v", err)
	}
}
