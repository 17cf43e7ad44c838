package handlers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs/batch"
	jobsdocking "github.com/molgraph/molgraph/jobs/docking"
)

// TestVinaLimits: the docking task's vina limits (--vina-workers,
// --vina-timeout) are listed in /metrics and in the OpenAPI document's
// x-molgraph-limits with the configured values.
func TestVinaLimits(t *testing.T) {
	vina, err := docking.NewVina(context.Background(), "")
	if err != nil {
		t.Skipf("vina: %v", err)
	}
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := batch.NewRegistry(st, nil, "http://example.org/", nil)
	dtask := jobsdocking.NewTask(reg, vina, jobsdocking.Options{Workers: 3, LigandTimeout: 90 * time.Second})
	f := newFixture(t, func(c *Config) { c.Docking = DockingServices{Task: dtask} })

	m := f.do(t, "GET", "/metrics", "read", nil).Body.String()
	for _, want := range []string{"molgraph_limit_vina_workers 3", "molgraph_limit_vina_ligand_timeout_seconds 90"} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(m, "vina"))
		}
	}
	var doc struct {
		Info struct {
			Limits []struct {
				Name  string
				Value float64
			} `json:"x-molgraph-limits"`
		}
	}
	if err := json.Unmarshal(f.do(t, "GET", "/v1/openapi.json", "read", nil).Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, l := range doc.Info.Limits {
		got[l.Name] = l.Value
	}
	if got["vina_workers"] != 3 || got["vina_ligand_timeout_seconds"] != 90 {
		t.Errorf("x-molgraph-limits: vina_workers %v, vina_ligand_timeout_seconds %v; want 3, 90", got["vina_workers"], got["vina_ligand_timeout_seconds"])
	}
}
