package handlers

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/molgraph/molgraph/admission"
	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/ontology"
)

// Depictions: GET /v1/molecules/{id}/image.svg draws a stored molecule,
// GET /v1/depict any SMILES, both with RDKit's MolDraw2DSVG on the chem
// pool's worker threads (chem.Pool.Depict), the first match of a highlight
// SMARTS highlighted. A depiction is a pure function of its inputs (a
// molecule id names one structure for ever), so it carries an ETag made
// from them and is answered 304 without any chemistry when the client
// has it.

// depictVersion is part of every depiction's ETag: change it when the
// drawing changes (RDKit, drawing options), so that clients fetch again.
const depictVersion = "1"

// depictCacheControl lets a browser keep a depiction for a day. It is
// private: the answer needs a key, and a shared cache must not serve it.
const depictCacheControl = "private, max-age=86400"

// depictSVGType is the media type of a depiction.
const depictSVGType = "image/svg+xml"

func (s *Server) depictResource() resource {
	svg := map[string]Schema{depictSVGType: {"type": "string"}}
	opts := []Param{
		{Name: "width", In: "query", Description: fmt.Sprintf("Width in pixels (default %d).", chem.DefaultDepictSize),
			Schema: Schema{"type": "integer", "minimum": chem.MinDepictSize, "maximum": chem.MaxDepictSize, "default": chem.DefaultDepictSize}},
		{Name: "height", In: "query", Description: fmt.Sprintf("Height in pixels (default %d).", chem.DefaultDepictSize),
			Schema: Schema{"type": "integer", "minimum": chem.MinDepictSize, "maximum": chem.MaxDepictSize, "default": chem.DefaultDepictSize}},
		{Name: "highlight", In: "query", Description: "A SMARTS (a SMILES is one too); the atoms and bonds of its first match " +
			"(RDKit's GetSubstructMatch) are highlighted. One that does not parse, or whose match takes more than " +
			"depict_highlight_match_steps atom comparisons, is 400 invalid_request naming highlight.",
			Schema: Schema{"type": "string", "maxLength": chem.MaxHighlightBytes}},
	}
	common := "2D coordinates from RDKit's depictor (compute2DCoords, canonical orientation), drawn by RDKit's MolDraw2DSVG " +
		"(text as paths; atom i of the SMILES has the class atom-i, bond k bond-k). Width and height out of " +
		fmt.Sprintf("%d..%d are 400 invalid_request. A molecule with more than 2d_max_heavy_atoms heavy atoms is ", chem.MinDepictSize, chem.MaxDepictSize) +
		"422 too_large_for_2d. The answer carries an ETag made from the inputs (If-None-Match: 304 without any chemistry) " +
		"and Cache-Control: " + depictCacheControl + "."
	return resource{routes: []Route{
		{
			Method: http.MethodGet, Pattern: "/v1/molecules/{id}/image.svg", Scope: auth.ScopeRead, Class: admission.Chem,
			Handle: s.moleculeImage,
			Doc: Doc{Tag: "molecules", Summary: "A 2D depiction of the molecule as SVG, a substructure optionally highlighted",
				PathParams:  map[string]string{"id": "The molecule id (mol-...)."},
				Description: "Draws the stored canonical SMILES. " + common, Params: opts,
				Responses: []Response{{Status: 200, Description: "The depiction.", Content: svg,
					Headers: map[string]string{"ETag": "Made from the molecule id and the options.", "Cache-Control": depictCacheControl}},
					{Status: 304, Description: "Not modified (If-None-Match matched the ETag)."}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/depict", Scope: auth.ScopeRead, Class: admission.Chem, Handle: s.depictSMILES,
			Doc: Doc{Tag: "molecules", Summary: "A 2D depiction of any SMILES as SVG (for the query page), a substructure optionally highlighted",
				Description: "Draws the SMILES as given (sanitized, not normalized: atom i is the SMILES's i-th atom). " +
					fmt.Sprintf("A SMILES longer than %d bytes is 400 invalid_request; one that is not a molecule 422 invalid_molecule. ", chem.MaxDepictSMILESBytes) +
					common,
				Params: append([]Param{{Name: "smiles", In: "query", Required: true, Description: "The SMILES to draw.",
					Schema: Schema{"type": "string", "minLength": 1, "maxLength": chem.MaxDepictSMILESBytes}}}, opts...),
				Responses: []Response{{Status: 200, Description: "The depiction.", Content: svg,
					Headers: map[string]string{"ETag": "Made from the SMILES and the options.", "Cache-Control": depictCacheControl}},
					{Status: 304, Description: "Not modified (If-None-Match matched the ETag)."}}},
		},
	}}
}

// depictOptions reads width, height and highlight.
func depictOptions(r *http.Request) (chem.DepictOptions, error) {
	q := r.URL.Query()
	var o chem.DepictOptions
	for _, f := range []struct {
		name string
		v    *int
	}{{"width", &o.Width}, {"height", &o.Height}} {
		text := q.Get(f.name)
		if text == "" {
			continue
		}
		v, err := strconv.Atoi(text)
		if err != nil || v < chem.MinDepictSize || v > chem.MaxDepictSize {
			return o, badRequest(f.name, "%.40q is not a number of pixels within %d..%d", text, chem.MinDepictSize, chem.MaxDepictSize)
		}
		*f.v = v
	}
	o.Highlight = strings.TrimSpace(q.Get("highlight"))
	if len(o.Highlight) > chem.MaxHighlightBytes {
		return o, badRequest("highlight", "SMARTS of %d bytes, more than %d", len(o.Highlight), chem.MaxHighlightBytes)
	}
	return o, nil
}

// depictionETag is the strong ETag of a depiction of subject (a molecule
// id, or "smiles:" and a SMILES) with options o.
func depictionETag(subject string, o chem.DepictOptions) string {
	h := sha256.Sum256([]byte(strings.Join([]string{depictVersion, subject,
		strconv.Itoa(o.Width), strconv.Itoa(o.Height), o.Highlight}, "\x00")))
	return `"d` + depictVersion + "-" + base64.RawURLEncoding.EncodeToString(h[:18]) + `"`
}

// notModified reports whether the request's If-None-Match names etag.
func notModified(r *http.Request, etag string) bool {
	for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// writeDepiction draws smiles and writes it, or answers 304.
func (s *Server) writeDepiction(w http.ResponseWriter, r *http.Request, pool *chem.Pool, subject, smiles string, o chem.DepictOptions) error {
	if o.Width == 0 {
		o.Width = chem.DefaultDepictSize
	}
	if o.Height == 0 {
		o.Height = chem.DefaultDepictSize
	}
	etag := depictionETag(subject, o)
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", depictCacheControl)
	if notModified(r, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	d, err := pool.Depict(r.Context(), smiles, o)
	if err != nil {
		h.Del("ETag")
		h.Del("Cache-Control")
		var ie *chem.DepictInputError
		if errors.As(err, &ie) {
			return badRequest(ie.Field, "%s", ie.Reason)
		}
		return err
	}
	h.Set("Content-Type", depictSVGType)
	// The SVG is RDKit's and has no script, but it is served from this
	// origin: a browser opening it directly runs nothing and loads nothing.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(d.SVG)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write([]byte(d.SVG))
	return err
}

func (s *Server) moleculeImage(w http.ResponseWriter, r *http.Request) error {
	o, err := depictOptions(r)
	if err != nil {
		return err
	}
	reg, qs, err := s.moleculeGraph(r)
	if err != nil {
		return err
	}
	rec, err := ontology.MoleculeFromQuads(qs)
	if err != nil {
		return err
	}
	// refused from the stored count, before any chemistry
	if err := reg.Pool().Check2D(rec.HeavyAtoms); err != nil {
		return fmt.Errorf("molecule %s: %w", rec.ID, err)
	}
	return s.writeDepiction(w, r, reg.Pool(), rec.ID, rec.SMILES, o)
}

func (s *Server) depictSMILES(w http.ResponseWriter, r *http.Request) error {
	smiles := strings.TrimSpace(r.URL.Query().Get("smiles"))
	switch {
	case smiles == "":
		return badRequest("smiles", "required: the SMILES to draw")
	case len(smiles) > chem.MaxDepictSMILESBytes:
		return badRequest("smiles", "%d bytes, more than %d", len(smiles), chem.MaxDepictSMILESBytes)
	}
	if err := checkLineNotation(chem.FormatSMILES, smiles); err != nil {
		return err
	}
	o, err := depictOptions(r)
	if err != nil {
		return err
	}
	reg, err := s.registry()
	if err != nil {
		return err
	}
	return s.writeDepiction(w, r, reg.Pool(), "smiles:"+smiles, smiles, o)
}

// depictLimits are the bounds of a depiction (x-molgraph-limits).
func depictLimits() []limit {
	return []limit{
		{name: "depict_min_size", help: "Smallest width or height of a depiction in pixels (400 invalid_request).", value: chem.MinDepictSize},
		{name: "depict_max_size", help: "Largest width or height of a depiction in pixels (400 invalid_request).", value: chem.MaxDepictSize},
		{name: "depict_max_smiles_bytes", help: "Longest SMILES GET /v1/depict draws (400 invalid_request).", value: chem.MaxDepictSMILESBytes},
		{name: "depict_max_highlight_bytes", help: "Longest highlight SMARTS of a depiction (400 invalid_request).", value: chem.MaxHighlightBytes},
		{name: "depict_highlight_match_steps", help: "Most atom comparisons of a depiction's highlight match (400 invalid_request on highlight).",
			value: chem.DefaultHighlightMatchSteps},
	}
}
