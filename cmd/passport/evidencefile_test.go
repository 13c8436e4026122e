package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/cli"
)

// TestVerifyEvidenceFile verifies a bundle that discloses only some of its
// evidence, with the complete evidence file: the skill passports are
// recomputed from the file; a file with a record altered, one of another
// passport, and a malformed one each fail with their reason.
func TestVerifyEvidenceFile(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	mustRun := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, args...)
		if code != cli.ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	write := func(name, s string) string {
		os.WriteFile(path(name), []byte(s), 0o644)
		return path(name)
	}
	mustRun("keys", "generate", "--out", path("issuer.jwk"))
	write("trust.json", mustRun("keys", "trust", "--issuer", "https://issuer.example", path("issuer.jwk")))
	unsigned := write("unsigned.json", `{"passport":{"subject":{"id":"agt_demo"},"trustLevel":"new"},"evidence":`+recomputeEvidence+`}`)
	bundle := write("bundle.json", mustRun("sign", "--key", path("issuer.jwk"), "--issuer", "https://issuer.example",
		"--issued-at", "2026-05-01T00:00:00Z", "--disclose", "0,2", unsigned))
	verify := func(extra ...string) (int, string, string) {
		return runCLI(t, append([]string{"verify", "--any-subject", "--trust", path("trust.json"), "--at", "2026-05-02T00:00:00Z"}, append(extra, bundle)...)...)
	}

	good := write("evidence.json", `{"evidence":`+recomputeEvidence+`}`)
	code, stdout, stderr := verify("--recompute", "--evidence", good)
	if code != cli.ExitOK || !strings.Contains(stdout, "evidence file: ok, 8 records") {
		t.Errorf("complete file: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = verify("--recompute", "--evidence", good, "--json")
	if code != cli.ExitOK || !strings.Contains(stdout, `"evidenceFile":{"ok":true,"reason":"ok"`) {
		t.Errorf("complete file, JSON: exit %d\n%s", code, stdout)
	}

	cases := []struct{ name, file, want string }{
		{"altered", `{"evidence":` + strings.Replace(recomputeEvidence, `"outcome":"failure"`, `"outcome":"success"`, 1) + `}`, "evidence_root_mismatch"},
		{"shortened", `{"evidence":` + recomputeEvidence[:strings.LastIndex(recomputeEvidence, ",\n")] + `]}`, "evidence_root_mismatch"},
		{"other passport", `{"evidence":` + recomputeEvidence + `,"passportHash":"` + strings.Repeat("0", 64) + `"}`, "passport_hash_mismatch"},
		{"malformed", `{"evidence":[{"id":"ev_1"}]}`, "evidence_malformed"},
	}
	for _, c := range cases {
		code, stdout, stderr := verify("--recompute", "--evidence", write(c.name+".json", c.file))
		if code != cli.ExitFailed || !strings.Contains(stderr, c.want) || strings.Contains(stdout, "recompute:") {
			t.Errorf("%s: exit %d, want %d with %s\n%s%s", c.name, code, cli.ExitFailed, c.want, stdout, stderr)
		}
	}

	if code, _, stderr := verify("--evidence", good); code != cli.ExitUsage || !strings.Contains(stderr, "--evidence needs --recompute") {
		t.Errorf("--evidence alone: exit %d %s", code, stderr)
	}
}
