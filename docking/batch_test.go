package docking

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestRunEachPrepare: RunEach prepares each ligand once, in the worker
// that docks it; a prepare error and a ligand PDBQT that vina's input
// check rejects are that ligand's failure (Failed events, errors in the
// outcomes) and the batch goes on; after a cancel nothing more is
// prepared. No vina search runs here (both ligands fail before it).
func TestRunEachPrepare(t *testing.T) {
	v := newVina(t)
	b := &Batch{Vina: v, Receptor: readCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt"), Box: box1iep, Workers: 2}
	errPrep := errors.New("no conformer")
	var mu sync.Mutex
	calls := map[int]int{}
	prepare := func(_ context.Context, i int) (Ligand, error) {
		mu.Lock()
		calls[i]++
		mu.Unlock()
		if i == 0 {
			return Ligand{}, errPrep
		}
		return Ligand{Name: "bad", PDBQT: []byte("ATOM      1  C   UNL     1       0.000   0.000   0.000  1.00  0.00     0.000 Xx\n")}, nil
	}
	var events []Event
	out, err := b.RunEach(context.Background(), []string{"a", "b"}, prepare, func(e Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(out[0].Err, errPrep) || out[0].Ligand != "a" || out[0].Result != nil {
		t.Errorf("outcome a: %+v", out[0])
	}
	if !errors.Is(out[1].Err, ErrInvalidLigand) || out[1].Ligand != "b" {
		t.Errorf("outcome b: %+v", out[1])
	}
	failed := map[string]bool{}
	for _, e := range events {
		if e.Kind == Finished {
			t.Errorf("event %+v", e)
		}
		if e.Kind == Failed {
			failed[e.Ligand] = true
		}
	}
	last := events[len(events)-1]
	if !failed["a"] || !failed["b"] || last.Failed != 2 || last.Done != 0 || last.Total != 2 {
		t.Errorf("events %+v", events)
	}
	if calls[0] != 1 || calls[1] != 1 {
		t.Errorf("prepare calls %v, want one per ligand", calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	clear(calls)
	out, err = b.RunEach(ctx, []string{"a", "b", "c"}, prepare, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if !errors.Is(o.Err, context.Canceled) {
			t.Errorf("cancelled batch: %+v", o)
		}
	}
	if len(calls) != 0 {
		t.Errorf("cancelled batch prepared %v", calls)
	}
}
