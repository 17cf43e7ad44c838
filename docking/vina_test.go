package docking

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/molgraph/molgraph/internal/subproc"
)

// The documented 1iep search box (vina-examples/1iep/1iep_receptor.box.txt).
var box1iep = Box{Center: [3]float64{15.190, 53.903, 16.917}, Size: [3]float64{20, 20, 20}}

func newVina(t testing.TB) *Vina {
	t.Helper()
	v, err := NewVina(context.Background(), "")
	if err != nil {
		t.Skipf("vina not installed (Debian autodock-vina): %v", err)
	}
	return v
}

func TestVinaVersion(t *testing.T) {
	v := newVina(t)
	// Debian 12 ships autodock-vina 1.2.3 (corpus README, section 1).
	if v.Version() != "1.2.3" || v.Name() != "AutoDock Vina" {
		t.Errorf("engine %q %q, want AutoDock Vina 1.2.3", v.Name(), v.Version())
	}
	if _, err := NewVina(context.Background(), "/nonexistent/vina"); !errors.Is(err, ErrEngine) {
		t.Errorf("missing binary: %v", err)
	}
}

// TestScoreOnlyPublished: vina --score_only of the crystal imatinib pose
// (the Vina repository's Meeko ligand) is -12.513 kcal/mol with the Vina
// repository's receptor, with `obabel -xr -h` on the H-stripped receptor
// and with PDB2PQR at pH 7.4 then `obabel -xr` (corpus README section 4,
// rows "1iep_receptor.pdbqt", rec_B and rec_E). PrepareReceptor's two
// routes are those, so both must give the same score.
func TestScoreOnlyPublished(t *testing.T) {
	v := newVina(t)
	lig := Ligand{Name: "imatinib", PDBQT: readCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt")}
	dir := t.TempDir()
	cases := []struct{ name, path string }{
		{"vina repo receptor", filepath.Join(corpus(t), "vina-examples/1iep/1iep_receptor.pdbqt")},
	}
	for _, route := range []string{RouteObabel, RoutePDB2PQR} {
		rec, err := PrepareReceptor(context.Background(), readCorpus(t, "derived/1iep_receptor_noH.pdb"), ReceptorOptions{Route: route})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Preparation.Route != route {
			t.Logf("route %s not taken (%s): is pdb2pqr installed?", route, rec.Preparation.Fallback)
			continue
		}
		ours := filepath.Join(dir, route+".pdbqt")
		if err := os.WriteFile(ours, rec.PDBQT, 0o600); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, path string }{"PrepareReceptor(noH.pdb), route " + route, ours})
	}
	for _, tc := range cases {
		s, err := v.ScoreOnly(context.Background(), tc.path, lig)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s.Affinity != -12.513 {
			t.Errorf("%s: score_only %.3f, want -12.513", tc.name, s.Affinity)
		}
	}
}

// TestDock1iep docks imatinib (the Vina repository's Meeko ligand) into the
// Vina repository's c-Abl receptor in the documented box through Batch, with
// seed 42 at exhaustiveness 1 to keep CI time low (~23 CPU-s instead of
// ~100 at exh 8), next to a ligand that cannot be docked (the batch goes on).
//
// Reference: the corpus README measured -13.357 kcal/mol and 0.35 Å top-pose
// RMSD at exh 8 / seed 42 (vina docs, exh 32: -13.23). Tolerance: the best
// affinity within 1 kcal/mol of -13.357, because the same correct pose is
// reported from -13.0 to -14.2 across seeds at exh 8 (README section 6),
// i.e. search noise of about +-0.9 kcal/mol; the top pose within 2 Å
// (symmetry-aware, heavy atoms) of the crystal ligand, the usual docking
// success criterion (correct poses here are 0.3-0.4 Å, the flipped
// alternative 12 Å, so 2 Å cannot be passed by a wrong pose).
func TestDock1iep(t *testing.T) {
	if testing.Short() {
		t.Skip("docking run (~23 CPU-s)")
	}
	v := newVina(t)
	ligand := readCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt")
	bad := bytes.ReplaceAll(ligand, []byte(" OA\n"), []byte(" Pt\n"))
	b := &Batch{
		Vina:     v,
		Receptor: readCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt"),
		Box:      box1iep,
		Params:   Params{Exhaustiveness: 1, Seed: 42},
		Workers:  1,
	}
	var mu sync.Mutex
	var events []Event
	var fractions []float64
	start := time.Now()
	outs, err := b.Run(context.Background(), []Ligand{{Name: "metal", PDBQT: bad}, {Name: "imatinib", PDBQT: ligand}}, func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
		if e.Kind == Progress && e.Ligand == "imatinib" {
			fractions = append(fractions, e.Fraction)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("batch wall time %v", time.Since(start).Round(time.Millisecond))
	if !errors.Is(outs[0].Err, ErrInvalidLigand) || outs[0].Result != nil {
		t.Errorf("metal ligand: %v", outs[0].Err)
	}
	if outs[1].Err != nil {
		t.Fatal(outs[1].Err)
	}
	res := outs[1].Result
	best := res.Best()
	crystal := heavyOf(readSDF(t, readCorpus(t, "vina-examples/1iep/1iep_ligand.sdf")))
	rmsd, err := RMSD(crystal, HeavyAtoms(best.Model.Ligands()[0]))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exh 1 seed 42 --cpu %d: best %.3f kcal/mol, top-pose RMSD %.2f Å, %d modes in the file, vina %v",
		res.Params.CPU, best.Affinity, rmsd, len(res.Modes), res.Elapsed.Round(time.Millisecond))
	if math.Abs(best.Affinity-(-13.357)) > 1 {
		t.Errorf("best affinity %.3f, want -13.357 +- 1", best.Affinity)
	}
	if rmsd > 2 {
		t.Errorf("top pose RMSD %.2f Å to the crystal ligand, want < 2", rmsd)
	}
	// The modes are those of the --out file: best first, within energy_range.
	for i, m := range res.Modes {
		if m.Rank != i+1 || m.Affinity < best.Affinity || m.Affinity > best.Affinity+DefaultEnergyRange+1e-9 {
			t.Errorf("mode %d: rank %d affinity %.3f", i+1, m.Rank, m.Affinity)
		}
	}
	if len(res.Modes) > DefaultNumModes || !strings.Contains(string(res.Output), "REMARK VINA RESULT") {
		t.Errorf("%d modes", len(res.Modes))
	}
	// Progress: Started, then the star bar (increasing, < 1), then Finished.
	mu.Lock()
	defer mu.Unlock()
	if len(fractions) < 10 {
		t.Errorf("only %d progress events from the star bar", len(fractions))
	}
	for i := 1; i < len(fractions); i++ {
		if fractions[i] < fractions[i-1] || fractions[i] >= 1 && i < len(fractions)-1 {
			t.Errorf("progress not increasing: %v", fractions)
			break
		}
	}
	last := events[len(events)-1]
	if last.Kind != Finished || last.Done != 1 || last.Failed != 1 || last.Total != 2 {
		t.Errorf("last event %+v", last)
	}
}

// TestDockFullReproduction repeats the corpus run exactly (exh 8, seed 42,
// --cpu 2): Vina is deterministic for a fixed seed, so the --out file must be
// byte-identical to derived/1iep_vina123_exh8_seed42_out.pdbqt (checked by
// hand with raw vina on this host: same md5). About 100-180 CPU-s: run with
// MOLGRAPH_VINA_FULL=1.
func TestDockFullReproduction(t *testing.T) {
	if os.Getenv("MOLGRAPH_VINA_FULL") == "" {
		t.Skip("set MOLGRAPH_VINA_FULL=1 (about 100 CPU-seconds)")
	}
	v := newVina(t)
	rec := filepath.Join(corpus(t), "vina-examples/1iep/1iep_receptor.pdbqt")
	res, err := v.Dock(context.Background(), rec, Ligand{Name: "imatinib", PDBQT: readCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt")},
		box1iep, Params{Exhaustiveness: 8, Seed: 42, CPU: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseModes(readCorpus(t, "derived/1iep_vina123_exh8_seed42_out.pdbqt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Modes) != len(want) {
		t.Fatalf("%d modes, want %d", len(res.Modes), len(want))
	}
	for i := range want {
		if res.Modes[i].Affinity != want[i].Affinity || res.Modes[i].RMSDUpperBound != want[i].RMSDUpperBound {
			t.Errorf("mode %d: %.3f/%.3f, want %.3f/%.3f", i+1, res.Modes[i].Affinity, res.Modes[i].RMSDUpperBound, want[i].Affinity, want[i].RMSDUpperBound)
		}
	}
	if !bytes.Equal(res.Output, readCorpus(t, "derived/1iep_vina123_exh8_seed42_out.pdbqt")) {
		t.Errorf("--out file differs from the corpus run")
	}
	t.Logf("exh 8: %v wall", res.Elapsed)
}

// vinaChildren lists live vina processes whose parent is this test process.
func vinaChildren(t *testing.T) []int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	me := strconv.Itoa(os.Getpid())
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		close := strings.LastIndexByte(s, ')')
		if close < 0 || !strings.Contains(s[:close], "(vina") {
			continue
		}
		f := strings.Fields(s[close+1:])
		if len(f) > 1 && f[1] == me {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestDockCancelAndTimeout: cancelling the context and the per-ligand
// timeout both kill the vina process group promptly (checked in the
// process table) and report context.Canceled / ErrTimeout; each run's
// working directories are gone when it returns.
func TestDockCancelAndTimeout(t *testing.T) {
	root := t.TempDir()
	tmp, _, err := subproc.OpenTempDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	v := newVina(t).WithTempDirs(tmp)
	noTempDirs := func(after string) {
		t.Helper()
		if left, _ := os.ReadDir(root); len(left) != 0 {
			t.Errorf("temp dirs left after %s: %v", after, left)
		}
	}
	rec := filepath.Join(corpus(t), "vina-examples/1iep/1iep_receptor.pdbqt")
	lig := Ligand{Name: "imatinib", PDBQT: readCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt")}
	slow := Params{Exhaustiveness: 64, Seed: 1}

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := v.Dock(ctx, rec, lig, box1iep, slow, nil)
		errc <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	var running []int
	for time.Now().Before(deadline) && len(running) == 0 {
		time.Sleep(50 * time.Millisecond)
		running = vinaChildren(t)
	}
	if len(running) == 0 {
		t.Fatal("vina did not start")
	}
	t0 := time.Now()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled Dock: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Dock did not return after cancel")
	}
	t.Logf("cancel returned after %v", time.Since(t0).Round(time.Millisecond))
	if left := vinaChildren(t); len(left) > 0 {
		t.Errorf("vina processes left after cancel: %v", left)
	}
	noTempDirs("cancel")

	slow.Timeout = 1500 * time.Millisecond
	_, err = v.Dock(context.Background(), rec, lig, box1iep, slow, nil)
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("timeout: %v", err)
	}
	if left := vinaChildren(t); len(left) > 0 {
		t.Errorf("vina processes left after timeout: %v", left)
	}
	noTempDirs("timeout")

	// A cancelled batch reports every ligand as cancelled, none as failed.
	b := &Batch{Vina: v, Receptor: readCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt"), Box: box1iep, Params: slow}
	bctx, bcancel := context.WithCancel(context.Background())
	failed := 0
	outs, err := b.Run(bctx, []Ligand{lig, lig, lig}, func(e Event) {
		if e.Kind == Started {
			bcancel()
		}
		if e.Kind == Failed {
			failed++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if !errors.Is(o.Err, context.Canceled) {
			t.Errorf("ligand %d after cancel: %v", i, o.Err)
		}
	}
	if failed != 0 || len(vinaChildren(t)) != 0 {
		t.Errorf("%d failed events, %d vina left", failed, len(vinaChildren(t)))
	}
	noTempDirs("a cancelled batch")
}

// TestDockErrors: parameters and boxes out of bounds are refused before
// vina runs; vina's own errors come back as ErrVinaFailed with its message.
func TestDockErrors(t *testing.T) {
	v := newVina(t)
	lig := Ligand{Name: "imatinib", PDBQT: readCorpus(t, "vina-examples/1iep/1iep_ligand.pdbqt")}
	rec := filepath.Join(corpus(t), "vina-examples/1iep/1iep_receptor.pdbqt")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		p    Params
		box  Box
		want error
	}{
		{"exhaustiveness", Params{Exhaustiveness: 65}, box1iep, ErrInvalidParams},
		{"num_modes", Params{NumModes: 21}, box1iep, ErrInvalidParams},
		{"energy_range", Params{EnergyRange: 10.5}, box1iep, ErrInvalidParams},
		{"negative energy_range", Params{EnergyRange: -1}, box1iep, ErrInvalidParams},
		{"box size", Params{}, Box{Center: box1iep.Center, Size: [3]float64{20, 0, 20}}, ErrInvalidBox},
		{"box nan", Params{}, Box{Center: [3]float64{math.NaN(), 0, 0}, Size: box1iep.Size}, ErrInvalidBox},
		{"box huge", Params{}, Box{Center: box1iep.Center, Size: [3]float64{20, 200, 20}}, ErrInvalidBox},
		// each edge allowed, the volume (126 Å cube: vina past 2 GB) not
		{"box volume", Params{}, Box{Center: box1iep.Center, Size: [3]float64{126, 126, 126}}, ErrInvalidBox},
	} {
		if _, err := v.Dock(ctx, rec, lig, tc.box, tc.p, nil); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	for _, bad := range [][]byte{nil, []byte("garbage"), readCorpus(t, "derived/1iep_receptor_obabel_xr_h.pdbqt")} {
		if _, err := v.Dock(ctx, rec, Ligand{Name: "x", PDBQT: bad}, box1iep, Params{}, nil); !errors.Is(err, ErrInvalidLigand) {
			t.Errorf("bad ligand: %v", err)
		}
	}
	// A receptor file vina cannot read: vina's own parse error.
	broken := filepath.Join(t.TempDir(), "broken.pdbqt")
	os.WriteFile(broken, []byte("ATOM      1  N   MET A 225      19.353  41.547  -3.887  0.00  0.00    +0.000 Xx\n"), 0o600)
	_, err := v.Dock(ctx, broken, lig, box1iep, Params{Exhaustiveness: 1}, nil)
	if !errors.Is(err, ErrVinaFailed) {
		t.Errorf("broken receptor: %v", err)
	} else {
		t.Logf("vina error: %v", err)
	}
}

// TestStarsAcrossChunks: progress counts the stars after "Performing
// docking" however vina's output is cut into chunks (the phrase split
// between two reads, stars before it ignored), and never reports 1 before
// the run ends.
func TestStarsAcrossChunks(t *testing.T) {
	out := "Computing Vina grid ... done.\n*** not progress\nPerforming docking (random seed: 1) ... \n" +
		"0%   10   20   30   40   50   60   70   80   90   100%\n|----|----|----|----|----|----|----|----|----|----|\n" +
		strings.Repeat("*", 51) + "\n"
	for _, size := range []int{1, 3, 7, 16, 4096} {
		var last float64
		calls := 0
		w := &stars{progress: func(f float64) { last = f; calls++ }}
		for i := 0; i < len(out); i += size {
			w.add([]byte(out[i:min(i+size, len(out))]))
		}
		if w.n != 51 || calls == 0 || last != 0.99 {
			t.Errorf("chunks of %d: %d stars, %d calls, last %v; want 51 stars, last 0.99", size, w.n, calls, last)
		}
	}
}

// TestBoxJSON: a box is exactly three numbers for center and size
// (encoding/json would fill a short array with zeros and drop extras).
func TestBoxJSON(t *testing.T) {
	var b Box
	if err := json.Unmarshal([]byte(`{"center": [1, 2, 3], "size": [20, 21, 22]}`), &b); err != nil || b.Center != [3]float64{1, 2, 3} || b.Size != [3]float64{20, 21, 22} {
		t.Fatalf("%+v %v", b, err)
	}
	for _, bad := range []string{`{"center": [1, 2], "size": [20, 20, 20]}`, `{"center": [1, 2, 3, 4], "size": [20, 20, 20]}`,
		`{"center": [1, 2, 3]}`, `{"center": [1, 2, 3], "size": [20, 20, 20], "spacing": 1}`, `{"center": ["1", 2, 3], "size": [20, 20, 20]}`} {
		if err := json.Unmarshal([]byte(bad), &b); !errors.Is(err, ErrInvalidBox) {
			t.Errorf("%s: %v, want ErrInvalidBox", bad, err)
		}
	}
	if !(Box{Center: [3]float64{0, 0, 0}, Size: [3]float64{10, 10, 10}}).Contains(5, -5, 0) || (Box{Size: [3]float64{10, 10, 10}}).Contains(5.1, 0, 0) {
		t.Error("Contains")
	}
}

// TestCleanPDBBounds: coordinates are plain decimals (ParseFloat reads
// hex floats, exponents and NaN, which the programs downstream read each
// their own way), and a PDB with more than MaxPreparedAtoms atoms left
// to prepare is refused before PDB2PQR or Open Babel start.
func TestCleanPDBBounds(t *testing.T) {
	line := func(serial int, x string) string {
		return fmt.Sprintf("ATOM  %5d  CA  ALA A%4d    %8s%8s%8s  1.00  0.00           C\n", serial%100000, serial%10000, x, "1.000", "2.000")
	}
	for _, x := range []string{"0x1p-2", "1e30", "NaN", "+Inf", "1_000"} {
		if _, err := CleanPDB([]byte(line(1, x)), ReceptorOptions{}); !errors.Is(err, ErrInvalidReceptor) {
			t.Errorf("x = %s: %v, want ErrInvalidReceptor", x, err)
		}
	}
	if _, err := CleanPDB([]byte(line(1, "-12.500")+line(2, "3.")), ReceptorOptions{}); err != nil {
		t.Errorf("plain decimals: %v", err)
	}
	var b strings.Builder
	for i := 0; i <= MaxPreparedAtoms; i++ {
		b.WriteString(line(i, fmt.Sprintf("%.3f", float64(i%100))))
	}
	if _, err := CleanPDB([]byte(b.String()), ReceptorOptions{}); !errors.Is(err, ErrInvalidReceptor) || !strings.Contains(err.Error(), "PDBQT") {
		t.Errorf("%d atoms: %v, want ErrInvalidReceptor", MaxPreparedAtoms+1, err)
	}
}
