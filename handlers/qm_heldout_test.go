package handlers

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQMXtbG98Refused: xtb's g98.out (a Gaussian 98 banner over normal
// modes only) answers 422 unsupported_log naming the file and what to
// upload instead, with or without program=gaussian, and stores nothing.
func TestQMXtbG98Refused(t *testing.T) {
	f, st := newQMGateFixture(t, 0)
	data, err := os.ReadFile(filepath.Join("..", "parsers", "xtb", "testdata", "heldout", "water_hess.g98.out"))
	if err != nil {
		t.Fatal(err)
	}
	before := countQuads(t, st)
	for _, extra := range [][]string{nil, {"program", "gaussian"}} {
		rec := f.parse(t, "g98.out", data, extra...)
		p := problemOf(t, rec, http.StatusUnprocessableEntity, "unsupported_log")
		if !strings.Contains(p.Detail, "g98.out") || !strings.Contains(p.Detail, "xtb's standard output") {
			t.Errorf("%v: status %d problem %+v", extra, rec.Code, p)
		}
	}
	assertNothingStored(t, st, before, data)
}
