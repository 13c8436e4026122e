package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cli"
	vectors "github.com/remnant/passportkit/vectors/skilltrust"
)

// TestAssessReaderView runs --reader on a vector with several reporters:
// the reader's view keeps the subject's records and the trusted
// reporter's, and reports a pseudonym that reports nothing.
func TestAssessReaderView(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tried := 0
	for _, c := range cases {
		if c.Fail() {
			continue
		}
		set, err := evidence.Parse(c.Evidence)
		if err != nil {
			continue
		}
		var other string
		others := map[string]bool{}
		for _, r := range set.Records() {
			if r.Ownership != evidence.OwnershipSelf {
				others[r.Reporter] = true
				if other == "" {
					other = r.Reporter
				}
			}
		}
		if len(others) < 2 {
			continue
		}
		tried++
		file := filepath.Join(dir, c.Name+".json")
		if err := os.WriteFile(file, c.Evidence, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"assess", "--evidence", file, "--skill", c.Task.Skill, "--at", c.At, "--reader", other + ",act_nobody", "--json"}
		for k, v := range c.Task.Context {
			args = append(args, "--context", k+"="+v)
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", c.Name, code, stderr)
		}
		var out assessOutput
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		v := out.Agents[0].Reader
		if v == nil || v.Records != len(set.Records()) || v.Kept+v.Dropped != v.Records || v.Dropped == 0 {
			t.Fatalf("%s: reader view %+v", c.Name, v)
		}
		if len(v.UnknownTrustSet) != 1 || v.UnknownTrustSet[0] != "act_nobody" || len(v.Skills) != len(out.Agents[0].Skills) {
			t.Fatalf("%s: unknown %v, %d skills", c.Name, v.UnknownTrustSet, len(v.Skills))
		}
		// The human form puts the two views side by side.
		code, stdout, _ = runCLI(t, args[:len(args)-1]...)
		if code != cli.ExitOK || !strings.Contains(stdout, "issuer's view and reader's view") {
			t.Fatalf("%s: human form: %s", c.Name, stdout)
		}
		if tried == 3 {
			break
		}
	}
	if tried == 0 {
		t.Fatal("no vector has two reporters besides the subject")
	}
	for _, bad := range []string{"", "bob", "act_x,act_x"} {
		code, _, stderr := runCLI(t, "assess", "--evidence", "x.json", "--skill", "s", "--reader", bad)
		if code != cli.ExitUsage || !strings.Contains(stderr, "--reader") {
			t.Errorf("--reader %q: exit %d, %s", bad, code, stderr)
		}
	}
}
