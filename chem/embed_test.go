package chem

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// helperCommand re-executes the test binary as the 3D helper.
func helperCommand() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=embed")
	return cmd
}

// imatinibSMILES is imatinib (37 heavy atoms, 7 rotatable bonds).
const imatinibSMILES = "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"

// embedModes are the two ways of running embeddings, with o's limits.
func embedModes(o EmbedOptions) map[string]Options {
	h := o
	h.Helper = helperCommand
	return map[string]Options{"threads": {Workers: 1, Embed: o}, "helper": {Workers: 1, Embed: h}}
}

func newTestPool(t testing.TB, o Options) *Pool {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestEmbedBudget: molecules over the 3D budget are refused before any
// embedding, naming the limit; within it, imatinib is embedded.
func TestEmbedBudget(t *testing.T) {
	p := newTestPool(t, Options{Workers: 1})
	if err := p.Check3D(999, 996); !errors.Is(err, ErrTooLargeFor3D) || !strings.Contains(err.Error(), "999 heavy atoms, more than the 100") {
		t.Errorf("Check3D(999 heavy): %v", err)
	}
	for _, tc := range []struct{ name, smiles, want string }{
		{"999-carbon chain", strings.Repeat("C", 999), "999 heavy atoms, more than the 100"},
		{"C40 chain: 37 rotatable bonds", strings.Repeat("C", 40), "37 rotatable bonds, more than the 30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := p.EmbedStats()
			_, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: tc.smiles, Generate3D: true})
			var tl *TooLargeFor3DError
			if !errors.As(err, &tl) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
			if after := p.EmbedStats(); after.Started != before.Started || after.Refused != before.Refused+1 {
				t.Errorf("stats %+v -> %+v: want one refusal and no embedding", before, after)
			}
		})
	}
	for mode, o := range embedModes(EmbedOptions{}) {
		t.Run("imatinib/"+mode, func(t *testing.T) {
			p := newTestPool(t, o)
			r, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: imatinibSMILES, Generate3D: true})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Has3D || !strings.Contains(r.Molfile, "V2000") || strings.HasPrefix(r.XYZ, "68\n") == false {
				t.Fatalf("no 3D structure (has3d %v, xyz %.20q)", r.Has3D, r.XYZ)
			}
			back, err := testPool.Process(context.Background(), Input{Format: FormatMolfile, Content: r.Molfile})
			if err != nil || back.InChIKey != r.InChIKey {
				t.Errorf("3D molfile reads back as %v (%v), want %s", back, err, r.InChIKey)
			}
			if s := p.EmbedStats(); s.Started != 1 || s.Embedded != 1 || s.Running != 0 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

// heavySMILES is within a raised budget and takes seconds to embed: a
// 300-carbon chain (~900 atoms with hydrogens).
var heavySMILES = strings.Repeat("C", 300)

var heavyBudget = EmbedOptions{MaxHeavyAtoms: 1000, MaxRotatableBonds: 1000, Workers: 1}

// TestEmbedCapacityFreed: in both modes, an embedding whose caller goes
// away, or that runs past its time limit, frees its slot at once: the next
// embedding on the single slot starts without waiting for the first.
func TestEmbedCapacityFreed(t *testing.T) {
	// Threads cannot stop inside one ETKDG attempt, which for this chain
	// lasts over a minute: only the helper frees its slot at once (the
	// figures are in the package documentation).
	for mode, o := range map[string]Options{"helper": embedModes(heavyBudget)["helper"]} {
		t.Run(mode, func(t *testing.T) {
			p := newTestPool(t, o)
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			t0 := time.Now()
			_, err := p.Process(ctx, Input{Format: FormatSMILES, Content: heavySMILES, NoNormalize: true, Generate3D: true})
			freed := time.Since(t0)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("abandoned: error %v, want the caller's deadline", err)
			}
			t.Logf("%s: abandoned after 500 ms, returned (slot free) after %v", mode, freed)
			if freed > 1500*time.Millisecond {
				t.Errorf("slot held %v after the caller left", freed)
			}
			t1 := time.Now()
			r, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: "CCO", Generate3D: true})
			if err != nil || !r.Has3D {
				t.Fatalf("small embedding after: %v", err)
			}
			t.Logf("%s: next small embedding took %v", mode, time.Since(t1))
			if s := p.EmbedStats(); s.Cancelled != 1 || s.Running != 0 {
				t.Errorf("stats %+v", s)
			}
		})
		t.Run(mode+"/timeout", func(t *testing.T) {
			o := o
			o.Embed.Timeout = 500 * time.Millisecond
			p := newTestPool(t, o)
			t0 := time.Now()
			_, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: heavySMILES, NoNormalize: true, Generate3D: true})
			took := time.Since(t0)
			if !errors.Is(err, ErrEmbedTimeout) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v, want ErrEmbedTimeout", err)
			}
			t.Logf("%s: time limit 500 ms, returned after %v", mode, took)
			if took > 2*time.Second {
				t.Errorf("returned after %v", took)
			}
			if s := p.EmbedStats(); s.TimedOut != 1 || s.Running != 0 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

// helperStatus reads VmPeak, VmSize and VmHWM (kB) of the idle helpers.
func helperStatus(t *testing.T, p *Pool) []string {
	t.Helper()
	e, ok := p.embedder.(*procEmbedder)
	if !ok {
		t.Fatal("not a helper pool")
	}
	var out []string
	for i := 0; i < cap(e.slots); i++ {
		h := <-e.slots
		if h != nil {
			data, err := os.ReadFile("/proc/" + strconv.Itoa(h.cmd.Process.Pid) + "/status")
			if err == nil {
				for _, l := range strings.Split(string(data), "\n") {
					if strings.HasPrefix(l, "VmPeak") || strings.HasPrefix(l, "VmSize") || strings.HasPrefix(l, "VmHWM") {
						out = append(out, strings.Join(strings.Fields(l), " "))
					}
				}
			}
		}
		e.slots <- h
	}
	return out
}

// TestEmbedHelperReuse: one helper serves embedding after embedding; the
// first pays for starting it. Its memory is bounded by RLIMIT_AS: a helper
// that cannot embed within it fails that one embedding (2D coordinates and
// a warning), and the next embedding gets a fresh helper.
func TestEmbedHelperReuse(t *testing.T) {
	o := embedModes(EmbedOptions{Workers: 1})["helper"]
	p := newTestPool(t, o)
	e := p.embedder.(*procEmbedder)
	for i, smi := range []string{"CCO", "CCO", imatinibSMILES, imatinibSMILES} {
		t0 := time.Now()
		r, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: smi, Generate3D: true})
		if err != nil || !r.Has3D {
			t.Fatalf("%s: %v", smi, err)
		}
		t.Logf("embedding %d (%s): %v", i+1, smi, time.Since(t0))
	}
	if n := e.started.Load(); n != 1 {
		t.Errorf("%d helpers started, want 1", n)
	}
	t.Logf("helper: %v", helperStatus(t, p))

	o.Embed.HelperMemoryBytes = 32 << 20
	o.Embed.Timeout = 30 * time.Second
	o.Embed.MaxHeavyAtoms, o.Embed.MaxRotatableBonds = 1000, 1000
	small := newTestPool(t, o)
	r, err := small.Process(context.Background(), Input{Format: FormatSMILES, Content: strings.Repeat("C", 400), NoNormalize: true, Generate3D: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Has3D || len(r.Validation) == 0 || r.Validation[len(r.Validation)-1].Code != "embed_failed" {
		t.Errorf("over the memory limit: has3d %v, issues %+v", r.Has3D, r.Validation)
	}
	if s := small.EmbedStats(); s.Failed != 1 {
		t.Errorf("stats %+v", s)
	}
	r, err = small.Process(context.Background(), Input{Format: FormatSMILES, Content: "CCO", Generate3D: true})
	if err != nil || !r.Has3D {
		t.Errorf("after a failed helper: %v", err)
	}
}

// BenchmarkEmbed measures one embedding through each kind of slot (one
// slot, a helper already started): the per-request overhead of the helper
// process is the difference.
func BenchmarkEmbed(b *testing.B) {
	for _, mode := range []string{"threads", "helper"} {
		for _, mol := range []struct{ name, smiles string }{{"ethanol", "CCO"}, {"imatinib", imatinibSMILES}} {
			b.Run(mode+"/"+mol.name, func(b *testing.B) {
				p := newTestPool(b, embedModes(EmbedOptions{Workers: 1})[mode])
				ctx := context.Background()
				if _, err := p.embed3D(ctx, mol.smiles); err != nil { // starts the helper
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if r, err := p.embed3D(ctx, mol.smiles); err != nil || r.Status != embedOK {
						b.Fatal(r.Status, err)
					}
				}
			})
		}
	}
}

// BenchmarkEmbedHelperStart measures starting a helper process and its
// first embedding (ethanol): what a killed helper costs the next request.
func BenchmarkEmbedHelperStart(b *testing.B) {
	var running atomic.Int64
	params := embedParams{MaxAttempts: DefaultEmbedAttempts, MMFFMaxIters: DefaultMMFFMaxIters, Seed: embedSeed}
	for i := 0; i < b.N; i++ {
		e := newProcEmbedder(1, helperCommand, DefaultHelperMemoryBytes, &running)
		if r, err := e.run(context.Background(), "CCO", params, func() { running.Add(1) }); err != nil || r.Status != embedOK {
			b.Fatal(r, err)
		}
		e.close()
	}
}

// TestEmbedThreadsRelease measures how long a thread slot stays busy after
// its caller leaves, for a molecule within the default budget that ETKDG
// finds hard (a 100-membered carbon ring: 100 heavy atoms, no rotatable
// bond): the stop flag is read between attempts only.
func TestEmbedThreadsRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("short: a measurement")
	}
	ring := "C1" + strings.Repeat("C", 98) + "C1"
	for mode, o := range embedModes(EmbedOptions{Workers: 1, Timeout: 5 * time.Second}) {
		p := newTestPool(t, o)
		t0 := time.Now()
		r, err := p.Process(context.Background(), Input{Format: FormatSMILES, Content: ring, Generate3D: true})
		has3D := err == nil && r.Has3D
		t.Logf("%s: 100-ring: %v (has3d %v, %v)", mode, time.Since(t0), has3D, err)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		t0 = time.Now()
		_, err = p.Process(ctx, Input{Format: FormatSMILES, Content: ring, Generate3D: true})
		cancel()
		t.Logf("%s: abandoned after 200 ms, slot free after %v (%v)", mode, time.Since(t0), err)
	}
}
