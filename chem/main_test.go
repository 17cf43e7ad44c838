package chem

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/molgraph/molgraph/internal/sharedtest"
)

// testPool is shared by the tests of this package (created in TestMain).
var testPool *Pool

// helperEnv makes the test binary the 3D helper process (RunEmbedHelper).
const helperEnv = "MOLGRAPH_CHEM_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "embed" {
		if err := RunEmbedHelper(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	p, err := NewPool(runtime.GOMAXPROCS(0))
	if err != nil {
		panic(err)
	}
	testPool = p
	code := m.Run()
	p.Close()
	os.Exit(code)
}

// sharedDir is ../shared seen from the module root (the directory of go.mod).
func sharedDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Dir(t)
}

// refRow is one row of testdata/reference.csv.gz (see make_reference.py).
type refRow map[string]string

func loadReference(t testing.TB) []refRow {
	t.Helper()
	f, err := os.Open("testdata/reference.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(zr).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []refRow
	for _, rec := range recs[1:] {
		r := refRow{}
		for i, h := range recs[0] {
			r[h] = rec[i]
		}
		rows = append(rows, r)
	}
	return rows
}

// nciSMILES lists the SMILES of RDKit's NCI sample (Debian rdkit-data,
// first_5K.smi); none if the file is missing.
func nciSMILES() []string {
	data, err := os.ReadFile("/usr/share/RDKit/Data/NCI/first_5K.smi")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if smi, _, _ := strings.Cut(strings.TrimSpace(line), "\t"); smi != "" {
			out = append(out, smi)
		}
	}
	return out
}

func process(t testing.TB, in Input) (*Result, error) {
	t.Helper()
	return testPool.Process(context.Background(), in)
}
