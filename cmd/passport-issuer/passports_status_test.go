package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestPassportStatusCommands: on each engine, passports revoke, suspend
// and reinstate change an issued passport's status, each audited; asking
// for the status a passport has says so and changes nothing; a revoked
// passport cannot be reinstated; an unknown or malformed hash is refused;
// and keys retire --withdraw revokes every passport the key signed.
func TestPassportStatusCommands(t *testing.T) {
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			dsn := storetest.URL(t, engine)
			keys := filepath.Join(t.TempDir(), "keys")
			kf := []string{"--keys", keys, "--issuer", "https://issuer.test"}
			cmd(t, dsn, "migrate")
			var a struct {
				PublicID string `json:"publicId"`
			}
			if err := json.Unmarshal([]byte(cmd(t, dsn, "agents", "create", "--name", "Subject", "--json")), &a); err != nil {
				t.Fatal(err)
			}
			cmd(t, dsn, append([]string{"keys", "rotate"}, kf...)...)
			hashRE := regexp.MustCompile(`passport ([0-9a-f]{64}) for`)
			issue := func() string {
				t.Helper()
				var out, errs bytes.Buffer
				args := append([]string{"--db", dsn, "passports", "issue", a.PublicID, "-o", filepath.Join(t.TempDir(), "bundle.json")}, kf...)
				if code := run(context.Background(), args, &out, &errs); code != 0 {
					t.Fatalf("issue: exit %d: %s", code, errs.String())
				}
				m := hashRE.FindStringSubmatch(errs.String())
				if m == nil {
					t.Fatalf("issue said %q", errs.String())
				}
				return m[1]
			}
			status := func(want int, args ...string) string {
				t.Helper()
				var out, errs bytes.Buffer
				code := run(context.Background(), append(append([]string{"--db", dsn, "passports"}, args...), kf...), &out, &errs)
				if code != want {
					t.Fatalf("%v: exit %d, want %d: %s%s", args, code, want, out.String(), errs.String())
				}
				return out.String() + errs.String()
			}
			first, second := issue(), issue()
			if first == second {
				t.Fatal("two issuances gave one passport")
			}

			steps := []struct{ args, want string }{
				{"reinstate " + second, "is already valid: nothing changed"},
				{"suspend " + second, "valid -> suspended, entry "},
				{"suspend " + second, "is already suspended: nothing changed"},
				{"reinstate " + second, "suspended -> valid"},
				{"revoke " + second, "valid -> revoked"},
			}
			for _, s := range steps {
				out := status(0, append(strings.Fields(s.args), "--reason", "testing")...)
				if !strings.Contains(out, s.want) || !strings.Contains(out, "https://issuer.test/status/sl_") {
					t.Fatalf("%s: %q, want %q", s.args, out, s.want)
				}
			}
			if out := status(1, "reinstate", second, "--reason", "x"); !strings.Contains(out, "stays revoked") {
				t.Fatalf("reinstating a revoked passport: %q", out)
			}
			if out := status(1, "revoke", strings.Repeat("0", 64), "--reason", "x"); !strings.Contains(out, "not_found") {
				t.Fatalf("an unknown hash: %q", out)
			}
			status(2, "revoke", "nothex", "--reason", "x")
			status(2, "revoke", first)                    // no reason
			status(2, "revoke", first, "--reason", "   ") // a blank one

			db, err := store.Open(context.Background(), dsn, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var audited int
			if err := db.UnsafeSQL().Get(&audited, db.UnsafeSQL().Rebind(`SELECT COUNT(*) FROM audit_events WHERE subject = ?`), second); err != nil {
				t.Fatal(err)
			}
			if audited != 3 {
				t.Fatalf("%d audit events for three changes", audited)
			}

			var kid struct {
				KID string `json:"kid"`
			}
			var list []json.RawMessage
			json.Unmarshal([]byte(cmd(t, dsn, append([]string{"keys", "list", "--json"}, kf...)...)), &list)
			if len(list) != 1 || json.Unmarshal(list[0], &kid) != nil {
				t.Fatalf("keys: %s", list)
			}
			if out := cmd(t, dsn, append(append([]string{"keys", "retire", "--withdraw"}, kf...), "--", kid.KID)...); !strings.Contains(out, "revoked") {
				t.Fatalf("keys retire --withdraw said %q", out)
			}
			if out := status(0, "revoke", first, "--reason", "x"); !strings.Contains(out, "is already revoked") {
				t.Fatalf("after the withdrawal of its key: %q", out)
			}
		})
	}
}
