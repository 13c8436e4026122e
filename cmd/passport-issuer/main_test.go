package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"passport-issuer": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the command-line scenarios in testdata/script, each in
// its own directory with its own SQLite file. The verifier CLI, passport,
// is built and on the PATH, so that scripts check what the issuer writes
// as a third party would.
func TestScripts(t *testing.T) {
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "passport"), "../passport").CombinedOutput(); err != nil {
		t.Fatalf("build passport: %v\n%s", err, out)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("PASSPORT_LOG_LEVEL", "warn")
			e.Setenv("PATH", bin+string(os.PathListSeparator)+e.Getenv("PATH"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// replace FILE OLD NEW replaces the one occurrence of OLD in
			// FILE with NEW.
			"replace": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: replace FILE OLD NEW")
				}
				b := ts.ReadFile(args[0])
				if strings.Count(b, args[1]) != 1 {
					ts.Fatalf("%s holds %q %d times, not once", args[0], args[1], strings.Count(b, args[1]))
				}
				if err := os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Replace(b, args[1], args[2], 1)), 0o644); err != nil {
					ts.Fatalf("%v", err)
				}
			},
			// jsonenv VAR FIELD sets VAR to a string field of the last
			// command's JSON output.
			"jsonenv": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: jsonenv VAR FIELD")
				}
				var v map[string]any
				if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
					ts.Fatalf("stdout is not a JSON object: %v", err)
				}
				s, ok := v[args[1]].(string)
				if !ok {
					ts.Fatalf("no string field %q in stdout", args[1])
				}
				ts.Setenv(args[0], s)
			},
		},
	})
}
