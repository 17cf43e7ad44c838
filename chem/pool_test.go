package chem

import (
	"bufio"
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// identity is what must not depend on scheduling.
func identity(r *Result, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.Join([]string{r.SMILES, r.InChI, r.InChIKey, r.Formula,
		strconv.FormatFloat(r.MW, 'g', -1, 64), strconv.FormatFloat(r.LogP, 'g', -1, 64),
		strconv.FormatFloat(r.QED, 'g', -1, 64), strconv.FormatFloat(r.TPSA, 'g', -1, 64),
		strconv.Itoa(r.HBA), strconv.Itoa(r.HBD), strconv.Itoa(r.RotatableBonds)}, "|")
}

// rssKB reads the resident set size of this process.
func rssKB(t testing.TB) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "VmRSS:") {
			v, _ := strconv.Atoi(strings.Fields(sc.Text())[1])
			return v
		}
	}
	return 0
}

// TestConcurrentIdentical runs the reference inputs from 1 goroutine and
// then from 2 goroutines (each through the whole pool) and requires
// identical results, with RSS flat over the concurrent run. Set
// MOLGRAPH_CHEM_LONG=1 for the full 2 x 100,000 molecules.
func TestConcurrentIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	rows := loadReference(t)
	perGoroutine := 4000
	if os.Getenv("MOLGRAPH_CHEM_LONG") != "" {
		perGoroutine = 100000
	}
	inputs := make([]string, len(rows))
	want := make([]string, len(rows))
	for i, r := range rows {
		inputs[i] = r["input"]
		want[i] = identity(process(t, Input{Format: FormatSMILES, Content: r["input"]}))
	}
	runtime.GC()
	rss0 := rssKB(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	bad := 0
	start := time.Now()
	var rssMid int
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < perGoroutine; k++ {
				i := (k*7 + g*13) % len(inputs)
				got := identity(process(t, Input{Format: FormatSMILES, Content: inputs[i]}))
				if got != want[i] {
					mu.Lock()
					bad++
					if bad < 5 {
						t.Errorf("%s: concurrent %q, sequential %q", inputs[i], got, want[i])
					}
					mu.Unlock()
				}
				if g == 0 && k == perGoroutine/2 {
					mu.Lock()
					rssMid = rssKB(t)
					mu.Unlock()
				}
			}
		}(g)
	}
	wg.Wait()
	runtime.GC()
	rss1 := rssKB(t)
	el := time.Since(start)
	t.Logf("2 goroutines x %d molecules in %v (%.0f mol/s), RSS %d MB before, %d MB at half, %d MB after",
		perGoroutine, el, float64(2*perGoroutine)/el.Seconds(), rss0/1024, rssMid/1024, rss1/1024)
	if rss1-rssMid > 64*1024 {
		t.Errorf("RSS grew by %d MB in the second half", (rss1-rssMid)/1024)
	}
}

// TestMemoryBounded processes 30,000 molecules (3D for every 100th) and
// requires RSS to stay flat after a warm-up: every C++ object is freed.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	rows := loadReference(t)
	run := func(from, to int) {
		var wg sync.WaitGroup
		ch := make(chan int)
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range ch {
					r := rows[i%len(rows)]
					in := Input{Format: FormatSMILES, Content: r["input"], Generate3D: i%100 == 0 && r["source"] != "curated"}
					if i%3 == 1 {
						in = Input{Format: FormatInChI, Content: r["inchi_obabel"], Coordinates2D: true}
					}
					process(t, in) //nolint:errcheck // errors are fine here
				}
			}()
		}
		for i := from; i < to; i++ {
			ch <- i
		}
		close(ch)
		wg.Wait()
	}
	run(0, 5000)
	runtime.GC()
	warm := rssKB(t)
	run(5000, 30000)
	runtime.GC()
	end := rssKB(t)
	t.Logf("RSS after 5k molecules %d MB, after 30k %d MB", warm/1024, end/1024)
	if end-warm > 48*1024 {
		t.Errorf("RSS grew by %d MB over 25k molecules", (end-warm)/1024)
	}
}

func TestPoolClosedAndCancelled(t *testing.T) {
	p, err := NewPool(1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Process(ctx, Input{Format: FormatSMILES, Content: "CCO"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	p.Close()
	if _, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: "CCO"}); !errors.Is(err, ErrPoolClosed) {
		t.Errorf("closed: %v", err)
	}
}

// Test3D embeds with a fixed seed: reproducible, hydrogens present, and
// the structure read back from the molfile is the same molecule.
func Test3D(t *testing.T) {
	in := Input{Format: FormatSMILES, Content: "CC(=O)Oc1ccccc1C(=O)O", Generate3D: true}
	a, err := process(t, in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := process(t, in)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Has3D || a.Molfile != b.Molfile || a.XYZ == "" {
		t.Fatalf("3D not reproducible or missing (has3d %v)", a.Has3D)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(a.XYZ, "\n", 2)[0])); n != 21 {
		t.Errorf("XYZ has %d atoms, want 21 (aspirin with H)", n)
	}
	back, err := process(t, Input{Format: FormatMolfile, Content: a.Molfile})
	if err != nil {
		t.Fatal(err)
	}
	if back.InChIKey != a.InChIKey {
		t.Errorf("3D molfile reads back as %s, want %s", back.InChIKey, a.InChIKey)
	}
	// stereo survives embedding
	s, err := process(t, Input{Format: FormatSMILES, Content: "C[C@H](N)C(=O)O", Generate3D: true})
	if err != nil {
		t.Fatal(err)
	}
	back, err = process(t, Input{Format: FormatMolfile, Content: s.Molfile})
	if err != nil || back.InChIKey != "QNAYBMKLOCPYGJ-REOHCLBHSA-N" {
		t.Errorf("L-alanine 3D reads back as %v %v", back, err)
	}
	// 2D coordinates on request
	d, err := process(t, Input{Format: FormatSMILES, Content: "c1ccccc1O", Coordinates2D: true})
	if err != nil || d.Has3D || !strings.Contains(d.Molfile, "V2000") {
		t.Errorf("2D: %v %v", d, err)
	}
}

// TestAllocator checks that the process's malloc is jemalloc's (see
// cgo.go): linked, first in symbol resolution, and counting a malloc made
// from C.
func TestAllocator(t *testing.T) {
	a := Allocator()
	if !strings.HasPrefix(a, "jemalloc 5.") {
		t.Fatalf("allocator %q, want jemalloc 5", a)
	}
	t.Log(a)
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"explicit valence for atom 3 N":              "explicit valence for atom 3 N",
		"modifier: '\x00' on line 15":                "modifier: '?' on line 15",
		"modifier: '\xb7' on line 15":                "modifier: '?' on line 15",
		"two lines\nand a tab\there, and ünïcödé: Å": "two lines\nand a tab\there, and ünïcödé: Å",
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
