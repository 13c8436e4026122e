package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	vectors "github.com/remnant/passportkit/vectors/skilltrust"

	"github.com/remnant/passportkit/internal/cli"
)

// runCLI runs the command line in-process and returns its exit code and
// output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

var reasonPattern = regexp.MustCompile(`\(reason ([a-z0-9_]+)\)`)

// TestAssessVectors runs every skill trust vector through passport assess.
func TestAssessVectors(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			file := filepath.Join(dir, c.Name+".json")
			if err := os.WriteFile(file, c.Evidence, 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"assess", "--evidence", file, "--skill", c.Task.Skill, "--at", c.At, "--json"}
			for k, v := range c.Task.Context {
				args = append(args, "--context", k+"="+v)
			}
			code, stdout, stderr := runCLI(t, args...)
			if c.Fail() {
				m := reasonPattern.FindStringSubmatch(stderr)
				if code != cli.ExitUsage || m == nil {
					t.Fatalf("exit %d, stderr %q; want exit %d with a reason", code, stderr, cli.ExitUsage)
				}
				if err := vectors.CheckError(c.Expect, m[1]); err != nil {
					t.Fatal(err)
				}
				return
			}
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var out assessOutput
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			a, err := json.Marshal(out.Agents[0].Skills[0].Assessment)
			if err != nil {
				t.Fatal(err)
			}
			if err := vectors.Check(c.Expect, a); err != nil {
				t.Errorf("%s: %v", c.Rule, err)
			}
			sp, err := json.Marshal(out.Agents[0].Skills[0].SkillPassport)
			if err != nil {
				t.Fatal(err)
			}
			if err := vectors.CheckSkillPassport(c.Expect, sp); err != nil {
				t.Errorf("%s: %v", c.Rule, err)
			}
		})
	}
}

const assessEvidence = `{"evidence":[
{"id":"ev_1","type":"outcome","skill":"Postgres indexing","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_a","operator":"op_a","ownership":"distinct","date":"2026-01-01"},
{"id":"ev_2","type":"outcome","skill":"PG indexing","outcome":"failure","quality":"OBSERVED_REUSE","reporter":"act_b","operator":"op_b","ownership":"distinct","date":"2026-01-01","context":{"workload":"batch"}},
{"id":"ev_3","type":"declaration","skill":"SQLite","quality":"DECLARED","reporter":"act_s","ownership":"self","date":"2025-01-01"}]}`

// TestAssessCompare checks a comparison keeps the order of agents and skills
// as given and ranks nothing.
func TestAssessCompare(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "b-agent.json"), filepath.Join(dir, "a-agent.json")
	os.WriteFile(a, []byte(assessEvidence), 0o644)
	os.WriteFile(b, []byte(`{"evidence":[]}`), 0o644)
	code, stdout, stderr := runCLI(t, "assess", "--evidence", a, "--evidence", b, "--skill", "SQLite", "--skill", "postgres indexing",
		"--at", "2026-01-01", "--json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out assessOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ag := range out.Agents {
		for _, s := range ag.Skills {
			got = append(got, filepath.Base(ag.Evidence)+":"+s.Assessment.Skill+":"+string(s.Assessment.Assessment))
		}
	}
	want := []string{"b-agent.json:SQLite:NEW", "b-agent.json:PostgreSQL indexing:INSUFFICIENT_EVIDENCE",
		"a-agent.json:SQLite:NEW", "a-agent.json:PostgreSQL indexing:NEW"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestAssessHuman checks the human form explains the assessment.
func TestAssessHuman(t *testing.T) {
	file := filepath.Join(t.TempDir(), "e.json")
	os.WriteFile(file, []byte(assessEvidence), 0o644)
	code, stdout, stderr := runCLI(t, "assess", "--evidence", file, "--skill", "PostgreSQL indexing", "--context", "workload=batch",
		"--context", "constraints=a;b=c", "--at", "2026-01-01")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"INSUFFICIENT_EVIDENCE", "N/A", "held back by", "estimate.binary_outcomes",
		"NEGATIVE_RESULTS_VISIBLE", "context_missing", "ev_2", "assessment hash", "context 0.50"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestAssessUsage checks refusals say why, with exit code 2.
func TestAssessUsage(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(assessEvidence), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"evidence":[{"id":"ev_1"}]}`), 0o644)
	six := []string{"assess", "--skill", "PostgreSQL", "--at", "2026-01-01"}
	for range 6 {
		six = append(six, "--evidence", good)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"assess", "--evidence", filepath.Join(dir, "none.json"), "--skill", "PostgreSQL"}, "no such file"},
		{"invalid record", []string{"assess", "--evidence", bad, "--skill", "PostgreSQL"}, "(reason"},
		{"bad date", []string{"assess", "--evidence", good, "--skill", "PostgreSQL", "--at", "2026-02-30"}, "not a valid day"},
		{"unknown dimension", []string{"assess", "--evidence", good, "--skill", "PostgreSQL", "--context", "colour=blue"}, "unknown context dimension"},
		{"too many agents", six, "(reason invalid_task)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, cli.ExitUsage, tc.want)
			}
		})
	}
}

// TestImportRules: the pure core reads no files, network, database or clock,
// and passport does not depend on the trust model. (TestNoDatabaseDriver
// covers the binary.)
func TestImportRules(t *testing.T) {
	list := func(args ...string) string {
		out, err := exec.Command("go", append([]string{"list"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	for _, pkg := range []string{"../../skilltrust", "../../evidence"} {
		imports := strings.Fields(strings.Trim(strings.TrimSpace(list("-f", "{{.Imports}}", pkg)), "[]"))
		for _, banned := range []string{"os", "net", "net/http", "database/sql", "time", "math/rand", "math/rand/v2", "crypto/rand", "io/fs"} {
			if slices.Contains(imports, banned) {
				t.Errorf("%s imports %s", pkg, banned)
			}
		}
	}
	if deps := list("-deps", "../../passport"); strings.Contains(deps, "passportkit/skilltrust") {
		t.Error("passport depends on skilltrust")
	}
}
