package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/molgraph/molgraph/auth"
)

// keyView is the JSON form of an API key.
type keyView struct {
	auth.Key
	Status string `json:"status"`
	// Token is present only in the response that creates the key.
	Token string            `json:"token,omitempty"`
	Links map[string]string `json:"links"`
}

func (s *Server) keyView(k auth.Key) keyView {
	return keyView{Key: k, Status: k.Status(time.Now()), Links: map[string]string{"self": "/v1/keys/" + k.ID}}
}

// keyCreateRequest is the body of POST /v1/keys.
type keyCreateRequest struct {
	Name      string   `json:"name"`
	Scopes    []string `json:"scopes"`
	ExpiresAt string   `json:"expires_at"` // RFC 3339, parsed here to name the field on error
	ExpiresIn string   `json:"expires_in"`
}

// keysResource is key management (admin scope).
func (s *Server) keysResource() resource {
	return resource{routes: s.keyRoutes(), schemas: keySchemas()}
}

func keySchemas() map[string]Schema {
	dateTime := Schema{"type": "string", "format": "date-time"}
	nullableDateTime := Schema{"type": []string{"string", "null"}, "format": "date-time"}
	scopes := Schema{"type": "array", "minItems": 1,
		"items": Schema{"type": "string", "enum": []string{"read", "write", "admin"}}}
	keyProps := func() Schema {
		return Schema{
			"id":         Schema{"type": "string", "pattern": "^key-"},
			"name":       Schema{"type": "string"},
			"scopes":     scopes,
			"created_at": dateTime,
			"expires_at": nullableDateTime,
			"revoked_at": nullableDateTime,
			"status":     Schema{"type": "string", "enum": []string{auth.StatusActive, auth.StatusExpired, auth.StatusRevoked}},
			"links":      Schema{"type": "object", "additionalProperties": Schema{"type": "string"}},
		}
	}
	keyRequired := []string{"id", "name", "scopes", "created_at", "expires_at", "revoked_at", "status", "links"}
	created := keyProps()
	created["token"] = Schema{"type": "string", "description": "The bearer token. Shown once; only its SHA-256 is stored."}
	return map[string]Schema{
		"Key": {"type": "object", "required": keyRequired, "properties": keyProps()},
		"KeyCreated": {"type": "object", "required": append(slices.Clone(keyRequired), "token"),
			"properties": created},
		"KeyList": {"type": "object", "required": []string{"keys"},
			"properties": Schema{"keys": Schema{"type": "array", "items": ref("Key")}}},
		"KeyCreate": {"type": "object", "required": []string{"name", "scopes"}, "additionalProperties": false,
			"properties": Schema{
				"name":       Schema{"type": "string", "minLength": 1, "maxLength": auth.MaxNameLen},
				"scopes":     scopes,
				"expires_at": Schema{"type": "string", "format": "date-time", "description": "When the key stops working (RFC 3339)."},
				"expires_in": Schema{"type": "string", "description": "Lifetime as a Go duration, e.g. \"720h\"; exclusive with expires_at."},
			}},
	}
}

func (s *Server) keyRoutes() []Route {
	keyBody := jsonContent(ref("Key"))
	idParam := map[string]string{"id": "The key id (key-...)."}
	return []Route{
		{
			Method: http.MethodPost, Pattern: "/v1/keys", Scope: auth.ScopeAdmin, Handle: s.createKey,
			Doc: Doc{Tag: "keys", Summary: "Create an API key; the token is returned once",
				Description: "Scopes form a chain: admin includes write, write includes read.",
				Request:     &Body{Required: true, Content: jsonContent(ref("KeyCreate"))},
				Responses: []Response{{Status: 201, Description: "The key, with its token (shown only here).",
					Content: jsonContent(ref("KeyCreated")), Headers: map[string]string{"Location": "URL of the key."}}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/keys", Scope: auth.ScopeAdmin, Handle: s.listKeys,
			Doc: Doc{Tag: "keys", Summary: "List API keys (never their tokens)",
				Responses: []Response{{Status: 200, Description: "All keys, oldest first, revoked and expired ones included.",
					Content: jsonContent(ref("KeyList"))}}},
		},
		{
			Method: http.MethodGet, Pattern: "/v1/keys/{id}", Scope: auth.ScopeAdmin, Handle: s.getKey,
			Doc: Doc{Tag: "keys", Summary: "Get one API key", PathParams: idParam,
				Responses: []Response{{Status: 200, Description: "The key.", Content: keyBody}}},
		},
		{
			Method: http.MethodDelete, Pattern: "/v1/keys/{id}", Scope: auth.ScopeAdmin, Handle: s.revokeKey,
			Doc: Doc{Tag: "keys", Summary: "Revoke an API key (idempotent)", PathParams: idParam,
				Responses: []Response{{Status: 200, Description: "The revoked key.", Content: keyBody}}},
		},
	}
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request) error {
	var req keyCreateRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	var fields []FieldError
	if req.Name == "" {
		fields = append(fields, FieldError{Field: "name", Message: "required"})
	}
	if len(req.Scopes) == 0 {
		fields = append(fields, FieldError{Field: "scopes", Message: "required: a list of read, write, admin"})
	}
	nk := auth.NewKey{Name: req.Name}
	for i, sc := range req.Scopes {
		scope, err := auth.ParseScope(sc)
		if err != nil {
			fields = append(fields, FieldError{Field: fmt.Sprintf("scopes[%d]", i), Message: fmt.Sprintf("unknown scope %q; allowed: read, write, admin", sc)})
			continue
		}
		nk.Scopes = append(nk.Scopes, scope)
	}
	switch {
	case req.ExpiresAt != "" && req.ExpiresIn != "":
		fields = append(fields, FieldError{Field: "expires_in", Message: "give expires_at or expires_in, not both"})
	case req.ExpiresAt != "":
		t, err := time.Parse(time.RFC3339, req.ExpiresAt)
		if err != nil {
			fields = append(fields, FieldError{Field: "expires_at", Message: fmt.Sprintf("%q is not an RFC 3339 date-time such as \"2030-01-01T00:00:00Z\"", req.ExpiresAt)})
		} else {
			nk.ExpiresAt = t
		}
	case req.ExpiresIn != "":
		d, err := time.ParseDuration(req.ExpiresIn)
		if err != nil || d <= 0 {
			fields = append(fields, FieldError{Field: "expires_in", Message: fmt.Sprintf("%q is not a positive duration such as \"720h\"", req.ExpiresIn)})
		} else {
			nk.ExpiresAt = time.Now().Add(d)
		}
	}
	if len(fields) > 0 {
		return &InputError{Err: ErrBadRequest, Fields: fields}
	}
	key, token, err := s.cfg.Keys.Create(nk)
	if err != nil {
		return err
	}
	v := s.keyView(key)
	v.Token = token
	w.Header().Set("Location", v.Links["self"])
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusCreated, v)
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.cfg.Keys.List()
	if err != nil {
		return err
	}
	out := make([]keyView, len(keys))
	for i, k := range keys {
		out[i] = s.keyView(k)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"keys": out})
}

func (s *Server) getKey(w http.ResponseWriter, r *http.Request) error {
	key, err := s.cfg.Keys.Get(chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.keyView(key))
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) error {
	key, err := s.cfg.Keys.Revoke(chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.keyView(key))
}
