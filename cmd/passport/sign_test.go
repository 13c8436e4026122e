package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
)

// signSetup returns a folder, an issuer key file in it, and a function
// that runs the passport command.
func signSetup(t *testing.T) (string, string, func(args ...string) (int, string, string)) {
	dir := t.TempDir()
	cmd := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	keyFile := filepath.Join(dir, "issuer.jwk")
	if code, _, stderr := cmd("keys", "generate", "--out", keyFile); code != cli.ExitOK {
		t.Fatalf("keys generate: %s", stderr)
	}
	return dir, keyFile, cmd
}

// TestSignSkillPassportAsGiven pins SPEC.md §4.1 and §4.14 for passport
// sign: a skill passport is checked as it is given, its hash over its own
// members; every member of effective is written, zeros included, so one
// whose zero counts are left out is refused for that reason (not for a hash
// of the signer's own re-encoding), and one that follows §4.1 is signed
// byte for byte and verifies.
func TestSignSkillPassportAsGiven(t *testing.T) {
	dir, keyFile, run := signSetup(t)
	code, trust, stderr := run("keys", "trust", "--issuer", "https://issuer.example", keyFile)
	if code != cli.ExitOK {
		t.Fatalf("keys trust: %s", stderr)
	}
	trustFile := filepath.Join(dir, "trust.json")
	os.WriteFile(trustFile, []byte(trust), 0o644)

	// A skill passport written by hand, as another implementation would,
	// with its hash over exactly the members given.
	skill := func(effective string, independence bool) string {
		ind := ""
		if independence {
			ind = `"independence":{"builder":0,"dataset":0,"framework":0,"host":0,"modelFamily":0,"operator":1,"project":0},`
		}
		body := `{"assessedAt":"2026-04-30","assessment":"INSUFFICIENT_EVIDENCE","calibration":"INSUFFICIENT_DATA","contested":false,` +
			`"effective":` + effective + `,"evidenceLevel":"VERY_LOW",` + ind + `"policies":["contextual-trust-v2","skills-1"],` +
			`"skill":"PostgreSQL","sourceCount":1,"stale":false,"state":"limited_evidence","visibility":"LIMITED_VISIBILITY"}`
		sum := sha256.Sum256([]byte(body))
		return body[:len(body)-1] + `,"assessmentHash":"` + hex.EncodeToString(sum[:]) + `"}`
	}
	const full = `{"binary":1,"contexts":1,"contradictions":0,"corroborations":0,"failures":0,"observations":1,"operators":1,"partial":0,"successes":1,"uncertain":0,"validators":1}`
	const noZeros = `{"binary":1,"contexts":1,"observations":1,"operators":1,"successes":1,"validators":1}`
	for _, tt := range []struct {
		name, effective string
		independence    bool
		want            int
		stderr          string
	}{
		{"every member of effective", full, true, cli.ExitOK, ""},
		{"zero members left out", noZeros, true, cli.ExitUsage, "effective.contradictions is missing"},
		// Signed as trust model 2.1, which never omits independence.
		{"no independence", full, false, cli.ExitUsage, "independence is missing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp := skill(tt.effective, tt.independence)
			in := `{"passport":{"subject":{"id":"agt_demo"},"skillPassports":[` + sp + `]},"evidence":[]}`
			file := filepath.Join(dir, "unsigned.json")
			os.WriteFile(file, []byte(in), 0o644)
			code, bundle, stderr := run("sign", "--key", keyFile, "--issuer", "https://issuer.example", "--issued-at", "2026-05-01T00:00:00Z", file)
			if code != tt.want || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr %q, want it to contain %q", code, tt.want, stderr, tt.stderr)
			}
			if code != cli.ExitOK {
				return
			}
			canon, err := passport.Canonicalize([]byte(sp))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(bundle, string(canon)) {
				t.Errorf("the signed bundle does not carry the skill passport byte for byte")
			}
			bfile := filepath.Join(dir, "bundle.json")
			os.WriteFile(bfile, []byte(bundle), 0o644)
			if code, out, _ := run("verify", "--any-subject", "--trust", trustFile, "--at", "2026-05-02T00:00:00Z", bfile); code != cli.ExitOK {
				t.Errorf("verify: exit %d\n%s", code, out)
			}
		})
	}
}

// TestSignVersion: passport sign writes passportVersion 0.2, whose payload
// carries the JWT claims, whatever minor version the input names, and keeps
// the cnf and status members it is given; an unknown major version is
// refused.
func TestSignVersion(t *testing.T) {
	dir, keyFile, run := signSetup(t)
	const jkt = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
	for _, tt := range []struct {
		name, version string
		want          int
	}{
		{"no version", "", cli.ExitOK},
		{"version 0.1", `"passportVersion":"0.1",`, cli.ExitOK},
		{"version 1.0", `"passportVersion":"1.0",`, cli.ExitFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"passport":{` + tt.version + `"subject":{"id":"agt_demo"},"cnf":{"jkts":["` + jkt + `"]},` +
				`"status":{"status_list":{"idx":3,"uri":"https://issuer.example/status/a"}}},"evidence":[]}`
			file := filepath.Join(dir, "unsigned.json")
			os.WriteFile(file, []byte(in), 0o644)
			code, bundle, stderr := run("sign", "--key", keyFile, "--issuer", "https://issuer.example", "--issued-at", "2026-05-01T00:00:00Z", "--ttl", "24h", file)
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.want, stderr)
			}
			if code != cli.ExitOK {
				return
			}
			b, err := passport.ParseBundleUnverified([]byte(bundle))
			if err != nil {
				t.Fatal(err)
			}
			const claims = `{"exp":1777680000,"iat":1777593600,"iss":"https://issuer.example","nbf":1777593600,"passport":{`
			if !strings.HasPrefix(string(b.Snapshot), claims) || !strings.Contains(string(b.Snapshot), `"passportVersion":"0.2"`) ||
				!strings.HasSuffix(string(b.Snapshot), `,"status":{"status_list":{"idx":3,"uri":"https://issuer.example/status/a"}},"sub":"agt_demo"}`) {
				t.Errorf("snapshot %s", b.Snapshot)
			}
		})
	}
}
