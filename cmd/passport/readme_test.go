package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// readmeCommands returns the `passport` command lines of the README's
// indented code blocks, in order, with continuation lines joined. The
// issuer service's walkthrough is left out: it needs a running issuer and
// has its own tests.
func readmeCommands(readme []byte) []string {
	var cmds []string
	var pending string
	skip := false
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			skip = strings.HasPrefix(line, "## Issuer service")
		}
		if skip {
			continue
		}
		if pending != "" {
			pending += " " + strings.TrimSpace(line)
		} else if code, ok := strings.CutPrefix(line, "    "); ok && strings.HasPrefix(code, "passport ") {
			pending = code
		} else {
			continue
		}
		if strings.HasSuffix(pending, "\\") {
			pending = strings.TrimSpace(strings.TrimSuffix(pending, "\\"))
			continue
		}
		cmds = append(cmds, strings.TrimSpace(pending))
		pending = ""
	}
	return cmds
}

// TestReadmeCommands runs every `passport` command line of README.md, as
// written, in order, through a POSIX shell in a directory holding a copy of
// the repository's examples/ directory: each must exit 0.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(readme)
	if len(cmds) < 10 {
		t.Fatalf("found %d passport commands in README.md; the extraction is broken", len(cmds))
	}
	var script strings.Builder
	for _, c := range cmds {
		fmt.Fprintf(&script, "exec sh -c %s\n", quote(c))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme.txtar"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d commands from README.md", len(cmds))
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			return os.CopyFS(filepath.Join(env.WorkDir, "examples"), os.DirFS("../../examples"))
		},
	})
}

// quote quotes s as one testscript argument.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestReadmeCommandsExtraction pins the extraction on a small sample.
func TestReadmeCommandsExtraction(t *testing.T) {
	got := readmeCommands([]byte("## A\n\n    passport a \\\n        --b c\n    go test\n    $ passport d\n## Issuer service\n    passport e\n## Z\n    passport f # g\n"))
	want := []string{"passport a --b c", "passport f # g"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
