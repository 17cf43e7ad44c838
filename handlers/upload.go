package handlers

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/molgraph/molgraph/graph"
	"github.com/molgraph/molgraph/jobs/batch"
	"github.com/molgraph/molgraph/ontology"
)

// UploadLimits bound a batch upload while it is read, before anything is
// stored; zero fields take the jobs/batch defaults. Past a limit the
// upload is refused with 413 and leaves nothing behind.
type UploadLimits struct {
	// MaxDecompressedBytes bounds the bytes of the uploaded file after
	// gunzip (413 upload_too_large; default batch.DefaultMaxUploadBytes).
	MaxDecompressedBytes int64
	// MaxSpoolBytes bounds the spooled records (413 upload_too_large;
	// default batch.DefaultMaxSpoolBytes).
	MaxSpoolBytes int64
	// MaxSMILESLineBytes bounds one line of a SMILES or InChI file, and
	// MaxSDRecordBytes one SD record (413 record_too_large: the whole
	// upload is refused; defaults batch.DefaultMaxSMILESLineBytes and
	// batch.DefaultMaxSDRecordBytes).
	MaxSMILESLineBytes, MaxSDRecordBytes int
}

func (l UploadLimits) withDefaults() UploadLimits {
	if l.MaxDecompressedBytes <= 0 {
		l.MaxDecompressedBytes = batch.DefaultMaxUploadBytes
	}
	if l.MaxSpoolBytes <= 0 {
		l.MaxSpoolBytes = batch.DefaultMaxSpoolBytes
	}
	if l.MaxSMILESLineBytes <= 0 {
		l.MaxSMILESLineBytes = batch.DefaultMaxSMILESLineBytes
	}
	if l.MaxSDRecordBytes <= 0 {
		l.MaxSDRecordBytes = batch.DefaultMaxSDRecordBytes
	}
	return l
}

// fileForm is a multipart upload: one file part named "file" and small
// form values.
type fileForm struct {
	data     []byte
	filename string // base name as the client sent it ("" if none)
	values   map[string]string
}

// readFileForm reads a multipart/form-data body with one required file part
// ("file"; what names it in errors, e.g. "the log") and the form values
// named in fields. Other parts are ignored, as HTML forms add their own.
// Errors: 415 for another content type, 413 past the body limit, 400 for a
// malformed body, a missing, repeated or empty file part.
func readFileForm(r *http.Request, what string, fields ...string) (*fileForm, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, fmt.Errorf("%w: %q, expected multipart/form-data with a file part", ErrUnsupportedMediaType, r.Header.Get("Content-Type"))
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, badRequest("", "malformed multipart body: %v", err)
	}
	form := &fileForm{values: map[string]string{}}
	haveFile := false
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, multipartError(err)
		}
		name := p.FormName()
		switch {
		case name == "file":
			if haveFile {
				return nil, badRequest("file", "more than one file part; send one file per request")
			}
			haveFile = true
			form.filename = uploadFilename(p)
			if form.data, err = io.ReadAll(p); err != nil {
				return nil, multipartError(err)
			}
		case contains(fields, name):
			v, err := formValue(p)
			if err != nil {
				return nil, err
			}
			form.values[name] = strings.TrimSpace(v)
		}
		p.Close()
	}
	if !haveFile {
		return nil, badRequest("file", "required: %s as a multipart file part named \"file\"", what)
	}
	if len(form.data) == 0 {
		return nil, badRequest("file", "the uploaded file is empty")
	}
	return form, nil
}

// uploadFilename is the base name of the file the client sent ("" if none).
func uploadFilename(p *multipart.Part) string {
	name := path.Base(strings.ReplaceAll(p.FileName(), "\\", "/"))
	if name == "." || name == "/" {
		return ""
	}
	return name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// bool reads a true/false form value (false when absent).
func (f *fileForm) bool(field string) (bool, error) {
	return boolParam(field, f.values[field])
}

// formValue reads a small form value.
func formValue(p io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(p, 1025))
	if err != nil {
		return "", multipartError(err)
	}
	if len(b) > 1024 {
		return "", badRequest("", "form value too long")
	}
	return string(b), nil
}

// multipartError keeps a body-size error a 413 and makes others a 400.
func multipartError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fmt.Errorf("%w: at most %d bytes", ErrBodyTooLarge, mbe.Limit)
	}
	return badRequest("", "malformed multipart body: %v", err)
}

// resourceGraph reads the named graph of the resource whose id is the
// path's {id}: 404 unless the id has the kind's prefix and the graph
// exists.
func (s *Server) resourceGraph(r *http.Request, kind, prefix, id string) ([]quad.Quad, quad.IRI, error) {
	st, err := s.graphStore()
	if err != nil {
		return nil, "", err
	}
	if !strings.HasPrefix(id, prefix) {
		return nil, "", fmt.Errorf("%w: no %s %q", ErrNotFound, kind, id)
	}
	iri := ontology.ResourceIRI(s.cfg.BaseIRI, kind, id)
	quads, err := st.Graph(r.Context(), iri)
	if errors.Is(err, graph.ErrNotFound) {
		return nil, "", fmt.Errorf("%w: no %s %q", ErrNotFound, kind, id)
	}
	return quads, iri, err
}
