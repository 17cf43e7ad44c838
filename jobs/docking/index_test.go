package docking

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/docking/interact"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/jobs/work"
	"github.com/molgraph/molgraph/ontology"
)

// indexFixture is a task on an on-disk store and a job of n synthetic
// ligands that is never run: outcomes are fed to its committer (the real
// commit path) with canned poses, no vina.
type indexFixture struct {
	dir   string
	store *graph.Store
	task  *Task
	j     jobs.Job
	rec   ontology.DockingJobRecord
	c     *committer
	ids   []string
}

func synthID(i int) string { return fmt.Sprintf("mol-%026x", uint64(i)*0x9e3779b97f4a7c15%(1<<62)) }

func openIndexTask(t testing.TB, dir string) (*graph.Store, *Task) {
	t.Helper()
	st, err := graph.Open(dir, graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg := batch.NewRegistry(st, nil, base, nil)
	return st, NewTask(reg, nil, Options{Workers: 1})
}

func newIndexFixture(t testing.TB, n int) *indexFixture {
	t.Helper()
	f := &indexFixture{dir: t.TempDir()}
	f.store, f.task = openIndexTask(t, f.dir)
	t.Cleanup(func() { f.store.Close() })
	f.j = jobs.Job{ID: "dock-index", IRI: f.task.JobIRI("dock-index"), Class: ontology.DockingJobClass}
	f.rec = ontology.DockingJobRecord{IRI: f.j.IRI, Receptor: ontology.ResourceIRI(base, ontology.KindReceptor, "rec-1iep"), Progress: ontology.DockingProgress{Total: n},
		Settings: ontology.DockingSettings{PocketMethod: "box", Size: [3]float64{10, 10, 10}, Exhaustiveness: 1, NumModes: 9, EnergyRange: 3, Seed: 1}}
	for i := range n {
		f.ids = append(f.ids, synthID(i))
		f.rec.Ligands = append(f.rec.Ligands, f.task.reg.IRI(f.ids[i]))
	}
	f.newCommitter(t)
	return f
}

func (f *indexFixture) newCommitter(t testing.TB) []work.DockUnit {
	t.Helper()
	commit := func(ctx context.Context, gs []graph.NamedGraph, _ []jobs.Prop) error {
		return f.store.PutGraphs(ctx, gs, nil)
	}
	c, pending, err := f.task.newCommitter(context.Background(), f.j, f.rec, commit)
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	return pending
}

// posed is a canned outcome: modes poses from affinity aff up, each with
// two interactions.
func (f *indexFixture) posed(id string, aff float64, modes int) work.DockOutcome {
	o := work.DockOutcome{Job: string(f.j.IRI), Ligand: id}
	for m := 1; m <= modes; m++ {
		o.Poses = append(o.Poses, work.Pose{Mode: m, Affinity: aff + 0.25*float64(m-1), RMSDLB: float64(m - 1), RMSDUB: float64(2 * (m - 1)),
			SDF: fmt.Appendf(nil, "%s mode %d\n$$$$\n", id, m),
			Interactions: []interact.Interaction{{Type: "hbond", Residue: interact.Residue{Chain: "A", Number: 300 + m, Name: "THR"}},
				{Type: "hydrophobic", Residue: interact.Residue{Chain: "A", Number: 400, Name: "LEU"}}}})
	}
	return o
}

func (f *indexFixture) failed(id string) work.DockOutcome {
	return work.DockOutcome{Job: string(f.j.IRI), Ligand: id, Failure: "vina failed: " + id}
}

func (f *indexFixture) add(t testing.TB, outs ...work.DockOutcome) {
	t.Helper()
	if _, _, err := f.c.add(context.Background(), outs); err != nil {
		t.Fatal(err)
	}
}

// walk pages through kind with limit, returning the ligands in order.
func walk(t testing.TB, task *Task, rec ontology.DockingJobRecord, kind byte, limit int) []LigandResult {
	t.Helper()
	var out []LigandResult
	var after []byte
	for {
		pg, err := task.Page(context.Background(), rec, kind, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.Results) > limit {
			t.Fatalf("page of %d, limit %d", len(pg.Results), limit)
		}
		out = append(out, pg.Results...)
		if pg.Next == nil {
			return out
		}
		after = pg.Next
	}
}

type scored struct {
	aff float64
	id  string
}

func cmpScored(a, b scored) int {
	return cmp.Or(cmp.Compare(a.aff, b.aff), cmp.Compare(a.id, b.id))
}

// TestIndexPagesWhileAdding walks the affinity order 4 at a time while
// outcomes (with tied affinities) keep arriving: the walk is strictly in
// (affinity, ligand id) order, never repeats a ligand, shows every ligand
// that was there before the walk and exactly those that arrived sorting
// after the position the walk had reached; a fresh walk is the whole
// order, computed here by sorting the affinities fed in.
func TestIndexPagesWhileAdding(t *testing.T) {
	f := newIndexFixture(t, 90)
	ctx := context.Background()
	aff := func(i int) float64 { return -float64(i%7) - 0.5*float64(i%2) } // many ties
	var want []scored
	var failures []string
	feed := func(i int) {
		if i%10 == 3 {
			f.add(t, f.failed(f.ids[i]))
			failures = append(failures, f.ids[i])
			return
		}
		f.add(t, f.posed(f.ids[i], aff(i), 3))
		want = append(want, scored{aff(i), f.ids[i]})
	}
	for i := range 40 {
		feed(i)
	}
	before := map[string]bool{}
	for _, s := range want {
		before[s.id] = true
	}
	mustSee := map[string]bool{}    // arrived after the walk's position
	mustNotSee := map[string]bool{} // arrived before it
	var seen []scored
	var after []byte
	next := 40
	for {
		pg, err := f.task.Page(ctx, f.rec, IndexAffinity, after, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range pg.Results {
			s := scored{r.Poses[0].Affinity, r.Ligand}
			if len(seen) > 0 && cmpScored(seen[len(seen)-1], s) >= 0 {
				t.Fatalf("walk not increasing: %v then %v", seen[len(seen)-1], s)
			}
			if mustNotSee[s.id] {
				t.Errorf("%v arrived before the walk's position but was listed", s)
			}
			seen = append(seen, s)
		}
		if pg.Next == nil {
			break
		}
		after = pg.Next
		// Two more outcomes arrive between pages.
		for range 2 {
			if next < len(f.ids) {
				i := next
				next++
				feed(i)
				if i%10 != 3 {
					if cmpScored(scored{aff(i), f.ids[i]}, seen[len(seen)-1]) > 0 {
						mustSee[f.ids[i]] = true
					} else {
						mustNotSee[f.ids[i]] = true
					}
				}
			}
		}
	}
	got := map[string]bool{}
	for _, s := range seen {
		got[s.id] = true
	}
	for id := range before {
		if !got[id] {
			t.Errorf("%s was there before the walk and was not listed", id)
		}
	}
	for id := range mustSee {
		if !got[id] {
			t.Errorf("%s arrived after the walk's position and was not listed", id)
		}
	}
	if len(mustSee) == 0 || len(mustNotSee) == 0 {
		t.Fatalf("test arrivals: %d after the position, %d before: both kinds wanted", len(mustSee), len(mustNotSee))
	}
	for next < len(f.ids) {
		feed(next)
		next++
	}
	slices.SortFunc(want, cmpScored)
	all := walk(t, f.task, f.rec, IndexAffinity, 7)
	if len(all) != len(want) {
		t.Fatalf("fresh walk: %d results, want %d", len(all), len(want))
	}
	for i, r := range all {
		if r.Ligand != want[i].id || r.Poses[0].Affinity != want[i].aff || len(r.Poses) != 3 {
			t.Fatalf("fresh walk %d: %s %v (%d poses), want %v", i, r.Ligand, r.Poses[0].Affinity, len(r.Poses), want[i])
		}
	}
	// Failures: their own order (ligand id), paged.
	slices.Sort(failures)
	fs := walk(t, f.task, f.rec, IndexFailure, 2)
	if len(fs) != len(failures) {
		t.Fatalf("%d failures listed, want %d", len(fs), len(failures))
	}
	for i, r := range fs {
		if r.Ligand != failures[i] || r.Failure == nil || r.Failure.Error != "vina failed: "+failures[i] {
			t.Errorf("failure %d: %s %+v, want %s", i, r.Ligand, r.Failure, failures[i])
		}
	}
	// A position of the wrong kind is refused.
	if _, err := f.task.Page(ctx, f.rec, IndexFailure, append([]byte{IndexAffinity}, 1, 2), 3); err == nil {
		t.Error("an affinity position paged the failures")
	}
}

// indexEntries counts job j's index entries per ligand.
func indexEntries(t testing.TB, st *graph.Store, j quad.IRI) (map[string]int, bool) {
	t.Helper()
	out := map[string]int{}
	marker := false
	p := jobIndexPrefix(j)
	err := st.ScanSide(context.Background(), p, func(k, _ []byte) error {
		body := k[len(p):]
		switch body[0] {
		case IndexAffinity:
			out[string(body[9:])]++
		case IndexFailure:
			out[string(body[1:])]++
		case indexMarker:
			marker = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, marker
}

// TestIndexDuplicateOutcome: an outcome delivered again (in the same
// group, a later group with another affinity, after a restart) adds no
// second index entry and does not move the ligand.
func TestIndexDuplicateOutcome(t *testing.T) {
	f := newIndexFixture(t, 5)
	a := f.posed(f.ids[0], -6, 2)
	f.add(t, a, a, f.failed(f.ids[1]))
	f.add(t, f.posed(f.ids[0], -9, 2), f.posed(f.ids[1], -8, 2))
	f.newCommitter(t) // a restart
	f.add(t, f.posed(f.ids[0], -7, 2), f.failed(f.ids[1]), f.posed(f.ids[2], -6, 2))
	n, marker := indexEntries(t, f.store, f.j.IRI)
	if !marker || len(n) != 3 || n[f.ids[0]] != 1 || n[f.ids[1]] != 1 || n[f.ids[2]] != 1 {
		t.Fatalf("index entries %v, marker %v: want one each for 3 ligands", n, marker)
	}
	rs := walk(t, f.task, f.rec, IndexAffinity, 10)
	// Ties at -6 by id.
	want := []string{f.ids[0], f.ids[2]}
	slices.Sort(want)
	if len(rs) != 2 || rs[0].Ligand != want[0] || rs[1].Ligand != want[1] || rs[0].Poses[0].Affinity != -6 {
		t.Fatalf("listing %+v", rs)
	}
}

// TestIndexRebuilt: a data dir written before the index (its entries and
// marker removed, the store reopened) lists the same results; the index
// is rebuilt once, by the listing or by a resumed job's committer.
func TestIndexRebuilt(t *testing.T) {
	f := newIndexFixture(t, 40)
	var want []scored
	for i := range 40 {
		if i%9 == 0 {
			f.add(t, f.failed(f.ids[i]))
			continue
		}
		a := float64(-(i * 37 % 11))
		f.add(t, f.posed(f.ids[i], a, 2))
		want = append(want, scored{a, f.ids[i]})
	}
	slices.SortFunc(want, cmpScored)
	drop := func() {
		var dels []graph.SideEntry
		if err := f.store.ScanSide(context.Background(), []byte(indexPrefix), func(k, _ []byte) error {
			dels = append(dels, graph.SideEntry{Key: bytes.Clone(k)})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := f.store.PutSide(context.Background(), dels); err != nil {
			t.Fatal(err)
		}
		if n, marker := indexEntries(t, f.store, f.j.IRI); len(n) != 0 || marker {
			t.Fatalf("index not removed: %v %v", n, marker)
		}
		if err := f.store.Close(); err != nil {
			t.Fatal(err)
		}
		f.store, f.task = openIndexTask(t, f.dir)
	}
	check := func(how string) {
		rs := walk(t, f.task, f.rec, IndexAffinity, 6)
		if len(rs) != len(want) {
			t.Fatalf("%s: %d results, want %d", how, len(rs), len(want))
		}
		for i, r := range rs {
			if r.Ligand != want[i].id || r.Poses[0].Affinity != want[i].aff {
				t.Fatalf("%s: result %d %s %v, want %v", how, i, r.Ligand, r.Poses[0].Affinity, want[i])
			}
		}
		if fs := walk(t, f.task, f.rec, IndexFailure, 6); len(fs) != 5 {
			t.Fatalf("%s: %d failures, want 5", how, len(fs))
		}
		n, marker := indexEntries(t, f.store, f.j.IRI)
		if !marker || len(n) != 40 {
			t.Fatalf("%s: %d entries, marker %v", how, len(n), marker)
		}
	}
	drop()
	check("rebuilt by the listing")
	drop()
	if pending := f.newCommitter(t); len(pending) != 0 {
		t.Fatalf("resumed with %d pending", len(pending))
	}
	if _, marker := indexEntries(t, f.store, f.j.IRI); !marker {
		t.Fatal("resume did not rebuild the index")
	}
	check("rebuilt by the resume")
	f.store.Close()
	f.store, f.task = openIndexTask(t, f.dir) // for the cleanup
}

// TestIndexLargeJob commits 3,000 canned outcomes (9 modes each) through
// the commit path and compares a page from the index (the first and one
// 95% deep) against the whole-job read that listing did before: a page
// may allocate only the share of its results graphs. MOLGRAPH_INDEX_LIGANDS=20000 is the
// size of the figure in README (the commits take minutes).
func TestIndexLargeJob(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	n := 3000
	if v := os.Getenv("MOLGRAPH_INDEX_LIGANDS"); v != "" {
		fmt.Sscan(v, &n)
	}
	f := newIndexFixture(t, n)
	start := time.Now()
	var group []work.DockOutcome
	want := make([]scored, 0, n)
	for i := range n {
		a := -float64(i*7919%1000) / 100
		group = append(group, f.posed(f.ids[i], a, 9))
		want = append(want, scored{a, f.ids[i]})
		if len(group) == maxCommitGroup {
			f.add(t, group...)
			group = group[:0]
		}
	}
	f.add(t, group...)
	t.Logf("%d outcomes committed in %v", n, time.Since(start))
	slices.SortFunc(want, cmpScored)
	ctx := context.Background()
	measure := func(fn func()) (time.Duration, uint64) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		s := time.Now()
		fn()
		d := time.Since(s)
		runtime.ReadMemStats(&m1)
		return d, m1.TotalAlloc - m0.TotalAlloc
	}
	const limit = 100
	var first ResultsPage
	d1, a1 := measure(func() {
		var err error
		if first, err = f.task.Page(ctx, f.rec, IndexAffinity, nil, limit); err != nil {
			t.Fatal(err)
		}
	})
	deep := n - n/20
	pos := graph.OrderedFloat([]byte{IndexAffinity}, want[deep-1].aff)
	pos = append(pos, want[deep-1].id...)
	var deepPage ResultsPage
	d2, a2 := measure(func() {
		var err error
		if deepPage, err = f.task.Page(ctx, f.rec, IndexAffinity, pos, limit); err != nil {
			t.Fatal(err)
		}
	})
	d3, a3 := measure(func() {
		rs, err := f.task.readAllResults(ctx, f.rec)
		if err != nil || len(rs) != n {
			t.Fatalf("%d results, %v", len(rs), err)
		}
		slices.SortStableFunc(rs, func(a, b LigandResult) int { return cmp.Compare(a.Poses[0].Affinity, b.Poses[0].Affinity) })
	})
	for i, r := range first.Results {
		if r.Ligand != want[i].id || len(r.Poses) != 9 {
			t.Fatalf("page 1 result %d: %s, want %s", i, r.Ligand, want[i].id)
		}
	}
	for i, r := range deepPage.Results {
		if r.Ligand != want[deep+i].id {
			t.Fatalf("deep page result %d: %s, want %s", i, r.Ligand, want[deep+i].id)
		}
	}
	if len(first.Results) != limit || len(deepPage.Results) != limit {
		t.Fatalf("pages of %d and %d", len(first.Results), len(deepPage.Results))
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("%d ligands, limit %d: page 1 %v %.1f MB allocated; page at %d %v %.1f MB; whole-job read+sort %v %.1f MB (load %s)",
		n, limit, d1, float64(a1)/1e6, deep, d2, float64(a2)/1e6, d3, float64(a3)/1e6, bytes.TrimSpace(load))
	// Bounded by the page: it reads at most limit of the job's
	// n/ResultsPerGraph results graphs, so it may allocate that share of
	// the whole read (plus half again for the index scan and slack), on
	// page 1 as deep down.
	share := min(1, float64(limit)/(float64(n)/ResultsPerGraph))
	if bound := 1.5 * share * float64(a3); float64(a1) > bound || float64(a2) > bound {
		t.Errorf("a page allocates %d and %d bytes, the whole job %d: want at most %.0f", a1, a2, a3, bound)
	}
}

// BenchmarkRecordHead reads a job of MOLGRAPH_INDEX_LIGANDS ligands
// (default 100,000, MaxLigands) as GET /v1/docking/jobs/{id} and each
// results page read it before (Record: the job and all its inputs) and
// read it now (RecordHead: the job, its receptor and engine).
func BenchmarkRecordHead(b *testing.B) {
	n := MaxLigands
	if s := os.Getenv("MOLGRAPH_INDEX_LIGANDS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	st, task := openIndexTask(b, b.TempDir())
	defer st.Close()
	ctx := context.Background()
	id := "dock-head"
	props, err := propsOf(ontology.DockingSettings{PocketMethod: "box", Size: [3]float64{10, 10, 10}, Exhaustiveness: 8, NumModes: 9, EnergyRange: 3, Seed: 1},
		ontology.DockingProgress{Total: n})
	if err != nil {
		b.Fatal(err)
	}
	j := jobs.Job{ID: id, IRI: task.JobIRI(id), Class: ontology.DockingJobClass, Status: jobs.Running, CreatedAt: time.Now(), Props: props}
	ligs := make([]quad.IRI, n)
	for i := range ligs {
		ligs[i] = task.reg.IRI(synthID(i))
	}
	in := ontology.DockingInputsQuads(j.IRI, ontology.ResourceIRI(base, ontology.KindReceptor, "rec-1iep"), ligs,
		quad.IRI(base+"id/agent/vina-1.2.3"), "AutoDock Vina", "1.2.3")
	if err := st.PutGraph(ctx, j.IRI, j.Quads(base)); err != nil {
		b.Fatal(err)
	}
	if err := st.PutGraph(ctx, InputsIRI(j.IRI), in); err != nil {
		b.Fatal(err)
	}
	b.Run("Record", func(b *testing.B) {
		for b.Loop() {
			if r, err := task.Record(ctx, id); err != nil || len(r.Ligands) != n {
				b.Fatal(err, len(r.Ligands))
			}
		}
	})
	b.Run("RecordHead", func(b *testing.B) {
		for b.Loop() {
			if r, err := task.RecordHead(ctx, id); err != nil || r.Progress.Total != n || r.Engine == "" {
				b.Fatal(err, r)
			}
		}
	})
}
