package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"passport": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the command-line scenarios in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: filepath.Join("testdata", "script")})
}

// TestNoDatabaseDriver checks that the passport binary, which third parties
// install to verify offline, links no database driver and no issuer code,
// not the MCP SDK, which passport-ledger-mcp links instead, and not net/http
// and crypto/tls, which passport-serve links instead: a package linked is a
// package initialised, and a verification pays for it.
func TestNoDatabaseDriver(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := []string{
		"database/sql", "github.com/jackc/pgx", "modernc.org/sqlite", "github.com/jmoiron/sqlx",
		"github.com/lib/pq", "github.com/mattn/go-sqlite3", "github.com/pressly/goose",
		"github.com/remnant/passportkit/issuer", "github.com/remnant/passportkit/migrations",
		"github.com/modelcontextprotocol/go-sdk", "github.com/remnant/passportkit/ledger/ledgermcp",
		"net/http", "crypto/tls", "github.com/remnant/passportkit/verifier/verifierhttp",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list returned %d packages", len(deps))
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("cmd/passport depends on %s", dep)
			}
		}
	}
}

// TestVectorsCLI runs every conformance vector through `passport verify`,
// checking the exit code and the --json object.
func TestVectorsCLI(t *testing.T) {
	trust, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	trustFile := filepath.Join(dir, "trust.json")
	if err := os.WriteFile(trustFile, trust, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"verify", "--any-subject", "--trust", trustFile, "--at", passport.NewTime(c.At).String(), "--json"}
			if c.StatusList != nil {
				// As a shell might save it, with a final line feed.
				status := filepath.Join(dir, c.Name+".jwt")
				if err := os.WriteFile(status, append(c.StatusList, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--status", status)
			}
			args, input := vectorInput(c, args)
			code := run(context.Background(), append(args, "-"), bytes.NewReader(input), &stdout, &stderr)
			want := cli.ExitFailed
			switch {
			case c.Verified:
				want = cli.ExitOK
			case c.Reason == string(passport.ReasonKeyUnknown):
				want = exitIndeterminate
			}
			if code != want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, want, stderr.String())
			}
			var res struct {
				Verified     bool   `json:"verified"`
				Reason       string `json:"reason"`
				PassportHash string `json:"passportHash"`
				Subject      string `json:"subject"`
				Checks       []struct {
					Name, Reason, Detail string
					OK                   bool
				} `json:"checks"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatalf("--json output: %v\n%s", err, stdout.String())
			}
			if res.Verified != c.Verified || res.Reason != c.Reason || len(res.Checks) != len(c.Checks) {
				t.Errorf("got verified %v reason %s, want %v %s", res.Verified, res.Reason, c.Verified, c.Reason)
			}
			for i := range min(len(res.Checks), len(c.Checks)) {
				if got, want := res.Checks[i], c.Checks[i]; got.Name != want.Name || got.Reason != want.Reason {
					t.Errorf("check %d: %s %s, want %s %s", i, got.Name, got.Reason, want.Name, want.Reason)
				}
			}
			if !c.Verified && (res.PassportHash != "" || res.Subject != "" || bytes.Contains(stdout.Bytes(), []byte(`"passport":`))) {
				t.Errorf("unverified passport content printed: %s", stdout.String())
			}
		})
	}
}

// vectorInput returns the arguments and the input that verify c: for a
// presentation, with the flags of its presentation policy.
func vectorInput(c vectors.Case, args []string) ([]string, []byte) {
	p := c.PresentedTo
	if p == nil {
		return args, c.Bundle
	}
	return append(args, "--presentation", "--aud", p.Audience, "--nonce", p.Nonce, "--max-age", fmt.Sprintf("%ds", p.MaxAge)), c.Presentation
}

// TestExitCodes pins the exit code contract of verify.
func TestExitCodes(t *testing.T) {
	trust, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	trustFile := write("trust.json", trust)
	bundles := map[string]string{}
	for _, c := range cases {
		bundles[c.Name] = write(c.Name+".json", append(c.Bundle, c.Presentation...))
	}
	presented := func(name string, flags ...string) []string {
		return append(append([]string{"verify", "--any-subject", "--trust", trustFile, "--at", "2026-06-01T00:00:00Z"}, flags...), bundles[name])
	}
	kb := []string{"--presentation", "--aud", "https://verifier.example", "--nonce", "n-7Kq2xW9fLp"}
	at := "2026-06-01T00:00:00Z"
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"verified", []string{"verify", "--any-subject", "--trust", trustFile, "--at", at, bundles["valid_eddsa"]}, cli.ExitOK},
		{"not verified", []string{"verify", "--any-subject", "--trust", trustFile, "--at", at, bundles["tampered_snapshot_fail"]}, cli.ExitFailed},
		{"oversized is not verified", []string{"verify", "--any-subject", "--trust", trustFile, "--at", at, bundles["over_512kib_fail"]}, cli.ExitFailed},
		{"malformed is not verified", []string{"verify", "--any-subject", "--trust", trustFile, "--at", at, bundles["truncated_fail"]}, cli.ExitFailed},
		{"unknown kid is indeterminate", []string{"verify", "--any-subject", "--trust", trustFile, "--at", at, bundles["unknown_kid_fail"]}, exitIndeterminate},
		{"unreadable bundle", []string{"verify", "--any-subject", "--trust", trustFile, filepath.Join(dir, "missing.json")}, cli.ExitUsage},
		{"invalid trust file", []string{"verify", "--any-subject", "--trust", bundles["valid_eddsa"], bundles["valid_eddsa"]}, cli.ExitUsage},
		{"no trust file", []string{"verify", bundles["valid_eddsa"]}, cli.ExitUsage},
		{"bad flag", []string{"verify", "--frobnicate", bundles["valid_eddsa"]}, cli.ExitUsage},
		{"bad time", []string{"verify", "--any-subject", "--trust", trustFile, "--at", "noon", bundles["valid_eddsa"]}, cli.ExitUsage},
		{"no command", []string{}, cli.ExitUsage},
		{"skew at its bound", []string{"verify", "--any-subject", "--trust", trustFile, "--at", at, "--skew", "24h", bundles["valid_eddsa"]}, cli.ExitOK},
		{"skew beyond 24 hours", []string{"verify", "--any-subject", "--trust", trustFile, "--at", at, "--skew", "24h0m1s", bundles["valid_eddsa"]}, cli.ExitUsage},
		{"negative skew", []string{"verify", "--any-subject", "--trust", trustFile, "--at", at, "--skew", "-1s", bundles["valid_eddsa"]}, cli.ExitUsage},
		{"presentation verified", presented("valid_presentation_eddsa", kb...), cli.ExitOK},
		{"presentation for another nonce", presented("valid_presentation_eddsa", "--presentation", "--aud", "https://verifier.example", "--nonce", "other"), cli.ExitFailed},
		{"presentation past a shorter maximum age", presented("valid_presentation_max_age_boundary", append(kb, "--max-age", "4m59s")...), cli.ExitFailed},
		{"presentation as a bundle", presented("valid_presentation_eddsa"), cli.ExitFailed},
		{"bundle as a presentation", presented("valid_v02_cnf", kb...), cli.ExitFailed},
		{"presentation without --nonce", presented("valid_presentation_eddsa", "--presentation", "--aud", "https://verifier.example"), cli.ExitUsage},
		{"presentation without --aud", presented("valid_presentation_eddsa", "--presentation", "--nonce", "n-7Kq2xW9fLp"), cli.ExitUsage},
		{"--aud without --presentation", presented("valid_eddsa", "--aud", "https://verifier.example"), cli.ExitUsage},
		{"--max-age without --presentation", presented("valid_eddsa", "--max-age", "1m"), cli.ExitUsage},
		{"negative --max-age", presented("valid_presentation_eddsa", append(kb, "--max-age", "-1s")...), cli.ExitUsage},
		{"--max-age over a day", presented("valid_presentation_eddsa", append(kb, "--max-age", "24h0m1s")...), cli.ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr); got != tt.want {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", got, tt.want, stdout.String(), stderr.String())
			}
		})
	}
}

// TestVectorsRecompute re-derives the skill passports of every valid vector
// with `passport verify --recompute`: the fully disclosed ones must match
// the signed figures, and none may be unverifiable or differ.
func TestVectorsRecompute(t *testing.T) {
	trust, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	trustFile := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(trustFile, trust, 0o644); err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, c := range cases {
		if !c.Verified {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args, input := vectorInput(c, []string{"verify", "--any-subject", "--trust", trustFile, "--at", passport.NewTime(c.At).String(), "--recompute"})
			if code := run(context.Background(), append(args, "-"), bytes.NewReader(input), &stdout, &stderr); code != cli.ExitOK {
				t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
			}
			if strings.Contains(stdout.String(), "  match ") {
				matched++
			}
		})
	}
	if matched == 0 {
		t.Errorf("no valid vector had a skill passport recomputed and matched")
	}
}

// TestTrustFileVectorsExit checks `passport verify` on the trust-file
// cases: a file SPEC.md refuses (a key of small order) is a usage error,
// exit 2; one it accepts reads, and the vector bundle, signed by a key it
// does not hold, is indeterminate.
func TestTrustFileVectorsExit(t *testing.T) {
	files, err := vectors.LoadTrustFiles(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	_, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	var bundle []byte
	for _, c := range cases {
		if c.Name == "valid_eddsa" {
			bundle = c.Bundle
		}
	}
	dir := t.TempDir()
	for _, c := range files {
		trustFile := filepath.Join(dir, c.Name+".json")
		if err := os.WriteFile(trustFile, c.File, 0o644); err != nil {
			t.Fatal(err)
		}
		want := cli.ExitUsage
		if c.Accepted {
			want = exitIndeterminate
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"verify", "--any-subject", "--trust", trustFile, "--at", "2026-05-01T00:00:00Z", "-"},
			bytes.NewReader(bundle), &stdout, &stderr)
		if code != want {
			t.Errorf("%s: exit %d, want %d: %s", c.Name, code, want, stderr.String())
		}
	}
}
