package handlers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestKeysLifecycle(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, "POST", "/v1/keys", "admin",
		strings.NewReader(`{"name": "ci runner", "scopes": ["write", "read"], "expires_in": "720h"}`),
		"Content-Type", "application/json")
	if rec.Code != 201 {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	var created keyView
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(created.Token, "mgk_") || created.Name != "ci runner" || created.Status != "active" ||
		len(created.Scopes) != 2 || created.ExpiresAt == nil {
		t.Fatalf("created %+v", created)
	}
	if d := time.Until(*created.ExpiresAt); d < 719*time.Hour || d > 721*time.Hour {
		t.Fatalf("expires_at %v is not ~720h away", created.ExpiresAt)
	}
	if loc := rec.Header().Get("Location"); loc != "/v1/keys/"+created.ID {
		t.Fatalf("Location %q", loc)
	}
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatal("token response may be cached")
	}
	f.tokens["new"] = created.Token

	// The new key works with its scope: write includes read, not admin.
	if rec := f.do(t, "GET", "/v1/openapi.json", "new", nil); rec.Code != 200 {
		t.Fatalf("new key on a read route: %d", rec.Code)
	}
	problemOf(t, f.do(t, "GET", "/v1/keys", "new", nil), 403, "forbidden")

	// List and get never show tokens.
	rec = f.do(t, "GET", "/v1/keys", "admin", nil)
	if rec.Code != 200 || strings.Contains(rec.Body.String(), created.Token) || strings.Contains(rec.Body.String(), `"token"`) {
		t.Fatalf("list: %d %s", rec.Code, rec.Body)
	}
	var list struct{ Keys []keyView }
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	statuses := map[string]string{}
	for _, k := range list.Keys {
		statuses[k.Name] = k.Status
	}
	if statuses["ci runner"] != "active" || statuses["revoked"] != "revoked" || len(list.Keys) != 6 {
		t.Fatalf("list statuses %v", statuses)
	}
	rec = f.do(t, "GET", "/v1/keys/"+created.ID, "admin", nil)
	if rec.Code != 200 || strings.Contains(rec.Body.String(), created.Token) {
		t.Fatalf("get: %d %s", rec.Code, rec.Body)
	}

	// Revoke: the key stops working at once; revoking again is idempotent.
	rec = f.do(t, "DELETE", "/v1/keys/"+created.ID, "admin", nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"status":"revoked"`) {
		t.Fatalf("revoke: %d %s", rec.Code, rec.Body)
	}
	problemOf(t, f.do(t, "GET", "/v1/openapi.json", "new", nil), 401, "unauthorized")
	if rec := f.do(t, "DELETE", "/v1/keys/"+created.ID, "admin", nil); rec.Code != 200 {
		t.Fatalf("second revoke: %d", rec.Code)
	}
	problemOf(t, f.do(t, "DELETE", "/v1/keys/key-nope", "admin", nil), 404, "key_not_found")
	problemOf(t, f.do(t, "GET", "/v1/keys/key-nope", "admin", nil), 404, "key_not_found")
}
