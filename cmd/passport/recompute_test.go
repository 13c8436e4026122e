package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
)

// recomputeEvidence is an unsigned passport's evidence: seven reports on
// PostgreSQL indexing from independent operators, one a failure, and a
// declaration.
const recomputeEvidence = `[
{"id":"ev_1","type":"outcome","skill":"PG indexing","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_1","operator":"op_1","ownership":"distinct","date":"2026-04-01"},
{"id":"ev_2","type":"outcome","skill":"PG indexing","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_2","operator":"op_2","ownership":"distinct","date":"2026-03-01"},
{"id":"ev_3","type":"outcome","skill":"PG indexing","outcome":"failure","quality":"OBSERVED_REUSE","reporter":"act_3","operator":"op_3","ownership":"distinct","date":"2026-02-01"},
{"id":"ev_4","type":"outcome","skill":"PG indexing","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_4","operator":"op_4","ownership":"distinct","date":"2026-01-01"},
{"id":"ev_5","type":"outcome","skill":"PG indexing","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_5","operator":"op_5","ownership":"distinct","date":"2025-12-01"},
{"id":"ev_6","type":"outcome","skill":"PG indexing","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_6","operator":"op_6","ownership":"distinct","date":"2025-11-01"},
{"id":"ev_8","type":"outcome","skill":"PG indexing","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_8","operator":"op_8","ownership":"distinct","date":"2026-04-15"},
{"id":"ev_7","type":"declaration","skill":"SQLite","quality":"DECLARED","reporter":"act_s","ownership":"self","date":"2025-01-01"}]`

// TestVerifyRecompute signs a passport whose skill passports passport
// assess computed, then verifies it with --recompute: it matches when
// honest and all evidence is disclosed, fails naming the member when a
// figure was altered before signing, and reports skills it cannot recompute
// when evidence is withheld.
func TestVerifyRecompute(t *testing.T) {
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
	mustRun("keys", "generate", "--out", path("issuer.jwk"))
	trust := mustRun("keys", "trust", "--issuer", "https://issuer.example", path("issuer.jwk"))
	os.WriteFile(path("trust.json"), []byte(trust), 0o644)
	os.WriteFile(path("evidence.json"), []byte(`{"evidence":`+recomputeEvidence+`}`), 0o644)

	var out assessOutput
	if err := json.Unmarshal([]byte(mustRun("assess", "--evidence", path("evidence.json"), "--skill", "PostgreSQL indexing",
		"--skill", "SQLite", "--at", "2026-05-01", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	var skills []json.RawMessage
	for _, s := range out.Agents[0].Skills {
		b, _ := json.Marshal(s.SkillPassport)
		skills = append(skills, b)
	}
	sign := func(name string, skills []json.RawMessage, disclose string) string {
		sk, _ := json.Marshal(skills)
		unsigned := `{"passport":{"subject":{"id":"agt_demo"},"trustLevel":"new","skillPassports":` + string(sk) + `},"evidence":` + recomputeEvidence + `}`
		os.WriteFile(path(name+".unsigned.json"), []byte(unsigned), 0o644)
		bundle := mustRun("sign", "--key", path("issuer.jwk"), "--issuer", "https://issuer.example",
			"--issued-at", "2026-05-01T00:00:00Z", "--disclose", disclose, path(name+".unsigned.json"))
		os.WriteFile(path(name+".bundle.json"), []byte(bundle), 0o644)
		return path(name + ".bundle.json")
	}
	verify := func(bundle string, extra ...string) (int, string, string) {
		return runCLI(t, append([]string{"verify", "--any-subject", "--trust", path("trust.json"), "--at", "2026-05-02T00:00:00Z", "--recompute"}, append(extra, bundle)...)...)
	}

	// An unsigned passport is also an evidence file for assess.
	if got := mustRun("assess", "--evidence", path(strings.TrimSuffix(filepath.Base(sign("honest", skills, "all")), ".bundle.json")+".unsigned.json"),
		"--skill", "PostgreSQL indexing", "--at", "2026-05-01"); !strings.Contains(got, "SUPPORTED") {
		t.Errorf("assess on the unsigned passport:\n%s", got)
	}

	code, stdout, stderr := verify(path("honest.bundle.json"))
	if code != cli.ExitOK || !strings.Contains(stdout, "match         PostgreSQL indexing") || !strings.Contains(stdout, "match         SQLite") {
		t.Errorf("honest: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = verify(path("honest.bundle.json"), "--json")
	if code != cli.ExitOK || !strings.Contains(stdout, `"recompute":[{"skill":"PostgreSQL indexing","status":"match"}`) || !strings.Contains(stdout, `"verified":true`) {
		t.Errorf("honest, JSON: exit %d\n%s", code, stdout)
	}

	// A figure changed before signing, with a hash to match: the signature
	// holds, the arithmetic does not.
	var sp map[string]any
	json.Unmarshal(skills[0], &sp)
	sp["evidenceLevel"] = "STRONG"
	delete(sp, "assessmentHash")
	body, err := passport.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	sp["assessmentHash"] = passport.PassportHash(body) // the SHA-256 of the members, as §4.14 asks
	forged, _ := json.Marshal(sp)
	code, stdout, stderr = verify(sign("forged", []json.RawMessage{forged, skills[1]}, "all"))
	if code != cli.ExitFailed || !strings.Contains(stdout, "differs") || !strings.Contains(stderr, "recompute: PostgreSQL indexing (differs") ||
		!strings.Contains(stderr, "evidenceLevel") {
		t.Errorf("forged: exit %d\n%s%s", code, stdout, stderr)
	}

	// Withheld evidence: verified, and the skills are reported as not
	// recomputed.
	code, stdout, stderr = verify(sign("partial", skills, "0,2"))
	if code != cli.ExitOK || !strings.Contains(stdout, "not_disclosed PostgreSQL indexing: 2 of the passport's 8 evidence records are disclosed") {
		t.Errorf("partial: exit %d\n%s%s", code, stdout, stderr)
	}
}
