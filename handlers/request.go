package handlers

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/molgraph/molgraph/graph/rdfio"
)

// decodeJSON decodes the JSON request body into dst strictly: the
// Content-Type must be application/json or a +json type (or absent), the
// body at most Config.MaxJSONBytes, exactly one JSON value, no unknown
// fields, each field of the right type, nested at most MaxJSONDepth deep. Errors: ErrUnsupportedMediaType
// (415), ErrBodyTooLarge (413), ErrMalformedJSON (400), ErrBadRequest (400,
// with the field in InputError.Fields).
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	return s.decodeJSONLimit(w, r, dst, s.cfg.MaxJSONBytes)
}

// decodeJSONLimit is decodeJSON with a body limit of its own (a route
// whose bodies are larger by design, still at most Config.MaxBodyBytes).
func (s *Server) decodeJSONLimit(w http.ResponseWriter, r *http.Request, dst any, limit int64) error {
	limit = min(limit, s.cfg.MaxBodyBytes)
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
			return fmt.Errorf("%w: %q, expected application/json", ErrUnsupportedMediaType, ct)
		}
	}
	if r.ContentLength > limit {
		return fmt.Errorf("%w: %d bytes declared, a JSON body may have at most %d", ErrBodyTooLarge, r.ContentLength, limit)
	}
	body := r.Body
	if body == nil {
		body = http.NoBody
	}
	return decodeJSONBody(http.MaxBytesReader(w, body, limit), dst)
}

// decodeJSONBody is the reader half of decodeJSON (fuzzed separately).
func decodeJSONBody(body io.Reader, dst any) error {
	// Read fully first so that a MaxBytesError is not mistaken for a
	// syntax error, and so that offsets refer to the whole body.
	data, err := io.ReadAll(body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("%w: a JSON body may have at most %d bytes", ErrBodyTooLarge, mbe.Limit)
		}
		return fmt.Errorf("%w: reading body: %v", ErrBadRequest, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return badRequest("", "request body is empty; a JSON object is required")
	}
	if err := checkJSONDepth(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		return fmt.Errorf("%w: unexpected data after the JSON value at byte %d", ErrMalformedJSON, dec.InputOffset())
	}
	return nil
}

// jsonError maps encoding/json errors to the problem taxonomy.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%w: %v (at byte %d)", ErrMalformedJSON, se, se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: unexpected end of input", ErrMalformedJSON)
	case errors.As(err, &te):
		want := "another type"
		if te.Type != nil {
			want = describeType(te.Type)
		}
		if te.Field == "" {
			return badRequest("", "expected a JSON %s, got %s", want, te.Value)
		}
		return badRequest(te.Field, "expected %s, got %s", want, te.Value)
	}
	// encoding/json has no typed error for unknown fields.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return badRequest(strings.Trim(name, `"`), "unknown field")
	}
	return fmt.Errorf("%w: %v", ErrBadRequest, err)
}

// describeType names a Go type as the JSON a client must send.
func describeType(t reflect.Type) string {
	if t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "string" // time.Time and friends
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Pointer:
		return describeType(t.Elem())
	}
	return t.Kind().String()
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// MaxJSONDepth is the deepest nesting of arrays and objects a JSON request
// body (or the GraphQL variables parameter) may have. Ours nest 3 deep;
// GraphQL variables may hold input objects, hence the margin.
const MaxJSONDepth = 64

// checkJSONDepth refuses data whose arrays and objects nest deeper than
// MaxJSONDepth before encoding/json (which recurses once per level, up to
// 10,000 levels, and builds a value for each) sees it.
func checkJSONDepth(data []byte) error {
	if at := rdfio.JSONTooDeep(data, MaxJSONDepth); at >= 0 {
		return badRequest("", "JSON nested deeper than %d levels (at byte %d)", MaxJSONDepth, at)
	}
	return nil
}
