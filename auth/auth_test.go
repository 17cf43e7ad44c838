package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fips180Msg is the two-block example message of FIPS 180-2 (appendix B.2);
// its SHA-256 is published there.
const (
	fips180Msg    = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
	fips180SHA256 = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
)

func openTemp(t *testing.T, now func() time.Time) (*Keyring, string) {
	t.Helper()
	dir := t.TempDir()
	k, err := Open(dir, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return k, dir
}

func TestGenerateToken(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		tok, err := GenerateToken()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(tok, TokenPrefix) || len(tok) != 47 {
			t.Fatalf("token %q: want prefix %q and 47 characters", tok, TokenPrefix)
		}
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(tok, TokenPrefix))
		if err != nil || len(raw) != 32 {
			t.Fatalf("token %q: body is not 32 bytes of base64url: %v", tok, err)
		}
		if err := CheckToken(tok); err != nil {
			t.Fatalf("generated token rejected: %v", err)
		}
		if seen[tok] {
			t.Fatal("duplicate token")
		}
		seen[tok] = true
	}
}

func TestScopeIncludes(t *testing.T) {
	tests := []struct {
		have, need Scope
		want       bool
	}{
		{ScopeRead, ScopeNone, true},
		{ScopeRead, ScopeRead, true},
		{ScopeRead, ScopeWrite, false},
		{ScopeRead, ScopeAdmin, false},
		{ScopeWrite, ScopeRead, true},
		{ScopeWrite, ScopeWrite, true},
		{ScopeWrite, ScopeAdmin, false},
		{ScopeAdmin, ScopeRead, true},
		{ScopeAdmin, ScopeWrite, true},
		{ScopeAdmin, ScopeAdmin, true},
		{ScopeNone, ScopeRead, false},
		{Scope("root"), ScopeRead, false},
	}
	for _, tt := range tests {
		if got := tt.have.Includes(tt.need); got != tt.want {
			t.Errorf("%q.Includes(%q) = %v, want %v", tt.have, tt.need, got, tt.want)
		}
	}
}

func TestParseScopes(t *testing.T) {
	tests := []struct {
		in      string
		want    []Scope
		wantErr bool
	}{
		{"read", []Scope{ScopeRead}, false},
		{"write,read", []Scope{ScopeRead, ScopeWrite}, false},
		{" Admin , read,admin", []Scope{ScopeRead, ScopeAdmin}, false},
		{"", nil, true},
		{"read,", nil, true},
		{"root", nil, true},
		{"read;write", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseScopes(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseScopes(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseScopes(%q) error %v does not match ErrInvalid", tt.in, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("ParseScopes(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestCheckToken(t *testing.T) {
	tests := []struct {
		tok string
		ok  bool
	}{
		{fips180Msg, true},
		{strings.Repeat("a", 31), false},
		{strings.Repeat("a", 32), true},
		{strings.Repeat("a", 30) + "==", true},
		{strings.Repeat("=", 40), false},
		{strings.Repeat("a", 32) + " b", false},
		{strings.Repeat("a", 32) + "\x00", false},
		{strings.Repeat("a", 32) + "é", false},
		{strings.Repeat("a", 20) + "=" + strings.Repeat("a", 20), false},
	}
	for _, tt := range tests {
		err := CheckToken(tt.tok)
		if (err == nil) != tt.ok {
			t.Errorf("CheckToken(%q) = %v, want ok=%v", tt.tok, err, tt.ok)
		}
	}
}

func TestCreateAuthenticateStoresOnlyHash(t *testing.T) {
	k, dir := openTemp(t, nil)
	key, tok, err := k.Create(NewKey{Name: "fips", Scopes: []Scope{ScopeRead}, Token: fips180Msg})
	if err != nil {
		t.Fatal(err)
	}
	if tok != fips180Msg {
		t.Fatalf("token = %q", tok)
	}
	data, err := os.ReadFile(filepath.Join(dir, KeysFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), fips180Msg) {
		t.Fatal("keys.json contains the token")
	}
	if !strings.Contains(string(data), `"sha256": "`+fips180SHA256+`"`) {
		t.Fatalf("keys.json lacks the FIPS 180-2 SHA-256 of the token:\n%s", data)
	}
	st, err := os.Stat(filepath.Join(dir, KeysFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("keys.json mode %v, want 0600", st.Mode().Perm())
	}
	got, err := k.Authenticate(fips180Msg)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != key.ID || got.Scope() != ScopeRead {
		t.Fatalf("authenticated %+v, want %+v", got, key)
	}
	// The public Key never carries the hash or token.
	js, _ := json.Marshal(got)
	if strings.Contains(string(js), fips180SHA256) || strings.Contains(string(js), fips180Msg) {
		t.Fatalf("Key JSON leaks secrets: %s", js)
	}
	// Same token twice is refused.
	if _, _, err := k.Create(NewKey{Name: "dup", Scopes: []Scope{ScopeRead}, Token: fips180Msg}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("duplicate token: err = %v, want ErrInvalid", err)
	}
}

func TestAuthenticateFailures(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	k, _ := openTemp(t, clock)
	_, live, err := k.Create(NewKey{Name: "live", Scopes: []Scope{ScopeWrite}})
	if err != nil {
		t.Fatal(err)
	}
	_, soon, err := k.Create(NewKey{Name: "soon", Scopes: []Scope{ScopeRead}, ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	rk, gone, err := k.Create(NewKey{Name: "gone", Scopes: []Scope{ScopeAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Revoke(rk.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Authenticate(soon); err != nil {
		t.Fatalf("unexpired key rejected: %v", err)
	}
	now = now.Add(time.Hour) // exactly at expiry: expired
	tests := []struct {
		name, tok string
		want      error
	}{
		{"live", live, nil},
		{"expired", soon, ErrExpired},
		{"revoked", gone, ErrRevoked},
		{"unknown", "mgk_" + strings.Repeat("A", 43), ErrUnknownKey},
		{"empty", "", ErrUnknownKey},
		{"prefix of live", live[:len(live)-1], ErrUnknownKey},
	}
	for _, tt := range tests {
		_, err := k.Authenticate(tt.tok)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
		if tt.want != nil && !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("%s: err = %v does not match ErrUnauthenticated", tt.name, err)
		}
	}
}

func TestCreateValidation(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	k, _ := openTemp(t, func() time.Time { return now })
	tests := []struct {
		name string
		nk   NewKey
	}{
		{"no name", NewKey{Scopes: []Scope{ScopeRead}}},
		{"blank name", NewKey{Name: "  ", Scopes: []Scope{ScopeRead}}},
		{"control char", NewKey{Name: "a\nb", Scopes: []Scope{ScopeRead}}},
		{"long name", NewKey{Name: strings.Repeat("x", MaxNameLen+1), Scopes: []Scope{ScopeRead}}},
		{"bad utf8", NewKey{Name: "\xff", Scopes: []Scope{ScopeRead}}},
		{"no scopes", NewKey{Name: "a"}},
		{"bad scope", NewKey{Name: "a", Scopes: []Scope{"root"}}},
		{"past expiry", NewKey{Name: "a", Scopes: []Scope{ScopeRead}, ExpiresAt: now.Add(-time.Second)}},
		{"short token", NewKey{Name: "a", Scopes: []Scope{ScopeRead}, Token: "short"}},
	}
	for _, tt := range tests {
		if _, _, err := k.Create(tt.nk); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", tt.name, err)
		}
	}
	if keys, _ := k.List(); len(keys) != 0 {
		t.Fatalf("invalid requests stored keys: %v", keys)
	}
}

func TestRevokeAndGet(t *testing.T) {
	k, _ := openTemp(t, nil)
	key, _, err := k.Create(NewKey{Name: "a", Scopes: []Scope{ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	r1, err := k.Revoke(key.ID)
	if err != nil || r1.RevokedAt == nil {
		t.Fatalf("revoke: %+v %v", r1, err)
	}
	r2, err := k.Revoke(key.ID)
	if err != nil || !r2.RevokedAt.Equal(*r1.RevokedAt) {
		t.Fatalf("second revoke changed the key: %+v %v", r2, err)
	}
	if _, err := k.Revoke("key-nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	if _, err := k.Get("key-nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get unknown: %v", err)
	}
	g, err := k.Get(key.ID)
	if err != nil || g.Status(time.Now()) != StatusRevoked {
		t.Fatalf("get: %+v %v", g, err)
	}
}

// A second Keyring on the same directory stands for the CLI: its changes
// must be seen by the first (the server) without restarting it.
func TestChangesFromAnotherInstanceAreSeen(t *testing.T) {
	server, dir := openTemp(t, nil)
	if _, err := server.List(); err != nil { // warm the cache
		t.Fatal(err)
	}
	cli, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	key, tok, err := cli.Create(NewKey{Name: "from cli", Scopes: []Scope{ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.Authenticate(tok); err != nil {
		t.Fatalf("server does not see the CLI's key: %v", err)
	}
	if _, err := cli.Revoke(key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Authenticate(tok); !errors.Is(err, ErrRevoked) {
		t.Fatalf("server does not see the CLI's revocation: %v", err)
	}
}

func TestBootstrap(t *testing.T) {
	k, dir := openTemp(t, nil)
	b, err := k.Bootstrap("")
	if err != nil {
		t.Fatal(err)
	}
	if !b.Created || b.Token == "" || b.Key.Scope() != ScopeAdmin {
		t.Fatalf("bootstrap = %+v", b)
	}
	data, err := os.ReadFile(filepath.Join(dir, BootstrapKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(data)) != b.Token || b.File != filepath.Join(dir, BootstrapKeyFile) {
		t.Fatalf("bootstrap-key holds %q, want %q", data, b.Token)
	}
	st, _ := os.Stat(b.File)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("bootstrap-key mode %v, want 0600", st.Mode().Perm())
	}
	if key, err := k.Authenticate(b.Token); err != nil || key.Require(ScopeAdmin) != nil {
		t.Fatalf("bootstrap token: %+v %v", key, err)
	}
	again, err := k.Bootstrap("")
	if err != nil || again.Created {
		t.Fatalf("second bootstrap = %+v, %v; want no-op", again, err)
	}
	if keys, _ := k.List(); len(keys) != 1 {
		t.Fatalf("%d keys after two bootstraps", len(keys))
	}
}

func TestBootstrapWithOperatorToken(t *testing.T) {
	k, dir := openTemp(t, nil)
	if _, err := k.Bootstrap("too-short"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short operator token: %v", err)
	}
	b, err := k.Bootstrap(fips180Msg)
	if err != nil || !b.Created || b.Token != "" || b.File != "" {
		t.Fatalf("bootstrap = %+v, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, BootstrapKeyFile)); !os.IsNotExist(err) {
		t.Fatalf("operator token was written to disk: %v", err)
	}
	if key, err := k.Authenticate(fips180Msg); err != nil || key.Scope() != ScopeAdmin {
		t.Fatalf("operator token: %+v %v", key, err)
	}
}

func TestRequire(t *testing.T) {
	key := Key{Scopes: []Scope{ScopeRead}}
	err := key.Require(ScopeWrite)
	var se *ScopeError
	if !errors.Is(err, ErrForbidden) || !errors.As(err, &se) || se.Need != ScopeWrite {
		t.Fatalf("Require = %v", err)
	}
	if err := key.Require(ScopeRead); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptFile(t *testing.T) {
	tests := map[string]string{
		"not json":      "{",
		"wrong version": `{"version": 2, "keys": []}`,
		"bad hash":      `{"version": 1, "keys": [{"id": "key-a", "name": "a", "scopes": ["read"], "sha256": "zz", "created_at": "2026-01-01T00:00:00Z"}]}`,
		"bad scope":     `{"version": 1, "keys": [{"id": "key-a", "name": "a", "scopes": ["root"], "sha256": "` + fips180SHA256 + `", "created_at": "2026-01-01T00:00:00Z"}]}`,
		"duplicate id":  `{"version": 1, "keys": [{"id": "key-a", "name": "a", "scopes": ["read"], "sha256": "` + fips180SHA256 + `", "created_at": "2026-01-01T00:00:00Z"},{"id": "key-a", "name": "a", "scopes": ["read"], "sha256": "` + fips180SHA256 + `", "created_at": "2026-01-01T00:00:00Z"}]}`,
		"unknown field": `{"version": 1, "keys": [], "token": "x"}`,
	}
	for name, content := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, KeysFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Open err = %v, want ErrCorrupt", name, err)
		}
	}
}

// Concurrent writers on separate Keyring instances (separate open file
// descriptions, so flock excludes them exactly as it excludes processes)
// must not lose each other's keys.
func TestConcurrentWriters(t *testing.T) {
	_, dir := openTemp(t, nil)
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := Open(dir, Options{})
			if err != nil {
				errs <- err
				return
			}
			for i := range each {
				if _, _, err := k.Create(NewKey{Name: fmt.Sprintf("w%d-%d", w, i), Scopes: []Scope{ScopeRead}}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	k, _ := Open(dir, Options{})
	if keys, _ := k.List(); len(keys) != writers*each {
		t.Fatalf("%d keys, want %d", len(keys), writers*each)
	}
}

// TestCrossProcessWriters runs key creation in a child process (this test
// binary re-executed) while the parent creates keys too.
func TestCrossProcessWriters(t *testing.T) {
	if dir := os.Getenv("MOLGRAPH_AUTH_HELPER_DIR"); dir != "" {
		n, _ := strconv.Atoi(os.Getenv("MOLGRAPH_AUTH_HELPER_N"))
		k, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, _, err := k.Create(NewKey{Name: fmt.Sprintf("child-%d", i), Scopes: []Scope{ScopeRead}}); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	parent, dir := openTemp(t, nil)
	const n = 25
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrossProcessWriters$")
	cmd.Env = append(os.Environ(), "MOLGRAPH_AUTH_HELPER_DIR="+dir, "MOLGRAPH_AUTH_HELPER_N="+strconv.Itoa(n))
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, _, err := parent.Create(NewKey{Name: fmt.Sprintf("parent-%d", i), Scopes: []Scope{ScopeRead}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	keys, err := parent.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2*n {
		t.Fatalf("%d keys, want %d (a write was lost)", len(keys), 2*n)
	}
}
