package handlers

// The third round of the hostile suite (issue 15): the docking routes --
// receptor uploads of odd PDB and PDBQT files, docking job parameters at
// and past their bounds, cancelling at every stage, results paging with
// forged cursors -- against the server TestHostileRequests attacks. The
// docking runs are kept small (exhaustiveness 1, one mode, one or two
// ligands).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// pdbAtom is one PDB ATOM/HETATM record in the fixed columns.
func pdbAtom(rec string, serial int, name, alt, res, chain string, num int, icode string, x, y, z string, el string) string {
	return fmt.Sprintf("%-6s%5d %-4s%1s%3s %1s%4d%1s   %8s%8s%8s  1.00  0.00          %2s\n",
		rec, serial, name, alt, res, chain, num, icode, x, y, z, el)
}

// residuesOf returns the ATOM records of the 1iep receptor (with
// hydrogens) from residue first to last.
func residuesOf(t *testing.T, first, last int) []string {
	var out []string
	for _, l := range strings.Split(string(dockingCorpus(t, "vina-examples/1iep/1iep_receptorH.pdb")), "\n") {
		if !strings.HasPrefix(l, "ATOM") || len(l) < 27 {
			continue
		}
		var n int
		fmt.Sscanf(strings.TrimSpace(l[22:26]), "%d", &n)
		if n >= first && n <= last {
			out = append(out, l)
		}
	}
	return out
}

// replicatedPDBQT is the 1iep receptor PDBQT copied n times, each copy
// moved by 60 Å along x under its own chain letter: ~4,400 atoms a copy.
func replicatedPDBQT(t *testing.T, n int) []byte {
	src := strings.Split(string(dockingCorpus(t, "vina-examples/1iep/1iep_receptor.pdbqt")), "\n")
	var b bytes.Buffer
	for k := 0; k < n; k++ {
		chain := string(rune('A' + k%26))
		for _, l := range src {
			if !strings.HasPrefix(l, "ATOM") && !strings.HasPrefix(l, "HETATM") || len(l) < 54 {
				continue
			}
			var x float64
			fmt.Sscanf(strings.TrimSpace(l[30:38]), "%f", &x)
			b.WriteString(l[:21] + chain + l[22:30] + fmt.Sprintf("%8.3f", x+60*float64(k%26)) + l[38:] + "\n")
		}
	}
	return b.Bytes()
}

func dockingRoundCases(t *testing.T) []hostileCase {
	const (
		postRec  = "POST /v1/receptors"
		postDock = "POST /v1/docking/jobs"
		delDock  = "DELETE /v1/docking/jobs/{id}"
		results  = "GET /v1/docking/jobs/{id}/results"
		getDock  = "GET /v1/docking/jobs/{id}"
		js       = "application/json"
	)
	var cs []hostileCase
	rec := func(name, filename string, data func() []byte, c hostileCase, values ...string) {
		body, ct := multipartOf(filename, data, values...)
		c.name, c.route, c.who, c.body, c.ctype = "receptor3/"+name, postRec, "write", body, ct
		if c.within == 0 {
			c.within = 60 * time.Second
		}
		cs = append(cs, c)
	}
	text := func(s string) func() []byte { return func() []byte { return []byte(s) } }
	// A ligand and waters only: nothing of a protein is left.
	hetOnly := pdbAtom("HETATM", 1, "C1", "", "STI", "A", 900, "", "15.000", "53.000", "16.000", "C") +
		pdbAtom("HETATM", 2, "N1", "", "STI", "A", 900, "", "16.400", "53.000", "16.000", "N") +
		pdbAtom("HETATM", 3, "O1", "", "STI", "A", 900, "", "17.100", "54.100", "16.000", "O") + "END\n"
	var waters strings.Builder
	for i := 0; i < 50; i++ {
		waters.WriteString(pdbAtom("HETATM", i+1, "O", "", "HOH", "W", i+1, "", fmt.Sprintf("%.3f", float64(i)*3), "0.000", "0.000", "O"))
	}
	// Coordinates no structure has.
	bad := func(x string) func() []byte {
		return func() []byte {
			lines := residuesOf(t, 225, 230)
			l := lines[3]
			lines[3] = l[:30] + fmt.Sprintf("%8s", x) + l[38:]
			return []byte(strings.Join(lines, "\n") + "\nEND\n")
		}
	}
	far := func(pdbqt bool) func() []byte {
		return func() []byte {
			var b strings.Builder
			if pdbqt {
				b.WriteString("ATOM      1  N   ALA A   1    -9999.99-9999.99-9999.99  1.00  0.00     0.000 N \n")
				b.WriteString("ATOM      2  CA  ALA A   1    99999.9999999.9999999.99  1.00  0.00     0.000 C \n")
				return []byte(b.String())
			}
			b.WriteString(pdbAtom("ATOM", 1, "N", "", "ALA", "A", 1, "", "-9999.99", "-9999.99", "-9999.99", "N"))
			b.WriteString(pdbAtom("ATOM", 2, "CA", "", "ALA", "A", 1, "", "99999.99", "99999.99", "99999.99", "C"))
			return []byte(b.String())
		}
	}
	rec("hetatm-only", "het.pdb", text(hetOnly), hostileCase{status: 422})
	rec("waters-only", "hoh.pdb", text(waters.String()), hostileCase{status: 422})
	rec("waters-only-keep-hetero", "hoh.pdb", text(waters.String()), hostileCase{status: 422}, "keep_hetero", "true")
	rec("pdb-nan-x", "nan.pdb", bad("NaN"), hostileCase{status: 422})
	rec("pdb-inf-x", "inf.pdb", bad("+Inf"), hostileCase{status: 422})
	rec("pdb-1e30-x", "e30.pdb", bad("1e30"), hostileCase{status: 422})
	rec("pdb-hex-x", "hex.pdb", bad("0x1p-2"), hostileCase{status: 422})
	rec("pdb-spread-1e5", "far.pdb", far(false), hostileCase{status: 422, maxRSS: 300})
	rec("pdbqt-spread-1e5", "far.pdbqt", far(true), hostileCase{status: 422, maxRSS: 300})
	rec("pdbqt-1e30", "e30.pdbqt", text("ATOM      1  N   ALA A   1       1e30   0.000   0.000  1.00  0.00     0.000 N \n"), hostileCase{status: 422})
	rec("pdb-non-ascii-resname", "u.pdb", func() []byte {
		lines := residuesOf(t, 225, 227)
		for i, l := range lines {
			lines[i] = l[:17] + "ÄLA" + l[20:]
		}
		return []byte(strings.Join(lines, "\n") + "\n")
	}, hostileCase{})
	rec("pdb-nul-bytes", "nul.pdb", func() []byte {
		return bytes.ReplaceAll([]byte(strings.Join(residuesOf(t, 225, 227), "\n")), []byte("MET"), []byte("M\x00T"))
	}, hostileCase{})
	rec("pdb-only-remarks", "r.pdb", text(strings.Repeat("REMARK   1 NOTHING HERE\n", 1000)), hostileCase{status: 422})
	rec("pdb-atom-records-truncated", "short.pdb", text(strings.Repeat("ATOM      1  N   ALA A   1\n", 1000)), hostileCase{status: 422})
	rec("pdbqt-100k-atoms-no-types", "big.pdbqt", func() []byte {
		var b bytes.Buffer
		for i := 0; i < 100_000; i++ {
			fmt.Fprintf(&b, "ATOM  %5d  CA  ALA A%4d    %8.3f%8.3f%8.3f  1.00  0.00     0.000 Qq\n", i%100000, i%10000, float64(i%50)*1.5, float64(i/50%50)*1.5, float64(i/2500)*1.5)
		}
		return b.Bytes()
	}, hostileCase{status: 422, maxRSS: 400})
	rec("pdbqt-over-200000-atoms", "huge.pdbqt", func() []byte { return replicatedPDBQT(t, 80) }, hostileCase{status: 422, maxRSS: 600})

	// Docking jobs at and past their bounds.
	dock := func(name, fields string, c hostileCase) {
		c.name, c.route, c.who, c.ctype = "docking3/"+name, postDock, "write", js
		c.body = func() io.Reader { return strings.NewReader(`{"receptor": "REC", "ligands": ["MOL"]` + fields + `}`) }
		cs = append(cs, c)
	}
	field := func(f string) func(t *testing.T, resp *http.Response, body []byte) { return problemNaming(400, f) }
	dock("box-zero", `, "pocket": "box", "box": {"center": [15, 53, 16], "size": [0, 0, 0]}`, hostileCase{status: 400})
	dock("box-127", `, "pocket": "box", "box": {"center": [15, 53, 16], "size": [127, 20, 20]}`, hostileCase{status: 400})
	dock("box-two-values", `, "pocket": "box", "box": {"center": [15, 53], "size": [20, 20]}`, hostileCase{status: 400})
	dock("box-four-values", `, "pocket": "box", "box": {"center": [15, 53, 16, 1], "size": [20, 20, 20, 20]}`, hostileCase{status: 400})
	dock("box-center-1e300", `, "pocket": "box", "box": {"center": [1e300, 0, 0], "size": [20, 20, 20]}`, hostileCase{status: 400})
	dock("box-far-from-receptor", `, "pocket": "box", "box": {"center": [5000, 5000, 5000], "size": [20, 20, 20]}`, hostileCase{status: 422, code: "box_outside_receptor"})
	dock("box-126-cube", `, "pocket": "box", "box": {"center": [15, 53, 16], "size": [126, 126, 126]}`, hostileCase{check: field("box")})
	dock("box-strings", `, "pocket": "box", "box": {"center": ["15", "53", "16"], "size": [20, 20, 20]}`, hostileCase{status: 400})
	dock("box-with-auto", `, "pocket": "auto", "box": {"center": [15, 53, 16], "size": [20, 20, 20]}`, hostileCase{status: 400})
	dock("exhaustiveness-65", `, "exhaustiveness": 65`, hostileCase{check: field("exhaustiveness")})
	dock("exhaustiveness-negative", `, "exhaustiveness": -1`, hostileCase{check: field("exhaustiveness")})
	dock("num_modes-0", `, "num_modes": 0`, hostileCase{check: field("num_modes")})
	dock("num_modes-huge", `, "num_modes": 99999999999999999999`, hostileCase{status: 400})
	dock("seed-huge", `, "seed": 99999999999999999999`, hostileCase{status: 400})
	dock("seed-float", `, "seed": 4.2`, hostileCase{status: 400})
	dock("seed-string", `, "seed": "42"`, hostileCase{status: 400})
	dock("energy_range-negative", `, "energy_range": -3`, hostileCase{check: field("energy_range")})
	dock("ligand_ph-negative", `, "ligand_ph": -1`, hostileCase{check: field("ligand_ph")})
	dock("ligand_ph-NaN-string", `, "ligand_ph": "NaN"`, hostileCase{status: 400})
	dock("ligand_ph-15", `, "ligand_ph": 15`, hostileCase{check: field("ligand_ph")})
	dock("scoring-empty-object", `, "scoring": {}`, hostileCase{status: 400})
	dock("pocket-p0", `, "pocket": "p0"`, hostileCase{})
	dock("pocket-huge-index", `, "pocket": "p99999999999999999999999"`, hostileCase{status: 422})
	dock("pocket-non-ascii", `, "pocket": "p\u00e9"`, hostileCase{})
	cs = append(cs,
		hostileCase{name: "docking3/duplicate-ligands", route: postDock, who: "write", ctype: js, status: 400,
			body: lit(`{"receptor": "REC", "ligands": ["MOL", "MOL"]}`)},
		hostileCase{name: "docking3/ligand-not-a-molecule", route: postDock, who: "write", ctype: js, status: 422,
			body: lit(`{"receptor": "REC", "ligands": ["REC"]}`)},
		hostileCase{name: "docking3/receptor-is-a-molecule", route: postDock, who: "write", ctype: js, status: 422,
			body: lit(`{"receptor": "MOL", "ligands": ["MOL"]}`)},
		hostileCase{name: "docking3/ligand-null", route: postDock, who: "write", ctype: js, check: problemNaming(400, "ligands"),
			body: lit(`{"receptor": "REC", "ligands": [null]}`)},
		hostileCase{name: "docking3/ligand-empty-string", route: postDock, who: "write", ctype: js, check: problemNaming(400, "ligands"),
			body: lit(`{"receptor": "REC", "ligands": [""]}`)},
		// 10,000 distinct ids (the cap) that name no molecule: one 422
		// listing them, within the time bound.
		hostileCase{name: "docking3/10000-unknown-ligands", route: postDock, who: "write", ctype: js, status: 422, within: 30 * time.Second,
			body: func() io.Reader {
				ids := make([]string, 10_000)
				for i := range ids {
					ids[i] = fmt.Sprintf("mol-%032x", i)
				}
				b, _ := json.Marshal(map[string]any{"receptor": "REC", "ligands": ids})
				return bytes.NewReader(b)
			}},
		hostileCase{name: "docking3/get-unknown-job", route: getDock, path: "/v1/docking/jobs/dock-nope", who: "read", status: 404},
		hostileCase{name: "docking3/get-job-of-another-kind", route: getDock, path: "/v1/docking/jobs/{batch}", who: "read", status: 404},
		hostileCase{name: "docking3/cancel-unknown", route: delDock, path: "/v1/docking/jobs/dock-nope", who: "write", status: 404},
		hostileCase{name: "docking3/cancel-read-scope", route: delDock, path: "/v1/docking/jobs/{dock}", who: "read", status: 403},
		hostileCase{name: "docking3/cancel-batch-job", route: delDock, path: "/v1/docking/jobs/{batch}", who: "write", status: 404},
		hostileCase{name: "docking3/results-limit-0", route: results, path: "/v1/docking/jobs/{dock}/results?limit=0", who: "read", status: 400},
		hostileCase{name: "docking3/results-limit-1001", route: results, path: "/v1/docking/jobs/{dock}/results?limit=1001", who: "read", status: 400},
		hostileCase{name: "docking3/results-limit-huge", route: results, path: "/v1/docking/jobs/{dock}/results?limit=99999999999999999999", who: "read", status: 400},
		hostileCase{name: "docking3/results-cursor-negative", route: results, path: "/v1/docking/jobs/{dock}/results?cursor=" + searchCursor("dock:-5"), who: "read", status: 400},
		hostileCase{name: "docking3/results-cursor-huge", route: results, path: "/v1/docking/jobs/{dock}/results?cursor=" + searchCursor("dock:99999999999999999999"), who: "read", status: 400},
		hostileCase{name: "docking3/results-cursor-other-route", route: results, path: "/v1/docking/jobs/{dock}/results?cursor=" + searchCursor("mol:5"), who: "read", status: 400},
		hostileCase{name: "docking3/results-cursor-10k", route: results, path: "/v1/docking/jobs/{dock}/results?cursor=" + strings.Repeat("A", 10_000), who: "read", status: 400},
		hostileCase{name: "docking3/results-two-cursors", route: results, path: "/v1/docking/jobs/{dock}/results?cursor=a&cursor=b", who: "read", status: 400},
	)
	// InChIs with layers libinchi reads into something else (chem checks
	// them: TestInChINonsenseLayers): 422 naming the layer, nothing stored.
	for _, c := range []struct{ name, inchi, says string }{
		{"q+99", "InChI=1S/CH4/h1H4/q+99", "charge"},
		{"p-1", "InChI=1S/CH4/h1H4/p-1", "proton layer"},
		{"p+99999", "InChI=1S/CH4/h1H4/p+99999", "proton layer"},
		{"i1+500", "InChI=1S/CH4/h1H4/i1+500", "mass number"},
		{"i1-99", "InChI=1S/C2H6/c1-2/h1-2H3/i1-99", "mass number"},
		{"i-on-missing-atom", "InChI=1S/CH4/h1H4/i5+1", "InChI"},
		{"q-on-missing-component", "InChI=1S/CH4/h1H4/q+1;+1", "InChI"},
	} {
		body, _ := json.Marshal(map[string]any{"format": "inchi", "content": c.inchi})
		says := c.says
		cs = append(cs, hostileCase{name: "molecules3/inchi-" + c.name, route: "POST /v1/molecules", who: "write", ctype: js,
			body: litBytes(body), check: func(t *testing.T, resp *http.Response, data []byte) {
				checkHostileAnswer(t, hostileCase{status: 422, code: "invalid_molecule"}, resp, data)
				if !strings.Contains(string(data), says) {
					t.Errorf("the problem does not say %q: %s", says, data)
				}
			}})
	}
	return cs
}

// TestHostileDockingRoutes runs the docking round against the hostile
// server (with vina: the seeded docking job needs it).
func TestHostileDockingRoutes(t *testing.T) {
	if testing.Short() {
		t.Skip("receptor preparation and docking take minutes")
	}
	if _, err := exec.LookPath("vina"); err != nil {
		t.Skip("vina not installed")
	}
	e := newHostileEnv(t, nil)
	for _, c := range dockingRoundCases(t) {
		method, pattern, _ := strings.Cut(c.route, " ")
		if c.method == "" {
			c.method = method
		}
		if c.path == "" {
			c.path = seededPath(pattern)
		}
		if c.body != nil && c.route == "POST /v1/docking/jobs" {
			body := c.body
			c.body = func() io.Reader {
				b, _ := io.ReadAll(body())
				b = bytes.ReplaceAll(b, []byte(`"REC"`), []byte(`"`+e.ids["rec"]+`"`))
				return bytes.NewReader(bytes.ReplaceAll(b, []byte(`"MOL"`), []byte(`"`+e.ids["mol"]+`"`)))
			}
		}
		t.Run(c.name, func(t *testing.T) { e.run(t, c) })
	}
	t.Run("receptor3/odd-but-valid-pdb", func(t *testing.T) { oddReceptors(t, e) })
}

// oddReceptors uploads PDB files that are odd but valid -- alternate
// locations, insertion codes, CRLF line ends, a duplicated atom record --
// cut from 1iep (residues 225-240): each is prepared (201) into the
// receptor the plain file gives, or refused with a 4xx problem; never a
// 5xx.
func oddReceptors(t *testing.T, e *hostileEnv) {
	plain := residuesOf(t, 225, 240)
	post := func(name string, lines []string, sep string) (int, map[string]any) {
		body, ct := hostileUpload(t, name+".pdb", []byte(strings.Join(lines, sep)+sep+"END"+sep))
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		resp, data, err := e.send(ctx, "POST", "/v1/receptors", "write", body, "Content-Type", ct)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var v map[string]any
		json.Unmarshal(data, &v)
		if resp.StatusCode >= 500 {
			t.Errorf("%s: %d %s", name, resp.StatusCode, data)
		}
		t.Logf("%s: %d atoms %v residues %v warnings %v", name, resp.StatusCode, v["atoms"], v["residues"], v["warnings"])
		return resp.StatusCode, v
	}
	code, ref := post("plain", plain, "\n")
	if code != 201 {
		t.Fatalf("plain fragment: %d %v", code, ref)
	}
	// Residue 230 twice, as alternate locations A (occupancy 0.60) and B
	// (0.40, moved 0.5 Å): location A is kept.
	var alt []string
	for _, l := range plain {
		if strings.TrimSpace(l[22:26]) != "230" {
			alt = append(alt, l)
			continue
		}
		var x float64
		fmt.Sscanf(strings.TrimSpace(l[30:38]), "%f", &x)
		alt = append(alt, l[:16]+"A"+l[17:54]+"  0.60"+l[60:])
		alt = append(alt, l[:16]+"B"+l[17:30]+fmt.Sprintf("%8.3f", x+0.5)+l[38:54]+"  0.40"+l[60:])
	}
	if code, v := post("altlocs", alt, "\n"); code != 201 || v["atoms"] != ref["atoms"] || v["residues"] != ref["residues"] {
		t.Errorf("alternate locations: %d, %v atoms %v residues; want 201 with %v and %v", code, v["atoms"], v["residues"], ref["atoms"], ref["residues"])
	}
	// Residue 231 numbered 230A: the residues stay 16.
	var ins []string
	for _, l := range plain {
		if strings.TrimSpace(l[22:26]) == "231" {
			l = l[:22] + " 230A" + l[27:]
		}
		ins = append(ins, l)
	}
	if code, v := post("insertion", ins, "\n"); code != 201 || v["residues"] != ref["residues"] {
		t.Errorf("insertion code: %d, %v residues; want 201 with %v", code, v["residues"], ref["residues"])
	}
	if code, v := post("crlf", plain, "\r\n"); code != 201 || v["atoms"] != ref["atoms"] {
		t.Errorf("CRLF: %d, %v atoms; want 201 with %v", code, v["atoms"], ref["atoms"])
	}
	// One atom record twice (same name, same residue): refused or prepared,
	// never a 5xx (post checks).
	post("duplicate-atom", append(slices.Clone(plain[:10]), append([]string{plain[9]}, plain[10:]...)...), "\n")
}

// TestHostileDockingLifecycle docks two ligands (exhaustiveness 1, one
// mode, a 14 Å box): aspirin and the 999-carbon chain, which cannot be
// prepared. The chain is that ligand's clean failure, the job succeeds;
// cancelling the finished job is 409 twice; its results page with limit=1
// and a forged cursor past the end; a second job cancelled twice at once
// ends cancelled with no result stored.
func TestHostileDockingLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("docks with vina")
	}
	if _, err := exec.LookPath("vina"); err != nil {
		t.Skip("vina not installed")
	}
	e := newHostileEnv(t, nil)
	ctx := t.Context()
	body := func(ligands ...string) io.Reader {
		b, _ := json.Marshal(map[string]any{"receptor": e.ids["rec"], "ligands": ligands, "pocket": "box",
			"box":            map[string]any{"center": []float64{15.190, 53.903, 16.917}, "size": []float64{14, 14, 14}},
			"exhaustiveness": 1, "num_modes": 1, "seed": 7})
		return bytes.NewReader(b)
	}
	ct := []string{"Content-Type", "application/json"}
	job := e.mustSend(t, "POST", "/v1/docking/jobs", "write", body(e.ids["mol"], e.ids["chain"]), []int{202}, ct...)["id"].(string)
	e.waitJob(t, "/v1/docking/jobs/"+job)
	v := e.mustSend(t, "GET", "/v1/docking/jobs/"+job, "read", nil, []int{200})
	if v["status"] != "succeeded" || v["finished_ligands"] != 1.0 || v["failed_ligands"] != 1.0 {
		t.Fatalf("job: %v", v)
	}
	for i := 0; i < 2; i++ {
		resp, data, err := e.send(ctx, "DELETE", "/v1/docking/jobs/"+job, "write", nil)
		if err != nil {
			t.Fatal(err)
		}
		checkHostileAnswer(t, hostileCase{status: 409}, resp, data)
	}
	page := e.mustSend(t, "GET", "/v1/docking/jobs/"+job+"/results?limit=1", "read", nil, []int{200})
	rs, _ := page["results"].([]any)
	fs, _ := page["failures"].([]any)
	if len(rs) != 1 || len(fs) != 1 || page["next_cursor"] != nil {
		t.Errorf("results page: %v", page)
	}
	if len(fs) == 1 && fs[0].(map[string]any)["ligand"] != e.ids["chain"] {
		t.Errorf("failure: %v", fs[0])
	}
	past := e.mustSend(t, "GET", "/v1/docking/jobs/"+job+"/results?cursor="+searchCursor("dock:5"), "read", nil, []int{200, 400})
	if rs, ok := past["results"].([]any); ok && len(rs) != 0 {
		t.Errorf("a cursor past the end gave %d results", len(rs))
	}
	// The pose of the failed ligand does not exist; the docked one's does.
	e.mustSend(t, "GET", "/v1/docking/jobs/"+job+"/poses/"+e.ids["chain"]+"/1.sdf", "read", nil, []int{404})
	e.mustSend(t, "GET", "/v1/docking/jobs/"+job+"/poses/"+e.ids["mol"]+"/1.sdf", "read", nil, []int{200})
	e.mustSend(t, "GET", "/v1/docking/jobs/"+job+"/poses/"+e.ids["mol"]+"/2.sdf", "read", nil, []int{404})

	// Cancelled twice at once, as it starts.
	job2 := e.mustSend(t, "POST", "/v1/docking/jobs", "write", body(e.ids["mol"]), []int{202}, ct...)["id"].(string)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, data, err := e.send(ctx, "DELETE", "/v1/docking/jobs/"+job2, "write", nil)
			if err != nil {
				t.Error(err)
				return
			}
			codes[i] = resp.StatusCode
			if resp.StatusCode != 200 && resp.StatusCode != 202 {
				checkHostileAnswer(t, hostileCase{status: 409}, resp, data)
			}
		}()
	}
	wg.Wait()
	e.waitJob(t, "/v1/docking/jobs/"+job2)
	v = e.mustSend(t, "GET", "/v1/docking/jobs/"+job2, "read", nil, []int{200})
	t.Logf("two cancels: %v; job %v, %v finished", codes, v["status"], v["finished_ligands"])
	if v["status"] != "cancelled" && v["status"] != "succeeded" {
		t.Errorf("job after two cancels: %v", v)
	}
	if v["status"] == "cancelled" {
		res := e.mustSend(t, "GET", "/v1/docking/jobs/"+job2+"/results", "read", nil, []int{200})
		if rs, _ := res["results"].([]any); len(rs)+int(v["finished_ligands"].(float64)) != 2*len(rs) {
			t.Errorf("cancelled job: %d results for %v finished ligands", len(rs), v["finished_ligands"])
		}
	}
	e.checkAlive(t)
}
