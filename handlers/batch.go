package handlers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
	"github.com/molgraph/molgraph/chem"
	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
	"github.com/molgraph/molgraph/parsers/sdf"
)

// Batch uploads: POST /v1/molecules/batch spools the upload record by record
// into one blob (counting: more than MaxBatchRecords is 413 batch_too_large
// and nothing is stored), stores the job as queued (jobs.Runner.Submit) and
// answers 202; the runner registers the molecules in the background.

// batchJobView is the JSON of a batch job.
type batchJobView struct {
	ID         string            `json:"id"`
	Status     string            `json:"status"`
	Total      int64             `json:"total"`
	Processed  int64             `json:"processed"`
	Created    int64             `json:"created"`
	Existing   int64             `json:"existing"`
	Failed     int64             `json:"failed"`
	Progress   float64           `json:"progress"`
	CreatedAt  time.Time         `json:"created_at"`
	StartedAt  *time.Time        `json:"started_at"`
	FinishedAt *time.Time        `json:"finished_at"`
	Error      string            `json:"error,omitempty"`
	Errors     []batchErrorView  `json:"errors"`
	Links      map[string]string `json:"links"`
}

type batchErrorView struct {
	Index   int    `json:"index"`
	Name    string `json:"name"`
	Message string `json:"message"`
}

// batchJSON is the application/json form of a batch upload.
type batchJSON struct {
	Molecules []struct {
		Format  string `json:"format"`
		Content string `json:"content"`
		Name    string `json:"name"`
	} `json:"molecules"`
	Generate3D bool `json:"generate_3d"`
}

func batchLinks(id string) map[string]string {
	self := "/v1/molecules/batch/" + id
	return map[string]string{"self": self, "items": self + "/items"}
}

func batchSchemas() map[string]Schema {
	str, count := Schema{"type": "string"}, Schema{"type": "integer", "minimum": 0}
	nullTime := Schema{"type": []string{"string", "null"}, "format": "date-time"}
	return map[string]Schema{
		"BatchAccepted": {"type": "object", "required": []string{"job_id", "status", "links"}, "properties": Schema{
			"job_id": Schema{"type": "string", "pattern": "^batch-"}, "status": Schema{"type": "string", "enum": []string{"queued"}},
			"links": Schema{"type": "object", "additionalProperties": str}}},
		"BatchJob": {"type": "object",
			"required": []string{"id", "status", "total", "processed", "created", "existing", "failed", "progress",
				"created_at", "started_at", "finished_at", "errors", "links"},
			"properties": Schema{
				"id":     Schema{"type": "string", "pattern": "^batch-"},
				"status": Schema{"type": "string", "enum": []string{"queued", "running", "succeeded", "failed", "cancelled"}},
				"total":  count, "processed": count, "created": count, "existing": count, "failed": count,
				"progress":   Schema{"type": "number", "minimum": 0, "maximum": 1},
				"created_at": Schema{"type": "string", "format": "date-time"}, "started_at": nullTime, "finished_at": nullTime,
				"error": str,
				"errors": Schema{"type": "array", "maxItems": 100, "items": Schema{"type": "object", "required": []string{"index", "name", "message"},
					"properties": Schema{"index": count, "name": str, "message": str}}},
				"links": Schema{"type": "object", "additionalProperties": str},
			}},
		"BatchItems": {"type": "object", "required": []string{"items", "next_cursor"}, "properties": Schema{
			"items": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"index", "status"},
				"properties": Schema{"index": count, "status": Schema{"type": "string", "enum": []string{"created", "existing", "failed"}},
					"molecule_id": str, "name": str, "error": str}}},
			"next_cursor": Schema{"type": []string{"string", "null"}},
		}},
		"BatchUpload": {"type": "object", "required": []string{"molecules"}, "additionalProperties": false, "properties": Schema{
			"molecules": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"format", "content"},
				"additionalProperties": false, "properties": Schema{"format": str, "content": str, "name": str}}},
			"generate_3d": Schema{"type": "boolean", "default": false}}},
	}
}

func (s *Server) batchRoutes() []Route {
	jobParam := map[string]string{"job_id": "The batch job id (batch-...)."}
	jobBody := jsonContent(ref("BatchJob"))
	return []Route{
		{
			Method: http.MethodPost, Pattern: "/v1/molecules/batch", Scope: auth.ScopeWrite, Handle: s.submitBatch,
			Doc: Doc{Tag: "molecules", Summary: "Upload many molecules (SDF, SMILES lines or a JSON list) as a background job",
				Description: "multipart/form-data with a file part (SDF or SMILES, optionally gzip) and optional format and " +
					"generate_3d values; or a raw chemical/x-mdl-sdfile or text/plain body (Content-Encoding: gzip allowed, " +
					"?generate_3d=, ?format=); or application/json. More than the record limit (100,000 by default) is 413 " +
					"batch_too_large and nothing is stored. Each upload is bounded while it is read: its decompressed bytes " +
					"(512 MiB by default) and its spool (576 MiB) are 413 upload_too_large, one SMILES line (64 KiB) or SD " +
					"record (1 MiB) over its bound refuses the whole upload with 413 record_too_large; a refused or empty " +
					"upload leaves nothing stored. The job is durable (fsynced) before the 202; its spool is deleted once it ended. " +
					"507 insufficient_storage (with Retry-After) while the data directory's disk is below its reserve.",
				Params: []Param{
					{Name: "generate_3d", In: "query", Description: "Raw bodies: add 3D conformers.", Schema: Schema{"type": "boolean"}},
					{Name: "format", In: "query", Description: "Raw bodies: sdf or smiles (default from the Content-Type).", Schema: Schema{"type": "string", "enum": []string{"sdf", "smiles"}}},
				},
				Request: &Body{Required: true, Content: map[string]Schema{
					"multipart/form-data":   {"type": "object", "required": []string{"file"}, "properties": Schema{"file": Schema{"type": "string", "format": "binary"}, "format": Schema{"type": "string"}, "generate_3d": Schema{"type": "boolean"}}},
					"chemical/x-mdl-sdfile": {"type": "string", "format": "binary"},
					"text/plain":            {"type": "string"},
					"application/json":      ref("BatchUpload"),
				}},
				Responses: []Response{{Status: 202, Description: "The job, queued.", Content: jsonContent(ref("BatchAccepted")),
					Headers: map[string]string{"Location": "URL of the job."}},
					{Status: 413, Description: "`body_too_large`, `batch_too_large` (records), `upload_too_large` (decompressed or spooled bytes) or `record_too_large` (one SMILES line or SD record); nothing is stored.",
						Content: problemContent()},
					{Status: 507, Description: "`insufficient_storage`: the data directory's disk is full or below its reserve; nothing is stored.",
						Content: problemContent(), Headers: map[string]string{"Retry-After": "Seconds to wait before retrying."}}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/molecules/batch/{job_id}", Scope: auth.ScopeRead, Handle: s.getBatch,
			Doc: Doc{Tag: "molecules", Summary: "A batch job's status, counts and first 100 errors", PathParams: jobParam,
				Responses: []Response{{Status: 200, Description: "The job.", Content: jobBody}}},
		},
		{
			Method: http.MethodDelete, Pattern: "/v1/molecules/batch/{job_id}", Scope: auth.ScopeWrite, Handle: s.cancelBatch,
			Doc: Doc{Tag: "molecules", Summary: "Cancel a batch job (what was processed stays); 409 if it has finished", PathParams: jobParam,
				Responses: []Response{{Status: 200, Description: "The cancelled job.", Content: jobBody}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/molecules/batch/{job_id}/items", Scope: auth.ScopeRead, Handle: s.batchItems,
			Doc: Doc{Tag: "molecules", Summary: "The outcome of each record of a batch job, in record order", PathParams: jobParam,
				Params:    pageParams(),
				Responses: []Response{{Status: 200, Description: "A page of items.", Content: jsonContent(ref("BatchItems"))}}},
		},
	}
}

// batchDeps returns the batch services or a 503.
func (s *Server) batchDeps() (*batch.Registry, *jobs.Runner, *batch.Task, error) {
	m := s.cfg.Molecules
	if m.Registry == nil || m.Jobs == nil || m.Batch == nil {
		return nil, nil, nil, fmt.Errorf("%w: batch uploads are not configured", ErrNotReady)
	}
	return m.Registry, m.Jobs, m.Batch, nil
}

func (s *Server) maxBatchRecords() int {
	if n := s.cfg.Molecules.MaxBatchRecords; n > 0 {
		return n
	}
	return DefaultMaxBatchRecords
}

// boolParam parses an optional boolean value named field.
func boolParam(field, v string) (bool, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest(field, "%q is not true or false", v)
	}
	return b, nil
}

// uploadFormat maps a batch format name to the reader format and chem's.
func uploadFormat(field, name string) (sdf.Format, chem.Format, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "sdf", "sd", "mol", "molfile":
		return sdf.FormatSDF, chem.FormatMolfile, nil
	case "smiles", "smi":
		return sdf.FormatSMILES, chem.FormatSMILES, nil
	case "inchi":
		return sdf.FormatSMILES, chem.FormatInChI, nil // one InChI per line, then a name
	}
	return "", "", badRequest(field, "unknown format %q; allowed: sdf, smiles, inchi", name)
}

// fileSource opens an uploaded file (gzip detected) as records of format
// (detected from the file name, else the content, when empty), bounded by
// lim: the decompressed bytes are counted as they are read, so a gzip bomb
// stops at the limit, and a record reader never buffers more than one
// record's limit.
func fileSource(r io.Reader, format, filename string, gen3D bool, lim UploadLimits) (batch.RecordSource, error) {
	dr, _, err := sdf.Decompress(r)
	if err != nil {
		return nil, badRequest("file", "%v", err)
	}
	dr = batch.CapReader(dr, lim.MaxDecompressedBytes)
	if format == "" {
		name := strings.ToLower(strings.TrimSuffix(strings.ToLower(filename), ".gz"))
		switch path.Ext(name) {
		case ".sdf", ".sd", ".mol":
			format = "sdf"
		case ".smi", ".smiles":
			format = "smiles"
		default:
			// Peek at the content.
			br := bufio.NewReaderSize(dr, 64<<10)
			head, _ := br.Peek(4096)
			format = string(sdf.Detect(head))
			dr = br
		}
	}
	rf, cf, err := uploadFormat("format", format)
	if err != nil {
		return nil, err
	}
	maxRec := lim.MaxSDRecordBytes
	if rf == sdf.FormatSMILES {
		maxRec = lim.MaxSMILESLineBytes
	}
	rr, err := sdf.NewReader(dr, rf, maxRec)
	if err != nil {
		return nil, err
	}
	src := batch.FileSource(rr, cf, gen3D)
	return func() (batch.Input, error) {
		in, err := src()
		if errors.Is(err, batch.ErrRecordTooLarge) {
			err = fmt.Errorf("%w (at most %d bytes per %s record)", err, maxRec, rf)
		}
		return in, err
	}, nil
}

func (s *Server) submitBatch(w http.ResponseWriter, r *http.Request) error {
	reg, runner, task, err := s.batchDeps()
	if err != nil {
		return err
	}
	lim := s.cfg.Uploads.withDefaults()
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("%w: %q; send multipart/form-data, chemical/x-mdl-sdfile, text/plain or application/json", ErrUnsupportedMediaType, ct)
	}
	q := r.URL.Query()
	var (
		src      batch.RecordSource
		filename string
	)
	switch mt {
	case "multipart/form-data":
		var cleanup func()
		src, filename, cleanup, err = readBatchMultipart(r, reg.Store().Blobs(), lim)
		if cleanup != nil {
			defer cleanup()
		}
	case "chemical/x-mdl-sdfile", "chemical/x-mdl-molfile", "text/plain", "chemical/x-daylight-smiles":
		switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
		case "", "identity", "gzip", "x-gzip":
		default:
			return fmt.Errorf("%w: Content-Encoding %q; only gzip is accepted", ErrUnsupportedMediaType, enc)
		}
		format := q.Get("format")
		if format == "" {
			format = "smiles"
			if strings.HasPrefix(mt, "chemical/x-mdl") {
				format = "sdf"
			}
		}
		var gen3D bool
		if gen3D, err = boolParam("generate_3d", q.Get("generate_3d")); err != nil {
			return err
		}
		src, err = fileSource(r.Body, format, "", gen3D, lim)
	case "application/json":
		src, err = readBatchJSON(r, s.maxBatchRecords(), lim)
	default:
		return fmt.Errorf("%w: %q; send multipart/form-data, chemical/x-mdl-sdfile, text/plain or application/json", ErrUnsupportedMediaType, ct)
	}
	if err != nil {
		return err
	}
	blobs := reg.Store().Blobs()
	ref, n, unpin, err := batch.Spool(blobs, src, batch.Limits{MaxRecords: s.maxBatchRecords(), MaxSpoolBytes: lim.MaxSpoolBytes})
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return fmt.Errorf("%w: at most %d bytes", ErrBodyTooLarge, mbe.Limit)
		case errors.Is(err, batch.ErrEmptyUpload):
			return badRequest("file", "the upload holds no records")
		}
		return err
	}
	// The spool stays pinned until the job that references it is stored;
	// a refused job leaves no spool (unless another job holds the same
	// bytes).
	defer unpin()
	id := jobs.NewID(batch.JobIDPrefix, time.Now())
	j := task.NewJob(id, ref, n, filename)
	if _, err := runner.Submit(r.Context(), j); err != nil {
		unpin()
		if derr := blobs.Discard(ref.SHA256, batch.BlobUseFunc(context.WithoutCancel(r.Context()), reg.Store())); derr != nil {
			s.log.Error("refused upload: spool not discarded", "sha256", ref.SHA256, "error", derr)
		}
		return err
	}
	links := batchLinks(id)
	w.Header().Set("Location", links["self"])
	return writeJSON(w, http.StatusAccepted, map[string]any{"job_id": id, "status": jobs.Queued, "links": map[string]string{"self": links["self"]}})
}

// readBatchMultipart copies the file part to a temporary file (the format
// and generate_3d values may follow it; the file is in the blob store's
// temporary directory, emptied at start) and returns its record source.
func readBatchMultipart(r *http.Request, blobs *graph.Blobs, lim UploadLimits) (batch.RecordSource, string, func(), error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, "", nil, badRequest("", "malformed multipart body: %v", err)
	}
	var (
		tmp             *os.File
		filename        string
		format, gen3Str string
	)
	cleanup := func() {
		if tmp != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", cleanup, multipartError(err)
		}
		switch p.FormName() {
		case "file":
			if tmp != nil {
				return nil, "", cleanup, badRequest("file", "more than one file part; send one file per job")
			}
			filename = uploadFilename(p)
			if tmp, err = blobs.CreateTemp(); err != nil {
				return nil, "", cleanup, err
			}
			if _, err := io.Copy(tmp, p); err != nil {
				if errors.Is(err, syscall.ENOSPC) {
					return nil, "", cleanup, fmt.Errorf("%w: upload: %w", graph.ErrNoSpace, err)
				}
				return nil, "", cleanup, multipartError(err)
			}
		case "format":
			if format, err = formValue(p); err != nil {
				return nil, "", cleanup, err
			}
		case "generate_3d":
			if gen3Str, err = formValue(p); err != nil {
				return nil, "", cleanup, err
			}
		}
		p.Close()
	}
	if tmp == nil {
		return nil, "", cleanup, badRequest("file", "required: the SDF or SMILES file as a multipart file part named \"file\"")
	}
	gen3D, err := boolParam("generate_3d", gen3Str)
	if err != nil {
		return nil, "", cleanup, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return nil, "", cleanup, err
	}
	src, err := fileSource(tmp, strings.TrimSpace(format), filename, gen3D, lim)
	return src, filename, cleanup, err
}

// readBatchJSON decodes a JSON batch strictly and checks every record
// before anything is stored.
func readBatchJSON(r *http.Request, maxRecords int, lim UploadLimits) (batch.RecordSource, error) {
	var req batchJSON
	if err := decodeJSONBody(r.Body, &req); err != nil {
		return nil, err
	}
	if len(req.Molecules) > maxRecords {
		return nil, fmt.Errorf("%w: %d records, at most %d", batch.ErrBatchTooLarge, len(req.Molecules), maxRecords)
	}
	ins := make([]batch.Input, len(req.Molecules))
	for i, m := range req.Molecules {
		f, err := parseMoleculeFormat(fmt.Sprintf("molecules[%d].format", i), m.Format)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(m.Content) == "" {
			return nil, badRequest(fmt.Sprintf("molecules[%d].content", i), "required")
		}
		// The same bounds as a file's records: a line for line formats,
		// an SD record for the others.
		max := lim.MaxSDRecordBytes
		if f == chem.FormatSMILES || f == chem.FormatInChI {
			max = lim.MaxSMILESLineBytes
		}
		if len(m.Content) > max {
			return nil, fmt.Errorf("%w: molecules[%d].content: %d bytes, at most %d for %s", batch.ErrRecordTooLarge, i, len(m.Content), max, f)
		}
		ins[i] = batch.Input{Format: f, Content: m.Content, Name: m.Name, Generate3D: req.Generate3D}
	}
	i := 0
	return func() (batch.Input, error) {
		if i == len(ins) {
			return batch.Input{}, io.EOF
		}
		i++
		return ins[i-1], nil
	}, nil
}

// batchJob reads the job named in the path.
func (s *Server) batchJob(r *http.Request) (*batch.Registry, *jobs.Runner, jobs.Job, error) {
	reg, runner, _, err := s.batchDeps()
	if err != nil {
		return nil, nil, jobs.Job{}, err
	}
	id := chi.URLParam(r, "job_id")
	if !strings.HasPrefix(id, batch.JobIDPrefix+"-") {
		return nil, nil, jobs.Job{}, fmt.Errorf("%w: no batch job %q", ErrNotFound, id)
	}
	j, err := runner.Get(r.Context(), ontology.ResourceIRI(reg.Base(), ontology.KindBatchJob, id))
	if err != nil {
		if errors.Is(err, jobs.ErrNotFound) {
			return nil, nil, j, fmt.Errorf("%w: no batch job %q", ErrNotFound, id)
		}
		return nil, nil, j, err
	}
	return reg, runner, j, nil
}

func (s *Server) batchView(r *http.Request, reg *batch.Registry, j jobs.Job) (batchJobView, error) {
	c := batch.CountsOf(&j)
	v := batchJobView{ID: j.ID, Status: string(j.Status), Total: c.Total, Processed: c.Processed, Created: c.Created,
		Existing: c.Existing, Failed: c.Failed, CreatedAt: j.CreatedAt, Error: j.Error, Errors: []batchErrorView{}, Links: batchLinks(j.ID)}
	if c.Total > 0 {
		v.Progress = float64(c.Processed) / float64(c.Total)
	}
	if !j.StartedAt.IsZero() {
		t := j.StartedAt
		v.StartedAt = &t
	}
	if !j.EndedAt.IsZero() {
		t := j.EndedAt
		v.FinishedAt = &t
	}
	if c.Failed > 0 {
		items, err := batch.Errors(r.Context(), reg.Store(), j.IRI, 100)
		if err != nil {
			return v, err
		}
		for _, it := range items {
			v.Errors = append(v.Errors, batchErrorView{Index: it.Index, Name: it.Name, Message: it.Error})
		}
	}
	return v, nil
}

func (s *Server) getBatch(w http.ResponseWriter, r *http.Request) error {
	reg, _, j, err := s.batchJob(r)
	if err != nil {
		return err
	}
	v, err := s.batchView(r, reg, j)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

func (s *Server) cancelBatch(w http.ResponseWriter, r *http.Request) error {
	reg, runner, j, err := s.batchJob(r)
	if err != nil {
		return err
	}
	j, err = runner.Cancel(r.Context(), j.IRI)
	if err != nil {
		return err
	}
	v, err := s.batchView(r, reg, j)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

func (s *Server) batchItems(w http.ResponseWriter, r *http.Request) error {
	reg, _, j, err := s.batchJob(r)
	if err != nil {
		return err
	}
	limit, err := pageLimit(r)
	if err != nil {
		return err
	}
	from, err := decodeOffsetCursor(r, "i:")
	if err != nil {
		return err
	}
	items, more, err := batch.Items(r.Context(), reg.Store(), j.IRI, batch.CountsOf(&j).Processed, from, limit)
	if err != nil {
		return err
	}
	out := struct {
		Items      []batch.Item `json:"items"`
		NextCursor *string      `json:"next_cursor"`
	}{Items: items}
	if out.Items == nil {
		out.Items = []batch.Item{}
	}
	if more {
		c := encodeCursor("i:" + strconv.Itoa(items[len(items)-1].Index+1))
		out.NextCursor = &c
	}
	return writeJSON(w, http.StatusOK, out)
}
