package docking

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/sharedtest"

	"github.com/molgraph/molgraph/chem"
	dk "github.com/molgraph/molgraph/docking"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
)

const base = "http://localhost:8080/"

// full runs TestDock1iep at exhaustiveness 8 and checks the published
// affinity (about 2-3 minutes on 2 idle cores); the default run uses
// exhaustiveness 1, where the ETKDG conformer of imatinib does not reach the
// crystal site reliably (measured: -10.113 kcal/mol), so only the job
// mechanics and the pose reassembly are checked.
var full = flag.Bool("docking.full", false, "dock 1iep at exhaustiveness 8 and check the published affinity")

// corpus is ../shared/docking-corpus seen from the module root.
func corpus(t *testing.T, rel string) []byte {
	t.Helper()
	return sharedtest.ReadFile(t, "docking-corpus", rel)
}

type fixture struct {
	store  *graph.Store
	reg    *batch.Registry
	task   *Task
	runner *jobs.Runner
	mol    ontology.MoleculeRecord
}

// newFixture stores the corpus 1iep receptor (Meeko's PDBQT, pocket p1 =
// the documented box 15.190/53.903/16.917, 20 A) and registers imatinib
// from the crystal SDF.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, Options{Workers: 1})
}

// newFixtureWith is newFixture with the task's options.
func newFixtureWith(t *testing.T, opt Options) *fixture {
	t.Helper()
	vina, err := dk.NewVina(context.Background(), "")
	if err != nil {
		t.Skipf("vina: %v", err)
	}
	st, err := graph.OpenMemory(graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	pool, err := chem.NewPool(runtime.GOMAXPROCS(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	reg := batch.NewRegistry(st, pool, base, nil)
	mol, _, err := reg.Register(context.Background(), batch.Input{Format: chem.FormatMolfile,
		Content: string(corpus(t, "vina-examples/1iep/1iep_ligand.sdf")), Name: "imatinib", Generate3D: true})
	if err != nil {
		t.Fatal(err)
	}
	storeReceptor(t, st, ontology.ReceptorPocket{ID: "p1", Rank: 1, Center: [3]float64{15.190, 53.903, 16.917},
		Size: [3]float64{20, 20, 20}, Score: 1})
	task := NewTask(reg, vina, opt)
	r, err := jobs.NewRunner(st, base, []jobs.Task{task}, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return &fixture{store: st, reg: reg, task: task, runner: r, mol: mol}
}

func (f *fixture) submit(t *testing.T, req Request) jobs.Job {
	t.Helper()
	j, err := f.task.NewJob(context.Background(), jobs.NewID(JobIDPrefix, time.Now()), req)
	if err != nil {
		t.Fatal(err)
	}
	if j, err = f.runner.Submit(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	return j
}

func (f *fixture) wait(t *testing.T, id string, d time.Duration) ontology.DockingJobRecord {
	t.Helper()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		r, err := f.task.Record(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if jobs.Status(r.Status).Finished() {
			// RecordHead is the same record without the ligand list.
			h, err := f.task.RecordHead(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if h.Ligands != nil || len(r.Ligands) == 0 {
				t.Errorf("head ligands %v, record ligands %v", h.Ligands, r.Ligands)
			}
			full := r
			full.Ligands = nil
			if !reflect.DeepEqual(h, full) {
				t.Errorf("RecordHead %+v\nRecord   %+v", h, full)
			}
			return r
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("job %s not finished after %v", id, d)
	return ontology.DockingJobRecord{}
}

// TestDock1iep docks imatinib into 1iep (seed 42); with -docking.full
// (exhaustiveness 8) the best affinity must be within 1 kcal/mol of the documented -13.23 (Vina
// docs, exh 32) / -13.357 (corpus README, exh 8), and the reassembled pose
// must read back to the registered InChIKey.
func TestDock1iep(t *testing.T) {
	f := newFixture(t)
	exh, limit := 1, 3*time.Minute
	if *full {
		exh, limit = 8, 10*time.Minute
	}
	j := f.submit(t, Request{Receptor: "rec-1iep", Ligands: []string{f.mol.ID}, Pocket: "auto",
		Params: dk.Params{Exhaustiveness: exh, NumModes: 9, EnergyRange: 3, Seed: 42}})
	r := f.wait(t, j.ID, limit)
	if r.Status != "succeeded" || r.Progress.Finished != 1 || r.Progress.Failed != 0 || r.Progress.BestAffinity == nil {
		t.Fatalf("job: %+v", r)
	}
	if r.Engine != "AutoDock Vina" && r.Engine == "" || r.Version == "" {
		t.Errorf("engine %q %q", r.Engine, r.Version)
	}
	best := *r.Progress.BestAffinity
	t.Logf("best affinity %.3f kcal/mol", best)
	if *full && math.Abs(best-(-13.357)) > 1 {
		t.Errorf("best affinity %.3f, want -13.357 +- 1", best)
	}
	poses, failure, err := f.task.Result(context.Background(), j.IRI, f.mol.ID)
	if err != nil || failure != nil || len(poses) == 0 {
		t.Fatalf("result: %v %v %v", poses, failure, err)
	}
	// A job whose results index is gone (a data dir older than the
	// index) paged from its RecordHead, as GET .../results reads it: the
	// rebuild reads the whole record for the ligands the head lacks.
	var dels []graph.SideEntry
	if err := f.store.ScanSide(context.Background(), jobIndexPrefix(j.IRI), func(k, _ []byte) error {
		dels = append(dels, graph.SideEntry{Key: bytes.Clone(k)})
		return nil
	}); err != nil || len(dels) == 0 {
		t.Fatalf("index entries %d: %v", len(dels), err)
	}
	if err := f.store.PutSide(context.Background(), dels); err != nil {
		t.Fatal(err)
	}
	head, err := f.task.RecordHead(context.Background(), j.ID)
	if err != nil || head.Ligands != nil || head.Progress.Total != 1 {
		t.Fatalf("head %+v: %v", head, err)
	}
	pg, err := f.task.Page(context.Background(), head, IndexAffinity, nil, 10)
	if err != nil || len(pg.Results) != 1 || pg.Results[0].Ligand != f.mol.ID {
		t.Fatalf("page from the head after the index was dropped: %+v %v", pg, err)
	}
	if poses[0].Affinity != best || poses[0].Mode != 1 {
		t.Errorf("pose 1: %+v, best %v", poses[0], best)
	}
	for i := 1; i < len(poses); i++ {
		if poses[i].Affinity < poses[i-1].Affinity || poses[i].Affinity > best+3 {
			t.Errorf("mode %d affinity %v out of order or range", i+1, poses[i].Affinity)
		}
	}
	sdf, err := f.task.PoseFile(context.Background(), j.IRI, f.mol.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.reg.Pool().Process(context.Background(), chem.Input{Format: chem.FormatMolfile, Content: string(sdf)})
	if err != nil {
		t.Fatal(err)
	}
	if got.InChIKey != f.mol.InChIKey {
		t.Errorf("pose reads back as %s, registered %s", got.InChIKey, f.mol.InChIKey)
	}
	if !strings.Contains(string(sdf), "> <affinity_kcal>\n"+strconv.FormatFloat(best, 'f', 3, 64)+"\n") {
		t.Errorf("affinity tag missing:\n%s", sdf)
	}
	// Every pose was checked, and the checks came back from the graph. A
	// Vina pose keeps the prepared bond lengths, angles and stereo (only
	// torsions move), whatever the search found.
	for _, p := range poses {
		if p.Valid == nil || len(p.Checks) != len(chem.PoseCheckSpecs()) || p.CheckError != "" {
			t.Fatalf("mode %d: checks %+v valid %v error %q", p.Mode, p.Checks, p.Valid, p.CheckError)
		}
		for _, c := range p.Checks {
			switch c.Name {
			case chem.CheckBondLengths, chem.CheckBondAngles, chem.CheckStereo, chem.CheckAromaticRingFlatness:
				if c.Pass == nil || !*c.Pass {
					t.Errorf("mode %d: %s failed", p.Mode, c.Name)
				}
			}
		}
	}
	t.Logf("mode 1 valid %v", *poses[0].Valid)
}

// TestPoseCheckNames: the graph has terms for exactly the checks chem runs.
func TestPoseCheckNames(t *testing.T) {
	var names []string
	for _, s := range chem.PoseCheckSpecs() {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, ontology.PoseCheckNames()) {
		t.Errorf("chem %v, ontology %v", names, ontology.PoseCheckNames())
	}
}

// TestNewJobErrors: bad requests are refused with their sentinel.
func TestNewJobErrors(t *testing.T) {
	f := newFixture(t)
	m := f.mol.ID
	bad := &dk.Box{Center: [3]float64{0, 0, 0}, Size: [3]float64{0, 1, 1}}
	for _, c := range []struct {
		name string
		req  Request
		want error
	}{
		{"no ligands", Request{Receptor: "rec-1iep"}, ErrInvalidRequest},
		{"duplicate", Request{Receptor: "rec-1iep", Ligands: []string{m, m}}, ErrInvalidRequest},
		{"unknown ligand", Request{Receptor: "rec-1iep", Ligands: []string{m, "mol-nope"}}, ErrUnknownLigands},
		{"unknown receptor", Request{Receptor: "rec-nope", Ligands: []string{m}}, ErrUnknownReceptor},
		{"no pocket", Request{Receptor: "rec-1iep", Ligands: []string{m}, Pocket: "p7"}, ErrNoPocket},
		{"bad pocket", Request{Receptor: "rec-1iep", Ligands: []string{m}, Pocket: "left"}, ErrInvalidRequest},
		{"box missing", Request{Receptor: "rec-1iep", Ligands: []string{m}, Pocket: "box"}, ErrInvalidRequest},
		{"bad box", Request{Receptor: "rec-1iep", Ligands: []string{m}, Pocket: "box", Box: bad}, ErrInvalidRequest},
		{"exhaustiveness", Request{Receptor: "rec-1iep", Ligands: []string{m}, Params: dk.Params{Exhaustiveness: 65}}, ErrInvalidRequest},
		{"modes", Request{Receptor: "rec-1iep", Ligands: []string{m}, Params: dk.Params{NumModes: 21}}, ErrInvalidRequest},
		{"energy", Request{Receptor: "rec-1iep", Ligands: []string{m}, Params: dk.Params{EnergyRange: 10.5}}, ErrInvalidRequest},
	} {
		_, err := f.task.NewJob(context.Background(), "dock-x", c.req)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		var ue *UnknownLigandsError
		if errors.As(err, &ue) && (len(ue.IDs) != 1 || ue.IDs[0] != "mol-nope") {
			t.Errorf("%s: unknown %v", c.name, ue.IDs)
		}
	}
}

// TestCancel: a cancelled job ends cancelled with no vina process left.
func TestCancel(t *testing.T) {
	f := newFixture(t)
	j := f.submit(t, Request{Receptor: "rec-1iep", Ligands: []string{f.mol.ID}, Params: dk.Params{Exhaustiveness: 8}})
	time.Sleep(3 * time.Second)
	got, err := f.runner.Cancel(context.Background(), j.IRI)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != jobs.Cancelled {
		t.Fatalf("status %s", got.Status)
	}
	if _, err := f.runner.Cancel(context.Background(), j.IRI); !errors.Is(err, jobs.ErrFinished) {
		t.Errorf("second cancel: %v, want ErrFinished", err)
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if strings.Contains(string(cmd), "vina") && strings.Contains(string(stat), " "+strconv.Itoa(os.Getpid())+" ") {
			t.Errorf("orphan vina process %s: %q", e.Name(), cmd)
		}
	}
}

// TestLigandTimeout: a ligand whose vina run passes Options.LigandTimeout
// fails with a timeout (vina killed, nothing left running), and a job
// whose every ligand failed ends failed.
func TestLigandTimeout(t *testing.T) {
	f := newFixtureWith(t, Options{Workers: 1, LigandTimeout: 300 * time.Millisecond})
	// Imatinib at exhaustiveness 8 takes about a minute.
	j := f.submit(t, Request{Receptor: "rec-1iep", Ligands: []string{f.mol.ID}, Params: dk.Params{Exhaustiveness: 8}})
	r := f.wait(t, j.ID, time.Minute)
	if r.Status != "failed" || r.Progress.Failed != 1 || r.Progress.Finished != 0 {
		t.Fatalf("job: %s, progress %+v", r.Status, r.Progress)
	}
	_, failure, err := f.task.Result(context.Background(), j.IRI, f.mol.ID)
	if err != nil || failure == nil || !strings.Contains(failure.Error, dk.ErrTimeout.Error()) || !strings.Contains(failure.Error, "300ms") {
		t.Fatalf("failure %+v (%v), want the 300ms time limit", failure, err)
	}
	if ps := sharedtest.Procs(func(p sharedtest.Proc) bool {
		return p.PPid == os.Getpid() && filepath.Base(p.Args[0]) == "vina"
	}); len(ps) > 0 {
		t.Errorf("vina still runs: %+v", ps)
	}
}
