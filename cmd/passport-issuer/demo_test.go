package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/clitest"
)

// TestREADMEQuickStart keeps the README's quick start truthful: its first
// command runs the demo and its second the tests; the verify commands it
// shows are those demo prints; and the identifiers it names are those of
// the world demo builds. The commands themselves run in
// testdata/script/demo.txtar.
func TestREADMEQuickStart(t *testing.T) {
	section := clitest.READMESection(t, "../../README.md", "## Quick start")
	var cmds []string
	for _, l := range strings.Split(section, "\n") {
		if c, ok := strings.CutPrefix(l, "    "); ok && !strings.HasPrefix(c, " ") {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 2 || cmds[0] != "go run ./cmd/passport-issuer demo" || cmds[1] != "go test ./..." {
		t.Fatalf("the quick start's first commands are %q, want the demo and then the tests", cmds[:min(2, len(cmds))])
	}

	// The demo runs in a temporary directory, named in full; the output
	// is compared as if it ran in the working directory.
	dir := t.TempDir() + string(os.PathSeparator)
	var stdout, stderr bytes.Buffer
	args := []string{"--log-level", "warn", "--db", dir + "passportkit.db", "demo", "--no-serve",
		"--keys", dir + "passportkit-keys", "--out", dir + "demo"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("demo exited %d: %s", code, stderr.String())
	}
	out := strings.ReplaceAll(stdout.String(), dir, "")

	printed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(l, "  go run ./cmd/passport verify"); ok {
			printed["go run ./cmd/passport verify"+c] = true
		}
	}
	if len(printed) != 2 {
		t.Fatalf("demo printed %d verify commands:\n%s", len(printed), out)
	}
	for c := range printed {
		if !strings.Contains(section, "\n    "+c+"\n") {
			t.Errorf("the README does not show the command demo prints: %s", c)
		}
	}
	for _, c := range cmds[2:] {
		if strings.HasPrefix(c, "go run ./cmd/passport verify") && !printed[c] {
			t.Errorf("the README shows a verify command demo does not print: %s", c)
		}
	}
	for _, id := range regexp.MustCompile(`agt_[a-z2-7]{26}`).FindAllString(section, -1) {
		if !strings.Contains(out, id) {
			t.Errorf("the README names %s, which the demo world does not have", id)
		}
	}
	for _, l := range []string{"Built the demo world (seed 1) in passportkit.db: 9 operators, 12 agents, 14 memories, 80 steps",
		"6 praise attempts by the same-owner ring were refused at submission"} {
		if !strings.Contains(out, l) || !strings.Contains(section, l) {
			t.Errorf("the README and demo should both say %q", l)
		}
	}
}
