package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/molgraph/molgraph/auth"
)

// keysCmd is "molgraph keys create|list|revoke". It works on
// <data-dir>/keys.json directly and may run while the server runs.
func keysCmd(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: want one of: create, list, revoke", errUsage)
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "create":
		return keysCreate(args, stdout, stderr, getenv)
	case "list":
		return keysList(args, stdout, stderr, getenv)
	case "revoke":
		return keysRevoke(args, stdout, stderr, getenv)
	case "-h", "--help", "help":
		fmt.Fprintln(stderr, "Usage:\n  molgraph keys create --name NAME --scopes read,write [--expires 720h] [--json]\n  molgraph keys list [--json]\n  molgraph keys revoke ID")
		return errHelp
	}
	return fmt.Errorf("%w: unknown keys command %q; want create, list or revoke", errUsage, sub)
}

func openKeyring(s settings) (*auth.Keyring, error) {
	return auth.Open(s.str("data-dir"), auth.Options{})
}

// keyJSON is the --json form of a key (the token only on create).
type keyJSON struct {
	auth.Key
	Status string `json:"status"`
	Token  string `json:"token,omitempty"`
}

func keysCreate(args []string, stdout, stderr io.Writer, getenv env) error {
	var name, scopes, expires string
	var asJSON bool
	s, rest, err := parseOptions("keys create", []option{dataDirOption()}, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "name of the key (required)")
		fs.StringVar(&scopes, "scopes", "read", "comma-separated scopes: read, write, admin (admin ⊇ write ⊇ read)")
		fs.StringVar(&expires, "expires", "", "lifetime, e.g. 720h (default: never expires)")
		fs.BoolVar(&asJSON, "json", false, "print the key as JSON (token included)")
	}, args, stderr, getenv)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, rest)
	}
	if name == "" {
		return fmt.Errorf("%w: --name is required", errUsage)
	}
	sc, err := auth.ParseScopes(scopes)
	if err != nil {
		return fmt.Errorf("%w: --scopes: %v", errUsage, err)
	}
	nk := auth.NewKey{Name: name, Scopes: sc}
	if expires != "" {
		d, err := time.ParseDuration(expires)
		if err != nil || d <= 0 {
			return fmt.Errorf("%w: --expires: %q is not a positive duration such as 720h", errUsage, expires)
		}
		nk.ExpiresAt = time.Now().Add(d)
	}
	kr, err := openKeyring(s)
	if err != nil {
		return err
	}
	key, token, err := kr.Create(nk)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(stdout, keyJSON{Key: key, Status: key.Status(time.Now()), Token: token})
	}
	// The token alone on stdout (TOKEN=$(molgraph keys create ...)); the
	// description on stderr.
	fmt.Fprintf(stderr, "created key %s %q, scopes %s, %s; the token below is shown only once:\n",
		key.ID, key.Name, joinScopes(key.Scopes), describeExpiry(key))
	fmt.Fprintln(stdout, token)
	return nil
}

func keysList(args []string, stdout, stderr io.Writer, getenv env) error {
	var asJSON bool
	s, rest, err := parseOptions("keys list", []option{dataDirOption()}, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print JSON")
	}, args, stderr, getenv)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, rest)
	}
	kr, err := openKeyring(s)
	if err != nil {
		return err
	}
	keys, err := kr.List()
	if err != nil {
		return err
	}
	now := time.Now()
	if asJSON {
		out := make([]keyJSON, len(keys))
		for i, k := range keys {
			out[i] = keyJSON{Key: k, Status: k.Status(now)}
		}
		return writeJSON(stdout, map[string]any{"keys": out})
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSCOPES\tCREATED\tEXPIRES\tSTATUS")
	for _, k := range keys {
		exp := "never"
		if k.ExpiresAt != nil {
			exp = k.ExpiresAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, joinScopes(k.Scopes),
			k.CreatedAt.Format(time.RFC3339), exp, k.Status(now))
	}
	return tw.Flush()
}

func keysRevoke(args []string, stdout, stderr io.Writer, getenv env) error {
	s, rest, err := parseOptions("keys revoke", []option{dataDirOption()}, nil, args, stderr, getenv)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: want exactly one key id", errUsage)
	}
	kr, err := openKeyring(s)
	if err != nil {
		return err
	}
	key, err := kr.Revoke(rest[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked %s %q at %s\n", key.ID, key.Name, key.RevokedAt.Format(time.RFC3339))
	return nil
}

func joinScopes(sc []auth.Scope) string {
	parts := make([]string, len(sc))
	for i, s := range sc {
		parts[i] = string(s)
	}
	return strings.Join(parts, ",")
}

func describeExpiry(k auth.Key) string {
	if k.ExpiresAt == nil {
		return "never expires"
	}
	return "expires " + k.ExpiresAt.Format(time.RFC3339)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
