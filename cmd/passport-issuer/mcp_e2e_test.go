package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestVerifyPassportToolPrintsWhatVerifyPrints: on each engine, for the
// bundle get_agent_passport of `passport-issuer serve` gives, its
// verify_passport answers byte for byte what the built `passport verify
// --json` prints with the trust file /.well-known serves, at the same
// time: for the bundle, a tampered copy and another subject.
func TestVerifyPassportToolPrintsWhatVerifyPrints(t *testing.T) {
	bin := buildVerifier(t)
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			dir := t.TempDir()
			dsn := storetest.URL(t, engine)
			cmd(t, dsn, "migrate")
			subject := recordWorld(t, dsn)
			base := serveIssuer(t, dsn, filepath.Join(dir, "keys"))
			var caller struct {
				PublicID string `json:"publicId"`
				APIKey   string `json:"apiKey"`
			}
			if err := json.Unmarshal([]byte(cmd(t, dsn, "agents", "create", "--name", "Caller", "--json")), &caller); err != nil {
				t.Fatal(err)
			}
			_, _, trust := get(t, base+"/.well-known/passport-trust.json", "")
			trustPath := filepath.Join(dir, "trust.json")
			if err := os.WriteFile(trustPath, trust, 0o644); err != nil {
				t.Fatal(err)
			}

			cs := mcpwiretest.Session(t, base+"/mcp", caller.APIKey)
			call := func(name string, args map[string]any) string {
				t.Helper()
				res := mcpwiretest.CallTool(t, cs, name, args)
				if text := mcpwiretest.Text(t, res); !res.IsError {
					return text
				}
				t.Fatalf("%s: %s", name, mcpwiretest.Text(t, res))
				return ""
			}

			bundle := call("get_agent_passport", map[string]any{"publicId": subject})
			tampered := strings.Replace(bundle, `"trustLevel":"`, `"trustLevel":"x`, 1)
			if tampered == bundle {
				t.Fatal("nothing to tamper with")
			}
			at := time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
			for _, c := range []struct {
				name, bundle, subject string
				exit                  int
			}{
				{"valid", bundle, string(subject), 0},
				{"tampered", tampered, string(subject), 1},
				{"another subject", bundle, caller.PublicID, 1},
			} {
				path := filepath.Join(dir, c.name+".json")
				if err := os.WriteFile(path, []byte(c.bundle), 0o644); err != nil {
					t.Fatal(err)
				}
				var stdout bytes.Buffer
				verify := exec.Command(bin, "verify", "--json", "--trust", trustPath, "--subject", c.subject, "--at", at, path)
				verify.Stdout = &stdout
				err := verify.Run()
				if ee, ok := err.(*exec.ExitError); (ok && ee.ExitCode() != c.exit) || (!ok && err != nil) || (err == nil && c.exit != 0) {
					t.Fatalf("%s: passport verify: %v", c.name, err)
				}
				got := call("verify_passport", map[string]any{"bundle": c.bundle, "subject": c.subject, "at": at})
				if want := strings.TrimSuffix(stdout.String(), "\n"); got != want {
					t.Fatalf("%s: verify_passport answered\n%s\npassport verify --json printed\n%s", c.name, got, want)
				}
			}
		})
	}
}
