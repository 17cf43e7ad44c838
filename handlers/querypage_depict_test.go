package handlers

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// hitCard is one card of the page's search grid.
type hitCard struct {
	ID     string `json:"id"`
	Score  string `json:"score"`
	Loaded bool   `json:"loaded"` // its depiction is an <img> decoded with a size
	Src    string `json:"src"`
}

const readGridJS = `Array.from(document.querySelectorAll('#search-results .hit')).map(c => {
  const img = c.querySelector('img.depiction');
  return {id: c.dataset.id, score: c.dataset.score, loaded: !!img && img.complete && img.naturalWidth > 0,
          src: img ? img.getAttribute('src') : ''};
})`

// tablePicturesJS counts the results table's depictions: loaded ones, and
// the cells that gave up.
const tablePicturesJS = `(() => {
  const imgs = Array.from(document.querySelectorAll('#results img.depiction'));
  return {loaded: imgs.filter(i => i.complete && i.naturalWidth > 0).length, all: imgs.length,
          failed: document.querySelectorAll('#results .depict-fail').length,
          srcs: imgs.map(i => i.getAttribute('src')),
          alts: Array.from(document.querySelectorAll('#results tbody tr')).map(tr => {
            const i = tr.children[2] && tr.children[2].querySelector('img'); return i ? i.alt : ''; }),
          smiles: Array.from(document.querySelectorAll('#results tbody tr')).map(tr =>
            tr.children[2] ? tr.children[2].querySelector('.v').textContent : '')};
})()`

type tablePictures struct {
	Loaded, All, Failed int
	Srcs, Alts, Smiles  []string
}

// TestQueryPageDepictionsInChromium drives the query page in headless
// Chromium against a server with registered molecules and the search
// index: the SPARQL results draw a picture for every SMILES and molecule
// IRI cell (through blob: URLs, the key never in a URL), the search box
// shows the REST search's hits as a grid of loaded depictions with the
// REST scores, and a screenshot of a substructure hit's depiction holds
// the highlight colour at the matched atoms and not elsewhere.
func TestQueryPageDepictionsInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (Debian package chromium)")
	}
	f, _ := searchFixture(t)
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	token := f.tokens["read"]

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.DisableGPU,
		chromedp.WindowSize(1200, 2400))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	parent, cancelTimeout := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancelTimeout()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var exceptions []string
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithListener(func(ev any) {
		if ev, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			exceptions = append(exceptions, ev.ExceptionDetails.Text)
			mu.Unlock()
		}
	}))
	defer cancel()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#run")),
		chromedp.SendKeys(chromedp.CSS("#api-key"), token)); err != nil {
		t.Fatal(err)
	}

	// 1. The example query: molecule IRIs and SMILES drawn.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#run")),
		chromedp.Poll[chromedp.Void](`/ ms$/.test(document.getElementById('status').textContent)`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#results tbody tr').length`))
	if err != nil || rows != 10 {
		t.Fatalf("%d rows (%v)", rows, err)
	}
	_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](
		fmt.Sprintf(`(() => { const i = Array.from(document.querySelectorAll('#results img.depiction'));
		  return i.length === %d && i.every(x => x.complete && x.naturalWidth > 0); })()`, 2*rows),
		chromedp.WithPollingTimeout(60*time.Second)))
	tp, _ := chromedp.Run(ctx, chromedp.Evaluate[tablePictures](tablePicturesJS))
	if err != nil {
		t.Fatalf("table pictures: %v: %+v", err, tp)
	}
	if tp.Failed != 0 || !slices.Equal(tp.Alts, tp.Smiles) {
		t.Errorf("table pictures: %+v", tp)
	}
	for _, src := range tp.Srcs {
		if !strings.HasPrefix(src, "blob:") || strings.Contains(src, token) {
			t.Errorf("picture src %q", src)
		}
	}

	// 2. The search box, against the REST route.
	restHits := func(v url.Values) (ids []string, scores []string) {
		t.Helper()
		rec := f.do(t, "GET", "/v1/molecules/search?"+v.Encode(), "read", nil)
		if rec.Code != 200 {
			t.Fatalf("REST %v: %d %s", v, rec.Code, rec.Body)
		}
		for _, h := range decode[searchPage](t, rec).Hits {
			ids = append(ids, h.ID)
			s := ""
			if h.Score != nil {
				s = strconv.FormatFloat(*h.Score, 'f', 3, 64)
			}
			scores = append(scores, s)
		}
		return ids, scores
	}
	searchOnPage := func(query, typ, threshold string) []hitCard {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`document.getElementById('search-status').textContent = ''`),
			chromedp.SetValue(chromedp.CSS("#search-query"), query),
			chromedp.SetValue(chromedp.CSS("#search-type"), typ),
			chromedp.SetValue(chromedp.CSS("#search-threshold"), threshold),
			chromedp.Click(chromedp.CSS("#search-run")),
			chromedp.Poll[chromedp.Void](`/ ms$/.test(document.getElementById('search-status').textContent)`, chromedp.WithPollingTimeout(30*time.Second)),
			chromedp.Poll[chromedp.Void](`Array.from(document.querySelectorAll('#search-results .hit')).every(c => {
			  const i = c.querySelector('img.depiction'); return i && i.complete && i.naturalWidth > 0; })`, chromedp.WithPollingTimeout(60*time.Second)))
		cards, _ := chromedp.Run(ctx, chromedp.Evaluate[[]hitCard](readGridJS))
		if err != nil {
			st, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('search-status').textContent + ' ' + document.getElementById('search-error').textContent`))
			t.Fatalf("search %s %s: %v; status %q, cards %+v", typ, query, err, st, cards)
		}
		return cards
	}

	cards := searchOnPage("c1ccccc1", "substructure", "0.7")
	wantIDs, _ := restHits(url.Values{"type": {"substructure"}, "query": {"c1ccccc1"}, "query_format": {"smiles"}, "limit": {"60"}})
	var gotIDs []string
	for _, c := range cards {
		gotIDs = append(gotIDs, c.ID)
		if !c.Loaded || !strings.HasPrefix(c.Src, "blob:") {
			t.Errorf("card %+v", c)
		}
	}
	if len(wantIDs) < 5 || !slices.Equal(gotIDs, wantIDs) {
		t.Errorf("substructure grid %v, REST %v", gotIDs, wantIDs)
	}

	// 3. The screenshot: Chromium's rendering of the first hit's depiction
	// (its query match highlighted) holds the highlight colour around every
	// matched atom the SVG places.
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#search-results .hit img.depiction")))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	svg := fetchSVG(t, ts.URL, token, "/v1/molecules/"+cards[0].ID+"/image.svg?width=200&height=150&highlight=c1ccccc1")
	centres := highlightCentres(t, svg)
	if len(centres) != 6 {
		t.Fatalf("SVG highlights %d atoms, want 6", len(centres))
	}
	scale := float64(img.Bounds().Dx()) / 200
	dark, pink := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl := rgb(img, x, y)
			if r < 80 && g < 80 && bl < 80 {
				dark++
			}
			if isHighlight(r, g, bl) {
				pink++
			}
		}
	}
	if dark < 100 || pink < 200 {
		t.Errorf("screenshot %v: %d dark pixels (bonds), %d highlight pixels", b, dark, pink)
	}
	for _, c := range centres {
		n := 0
		cx, cy := int(c[0]*scale)+b.Min.X, int(c[1]*scale)+b.Min.Y
		for y := cy - 8; y <= cy+8; y++ {
			for x := cx - 8; x <= cx+8; x++ {
				if image.Pt(x, y).In(b) {
					if r, g, bl := rgb(img, x, y); isHighlight(r, g, bl) {
						n++
					}
				}
			}
		}
		if n < 10 {
			t.Errorf("matched atom at (%.0f, %.0f): %d highlight pixels around it", c[0], c[1], n)
		}
	}

	// 4. Similarity: the REST hits in the REST order with the REST scores;
	// no highlight in the pictures.
	aspirin := "CC(=O)Oc1ccccc1C(=O)O"
	cards = searchOnPage(aspirin, "similarity", "0.3")
	wantIDs, wantScores := restHits(url.Values{"type": {"similarity"}, "query": {aspirin}, "threshold": {"0.3"}, "limit": {"60"}})
	gotIDs = nil
	var gotScores []string
	for _, c := range cards {
		gotIDs, gotScores = append(gotIDs, c.ID), append(gotScores, c.Score)
	}
	if len(wantIDs) < 2 || !slices.Equal(gotIDs, wantIDs) || !slices.Equal(gotScores, wantScores) {
		t.Errorf("similarity grid %v %v, REST %v %v", gotIDs, gotScores, wantIDs, wantScores)
	}
	shot, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#search-results .hit img.depiction")))
	if err != nil {
		t.Fatal(err)
	}
	if img, err = png.Decode(bytes.NewReader(shot)); err != nil {
		t.Fatal(err)
	}
	pinkPlain := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if r, g, bl := rgb(img, x, y); isHighlight(r, g, bl) {
				pinkPlain++
			}
		}
	}
	t.Logf("screenshot %v: %d dark and %d highlight pixels; unhighlighted: %d highlight pixels; %d table pictures, %d hits",
		b, dark, pink, pinkPlain, tp.All, len(cards))
	if pinkPlain*10 > pink {
		t.Errorf("an unhighlighted depiction has %d highlight-coloured pixels (the highlighted one %d)", pinkPlain, pink)
	}

	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp`))
	if err != nil || len(violations) != 0 {
		t.Errorf("CSP violations %v (%v)", violations, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(exceptions) != 0 {
		t.Errorf("uncaught exceptions: %v", exceptions)
	}
}

func rgb(img image.Image, x, y int) (r, g, b uint32) {
	r, g, b, _ = img.At(x, y).RGBA()
	return r >> 8, g >> 8, b >> 8
}

// isHighlight is RDKit's highlight colour #FF7F7F, within rendering noise.
func isHighlight(r, g, b uint32) bool {
	return r >= 235 && g >= 105 && g <= 150 && b >= 105 && b <= 150
}

// fetchSVG GETs a depiction with the key.
func fetchSVG(t *testing.T, base, token, path string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	return string(body)
}

// highlightCentres are the centres of the SVG's highlight ellipses (one
// per highlighted atom).
func highlightCentres(t *testing.T, svg string) [][2]float64 {
	t.Helper()
	var out [][2]float64
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok || el.Name.Local != "ellipse" {
			continue
		}
		a := map[string]string{}
		for _, at := range el.Attr {
			a[at.Name.Local] = at.Value
		}
		if !strings.Contains(a["style"], "fill:"+svgHighlight) {
			continue
		}
		x, err1 := strconv.ParseFloat(a["cx"], 64)
		y, err2 := strconv.ParseFloat(a["cy"], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("ellipse %v", a)
		}
		out = append(out, [2]float64{x, y})
	}
	return out
}
