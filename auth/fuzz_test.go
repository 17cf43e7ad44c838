package auth

import (
	"errors"
	"testing"
)

func FuzzParseRecords(f *testing.F) {
	f.Add([]byte(`{"version": 1, "keys": [{"id": "key-a", "name": "a", "scopes": ["read"], "sha256": "` + fips180SHA256 + `", "created_at": "2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version": 1, "keys": []}`))
	f.Add([]byte(`{"version": 1, "keys": [{"id": "key-a", "scopes": [], "sha256": ""}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := parseRecords(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		for _, r := range recs {
			if r.ID == "" || len(r.Scopes) == 0 {
				t.Fatalf("accepted an invalid record %+v", r)
			}
		}
	})
}

func FuzzParseScopes(f *testing.F) {
	for _, s := range []string{"read", "read,write", " ADMIN ", "", ",", "read,,write"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		scopes, err := ParseScopes(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		if len(scopes) == 0 || len(scopes) > 3 {
			t.Fatalf("ParseScopes(%q) = %v", s, scopes)
		}
		for _, sc := range scopes {
			if !sc.Valid() {
				t.Fatalf("invalid scope %q accepted", sc)
			}
		}
	})
}

func FuzzCheckToken(f *testing.F) {
	for _, s := range []string{fips180Msg, "mgk_abc", "", "========", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := CheckToken(s); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("error %v does not match ErrInvalid", err)
		}
	})
}
